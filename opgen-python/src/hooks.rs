//! `t.register_hook(fn)`: a Python function on the gradient of a tensor, as `torch`'s, with
//! the handle that removes it (`torch.utils.hooks.RemovableHandle`).

use std::sync::Arc;

use opgen_core::autograd::{AutogradTensor, GradHook, RemovableHandle as CoreHandle};
use opgen_core::dispatch::{Error, Tensor};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{carry, runtime_error};
use crate::tensor::{PyTensor, TensorObject};

/// What `register_hook` returns: `remove()` takes the hook out; as a context manager, the
/// hook is removed on exit.
#[pyclass(frozen, name = "RemovableHandle", module = "opgen.utils.hooks")]
pub struct RemovableHandle {
    inner: CoreHandle,
}

#[pymethods]
impl RemovableHandle {
    /// The hook's id.
    #[getter]
    fn id(&self) -> u64 {
        self.inner.id()
    }

    /// Removes the hook (doing nothing if it is gone already).
    fn remove(&self) {
        self.inner.remove();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) {
        self.inner.remove();
    }

    fn __repr__(&self) -> String {
        format!("<RemovableHandle id={}>", self.inner.id())
    }
}

/// `t.register_hook(hook)` on a tensor of the binding `B`.
pub(crate) fn register_hook<B: PyTensor>(
    t: &B::Tensor,
    hook: &Bound<'_, PyAny>,
) -> PyResult<RemovableHandle> {
    if !t.requires_grad() {
        return Err(PyRuntimeError::new_err(
            "cannot register a hook on a tensor that doesn't require gradient",
        ));
    }
    if !hook.is_callable() {
        return Err(PyTypeError::new_err(format!(
            "register_hook() expects a callable, not {}",
            crate::ffi::type_name(hook)
        )));
    }
    let hook = hook.clone().unbind();
    let run: GradHook<B::Tensor> = Arc::new(move |grad: &B::Tensor| {
        // The engine runs with the GIL released: take it for the hook.
        Python::attach(|py| call_hook::<B>(py, hook.bind(py), grad)).map_err(carry)
    });
    let inner = t.register_hook(run).map_err(runtime_error)?;
    Ok(RemovableHandle { inner })
}

/// Calls `hook(grad)`: `None` keeps the gradient; a tensor replaces it, with PyTorch's checks
/// (`check_single_result`, `check_variable_result`).
fn call_hook<B: PyTensor>(
    py: Python<'_>,
    hook: &Bound<'_, PyAny>,
    grad: &B::Tensor,
) -> PyResult<Option<B::Tensor>> {
    let result = hook.call1((Py::new(py, TensorObject::new::<B>(grad.clone()))?,))?;
    if result.is_none() {
        return Ok(None);
    }
    let new = result
        .cast::<TensorObject>()
        .ok()
        .and_then(|o| o.get().get::<B>().cloned());
    let Some(new) = new else {
        return Err(PyTypeError::new_err(format!(
            "expected Variable, but hook returned '{}'",
            crate::ffi::type_name(&result)
        )));
    };
    check_result(grad, &new, &hook_name(hook))?;
    Ok(Some(new))
}

/// PyTorch's `hook_name`: the hook's `__name__`, or `<unknown>`.
fn hook_name(hook: &Bound<'_, PyAny>) -> String {
    (hook.getattr("__name__").ok())
        .and_then(|n| n.extract::<String>().ok())
        .unwrap_or_else(|| "<unknown>".to_string())
}

/// `CPUDoubleType`: PyTorch's `TensorBase::toString`.
fn type_string<T: Tensor>(t: &T) -> Result<String, Error> {
    let o = t.options()?;
    Ok(format!(
        "{}{}Type",
        o.device_or_default().kind.name(),
        o.dtype_or_default().name()
    ))
}

/// A hook may not change the gradient's type, device or size (PyTorch's
/// `check_variable_result`).
fn check_result<T: Tensor>(original: &T, result: &T, hook: &str) -> PyResult<()> {
    let was = type_string(original).map_err(runtime_error)?;
    let got = type_string(result).map_err(runtime_error)?;
    if was != got {
        return Err(PyRuntimeError::new_err(format!(
            "hook '{hook}' has changed the type of value (was {was} got {got})"
        )));
    }
    if original.sizes().map_err(runtime_error)? != result.sizes().map_err(runtime_error)? {
        return Err(PyRuntimeError::new_err(format!(
            "hook '{hook}' has changed the size of value"
        )));
    }
    Ok(())
}
