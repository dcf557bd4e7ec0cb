//! `MiniTensor` to and from NumPy arrays, keeping dtype and device.

use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use opgen::prelude::*;
use opgen_example::{Element, MiniTensor};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;

/// The binding of `MiniTensor` (a marker: the traits are implemented on it, as a crate may
/// not implement another crate's trait for a third crate's type).
pub struct Mini;

fn runtime(err: Error) -> PyErr {
    PyRuntimeError::new_err(err.to_string())
}

/// `tensor(data, dtype=, device=)`: a NumPy array keeps its dtype (`float64` stays
/// `float64`); Python numbers and lists take PyTorch's defaults (`float32` for floats,
/// `int64` for ints, `bool`).
pub(crate) fn from_python(
    data: &Bound<'_, PyAny>,
    dtype: Option<ScalarType>,
    device: Option<Device>,
) -> PyResult<MiniTensor> {
    let py = data.py();
    let np = py.import("numpy")?;
    let was_array = data.cast::<PyUntypedArray>().is_ok();
    let array = np.call_method1("asarray", (data,))?;
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    let itemsize: usize = array.getattr("dtype")?.getattr("itemsize")?.extract()?;
    let dtype = match (dtype, kind.as_str()) {
        (Some(d), _) => d,
        (None, "b") => ScalarType::Bool,
        (None, "i" | "u") => ScalarType::Long,
        (None, "f") if was_array && itemsize == 8 => ScalarType::Double,
        (None, "f") => ScalarType::Float,
        (None, other) => {
            return Err(PyTypeError::new_err(format!(
                "can't convert a NumPy array of kind '{other}'; MiniTensor holds bool, int64, float32 and float64"
            )));
        }
    };
    let device = device.unwrap_or(Device::CPU);
    let sizes: Vec<i64> = array
        .cast::<PyUntypedArray>()?
        .shape()
        .iter()
        .map(|&n| n as i64)
        .collect();
    if device.kind == opgen::dispatch::DeviceType::Meta {
        return MiniTensor::meta(&sizes, dtype).map_err(runtime);
    }
    match dtype {
        ScalarType::Bool => build::<bool>(&array, "bool", &sizes, device),
        ScalarType::Long => build::<i64>(&array, "int64", &sizes, device),
        ScalarType::Float => build::<f32>(&array, "float32", &sizes, device),
        ScalarType::Double => build::<f64>(&array, "float64", &sizes, device),
        other => Err(PyTypeError::new_err(format!(
            "MiniTensor supports the dtypes Bool, Long, Float and Double; got {other}"
        ))),
    }
}

fn build<E: Element + numpy::Element>(
    array: &Bound<'_, PyAny>,
    numpy_dtype: &str,
    sizes: &[i64],
    device: Device,
) -> PyResult<MiniTensor> {
    let converted = array.call_method1("astype", (numpy_dtype,))?;
    let typed = converted.cast::<PyArrayDyn<E>>()?.readonly();
    let values: Vec<E> = typed.as_array().iter().copied().collect();
    MiniTensor::from_vec_on(values, sizes, device).map_err(runtime)
}

/// `t.numpy()`: a copy of the data of a CPU tensor; other devices are refused as PyTorch
/// refuses them.
pub(crate) fn to_numpy<'py>(t: &MiniTensor, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
    if t.device() != Device::CPU {
        return Err(PyTypeError::new_err(format!(
            "can't convert {} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
            t.device()
        )));
    }
    let shape: Vec<usize> = t.shape().iter().map(|&n| n as usize).collect();
    Ok(match t.dtype() {
        ScalarType::Bool => array(py, t.to_vec::<bool>().map_err(runtime)?, shape)?,
        ScalarType::Long => array(py, t.to_vec::<i64>().map_err(runtime)?, shape)?,
        ScalarType::Float => array(py, t.to_vec::<f32>().map_err(runtime)?, shape)?,
        _ => array(py, t.to_vec::<f64>().map_err(runtime)?, shape)?,
    })
}

fn array<'py, E: numpy::Element>(
    py: Python<'py>,
    values: Vec<E>,
    shape: Vec<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyArray1::from_vec(py, values).reshape(shape)?.into_any())
}

/// `tensor([[1., 2.], [3., 4.]], dtype=opgen_example.float32)`, PyTorch's style; meta and
/// other devices show the device.
pub(crate) fn repr(t: &MiniTensor) -> String {
    let dtype = opgen_example_dtype(t.dtype());
    let dtype_suffix = match t.dtype() {
        ScalarType::Float | ScalarType::Long | ScalarType::Bool => String::new(),
        _ => format!(", dtype={dtype}"),
    };
    let device = t.device();
    if t.is_meta() {
        let dims: Vec<String> = t.shape().iter().map(i64::to_string).collect();
        let size = if dims.len() == 1 {
            format!("({},)", dims[0])
        } else {
            format!("({})", dims.join(", "))
        };
        return format!("tensor(..., device='meta', size={size}{dtype_suffix})");
    }
    let suffix = if device == Device::CPU {
        dtype_suffix
    } else {
        format!(", device='{device}'{dtype_suffix}")
    };
    let values: Vec<String> = match t.dtype() {
        ScalarType::Bool => t.to_vec::<bool>().map(|v| {
            v.iter()
                .map(|b| if *b { "True".into() } else { "False".into() })
                .collect()
        }),
        ScalarType::Long => t
            .to_vec::<i64>()
            .map(|v| v.iter().map(i64::to_string).collect()),
        _ => t.to_vec::<f64>().map(|v| {
            let whole = v.iter().all(|x| x.fract() == 0.0);
            v.iter().map(|x| float_text(*x, whole)).collect()
        }),
    }
    .unwrap_or_default();
    format!("tensor({}{suffix})", nested(&values, &t.shape()))
}

fn opgen_example_dtype(d: ScalarType) -> &'static str {
    match d {
        ScalarType::Bool => "opgen_example.bool",
        ScalarType::Long => "opgen_example.int64",
        ScalarType::Float => "opgen_example.float32",
        _ => "opgen_example.float64",
    }
}

/// PyTorch's style for moderate values: `1.` when every value is whole, else four decimals
/// (`2.7183`).
fn float_text(x: f64, whole: bool) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if whole {
        format!("{x:.0}.")
    } else {
        format!("{x:.4}")
    }
}

fn nested(values: &[String], shape: &[i64]) -> String {
    match shape.split_first() {
        None => values.first().cloned().unwrap_or_default(),
        Some((&n, rest)) => {
            let n = n.max(0) as usize;
            let chunk = values.len().checked_div(n).unwrap_or(0);
            let parts: Vec<String> = (0..n)
                .map(|i| nested(&values[i * chunk..(i + 1) * chunk], rest))
                .collect();
            format!("[{}]", parts.join(", "))
        }
    }
}
