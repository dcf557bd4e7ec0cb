//! The autograd check of [`OpCheck`](super::OpCheck): for an operator with a kernel at an
//! autograd key, called with its floating-point tensor inputs requiring grad (each tensor of
//! a `Tensor[]` or `Tensor?[]` argument too; the tensors of list and tuple returns are its
//! outputs),
//!
//! * the outputs equal those of the same call below autograd (the Autograd kernel computes
//!   what the kernels below it compute), and an output requires grad;
//! * gradcheck passes: the backward formulas against finite differences, with the inputs in
//!   double precision (an in-place operator writes a copy of its `self`, made by the
//!   `clone` operator of its namespace);
//! * an out operator refuses inputs that require grad (PyTorch's "functions with out=...
//!   arguments don't support automatic differentiation").

use super::gradcheck::{GradcheckOptions, GradcheckTensor, gradcheck};
use super::values::{call, deep_copy, tensors_of};
use crate::autograd::{AutogradTensor, is_differentiable_type};
use crate::dispatch::{
    DispatchKey, Dispatcher, Error, ExcludeDispatchKeyGuard, IValue, OperatorHandle, ScalarType,
    Stack, Tensor,
};
use crate::schema::{Schema, SchemaKind};

/// The keys at which an operator's kernel is an Autograd kernel.
const AUTOGRAD_KEYS: [DispatchKey; 3] = [
    DispatchKey::Autograd,
    DispatchKey::AutogradCPU,
    DispatchKey::AutogradOther,
];

/// Runs the check; `Ok(Some(why))` when it does not apply.
pub(super) fn check<T: GradcheckTensor>(
    dispatcher: &Dispatcher,
    op: &OperatorHandle,
    schema: &Schema,
    inputs: &[IValue<T>],
    same: &dyn Fn(&T, &T) -> bool,
) -> Result<Option<String>, String> {
    let keys = op.keys_with_kernels();
    if !AUTOGRAD_KEYS.iter().any(|k| keys.contains(k)) {
        return Ok(Some("the operator has no Autograd kernel".into()));
    }
    let slots = differentiable_slots(schema, inputs);
    if slots.is_empty() {
        return Ok(Some("no floating-point tensor input".into()));
    }
    if schema.kind() == SchemaKind::Out {
        return out_refuses(op, inputs, &slots);
    }
    let in_place = schema.kind() == SchemaKind::Inplace;
    let written = (schema.self_index().filter(|_| in_place)).map(|arg| Slot { arg, elem: None });
    same_outputs(dispatcher, op, inputs, &slots, written, same)?;
    let doubles: Vec<T> = (slots.iter())
        .map(|&s| leaf(as_double(tensor_at(inputs, s)?)?))
        .collect::<Result<_, Error>>()
        .map_err(|e| format!("making double-precision inputs failed: {e}"))?;
    let f = |ts: &[T]| -> Result<Vec<T>, Error> {
        let mut args = inputs.to_vec();
        for (&s, t) in slots.iter().zip(ts) {
            let t = if Some(s) == written {
                clone_of(dispatcher, op.namespace(), t)?
            } else {
                t.clone()
            };
            set_at(&mut args, s, t)?;
        }
        let outputs = call(op, args).map_err(Error::from)?;
        Ok(floating(&outputs))
    };
    gradcheck(f, &doubles, GradcheckOptions::default()).map_err(|e| format!("gradcheck: {e}"))?;
    Ok(None)
}

/// Where a differentiable tensor is among the arguments: argument `arg`, element `elem` of
/// it when it is a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Slot {
    arg: usize,
    elem: Option<usize>,
}

/// The tensor inputs (before the out arguments) of a floating-point dtype, the tensors of
/// lists included, in argument order: gradcheck's inputs.
fn differentiable_slots<T: Tensor>(schema: &Schema, inputs: &[IValue<T>]) -> Vec<Slot> {
    let floating = |t: &T| {
        t.options()
            .is_ok_and(|o| is_differentiable_type(o.dtype_or_default()))
    };
    let mut slots = Vec::new();
    for (arg, value) in inputs.iter().enumerate().take(schema.out_start()) {
        let elems: Vec<Option<usize>> = match value {
            IValue::Tensor(t) if floating(t) => vec![None],
            IValue::TensorList(ts) => (ts.iter().enumerate())
                .filter(|(_, t)| floating(t))
                .map(|(j, _)| Some(j))
                .collect(),
            IValue::OptionalTensorList(ts) => (ts.iter().enumerate())
                .filter(|(_, t)| t.as_ref().is_some_and(floating))
                .map(|(j, _)| Some(j))
                .collect(),
            _ => Vec::new(),
        };
        slots.extend(elems.into_iter().map(|elem| Slot { arg, elem }));
    }
    slots
}

fn tensor_at<T: Tensor>(inputs: &[IValue<T>], s: Slot) -> Result<&T, Error> {
    match (inputs.get(s.arg), s.elem) {
        (Some(IValue::Tensor(t)), None) => Ok(t),
        (Some(IValue::TensorList(ts)), Some(j)) => ts.get(j).ok_or_else(not_a_tensor),
        (Some(IValue::OptionalTensorList(ts)), Some(j)) => {
            ts.get(j).and_then(Option::as_ref).ok_or_else(not_a_tensor)
        }
        _ => Err(not_a_tensor()),
    }
}

/// Puts `t` at `s` (a list is copied with its element replaced).
fn set_at<T: Tensor>(args: &mut [IValue<T>], s: Slot, t: T) -> Result<(), Error> {
    let value = args.get_mut(s.arg).ok_or_else(not_a_tensor)?;
    match (value, s.elem) {
        (v @ IValue::Tensor(_), None) => *v = IValue::Tensor(t),
        (IValue::TensorList(ts), Some(j)) => {
            *std::sync::Arc::make_mut(ts)
                .get_mut(j)
                .ok_or_else(not_a_tensor)? = t;
        }
        (IValue::OptionalTensorList(ts), Some(j)) => {
            *std::sync::Arc::make_mut(ts)
                .get_mut(j)
                .ok_or_else(not_a_tensor)? = Some(t);
        }
        _ => return Err(not_a_tensor()),
    }
    Ok(())
}

fn not_a_tensor() -> Error {
    Error::internal("expected a tensor input")
}

/// A fresh leaf that requires grad, with `t`'s values.
fn leaf<T: Tensor>(t: T) -> Result<T, Error> {
    t.set_requires_grad(true)?;
    Ok(t)
}

/// A copy of `t` in double precision.
fn as_double<T: Tensor>(t: &T) -> Result<T, Error> {
    let options = t.options()?.dtype(ScalarType::Double);
    let mut copy = T::empty(&t.sizes()?, None, &options)?;
    copy.copy_(t)?;
    Ok(copy)
}

/// Fresh copies of the inputs, those at `slots` requiring grad.
fn with_grad<T: Tensor>(inputs: &[IValue<T>], slots: &[Slot]) -> Result<Vec<IValue<T>>, String> {
    let mut args = inputs.to_vec();
    for &s in slots {
        tensor_at(inputs, s)
            .and_then(deep_copy)
            .and_then(leaf)
            .and_then(|copy| set_at(&mut args, s, copy))
            .map_err(|e| format!("copying the inputs failed: {e}"))?;
    }
    Ok(args)
}

/// The call with inputs requiring grad gives what the call below autograd gives, and an
/// output requires grad. An in-place operator writes a copy of `self` (argument
/// `written`), made by `aten::clone` from a leaf.
fn same_outputs<T: Tensor>(
    dispatcher: &Dispatcher,
    op: &OperatorHandle,
    inputs: &[IValue<T>],
    slots: &[Slot],
    written: Option<Slot>,
    same: &dyn Fn(&T, &T) -> bool,
) -> Result<(), String> {
    let plain = {
        let fresh: Vec<IValue<T>> = (inputs.iter())
            .map(|v| super::values::map_tensors(v, &mut deep_copy))
            .collect::<Result<_, _>>()
            .map_err(|e| format!("copying the inputs failed: {e}"))?;
        // Below autograd, as the Autograd kernel redispatches.
        let _below = ExcludeDispatchKeyGuard::new(DispatchKey::Autograd);
        floating(&call(op, fresh)?)
    };
    let mut args = with_grad(inputs, slots)?;
    if let Some(w) = written {
        let t = tensor_at(&args, w).and_then(|t| clone_of(dispatcher, op.namespace(), t));
        let t = t.map_err(|e| format!("cloning `self` failed: {e}"))?;
        set_at(&mut args, w, t).map_err(|e| e.to_string())?;
    }
    let recorded = floating(&call(op, args)?);
    if plain.len() != recorded.len() {
        return Err(format!(
            "{} floating-point outputs with grad, {} without",
            recorded.len(),
            plain.len()
        ));
    }
    for (k, (a, b)) in recorded.iter().zip(&plain).enumerate() {
        if !same(a, b) {
            return Err(format!(
                "output {k} with inputs requiring grad differs from the output below autograd"
            ));
        }
    }
    if !recorded.iter().any(AutogradTensor::requires_grad) {
        return Err("no output requires grad: the Autograd kernel recorded nothing".into());
    }
    Ok(())
}

/// The floating-point tensors among the returns.
fn floating<T: Tensor>(outputs: &[IValue<T>]) -> Vec<T> {
    outputs
        .iter()
        .flat_map(tensors_of)
        .filter(|t| (t.options()).is_ok_and(|o| is_differentiable_type(o.dtype_or_default())))
        .collect()
}

/// `clone(t)` of namespace `ns` through `dispatcher`: a non-leaf copy for an in-place
/// operator.
fn clone_of<T: Tensor>(dispatcher: &Dispatcher, ns: &str, t: &T) -> Result<T, Error> {
    let op = dispatcher.find(&format!("{ns}::clone"), "")?;
    let mut stack = Stack::from(vec![IValue::Tensor(t.clone())]);
    op.fill_defaults(&mut stack)?;
    op.call_boxed(&mut stack)?;
    match stack.into_vec().pop() {
        Some(IValue::Tensor(c)) => Ok(c),
        _ => Err(Error::internal("aten::clone returned no tensor")),
    }
}

/// An out operator refuses inputs that require grad.
fn out_refuses<T: Tensor>(
    op: &OperatorHandle,
    inputs: &[IValue<T>],
    slots: &[Slot],
) -> Result<Option<String>, String> {
    match call(op, with_grad(inputs, slots)?) {
        Err(e) if e.contains("arguments don't support automatic differentiation") => Ok(None),
        Err(e) => Err(format!(
            "with inputs requiring grad, expected the out= refusal, got: {e}"
        )),
        Ok(_) => {
            Err("accepted inputs that require grad; out= operators are not differentiable".into())
        }
    }
}
