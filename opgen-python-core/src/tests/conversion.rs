//! The stack each matched call gets.

use std::sync::Arc;

use opgen_core::dispatch::{Device, IValue, ScalarType};

use super::V::*;
use super::{Mock, V, arg, corpus, schema_of, t0, t2};
use crate::{Arg, CallArgs, Flavor, Plan, PySignature, SignatureOptions, parse};

/// The stack of calling `name`'s binding with `args`, `kwargs` (the functional operator
/// or, with `out=`, the out one).
fn stack(function: &str, args: &[V], kwargs: &[(&str, V)]) -> (String, Vec<IValue<Mock>>) {
    let c = corpus();
    let binding = &c.bindings.functions[""][function];
    let a: Vec<Arg<'_, Mock>> = args.iter().map(arg).collect();
    let k: Vec<(&str, Arg<'_, Mock>)> = kwargs.iter().map(|(n, v)| (*n, arg(v))).collect();
    let sigs: Vec<&PySignature> = binding.overloads.iter().map(|o| &o.signature).collect();
    let call = CallArgs {
        args: &a,
        kwargs: &k,
    };
    let parsed = parse::<Mock, _>(&sigs, call).unwrap();
    let overload = &binding.overloads[parsed.index];
    let out = overload
        .signature
        .out
        .is_some_and(|o| matches!(parsed.slots[o], crate::Slot::Pos(_) | crate::Slot::Kw(_)));
    let op = if out {
        overload.outplace.unwrap()
    } else {
        overload.base
    };
    let schema = c.ops[op].schema.clone();
    let plan = Plan::<Mock>::new(&overload.signature, schema.clone());
    let stack = plan
        .stack(&overload.signature, &parsed.slots, call, None)
        .unwrap();
    (schema.name.to_string(), stack.into_vec())
}

#[test]
fn defaults_fill_the_rest() {
    let (op, s) = stack("sum", &[T(t2()), I(1)], &[]);
    assert_eq!(op, "sum.dim_IntList");
    assert_eq!(
        s[1..],
        [IValue::from(vec![1i64]), IValue::Bool(false), IValue::None]
    );
    let (_, s) = stack("add", &[T(t2()), F(2.5)], &[]);
    // The number is a wrapped tensor; alpha=1.
    assert_eq!(
        s[1],
        IValue::Tensor(Mock {
            sizes: vec![],
            dtype: ScalarType::Double,
            value: Some(2.5.into())
        })
    );
    assert_eq!(s[2], IValue::Int(1));
}

#[test]
fn out_goes_to_the_out_overload() {
    let out = Mock {
        sizes: vec![3],
        dtype: ScalarType::Long,
        value: None,
    };
    let (op, s) = stack(
        "max",
        &[T(t2()), I(0)],
        &[("out", Tup(vec![T(out.clone()), T(out.clone())]))],
    );
    assert_eq!(op, "max.dim_max");
    assert_eq!(s.len(), 5);
    assert_eq!(s[3], IValue::Tensor(out.clone()));
    let (op, s) = stack("max", &[T(t2()), I(0)], &[("out", N)]);
    assert_eq!((op.as_str(), s.len()), ("max.dim", 3));
}

#[test]
fn factories_bind_their_tensor_options() {
    let (op, s) = stack(
        "zeros",
        &[I(2), I(3)],
        &[("dtype", Dtype(ScalarType::Double))],
    );
    assert_eq!(op, "zeros");
    assert_eq!(
        s,
        [
            IValue::from(vec![2i64, 3]),
            IValue::ScalarType(ScalarType::Double),
            IValue::None,
            IValue::None,
            IValue::Bool(false)
        ]
    );
    // `requires_grad` binds to no schema argument: it marks the result.
    let (op, with_grad) = stack("zeros", &[I(2), I(3)], &[("requires_grad", B(true))]);
    assert_eq!((op.as_str(), with_grad.len()), ("zeros", 5));
    assert_eq!(
        with_grad[1..],
        [
            IValue::None,
            IValue::None,
            IValue::None,
            IValue::Bool(false)
        ]
    );
    let (_, s) = stack("full", &[Tup(vec![I(2)]), I(7)], &[("device", S("meta"))]);
    assert_eq!(s[1], IValue::Int(7));
    assert_eq!(s[4], IValue::Device("meta".parse::<Device>().unwrap()));
}

#[test]
fn numbers_convert_to_the_schema_type() {
    // `float` from an int and from a zero-dim tensor; `int[2]` from one int.
    let sig_schema = opgen_core::schema::parse_schema(
        "f(float x, float y, int[2] stride, Scalar s, int? i=None, str mode='a') -> Tensor",
    )
    .unwrap();
    let sig = PySignature::new(&sig_schema, Flavor::Function, SignatureOptions::default()).unwrap();
    let zero = t0(4);
    let args = [I(3), T(zero), I(2), B(true)];
    let a: Vec<Arg<'_, Mock>> = args.iter().map(arg).collect();
    let call = CallArgs {
        args: &a,
        kwargs: &[],
    };
    let parsed = parse::<Mock, _>(&[&sig], call).unwrap();
    let plan = Plan::<Mock>::new(&sig, Arc::new(sig_schema));
    let s = plan
        .stack(&sig, &parsed.slots, call, None)
        .unwrap()
        .into_vec();
    assert_eq!(
        s,
        [
            IValue::Float(3.0),
            IValue::Float(4.0),
            IValue::from(vec![2i64, 2]),
            IValue::Bool(true),
            IValue::None,
            IValue::from("a"),
        ]
    );
    let _ = schema_of("add.Tensor");
}
