//! What the generated callables do: classify the arguments, let PyTorch's parser pick the
//! signature, fill the operator's stack, call it with the GIL released, return the result.

use std::sync::{Arc, Mutex};

use opgen_core::dispatch::{IValue, OperatorHandle, Stack};
use opgen_python_core::{Arg, CallArgs, DunderKind, Plan, PySignature, Slot, Value, parse};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use smallvec::SmallVec;

use crate::classify::{ListItems, classify};
use crate::errors::{dispatch_error, parse_error};
use crate::fast::AllTensors;
use crate::ffi::{Args, Callee};
use crate::returns::{Shape, returns};
use crate::tensor::{PyTensor, TensorObject};

/// The keyword arguments of a call, inline for a few.
type Kwargs<'s, 'a, T> = SmallVec<[(&'s str, Arg<'a, T>); 4]>;

/// An operator to call, with how a signature's arguments fill its stack and how its returns
/// come back.
pub(crate) struct Target<B: PyTensor> {
    pub op: OperatorHandle,
    pub plan: Plan<B>,
    pub shape: Shape,
}

/// One signature and what it calls: the functional operator, and the out one with `out=`.
pub(crate) struct Route<B: PyTensor> {
    pub base: Target<B>,
    pub outplace: Option<Target<B>>,
}

/// A module function, a tensor method, or an `ops.<ns>.<op>.<overload>` object: signatures in
/// the order they are tried, each with its route.
pub(crate) struct BindingCallee<B: PyTensor> {
    pub name: String,
    pub qualname: String,
    pub method: bool,
    /// A `TypeError` becomes `NotImplemented` (a binary dunder method, as PyTorch's
    /// `TypeError_to_NotImplemented_`).
    pub not_implemented_on_type_error: bool,
    pub signatures: Vec<PySignature>,
    pub routes: Vec<Route<B>>,
    /// The stack of the last call, emptied, for the next (a call does not allocate one
    /// unless another is running).
    pub spare: Mutex<Option<Stack<B::Tensor>>>,
    /// The short way, for a lone signature of tensors only.
    pub fast: Option<AllTensors>,
}

impl<B: PyTensor> Callee for BindingCallee<B> {
    fn call<'py>(&self, py: Python<'py>, args: Args<'_, 'py>) -> PyResult<Py<PyAny>> {
        let (receiver, positional) = match (self.method, args.args.split_first()) {
            (true, Some((first, rest))) => (Some(first), rest),
            (true, None) => {
                return Err(PyTypeError::new_err(format!(
                    "descriptor '{}' needs an argument",
                    self.name
                )));
            }
            (false, _) => (None, args.args),
        };
        let kwnames = kw_names(&args)?;
        let result = self.call_with(py, receiver, positional, &kwnames, args.kwvalues);
        match result {
            Err(e) if self.not_implemented_on_type_error && e.is_instance_of::<PyTypeError>(py) => {
                Ok(py.NotImplemented())
            }
            other => other,
        }
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn qualname(&self) -> String {
        self.qualname.clone()
    }

    fn doc(&self) -> String {
        let lines: Vec<String> = (self.signatures.iter())
            .map(|s| format!("{}{s}", s.name.rsplit("::").next().unwrap_or(&s.name)))
            .collect();
        lines.join("\n")
    }

    fn repr(&self) -> String {
        if self.method {
            format!("<method '{}' of 'Tensor' objects>", self.name)
        } else {
            format!("<built-in function {}>", self.name)
        }
    }
}

fn kw_names<'py>(args: &Args<'_, 'py>) -> PyResult<SmallVec<[Bound<'py, PyString>; 4]>> {
    let Some(names) = &args.kwnames else {
        return Ok(SmallVec::new());
    };
    names
        .iter()
        .map(|n| Ok(n.cast_into::<PyString>()?))
        .collect()
}

impl<B: PyTensor> BindingCallee<B> {
    /// A binding trying `signatures` in order, each calling its route.
    pub(crate) fn new(
        name: String,
        qualname: String,
        method: bool,
        not_implemented_on_type_error: bool,
        signatures: Vec<PySignature>,
        routes: Vec<Route<B>>,
    ) -> BindingCallee<B> {
        let fast = match (signatures.as_slice(), routes.as_slice()) {
            ([sig], [route]) if route.outplace.is_none() => {
                AllTensors::new(sig, route.base.plan.schema(), method)
            }
            _ => None,
        };
        BindingCallee {
            name,
            qualname,
            method,
            not_implemented_on_type_error,
            signatures,
            routes,
            spare: Mutex::new(None),
            fast,
        }
    }

    /// The stack kept from an earlier call, or a new one.
    fn take_stack(&self) -> Stack<B::Tensor> {
        (self.spare.try_lock().ok())
            .and_then(|mut spare| spare.take())
            .unwrap_or_default()
    }

    /// Keeps an emptied stack for the next call.
    fn keep_stack(&self, mut stack: Stack<B::Tensor>) {
        stack.clear();
        if let Ok(mut spare) = self.spare.try_lock() {
            *spare = Some(stack);
        }
    }

    /// [`AllTensors`]' short way: `None` if an argument is not a tensor of this type.
    fn call_fast<'py>(
        &self,
        py: Python<'py>,
        fast: &AllTensors,
        receiver: Option<&Bound<'py, PyAny>>,
        positional: &[Borrowed<'_, 'py, PyAny>],
    ) -> PyResult<Option<Py<PyAny>>> {
        let objects = receiver.into_iter().chain(positional.iter().map(|b| &**b));
        let Some(tensors) = AllTensors::tensors::<B>(objects) else {
            return Ok(None);
        };
        let target = &self.routes[0].base;
        let mut stack = self.take_stack();
        fast.fill(&mut stack, &tensors);
        let op = &target.op;
        py.detach(|| op.call_boxed(&mut stack))
            .map_err(dispatch_error)?;
        let result = returns::<B>(py, &mut stack, &target.shape, &tensors)?;
        self.keep_stack(stack);
        Ok(Some(result))
    }

    /// The call, the receiver apart (`None` for a function).
    pub(crate) fn call_with<'py>(
        &self,
        py: Python<'py>,
        receiver: Option<&Borrowed<'_, 'py, PyAny>>,
        positional: &[Borrowed<'_, 'py, PyAny>],
        kwnames: &[Bound<'py, PyString>],
        kwvalues: &[Borrowed<'_, 'py, PyAny>],
    ) -> PyResult<Py<PyAny>> {
        let receiver: Option<&Bound<'py, PyAny>> = receiver.map(|r| &**r);
        if let Some(fast) = &self.fast
            && kwnames.is_empty()
            && positional.len() == fast.positional
            && let Some(result) = self.call_fast(py, fast, receiver, positional)?
        {
            return Ok(result);
        }
        let mut lists = ListItems::default();
        for obj in receiver
            .into_iter()
            .chain(positional.iter().map(|b| &**b))
            .chain(kwvalues.iter().map(|b| &**b))
        {
            lists.collect(obj);
        }
        let mut next = 0;
        let receiver_arg: Option<Arg<'_, B::Tensor>> =
            receiver.map(|r| classify::<B>(r, &lists, &mut next));
        if let Some(r) = &receiver_arg
            && !matches!(r.value, Value::Tensor(_))
        {
            return Err(PyTypeError::new_err(format!(
                "descriptor '{}' for 'Tensor' objects doesn't apply to a '{}' object",
                self.name, r.type_name
            )));
        }
        let args: SmallVec<[Arg<'_, B::Tensor>; 4]> = positional
            .iter()
            .map(|o| classify::<B>(o, &lists, &mut next))
            .collect();
        let mut kwargs: Kwargs<'_, '_, B::Tensor> = SmallVec::new();
        for (name, value) in kwnames.iter().zip(kwvalues) {
            kwargs.push((name.to_str()?, classify::<B>(value, &lists, &mut next)));
        }
        let call = CallArgs {
            args: &args,
            kwargs: &kwargs,
        };
        let parsed = parse::<B, _>(&self.signatures, call).map_err(parse_error)?;
        let sig = &self.signatures[parsed.index];
        let route = &self.routes[parsed.index];
        let out_given = sig
            .out
            .is_some_and(|o| matches!(parsed.slots[o], Slot::Pos(_) | Slot::Kw(_)));
        let target = match (&route.outplace, out_given) {
            (Some(out), true) => out,
            _ => &route.base,
        };
        let mut stack = self.take_stack();
        (target.plan)
            .fill(&mut stack, sig, &parsed.slots, call, receiver_arg.as_ref())
            .map_err(parse_error)?;
        let op = &target.op;
        py.detach(|| op.call_boxed(&mut stack))
            .map_err(dispatch_error)?;
        if let Some(i) = sig.requires_grad()
            && matches!(slot_value(call, parsed.slots[i]), Some(Value::Bool(true)))
        {
            for t in stack.iter().filter_map(IValue::as_tensor) {
                crate::autograd::mark_requires_grad(t)?;
            }
        }
        // The tensors given, top-level and in lists (`out=(values, indices)`), so that a result
        // that is one of them comes back as the same object.
        let mut inputs: SmallVec<[(&Bound<'py, PyAny>, &B::Tensor); 4]> = SmallVec::new();
        let top = (receiver.into_iter().zip(&receiver_arg))
            .chain(positional.iter().map(|b| &**b).zip(&args))
            .chain(
                kwvalues
                    .iter()
                    .map(|b| &**b)
                    .zip(kwargs.iter().map(|(_, a)| a)),
            );
        for (obj, arg) in top {
            if let Value::Tensor(t) = arg.value {
                inputs.push((obj, t));
            }
        }
        for obj in lists.items() {
            if let Ok(t) = obj.cast::<TensorObject>()
                && let Some(t) = t.get().get::<B>()
            {
                inputs.push((obj, t));
            }
        }
        let result = returns::<B>(py, &mut stack, &target.shape, &inputs)?;
        self.keep_stack(stack);
        Ok(result)
    }
}

/// The value given for a parameter matched to `slot`, if one was.
fn slot_value<'s, 'a, T>(call: CallArgs<'s, 'a, T>, slot: Slot) -> Option<&'s Value<'a, T>> {
    match slot {
        Slot::Kw(k) => call.kwargs.get(k as usize).map(|(_, a)| &a.value),
        Slot::Pos(p) => call.args.get(p as usize).map(|a| &a.value),
        Slot::Absent | Slot::None | Slot::Varargs => None,
    }
}

/// A dunder method calling a method or function binding (`__radd__` → `add`, `__rpow__` →
/// `pow(other, self)`), as PyTorch's tensor does.
pub(crate) struct DunderCallee<B: PyTensor> {
    pub name: String,
    pub kind: DunderKind,
    pub inner: Arc<BindingCallee<B>>,
}

impl<B: PyTensor> Callee for DunderCallee<B> {
    fn call<'py>(&self, py: Python<'py>, args: Args<'_, 'py>) -> PyResult<Py<PyAny>> {
        let Some((this, rest)) = args.args.split_first() else {
            return Err(PyTypeError::new_err(format!(
                "descriptor '{}' needs an argument",
                self.name
            )));
        };
        let result = match self.kind {
            DunderKind::Method | DunderKind::Unary => {
                self.inner.call_with(py, Some(this), rest, &[], &[])
            }
            DunderKind::Function => {
                let mut swapped: SmallVec<[Borrowed<'_, 'py, PyAny>; 4]> = SmallVec::new();
                swapped.push(*this);
                swapped.extend_from_slice(rest);
                self.inner.call_with(py, None, &swapped, &[], &[])
            }
            DunderKind::Reflected => {
                let mut swapped: SmallVec<[Borrowed<'_, 'py, PyAny>; 4]> =
                    rest.iter().copied().collect();
                swapped.push(*this);
                self.inner.call_with(py, None, &swapped, &[], &[])
            }
        };
        match result {
            Err(e) if self.kind != DunderKind::Unary && e.is_instance_of::<PyTypeError>(py) => {
                Ok(py.NotImplemented())
            }
            other => other,
        }
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn qualname(&self) -> String {
        format!("Tensor.{}", self.name)
    }

    fn doc(&self) -> String {
        self.inner.doc()
    }

    fn repr(&self) -> String {
        format!("<method '{}' of 'Tensor' objects>", self.name)
    }
}

/// A callable made from a Rust closure (the module's own functions: `tensor`, `trace`, ...).
pub(crate) struct FnCallee<F> {
    pub name: &'static str,
    pub doc: &'static str,
    pub f: F,
}

impl<F> Callee for FnCallee<F>
where
    F: for<'py> Fn(
            Python<'py>,
            &[&Bound<'py, PyAny>],
            &[(String, Bound<'py, PyAny>)],
        ) -> PyResult<Py<PyAny>>
        + Send
        + Sync
        + 'static,
{
    fn call<'py>(&self, py: Python<'py>, args: Args<'_, 'py>) -> PyResult<Py<PyAny>> {
        let positional: Vec<&Bound<'py, PyAny>> = args.args.iter().map(|b| &**b).collect();
        let names = kw_names(&args)?;
        let kwargs = (names.iter())
            .zip(args.kwvalues.iter())
            .map(|(n, v)| Ok((n.to_str()?.to_string(), (**v).clone())))
            .collect::<PyResult<Vec<_>>>()?;
        (self.f)(py, &positional, &kwargs)
    }

    fn name(&self) -> String {
        self.name.to_string()
    }

    fn qualname(&self) -> String {
        self.name.to_string()
    }

    fn doc(&self) -> String {
        self.doc.to_string()
    }

    fn repr(&self) -> String {
        format!("<built-in function {}>", self.name)
    }
}
