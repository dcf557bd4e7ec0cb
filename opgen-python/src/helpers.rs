//! The module's own functions: `tensor()`, `tracing()`, `_stubs`, `_dispatch_table()`,
//! `_catalog()`.

use std::marker::PhantomData;

use opgen_core::dispatch::Dispatcher;
use opgen_python_core::stubs::{StubOptions, stub_files};
use opgen_python_core::{Bindings, DUNDERS, OpInfo};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyModule, PyTuple};

use crate::call::FnCallee;
use crate::ffi::{Kind, new_callable};
use crate::tensor::{PyTensor, TensorObject, tensor_stub_lines};
use crate::trace::{TraceContext, start};
use crate::values::{PyDevice, PyDtype, parse_device, value_stub_lines};

/// Adds `tensor()`, `tracing()` and `_stubs` to `module` (with the stubs of the autograd
/// members if the module has them).
pub(crate) fn add_helpers<B: PyTensor>(
    module: &Bound<'_, PyModule>,
    bindings: &Bindings,
    ops: &[OpInfo],
    autograd: bool,
) -> PyResult<()> {
    let py = module.py();
    let tensor = FnCallee {
        name: "tensor",
        doc: "tensor(data, *, dtype=None, device=None, requires_grad=False) -> Tensor\n\nA tensor with a copy of `data` (a NumPy array, a list, a number).",
        f: tensor_fn::<B>,
    };
    module.add(
        "tensor",
        new_callable(py, Kind::Function, Box::new(tensor))?,
    )?;
    // Not `trace`: ATen's `trace` is the sum of a matrix's diagonal.
    let tracing = FnCallee {
        name: "tracing",
        doc: "tracing(*inputs) -> context manager\n\nRecords the calls made inside `with`; `.graph` is the trace as text.",
        f: trace_fn::<B>,
    };
    module.add(
        "tracing",
        new_callable(py, Kind::Function, Box::new(tracing))?,
    )?;
    let stubs = PyDict::new(py);
    let mut files = stub_files(bindings, ops, &stub_options(autograd));
    if autograd {
        let grad_mode = crate::grad_mode::grad_mode_stub_lines();
        let generated = opgen_python_core::stubs::GENERATED;
        files.push((
            "autograd/__init__.pyi".to_string(),
            crate::autograd_fns::autograd_stub(&grad_mode),
        ));
        files.push((
            "autograd/graph.pyi".to_string(),
            format!("{generated}{}", crate::graph::GRAPH_STUB),
        ));
    }
    for (path, text) in files {
        stubs.set_item(path, text)?;
    }
    module.add("_stubs", stubs)?;
    Ok(())
}

/// `_dispatch_table("aten::mul_.Tensor")` (which registration serves each key, as PyTorch's
/// `torch._C._dispatch_dump_table`) and `_catalog()` (every operator as JSON, the format of
/// `opgen json`).
pub(crate) fn add_introspection(
    module: &Bound<'_, PyModule>,
    dispatcher: &Dispatcher,
) -> PyResult<()> {
    let py = module.py();
    let d = dispatcher.clone();
    let table = FnCallee {
        name: "_dispatch_table",
        doc: "_dispatch_table(name) -> str\n\nThe dispatch table of `ns::op.overload`.",
        f: move |py: Python<'_>,
                 args: &[&Bound<'_, PyAny>],
                 _: &[(String, Bound<'_, PyAny>)]|
              -> PyResult<Py<PyAny>> {
            let name: String = match args {
                [one] => one.extract()?,
                _ => {
                    return Err(PyTypeError::new_err(
                        "_dispatch_table() takes 1 positional argument",
                    ));
                }
            };
            let (op, overload) = name.split_once('.').unwrap_or((name.as_str(), ""));
            let handle = d
                .find(op, overload)
                .map_err(crate::errors::dispatch_error)?;
            Ok(handle
                .dispatch_table()
                .to_string()
                .into_pyobject(py)?
                .into_any()
                .unbind())
        },
    };
    module.add(
        "_dispatch_table",
        new_callable(py, Kind::Function, Box::new(table))?,
    )?;
    let d = dispatcher.clone();
    let catalog = FnCallee {
        name: "_catalog",
        doc: "_catalog() -> str\n\nEvery operator of the dispatcher as JSON (the format of `opgen json`).",
        f: move |py: Python<'_>,
                 _: &[&Bound<'_, PyAny>],
                 _: &[(String, Bound<'_, PyAny>)]|
              -> PyResult<Py<PyAny>> {
            Ok(d.catalog_json()
                .to_string()
                .into_pyobject(py)?
                .into_any()
                .unbind())
        },
    };
    module.add(
        "_catalog",
        new_callable(py, Kind::Function, Box::new(catalog))?,
    )?;
    Ok(())
}

fn stub_options(autograd: bool) -> StubOptions {
    let mut module_members = Vec::new();
    if autograd {
        module_members.push("from . import autograd as autograd".to_string());
        module_members.push("from .autograd.graph import Node as _Node".to_string());
        module_members
            .push("from .autograd.graph import RemovableHandle as _RemovableHandle".to_string());
    }
    module_members.extend(value_stub_lines());
    if autograd {
        module_members.extend(crate::grad_mode::grad_mode_stub_lines());
    }
    module_members.push(
        "def tensor(data: Any, *, dtype: Optional[dtype] = None, device: Optional[DeviceLikeType] = None, requires_grad: _bool = False) -> Tensor: ..."
            .to_string(),
    );
    module_members.push(
        "class tracing:\n    def __init__(self, *inputs: Tensor) -> None: ...\n    def __enter__(self) -> tracing: ...\n    \
         def __exit__(self, *args: Any) -> _bool: ...\n    @property\n    def graph(self) -> str: ..."
            .to_string(),
    );
    module_members.push("def _dispatch_table(name: str) -> str: ...".to_string());
    module_members.push("def _catalog() -> str: ...".to_string());
    let dunders = DUNDERS
        .iter()
        .map(|(d, t, _)| (d.to_string(), t.to_string()))
        .collect();
    let mut tensor_members = tensor_stub_lines();
    if autograd {
        tensor_members.extend(crate::autograd::autograd_tensor_stub_lines());
    }
    StubOptions {
        tensor_members,
        module_members,
        dunders,
    }
}

/// `tensor(data, *, dtype=None, device=None, requires_grad=False)`.
fn tensor_fn<B: PyTensor>(
    py: Python<'_>,
    args: &[&Bound<'_, PyAny>],
    kwargs: &[(String, Bound<'_, PyAny>)],
) -> PyResult<Py<PyAny>> {
    let mut data = args.first().map(|a| (*a).clone());
    if args.len() > 1 {
        return Err(PyTypeError::new_err(format!(
            "tensor() takes 1 positional argument but {} were given",
            args.len()
        )));
    }
    let (mut dtype, mut device, mut requires_grad) = (None, None, false);
    for (name, value) in kwargs {
        match name.as_str() {
            "data" if data.is_none() => data = Some(value.clone()),
            "dtype" if value.is_none() => {}
            "dtype" => {
                dtype = Some(
                    value
                        .cast::<PyDtype>()
                        .map_err(|_| {
                            PyTypeError::new_err(format!(
                                "tensor(): argument 'dtype' must be torch.dtype, not {}",
                                crate::ffi::type_name(value)
                            ))
                        })?
                        .get()
                        .value,
                )
            }
            "device" if value.is_none() => {}
            "device" => {
                device = Some(match value.cast::<PyDevice>() {
                    Ok(d) => d.get().value,
                    Err(_) => parse_device(&value.extract::<String>().map_err(|_| {
                        PyTypeError::new_err(format!(
                            "tensor(): argument 'device' must be torch.device, not {}",
                            crate::ffi::type_name(value)
                        ))
                    })?)?,
                })
            }
            "requires_grad" => {
                requires_grad = value
                    .cast::<pyo3::types::PyBool>()
                    .map_err(|_| {
                        PyTypeError::new_err(format!(
                            "tensor(): argument 'requires_grad' must be bool, not {}",
                            crate::ffi::type_name(value)
                        ))
                    })?
                    .is_true()
            }
            other => {
                return Err(PyTypeError::new_err(format!(
                    "tensor() got an unexpected keyword argument '{other}'"
                )));
            }
        }
    }
    let data = data.ok_or_else(|| {
        PyTypeError::new_err("tensor() missing 1 required positional arguments: \"data\"")
    })?;
    let t = B::from_python(&data, dtype, device)?;
    if requires_grad {
        crate::autograd::mark_requires_grad(&t)?;
    }
    Ok(Py::new(py, TensorObject::new::<B>(t))?.into_any())
}

/// `tracing(*inputs)`.
fn trace_fn<B: PyTensor>(
    py: Python<'_>,
    args: &[&Bound<'_, PyAny>],
    kwargs: &[(String, Bound<'_, PyAny>)],
) -> PyResult<Py<PyAny>> {
    if let Some((name, _)) = kwargs.first() {
        return Err(PyTypeError::new_err(format!(
            "tracing() got an unexpected keyword argument '{name}'"
        )));
    }
    let inputs = PyTuple::new(py, args.iter().map(|a| (*a).clone()))?.unbind();
    let ctx = TraceContext {
        start: start::<B>,
        inputs,
        running: None,
        graph: None,
        _not_send: PhantomData,
    };
    Ok(Py::new(py, ctx)?.into_any())
}
