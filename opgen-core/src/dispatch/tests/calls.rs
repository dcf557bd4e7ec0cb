//! Typed and boxed calls, redispatch, thread-local keys, registration life cycles.

use std::sync::{Arc, Mutex};

use super::*;
use crate::dispatch::{
    DispatchKey as K, ExcludeDispatchKeyGuard, IValue, IncludeDispatchKeyGuard, OperatorHandle,
    Scalar, Stack, TupleKernel, boxed,
};

const ADD: &str = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";

fn add_cpu(a: &TestTensor, b: &TestTensor, alpha: Scalar) -> TestTensor {
    TestTensor::cpu(a.value() + alpha.to_i64().unwrap_or(0) * b.value())
}

type AddOp = crate::dispatch::TypedOperator<
    TestTensor,
    (&'static TestTensor, &'static TestTensor, Scalar),
    TestTensor,
>;

fn add_op(d: &Dispatcher) -> AddOp {
    d.typed::<_, (&TestTensor, &TestTensor, Scalar), TestTensor>("test::add", "Tensor")
        .unwrap()
}

#[test]
fn typed_and_boxed_calls_reach_an_unboxed_kernel() {
    let (d, lib, _def) = setup(ADD);
    let _cpu = lib.impl_("add.Tensor", K::CPU, add_cpu).unwrap();
    let add = add_op(&d);
    assert_eq!(
        add.call(&TestTensor::cpu(1), &TestTensor::cpu(2), Scalar::Int(3))
            .value(),
        7
    );
    let op = d.find("test::add", "Tensor").unwrap();
    let mut stack: Stack<TestTensor> = Stack::new();
    stack.push(IValue::Int(99)); // values below the arguments are left alone
    stack.push(IValue::Tensor(TestTensor::cpu(1)));
    stack.push(IValue::Tensor(TestTensor::cpu(2)));
    stack.push(IValue::from(Scalar::Int(10)));
    op.call_boxed(&mut stack).unwrap();
    assert_eq!(
        stack.into_vec(),
        vec![IValue::Int(99), IValue::Tensor(TestTensor::cpu(21))]
    );
}

#[test]
fn typed_and_boxed_calls_reach_a_boxed_kernel() {
    let (d, lib, _def) = setup(ADD);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let kernel = boxed(
        move |op: &OperatorHandle, ks, stack: &mut Stack<TestTensor>| {
            log.lock()
                .unwrap()
                .push(format!("{op} {ks} {}", stack.len()));
            let base = stack.len() - 3;
            let args = stack.split_off(base);
            // A `Scalar` is boxed as the number it holds.
            let [IValue::Tensor(a), IValue::Tensor(b), IValue::Int(alpha)] = args.as_slice() else {
                return Err(Error::from("unexpected arguments"));
            };
            stack.push(IValue::Tensor(add_cpu(a, b, Scalar::Int(*alpha))));
            Ok(())
        },
    );
    let _cpu = lib.impl_("add.Tensor", K::CPU, kernel).unwrap();
    let add = add_op(&d);
    assert_eq!(
        add.call(&TestTensor::cpu(1), &TestTensor::cpu(2), Scalar::Int(2))
            .value(),
        5
    );
    let op = add.handle().clone();
    let mut stack = Stack::from(vec![
        IValue::Tensor(TestTensor::cpu(1)),
        IValue::Tensor(TestTensor::cpu(1)),
    ]);
    op.fill_defaults(&mut stack).unwrap();
    op.call_boxed(&mut stack).unwrap();
    assert_eq!(stack.into_vec(), vec![IValue::Tensor(TestTensor::cpu(2))]);
    assert_eq!(
        *seen.lock().unwrap(),
        ["test::add.Tensor DispatchKeySet(CPU) 3"; 2]
    );
}

/// Records which kernels ran, in order.
type Trace = Arc<Mutex<Vec<&'static str>>>;

#[test]
fn redispatch_runs_each_kernel_of_a_chain_once_in_order() {
    let (d, lib, _def) = setup("relu(Tensor self) -> Tensor");
    let relu = d
        .typed::<_, (&TestTensor,), TestTensor>("test::relu", "")
        .unwrap();
    let trace: Trace = Arc::default();
    for (key, name) in [
        (K::Tracer, "Tracer"),
        (K::AutogradCPU, "AutogradCPU"),
        (K::ADInplaceOrView, "ADInplaceOrView"),
    ] {
        let (op, trace) = (relu.clone(), trace.clone());
        lib.impl_("relu", key, move |ks: DispatchKeySet, t: &TestTensor| {
            trace.lock().unwrap().push(name);
            op.try_redispatch(ks.below(key), t)
        })
        .unwrap()
        .forget();
    }
    let t2 = trace.clone();
    let _cpu = lib
        .impl_("relu", K::CPU, move |ks: DispatchKeySet, t: &TestTensor| {
            t2.lock().unwrap().push("CPU");
            assert_eq!(ks, DispatchKeySet::from_key(K::CPU));
            t.clone()
        })
        .unwrap();
    let keys = [K::CPU, K::ADInplaceOrView, K::AutogradCPU, K::Tracer];
    let t = TestTensor::new(&keys, 5);
    assert_eq!(relu.call(&t), t);
    assert_eq!(
        *trace.lock().unwrap(),
        ["Tracer", "AutogradCPU", "ADInplaceOrView", "CPU"]
    );
    trace.lock().unwrap().clear();
    // Boxed: the same chain, through the unboxing adapters.
    let mut stack = Stack::from(vec![IValue::Tensor(t.clone())]);
    relu.handle().call_boxed(&mut stack).unwrap();
    assert_eq!(stack.into_vec(), vec![IValue::Tensor(t)]);
    assert_eq!(
        *trace.lock().unwrap(),
        ["Tracer", "AutogradCPU", "ADInplaceOrView", "CPU"]
    );
}

#[test]
fn boxed_kernels_redispatch_too() {
    let (d, lib, _def) = setup("relu(Tensor self) -> Tensor");
    let trace: Trace = Arc::default();
    let t1 = trace.clone();
    let _tracer = lib
        .impl_(
            "relu",
            K::Tracer,
            boxed(move |op, ks, stack: &mut Stack<TestTensor>| {
                t1.lock().unwrap().push("Tracer");
                op.redispatch_boxed(ks.below(K::Tracer), stack)
            }),
        )
        .unwrap();
    let t2 = trace.clone();
    let _cpu = lib
        .impl_("relu", K::CPU, move |t: &TestTensor| {
            t2.lock().unwrap().push("CPU");
            t.clone()
        })
        .unwrap();
    let relu = d
        .typed::<_, (&TestTensor,), TestTensor>("test::relu", "")
        .unwrap();
    let t = TestTensor::new(&[K::CPU, K::Tracer], 1);
    assert_eq!(relu.call(&t), t);
    assert_eq!(*trace.lock().unwrap(), ["Tracer", "CPU"]);
}

#[test]
fn thread_local_keys_apply_to_every_call() {
    let (d, lib, _def) = setup("relu(Tensor self) -> Tensor");
    let _cpu = lib
        .impl_("relu", K::CPU, |_: &TestTensor| TestTensor::cpu(1))
        .unwrap();
    let _tracer = lib
        .impl_("relu", K::Tracer, |_: &TestTensor| TestTensor::cpu(2))
        .unwrap();
    let _autograd = lib
        .impl_("relu", K::AutogradCPU, |_: &TestTensor| TestTensor::cpu(3))
        .unwrap();
    let relu = d
        .typed::<_, (&TestTensor,), TestTensor>("test::relu", "")
        .unwrap();
    let t = TestTensor::new(&[K::CPU, K::AutogradCPU], 0);
    assert_eq!(relu.call(&t).value(), 3);
    {
        let _tracing = IncludeDispatchKeyGuard::new(K::Tracer);
        assert_eq!(relu.call(&t).value(), 2);
        let mut stack = Stack::from(vec![IValue::Tensor(t.clone())]);
        relu.handle().call_boxed(&mut stack).unwrap();
        assert_eq!(stack[0], IValue::Tensor(TestTensor::cpu(2)));
    }
    let _no_grad = ExcludeDispatchKeyGuard::new(K::Autograd);
    assert_eq!(relu.call(&t).value(), 1);
    // Redispatch does not apply them again.
    assert_eq!(relu.redispatch(t.key_set(), &t).value(), 3);
}

#[test]
fn the_key_set_comes_from_every_tensor_argument_and_no_other() {
    let schema = "mix(Tensor? a, Tensor[] b, Tensor?[] c, int n) -> int";
    let (d, lib, _def) = setup(schema);
    for key in [K::CPU, K::CUDA, K::Meta, K::XPU] {
        let tag = key.index() as i64;
        let kernel =
            move |_: Option<&TestTensor>, _: &[TestTensor], _: &[Option<TestTensor>], _: i64| tag;
        lib.impl_("mix", key, kernel).unwrap().forget();
    }
    type Args<'a> = (
        Option<&'a TestTensor>,
        &'a [TestTensor],
        &'a [Option<TestTensor>],
        i64,
    );
    let mix = d.typed::<_, Args<'_>, i64>("test::mix", "").unwrap();
    let t = |k| TestTensor::new(&[k], 0);
    assert_eq!(
        mix.call(Some(&t(K::CPU)), &[], &[], 0),
        K::CPU.index() as i64
    );
    assert_eq!(
        mix.call(None, &[t(K::CPU), t(K::CUDA)], &[], 0),
        K::CUDA.index() as i64
    );
    assert_eq!(
        mix.call(None, &[t(K::CPU)], &[None, Some(t(K::Meta))], 0),
        K::Meta.index() as i64
    );
    let mut stack = Stack::from(vec![
        IValue::None,
        IValue::TensorList(Arc::new(vec![t(K::XPU)])),
        IValue::OptionalTensorList(Arc::new(vec![None])),
        IValue::Int(0),
    ]);
    mix.handle().call_boxed(&mut stack).unwrap();
    assert_eq!(stack.into_vec(), vec![IValue::Int(K::XPU.index() as i64)]);
}

#[test]
fn an_operator_without_tensor_arguments_dispatches_on_included_keys() {
    let (d, lib, _def) = setup("ones(int n, *, Device? device=None) -> Tensor");
    let _select = lib
        .impl_(
            "ones",
            K::BackendSelect,
            |n: i64, device: Option<crate::dispatch::Device>| {
                TestTensor::new(&[if device.is_some() { K::CUDA } else { K::CPU }], n)
            },
        )
        .unwrap();
    let ones = d
        .typed::<TestTensor, (i64, Option<crate::dispatch::Device>), TestTensor>("test::ones", "")
        .unwrap();
    // BackendSelect is in every thread's included keys, as in PyTorch.
    assert_eq!(ones.call(3, None), TestTensor::cpu(3));
    let _no_select = ExcludeDispatchKeyGuard::new(K::BackendSelect);
    assert!(
        ones.try_call(3, None)
            .unwrap_err()
            .to_string()
            .starts_with("There were no tensor arguments to this function")
    );
}

#[test]
fn a_backend_select_fallback_replaces_the_builtin_fallthrough_while_it_lives() {
    let (d, lib, _def) = setup("neg(Tensor self) -> Tensor");
    let _cpu = lib
        .impl_("neg", K::CPU, |t: &TestTensor| t.clone())
        .unwrap();
    let builtin = d.fallbacks();
    assert!(builtin.contains(&(K::BackendSelect, builtin[0].1, true)));
    let neg = d
        .typed::<TestTensor, (&TestTensor,), TestTensor>("test::neg", "")
        .unwrap();
    let t = TestTensor::cpu(2);
    assert_eq!(neg.call(&t), t);
    let mine = lib
        .fallback(K::BackendSelect, |_, _, stack: &mut Stack<TestTensor>| {
            stack.pop();
            stack.push(IValue::Tensor(TestTensor::cpu(-1)));
            Ok(())
        })
        .unwrap();
    assert_eq!(neg.call(&t), TestTensor::cpu(-1));
    assert!(lib.fallback_fallthrough(K::BackendSelect).is_err());
    drop(mine);
    assert_eq!(neg.call(&t), t);
    assert_eq!(d.fallbacks(), builtin);
}

#[test]
fn kernel_errors_name_the_operator() {
    let (d, lib, _def) = setup("relu(Tensor self) -> Tensor");
    let _cpu = lib
        .impl_(
            "relu",
            K::CPU,
            |t: &TestTensor| -> Result<TestTensor, String> {
                if t.value() < 0 {
                    Err(format!("negative value {}", t.value()))
                } else {
                    Ok(t.clone())
                }
            },
        )
        .unwrap();
    let relu = d
        .typed::<_, (&TestTensor,), TestTensor>("test::relu", "")
        .unwrap();
    assert_eq!(
        relu.try_call(&TestTensor::cpu(1)).ok(),
        Some(TestTensor::cpu(1))
    );
    let err = relu.try_call(&TestTensor::cpu(-1)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "kernel for `test::relu` failed: negative value -1"
    );
    assert!(std::error::Error::source(&err).is_some());
    let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::cpu(-2))]);
    assert_eq!(
        message(relu.handle().call_boxed(&mut stack)),
        "kernel for `test::relu` failed: negative value -2"
    );
}

/// The unboxed entry points return a kernel's error as it is and the typed call names the
/// operator: through a redispatch below a key, a tuple kernel, and a kernel that calls
/// another operator, the error names the operator whose kernel failed, once.
#[test]
fn kernel_errors_name_the_operator_whose_kernel_failed() {
    let (d, lib, _def) = setup("relu(Tensor self) -> Tensor");
    let _outer_def = lib.def("outer(Tensor self) -> Tensor").unwrap();
    let relu = d
        .typed::<_, (&TestTensor,), TestTensor>("test::relu", "")
        .unwrap();
    let op = relu.clone();
    // An Autograd-like kernel that redispatches below its key: the kernel below sees the
    // key set without it and the thread's excluded keys.
    let _autograd = lib
        .impl_(
            "relu",
            K::AutogradCPU,
            move |ks: DispatchKeySet, t: &TestTensor| {
                op.try_redispatch(ks.below(K::AutogradCPU), t)
            },
        )
        .unwrap();
    let kernel = TupleKernel::<(&'static TestTensor,), _>::new(
        |ks: DispatchKeySet, (t,): (&TestTensor,)| {
            assert_eq!(ks, DispatchKeySet::from_key(K::CPU), "below autograd");
            if t.value() < 0 {
                Err(Error::from(format!("negative value {}", t.value())))
            } else {
                Ok(t.clone())
            }
        },
    );
    let _cpu = lib.impl_("relu", K::CPU, kernel).unwrap();
    // Excluded by the thread while the call runs: the redispatch does not reach it.
    let _inplace_or_view = lib
        .impl_(
            "relu",
            K::ADInplaceOrView,
            |_: &TestTensor| -> Result<TestTensor, String> {
                Err("ADInplaceOrView was excluded".into())
            },
        )
        .unwrap();
    let op = relu.clone();
    let _outer = lib
        .impl_("outer", K::CPU, move |t: &TestTensor| op.try_call(t))
        .unwrap();
    let outer = d
        .typed::<_, (&TestTensor,), TestTensor>("test::outer", "")
        .unwrap();
    let keys = [K::CPU, K::ADInplaceOrView, K::AutogradCPU];
    assert_eq!(
        message(relu.try_call(&TestTensor::new(&keys, 3))),
        "kernel for `test::relu` failed: ADInplaceOrView was excluded"
    );
    let _excluded = ExcludeDispatchKeyGuard::new(K::ADInplaceOrView);
    assert_eq!(
        relu.try_call(&TestTensor::new(&keys, 3)).unwrap().value(),
        3
    );
    let failed = "kernel for `test::relu` failed: negative value -1";
    assert_eq!(message(relu.try_call(&TestTensor::new(&keys, -1))), failed);
    assert_eq!(message(outer.try_call(&TestTensor::cpu(-1))), failed);
    let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::new(&keys, -1))]);
    assert_eq!(message(relu.handle().call_boxed(&mut stack)), failed);
}

#[test]
#[should_panic(expected = "Could not run 'test::relu' with arguments from the 'CUDA' backend.")]
fn call_panics_with_the_error_message() {
    let (d, lib, _def) = setup("relu(Tensor self) -> Tensor");
    let _cpu = lib
        .impl_("relu", K::CPU, |t: &TestTensor| t.clone())
        .unwrap();
    let relu = d
        .typed::<_, (&TestTensor,), TestTensor>("test::relu", "")
        .unwrap();
    relu.call(&TestTensor::new(&[K::CUDA], 0));
}

#[test]
fn an_impl_may_come_before_its_def() {
    let d = Dispatcher::new();
    let impls = d.impls("late");
    let _cpu = impls
        .impl_("late::neg", K::CPU, |t: &TestTensor| {
            TestTensor::cpu(-t.value())
        })
        .unwrap();
    assert!(d.find("late::neg", "").is_err());
    let lib = d.library("late").unwrap();
    let _def = lib.def("neg(Tensor self) -> Tensor").unwrap();
    let neg = d
        .typed::<_, (&TestTensor,), TestTensor>("late::neg", "")
        .unwrap();
    assert_eq!(neg.call(&TestTensor::cpu(4)).value(), -4);
}

#[test]
fn kernels_may_take_the_key_set_and_return_tuples() {
    let (d, lib, _def) = setup("split(Tensor self, int n) -> (Tensor, Tensor[], int)");
    let _cpu = lib
        .impl_(
            "split",
            K::CPU,
            |ks: DispatchKeySet, t: &TestTensor, n: i64| {
                (t.clone(), vec![t.clone(); n as usize], ks.len() as i64)
            },
        )
        .unwrap();
    let split = d
        .typed::<_, (&TestTensor, i64), (TestTensor, Vec<TestTensor>, i64)>("test::split", "")
        .unwrap();
    let t = TestTensor::cpu(1);
    assert_eq!(
        split.call(&t, 2),
        (t.clone(), vec![t.clone(), t.clone()], 1)
    );
    let mut stack = Stack::from(vec![IValue::Tensor(t.clone()), IValue::Int(1)]);
    split.handle().call_boxed(&mut stack).unwrap();
    assert_eq!(
        stack.into_vec(),
        vec![
            IValue::Tensor(t.clone()),
            IValue::TensorList(Arc::new(vec![t])),
            IValue::Int(1)
        ]
    );
}

#[test]
fn written_tensors_are_passed_mutably() {
    let (d, lib, _def) = setup("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)");
    let _cpu = lib
        .impl_(
            "add_.Tensor",
            K::CPU,
            |s: &mut TestTensor, o: &TestTensor| {
                *s = TestTensor::cpu(s.value() + o.value());
                s.clone()
            },
        )
        .unwrap();
    let add_ = d
        .typed::<_, (&mut TestTensor, &TestTensor), TestTensor>("test::add_", "Tensor")
        .unwrap();
    let mut s = TestTensor::cpu(1);
    let out = add_.call(&mut s, &TestTensor::cpu(2));
    assert_eq!((s.value(), out.value()), (3, 3));
}

#[test]
fn the_largest_corpus_arity_works_typed_and_boxed() {
    let args = (0..23)
        .map(|i| format!("int a{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let (d, lib, _def) = setup(&format!("wide(Tensor self, {args}) -> int"));
    type I = i64;
    #[rustfmt::skip]
    let kernel = |_: &TestTensor, a: I, b: I, c: I, d: I, e: I, f: I, g: I, h: I, i: I, j: I, k: I, l: I, m: I,
                  n: I, o: I, p: I, q: I, r: I, s: I, t: I, u: I, v: I, w: I| {
        a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q + r + s + t + u + v + w
    };
    let _cpu = lib.impl_("wide", K::CPU, kernel).unwrap();
    let t = TestTensor::cpu(0);
    let mut stack = Stack::from(vec![IValue::Tensor(t.clone())]);
    stack.extend((1..=23).map(IValue::Int));
    let op = d.find("test::wide", "").unwrap();
    op.call_boxed(&mut stack).unwrap();
    assert_eq!(stack.into_vec(), vec![IValue::Int(276)]);
    #[rustfmt::skip]
    type Wide<'a> = (&'a TestTensor, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I);
    let wide = op.typed::<_, Wide<'_>, i64>().unwrap();
    #[rustfmt::skip]
    let sum = wide.call(&t, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23);
    assert_eq!(sum, 276);
    #[rustfmt::skip]
    type Short<'a> = (&'a TestTensor, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I, I);
    assert!(
        op.typed::<_, Short<'_>, i64>().is_err(),
        "23 parameters for 24 arguments"
    );
}

#[test]
fn boxed_calls_find_the_keys_of_every_tensor_argument() {
    // Plain tensors take the inline path; an absent or listed tensor, or a tensor past the
    // 64th argument, the general one.
    let (d, lib, _def) = setup("pair(Tensor a, Tensor? b) -> int");
    let key = |_: &OperatorHandle, ks: DispatchKeySet, stack: &mut Stack<TestTensor>| {
        stack.clear();
        stack.push(IValue::Int(ks.highest().map_or(-1, |k| k.index() as i64)));
        Ok(())
    };
    let _cpu = lib.impl_("pair", K::CPU, boxed(key)).unwrap();
    let _cuda = lib.impl_("pair", K::CUDA, boxed(key)).unwrap();
    let op = d.find("test::pair", "").unwrap();
    let t = |k| IValue::Tensor(TestTensor::new(&[k], 0));
    for (b, expected) in [(IValue::None, K::CPU), (t(K::CUDA), K::CUDA)] {
        let mut stack = Stack::from(vec![t(K::CPU), b]);
        op.call_boxed(&mut stack).unwrap();
        assert_eq!(stack.into_vec(), [IValue::Int(expected.index() as i64)]);
    }
    let wide = (0..70)
        .map(|i| format!("{} a{i}", if i == 69 { "Tensor" } else { "int" }))
        .collect::<Vec<_>>()
        .join(", ");
    let _wide = lib.def(&format!("wide({wide}) -> int")).unwrap();
    let _wide_cuda = lib.impl_("wide", K::CUDA, boxed(key)).unwrap();
    let mut stack: Stack<TestTensor> = (0..69).map(IValue::Int).collect();
    stack.push(t(K::CUDA));
    d.find("test::wide", "")
        .unwrap()
        .call_boxed(&mut stack)
        .unwrap();
    assert_eq!(stack.into_vec(), [IValue::Int(K::CUDA.index() as i64)]);
}
