//! Custom autograd functions from Python, as `torch.autograd.Function`: a subclass with
//! `@staticmethod forward(ctx, *args)` and `backward(ctx, *grad_outputs)` (or `forward(*args)`
//! with `setup_context(ctx, inputs, output)`), called through `Function.apply(*args)`. The
//! outputs get one node, named after the class (`ExpBackward` for `class Exp`), whose backward
//! calls the Python `backward` with the GIL taken
//! ([`opgen_core::autograd::apply_function`]).

use std::marker::PhantomData;

use opgen_core::autograd::{AutogradErrorKind, AutogradTensor, FunctionCtx as CoreCtx};
use opgen_core::dispatch::Error;
use pyo3::exceptions::{PyNotImplementedError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple, PyType};

use crate::errors::{carry, runtime_error};
use crate::tensor::{PyTensor, TensorObject};

/// `ctx`: what a custom function's forward and backward share. Any attribute may be set on
/// it (`ctx.k = 3`); tensors go through `save_for_backward`.
#[pyclass(dict, name = "FunctionCtx", module = "opgen.autograd.function")]
pub struct FunctionCtx {
    needs_input_grad: Py<PyTuple>,
    to_save: Vec<Py<PyAny>>,
    non_differentiable: Vec<Py<PyAny>>,
    materialize_grads: bool,
    /// The saved tensors while backward runs (or why they cannot be read).
    saved: Option<Result<Py<PyTuple>, String>>,
}

#[pymethods]
impl FunctionCtx {
    /// Saves tensors (or `None`) for backward, where `saved_tensors` gives them back.
    #[pyo3(signature = (*tensors))]
    fn save_for_backward(&mut self, tensors: &Bound<'_, PyTuple>) -> PyResult<()> {
        for (i, t) in tensors.iter().enumerate() {
            if !t.is_none() && t.cast::<TensorObject>().is_err() {
                return Err(PyTypeError::new_err(format!(
                    "save_for_backward can only save variables, but argument {i} is of type {}",
                    crate::ffi::type_name(&t)
                )));
            }
        }
        self.to_save = tensors.iter().map(Bound::unbind).collect();
        Ok(())
    }

    /// The tensors saved by `save_for_backward`, in backward.
    #[getter]
    fn saved_tensors(&self, py: Python<'_>) -> PyResult<Py<PyTuple>> {
        match &self.saved {
            Some(Ok(tensors)) => Ok(tensors.clone_ref(py)),
            Some(Err(message)) => Err(PyRuntimeError::new_err(message.clone())),
            None => Err(PyRuntimeError::new_err(
                "saved_tensors of a custom function are read in its backward",
            )),
        }
    }

    /// Per argument of `apply`: whether it is a tensor that requires grad.
    #[getter]
    fn needs_input_grad(&self, py: Python<'_>) -> Py<PyTuple> {
        self.needs_input_grad.clone_ref(py)
    }

    /// Marks outputs as not requiring grad; backward gets zeros (or `None`) for them.
    #[pyo3(signature = (*tensors))]
    fn mark_non_differentiable(&mut self, tensors: &Bound<'_, PyTuple>) {
        self.non_differentiable
            .extend(tensors.iter().map(Bound::unbind));
    }

    /// Whether backward gets zeros (`True`, the default) or `None` for the outputs that
    /// received no gradient.
    fn set_materialize_grads(&mut self, value: bool) {
        self.materialize_grads = value;
    }
}

/// The base class of custom functions (`torch.autograd.Function`).
#[pyclass(subclass, name = "Function", module = "opgen.autograd")]
pub struct Function;

#[pymethods]
impl Function {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn py_new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> Function {
        Function
    }

    #[staticmethod]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn forward(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        Err(PyNotImplementedError::new_err(
            "You must implement the forward function for custom autograd.Function.",
        ))
    }

    #[staticmethod]
    #[pyo3(signature = (*_args))]
    fn backward(_args: &Bound<'_, PyTuple>) -> PyResult<()> {
        Err(PyNotImplementedError::new_err(
            "You must implement either the backward or vjp method for your custom \
             autograd.Function to use it with backward mode AD.",
        ))
    }

    #[staticmethod]
    #[pyo3(signature = (*_args))]
    fn setup_context(_args: &Bound<'_, PyTuple>) -> PyResult<()> {
        Err(PyNotImplementedError::new_err(
            "setup_context is not implemented.",
        ))
    }

    /// Runs `forward` on `args` and records the outputs' node.
    #[classmethod]
    #[pyo3(signature = (*args, **kwargs))]
    fn apply(
        cls: &Bound<'_, PyType>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let py = cls.py();
        let base = py.get_type::<Function>();
        let setup_context = !cls
            .getattr("setup_context")?
            .is(&base.getattr("setup_context")?);
        // With `setup_context`, `inputs` are the arguments bound with their defaults, as
        // PyTorch's `bind_default_args`.
        let args = match kwargs.filter(|k| !k.is_empty()) {
            _ if setup_context => bind_defaults(&cls.getattr("forward")?, args, kwargs)?,
            None => args.clone(),
            Some(_) => {
                // PyTorch's `_FunctionBase.apply` takes positional arguments only.
                return Err(PyTypeError::new_err("apply() takes no keyword arguments"));
            }
        };
        let call = Call {
            cls: cls.clone(),
            args,
            setup_context,
        };
        let runner = (call.args.iter()).find_map(|a| {
            a.cast::<TensorObject>()
                .ok()
                .map(|t| t.get().inner.function_runner())
        });
        match runner {
            Some(runner) => runner.apply(&call),
            // Without tensors there is nothing to record.
            None => {
                let ctx = new_ctx(py, vec![false; call.args.len()])?;
                let _no_grad = opgen_core::autograd::NoGradGuard::new();
                call.forward(&ctx).map(Bound::unbind)
            }
        }
    }
}

/// `inspect.signature(forward).bind(*args, **kwargs)` with the defaults applied: the
/// positional arguments of a `forward` without `ctx`.
fn bind_defaults<'py>(
    forward: &Bound<'py, PyAny>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let py = forward.py();
    let signature = py
        .import("inspect")?
        .call_method1("signature", (forward,))?;
    let bound = signature.call_method("bind", args, kwargs)?;
    bound.call_method0("apply_defaults")?;
    Ok(bound.getattr("args")?.cast_into::<PyTuple>()?)
}

/// One `apply`: the class and its arguments.
pub(crate) struct Call<'py> {
    cls: Bound<'py, PyType>,
    args: Bound<'py, PyTuple>,
    setup_context: bool,
}

impl<'py> Call<'py> {
    /// Calls the Python forward (and `setup_context`).
    fn forward(&self, ctx: &Bound<'py, FunctionCtx>) -> PyResult<Bound<'py, PyAny>> {
        let forward = self.cls.getattr("forward")?;
        if self.setup_context {
            let output = forward.call1(&self.args)?;
            let setup = self.cls.getattr("setup_context")?;
            setup.call1((ctx, &self.args, &output))?;
            return Ok(output);
        }
        let mut items = vec![ctx.clone().into_any()];
        items.extend(self.args.iter());
        forward.call1(PyTuple::new(self.cls.py(), items)?)
    }

    /// The node's name: the class's name and `Backward`, as PyTorch's.
    fn node_name(&self) -> PyResult<String> {
        Ok(format!("{}Backward", self.cls.name()?))
    }
}

fn new_ctx(py: Python<'_>, needs: Vec<bool>) -> PyResult<Bound<'_, FunctionCtx>> {
    Bound::new(
        py,
        FunctionCtx {
            needs_input_grad: PyTuple::new(py, needs)?.unbind(),
            to_save: Vec::new(),
            non_differentiable: Vec::new(),
            materialize_grads: true,
            saved: None,
        },
    )
}

/// `apply` for the tensors of one binding.
pub(crate) trait FunctionRunner: Send + Sync {
    fn apply(&self, call: &Call<'_>) -> PyResult<Py<PyAny>>;
}

pub(crate) struct Runner<B>(pub PhantomData<fn() -> B>);

impl<B: PyTensor> FunctionRunner for Runner<B> {
    fn apply(&self, call: &Call<'_>) -> PyResult<Py<PyAny>> {
        let py = call.cls.py();
        let inputs: Vec<Option<B::Tensor>> = (call.args.iter())
            .map(|a| {
                a.cast::<TensorObject>()
                    .ok()
                    .and_then(|t| t.get().get::<B>().cloned())
            })
            .collect();
        let needs = inputs
            .iter()
            .map(|t| t.as_ref().is_some_and(|t| t.requires_grad()));
        let ctx = new_ctx(py, needs.collect())?;
        let Some(engine) = B::autograd() else {
            let _no_grad = opgen_core::autograd::NoGradGuard::new();
            return call.forward(&ctx).map(Bound::unbind);
        };
        let refs: Vec<Option<&B::Tensor>> = inputs.iter().map(Option::as_ref).collect();
        let mut output: Option<(Bound<'_, PyAny>, Vec<usize>)> = None;
        let forward = Box::new(|rctx: &mut CoreCtx<B::Tensor>| {
            let out = call.forward(&ctx).map_err(carry)?;
            hand_over::<B>(&ctx, rctx).map_err(carry)?;
            let (positions, tensors) = output_tensors::<B>(&out).map_err(carry)?;
            output = Some((out, positions));
            Ok(tensors)
        });
        let is_tensor: Vec<bool> = inputs.iter().map(Option::is_some).collect();
        let (cls, py_ctx) = (call.cls.clone().unbind(), ctx.clone().unbind());
        let backward = Box::new(move |rctx: &mut CoreCtx<B::Tensor>, grads| {
            Python::attach(|py| {
                let node = format!("{}Backward", cls.bind(py).name()?);
                run_backward::<B>(py, &cls, &py_ctx, rctx, grads, &is_tensor, &node)
            })
            .map_err(carry)
        });
        let name = call.node_name()?;
        let tensors =
            (engine.apply_function(&name, &refs, forward, backward)).map_err(runtime_error)?;
        let Some((out, positions)) = output else {
            return Err(runtime_error(Error::from("custom function without output")));
        };
        rebuild::<B>(py, &out, &positions, tensors)
    }
}

/// Moves what forward put in the Python `ctx` to the Rust one (and out of the Python `ctx`,
/// which the node keeps: holding the outputs there would be a reference cycle).
fn hand_over<B: PyTensor>(
    ctx: &Bound<'_, FunctionCtx>,
    rctx: &mut CoreCtx<B::Tensor>,
) -> PyResult<()> {
    let mut c = ctx.borrow_mut();
    let py = ctx.py();
    let tensor = |o: &Py<PyAny>| {
        (o.bind(py).cast::<TensorObject>().ok()).and_then(|t| t.get().get::<B>().cloned())
    };
    rctx.save_for_backward(c.to_save.iter().map(tensor).collect());
    let marked: Vec<B::Tensor> = c.non_differentiable.iter().filter_map(tensor).collect();
    rctx.mark_non_differentiable(&marked);
    rctx.set_materialize_grads(c.materialize_grads);
    c.to_save.clear();
    c.non_differentiable.clear();
    Ok(())
}

/// The tensors among forward's outputs (one object or a tuple), with their positions
/// (`usize::MAX`: the output itself is the tensor).
fn output_tensors<B: PyTensor>(out: &Bound<'_, PyAny>) -> PyResult<(Vec<usize>, Vec<B::Tensor>)> {
    let tensor_of = |o: &Bound<'_, PyAny>| {
        o.cast::<TensorObject>()
            .ok()
            .and_then(|t| t.get().get::<B>().cloned())
    };
    if let Ok(tuple) = out.cast::<PyTuple>() {
        let found: Vec<(usize, B::Tensor)> = (tuple.iter().enumerate())
            .filter_map(|(i, o)| tensor_of(&o).map(|t| (i, t)))
            .collect();
        return Ok(found.into_iter().unzip());
    }
    Ok(match tensor_of(out) {
        Some(t) => (vec![usize::MAX], vec![t]),
        None => (Vec::new(), Vec::new()),
    })
}

/// Forward's output with its tensors replaced by the recorded ones.
fn rebuild<B: PyTensor>(
    py: Python<'_>,
    out: &Bound<'_, PyAny>,
    positions: &[usize],
    tensors: Vec<B::Tensor>,
) -> PyResult<Py<PyAny>> {
    let mut tensors = tensors.into_iter();
    if positions == [usize::MAX] {
        let t = tensors
            .next()
            .ok_or_else(|| runtime_error(Error::from("missing output")))?;
        return Ok(Py::new(py, TensorObject::new::<B>(t))?.into_any());
    }
    let Ok(tuple) = out.cast::<PyTuple>() else {
        return Ok(out.clone().unbind());
    };
    let mut items: Vec<Py<PyAny>> = tuple.iter().map(Bound::unbind).collect();
    for (&i, t) in positions.iter().zip(tensors) {
        items[i] = Py::new(py, TensorObject::new::<B>(t))?.into_any();
    }
    Ok(PyTuple::new(py, items)?.into_any().unbind())
}

/// Calls the Python backward with the gradients of the outputs; checks what it returns as
/// PyTorch's `PyNode::apply` does.
fn run_backward<B: PyTensor>(
    py: Python<'_>,
    cls: &Py<PyType>,
    ctx: &Py<FunctionCtx>,
    rctx: &mut CoreCtx<B::Tensor>,
    grads: Vec<Option<B::Tensor>>,
    is_tensor: &[bool],
    node: &str,
) -> PyResult<Vec<Option<B::Tensor>>> {
    let saved = match rctx.saved_tensors() {
        Ok(saved) => {
            let items = (saved.into_iter())
                .map(|t| {
                    t.map(|t| Py::new(py, TensorObject::new::<B>(t)))
                        .transpose()
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyTuple::new(py, items)?.unbind())
        }
        Err(e) => Err(e.to_string()),
    };
    ctx.borrow_mut(py).saved = Some(saved);
    let mut args: Vec<Py<PyAny>> = vec![ctx.clone_ref(py).into_any()];
    for g in grads {
        args.push(match g {
            Some(t) => Py::new(py, TensorObject::new::<B>(t))?.into_any(),
            None => py.None(),
        });
    }
    let result = (cls.bind(py).getattr("backward"))
        .and_then(|backward| backward.call1(PyTuple::new(py, args)?));
    ctx.borrow_mut(py).saved = None;
    let result = result?;
    let mut items: Vec<Bound<'_, PyAny>> = match result.cast::<PyTuple>() {
        Ok(tuple) => tuple.iter().collect(),
        Err(_) => vec![result],
    };
    let expected = is_tensor.len();
    if items.len() > expected && items[expected..].iter().all(|i| i.is_none()) {
        items.truncate(expected);
    }
    if items.len() != expected {
        let kind = AutogradErrorKind::FunctionGradientCount {
            node: node.to_string(),
            expected,
            got: items.len(),
        };
        return Err(PyRuntimeError::new_err(kind.to_string()));
    }
    (items.iter().zip(is_tensor).enumerate())
        .map(|(i, (item, &tensor))| gradient::<B>(item, tensor, i, node))
        .collect()
}

/// One gradient backward returned, for argument `i`.
fn gradient<B: PyTensor>(
    item: &Bound<'_, PyAny>,
    is_tensor: bool,
    i: usize,
    node: &str,
) -> PyResult<Option<B::Tensor>> {
    if item.is_none() {
        return Ok(None);
    }
    if !is_tensor {
        let kind = AutogradErrorKind::FunctionGradientForNonTensor {
            node: node.to_string(),
            position: i + 1,
        };
        return Err(PyRuntimeError::new_err(kind.to_string()));
    }
    match item
        .cast::<TensorObject>()
        .ok()
        .and_then(|t| t.get().get::<B>().cloned())
    {
        Some(t) => Ok(Some(t)),
        None => Err(PyRuntimeError::new_err(format!(
            "expected Variable or None (got {})",
            crate::ffi::type_name(item)
        ))),
    }
}

/// The stub lines of `Function` and `FunctionCtx` (in `autograd/__init__.pyi`).
pub(crate) const FUNCTION_STUB: &str = "\
class FunctionCtx:
    def save_for_backward(self, *tensors: Optional[Tensor]) -> None: ...
    @property
    def saved_tensors(self) -> tuple[Optional[Tensor], ...]: ...
    @property
    def needs_input_grad(self) -> tuple[_bool, ...]: ...
    def mark_non_differentiable(self, *tensors: Tensor) -> None: ...
    def set_materialize_grads(self, value: _bool) -> None: ...
    def __getattr__(self, name: str) -> Any: ...
    def __setattr__(self, name: str, value: Any) -> None: ...
class Function:
    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any: ...
    @staticmethod
    def backward(*args: Any, **kwargs: Any) -> Any: ...
    @staticmethod
    def setup_context(*args: Any, **kwargs: Any) -> Any: ...
    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any: ...
";
