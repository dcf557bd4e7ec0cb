//! The operators' logic as plain Rust, independent of the dispatcher: for each operator a
//! **meta** function (checks, output shapes, dtypes and device: [`OutputMeta`]) and an
//! **impl** function (computes into outputs of those shapes). The registered kernels in
//! [`crate::ops`] call them.
//!
//! For the operators PyTorch makes structured (`structured: True` in
//! `native_functions.yaml`), the pair has the form of a structured kernel: the impl takes
//! the out operator's arguments, `out: &mut MiniTensor` last, and returns
//! `Result<(), Error>`; the meta takes the same arguments without `out` and returns one
//! [`OutputMeta`] per output. [`crate::ops::structured`] registers them as opgen structured
//! kernels (a `structured` meta function that passes the [`OutputMeta`]s to
//! `StructuredMeta::set_output`, and the impl); the other operators' kernels wire the pair
//! by hand ([`crate::ops::wiring`]).
//!
//! Impl functions run only on devices with data: the kernels skip them on `Meta`.

use opgen::prelude::*;

use crate::MiniTensor;

pub mod factory;
pub mod index;
pub mod join;
pub mod linalg;
pub mod masks;
pub mod pointwise;
pub mod reduce;
pub mod views;

/// The shape, dtype and device of one output of an operator: what a meta function
/// computes (a structured kernel's `set_output(i, sizes, options)`).
#[derive(Debug, Clone, PartialEq)]
pub struct OutputMeta {
    /// The output's sizes.
    pub sizes: Vec<i64>,
    /// Its dtype, layout (strided) and device, every field set.
    pub options: TensorOptions,
}

impl OutputMeta {
    /// An output of `sizes`, `dtype` on `device`.
    pub fn new(sizes: Vec<i64>, dtype: ScalarType, device: Device) -> OutputMeta {
        OutputMeta {
            sizes,
            options: TensorOptions::new()
                .dtype(dtype)
                .layout(Layout::Strided)
                .device(device),
        }
    }

    /// The output's dtype.
    pub fn dtype(&self) -> ScalarType {
        self.options.dtype_or_default()
    }

    /// The output's device.
    pub fn device(&self) -> Device {
        self.options.device_or_default()
    }

    /// A new (zero-filled) tensor of this shape, dtype and device.
    pub fn allocate(&self) -> Result<MiniTensor, Error> {
        MiniTensor::new_empty(&self.sizes, &self.options)
    }
}

/// The device all `tensors` are on; an error, worded as PyTorch's, if they differ.
pub fn common_device(tensors: &[&MiniTensor]) -> Result<Device, Error> {
    let mut device = None;
    for t in tensors {
        let d = t.device();
        match device {
            None => device = Some(d),
            Some(first) if first != d => {
                return Err(Error::from(format!(
                    "Expected all tensors to be on the same device, but found at least two \
                     devices, {first} and {d}!"
                )));
            }
            Some(_) => {}
        }
    }
    device.ok_or_else(|| Error::from("expected at least one tensor"))
}

/// Runs `$body` with the type alias `$E` bound to the Rust type of `$dtype`
/// (`f32`, `f64`, `i64` or `bool`).
macro_rules! with_dtype {
    ($dtype:expr, |$E:ident| $body:expr) => {
        match $dtype {
            ::opgen::dispatch::ScalarType::Float => {
                type $E = f32;
                $body
            }
            ::opgen::dispatch::ScalarType::Double => {
                type $E = f64;
                $body
            }
            ::opgen::dispatch::ScalarType::Long => {
                type $E = i64;
                $body
            }
            _ => {
                type $E = bool;
                $body
            }
        }
    };
}
pub(crate) use with_dtype;

/// Runs `$body` with `$E` bound to the Rust type of a numeric `$dtype` (`f32`, `f64`,
/// `i64`), or `$bool` for `Bool`.
macro_rules! with_numeric {
    ($dtype:expr, |$E:ident| $body:expr, bool => $bool:expr) => {
        match $dtype {
            ::opgen::dispatch::ScalarType::Float => {
                type $E = f32;
                $body
            }
            ::opgen::dispatch::ScalarType::Double => {
                type $E = f64;
                $body
            }
            ::opgen::dispatch::ScalarType::Long => {
                type $E = i64;
                $body
            }
            _ => $bool,
        }
    };
}
pub(crate) use with_numeric;

/// Arithmetic of the numeric element types (integers wrap, as in C++).
pub(crate) trait Num: crate::Element {
    const ZERO: Self;
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    fn mul(self, other: Self) -> Self;
    fn div(self, other: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    fn exp(self) -> Self;
}

macro_rules! float_num {
    ($t:ty) => {
        impl Num for $t {
            const ZERO: $t = 0.0;
            fn add(self, o: $t) -> $t {
                self + o
            }
            fn sub(self, o: $t) -> $t {
                self - o
            }
            fn mul(self, o: $t) -> $t {
                self * o
            }
            fn div(self, o: $t) -> $t {
                self / o
            }
            fn neg(self) -> $t {
                -self
            }
            fn abs(self) -> $t {
                self.abs()
            }
            fn exp(self) -> $t {
                self.exp()
            }
        }
    };
}
float_num!(f32);
float_num!(f64);

impl Num for i64 {
    const ZERO: i64 = 0;
    fn add(self, o: i64) -> i64 {
        self.wrapping_add(o)
    }
    fn sub(self, o: i64) -> i64 {
        self.wrapping_sub(o)
    }
    fn mul(self, o: i64) -> i64 {
        self.wrapping_mul(o)
    }
    fn div(self, o: i64) -> i64 {
        // Not reached: `div` is true division, computed in a floating type.
        if o == 0 { 0 } else { self.wrapping_div(o) }
    }
    fn neg(self) -> i64 {
        self.wrapping_neg()
    }
    fn abs(self) -> i64 {
        self.wrapping_abs()
    }
    fn exp(self) -> i64 {
        (self as f64).exp() as i64
    }
}

/// A total order for sorting and maxima, with NaN greater than every number (PyTorch's
/// `max`, `argmax` and `topk` propagate NaN as the largest value).
pub(crate) fn total_cmp<E: crate::Element>(a: E, b: E) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}
