//! The Python objects of the value types: `dtype`, `device`, `layout`, `memory_format`,
//! `qscheme`, with one object per value (`float32 is float`), as PyTorch's.

use std::sync::OnceLock;

use opgen_core::dispatch::{Device, DeviceType, Layout, MemoryFormat, QScheme, ScalarType};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;

/// The module name objects print with (`opgen_example.float32`), set once by the first
/// module built.
static PACKAGE: OnceLock<String> = OnceLock::new();

pub(crate) fn set_package(name: &str) {
    let _ = PACKAGE.set(name.to_string());
}

pub(crate) fn package() -> &'static str {
    PACKAGE.get().map_or("opgen", String::as_str)
}

/// PyTorch's Python names of each dtype: the first is its `repr`, the others aliases.
pub(crate) const DTYPE_NAMES: [(ScalarType, &[&str]); 25] = [
    (ScalarType::Byte, &["uint8"]),
    (ScalarType::Char, &["int8"]),
    (ScalarType::Short, &["int16", "short"]),
    (ScalarType::Int, &["int32", "int"]),
    (ScalarType::Long, &["int64", "long"]),
    (ScalarType::Half, &["float16", "half"]),
    (ScalarType::Float, &["float32", "float"]),
    (ScalarType::Double, &["float64", "double"]),
    (ScalarType::ComplexHalf, &["complex32", "chalf"]),
    (ScalarType::ComplexFloat, &["complex64", "cfloat"]),
    (ScalarType::ComplexDouble, &["complex128", "cdouble"]),
    (ScalarType::Bool, &["bool"]),
    (ScalarType::QInt8, &["qint8"]),
    (ScalarType::QUInt8, &["quint8"]),
    (ScalarType::QInt32, &["qint32"]),
    (ScalarType::BFloat16, &["bfloat16"]),
    (ScalarType::QUInt4x2, &["quint4x2"]),
    (ScalarType::QUInt2x4, &["quint2x4"]),
    (ScalarType::Float8_e5m2, &["float8_e5m2"]),
    (ScalarType::Float8_e4m3fn, &["float8_e4m3fn"]),
    (ScalarType::Float8_e5m2fnuz, &["float8_e5m2fnuz"]),
    (ScalarType::Float8_e4m3fnuz, &["float8_e4m3fnuz"]),
    (ScalarType::UInt16, &["uint16"]),
    (ScalarType::UInt32, &["uint32"]),
    (ScalarType::UInt64, &["uint64"]),
];

const LAYOUT_NAMES: [(Layout, &str); 8] = [
    (Layout::Strided, "strided"),
    (Layout::Sparse, "sparse_coo"),
    (Layout::SparseCsr, "sparse_csr"),
    (Layout::Mkldnn, "_mkldnn"),
    (Layout::SparseCsc, "sparse_csc"),
    (Layout::SparseBsr, "sparse_bsr"),
    (Layout::SparseBsc, "sparse_bsc"),
    (Layout::Jagged, "jagged"),
];

const MEMORY_FORMAT_NAMES: [(MemoryFormat, &str); 4] = [
    (MemoryFormat::Contiguous, "contiguous_format"),
    (MemoryFormat::Preserve, "preserve_format"),
    (MemoryFormat::ChannelsLast, "channels_last"),
    (MemoryFormat::ChannelsLast3d, "channels_last_3d"),
];

const QSCHEME_NAMES: [(QScheme, &str); 5] = [
    (QScheme::PerTensorAffine, "per_tensor_affine"),
    (QScheme::PerChannelAffine, "per_channel_affine"),
    (QScheme::PerTensorSymmetric, "per_tensor_symmetric"),
    (QScheme::PerChannelSymmetric, "per_channel_symmetric"),
    (
        QScheme::PerChannelAffineFloatQParams,
        "per_channel_affine_float_qparams",
    ),
];

/// A tensor element type (PyTorch's `torch.dtype`).
#[pyclass(frozen, name = "dtype", module = "opgen")]
pub struct PyDtype {
    pub(crate) value: ScalarType,
    name: &'static str,
}

#[pymethods]
impl PyDtype {
    fn __repr__(&self) -> String {
        format!("{}.{}", package(), self.name)
    }

    /// Whether the dtype is a floating-point type.
    #[getter]
    fn is_floating_point(&self) -> bool {
        use ScalarType as S;
        matches!(
            self.value,
            S::Half
                | S::Float
                | S::Double
                | S::BFloat16
                | S::Float8_e5m2
                | S::Float8_e4m3fn
                | S::Float8_e5m2fnuz
                | S::Float8_e4m3fnuz
        )
    }

    /// Whether the dtype is a complex type.
    #[getter]
    fn is_complex(&self) -> bool {
        matches!(
            self.value,
            ScalarType::ComplexHalf | ScalarType::ComplexFloat | ScalarType::ComplexDouble
        )
    }
}

/// A device (PyTorch's `torch.device`): `device("cpu")`, `device("cuda", 1)`,
/// `device("cuda:1")`.
#[pyclass(frozen, eq, hash, name = "device", module = "opgen")]
#[derive(PartialEq, Eq, Hash)]
pub struct PyDevice {
    pub(crate) value: Device,
}

#[pymethods]
impl PyDevice {
    #[new]
    #[pyo3(signature = (r#type, index = None))]
    fn new(r#type: &Bound<'_, PyAny>, index: Option<i64>) -> PyResult<PyDevice> {
        let device = if let Ok(i) = r#type.extract::<i64>() {
            device_of_index(i)?
        } else {
            let text: String = r#type.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "device() received an invalid combination of arguments - got ({})",
                    type_name(r#type)
                ))
            })?;
            parse_device(&text)?
        };
        let device = match index {
            None => device,
            Some(_) if device.index.is_some() => {
                return Err(PyRuntimeError::new_err(
                    "type (string) must not include an index because index was passed explicitly",
                ));
            }
            Some(i) => Device {
                index: Some(index_of(i)?),
                ..device
            },
        };
        Ok(PyDevice { value: device })
    }

    fn __repr__(&self) -> String {
        let d = self.value;
        match d.index {
            Some(i) => format!("device(type='{}', index={i})", kind_name(d.kind)),
            None => format!("device(type='{}')", kind_name(d.kind)),
        }
    }

    fn __str__(&self) -> String {
        self.value.to_string()
    }

    /// The device type (`cpu`, `cuda`, `meta`, `privateuseone`).
    #[getter]
    fn r#type(&self) -> &'static str {
        kind_name(self.value.kind)
    }

    /// The index, if one was given.
    #[getter]
    fn index(&self) -> Option<i8> {
        self.value.index
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

fn kind_name(kind: DeviceType) -> &'static str {
    kind.python_name()
}

fn index_of(i: i64) -> PyResult<i8> {
    if i < 0 {
        return Err(PyRuntimeError::new_err(format!(
            "Device index must not be negative, got {i}"
        )));
    }
    i8::try_from(i).map_err(|_| PyRuntimeError::new_err(format!("Device index {i} is too large")))
}

/// `device(0)`: an accelerator index (CUDA here, as PyTorch without another accelerator).
fn device_of_index(i: i64) -> PyResult<Device> {
    Ok(Device {
        kind: DeviceType::CUDA,
        index: Some(index_of(i)?),
    })
}

/// A device string, with PyTorch's message for a bad one.
pub(crate) fn parse_device(text: &str) -> PyResult<Device> {
    text.parse::<Device>().map_err(|_| {
        PyRuntimeError::new_err(format!(
            "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {text}"
        ))
    })
}

/// A memory layout (PyTorch's `torch.layout`).
#[pyclass(frozen, name = "layout", module = "opgen")]
pub struct PyLayout {
    pub(crate) value: Layout,
    name: &'static str,
}

#[pymethods]
impl PyLayout {
    fn __repr__(&self) -> String {
        format!("{}.{}", package(), self.name)
    }
}

/// A memory format (PyTorch's `torch.memory_format`).
#[pyclass(frozen, name = "memory_format", module = "opgen")]
pub struct PyMemoryFormat {
    pub(crate) value: MemoryFormat,
    name: &'static str,
}

#[pymethods]
impl PyMemoryFormat {
    fn __repr__(&self) -> String {
        format!("{}.{}", package(), self.name)
    }
}

/// A quantization scheme (PyTorch's `torch.qscheme`).
#[pyclass(frozen, name = "qscheme", module = "opgen")]
pub struct PyQScheme {
    pub(crate) value: QScheme,
    name: &'static str,
}

#[pymethods]
impl PyQScheme {
    fn __repr__(&self) -> String {
        format!("{}.{}", package(), self.name)
    }
}

/// The one object of each value.
struct Singletons {
    dtypes: Vec<(ScalarType, Py<PyDtype>)>,
    layouts: Vec<(Layout, Py<PyLayout>)>,
    memory_formats: Vec<(MemoryFormat, Py<PyMemoryFormat>)>,
    qschemes: Vec<(QScheme, Py<PyQScheme>)>,
}

static SINGLETONS: PyOnceLock<Singletons> = PyOnceLock::new();

fn singletons(py: Python<'_>) -> PyResult<&Singletons> {
    SINGLETONS.get_or_try_init(py, || {
        let dtypes = (DTYPE_NAMES.iter())
            .map(|(v, names)| {
                Ok((
                    *v,
                    Py::new(
                        py,
                        PyDtype {
                            value: *v,
                            name: names[0],
                        },
                    )?,
                ))
            })
            .collect::<PyResult<_>>()?;
        let layouts = (LAYOUT_NAMES.iter())
            .map(|(v, name)| Ok((*v, Py::new(py, PyLayout { value: *v, name })?)))
            .collect::<PyResult<_>>()?;
        let memory_formats = (MEMORY_FORMAT_NAMES.iter())
            .map(|(v, name)| Ok((*v, Py::new(py, PyMemoryFormat { value: *v, name })?)))
            .collect::<PyResult<_>>()?;
        let qschemes = (QSCHEME_NAMES.iter())
            .map(|(v, name)| Ok((*v, Py::new(py, PyQScheme { value: *v, name })?)))
            .collect::<PyResult<_>>()?;
        Ok(Singletons {
            dtypes,
            layouts,
            memory_formats,
            qschemes,
        })
    })
}

fn lookup<V: PartialEq, P>(table: &[(V, Py<P>)], value: V, py: Python<'_>) -> PyResult<Py<PyAny>> {
    (table.iter())
        .find(|(v, _)| *v == value)
        .map(|(_, p)| p.clone_ref(py).into_any())
        .ok_or_else(|| {
            PyRuntimeError::new_err("opgen-python internal error: a value without its object")
        })
}

/// The object of a dtype.
pub(crate) fn dtype_object(py: Python<'_>, v: ScalarType) -> PyResult<Py<PyAny>> {
    lookup(&singletons(py)?.dtypes, v, py)
}

/// The object of a layout.
pub(crate) fn layout_object(py: Python<'_>, v: Layout) -> PyResult<Py<PyAny>> {
    lookup(&singletons(py)?.layouts, v, py)
}

/// The object of a memory format.
pub(crate) fn memory_format_object(py: Python<'_>, v: MemoryFormat) -> PyResult<Py<PyAny>> {
    lookup(&singletons(py)?.memory_formats, v, py)
}

/// The object of a quantization scheme.
pub(crate) fn qscheme_object(py: Python<'_>, v: QScheme) -> PyResult<Py<PyAny>> {
    lookup(&singletons(py)?.qschemes, v, py)
}

/// A device object.
pub(crate) fn device_object(py: Python<'_>, v: Device) -> PyResult<Py<PyAny>> {
    Ok(Py::new(py, PyDevice { value: v })?.into_any())
}

/// Adds the classes and the named values (`float32`, `float`, `strided`,
/// `contiguous_format`, ...) to `module`.
pub(crate) fn add_values(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add_class::<PyDtype>()?;
    module.add_class::<PyDevice>()?;
    module.add_class::<PyLayout>()?;
    module.add_class::<PyMemoryFormat>()?;
    module.add_class::<PyQScheme>()?;
    for class in ["dtype", "device", "layout", "memory_format", "qscheme"] {
        module.getattr(class)?.setattr("__module__", package())?;
    }
    let s = singletons(py)?;
    for (v, names) in DTYPE_NAMES {
        for name in names {
            module.add(*name, dtype_object(py, v)?)?;
        }
    }
    for (v, p) in &s.layouts {
        let _ = v;
        module.add(p.get().name, p.clone_ref(py))?;
    }
    for (_, p) in &s.memory_formats {
        module.add(p.get().name, p.clone_ref(py))?;
    }
    for (_, p) in &s.qschemes {
        module.add(p.get().name, p.clone_ref(py))?;
    }
    Ok(())
}

/// The stub lines of what [`add_values`] adds.
pub(crate) fn value_stub_lines() -> Vec<String> {
    let mut lines = vec![
        "class dtype:\n    @property\n    def is_floating_point(self) -> _bool: ...\n    @property\n    def is_complex(self) -> _bool: ...".to_string(),
        "class device:\n    def __init__(self, type: Union[str, _int], index: Optional[_int] = None) -> None: ...\n    @property\n    def type(self) -> str: ...\n    @property\n    def index(self) -> Optional[_int]: ...".to_string(),
        "class layout: ...".to_string(),
        "class memory_format: ...".to_string(),
        "class qscheme: ...".to_string(),
        "class Generator: ...".to_string(),
        "class Storage: ...".to_string(),
        "class Stream: ...".to_string(),
        "_dtype = dtype\n_device = device\n_layout = layout\n_qscheme = qscheme".to_string(),
        "Number = Union[_int, _float, _bool]\nSymInt = _int\n_size = Sequence[_int]\nDeviceLikeType = Union[str, device, _int]".to_string(),
    ];
    for (_, names) in DTYPE_NAMES {
        lines.extend(names.iter().map(|n| format!("{n}: dtype")));
    }
    lines.extend(LAYOUT_NAMES.iter().map(|(_, n)| format!("{n}: layout")));
    lines.extend(
        MEMORY_FORMAT_NAMES
            .iter()
            .map(|(_, n)| format!("{n}: memory_format")),
    );
    lines.extend(QSCHEME_NAMES.iter().map(|(_, n)| format!("{n}: qscheme")));
    lines
}
