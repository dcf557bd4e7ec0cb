//! The helper functions PyTorch's derivative formulas call (`FunctionsManual.cpp`:
//! `maybe_multiply`, `handle_r_to_c`, `sum_backward`, ...), in Rust, generic over the tensor
//! type: they call ATen operators (`aten::mul.Tensor`, ...) of the tensor type through the
//! global dispatcher, so they work for any library that defines those operators (each
//! helper's documentation names the ones it calls). Translated formulas call them, and so can
//! hand-written backward functions.
//!
//! The [`accessors`](self#accessors) read what a formula reads from a tensor
//! (`self.sym_sizes()`, `grad.options()`) through the [`Tensor`] hooks.

mod manual;
mod table;
#[cfg(test)]
mod tests;

use std::any::{Any, TypeId};
use std::cell::RefCell;

use crate::dispatch::{
    ArgList, Dispatcher, Error, Layout, RetValue, Scalar, ScalarType, Tensor, TensorOptions,
    TypedOperator,
};

pub use manual::*;
pub use table::{HELPERS, Helper, HelperParam};

/// Typed handles by (type of the signature, name, overload).
type OpCache = rustc_hash::FxHashMap<(TypeId, &'static str, &'static str), Box<dyn Any>>;

thread_local! {
    static OPS: RefCell<OpCache> = RefCell::new(Default::default());
}

/// The typed handle of `aten::name.overload` for tensor type `T` with argument families `L`
/// and returns `R`, looked up in [`Dispatcher::global`] once per thread.
///
/// # Errors
/// The operator does not exist or has another signature.
pub fn aten<T: Tensor, L: ArgList<T>, R: RetValue<T>>(
    name: &'static str,
    overload: &'static str,
) -> Result<TypedOperator<T, L, R>, Error> {
    let key = (TypeId::of::<(T, L, R)>(), name, overload);
    let cached = OPS.with(|ops| {
        (ops.borrow().get(&key))
            .and_then(|op| op.downcast_ref::<TypedOperator<T, L, R>>())
            .cloned()
    });
    if let Some(op) = cached {
        return Ok(op);
    }
    let op = Dispatcher::global()
        .find(&format!("aten::{name}"), overload)?
        .typed_families::<T, L, R>()?;
    OPS.with(|ops| ops.borrow_mut().insert(key, Box::new(op.clone())));
    Ok(op)
}

// # Accessors

/// `t.sym_sizes()`.
pub fn sizes<T: Tensor>(t: &T) -> Result<Vec<i64>, Error> {
    t.sizes()
}

/// `t.sym_size(dim)`, `dim` wrapped as PyTorch wraps it.
pub fn size<T: Tensor>(t: &T, dim: i64) -> Result<i64, Error> {
    let s = t.sizes()?;
    Ok(s[wrap_dim(dim, s.len())?])
}

/// `t.dim()`.
pub fn dim<T: Tensor>(t: &T) -> Result<i64, Error> {
    Ok(t.sizes()?.len() as i64)
}

/// `t.sym_numel()`.
pub fn numel<T: Tensor>(t: &T) -> Result<i64, Error> {
    Ok(t.sizes()?.iter().product())
}

/// `t.sym_strides()`.
pub fn strides<T: Tensor>(t: &T) -> Result<Vec<i64>, Error> {
    t.strides()
}

/// `t.options()`.
pub fn options<T: Tensor>(t: &T) -> Result<TensorOptions, Error> {
    t.options()
}

/// `t.scalar_type()`.
pub fn scalar_type<T: Tensor>(t: &T) -> Result<ScalarType, Error> {
    Ok(t.options()?.dtype_or_default())
}

/// `t.layout()`.
pub fn layout<T: Tensor>(t: &T) -> Result<Layout, Error> {
    Ok(t.options()?.layout_or_default())
}

/// `t.is_complex()`.
pub fn is_complex<T: Tensor>(t: &T) -> Result<bool, Error> {
    Ok(is_complex_type(scalar_type(t)?))
}

/// `at::isComplexType`.
pub fn is_complex_type(dtype: ScalarType) -> bool {
    matches!(
        dtype,
        ScalarType::ComplexHalf | ScalarType::ComplexFloat | ScalarType::ComplexDouble
    )
}

/// `at::isFloatingType`.
pub fn is_floating_type(dtype: ScalarType) -> bool {
    super::is_differentiable_type(dtype) && !is_complex_type(dtype)
}

/// `*opt`, `opt.value()`: the value of an optional a formula needs set (C++'s
/// `bad_optional_access` otherwise).
pub fn value<V>(v: Option<V>) -> Result<V, Error> {
    v.ok_or_else(|| {
        Error::from("bad optional access: a formula read an optional value that is not set")
    })
}

/// A tensor a formula needs defined (C++ passes an undefined tensor on; the operators called
/// with it would fail).
pub fn defined<T>(t: Option<&T>) -> Result<&T, Error> {
    t.ok_or_else(|| Error::from("a formula passed an undefined tensor where a tensor is needed"))
}

/// `t.conj()`: the tensor itself unless it is complex (then `aten::conj`).
pub fn conj<T: Tensor>(t: &T) -> Result<T, Error> {
    if is_complex(t)? {
        aten::<T, (&'static T,), T>("conj", "")?.try_call(t)
    } else {
        Ok(t.clone())
    }
}

/// `s.conj()` of a `Scalar`.
pub fn scalar_conj(s: Scalar) -> Scalar {
    match s {
        Scalar::Complex(c) => Scalar::Complex(crate::dispatch::Complex {
            re: c.re,
            im: -c.im,
        }),
        other => other,
    }
}

/// A dimension wrapped into `0..ndim` (PyTorch's `maybe_wrap_dim`; a scalar counts as one
/// dimension).
///
/// # Errors
/// PyTorch's "Dimension out of range" message.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize, Error> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(Error::from(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n,
            n - 1
        )));
    }
    Ok(if dim < 0 {
        (dim + n) as usize
    } else {
        dim as usize
    })
}

/// The shape and options of a tensor, saved instead of the tensor where a formula only makes
/// zeros like it (`zeros_like(self)` → `self_info.zeros()`; PyTorch's `TypeAndSize`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeAndSize {
    /// The shape.
    pub sizes: Vec<i64>,
    /// The options.
    pub options: TensorOptions,
}

impl TypeAndSize {
    /// The shape and options of `t`.
    pub fn of<T: Tensor>(t: &T) -> Result<TypeAndSize, Error> {
        Ok(TypeAndSize {
            sizes: t.sizes()?,
            options: t.options()?,
        })
    }

    /// Zeros of that shape and options (`aten::zeros`).
    pub fn zeros<T: Tensor>(&self) -> Result<T, Error> {
        zeros(&self.sizes, self.options)
    }
}

/// The sizes, strides and storage offset of a tensor (PyTorch's `TensorGeometry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorGeometry {
    /// The shape.
    pub sizes: Vec<i64>,
    /// The strides.
    pub strides: Vec<i64>,
}

impl TensorGeometry {
    /// The geometry of `t`.
    pub fn of<T: Tensor>(t: &T) -> Result<TensorGeometry, Error> {
        Ok(TensorGeometry {
            sizes: t.sizes()?,
            strides: t.strides()?,
        })
    }
}

/// `to_args_sizes(tensors)`: the shape of each tensor.
pub fn to_args_sizes<T: Tensor>(tensors: &[T]) -> Result<Vec<Vec<i64>>, Error> {
    tensors.iter().map(Tensor::sizes).collect()
}

/// `to_args_scalartypes(tensors)`: the dtype of each tensor.
pub fn to_args_scalartypes<T: Tensor>(tensors: &[T]) -> Result<Vec<ScalarType>, Error> {
    tensors.iter().map(scalar_type).collect()
}

/// `aten::zeros(sizes, options)`.
pub fn zeros<T: Tensor>(sizes: &[i64], options: TensorOptions) -> Result<T, Error> {
    let (dtype, layout, device, pin) = options.into_parts();
    type Families = (
        &'static [i64],
        Option<ScalarType>,
        Option<Layout>,
        Option<crate::dispatch::Device>,
        Option<bool>,
    );
    aten::<T, Families, T>("zeros", "")?.try_call(sizes, dtype, layout, device, pin)
}
