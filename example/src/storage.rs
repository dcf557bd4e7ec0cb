//! Typed storage, the element types, and the strided reads and writes every kernel uses.

use std::fmt::Debug;
use std::sync::{Arc, PoisonError, RwLock};

use opgen::dispatch::DeviceType;
use opgen::prelude::*;

use crate::shape::{broadcast_strides, element_offsets};

/// A Rust type that a [`MiniTensor`](crate::MiniTensor) element can be read as or written
/// from: `f32` (`Float`), `f64` (`Double`), `i64` (`Long`) and `bool` (`Bool`). Conversions
/// between them are C casts, as PyTorch's: a float truncates toward zero into an integer,
/// and anything non-zero is `true`.
pub trait Element: Copy + PartialOrd + Debug + Send + Sync + 'static + private::Sealed {
    /// The dtype of tensors holding this type.
    const DTYPE: ScalarType;
    /// As `f64`.
    fn to_f64(self) -> f64;
    /// As `i64` (floats truncate toward zero, saturating).
    fn to_i64(self) -> i64;
    /// As `bool` (non-zero is `true`).
    fn to_bool(self) -> bool;
    /// Converts from another element type.
    fn cast<E: Element>(value: E) -> Self;
    /// Converts from a `Scalar` (the real part of a complex).
    fn from_scalar(value: Scalar) -> Self {
        match value {
            Scalar::Bool(b) => Self::cast(b),
            Scalar::Int(i) => Self::cast(i),
            Scalar::Float(f) => Self::cast(f),
            Scalar::Complex(c) => Self::cast(c.re),
        }
    }
    /// Whether the value is a NaN.
    fn is_nan(self) -> bool {
        self.partial_cmp(&self).is_none()
    }
    #[doc(hidden)]
    fn slice(buf: &Buffer) -> Option<&[Self]>;
    #[doc(hidden)]
    fn slice_mut(buf: &mut Buffer) -> Option<&mut [Self]>;
    #[doc(hidden)]
    fn into_buffer(values: Vec<Self>) -> Buffer;
}

mod private {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for i64 {}
    impl Sealed for bool {}
}

macro_rules! element {
    ($ty:ty, $dtype:ident, $variant:ident, |$x:ident| $f64:expr, $i64:expr, $bool:expr, |$v:ident| $cast:expr) => {
        impl Element for $ty {
            const DTYPE: ScalarType = ScalarType::$dtype;
            fn to_f64(self) -> f64 {
                let $x = self;
                $f64
            }
            fn to_i64(self) -> i64 {
                let $x = self;
                $i64
            }
            fn to_bool(self) -> bool {
                let $x = self;
                $bool
            }
            fn cast<E: Element>($v: E) -> Self {
                $cast
            }
            fn slice(buf: &Buffer) -> Option<&[Self]> {
                match buf {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(buf: &mut Buffer) -> Option<&mut [Self]> {
                match buf {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn into_buffer(values: Vec<Self>) -> Buffer {
                Buffer::$variant(values)
            }
        }
    };
}

element!(
    f32,
    Float,
    F32,
    |x| f64::from(x),
    x as i64,
    x != 0.0,
    |v| v.to_f64() as f32
);
element!(f64, Double, F64, |x| x, x as i64, x != 0.0, |v| v.to_f64());
element!(i64, Long, I64, |x| x as f64, x, x != 0, |v| v.to_i64());
element!(
    bool,
    Bool,
    Bool,
    |x| f64::from(u8::from(x)),
    i64::from(x),
    x,
    |v| v.to_bool()
);

/// The elements of a storage; a `Meta` storage has a length but no data.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum Buffer {
    /// `Float` data.
    F32(Vec<f32>),
    /// `Double` data.
    F64(Vec<f64>),
    /// `Long` data.
    I64(Vec<i64>),
    /// `Bool` data.
    Bool(Vec<bool>),
    /// No data: the length of a `Meta` storage.
    Meta(usize),
}

impl Buffer {
    /// `len` zeros of `dtype` (or a meta buffer).
    fn zeros(dtype: ScalarType, len: usize, meta: bool) -> Buffer {
        match dtype {
            _ if meta => Buffer::Meta(len),
            ScalarType::Float => Buffer::F32(vec![0.0; len]),
            ScalarType::Double => Buffer::F64(vec![0.0; len]),
            ScalarType::Bool => Buffer::Bool(vec![false; len]),
            _ => Buffer::I64(vec![0; len]),
        }
    }

    fn len(&self) -> usize {
        match self {
            Buffer::F32(v) => v.len(),
            Buffer::F64(v) => v.len(),
            Buffer::I64(v) => v.len(),
            Buffer::Bool(v) => v.len(),
            Buffer::Meta(n) => *n,
        }
    }

    /// Grows to `len` elements (new ones zero); never shrinks.
    fn grow(&mut self, len: usize) {
        match self {
            Buffer::F32(v) if v.len() < len => v.resize(len, 0.0),
            Buffer::F64(v) if v.len() < len => v.resize(len, 0.0),
            Buffer::I64(v) if v.len() < len => v.resize(len, 0),
            Buffer::Bool(v) if v.len() < len => v.resize(len, false),
            Buffer::Meta(n) if *n < len => *n = len,
            _ => {}
        }
    }
}

/// A tensor's storage: shared by a tensor and its views, typed, on one device.
pub(crate) struct Storage {
    pub dtype: ScalarType,
    pub device: Device,
    buf: RwLock<Buffer>,
}

impl Storage {
    /// A zero-filled storage of `len` elements (no data on `Meta`).
    pub fn zeros(dtype: ScalarType, device: Device, len: usize) -> Arc<Storage> {
        let meta = device.kind == DeviceType::Meta;
        Arc::new(Storage {
            dtype,
            device,
            buf: RwLock::new(Buffer::zeros(dtype, len, meta)),
        })
    }

    /// A storage holding `values` on `device` (which must hold data).
    pub fn from_vec<E: Element>(values: Vec<E>, device: Device) -> Arc<Storage> {
        Arc::new(Storage {
            dtype: E::DTYPE,
            device,
            buf: RwLock::new(E::into_buffer(values)),
        })
    }

    pub fn is_meta(&self) -> bool {
        self.device.kind == DeviceType::Meta
    }

    pub fn len(&self) -> usize {
        self.buf
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Grows the storage to at least `len` elements, in place (views see the new size).
    pub fn grow(&self, len: usize) {
        self.buf
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .grow(len);
    }

    /// The elements at `offsets`, converted to `E`.
    pub fn read<E: Element>(&self, offsets: &[usize]) -> Result<Vec<E>, Error> {
        let buf = self.buf.read().unwrap_or_else(PoisonError::into_inner);
        fn pick<S: Element, E: Element>(v: &[S], offsets: &[usize]) -> Result<Vec<E>, Error> {
            offsets
                .iter()
                .map(|&o| v.get(o).map(|&x| E::cast(x)).ok_or_else(out_of_bounds))
                .collect()
        }
        match &*buf {
            Buffer::F32(v) => pick(v, offsets),
            Buffer::F64(v) => pick(v, offsets),
            Buffer::I64(v) => pick(v, offsets),
            Buffer::Bool(v) => pick(v, offsets),
            Buffer::Meta(_) => Err(no_data()),
        }
    }

    /// Writes `values` (converted to the storage's dtype) at `offsets`.
    pub fn write<E: Element>(&self, offsets: &[usize], values: &[E]) -> Result<(), Error> {
        if offsets.len() != values.len() {
            return Err(Error::from(format!(
                "internal: writing {} values into {} elements",
                values.len(),
                offsets.len()
            )));
        }
        let mut buf = self.buf.write().unwrap_or_else(PoisonError::into_inner);
        fn put<D: Element, E: Element>(
            v: &mut [D],
            offsets: &[usize],
            values: &[E],
        ) -> Result<(), Error> {
            for (&o, &x) in offsets.iter().zip(values) {
                *v.get_mut(o).ok_or_else(out_of_bounds)? = D::cast(x);
            }
            Ok(())
        }
        match &mut *buf {
            Buffer::F32(v) => put(v, offsets, values),
            Buffer::F64(v) => put(v, offsets, values),
            Buffer::I64(v) => put(v, offsets, values),
            Buffer::Bool(v) => put(v, offsets, values),
            Buffer::Meta(_) => Err(no_data()),
        }
    }
}

fn out_of_bounds() -> Error {
    Error::from("internal: element offset outside the storage")
}

/// The error of reading a meta tensor's values.
pub(crate) fn no_data() -> Error {
    Error::from("Cannot copy out of meta tensor; no data!")
}

/// The geometry of a tensor's elements in its storage.
#[derive(Clone)]
pub(crate) struct Geometry {
    pub sizes: Vec<i64>,
    pub strides: Vec<i64>,
    pub offset: i64,
    pub storage: Arc<Storage>,
}

impl Geometry {
    /// The values, in row-major order of the indices, read as if broadcast to `shape`.
    pub fn broadcast_values<E: Element>(&self, shape: &[i64]) -> Result<Vec<E>, Error> {
        let strides = broadcast_strides(&self.sizes, &self.strides, shape)?;
        self.storage
            .read(&element_offsets(shape, &strides, self.offset))
    }

    /// Writes `values` (row-major order of the indices) into the elements.
    pub fn scatter<E: Element>(&self, values: &[E]) -> Result<(), Error> {
        self.storage.write(
            &element_offsets(&self.sizes, &self.strides, self.offset),
            values,
        )
    }
}
