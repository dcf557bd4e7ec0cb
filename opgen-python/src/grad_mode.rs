//! Grad mode from Python: `no_grad()`, `enable_grad()`, `set_grad_enabled(mode)` and
//! `inference_mode(mode)` as context managers and decorators, `is_grad_enabled()` and
//! `is_inference_mode_enabled()`, as `torch`'s. Grad mode is opgen's thread-local one
//! ([`opgen_core::autograd::set_grad_enabled`]); the kernels a call runs with the GIL
//! released run on the calling thread, so they see it.

use std::cell::RefCell;

use opgen_core::autograd::{
    InferenceModeGuard, is_grad_enabled, is_inference_mode_enabled, set_grad_enabled,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyCFunction, PyDict, PyModule, PyTuple};

use crate::call::FnCallee;
use crate::ffi::{Kind, new_callable};

/// Calls `func(*args, **kwargs)` with grad mode `mode`, restoring the previous mode after.
fn call_in_mode(
    mode: bool,
    func: &Bound<'_, PyAny>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let previous = is_grad_enabled();
    set_grad_enabled(mode);
    let result = func.call(args, kwargs);
    set_grad_enabled(previous);
    result.map(Bound::unbind)
}

/// `@no_grad()` on a function: the function, run with grad mode `mode`.
fn decorate(mode: bool, func: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyCFunction>> {
    let py = func.py();
    if !func.is_callable() {
        return Err(PyTypeError::new_err(format!(
            "a grad mode decorator expects a function, not {}",
            crate::ffi::type_name(&func)
        )));
    }
    let func = func.unbind();
    PyCFunction::new_closure(py, None, None, move |args, kwargs| {
        call_in_mode(mode, func.bind(args.py()), args, kwargs)
    })
}

/// A context manager that sets grad mode on entry and restores it on exit (a stack of
/// previous modes, so that one object may be entered again inside itself).
fn enter(previous: &mut Vec<bool>, mode: bool) {
    previous.push(is_grad_enabled());
    set_grad_enabled(mode);
}

fn exit(previous: &mut Vec<bool>) {
    if let Some(mode) = previous.pop() {
        set_grad_enabled(mode);
    }
}

/// `with no_grad():` (and `@no_grad()`): operators called inside record no graph, whatever
/// their inputs (`torch.no_grad`).
#[pyclass(name = "no_grad", module = "opgen")]
pub struct NoGrad {
    previous: Vec<bool>,
}

#[pymethods]
impl NoGrad {
    #[new]
    fn py_new() -> NoGrad {
        NoGrad {
            previous: Vec::new(),
        }
    }

    fn __enter__(&mut self) {
        enter(&mut self.previous, false);
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, _exc: &Bound<'_, PyTuple>) {
        exit(&mut self.previous);
    }

    fn __call__<'py>(&self, func: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyCFunction>> {
        decorate(false, func)
    }

    fn clone(&self) -> NoGrad {
        NoGrad::py_new()
    }
}

/// `with enable_grad():` (and `@enable_grad()`): grad mode on inside, in a `no_grad` block
/// (`torch.enable_grad`).
#[pyclass(name = "enable_grad", module = "opgen")]
pub struct EnableGrad {
    previous: Vec<bool>,
}

#[pymethods]
impl EnableGrad {
    #[new]
    fn py_new() -> EnableGrad {
        EnableGrad {
            previous: Vec::new(),
        }
    }

    fn __enter__(&mut self) {
        enter(&mut self.previous, true);
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, _exc: &Bound<'_, PyTuple>) {
        exit(&mut self.previous);
    }

    fn __call__<'py>(&self, func: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyCFunction>> {
        decorate(true, func)
    }

    fn clone(&self) -> EnableGrad {
        EnableGrad::py_new()
    }
}

/// `set_grad_enabled(mode)` (`torch.set_grad_enabled`): sets grad mode when called, and as a
/// context manager restores the previous mode on exit; as a decorator, runs the function
/// in `mode` (and leaves the current mode as it was).
#[pyclass(name = "set_grad_enabled", module = "opgen")]
pub struct SetGradEnabled {
    mode: bool,
    previous: bool,
}

#[pymethods]
impl SetGradEnabled {
    #[new]
    fn py_new(mode: &Bound<'_, PyAny>) -> PyResult<SetGradEnabled> {
        let mode = bool_argument(mode)?;
        let previous = is_grad_enabled();
        set_grad_enabled(mode);
        Ok(SetGradEnabled { mode, previous })
    }

    fn __enter__(&self) {}

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) {
        set_grad_enabled(self.previous);
    }

    fn __call__<'py>(&self, func: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyCFunction>> {
        set_grad_enabled(self.previous);
        decorate(self.mode, func)
    }

    fn clone(&self) -> SetGradEnabled {
        SetGradEnabled {
            mode: self.mode,
            previous: is_grad_enabled(),
        }
    }
}

thread_local! {
    /// The inference-mode guards of the `with inference_mode():` blocks open on this thread,
    /// with the object each belongs to (a guard changes this thread's state, so it lives
    /// here rather than in the object, which any thread may use).
    static INFERENCE_GUARDS: RefCell<Vec<(usize, InferenceModeGuard)>> =
        const { RefCell::new(Vec::new()) };
}

/// `with inference_mode(mode):`, `@inference_mode`, `@inference_mode(mode)`
/// (`torch.inference_mode`): inside, grad mode is off, calls skip the Autograd kernels and
/// tensors made are inference tensors (`mode=True`, the default); `mode=False` leaves
/// inference mode, with grad mode on, as PyTorch's.
#[pyclass(frozen, name = "inference_mode", module = "opgen")]
pub struct InferenceMode {
    mode: bool,
    /// The function of `@inference_mode` used without parentheses.
    func: Option<Py<PyAny>>,
}

#[pymethods]
impl InferenceMode {
    #[new]
    #[pyo3(signature = (mode = None))]
    fn py_new(mode: Option<&Bound<'_, PyAny>>) -> PyResult<InferenceMode> {
        let Some(mode) = mode.filter(|m| !m.is_none()) else {
            return Ok(InferenceMode {
                mode: true,
                func: None,
            });
        };
        if mode.is_instance_of::<pyo3::types::PyBool>() {
            return Ok(InferenceMode {
                mode: mode.extract()?,
                func: None,
            });
        }
        if mode.is_callable() {
            return Ok(InferenceMode {
                mode: true,
                func: Some(mode.clone().unbind()),
            });
        }
        Err(PyTypeError::new_err(format!(
            "inference_mode() expects a bool or a function, not {}",
            crate::ffi::type_name(mode)
        )))
    }

    fn __enter__(slf: &Bound<'_, Self>) {
        let guard = InferenceModeGuard::with_enabled(slf.get().mode);
        let id = slf.as_ptr() as usize;
        INFERENCE_GUARDS.with(|g| g.borrow_mut().push((id, guard)));
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(slf: &Bound<'_, Self>, _exc: &Bound<'_, PyTuple>) {
        let id = slf.as_ptr() as usize;
        let guard = INFERENCE_GUARDS.with(|g| {
            let mut guards = g.borrow_mut();
            let at = guards.iter().rposition(|(i, _)| *i == id);
            at.map(|at| guards.remove(at))
        });
        drop(guard);
    }

    /// As a decorator, the function run in the mode; the object made by `@inference_mode`
    /// (no parentheses) is that function.
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        if let Some(func) = &self.func {
            let _guard = InferenceModeGuard::with_enabled(self.mode);
            return func.bind(py).call(args, kwargs).map(Bound::unbind);
        }
        let func = match (args.len(), kwargs) {
            (1, None) => args.get_item(0)?,
            _ => {
                return Err(PyTypeError::new_err(
                    "inference_mode() as a decorator takes one function",
                ));
            }
        };
        if !func.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "a grad mode decorator expects a function, not {}",
                crate::ffi::type_name(&func)
            )));
        }
        let mode = self.mode;
        let func = func.unbind();
        let wrapped = PyCFunction::new_closure(py, None, None, move |args, kwargs| {
            let _guard = InferenceModeGuard::with_enabled(mode);
            func.bind(args.py()).call(args, kwargs).map(Bound::unbind)
        })?;
        Ok(wrapped.into_any().unbind())
    }

    fn clone(&self) -> InferenceMode {
        InferenceMode {
            mode: self.mode,
            func: None,
        }
    }
}

/// PyTorch's check of `torch._C._set_grad_enabled`'s argument.
fn bool_argument(mode: &Bound<'_, PyAny>) -> PyResult<bool> {
    if mode.is_instance_of::<pyo3::types::PyBool>() {
        return mode.extract();
    }
    Err(PyTypeError::new_err(format!(
        "enabled must be a bool (got {})",
        crate::ffi::type_name(mode)
    )))
}

/// Adds `no_grad`, `enable_grad`, `set_grad_enabled`, `inference_mode`, `is_grad_enabled`
/// and `is_inference_mode_enabled` to `module`.
pub(crate) fn add_grad_mode(module: &Bound<'_, PyModule>, package: &str) -> PyResult<()> {
    let py = module.py();
    module.add_class::<NoGrad>()?;
    module.add_class::<EnableGrad>()?;
    module.add_class::<SetGradEnabled>()?;
    module.add_class::<InferenceMode>()?;
    for name in [
        "no_grad",
        "enable_grad",
        "set_grad_enabled",
        "inference_mode",
    ] {
        module.getattr(name)?.setattr("__module__", package)?;
    }
    let is_enabled = FnCallee {
        name: "is_grad_enabled",
        doc: "is_grad_enabled() -> bool\n\nWhether grad mode is on for this thread.",
        f: |py: Python<'_>,
            args: &[&Bound<'_, PyAny>],
            kwargs: &[(String, Bound<'_, PyAny>)]|
         -> PyResult<Py<PyAny>> {
            if !args.is_empty() || !kwargs.is_empty() {
                return Err(PyTypeError::new_err("is_grad_enabled() takes no arguments"));
            }
            Ok(pyo3::types::PyBool::new(py, is_grad_enabled())
                .to_owned()
                .into_any()
                .unbind())
        },
    };
    module.add(
        "is_grad_enabled",
        new_callable(py, Kind::Function, Box::new(is_enabled))?,
    )?;
    let is_inference = FnCallee {
        name: "is_inference_mode_enabled",
        doc: "is_inference_mode_enabled() -> bool\n\nWhether inference mode is on for this thread.",
        f: |py: Python<'_>,
            args: &[&Bound<'_, PyAny>],
            kwargs: &[(String, Bound<'_, PyAny>)]|
         -> PyResult<Py<PyAny>> {
            if !args.is_empty() || !kwargs.is_empty() {
                return Err(PyTypeError::new_err(
                    "is_inference_mode_enabled() takes no arguments",
                ));
            }
            let on = pyo3::types::PyBool::new(py, is_inference_mode_enabled());
            Ok(on.to_owned().into_any().unbind())
        },
    };
    module.add(
        "is_inference_mode_enabled",
        new_callable(py, Kind::Function, Box::new(is_inference))?,
    )?;
    Ok(())
}

/// The stub lines of the grad-mode members.
pub(crate) fn grad_mode_stub_lines() -> Vec<String> {
    let manager = |name: &str, init: &str| {
        format!(
            "class {name}:\n    def __init__(self{init}) -> None: ...\n    \
             def __enter__(self) -> None: ...\n    def __exit__(self, *args: Any) -> None: ...\n    \
             def __call__(self, func: _F) -> _F: ...\n    def clone(self) -> {name}: ..."
        )
    };
    vec![
        "_F = TypeVar(\"_F\", bound=Callable[..., Any])".to_string(),
        manager("no_grad", ""),
        manager("enable_grad", ""),
        manager("set_grad_enabled", ", mode: _bool"),
        "class inference_mode:\n    def __init__(self, mode: Union[_bool, Callable[..., Any]] = True) -> None: ...\n    \
         def __enter__(self) -> None: ...\n    def __exit__(self, *args: Any) -> None: ...\n    \
         def __call__(self, *args: Any, **kwargs: Any) -> Any: ...\n    \
         def clone(self) -> inference_mode: ..."
            .to_string(),
        "def is_grad_enabled() -> _bool: ...".to_string(),
        "def is_inference_mode_enabled() -> _bool: ...".to_string(),
    ]
}
