//! The autograd check of [`OpCheck`](super::OpCheck): for an operator with a kernel at an
//! autograd key, called with its floating-point tensor inputs requiring grad,
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
    let positions = differentiable_positions(schema, inputs);
    if positions.is_empty() {
        return Ok(Some("no floating-point tensor input".into()));
    }
    if schema.kind() == SchemaKind::Out {
        return out_refuses(op, inputs, &positions);
    }
    let in_place = schema.kind() == SchemaKind::Inplace;
    let written = schema.self_index().filter(|_| in_place);
    same_outputs(dispatcher, op, inputs, &positions, written, same)?;
    let doubles: Vec<T> = (positions.iter())
        .map(|&i| leaf(as_double(tensor_at(inputs, i)?)?))
        .collect::<Result<_, Error>>()
        .map_err(|e| format!("making double-precision inputs failed: {e}"))?;
    let f = |ts: &[T]| -> Result<Vec<T>, Error> {
        let mut args = inputs.to_vec();
        for (&i, t) in positions.iter().zip(ts) {
            args[i] = IValue::Tensor(if Some(i) == written {
                clone_of(dispatcher, op.namespace(), t)?
            } else {
                t.clone()
            });
        }
        let outputs = call(op, args).map_err(Error::from)?;
        Ok(floating(&outputs))
    };
    gradcheck(f, &doubles, GradcheckOptions::default()).map_err(|e| format!("gradcheck: {e}"))?;
    Ok(None)
}

/// The tensor inputs (before the out arguments) of a floating-point dtype.
fn differentiable_positions<T: Tensor>(schema: &Schema, inputs: &[IValue<T>]) -> Vec<usize> {
    (0..schema.out_start().min(inputs.len()))
        .filter(|&i| match &inputs[i] {
            IValue::Tensor(t) => t
                .options()
                .is_ok_and(|o| is_differentiable_type(o.dtype_or_default())),
            _ => false,
        })
        .collect()
}

fn tensor_at<T: Tensor>(inputs: &[IValue<T>], i: usize) -> Result<&T, Error> {
    match inputs.get(i) {
        Some(IValue::Tensor(t)) => Ok(t),
        _ => Err(Error::internal("expected a tensor input")),
    }
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

/// Fresh copies of the inputs, those at `positions` requiring grad.
fn with_grad<T: Tensor>(
    inputs: &[IValue<T>],
    positions: &[usize],
) -> Result<Vec<IValue<T>>, String> {
    let mut args = inputs.to_vec();
    for &i in positions {
        let copy = tensor_at(inputs, i)
            .and_then(deep_copy)
            .and_then(leaf)
            .map_err(|e| format!("copying the inputs failed: {e}"))?;
        args[i] = IValue::Tensor(copy);
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
    positions: &[usize],
    written: Option<usize>,
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
    let mut args = with_grad(inputs, positions)?;
    if let Some(w) = written {
        let t = tensor_at(&args, w).and_then(|t| clone_of(dispatcher, op.namespace(), t));
        args[w] = IValue::Tensor(t.map_err(|e| format!("cloning `self` failed: {e}"))?);
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
    positions: &[usize],
) -> Result<Option<String>, String> {
    match call(op, with_grad(inputs, positions)?) {
        Err(e) if e.contains("arguments don't support automatic differentiation") => Ok(None),
        Err(e) => Err(format!(
            "with inputs requiring grad, expected the out= refusal, got: {e}"
        )),
        Ok(_) => {
            Err("accepted inputs that require grad; out= operators are not differentiable".into())
        }
    }
}
