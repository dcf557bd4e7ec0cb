//! Calls on many threads while other threads register and deregister.

use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use super::*;
use crate::dispatch::{DispatchKey as K, IValue, Stack};

#[test]
fn calls_stay_correct_while_registrations_change() {
    let (d, lib, _def) = setup("relu(Tensor self) -> Tensor");
    let _base = lib
        .impl_("relu", K::CPU, |t: &TestTensor| {
            TestTensor::cpu(t.value() + 1)
        })
        .unwrap();
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
                        Err(e) => assert!(e.to_string().contains("`AutogradCPU` backend"), "{e}"),
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
                            assert!(e.contains("not found") || e.contains("no kernels"), "{e}");
                        }
                    },
                    Err(e) => assert!(
                        e.to_string().starts_with("operator `test::tmp` not found"),
                        "{e}"
                    ),
                }
            }
        });
    });
    assert!(d.operators().is_empty());
}
