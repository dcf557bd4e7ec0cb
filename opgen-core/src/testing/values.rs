//! Helpers on boxed values and tensors: calls, copies, the tensors a value holds.

use std::sync::Arc;

use crate::dispatch::{Error, IValue, OperatorHandle, Stack, Tensor};

/// `name.overload`, or `name` without overload.
pub(super) fn full_name(op: &OperatorHandle) -> String {
    match op.overload() {
        "" => op.name().to_string(),
        o => format!("{}.{}", op.name(), o),
    }
}

/// A boxed call of `op`: the returns, or the error as a message naming the operator.
pub(super) fn call<T: Tensor>(
    op: &OperatorHandle,
    args: Vec<IValue<T>>,
) -> Result<Vec<IValue<T>>, String> {
    let mut stack = Stack::from(args);
    op.call_boxed(&mut stack)
        .map_err(|e| format!("calling `{}` failed: {e}", full_name(op)))?;
    Ok(stack.into_vec())
}

/// `name` for a lone tensor, `name[j]` for an element of a list.
pub(super) fn element(name: &str, j: usize, n: usize) -> String {
    if n > 1 {
        format!("{name}[{j}]")
    } else {
        name.to_string()
    }
}

/// The tensors held by a value (a tensor, a tensor list, an optional tensor list, a tuple).
pub(super) fn tensors_of<T: Tensor>(value: &IValue<T>) -> Vec<T> {
    match value {
        IValue::Tensor(t) => vec![t.clone()],
        IValue::TensorList(ts) => ts.to_vec(),
        IValue::OptionalTensorList(ts) => ts.iter().flatten().cloned().collect(),
        IValue::Tuple(vs) => vs.iter().flat_map(tensors_of).collect(),
        _ => Vec::new(),
    }
}

/// `value` with `f` applied to each tensor it holds.
pub(super) fn map_tensors<T: Tensor>(
    value: &IValue<T>,
    f: &mut dyn FnMut(&T) -> Result<T, Error>,
) -> Result<IValue<T>, Error> {
    Ok(match value {
        IValue::Tensor(t) => IValue::Tensor(f(t)?),
        IValue::TensorList(ts) => {
            IValue::TensorList(Arc::new(ts.iter().map(&mut *f).collect::<Result<_, _>>()?))
        }
        IValue::OptionalTensorList(ts) => IValue::OptionalTensorList(Arc::new(
            ts.iter()
                .map(|t| t.as_ref().map(&mut *f).transpose())
                .collect::<Result<_, _>>()?,
        )),
        other => other.clone(),
    })
}

/// A value without tensors, to compare non-tensor returns.
pub(super) fn plain<T: Tensor>(value: &IValue<T>) -> IValue<()> {
    match value {
        IValue::Bool(v) => IValue::Bool(*v),
        IValue::Int(v) => IValue::Int(*v),
        IValue::Float(v) => IValue::Float(*v),
        IValue::Complex(v) => IValue::Complex(v.clone()),
        IValue::Str(v) => IValue::Str(v.clone()),
        IValue::IntList(v) => IValue::IntList(v.clone()),
        IValue::FloatList(v) => IValue::FloatList(v.clone()),
        IValue::BoolList(v) => IValue::BoolList(v.clone()),
        IValue::ScalarList(v) => IValue::ScalarList(v.clone()),
        IValue::List(v) => IValue::List(v.clone()),
        IValue::ScalarType(v) => IValue::ScalarType(*v),
        IValue::Layout(v) => IValue::Layout(*v),
        IValue::Device(v) => IValue::Device(*v),
        IValue::MemoryFormat(v) => IValue::MemoryFormat(*v),
        _ => IValue::None,
    }
}

/// A new tensor with `t`'s sizes, strides, options and values.
pub(super) fn deep_copy<T: Tensor>(t: &T) -> Result<T, Error> {
    let sizes = t.sizes()?;
    let strides = t.strides()?;
    let mut copy = T::empty(&sizes, Some(&strides), &t.options()?)?;
    copy.copy_(t)?;
    Ok(copy)
}

/// A new contiguous tensor with `t`'s sizes, options and values: a snapshot to compare with.
pub(super) fn snapshot<T: Tensor>(t: &T) -> Result<T, Error> {
    let mut copy = T::empty(&t.sizes()?, None, &t.options()?)?;
    copy.copy_(t)?;
    Ok(copy)
}

pub(super) fn version<T: Tensor>(t: &T) -> Result<u64, String> {
    t.version().map_err(|e| e.to_string())
}

pub(super) fn sizes<T: Tensor>(t: &T) -> Result<Vec<i64>, String> {
    t.sizes().map_err(|e| e.to_string())
}

pub(super) fn dtype<T: Tensor>(t: &T) -> Result<String, String> {
    t.options()
        .map(|o| o.dtype_or_default().to_string())
        .map_err(|e| e.to_string())
}
