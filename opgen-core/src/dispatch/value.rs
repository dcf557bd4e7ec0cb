//! The value types of schemas that are not tensors: `Scalar`, `ScalarType`, `Layout`,
//! `Device`, `MemoryFormat`, `QScheme`, and the opaque handles `Generator`, `Storage`,
//! `Stream`, plus `Dimname`.

use std::any::Any;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// A complex number of two `f64`s.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Complex {
    /// The real part.
    pub re: f64,
    /// The imaginary part.
    pub im: f64,
}

/// A number of any dtype: the schema type `Scalar` (`Scalar alpha=1`).
///
/// ```
/// use opgen_core::dispatch::Scalar;
/// assert_eq!(Scalar::from(2), Scalar::Int(2));
/// assert_eq!(Scalar::Float(0.5).to_f64(), 0.5);
/// assert_eq!(Scalar::Bool(true).to_string(), "True");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A complex number.
    Complex(Complex),
}

impl Scalar {
    /// The value as `f64` (the real part of a complex; 1.0 or 0.0 for a bool).
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => f64::from(u8::from(b)),
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
            Scalar::Complex(c) => c.re,
        }
    }

    /// The value as `i64`, if it is a bool or an integer.
    pub fn to_i64(self) -> Option<i64> {
        match self {
            Scalar::Bool(b) => Some(i64::from(b)),
            Scalar::Int(i) => Some(i),
            Scalar::Float(_) | Scalar::Complex(_) => None,
        }
    }
}

impl From<bool> for Scalar {
    fn from(v: bool) -> Scalar {
        Scalar::Bool(v)
    }
}
impl From<i64> for Scalar {
    fn from(v: i64) -> Scalar {
        Scalar::Int(v)
    }
}
impl From<i32> for Scalar {
    fn from(v: i32) -> Scalar {
        Scalar::Int(v.into())
    }
}
impl From<f64> for Scalar {
    fn from(v: f64) -> Scalar {
        Scalar::Float(v)
    }
}
impl From<Complex> for Scalar {
    fn from(v: Complex) -> Scalar {
        Scalar::Complex(v)
    }
}

impl fmt::Display for Scalar {
    /// Python's spelling: `True`, `1`, `0.5`, `(1+2j)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Bool(true) => f.write_str("True"),
            Scalar::Bool(false) => f.write_str("False"),
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => write!(f, "{x:?}"),
            Scalar::Complex(c) => write!(f, "({:?}{:+?}j)", c.re, c.im),
        }
    }
}

/// Defines a fieldless enum with its c10 name, extra accepted spellings, and `FromStr`.
macro_rules! named_enum {
    ($(#[doc = $doc:literal])* $name:ident { $($(#[doc = $vdoc:literal])* $variant:ident = [$($alias:literal),*],)* }) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(non_camel_case_types)] // c10's names, such as `Float8_e5m2`
        pub enum $name {
            $($(#[doc = $vdoc])* $variant,)*
        }

        impl $name {
            /// Every value.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The name c10 gives the value.
            pub const fn name(self) -> &'static str {
                match self { $($name::$variant => stringify!($variant),)* }
            }

            /// The value written `name`: c10's name or PyTorch's Python spelling.
            pub fn from_name(name: &str) -> Option<$name> {
                match name {
                    $(stringify!($variant) $(| $alias)* => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<$name, String> {
                $name::from_name(s).ok_or_else(|| format!(
                    concat!("unknown ", stringify!($name), " `{}`; expected one of {}"),
                    s,
                    $name::ALL.iter().map(|v| format!("`{}`", v.name())).collect::<Vec<_>>().join(", "),
                ))
            }
        }
    };
}

named_enum! {
    /// A tensor element type (the schema type `ScalarType`; `long` in a default is `Long`).
    ScalarType {
        /// `uint8`.
        Byte = ["uint8"],
        /// `int8`.
        Char = ["int8"],
        /// `int16`.
        Short = ["int16", "short"],
        /// `int32`.
        Int = ["int32", "int"],
        /// `int64`.
        Long = ["int64", "long"],
        /// `float16`.
        Half = ["float16", "half"],
        /// `float32`.
        Float = ["float32", "float"],
        /// `float64`.
        Double = ["float64", "double"],
        /// `complex32`.
        ComplexHalf = ["complex32", "chalf"],
        /// `complex64`.
        ComplexFloat = ["complex64", "cfloat"],
        /// `complex128`.
        ComplexDouble = ["complex128", "cdouble"],
        /// `bool`.
        Bool = ["bool"],
        /// `qint8`.
        QInt8 = ["qint8"],
        /// `quint8`.
        QUInt8 = ["quint8"],
        /// `qint32`.
        QInt32 = ["qint32"],
        /// `bfloat16`.
        BFloat16 = ["bfloat16"],
        /// `quint4x2`.
        QUInt4x2 = ["quint4x2"],
        /// `quint2x4`.
        QUInt2x4 = ["quint2x4"],
        /// `float8_e5m2`.
        Float8_e5m2 = ["float8_e5m2"],
        /// `float8_e4m3fn`.
        Float8_e4m3fn = ["float8_e4m3fn"],
        /// `float8_e5m2fnuz`.
        Float8_e5m2fnuz = ["float8_e5m2fnuz"],
        /// `float8_e4m3fnuz`.
        Float8_e4m3fnuz = ["float8_e4m3fnuz"],
        /// `uint16`.
        UInt16 = ["uint16"],
        /// `uint32`.
        UInt32 = ["uint32"],
        /// `uint64`.
        UInt64 = ["uint64"],
    }
}

named_enum! {
    /// How a tensor's elements are laid out (the schema type `Layout`).
    Layout {
        /// Dense, with strides.
        Strided = ["strided"],
        /// Sparse COO.
        Sparse = ["sparse_coo"],
        /// Compressed sparse rows.
        SparseCsr = ["sparse_csr"],
        /// MKL-DNN's opaque layout.
        Mkldnn = ["_mkldnn"],
        /// Compressed sparse columns.
        SparseCsc = ["sparse_csc"],
        /// Blocked compressed sparse rows.
        SparseBsr = ["sparse_bsr"],
        /// Blocked compressed sparse columns.
        SparseBsc = ["sparse_bsc"],
        /// Jagged (nested) layout.
        Jagged = ["jagged"],
    }
}

named_enum! {
    /// The memory format requested of a result (the schema type `MemoryFormat`).
    MemoryFormat {
        /// Row-major contiguous (`contiguous_format`).
        Contiguous = ["contiguous_format"],
        /// Keep the input's format (`preserve_format`).
        Preserve = ["preserve_format"],
        /// NHWC (`channels_last`).
        ChannelsLast = ["channels_last"],
        /// NDHWC (`channels_last_3d`).
        ChannelsLast3d = ["channels_last_3d"],
    }
}

named_enum! {
    /// A quantization scheme (the schema type `QScheme`).
    QScheme {
        /// `per_tensor_affine`.
        PerTensorAffine = ["per_tensor_affine"],
        /// `per_channel_affine`.
        PerChannelAffine = ["per_channel_affine"],
        /// `per_tensor_symmetric`.
        PerTensorSymmetric = ["per_tensor_symmetric"],
        /// `per_channel_symmetric`.
        PerChannelSymmetric = ["per_channel_symmetric"],
        /// `per_channel_affine_float_qparams`.
        PerChannelAffineFloatQParams = ["per_channel_affine_float_qparams"],
    }
}

named_enum! {
    /// The kind of a device; `Display` gives c10's name, [`Device`] prints the Python one.
    DeviceType {
        /// `cpu`.
        CPU = ["cpu"],
        /// `cuda`.
        CUDA = ["cuda"],
        /// `mps`.
        MPS = ["mps"],
        /// `xpu`.
        XPU = ["xpu"],
        /// `hpu`.
        HPU = ["hpu"],
        /// `mtia`.
        MTIA = ["mtia"],
        /// `meta`.
        Meta = ["meta"],
        /// The first user backend (`privateuseone`).
        PrivateUse1 = ["privateuseone"],
        /// `hip` (AMD ROCm).
        HIP = ["hip"],
        /// `xla`.
        XLA = ["xla"],
        /// `lazy` (lazy tensors).
        Lazy = ["lazy"],
        /// `ipu` (Graphcore).
        IPU = ["ipu"],
        /// `ve` (NEC SX-Aurora).
        VE = ["ve"],
        /// `maia`.
        MAIA = ["maia"],
        /// `fpga`.
        FPGA = ["fpga"],
        /// `vulkan`.
        Vulkan = ["vulkan"],
        /// `metal`.
        Metal = ["metal"],
    }
}

/// A device index (the schema type `DeviceIndex`).
pub type DeviceIndex = i8;

/// A device: a kind and an optional index (the schema type `Device`).
///
/// ```
/// use opgen_core::dispatch::{Device, DeviceType};
/// let d: Device = "cuda:1".parse().unwrap();
/// assert_eq!(d, Device { kind: DeviceType::CUDA, index: Some(1) });
/// assert_eq!(d.to_string(), "cuda:1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Device {
    /// The kind of device.
    pub kind: DeviceType,
    /// The index, if one was given.
    pub index: Option<DeviceIndex>,
}

impl Device {
    /// The CPU device.
    pub const CPU: Device = Device {
        kind: DeviceType::CPU,
        index: None,
    };
}

impl DeviceType {
    /// The name PyTorch prints in device strings (`cpu`, `cuda`, `privateuseone`): the first
    /// spelling [`DeviceType::from_name`] accepts besides c10's.
    ///
    /// ```
    /// use opgen_core::dispatch::DeviceType;
    /// assert_eq!(DeviceType::PrivateUse1.python_name(), "privateuseone");
    /// assert_eq!(DeviceType::XLA.python_name(), "xla");
    /// ```
    pub const fn python_name(self) -> &'static str {
        match self {
            DeviceType::CPU => "cpu",
            DeviceType::CUDA => "cuda",
            DeviceType::MPS => "mps",
            DeviceType::XPU => "xpu",
            DeviceType::HPU => "hpu",
            DeviceType::MTIA => "mtia",
            DeviceType::Meta => "meta",
            DeviceType::PrivateUse1 => "privateuseone",
            DeviceType::HIP => "hip",
            DeviceType::XLA => "xla",
            DeviceType::Lazy => "lazy",
            DeviceType::IPU => "ipu",
            DeviceType::VE => "ve",
            DeviceType::MAIA => "maia",
            DeviceType::FPGA => "fpga",
            DeviceType::Vulkan => "vulkan",
            DeviceType::Metal => "metal",
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.kind.python_name();
        match self.index {
            Some(i) => write!(f, "{name}:{i}"),
            None => f.write_str(name),
        }
    }
}

impl FromStr for Device {
    type Err = String;
    /// Parses `cpu`, `cuda:0`, `privateuseone:1`.
    fn from_str(s: &str) -> Result<Device, String> {
        let (kind, index) = match s.split_once(':') {
            Some((kind, index)) => {
                let index = index
                    .parse::<DeviceIndex>()
                    .ok()
                    .filter(|i| *i >= 0)
                    .ok_or_else(|| {
                        format!("invalid device index in `{s}`; expected `0` to `127`")
                    })?;
                (kind, Some(index))
            }
            None => (s, None),
        };
        let kind = DeviceType::from_name(&kind.to_ascii_lowercase())
            .ok_or_else(|| format!("unknown device `{s}`; expected e.g. `cpu` or `cuda:0`"))?;
        Ok(Device { kind, index })
    }
}

macro_rules! opaque_handle {
    ($(#[doc = $doc:literal])* $name:ident) => {
        $(#[doc = $doc])*
        // The `Box` keeps the handle one word wide (an `Arc<dyn Any>` is two), so that it
        // fits in an `IValue` without a further box.
        #[derive(Clone)]
        pub struct $name(Arc<Box<dyn Any + Send + Sync>>);

        impl $name {
            /// Wraps a backend's own object.
            pub fn new(inner: impl Any + Send + Sync) -> $name {
                $name(Arc::new(Box::new(inner)))
            }

            /// The wrapped object, if it is a `V`.
            pub fn downcast_ref<V: Any>(&self) -> Option<&V> {
                (**self.0).downcast_ref()
            }

            /// Whether both handles refer to the same object.
            pub fn ptr_eq(&self, other: &$name) -> bool {
                Arc::ptr_eq(&self.0, &other.0)
            }
        }

        impl PartialEq for $name {
            /// Handles are equal when they refer to the same object.
            fn eq(&self, other: &$name) -> bool {
                self.ptr_eq(other)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:p})"), Arc::as_ptr(&self.0).cast::<()>())
            }
        }
    };
}

opaque_handle! {
    /// A random number generator (the schema type `Generator`): an opaque, cloneable handle
    /// to a backend's generator object; clones share it.
    ///
    /// ```
    /// use opgen_core::dispatch::Generator;
    /// let g = Generator::new(42u64);
    /// assert_eq!(g.clone().downcast_ref::<u64>(), Some(&42));
    /// assert_eq!(g, g.clone());
    /// ```
    Generator
}

opaque_handle! {
    /// A tensor's storage (the schema type `Storage`): an opaque, cloneable handle.
    Storage
}

/// A stream on a device (the schema type `Stream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stream {
    /// The device the stream belongs to.
    pub device: Device,
    /// The stream's id on that device.
    pub id: i64,
}

/// A dimension name (PyTorch's `Dimname`, used by named-tensor operators).
///
/// No schema type of the corpus maps to it; it exists so that boxed values can carry one.
// `Arc<String>` rather than `Arc<str>`: one word, so that it fits in an `IValue`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Dimname(Arc<String>);

impl Dimname {
    /// A dimension name.
    pub fn new(name: &str) -> Dimname {
        Dimname(Arc::new(name.to_string()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Dimname {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_parse_c10_and_python_names() {
        assert_eq!(ScalarType::from_name("long"), Some(ScalarType::Long));
        assert_eq!("Long".parse::<ScalarType>(), Ok(ScalarType::Long));
        assert_eq!(
            MemoryFormat::from_name("contiguous_format"),
            Some(MemoryFormat::Contiguous)
        );
        assert_eq!(Layout::from_name("sparse_coo"), Some(Layout::Sparse));
        let err = "wide".parse::<MemoryFormat>().unwrap_err();
        assert!(
            err.starts_with("unknown MemoryFormat `wide`; expected one of `Contiguous`"),
            "{err}"
        );
    }

    #[test]
    fn devices_parse_and_print() {
        assert_eq!("cpu".parse::<Device>(), Ok(Device::CPU));
        let d: Device = "privateuseone:2".parse().unwrap();
        assert_eq!(d.to_string(), "privateuseone:2");
        assert!(
            "cuda:x"
                .parse::<Device>()
                .unwrap_err()
                .contains("invalid device index")
        );
        assert!(
            "tpu"
                .parse::<Device>()
                .unwrap_err()
                .starts_with("unknown device `tpu`")
        );
    }

    #[test]
    fn scalars_print_like_python() {
        assert_eq!(Scalar::Int(-3).to_string(), "-3");
        assert_eq!(Scalar::Float(1.0).to_string(), "1.0");
        assert_eq!(
            Scalar::Complex(Complex { re: 1.0, im: -2.0 }).to_string(),
            "(1.0-2.0j)"
        );
        assert_eq!(Scalar::Float(2.5).to_i64(), None);
    }

    #[test]
    fn handles_compare_by_identity() {
        let a = Storage::new(1u8);
        let b = Storage::new(1u8);
        assert!(a == a.clone() && a != b);
        assert!(format!("{a:?}").starts_with("Storage(0x"));
    }
}
