//! `autograd.grad(outputs, inputs, ...)` and `autograd.backward(tensors, ...)`, with
//! `torch.autograd`'s parameters, defaults and checks.

use opgen_core::autograd::AutogradTensor;
use pyo3::exceptions::{PyNotImplementedError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyModule, PyTuple};

use crate::autograd::{gradients_of, materialize_error, run_backward, tensors_of};
use crate::call::FnCallee;
use crate::errors::runtime_error;
use crate::ffi::{Kind, new_callable};
use crate::tensor::{PyTensor, TensorObject};

type Kwargs<'py> = [(String, Bound<'py, PyAny>)];

/// A call's arguments bound to `params` as a Python function binds them (the first
/// `required` have no default); CPython's messages for the mistakes.
fn bind_args<'py>(
    name: &str,
    params: &[&str],
    required: usize,
    args: &[&Bound<'py, PyAny>],
    kwargs: &Kwargs<'py>,
) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
    if args.len() > params.len() {
        return Err(PyTypeError::new_err(format!(
            "{name}() takes from {required} to {} positional arguments but {} were given",
            params.len(),
            args.len()
        )));
    }
    let mut bound: Vec<Option<Bound<'py, PyAny>>> = vec![None; params.len()];
    for (slot, arg) in bound.iter_mut().zip(args) {
        *slot = Some((*arg).clone());
    }
    for (key, value) in kwargs {
        let Some(i) = params.iter().position(|p| p == key) else {
            return Err(PyTypeError::new_err(format!(
                "{name}() got an unexpected keyword argument '{key}'"
            )));
        };
        if bound[i].is_some() {
            return Err(PyTypeError::new_err(format!(
                "{name}() got multiple values for argument '{key}'"
            )));
        }
        bound[i] = Some(value.clone());
    }
    let missing: Vec<String> = (0..required)
        .filter(|&i| bound[i].is_none())
        .map(|i| format!("'{}'", params[i]))
        .collect();
    if !missing.is_empty() {
        let s = if missing.len() == 1 { "" } else { "s" };
        return Err(PyTypeError::new_err(format!(
            "{name}() missing {} required positional argument{s}: {}",
            missing.len(),
            missing.join(" and ")
        )));
    }
    Ok(bound)
}

/// A truth value given (`None` or absent: `default`).
fn flag(value: &Option<Bound<'_, PyAny>>, default: Option<bool>) -> PyResult<Option<bool>> {
    match value {
        Some(v) if !v.is_none() => Ok(Some(v.is_truthy()?)),
        _ => Ok(default),
    }
}

const GRAD_PARAMS: [&str; 9] = [
    "outputs",
    "inputs",
    "grad_outputs",
    "retain_graph",
    "create_graph",
    "only_inputs",
    "allow_unused",
    "is_grads_batched",
    "materialize_grads",
];

/// `torch.autograd.grad`: the gradients of `outputs` with respect to `inputs`, as a tuple.
fn grad<B: PyTensor>(
    py: Python<'_>,
    args: &[&Bound<'_, PyAny>],
    kwargs: &Kwargs<'_>,
) -> PyResult<Py<PyAny>> {
    let a = bind_args("grad", &GRAD_PARAMS, 2, args, kwargs)?;
    let materialize = flag(&a[8], Some(false))?.unwrap_or(false);
    let allow_unused = match flag(&a[6], None)? {
        Some(false) if materialize => return Err(materialize_error()),
        given => given.unwrap_or(materialize),
    };
    if flag(&a[7], Some(false))? == Some(true) {
        return Err(PyNotImplementedError::new_err(
            "grad(is_grads_batched=True) needs vmap, which opgen does not have",
        ));
    }
    if flag(&a[5], Some(true))? == Some(false) {
        let warning = py.get_type::<pyo3::exceptions::PyFutureWarning>();
        PyErr::warn(
            py,
            &warning,
            c"only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate gradient for other parts of the graph, please use torch.autograd.backward.",
            2,
        )?;
    }
    let (Some(outputs), Some(inputs)) = (&a[0], &a[1]) else {
        return Err(PyTypeError::new_err("grad() missing its outputs or inputs"));
    };
    let outputs = tensors_of::<B>(outputs, "outputs")?;
    let inputs = tensors_of::<B>(inputs, "inputs")?;
    let grads = gradients_of::<B>(a[2].as_ref(), outputs.len())?;
    let create_graph = flag(&a[4], Some(false))?.unwrap_or(false);
    let retain_graph = flag(&a[3], None)?;
    let Some(engine) = B::autograd() else {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(
            "One of the differentiated Tensors does not require grad",
        ));
    };
    let result = py
        .detach(|| {
            engine.grad(
                &outputs,
                &inputs,
                &grads,
                retain_graph,
                create_graph,
                allow_unused,
            )
        })
        .map_err(runtime_error)?;
    let mut items = Vec::with_capacity(result.len());
    for (g, input) in result.into_iter().zip(&inputs) {
        let g = match g {
            None if materialize => {
                let zeros = engine.zeros_like(input).map_err(runtime_error)?;
                zeros.set_requires_grad(true).map_err(runtime_error)?;
                Some(zeros)
            }
            other => other,
        };
        items.push(match g {
            Some(t) => Py::new(py, TensorObject::new::<B>(t))?.into_any(),
            None => py.None(),
        });
    }
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

const BACKWARD_PARAMS: [&str; 6] = [
    "tensors",
    "grad_tensors",
    "retain_graph",
    "create_graph",
    "grad_variables",
    "inputs",
];

/// `torch.autograd.backward`: accumulates the gradients of `tensors` into the leaves (or
/// into `inputs` only).
fn backward<B: PyTensor>(
    py: Python<'_>,
    args: &[&Bound<'_, PyAny>],
    kwargs: &Kwargs<'_>,
) -> PyResult<Py<PyAny>> {
    let a = bind_args("backward", &BACKWARD_PARAMS, 1, args, kwargs)?;
    let Some(outputs) = &a[0] else {
        return Err(PyTypeError::new_err("backward() missing its tensors"));
    };
    let mut grad_tensors = a[1].clone().filter(|g| !g.is_none());
    if let Some(variables) = a[4].as_ref().filter(|g| !g.is_none()) {
        let warning = py.get_type::<pyo3::exceptions::PyFutureWarning>();
        PyErr::warn(
            py,
            &warning,
            c"`grad_variables` is deprecated. Use `grad_tensors` instead.",
            2,
        )?;
        if grad_tensors.is_some() {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "`grad_tensors` and `grad_variables` (deprecated) arguments both passed to \
                 `backward()`. Please only use `grad_tensors`.",
            ));
        }
        grad_tensors = Some(variables.clone());
    }
    let outputs = tensors_of::<B>(outputs, "tensors")?;
    let grads = gradients_of::<B>(grad_tensors.as_ref(), outputs.len())?;
    let inputs = (a[5].as_ref())
        .filter(|i| !i.is_none())
        .map(|i| tensors_of::<B>(i, "inputs"))
        .transpose()?;
    let create_graph = flag(&a[3], Some(false))?.unwrap_or(false);
    let retain_graph = flag(&a[2], None)?;
    run_backward::<B>(py, outputs, grads, retain_graph, create_graph, inputs)?;
    Ok(py.None())
}

/// Adds `grad` and `backward` to the `autograd` submodule.
pub(crate) fn add_functions<B: PyTensor>(autograd: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = autograd.py();
    let grad = FnCallee {
        name: "grad",
        doc: "grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False) -> tuple\n\nThe gradients of `outputs` with respect to `inputs` (torch.autograd.grad).",
        f: grad::<B>,
    };
    autograd.add("grad", new_callable(py, Kind::Function, Box::new(grad))?)?;
    let backward = FnCallee {
        name: "backward",
        doc: "backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None) -> None\n\nAccumulates the gradients of `tensors` into the leaves (torch.autograd.backward).",
        f: backward::<B>,
    };
    autograd.add(
        "backward",
        new_callable(py, Kind::Function, Box::new(backward))?,
    )?;
    Ok(())
}

/// The stub of `autograd/__init__.pyi`.
pub(crate) fn autograd_stub(grad_mode: &[String]) -> String {
    let mut text = String::from(opgen_python_core::stubs::GENERATED);
    text.push_str(
        "from typing import Any, Callable, Optional, Sequence, TypeVar, Union\n\
         from builtins import bool as _bool\n\n\
         from .. import Tensor\n\
         from . import graph as graph\n\n",
    );
    for line in grad_mode {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(crate::function::FUNCTION_STUB);
    text.push_str(
        "def grad(outputs: Union[Tensor, Sequence[Tensor]], inputs: Union[Tensor, Sequence[Tensor]], \
         grad_outputs: Optional[Union[Tensor, Sequence[Optional[Tensor]]]] = None, \
         retain_graph: Optional[_bool] = None, create_graph: _bool = False, only_inputs: _bool = True, \
         allow_unused: Optional[_bool] = None, is_grads_batched: _bool = False, \
         materialize_grads: _bool = False) -> tuple[Optional[Tensor], ...]: ...\n\
         def backward(tensors: Union[Tensor, Sequence[Tensor]], \
         grad_tensors: Optional[Union[Tensor, Sequence[Optional[Tensor]]]] = None, \
         retain_graph: Optional[_bool] = None, create_graph: _bool = False, \
         grad_variables: Optional[Union[Tensor, Sequence[Optional[Tensor]]]] = None, inputs: Optional[Union[Tensor, Sequence[Tensor]]] = None) -> None: ...\n",
    );
    text
}
