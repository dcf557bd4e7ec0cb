//! Returns back to Python: tensors wrapped (the input's own object when the result is an
//! input, as PyTorch returns `self` from `t.add_(x)`), several returns as a tuple or, when all
//! are named, the operator's named tuple (`max(t, 0).values`).

use opgen_core::dispatch::{IValue, Scalar, Stack, Tensor as _};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyComplex, PyList, PyTuple, PyType};

use crate::tensor::{PyTensor, TensorObject};
use crate::values::{
    device_object, dtype_object, layout_object, memory_format_object, qscheme_object,
};

/// How a call's returns become one Python object.
pub(crate) enum Shape {
    /// No return: `None`.
    Nothing,
    /// One return: itself.
    One,
    /// Several: a tuple.
    Tuple,
    /// Several, all named: the named tuple type.
    Named(Py<PyType>),
}

/// The returns left on `stack` as one Python object. `inputs` are the tensor arguments with
/// their Python objects.
pub(crate) fn returns<B: PyTensor>(
    py: Python<'_>,
    stack: &mut Stack<B::Tensor>,
    shape: &Shape,
    inputs: &[(&Bound<'_, PyAny>, &B::Tensor)],
) -> PyResult<Py<PyAny>> {
    match shape {
        Shape::Nothing => Ok(py.None()),
        Shape::One => match stack.pop() {
            Some(v) => value::<B>(py, v, inputs),
            None => Ok(py.None()),
        },
        Shape::Tuple => tuple::<B>(py, stack, inputs).map(|t| t.into_any().unbind()),
        Shape::Named(ty) => {
            let items = tuple::<B>(py, stack, inputs)?;
            Ok(ty.bind(py).call1(items)?.unbind())
        }
    }
}

fn tuple<'py, B: PyTensor>(
    py: Python<'py>,
    stack: &mut Stack<B::Tensor>,
    inputs: &[(&Bound<'_, PyAny>, &B::Tensor)],
) -> PyResult<Bound<'py, PyTuple>> {
    let items = (stack.drain(..))
        .map(|v| value::<B>(py, v, inputs))
        .collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(py, items)
}

/// A tensor as a Python object: the input it is (by the tensor type's `is_same`), else a new
/// handle.
pub(crate) fn tensor<B: PyTensor>(
    py: Python<'_>,
    t: B::Tensor,
    inputs: &[(&Bound<'_, PyAny>, &B::Tensor)],
) -> PyResult<Py<PyAny>> {
    for (obj, input) in inputs {
        if t.is_same(input).unwrap_or(false) {
            return Ok((*obj).clone().unbind());
        }
    }
    Ok(Py::new(py, TensorObject::new::<B>(t))?.into_any())
}

/// A Python number.
pub(crate) fn scalar_object(py: Python<'_>, s: Scalar) -> PyResult<Py<PyAny>> {
    Ok(match s {
        Scalar::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Scalar::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Scalar::Float(f) => f.into_pyobject(py)?.into_any().unbind(),
        Scalar::Complex(c) => PyComplex::from_doubles(py, c.re, c.im).into_any().unbind(),
    })
}

fn value<B: PyTensor>(
    py: Python<'_>,
    v: IValue<B::Tensor>,
    inputs: &[(&Bound<'_, PyAny>, &B::Tensor)],
) -> PyResult<Py<PyAny>> {
    Ok(match v {
        IValue::Tensor(t) => return tensor::<B>(py, t, inputs),
        IValue::None => py.None(),
        IValue::Bool(b) => return scalar_object(py, Scalar::Bool(b)),
        IValue::Int(i) => return scalar_object(py, Scalar::Int(i)),
        IValue::Float(f) => return scalar_object(py, Scalar::Float(f)),
        IValue::Complex(c) => return scalar_object(py, Scalar::Complex(*c)),
        IValue::Str(s) => s.as_str().into_pyobject(py)?.into_any().unbind(),
        IValue::IntList(l) => PyTuple::new(py, l.iter())?.into_any().unbind(),
        IValue::FloatList(l) => PyTuple::new(py, l.iter())?.into_any().unbind(),
        IValue::BoolList(l) => PyTuple::new(py, l.iter())?.into_any().unbind(),
        IValue::ScalarList(l) => {
            let items = l
                .iter()
                .map(|s| scalar_object(py, *s))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
        IValue::TensorList(l) => {
            let items = (l.iter())
                .map(|t| tensor::<B>(py, t.clone(), inputs))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
        IValue::OptionalTensorList(l) => {
            let items = (l.iter())
                .map(|t| {
                    t.clone()
                        .map_or_else(|| Ok(py.None()), |t| tensor::<B>(py, t, inputs))
                })
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        IValue::ScalarType(d) => dtype_object(py, d)?,
        IValue::Layout(l) => layout_object(py, l)?,
        IValue::Device(d) => device_object(py, d)?,
        IValue::MemoryFormat(m) => memory_format_object(py, m)?,
        IValue::QScheme(q) => qscheme_object(py, q)?,
        IValue::Tuple(items) => {
            let items = (items.iter())
                .map(|v| value::<B>(py, v.clone(), inputs))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
        other => {
            return Err(PyTypeError::new_err(format!(
                "an operator returned a `{}`, which has no Python value",
                other.kind()
            )));
        }
    })
}
