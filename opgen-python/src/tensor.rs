//! The Python tensor class: a handle to a tensor of the module's type (no data is copied;
//! [`PyTensor::to_python`] converts on request), and the trait a tensor type implements to
//! cross into Python.

use std::any::Any;

use opgen_core::dispatch::{Device, Error, Scalar, ScalarType, Tensor as _};
use opgen_python_core::TensorFacts;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::autograd::TensorAutograd;
use crate::errors::runtime_error;
use crate::values::{device_object, dtype_object};

/// What a tensor type implements to be used from Python, on top of opgen's
/// [`Tensor`](opgen_core::dispatch::Tensor) and [`TensorFacts`]: the conversion from a Python
/// object (what `tensor(data, dtype=, device=)` calls; NumPy arrays, say) and to one (what
/// `t.numpy()` returns).
///
/// It is implemented on a type of the binding crate (a marker), with the tensor type as
/// [`TensorFacts::Tensor`], so that a crate can bind a tensor type it does not own:
///
/// ```ignore
/// struct Binding;
/// impl TensorFacts for Binding { type Tensor = MyTensor; }
/// impl PyTensor for Binding {
///     fn from_python(data: &Bound<'_, PyAny>, dtype: Option<ScalarType>, device: Option<Device>) -> PyResult<MyTensor> {
///         let array: PyReadonlyArrayDyn<'_, f32> = data.extract()?;
///         Ok(MyTensor::from_vec(array.as_array().iter().copied().collect(), array.shape()))
///     }
///     fn to_python<'py>(t: &MyTensor, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
///         Ok(PyArray1::from_vec(py, t.to_vec()).into_any())
///     }
/// }
/// ```
pub trait PyTensor: TensorFacts {
    /// A tensor from a Python object, with the dtype and device asked for, if any.
    fn from_python(
        data: &Bound<'_, PyAny>,
        dtype: Option<ScalarType>,
        device: Option<Device>,
    ) -> PyResult<Self::Tensor>;

    /// The tensor as a Python object (a copy of its data, typically a NumPy array).
    fn to_python<'py>(t: &Self::Tensor, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;

    /// The autograd engine of the tensor type, for `backward()`, `detach()` and
    /// `autograd.grad()`: `Some(opgen_python::autograd())` for a type that implements
    /// [`Differentiable`](opgen_core::autograd::Differentiable). The default, `None`, is for
    /// a type that does not take part in autograd: no tensor of it requires grad, so
    /// `backward()` raises PyTorch's "element 0 of tensors does not require grad and does not
    /// have a grad_fn", and `detach()` returns the same tensor.
    fn autograd() -> Option<&'static dyn crate::Autograd<Self::Tensor>> {
        None
    }

    /// `repr(t)`. The default shows the shape, dtype and device.
    fn repr(t: &Self::Tensor) -> String {
        let sizes = t
            .sizes()
            .map(|s| format!("{s:?}"))
            .unwrap_or_else(|_| "?".into());
        match t.options() {
            Ok(o) => format!(
                "tensor(shape={sizes}, dtype={}, device={})",
                o.dtype_or_default(),
                o.device_or_default()
            ),
            Err(_) => format!("tensor(shape={sizes})"),
        }
    }
}

/// A tensor of any [`PyTensor`] type, behind one trait object.
pub(crate) trait DynTensor: Send + Sync + 'static {
    fn as_any(&self) -> &dyn Any;
    fn sizes(&self) -> Result<Vec<i64>, Error>;
    fn strides(&self) -> Result<Vec<i64>, Error>;
    fn dtype(&self) -> Result<ScalarType, Error>;
    fn device(&self) -> Result<Device, Error>;
    fn version(&self) -> Result<u64, Error>;
    fn is_inference(&self) -> bool;
    fn item(&self) -> Result<Scalar, Error>;
    fn to_python<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
    fn repr(&self) -> String;
    fn autograd(&self) -> &dyn TensorAutograd;
    /// `Function.apply` for tensors of this binding.
    fn function_runner(&self) -> &'static dyn crate::function::FunctionRunner;
}

/// A tensor of the binding `B`.
pub(crate) struct Held<B: PyTensor>(pub B::Tensor);

impl<B: PyTensor> DynTensor for Held<B> {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        self.0.sizes()
    }
    fn strides(&self) -> Result<Vec<i64>, Error> {
        self.0.strides()
    }
    fn dtype(&self) -> Result<ScalarType, Error> {
        Ok(self.0.options()?.dtype_or_default())
    }
    fn device(&self) -> Result<Device, Error> {
        Ok(self.0.options()?.device_or_default())
    }
    fn version(&self) -> Result<u64, Error> {
        self.0.version()
    }
    fn is_inference(&self) -> bool {
        self.0.is_inference()
    }
    fn item(&self) -> Result<Scalar, Error> {
        B::item(&self.0)
    }
    fn to_python<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        B::to_python(&self.0, py)
    }
    fn repr(&self) -> String {
        B::repr(&self.0)
    }
    fn autograd(&self) -> &dyn TensorAutograd {
        self
    }
    fn function_runner(&self) -> &'static dyn crate::function::FunctionRunner {
        &crate::function::Runner::<B>(std::marker::PhantomData)
    }
}

/// A tensor (PyTorch's `torch.Tensor`): a handle, as the Rust tensor is; the operators are
/// its methods, added when the module is built.
#[pyclass(frozen, weakref, name = "Tensor", module = "opgen")]
pub struct TensorObject {
    pub(crate) inner: Box<dyn DynTensor>,
}

impl TensorObject {
    /// Wraps a tensor of the binding `B`.
    pub(crate) fn new<B: PyTensor>(tensor: B::Tensor) -> TensorObject {
        TensorObject {
            inner: Box::new(Held::<B>(tensor)),
        }
    }

    /// The tensor, if it is one of the binding `B`.
    pub(crate) fn get<B: PyTensor>(&self) -> Option<&B::Tensor> {
        self.inner.as_any().downcast_ref::<Held<B>>().map(|h| &h.0)
    }
}

fn dim_index(dim: i64, ndim: usize) -> PyResult<usize> {
    let n = ndim as i64;
    let wrapped = if dim < 0 { dim + n } else { dim };
    if wrapped < 0 || wrapped >= n.max(1) || n == 0 {
        return Err(pyo3::exceptions::PyIndexError::new_err(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n.max(1),
            n.max(1) - 1
        )));
    }
    Ok(wrapped as usize)
}

#[pymethods]
impl TensorObject {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn py_new(
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<Self> {
        Err(PyTypeError::new_err(
            "use tensor(data, dtype=None, device=None) to make a tensor",
        ))
    }

    /// The shape, as a tuple of ints.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.sizes().map_err(runtime_error)?)
    }

    /// The dtype object.
    #[getter]
    fn dtype(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        dtype_object(py, self.inner.dtype().map_err(runtime_error)?)
    }

    /// The device object.
    #[getter]
    fn device(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        device_object(py, self.inner.device().map_err(runtime_error)?)
    }

    /// The number of dimensions.
    #[getter]
    fn ndim(&self) -> PyResult<usize> {
        Ok(self.inner.sizes().map_err(runtime_error)?.len())
    }

    /// Whether the tensor is on the `meta` device.
    #[getter]
    fn is_meta(&self) -> PyResult<bool> {
        Ok(self.inner.device().map_err(runtime_error)?.kind
            == opgen_core::dispatch::DeviceType::Meta)
    }

    /// The version counter (bumped by in-place operators).
    #[getter]
    fn _version(&self) -> PyResult<u64> {
        self.inner.version().map_err(runtime_error)
    }

    /// `Tensor.is_inference()`: whether the tensor was made in inference mode (or is a view
    /// of one that was), for a type that supports inference tensors
    /// ([`Tensor::is_inference`](opgen_core::dispatch::Tensor::is_inference)).
    fn is_inference(&self) -> bool {
        self.inner.is_inference()
    }

    /// The number of dimensions.
    fn dim(&self) -> PyResult<usize> {
        self.ndim()
    }

    /// The shape, or the size of dimension `dim`.
    #[pyo3(signature = (dim = None))]
    fn size(&self, py: Python<'_>, dim: Option<i64>) -> PyResult<Py<PyAny>> {
        let sizes = self.inner.sizes().map_err(runtime_error)?;
        match dim {
            None => Ok(PyTuple::new(py, sizes)?.into_any().unbind()),
            Some(d) => Ok(sizes[dim_index(d, sizes.len())?]
                .into_pyobject(py)?
                .into_any()
                .unbind()),
        }
    }

    /// The strides, or the stride of dimension `dim`.
    #[pyo3(signature = (dim = None))]
    fn stride(&self, py: Python<'_>, dim: Option<i64>) -> PyResult<Py<PyAny>> {
        let strides = self.inner.strides().map_err(runtime_error)?;
        match dim {
            None => Ok(PyTuple::new(py, strides)?.into_any().unbind()),
            Some(d) => Ok(strides[dim_index(d, strides.len())?]
                .into_pyobject(py)?
                .into_any()
                .unbind()),
        }
    }

    /// The number of elements.
    fn numel(&self) -> PyResult<i64> {
        Ok(self.inner.sizes().map_err(runtime_error)?.iter().product())
    }

    /// The data as a Python object (a NumPy array, for most tensor types): a copy.
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        if self.inner.autograd().requires_grad() {
            return Err(PyRuntimeError::new_err(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
            ));
        }
        self.inner.to_python(py)
    }

    /// The data as nested Python lists.
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.inner.to_python(py)?.call_method0("tolist")
    }

    /// The value of a one-element tensor as a Python number.
    fn item(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let value = self.inner.item().map_err(runtime_error)?;
        crate::returns::scalar_object(py, value)
    }

    /// The tensor's repr, with `grad_fn=<MulBackward0>` or `requires_grad=True` as
    /// PyTorch's.
    fn __repr__(&self) -> String {
        let repr = self.inner.repr();
        let autograd = self.inner.autograd();
        let suffix = match autograd.grad_fn() {
            Some(node) => format!(", grad_fn=<{}>", node.node_name()),
            None if autograd.requires_grad() => ", requires_grad=True".to_string(),
            None => return repr,
        };
        match repr.strip_suffix(')') {
            Some(head) => format!("{head}{suffix})"),
            None => format!("{repr}{suffix}"),
        }
    }

    /// Whether the tensor requires grad; settable on a leaf.
    #[getter]
    fn get_requires_grad(&self) -> bool {
        self.inner.autograd().requires_grad()
    }

    #[setter]
    fn set_requires_grad(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if !value.is_instance_of::<pyo3::types::PyBool>() {
            return Err(PyRuntimeError::new_err("requires_grad must be a bool"));
        }
        self.inner
            .autograd()
            .set_requires_grad(value.is_truthy()?, true)
    }

    #[deleter]
    fn delete_requires_grad(&self) -> PyResult<()> {
        Err(PyRuntimeError::new_err("requires_grad must be a bool"))
    }

    /// Marks a leaf as requiring grad (or not), in place; returns the tensor.
    #[pyo3(signature = (requires_grad = true))]
    fn requires_grad_(slf: Bound<'_, Self>, requires_grad: bool) -> PyResult<Bound<'_, Self>> {
        slf.get()
            .inner
            .autograd()
            .set_requires_grad(requires_grad, false)?;
        Ok(slf)
    }

    /// Whether the tensor is a leaf (it has no `grad_fn`).
    #[getter]
    fn is_leaf(&self) -> bool {
        self.inner.autograd().is_leaf()
    }

    /// The accumulated gradient, `None` if there is none.
    #[getter]
    fn get_grad(&self, py: Python<'_>) -> PyResult<Option<TensorObject>> {
        self.inner.autograd().grad(py)
    }

    #[setter]
    fn set_grad(&self, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.autograd().set_grad(self, Some(value))
    }

    /// `del t.grad`: as `t.grad = None`.
    #[deleter]
    fn delete_grad(&self) -> PyResult<()> {
        self.inner.autograd().set_grad(self, None)
    }

    /// The node that computed the tensor (`None` for a leaf).
    #[getter]
    fn grad_fn(&self) -> Option<crate::graph::Node> {
        self.inner.autograd().grad_fn()
    }

    /// The tensor this one is a view of (`None` if it is not a view), as PyTorch's `_base`:
    /// a view of a view has the first tensor as its base.
    #[getter(_base)]
    fn base(&self) -> Option<TensorObject> {
        self.inner.autograd().base()
    }

    /// Whether the tensor is a view of another (it has a `_base`).
    fn _is_view(&self) -> bool {
        self.inner.autograd().is_view()
    }

    /// Whether a non-leaf keeps its gradient (`retain_grad()`).
    #[getter]
    fn retains_grad(&self) -> bool {
        self.inner.autograd().retains_grad()
    }

    /// Makes a non-leaf keep its gradient during `backward()`.
    fn retain_grad(&self) -> PyResult<()> {
        self.inner.autograd().retain_grad()
    }

    /// A tensor sharing this one's data, without its autograd history.
    fn detach(&self) -> PyResult<TensorObject> {
        self.inner.autograd().detach()
    }

    /// Registers `hook(grad)`, called with this tensor's gradient during backward; a tensor
    /// it returns replaces the gradient (`torch.Tensor.register_hook`).
    fn register_hook(&self, hook: &Bound<'_, PyAny>) -> PyResult<crate::hooks::RemovableHandle> {
        self.inner.autograd().register_hook(hook)
    }

    /// Accumulates the gradient of this tensor into the leaves of its graph
    /// (`torch.Tensor.backward`).
    #[pyo3(signature = (gradient = None, retain_graph = None, create_graph = false, inputs = None))]
    fn backward(
        &self,
        py: Python<'_>,
        gradient: Option<&Bound<'_, PyAny>>,
        retain_graph: Option<bool>,
        create_graph: bool,
        inputs: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.inner
            .autograd()
            .backward(py, gradient, retain_graph, create_graph, inputs)
    }

    fn __len__(&self) -> PyResult<usize> {
        match self.inner.sizes().map_err(runtime_error)?.first() {
            Some(n) => Ok(*n as usize),
            None => Err(PyTypeError::new_err("len() of a 0-d tensor")),
        }
    }

    fn __bool__(&self) -> PyResult<bool> {
        self.one_value("Boolean value of Tensor with more than one value is ambiguous")
            .map(|v| v.to_f64() != 0.0)
    }

    fn __float__(&self) -> PyResult<f64> {
        self.one_value("only one element tensors can be converted to Python scalars")
            .map(Scalar::to_f64)
    }

    fn __int__(&self) -> PyResult<i64> {
        let v = self.one_value("only one element tensors can be converted to Python scalars")?;
        Ok(v.to_i64().unwrap_or(v.to_f64() as i64))
    }
}

impl TensorObject {
    fn one_value(&self, many: &str) -> PyResult<Scalar> {
        let n: i64 = self.inner.sizes().map_err(runtime_error)?.iter().product();
        if n != 1 {
            return Err(PyRuntimeError::new_err(many.to_string()));
        }
        self.inner.item().map_err(runtime_error)
    }
}

/// The stub lines of the members defined here.
pub(crate) fn tensor_stub_lines() -> Vec<String> {
    [
        "@property\n    def shape(self) -> tuple[_int, ...]: ...",
        "@property\n    def dtype(self) -> dtype: ...",
        "@property\n    def device(self) -> device: ...",
        "@property\n    def ndim(self) -> _int: ...",
        "@property\n    def is_meta(self) -> _bool: ...",
        "@property\n    def _version(self) -> _int: ...",
        "def is_inference(self) -> _bool: ...",
        "def dim(self) -> _int: ...",
        "@overload\n    def size(self, dim: None = None) -> tuple[_int, ...]: ...\n    @overload\n    def size(self, dim: _int) -> _int: ...",
        "@overload\n    def stride(self, dim: None = None) -> tuple[_int, ...]: ...\n    @overload\n    def stride(self, dim: _int) -> _int: ...",
        "def numel(self) -> _int: ...",
        "def numpy(self) -> Any: ...",
        "def tolist(self) -> Any: ...",
        "def item(self) -> Number: ...",
        "def __len__(self) -> _int: ...",
        "def __bool__(self) -> _bool: ...",
        "def __float__(self) -> _float: ...",
        "def __int__(self) -> _int: ...",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}
