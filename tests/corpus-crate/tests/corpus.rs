//! The corpus crate: every ATen operator declared from the yaml, kernels for a few attached
//! by name, called through each generated path. One integration binary.

use opgen::prelude::*;
use opgen_tests_corpus::{CpuTensor, aten};

fn t(data: &[f64]) -> CpuTensor {
    CpuTensor::new(data)
}

#[test]
fn every_definition_registers() {
    assert!(
        Dispatcher::global_errors().is_empty(),
        "{:?}",
        Dispatcher::global_errors()
    );
    // Entries and generated variants alike are defined.
    for (name, overload) in [
        ("aten::add", "Tensor"),
        ("aten::add", "out"),
        ("aten::abs", "out"),
        ("aten::_foreach_add", "Scalar_out"),
    ] {
        Dispatcher::global().find(name, overload).expect(name);
    }
}

#[test]
fn free_functions_call_the_kernels() {
    let (a, b) = (t(&[1.0, -2.0]), t(&[10.0, 20.0]));
    assert_eq!(aten::add(&a, &b).data(), [11.0, 18.0]);
    let args = aten::AddArgs {
        alpha: Scalar::Float(0.5),
    };
    assert_eq!(aten::add_with(&a, &b, args).data(), [6.0, 8.0]);
    assert_eq!(aten::try_mul(&a, &b).unwrap().data(), [10.0, -40.0]);
    assert_eq!(aten::relu(&a).data(), [1.0, 0.0]);
    assert_eq!(aten::sum(&a).data(), [-1.0]);
    // The out variant: out arguments first, and the faithful form (the marker's `call`) in
    // schema order.
    let mut out = t(&[]);
    assert_eq!(aten::add_out(&mut out, &a, &b).data(), [11.0, 18.0]);
    assert_eq!(out.data(), [11.0, 18.0]);
    let mut out = t(&[]);
    aten::add_out::call((&a, &b, Scalar::Int(2), &mut out)).unwrap();
    assert_eq!(out.data(), [21.0, 38.0]);
}

#[test]
fn methods_call_the_kernels() {
    let (a, b) = (t(&[1.0, -2.0]), t(&[10.0, 20.0]));
    assert_eq!(a.add(&b).data(), [11.0, 18.0]);
    assert_eq!(a.mul(&b).data(), [10.0, -40.0]);
    assert_eq!(a.relu().data(), [1.0, 0.0]);
    assert_eq!(a.try_sum().unwrap().data(), [-1.0]);
}

#[test]
fn boxed_calls_by_name() -> Result<(), Error> {
    let op = Dispatcher::global().find("aten::mul", "Tensor")?;
    let mut stack = Stack::from(vec![
        IValue::Tensor(t(&[2.0, 3.0])),
        IValue::Tensor(t(&[4.0, 5.0])),
    ]);
    op.call_boxed(&mut stack)?;
    let result = stack.pop().and_then(IValue::into_tensor);
    assert_eq!(result.map(|r| r.data().to_vec()), Some(vec![8.0, 15.0]));
    // `alpha` from the schema's default.
    let op = Dispatcher::global().find("aten::add", "Tensor")?;
    let mut stack = Stack::from(vec![IValue::Tensor(t(&[1.0])), IValue::Tensor(t(&[2.0]))]);
    op.fill_defaults(&mut stack)?;
    op.call_boxed(&mut stack)?;
    let result = stack.pop().and_then(IValue::into_tensor);
    assert_eq!(result.map(|r| r.data().to_vec()), Some(vec![3.0]));
    Ok(())
}

#[test]
fn redispatch_continues_below_a_key() {
    let (a, b) = (t(&[1.0]), t(&[2.0]));
    let keys = DispatchKeySet::from(DispatchKey::CPU);
    let added = aten::add::redispatch(keys, (&a, &b, Scalar::Int(3))).unwrap();
    assert_eq!(added.data(), [7.0]);
    let relu = aten::relu::redispatch(keys, (&t(&[-1.0]),)).unwrap();
    assert_eq!(relu.data(), [0.0]);
}

#[test]
fn an_operator_without_kernel_says_so() {
    let (a, b) = (t(&[1.0]), t(&[2.0]));
    let message = aten::try_sub(&a, &b).unwrap_err().to_string();
    assert!(
        message
            .starts_with("Could not run 'aten::sub.Tensor' with arguments from the 'CPU' backend."),
        "{message}"
    );
    assert!(
        message.ends_with("'aten::sub.Tensor' has no kernels"),
        "{message}"
    );
    // The method and the boxed call say the same.
    assert_eq!(a.try_sub(&b).unwrap_err().to_string(), message);
    let op = Dispatcher::global().find("aten::sub", "Tensor").unwrap();
    let mut stack = Stack::from(vec![IValue::Tensor(Clone::clone(&a)), IValue::Tensor(b)]);
    op.fill_defaults(&mut stack).unwrap();
    assert_eq!(op.call_boxed(&mut stack).unwrap_err().to_string(), message);
    // The panicking form panics with it.
    let panic = std::panic::catch_unwind(|| aten::abs(&a)).unwrap_err();
    let text = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        text.starts_with("Could not run 'aten::abs' with arguments from the 'CPU' backend."),
        "{text}"
    );
}

#[test]
fn clashing_names_are_spelled_out() {
    // `clamp` and `clamp.Tensor` would both be `clamp`; the later one spells its overload.
    let a = t(&[1.0]);
    let message = aten::try_clamp_tensor(&a).unwrap_err().to_string();
    assert!(message.contains("'aten::clamp.Tensor'"), "{message}");
    let message = aten::try_clamp(&a, Some(Scalar::Int(0)))
        .unwrap_err()
        .to_string();
    assert!(message.contains("'aten::clamp'"), "{message}");
}

#[test]
fn operators_without_typed_api_are_callable_by_name() {
    // 30 arguments: more than typed calls take, so only the schema is registered.
    let op = Dispatcher::global()
        .find("aten::mkldnn_rnn_layer_backward", "out")
        .unwrap();
    assert_eq!(op.schema().unwrap().arguments.len(), 30);
}

#[test]
fn aten_methods_shadow_trait_methods_of_the_same_name() {
    // `clone` is an ATen method: `a.clone()` is the operator (as in PyTorch), not `Clone`.
    let a = t(&[1.0]);
    let message = a.try_clone().unwrap_err().to_string();
    assert!(message.contains("'aten::clone'"), "{message}");
    assert_eq!(Clone::clone(&a), a);
}
