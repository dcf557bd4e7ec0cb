//! Calls by name with dynamic values, as an interpreter or a language binding makes them.

use opgen_tests::ops;

use super::*;

fn add_boxed(args: Vec<IValue<TestTensor>>) -> Result<TestTensor, Error> {
    let op = Dispatcher::global().find("aten::add", "Tensor")?;
    let mut stack = Stack::from(args);
    op.fill_defaults(&mut stack)?;
    op.call_boxed(&mut stack)?;
    match stack.pop() {
        Some(IValue::Tensor(t)) if stack.is_empty() => Ok(t),
        other => panic!("unexpected returns {other:?}"),
    }
}

#[test]
fn every_operator_is_callable_by_name() {
    let (a, b) = (cpu(&[1.0, 2.0]), cpu(&[10.0, 20.0]));
    let by_name = add_boxed(vec![IValue::Tensor(a.clone()), IValue::Tensor(b.clone())]).unwrap();
    assert_eq!(by_name, ops::add(&a, &b));
    let alpha = IValue::Int(2);
    let by_name = add_boxed(vec![
        IValue::Tensor(a.clone()),
        IValue::Tensor(b.clone()),
        alpha,
    ])
    .unwrap();
    assert_eq!(by_name.data(), [21.0, 42.0]);
}

#[test]
fn the_schema_is_available_at_run_time() {
    let op = Dispatcher::global().find("aten::add", "Tensor").unwrap();
    let schema = op.schema().unwrap();
    assert_eq!(
        schema.to_string(),
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    );
    assert!(op.keys_with_kernels().contains(&DispatchKey::CPU));
    let names: Vec<String> = Dispatcher::global()
        .operators()
        .iter()
        .map(|op| op.to_string())
        .collect();
    for name in [
        "aten::add.Tensor",
        "aten::neg",
        "aten::scale",
        "vision::nms",
        "static_test::mul",
    ] {
        assert!(
            names.iter().any(|n| n == name),
            "{name} missing from {names:?}"
        );
    }
}

#[test]
fn a_wrong_value_is_an_error_naming_the_argument() {
    let a = cpu(&[1.0]);
    let error = add_boxed(vec![IValue::Tensor(a), IValue::Int(1)]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "argument 2 (`other`) of `aten::add.Tensor` should be `Tensor` but the stack holds `int`"
    );
}
