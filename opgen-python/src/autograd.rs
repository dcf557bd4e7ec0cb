//! Autograd from Python, as `torch`'s: the tensor members (`requires_grad`, `grad`,
//! `grad_fn`, `is_leaf`, `backward()`, `detach()`, ...), `requires_grad=` on factories, and
//! the `autograd` submodule (`grad`, `backward`, the grad-mode context managers,
//! `graph.Node`).
//!
//! The state queries and `requires_grad_` work for every tensor type through
//! [`AutogradTensor`]; running the engine and `detach` need the type's [`Differentiable`]
//! math, which a binding provides with [`PyTensor::autograd`] (`Some(autograd())`). Without
//! it no tensor requires grad, so `backward()` raises PyTorch's "element 0 of tensors does not
//! require grad and does not have a grad_fn".

use std::marker::PhantomData;

use opgen_core::autograd::{
    self as ag, AutogradTensor, Differentiable, FunctionCtx, is_differentiable_type,
};
use opgen_core::dispatch::{Error, Tensor};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyModule, PyTuple};

use crate::errors::runtime_error;
use crate::graph::Node;
use crate::tensor::{Held, PyTensor, TensorObject};

/// The engine of a tensor type that takes part in autograd, for the binding: what needs
/// [`Differentiable`]. [`autograd`] gives it for any such type; a binding returns it from
/// [`PyTensor::autograd`].
pub trait Autograd<T: Tensor>: Send + Sync + 'static {
    /// [`Differentiable::detach`].
    fn detach(&self, t: &T) -> Result<T, Error>;
    /// [`Differentiable::zeros_like`].
    fn zeros_like(&self, t: &T) -> Result<T, Error>;
    /// [`Differentiable::accumulate`].
    fn accumulate(&self, a: &T, b: &T) -> Result<T, Error>;
    /// [`opgen_core::autograd::backward`].
    fn backward(
        &self,
        outputs: &[T],
        grad_outputs: &[Option<T>],
        retain_graph: Option<bool>,
        create_graph: bool,
    ) -> Result<(), Error>;
    /// [`opgen_core::autograd::grad`].
    fn grad(
        &self,
        outputs: &[T],
        inputs: &[T],
        grad_outputs: &[Option<T>],
        retain_graph: Option<bool>,
        create_graph: bool,
        allow_unused: bool,
    ) -> Result<Vec<Option<T>>, Error>;
    /// [`opgen_core::autograd::apply_function`].
    fn apply_function<'a>(
        &self,
        name: &str,
        inputs: &[Option<&T>],
        forward: ForwardFn<'a, T>,
        backward: BackwardFn<T>,
    ) -> Result<Vec<T>, Error>;
}

/// The forward of a custom function, for [`Autograd::apply_function`].
pub type ForwardFn<'a, T> = Box<dyn FnOnce(&mut FunctionCtx<T>) -> Result<Vec<T>, Error> + 'a>;

/// The backward of a custom function, for [`Autograd::apply_function`].
pub type BackwardFn<T> =
    Box<dyn FnMut(&mut FunctionCtx<T>, Vec<Option<T>>) -> Result<Vec<Option<T>>, Error> + Send>;

struct Engine<T>(PhantomData<fn() -> T>);

impl<T: Differentiable> Autograd<T> for Engine<T> {
    fn detach(&self, t: &T) -> Result<T, Error> {
        t.detach()
    }
    fn zeros_like(&self, t: &T) -> Result<T, Error> {
        t.zeros_like()
    }
    fn accumulate(&self, a: &T, b: &T) -> Result<T, Error> {
        a.accumulate(b)
    }
    fn backward(
        &self,
        outputs: &[T],
        grad_outputs: &[Option<T>],
        retain_graph: Option<bool>,
        create_graph: bool,
    ) -> Result<(), Error> {
        ag::backward(outputs, grad_outputs, retain_graph, create_graph)
    }
    fn grad(
        &self,
        outputs: &[T],
        inputs: &[T],
        grad_outputs: &[Option<T>],
        retain_graph: Option<bool>,
        create_graph: bool,
        allow_unused: bool,
    ) -> Result<Vec<Option<T>>, Error> {
        ag::grad(
            outputs,
            inputs,
            grad_outputs,
            retain_graph,
            create_graph,
            allow_unused,
        )
    }
    fn apply_function<'a>(
        &self,
        name: &str,
        inputs: &[Option<&T>],
        forward: ForwardFn<'a, T>,
        backward: BackwardFn<T>,
    ) -> Result<Vec<T>, Error> {
        ag::apply_function(name, inputs, forward, backward)
    }
}

/// The engine of `T`, for [`PyTensor::autograd`]:
///
/// ```ignore
/// fn autograd() -> Option<&'static dyn opgen_python::Autograd<MyTensor>> {
///     Some(opgen_python::autograd())
/// }
/// ```
pub fn autograd<T: Differentiable>() -> &'static dyn Autograd<T> {
    &Engine(PhantomData)
}

/// PyTorch's message for a tensor of a type without autograd given to the engine: none of
/// its tensors requires grad.
fn no_autograd<B: PyTensor>() -> PyResult<&'static dyn Autograd<B::Tensor>> {
    B::autograd().ok_or_else(|| {
        PyRuntimeError::new_err(
            "element 0 of tensors does not require grad and does not have a grad_fn",
        )
    })
}

/// The tensor of the binding `B` in `obj`, or PyTorch's `TypeError` naming `what`.
fn tensor_of<B: PyTensor>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<B::Tensor> {
    let t = obj.cast::<TensorObject>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{what} must be a Tensor, not {}",
            crate::ffi::type_name(obj)
        ))
    })?;
    (t.get().get::<B>().cloned())
        .ok_or_else(|| PyTypeError::new_err(format!("{what}: a Tensor of another tensor type")))
}

/// PyTorch's `(t,) if isinstance(t, Tensor) else tuple(t)`.
pub(crate) fn tensors_of<B: PyTensor>(
    obj: &Bound<'_, PyAny>,
    what: &str,
) -> PyResult<Vec<B::Tensor>> {
    if obj.cast::<TensorObject>().is_ok() {
        return Ok(vec![tensor_of::<B>(obj, what)?]);
    }
    let items = obj.py().get_type::<PyTuple>().call1((obj,))?;
    (items.try_iter()?)
        .map(|item| tensor_of::<B>(&item?, what))
        .collect()
}

/// PyTorch's `_tensor_or_tensors_to_tuple` and the type check of `_make_grads`: one gradient
/// (or `None`) per output.
pub(crate) fn gradients_of<B: PyTensor>(
    obj: Option<&Bound<'_, PyAny>>,
    outputs: usize,
) -> PyResult<Vec<Option<B::Tensor>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(vec![None; outputs]);
    };
    let items: Vec<Bound<'_, PyAny>> = if obj.cast::<TensorObject>().is_ok() {
        vec![obj.clone()]
    } else {
        let tuple = obj.py().get_type::<PyTuple>().call1((obj,))?;
        tuple.try_iter()?.collect::<PyResult<_>>()?
    };
    (items.iter())
        .map(|g| match g.is_none() {
            true => Ok(None),
            false if g.cast::<TensorObject>().is_err() => Err(PyTypeError::new_err(format!(
                "gradients can be either Tensors or None, but got {}",
                crate::ffi::type_name(g)
            ))),
            false => tensor_of::<B>(g, "gradient").map(Some),
        })
        .collect()
}

/// `torch.autograd.backward(tensors, grad_tensors, retain_graph, create_graph, inputs)`,
/// with the GIL released while the graph runs. With `inputs`, the gradients are accumulated
/// into those tensors' `grad` only.
pub(crate) fn run_backward<B: PyTensor>(
    py: Python<'_>,
    outputs: Vec<B::Tensor>,
    grads: Vec<Option<B::Tensor>>,
    retain_graph: Option<bool>,
    create_graph: bool,
    inputs: Option<Vec<B::Tensor>>,
) -> PyResult<()> {
    let engine = no_autograd::<B>()?;
    let Some(inputs) = inputs else {
        return (py.detach(|| engine.backward(&outputs, &grads, retain_graph, create_graph)))
            .map_err(runtime_error);
    };
    if inputs.is_empty() {
        return Err(PyRuntimeError::new_err(
            "`inputs` argument to `backward()` cannot be empty.",
        ));
    }
    py.detach(|| {
        let found = engine.grad(&outputs, &inputs, &grads, retain_graph, create_graph, true)?;
        for (input, g) in inputs.iter().zip(found) {
            let Some(g) = g else { continue };
            let new = match input.grad() {
                Some(old) => engine.accumulate(&old, &g)?,
                None if create_graph => g,
                None => engine.detach(&g)?,
            };
            input.set_grad(Some(new))?;
        }
        Ok::<(), Error>(())
    })
    .map_err(runtime_error)
}

/// The autograd members of the tensor class, for a tensor of any binding.
pub(crate) trait TensorAutograd: Send + Sync {
    fn requires_grad(&self) -> bool;
    fn is_leaf(&self) -> bool;
    fn retains_grad(&self) -> bool;
    /// `t.requires_grad = value` (`setter`) or `t.requires_grad_(value)`, with PyTorch's
    /// checks and messages for each.
    fn set_requires_grad(&self, value: bool, setter: bool) -> PyResult<()>;
    fn retain_grad(&self) -> PyResult<()>;
    fn grad(&self, py: Python<'_>) -> PyResult<Option<TensorObject>>;
    /// `t.grad = g`; `None` (or `del t.grad`) clears it.
    fn set_grad(&self, this: &TensorObject, grad: Option<&Bound<'_, PyAny>>) -> PyResult<()>;
    fn grad_fn(&self) -> Option<Node>;
    /// `t._base`: the tensor `t` is a view of, if it is one.
    fn base(&self) -> Option<TensorObject>;
    /// `t._is_view()`.
    fn is_view(&self) -> bool;
    fn detach(&self) -> PyResult<TensorObject>;
    fn register_hook(&self, hook: &Bound<'_, PyAny>) -> PyResult<crate::hooks::RemovableHandle>;
    fn backward(
        &self,
        py: Python<'_>,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()>;
}

fn differentiable<T: Tensor>(t: &T) -> bool {
    t.options()
        .ok()
        .and_then(|o| o.dtype)
        .is_none_or(is_differentiable_type)
}

impl<B: PyTensor> TensorAutograd for Held<B> {
    fn requires_grad(&self) -> bool {
        self.0.requires_grad()
    }

    fn is_leaf(&self) -> bool {
        self.0.is_leaf()
    }

    fn retains_grad(&self) -> bool {
        self.0.retains_grad()
    }

    fn set_requires_grad(&self, value: bool, setter: bool) -> PyResult<()> {
        // The property refuses every non-leaf; `requires_grad_(True)` accepts one.
        if !self.0.is_leaf() && (setter || !value) {
            let kind = ag::AutogradErrorKind::NonLeafRequiresGrad { to_false: !value };
            return Err(PyRuntimeError::new_err(kind.to_string()));
        }
        // c10 checks an inference tensor before the dtype.
        if value && self.0.is_inference() && !ag::is_inference_mode_enabled() {
            let kind = ag::AutogradErrorKind::InferenceRequiresGrad;
            return Err(PyRuntimeError::new_err(kind.to_string()));
        }
        if value && !differentiable(&self.0) {
            return Err(PyRuntimeError::new_err(match setter {
                true => "only Tensors of floating point and complex dtype can require gradients",
                false => "only Tensors of floating point dtype can require gradients",
            }));
        }
        self.0.set_requires_grad(value).map_err(runtime_error)
    }

    fn retain_grad(&self) -> PyResult<()> {
        self.0.retain_grad().map_err(runtime_error)
    }

    fn grad(&self, py: Python<'_>) -> PyResult<Option<TensorObject>> {
        let grad = self.0.grad();
        if grad.is_none() && !self.0.is_leaf() && !self.0.retains_grad() {
            let warning = py.get_type::<PyUserWarning>();
            PyErr::warn(py, &warning, NON_LEAF_GRAD, 1)?;
        }
        Ok(grad.map(TensorObject::new::<B>))
    }

    fn set_grad(&self, this: &TensorObject, grad: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let Some(grad) = grad.filter(|g| !g.is_none()) else {
            return self.0.set_grad(None).map_err(runtime_error);
        };
        let object = grad.cast::<TensorObject>().map_err(|_| {
            PyTypeError::new_err(format!(
                "assigned grad expected to be a Tensor or None but got grad of type {}",
                crate::ffi::type_name(grad)
            ))
        })?;
        if std::ptr::eq(object.get(), this) {
            return Err(PyRuntimeError::new_err(
                "can't assign Variable as its own grad",
            ));
        }
        let g = tensor_of::<B>(grad, "grad")?;
        check_grad_matches(&self.0, &g).map_err(PyRuntimeError::new_err)?;
        self.0.set_grad(Some(g)).map_err(runtime_error)
    }

    fn grad_fn(&self) -> Option<Node> {
        self.0.grad_fn().map(Node::new)
    }

    fn base(&self) -> Option<TensorObject> {
        self.0.view_base().map(TensorObject::new::<B>)
    }

    fn is_view(&self) -> bool {
        self.0.is_view()
    }

    fn detach(&self) -> PyResult<TensorObject> {
        // A type without autograd has no state to drop: the same tensor.
        let detached = match B::autograd() {
            Some(engine) => engine.detach(&self.0).map_err(runtime_error)?,
            None => self.0.clone(),
        };
        Ok(TensorObject::new::<B>(detached))
    }

    fn register_hook(&self, hook: &Bound<'_, PyAny>) -> PyResult<crate::hooks::RemovableHandle> {
        crate::hooks::register_hook::<B>(&self.0, hook)
    }

    fn backward(
        &self,
        py: Python<'_>,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let grads = gradients_of::<B>(gradient, 1)?;
        let inputs = inputs
            .filter(|i| !i.is_none())
            .map(|i| tensors_of::<B>(i, "inputs"))
            .transpose()?;
        let outputs = vec![self.0.clone()];
        run_backward::<B>(py, outputs, grads, retain_graph, create_graph, inputs)
    }
}

/// `requires_grad=True` given to a factory: its result requires grad (PyTorch's
/// `set_requires_grad` on the result, or the factory's `TensorOptions`).
pub(crate) fn mark_requires_grad<T: Tensor>(t: &T) -> PyResult<()> {
    if !differentiable(t) {
        return Err(PyRuntimeError::new_err(
            "Only Tensors of floating point and complex dtype can require gradients",
        ));
    }
    t.set_requires_grad(true).map_err(runtime_error)
}

/// PyTorch's warning for `.grad` of a non-leaf that does not retain it.
const NON_LEAF_GRAD: &std::ffi::CStr = c"The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information.";

/// PyTorch's checks of `t.grad = g`: same dtype, device and size.
fn check_grad_matches<T: Tensor>(t: &T, g: &T) -> Result<(), String> {
    let (to, go) = (
        t.options().map_err(|e| e.to_string())?,
        g.options().map_err(|e| e.to_string())?,
    );
    let (td, gd) = (to.dtype_or_default(), go.dtype_or_default());
    if td != gd {
        return Err(format!(
            "attempting to assign a gradient with dtype '{gd}' to a tensor with grad_dtype '{td}'. \
             The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You \
             can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any \
             dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient \
             may break downstream systems that assume they match."
        ));
    }
    let (tv, gv) = (to.device_or_default(), go.device_or_default());
    if tv.kind != gv.kind {
        let name = |d: opgen_core::dispatch::Device| d.kind.name().to_ascii_lowercase();
        return Err(format!(
            "attempting to assign a gradient with device type '{}' to a tensor with device type \
             '{}'. Please ensure that the gradient and the tensor are on the same device",
            name(gv),
            name(tv)
        ));
    }
    if tv.index != gv.index {
        let index = |d: opgen_core::dispatch::Device| d.index.map_or(-1, i64::from);
        return Err(format!(
            "attempting to assign a gradient located on device with index '{}' to a tensor \
             located on device with index '{}'. Please ensure that the gradient and the tensor \
             are on the same device",
            index(gv),
            index(tv)
        ));
    }
    let (ts, gs) = (
        t.sizes().map_err(|e| e.to_string())?,
        g.sizes().map_err(|e| e.to_string())?,
    );
    if ts != gs {
        return Err(format!(
            "attempting to assign a gradient of size '{gs:?}' to a tensor of size '{ts:?}'. \
             Please ensure that the gradient and the tensor are the same size"
        ));
    }
    Ok(())
}

/// The stub lines of the tensor's autograd members.
pub(crate) fn autograd_tensor_stub_lines() -> Vec<String> {
    [
        "@property\n    def requires_grad(self) -> _bool: ...\n    @requires_grad.setter\n    def requires_grad(self, value: _bool) -> None: ...",
        "@property\n    def grad(self) -> Optional[Tensor]: ...\n    @grad.setter\n    def grad(self, value: Optional[Tensor]) -> None: ...",
        "@property\n    def grad_fn(self) -> Optional[_Node]: ...",
        "@property\n    def is_leaf(self) -> _bool: ...",
        "@property\n    def retains_grad(self) -> _bool: ...",
        "@property\n    def _base(self) -> Optional[Tensor]: ...",
        "def _is_view(self) -> _bool: ...",
        "def requires_grad_(self, requires_grad: _bool = True) -> Tensor: ...",
        "def retain_grad(self) -> None: ...",
        "def detach(self) -> Tensor: ...",
        "def register_hook(self, hook: Callable[[Tensor], Optional[Tensor]]) -> _RemovableHandle: ...",
        "def backward(self, gradient: Optional[Tensor] = None, retain_graph: Optional[_bool] = None, create_graph: _bool = False, inputs: Optional[Union[Tensor, Sequence[Tensor]]] = None) -> None: ...",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// Adds the grad-mode members and the `autograd` submodule (`grad`, `backward`, the
/// grad-mode members, `graph.Node`) to `module`.
pub(crate) fn add_autograd<B: PyTensor>(
    module: &Bound<'_, PyModule>,
    package: &str,
) -> PyResult<()> {
    crate::grad_mode::add_grad_mode(module, package)?;
    let autograd = crate::module::submodule(module, package, "autograd")?;
    crate::grad_mode::add_grad_mode(&autograd, package)?;
    autograd.add_class::<crate::function::Function>()?;
    autograd.add_class::<crate::function::FunctionCtx>()?;
    for name in ["Function", "FunctionCtx"] {
        (autograd.getattr(name)?).setattr("__module__", format!("{package}.autograd"))?;
    }
    let graph = crate::module::submodule(module, package, "autograd.graph")?;
    graph.add_class::<Node>()?;
    graph.add_class::<crate::hooks::RemovableHandle>()?;
    for name in ["Node", "RemovableHandle"] {
        (graph.getattr(name)?).setattr("__module__", format!("{package}.autograd.graph"))?;
    }
    crate::autograd_fns::add_functions::<B>(&autograd)
}

/// `ValueError` of `torch.autograd.grad` with `materialize_grads`.
pub(crate) fn materialize_error() -> PyErr {
    PyValueError::new_err(
        "Expected allow_unused to be True or not passed when materialize_grads=True, but got: \
         allow_unused=False.",
    )
}
