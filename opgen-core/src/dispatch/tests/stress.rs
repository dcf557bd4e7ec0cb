//! Calls and lookups on many threads while other threads register and deregister; lookups
//! among 100,000 operators; registrations whose kernels use the dispatcher when dropped.

use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, OnceLock, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use super::*;
use crate::dispatch::operator::NameScan;
use crate::dispatch::{DispatchKey as K, IValue, Stack};

#[test]
fn calls_stay_correct_while_registrations_change() {
    let (d, lib, _def) = setup("relu(Tensor self) -> Tensor");
    let _base = lib
        .impl_("relu", K::CPU, |t: &TestTensor| {
            TestTensor::cpu(t.value() + 1)
        })
        .unwrap();
    // The shadowing kernel overrides `_base` (and warns, once).
    d.set_warning_hook(|_| {});
    let before = d.find("test::relu", "").unwrap().dispatch_table();
    let relu = d
        .typed::<_, (&TestTensor,), TestTensor>("test::relu", "")
        .unwrap();
    let stop = AtomicBool::new(false);
    let calls = AtomicU64::new(0);
    let registrations = AtomicU64::new(0);
    let barrier = Barrier::new(5);
    let deadline = Duration::from_millis(300);
    thread::scope(|s| {
        // Callers: the CPU kernel adds 1, a shadowing CPU kernel adds 100, an autograd kernel
        // (present or not, with or without the autograd fallthrough) adds 10 and redispatches.
        for caller in 0..3 {
            let (relu, stop, calls, barrier) = (&relu, &stop, &calls, &barrier);
            s.spawn(move || {
                let plain = TestTensor::cpu(0);
                let autograd = TestTensor::new(&[K::CPU, K::AutogradCPU], 0);
                barrier.wait();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let value = relu.call(&plain).value();
                    assert!(value == 1 || value == 100, "caller {caller}: {value}");
                    match relu.try_call(&autograd) {
                        Ok(t) => assert!(
                            [1, 100, 11, 110].contains(&t.value()),
                            "caller {caller}: {}",
                            t.value()
                        ),
                        Err(e) => {
                            assert!(e.to_string().contains("'AutogradCPU' dispatch key"), "{e}")
                        }
                    }
                    let mut stack = Stack::from(vec![IValue::Tensor(plain.clone())]);
                    relu.handle().call_boxed(&mut stack).unwrap();
                    let value = stack.pop().and_then(IValue::into_tensor).map(|t| t.value());
                    assert!(
                        value == Some(1) || value == Some(100),
                        "caller {caller}: {value:?}"
                    );
                    n += 1;
                }
                calls.fetch_add(n, Ordering::Relaxed);
            });
        }
        // Registrars: shadow the CPU kernel; add and remove an autograd kernel and fallthrough.
        let (lib, d, stop, registrations, barrier) = (&lib, &d, &stop, &registrations, &barrier);
        s.spawn(move || {
            barrier.wait();
            let start = Instant::now();
            let mut n = 0;
            while start.elapsed() < deadline && n < 3000 {
                let shadow = lib
                    .impl_("relu", K::CPU, |_: &TestTensor| TestTensor::cpu(100))
                    .unwrap();
                thread::yield_now();
                drop(shadow);
                n += 1;
            }
            registrations.fetch_add(n, Ordering::Relaxed);
        });
        s.spawn(move || {
            let relu = d
                .typed::<_, (&TestTensor,), TestTensor>("test::relu", "")
                .unwrap();
            barrier.wait();
            let start = Instant::now();
            let mut n = 0;
            while start.elapsed() < deadline && n < 3000 {
                let inner = relu.clone();
                let autograd = lib.impl_(
                    "relu",
                    K::AutogradCPU,
                    move |ks: DispatchKeySet, t: &TestTensor| {
                        let out = inner.try_redispatch(ks.below(K::AutogradCPU), t)?;
                        Ok::<_, Error>(TestTensor::cpu(out.value() + 10))
                    },
                );
                let fallthrough = d.impls("_").fallback_fallthrough(K::Autograd).unwrap();
                thread::yield_now();
                drop(autograd);
                thread::yield_now();
                drop(fallthrough);
                n += 1;
            }
            registrations.fetch_add(n, Ordering::Relaxed);
            stop.store(true, Ordering::Relaxed);
        });
    });
    assert!(calls.load(Ordering::Relaxed) > 0 && registrations.load(Ordering::Relaxed) > 0);
    // Everything registered meanwhile is gone again, and the table is the one from before.
    let op = d.find("test::relu", "").unwrap();
    assert_eq!(op.dispatch_table(), before);
    assert_eq!(relu.call(&TestTensor::cpu(0)).value(), 1);
    // The dispatcher's default autograd fallthrough is back in force.
    let autograd = relu.call(&TestTensor::new(&[K::CPU, K::AutogradCPU], 0));
    assert_eq!(autograd.value(), 1);
}

#[test]
fn defs_come_and_go_while_others_look_them_up() {
    let d = Dispatcher::new();
    let lib = d.library("test").unwrap();
    let stop = AtomicBool::new(false);
    thread::scope(|s| {
        s.spawn(|| {
            for _ in 0..300 {
                let def = lib.def("tmp(Tensor self) -> Tensor").unwrap();
                let cpu = lib
                    .impl_("tmp", K::CPU, |t: &TestTensor| t.clone())
                    .unwrap();
                drop(def);
                drop(cpu);
            }
            stop.store(true, Ordering::Relaxed);
        });
        s.spawn(|| {
            let t = TestTensor::cpu(3);
            while !stop.load(Ordering::Relaxed) {
                // Either the operator is there and works, or a clean error says it is not.
                match d.typed::<_, (&TestTensor,), TestTensor>("test::tmp", "") {
                    Ok(op) => match op.try_call(&t) {
                        Ok(out) => assert_eq!(out, t),
                        Err(e) => {
                            let e = e.to_string();
                            // (Between the `def` and the kernel the operator has no
                            // kernel; the message lists the keys of the table when it is
                            // written, which the kernel may have joined meanwhile.)
                            assert!(
                                e.starts_with("Could not find schema for test::tmp")
                                    || e.contains("'test::tmp' has no kernels")
                                    || e.contains(
                                        "'test::tmp' is only available for these keys: [CPU]"
                                    ),
                                "{e}"
                            );
                        }
                    },
                    Err(e) => assert!(
                        e.to_string()
                            .starts_with("Could not find schema for test::tmp"),
                        "{e}"
                    ),
                }
            }
        });
    });
    assert!(d.operators().is_empty());
}

#[test]
fn lookups_never_miss_while_the_index_grows() {
    let d = Dispatcher::new();
    let lib = d.library("test").unwrap();
    let _first = lib.def("first(Tensor self) -> Tensor").unwrap();
    let defined = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let mut defs = Vec::new();
    thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while !stop.load(Ordering::Acquire) {
                    assert!(d.find("test::first", "").is_ok());
                    let n = defined.load(Ordering::Acquire);
                    if n > 0 {
                        let name = format!("test::op_{}", n - 1);
                        assert!(d.find(&name, "").is_ok(), "{name} went missing");
                    }
                }
            });
        }
        // 5,000 operators: the index grows from 64 slots to 16,384 meanwhile.
        for i in 0..5000 {
            defs.push(lib.def(&format!("op_{i}(Tensor self) -> Tensor")).unwrap());
            defined.store(i + 1, Ordering::Release);
        }
        stop.store(true, Ordering::Release);
    });
    assert_eq!(d.operators().len(), 5001);
}

#[test]
fn a_failed_find_among_100k_operators_is_a_lookup() {
    const N: usize = 100_000;
    // Link-time definitions (static schemas, of which only the name is read now).
    static SCHEMAS: OnceLock<Vec<String>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        (0..N)
            .map(|i| format!("op_{i}.overload(Tensor self, int n) -> Tensor"))
            .collect()
    });
    let d = Dispatcher::new();
    let lib = d.fragment("big");
    let site = Location::caller();
    let _defs: Vec<Registration> = (schemas.iter())
        .map(|schema| {
            lib.def_static((schema, NameScan::of(schema)), None, None, site)
                .unwrap()
        })
        .collect();
    let start = Instant::now();
    for _ in 0..1000 {
        let overloads = message(d.find("big::op_7", "nope"));
        assert_eq!(
            overloads,
            "Could not find schema for big::op_7.nope; `big::op_7` has the overloads `overload`"
        );
        let missing = message(d.find("big::missing", ""));
        assert!(missing.starts_with("Could not find schema for big::missing;"));
    }
    let elapsed = start.elapsed();
    // Scanning every operator for the error's list took 10 ms per failure: 20 s here.
    assert!(
        elapsed < Duration::from_secs(1),
        "2,000 failed lookups among {N} operators took {elapsed:?}"
    );
    assert!(d.find("big::op_99999", "overload").is_ok());
}

/// Runs `f` on a thread of its own, failing if it has not finished after 10 s (a deadlock
/// fails the test instead of hanging it).
fn finishes(what: &str, f: impl FnOnce() + Send + 'static) {
    let (done, finished) = mpsc::channel();
    thread::spawn(move || {
        f();
        let _ = done.send(());
    });
    match finished.recv_timeout(Duration::from_secs(10)) {
        Ok(()) => {}
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{what}: deadlocked"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{what}: panicked"),
    }
}

/// Sets its flag when dropped.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Looks an operator up when dropped (then sets its flag).
struct FindsOnDrop {
    dispatcher: Dispatcher,
    _flag: DropFlag,
}

impl FindsOnDrop {
    fn new(dispatcher: &Dispatcher, dropped: &Arc<AtomicBool>) -> FindsOnDrop {
        FindsOnDrop {
            dispatcher: dispatcher.clone(),
            _flag: DropFlag(dropped.clone()),
        }
    }
}

impl Drop for FindsOnDrop {
    fn drop(&mut self) {
        let _ = self.dispatcher.find("test::op", "");
        let _ = self.dispatcher.operators();
    }
}

#[test]
fn dropping_a_kernel_that_holds_a_registration_does_not_deadlock() {
    finishes("a kernel holding a registration", || {
        let d = Dispatcher::new();
        let lib = d.library("test").unwrap();
        let other = lib
            .impl_("other", K::CPU, |t: &TestTensor| t.clone())
            .unwrap();
        let dropped = Arc::new(AtomicBool::new(false));
        let flag = DropFlag(dropped.clone());
        // No `def`, so no table holds the kernel: dropping its registration drops it.
        let holder = lib
            .impl_("op", K::CPU, move |t: &TestTensor| {
                let _ = (&other, &flag);
                t.clone()
            })
            .unwrap();
        drop(holder);
        assert!(dropped.load(Ordering::SeqCst));
        assert!(d.dangling_impls().is_empty(), "`other` was dropped too");
    });
}

#[test]
fn dropping_a_kernel_that_holds_the_last_library_does_not_deadlock() {
    finishes("a kernel holding the last library", || {
        let d = Dispatcher::new();
        let lib = Arc::new(d.library("test").unwrap());
        let captured = lib.clone();
        let holder = lib
            .impl_("op", K::CPU, move |t: &TestTensor| {
                let _ = &captured;
                t.clone()
            })
            .unwrap();
        drop(lib);
        drop(holder);
        assert!(d.library("test").is_ok(), "the library was dropped");
    });
}

#[test]
fn dropping_a_kernel_that_looks_up_operators_does_not_deadlock() {
    finishes("a kernel that calls `find` when dropped", || {
        let d = Dispatcher::new();
        let dropped = Arc::new(AtomicBool::new(false));
        let finder = FindsOnDrop::new(&d, &dropped);
        let holder = d
            .impls("test")
            .impl_("op", K::CPU, move |t: &TestTensor| {
                let _ = &finder;
                t.clone()
            })
            .unwrap();
        drop(holder);
        assert!(dropped.load(Ordering::SeqCst));
        // A fallback that does the same, replaced and dropped.
        let dropped = Arc::new(AtomicBool::new(false));
        let finder = FindsOnDrop::new(&d, &dropped);
        let fallback = d
            .impls("_")
            .fallback(K::PrivateUse1, move |_, _, _: &mut Stack<TestTensor>| {
                let _ = &finder;
                Ok(())
            })
            .unwrap();
        drop(fallback);
        assert!(dropped.load(Ordering::SeqCst));
    });
}

#[test]
fn a_rejected_kernel_that_looks_up_operators_does_not_deadlock() {
    finishes("a kernel rejected by its signature check", || {
        let (d, lib, _def) = setup("op(Tensor self) -> Tensor");
        let dropped = Arc::new(AtomicBool::new(false));
        let finder = FindsOnDrop::new(&d, &dropped);
        let wrong = lib.impl_("op", K::CPU, move |t: &TestTensor, _: i64| {
            let _ = &finder;
            t.clone()
        });
        assert!(wrong.is_err());
        assert!(dropped.load(Ordering::SeqCst));
    });
}

#[test]
fn dropping_registrations_of_a_called_operator_does_not_deadlock() {
    // With a `def` and a table, the kernel also lives in the tables the operator kept; what
    // it holds is dropped whenever the last of them goes, never under the registry's lock.
    finishes("a registration of an operator in use", || {
        let (d, lib, def) = setup("op(Tensor self) -> Tensor");
        let finder = FindsOnDrop::new(&d, &Arc::default());
        let other = lib.impl_fallthrough("op", K::AutogradCPU).unwrap();
        let holder = lib
            .impl_("op", K::CPU, move |t: &TestTensor| {
                let _ = (&finder, &other);
                t.clone()
            })
            .unwrap();
        let op = d
            .typed::<_, (&TestTensor,), TestTensor>("test::op", "")
            .unwrap();
        assert_eq!(op.call(&TestTensor::cpu(1)).value(), 1);
        drop(holder);
        drop(def);
        drop(op);
    });
}
