//! Memory is given back: superseded tables and dropped kernels are freed once no call can
//! read them, forgotten registrations do not keep their dispatcher, kernels that hold their
//! own operator's handle do not outlive the dispatcher, and a thread's first call through
//! any entry point registers it with the reclamation of tables.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use super::*;
use crate::dispatch::reclaim::{self, settle};
use crate::dispatch::{DispatchKey as K, IValue, Stack, TypedOperator};

/// Counts the live values made from it.
#[derive(Clone, Default)]
struct Live(Arc<AtomicUsize>);

/// A value a kernel captures, counted while it lives.
struct Counted {
    live: Live,
    _payload: Vec<u8>,
}

impl Live {
    fn new_value(&self, bytes: usize) -> Counted {
        self.0.fetch_add(1, Ordering::SeqCst);
        Counted {
            live: self.clone(),
            // Zeroed: the pages are only touched if used, so 200 of them cost no time.
            _payload: vec![0; bytes],
        }
    }

    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }

    /// Waits (collecting) until at most `n` values live; false after 10 s.
    fn settles_at(&self, n: usize) -> bool {
        settle(10, || self.count() <= n)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.live.0.fetch_sub(1, Ordering::SeqCst);
    }
}

type Unary = TypedOperator<TestTensor, (&'static TestTensor,), TestTensor>;

fn unary(d: &Dispatcher, name: &str) -> Unary {
    d.typed::<_, (&TestTensor,), TestTensor>(name, "").unwrap()
}

#[test]
fn a_register_drop_loop_keeps_memory_flat() {
    let (d, lib, _def) = setup("op(Tensor self) -> Tensor");
    let op = unary(&d, "test::op");
    let live = Live::default();
    let mut most = 0;
    for i in 0..200 {
        // A kernel capturing 10 MB, called (so that tables hold it), then dropped.
        let heavy = live.new_value(10 << 20);
        let kernel = lib
            .impl_("op", K::CPU, move |t: &TestTensor| {
                let _ = &heavy;
                TestTensor::cpu(t.value() + i)
            })
            .unwrap();
        assert_eq!(op.call(&TestTensor::cpu(1)).value(), 1 + i);
        drop(kernel);
        assert!(
            live.settles_at(0),
            "cycle {i}: {} kernels live",
            live.count()
        );
        most = most.max(live.count());
    }
    // Today's figure was 200 kernels (2 GB) held until the dispatcher went.
    assert_eq!(most, 0);
    assert!(op.try_call(&TestTensor::cpu(1)).is_err());
}

#[test]
fn a_fallback_cycle_over_many_operators_frees_the_tables_it_replaces() {
    const OPS: usize = 1000;
    let d = Dispatcher::new();
    let lib = d.library("test").unwrap();
    let mut registrations = Vec::new();
    for i in 0..OPS {
        registrations.push(lib.def(&format!("op_{i}(Tensor self) -> Tensor")).unwrap());
        registrations.push(
            lib.impl_(&format!("op_{i}"), K::CPU, |t: &TestTensor| t.clone())
                .unwrap(),
        );
    }
    // Looked up, so that every operator has a table that fallbacks rebuild.
    let ops: Vec<Unary> = (0..OPS)
        .map(|i| unary(&d, &format!("test::op_{i}")))
        .collect();
    let infos: Vec<_> = (ops.iter())
        .map(|op| op.handle().table().snapshot().info.clone().unwrap())
        .collect();
    let live = Live::default();
    for (cycle, op) in ops.iter().enumerate().take(20) {
        let state = live.new_value(1 << 10);
        let fallback = lib
            .fallback(K::Tracer, move |_, _, _: &mut Stack<TestTensor>| {
                let _ = &state;
                Ok(())
            })
            .unwrap();
        assert_eq!(
            op.call(&TestTensor::new(&[K::CPU, K::Tracer], 5)).value(),
            5,
            "the boxed fallback leaves its argument as the result"
        );
        drop(fallback);
        // Every table that held the fallback is freed, so its kernel is.
        assert!(live.settles_at(0), "cycle {cycle}: the fallback lives on");
    }
    // Each operator's schema is held by its `def` and its current table only: the tables
    // the cycles replaced (2 per operator per cycle) are gone.
    let settled = settle(10, || infos.iter().all(|info| Arc::strong_count(info) == 3));
    let counts: Vec<usize> = infos.iter().map(Arc::strong_count).collect();
    // (3: the `def`, the current table, and `infos`.)
    assert!(settled, "tables kept: {:?}", &counts[..10]);
    assert_eq!(ops[7].call(&TestTensor::cpu(7)).value(), 7);
}

#[test]
fn forgetting_a_registration_does_not_keep_the_dispatcher() {
    let live = Live::default();
    let weak = {
        let (d, lib, def) = setup("op(Tensor self) -> Tensor");
        def.forget();
        let state = live.new_value(16);
        lib.impl_("op", K::CPU, move |t: &TestTensor| {
            let _ = &state;
            t.clone()
        })
        .unwrap()
        .forget();
        // In force after `forget`.
        assert_eq!(unary(&d, "test::op").call(&TestTensor::cpu(3)).value(), 3);
        Arc::downgrade(&d.inner)
    };
    assert!(
        weak.upgrade().is_none(),
        "the dispatcher outlived its last handle"
    );
    assert!(
        live.settles_at(0),
        "the forgotten kernel outlived its dispatcher"
    );
}

#[test]
fn a_kernel_holding_its_own_operator_is_freed_with_the_dispatcher() {
    let live = Live::default();
    let (entry, outlived): (Weak<_>, Unary) = {
        let (d, lib, def) = setup("op(Tensor self) -> Tensor");
        def.forget();
        lib.impl_("op", K::CPU, |t: &TestTensor| t.clone())
            .unwrap()
            .forget();
        let op = unary(&d, "test::op");
        // An autograd kernel that redispatches through its own operator's typed handle:
        // a cycle entry → table → kernel → handle → entry while the dispatcher lives.
        let (inner, state) = (op.clone(), live.new_value(16));
        lib.impl_(
            "op",
            K::AutogradCPU,
            move |ks: DispatchKeySet, t: &TestTensor| {
                let _ = &state;
                inner.redispatch(ks.below(K::AutogradCPU), t)
            },
        )
        .unwrap()
        .forget();
        let tracked = TestTensor::new(&[K::CPU, K::AutogradCPU], 4);
        assert_eq!(op.call(&tracked).value(), 4);
        let entry = Arc::downgrade(op.handle().entry.owner().owner().unwrap());
        let outlived = unary(&d, "test::op");
        drop(op);
        (entry, outlived)
    };
    // The dispatcher is gone: its tables were emptied, so the kernel (and the handle it
    // held) went; the entry lives on only for the handle that outlived the dispatcher.
    assert!(live.settles_at(0), "the kernel outlived its dispatcher");
    assert_eq!(entry.strong_count(), 1);
    let error = message(outlived.try_call(&TestTensor::cpu(1)));
    assert!(
        error.starts_with("Could not find schema for test::op"),
        "{error}"
    );
    drop(outlived);
    assert!(entry.upgrade().is_none());
}

#[test]
fn a_threads_first_call_registers_it_through_every_entry_point() {
    let (d, lib, _def) = setup("op(Tensor self) -> Tensor");
    let _cpu = lib
        .impl_("op", K::CPU, |t: &TestTensor| {
            TestTensor::cpu(t.value() + 1)
        })
        .unwrap();
    let op = unary(&d, "test::op");
    let handle = op.handle().clone();
    std::thread::scope(|s| {
        let typed = s.spawn(|| {
            assert!(!reclaim::is_registered());
            let value = op.call(&TestTensor::cpu(1)).value();
            (value, reclaim::is_registered())
        });
        let redispatch = s.spawn(|| {
            let ks = DispatchKeySet::from_key(K::CPU);
            (
                op.redispatch(ks, &TestTensor::cpu(2)).value(),
                reclaim::is_registered(),
            )
        });
        let boxed = s.spawn(|| {
            let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::cpu(3))]);
            handle.call_boxed(&mut stack).unwrap();
            let value = stack.pop().and_then(IValue::into_tensor).map(|t| t.value());
            (value.unwrap_or_default(), reclaim::is_registered())
        });
        let schema = s.spawn(|| (handle.schema().is_some(), reclaim::is_registered()));
        assert_eq!(typed.join().unwrap(), (2, true));
        assert_eq!(redispatch.join().unwrap(), (3, true));
        assert_eq!(boxed.join().unwrap(), (4, true));
        assert_eq!(schema.join().unwrap(), (true, true));
    });
    // A registered thread's calls carry no registration bit into kernels.
    let keys = lib
        .impl_("op", K::Tracer, |ks: DispatchKeySet, t: &TestTensor| {
            let _ = t;
            TestTensor::cpu(ks.bits() as i64)
        })
        .unwrap();
    let seen =
        std::thread::spawn(move || op.call(&TestTensor::new(&[K::CPU, K::Tracer], 0)).value())
            .join()
            .unwrap();
    assert_eq!(seen as u64 & crate::dispatch::keys::REGISTER_BIT, 0);
    drop(keys);
}
