//! Calls whose tensors are on different backends, each carrying its autograd key: c10's
//! functionality-then-backend choice at every level, and key sets as lossy as c10's.

use std::sync::{Arc, Mutex};

use super::*;
use crate::dispatch::{
    BackendComponent, DispatchKey as K, IValue, OperatorHandle, Stack, TypedOperator, boxed,
};

const PAIR: &str = "pair(Tensor a, Tensor b) -> Tensor";

type Pair = TypedOperator<TestTensor, (&'static TestTensor, &'static TestTensor), TestTensor>;

/// Every backend key a tensor can be on: the dense key of every backend component and the
/// backends without per-backend keys.
fn backends() -> Vec<DispatchKey> {
    let dense = BackendComponent::ALL.iter().map(|b| b.dense_key());
    let single = [
        K::FPGA,
        K::Vulkan,
        K::Metal,
        K::CustomRNGKeyId,
        K::MkldnnCPU,
    ];
    dense.chain(single).collect()
}

/// A tensor on `backend` with its autograd key (c10: `AutogradCPU` for `CPU`, ...,
/// `AutogradOther` for `HIP`, `VE` and the backends without per-backend keys).
fn on(backend: DispatchKey) -> TestTensor {
    let autograd = backend.autograd_key().expect("a backend key");
    TestTensor::new(&[backend, autograd], 0)
}

/// c10's choice for a tensor on `a` and one on `b`: the backend whose kernel runs (the
/// highest functionality, then the highest backend; a backend without per-backend keys is a
/// functionality above the dense one), and the autograd key that runs first: `Autograd` on
/// the highest backend component of both tensors if one of them has a per-backend autograd
/// key, else `AutogradOther`.
fn expected(a: DispatchKey, b: DispatchKey) -> (DispatchKey, DispatchKey) {
    let backend = a.max(b);
    let per_backend = [a, b]
        .iter()
        .any(|k| k.autograd_key().and_then(DispatchKey::backend).is_some());
    let component = [a.backend(), b.backend()].into_iter().flatten().max();
    let autograd = match component {
        Some(c) if per_backend => K::AutogradCPU.for_backend(c).unwrap(),
        _ => K::AutogradOther,
    };
    (autograd, backend)
}

/// `test::pair` with a kernel at every backend key returning its index.
fn pair_with_backend_kernels() -> (Dispatcher, Library, Vec<Registration>, Pair) {
    let (d, lib, def) = setup(PAIR);
    let mut regs = vec![def];
    for key in backends() {
        let tag = key.index() as i64;
        let kernel = move |_: &TestTensor, _: &TestTensor| TestTensor::cpu(tag);
        regs.push(lib.impl_("pair", key, kernel).unwrap());
    }
    let pair = d
        .typed::<_, (&TestTensor, &TestTensor), TestTensor>("test::pair", "")
        .unwrap();
    (d, lib, regs, pair)
}

/// The typed and the boxed call of `pair` on `a` and `b`: the value of each result.
fn both_ways(pair: &Pair, a: &TestTensor, b: &TestTensor) -> (i64, i64) {
    let typed = pair.call(a, b).value();
    let mut stack = Stack::from(vec![IValue::Tensor(a.clone()), IValue::Tensor(b.clone())]);
    pair.handle().call_boxed(&mut stack).unwrap();
    let boxed = match stack.pop() {
        Some(IValue::Tensor(t)) => t.value(),
        other => panic!("unexpected result {other:?}"),
    };
    (typed, boxed)
}

#[test]
fn every_pair_of_backends_reaches_the_highest_backend_through_the_autograd_fallthrough() {
    let (_d, _lib, _regs, pair) = pair_with_backend_kernels();
    for a in backends() {
        for b in backends() {
            let (_, backend) = expected(a, b);
            let tag = backend.index() as i64;
            assert_eq!(both_ways(&pair, &on(a), &on(b)), (tag, tag), "{a} with {b}");
        }
    }
}

#[test]
fn every_pair_of_backends_runs_one_autograd_kernel_then_the_highest_backend() {
    let (_d, lib, _regs, pair) = pair_with_backend_kernels();
    // An autograd kernel for every autograd key that records its key and redispatches
    // below the autograd layer.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (log, inner) = (seen.clone(), pair.clone());
    let autograd = move |ks: DispatchKeySet, a: &TestTensor, b: &TestTensor| {
        log.lock().unwrap().push(ks.highest());
        inner.try_redispatch(ks.below(K::Autograd), a, b)
    };
    let _autograd = lib.impl_("pair", K::Autograd, autograd).unwrap();
    for a in backends() {
        for b in backends() {
            let (autograd, backend) = expected(a, b);
            let tag = backend.index() as i64;
            seen.lock().unwrap().clear();
            assert_eq!(both_ways(&pair, &on(a), &on(b)), (tag, tag), "{a} with {b}");
            assert_eq!(
                *seen.lock().unwrap(),
                [Some(autograd), Some(autograd)],
                "{a} with {b}: the autograd kernel ran once per call, at this key"
            );
        }
    }
}

#[test]
fn private_use1_with_cpu_reaches_the_private_use1_kernel_not_the_catch_all() {
    let (d, lib, _def) = setup(PAIR);
    let _pu1 = lib
        .impl_("pair", K::PrivateUse1, |_: &TestTensor, _: &TestTensor| {
            TestTensor::cpu(1)
        })
        .unwrap();
    let _catch_all = lib
        .impl_(
            "pair",
            K::CompositeImplicitAutograd,
            |_: &TestTensor, _: &TestTensor| TestTensor::cpu(2),
        )
        .unwrap();
    let pair = d
        .typed::<_, (&TestTensor, &TestTensor), TestTensor>("test::pair", "")
        .unwrap();
    let (pu1, cpu) = (on(K::PrivateUse1), on(K::CPU));
    // AutogradPrivateUse1 falls through (PrivateUse1 has a kernel); AutogradCPU, which the
    // catch-all serves, is never selected: the autograd layer is passed for both tensors.
    assert_eq!(both_ways(&pair, &pu1, &cpu), (1, 1));
    assert_eq!(both_ways(&pair, &cpu, &pu1), (1, 1));
    // A CPU tensor alone takes the catch-all (at AutogradCPU).
    assert_eq!(both_ways(&pair, &cpu, &cpu), (2, 2));
}

#[test]
fn past_autograd_no_other_tensors_autograd_key_is_selected() {
    let (d, lib, _def) = setup(PAIR);
    let calls = Arc::new(Mutex::new(Vec::new()));
    let log = calls.clone();
    let _autograd_cpu = lib
        .impl_(
            "pair",
            K::AutogradCPU,
            move |_: &TestTensor, _: &TestTensor| {
                log.lock().unwrap().push("AutogradCPU");
                TestTensor::cpu(-1)
            },
        )
        .unwrap();
    let _cpu = lib
        .impl_("pair", K::CPU, |_: &TestTensor, _: &TestTensor| {
            TestTensor::cpu(0)
        })
        .unwrap();
    let _cuda = lib
        .impl_("pair", K::CUDA, |_: &TestTensor, _: &TestTensor| {
            TestTensor::cpu(1)
        })
        .unwrap();
    let pair = d
        .typed::<_, (&TestTensor, &TestTensor), TestTensor>("test::pair", "")
        .unwrap();
    let (cpu, cuda) = (on(K::CPU), on(K::CUDA));
    // CUDA is the highest backend: AutogradCUDA (the default fallthrough) then CUDA; the
    // AutogradCPU kernel never runs, whichever tensor comes first.
    assert_eq!(both_ways(&pair, &cpu, &cuda), (1, 1));
    assert_eq!(both_ways(&pair, &cuda, &cpu), (1, 1));
    // The same when autograd is left by an operator's own fallthrough at AutogradCUDA.
    let _skip = lib.impl_fallthrough("pair", K::AutogradCUDA).unwrap();
    assert_eq!(both_ways(&pair, &cpu, &cuda), (1, 1));
    assert!(calls.lock().unwrap().is_empty());
    // Alone, a CPU tensor runs the AutogradCPU kernel.
    assert_eq!(both_ways(&pair, &cpu, &cpu), (-1, -1));
    assert_eq!(calls.lock().unwrap().len(), 2);
}

#[test]
fn redispatch_below_one_autograd_key_leaves_autograd_for_every_tensor() {
    let (d, lib, _def) = setup(PAIR);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let kernel = boxed(
        move |op: &OperatorHandle, ks: DispatchKeySet, stack: &mut Stack<TestTensor>| {
            log.lock().unwrap().push(ks.highest());
            match ks.highest() {
                Some(key) if key.is_autograd() => op.redispatch_boxed(ks.below(key), stack),
                _ => {
                    let base = stack.len() - 2;
                    stack.truncate(base);
                    stack.push(IValue::Tensor(TestTensor::cpu(7)));
                    Ok(())
                }
            }
        },
    );
    let _all = lib
        .impl_("pair", K::CompositeImplicitAutograd, kernel)
        .unwrap();
    let pair = d
        .typed::<_, (&TestTensor, &TestTensor), TestTensor>("test::pair", "")
        .unwrap();
    assert_eq!(pair.call(&on(K::CPU), &on(K::CUDA)).value(), 7);
    // AutogradCUDA, then below it CUDA: not AutogradCPU.
    assert_eq!(
        *seen.lock().unwrap(),
        [Some(K::AutogradCUDA), Some(K::CUDA)]
    );
}

#[test]
fn key_sets_are_as_lossy_as_c10s() {
    let (d, lib, _def) = setup(PAIR);
    for key in [K::SparseCPU, K::SparseCUDA, K::CPU, K::CUDA] {
        let tag = key.index() as i64;
        let kernel = move |_: &TestTensor, _: &TestTensor| TestTensor::cpu(tag);
        lib.impl_("pair", key, kernel).unwrap().forget();
    }
    let pair = d
        .typed::<_, (&TestTensor, &TestTensor), TestTensor>("test::pair", "")
        .unwrap();
    // A sparse CPU tensor and a dense CUDA tensor: the sparse functionality on the CUDA
    // backend, as in c10.
    let sparse_cpu = TestTensor::new(&[K::SparseCPU], 0);
    let cuda = TestTensor::new(&[K::CUDA], 0);
    let tag = K::SparseCUDA.index() as i64;
    assert_eq!(both_ways(&pair, &sparse_cpu, &cuda), (tag, tag));
    // An autograd CPU tensor and a plain CUDA tensor: AutogradCUDA (the default
    // fallthrough), then CUDA.
    let autograd_cpu = on(K::CPU);
    let tag = K::CUDA.index() as i64;
    assert_eq!(both_ways(&pair, &autograd_cpu, &cuda), (tag, tag));
    let ks = autograd_cpu.key_set() | cuda.key_set();
    assert!(ks.contains(K::AutogradCUDA) && ks.contains(K::CPU));
}

#[test]
fn fallthrough_masks_are_per_backend() {
    let (d, lib, _def) = setup("op(Tensor self) -> Tensor");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    // An autograd kernel for every backend but CPU, where the operator falls through.
    let autograd = boxed(
        move |op: &OperatorHandle, ks: DispatchKeySet, stack: &mut Stack<TestTensor>| {
            log.lock().unwrap().push(ks.highest());
            op.redispatch_boxed(ks.below(K::Autograd), stack)
        },
    );
    let _autograd = lib.impl_("op", K::Autograd, autograd).unwrap();
    let _skip_cpu = lib.impl_fallthrough("op", K::AutogradCPU).unwrap();
    for key in [K::CPU, K::CUDA, K::Tracer] {
        let tag = key.index() as i64;
        let kernel = boxed(
            move |_: &OperatorHandle, ks: DispatchKeySet, stack: &mut Stack<TestTensor>| {
                // The kernel sees the key set without the fallthrough's functionality.
                let autograd = ks.contains(K::AutogradCUDA) || ks.contains(K::AutogradCPU);
                stack.pop();
                stack.push(IValue::Tensor(TestTensor::cpu(
                    tag + 1000 * i64::from(autograd),
                )));
                Ok(())
            },
        );
        lib.impl_("op", key, kernel).unwrap().forget();
    }
    let op = d
        .typed::<_, (&TestTensor,), TestTensor>("test::op", "")
        .unwrap();
    assert_eq!(op.call(&on(K::CPU)).value(), K::CPU.index() as i64);
    assert!(seen.lock().unwrap().is_empty());
    assert_eq!(op.call(&on(K::CUDA)).value(), K::CUDA.index() as i64);
    assert_eq!(*seen.lock().unwrap(), [Some(K::AutogradCUDA)]);
    // On CPU the Tracer kernel sees no autograd key (CPU's mask removed it); on CUDA it does.
    let traced =
        |backend| TestTensor::new(&[backend, backend.autograd_key().unwrap(), K::Tracer], 0);
    assert_eq!(op.call(&traced(K::CPU)).value(), K::Tracer.index() as i64);
    assert_eq!(
        op.call(&traced(K::CUDA)).value(),
        K::Tracer.index() as i64 + 1000
    );
}
