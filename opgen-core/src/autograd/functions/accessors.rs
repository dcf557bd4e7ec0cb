//! What formulas read from tensors, scalars and lists (`self.sym_sizes()`, `grad.options()`,
//! `alpha.conj()`, `dim.back()`), the saved-value types `TypeAndSize` and `TensorGeometry`,
//! and C++'s arithmetic on `Scalar`s.

use crate::dispatch::{
    Complex, Error, Layout, MemoryFormat, Scalar, ScalarType, Tensor, TensorOptions,
};

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
    crate::autograd::is_differentiable_type(dtype) && !is_complex_type(dtype)
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
        super::ops::conj_op(t)
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
    /// The offset of the first element in the storage.
    pub storage_offset: i64,
}

impl TensorGeometry {
    /// The geometry of `t` (its [`Tensor::sizes`], [`Tensor::strides`] and
    /// [`Tensor::storage_offset`]).
    pub fn of<T: Tensor>(t: &T) -> Result<TensorGeometry, Error> {
        Ok(TensorGeometry {
            sizes: t.sizes()?,
            strides: t.strides()?,
            storage_offset: t.storage_offset()?,
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
    super::ops::zeros_o(sizes, options)
}

/// `t.is_contiguous()`: whether its strides are the row-major ones (size-1 dimensions
/// ignored).
pub fn is_contiguous<T: Tensor>(t: &T) -> Result<bool, Error> {
    let (shape, strides) = (t.sizes()?, t.strides()?);
    let mut expected = 1;
    for (&n, &s) in shape.iter().zip(&strides).rev() {
        if n == 0 {
            return Ok(true);
        }
        if n != 1 {
            if s != expected {
                return Ok(false);
            }
            expected *= n;
        }
    }
    Ok(true)
}

/// `list.back()`: the last element (C++ leaves an empty list undefined; this is an error).
pub fn back(list: &[i64]) -> Result<i64, Error> {
    list.last()
        .copied()
        .ok_or_else(|| Error::from("back() of an empty list in a derivative formula"))
}

/// `t.suggest_memory_format()`: `ChannelsLast` for a 4-D strided tensor whose strides are
/// those of NHWC, `ChannelsLast3d` for a 5-D one in NDHWC, else `Contiguous` (c10's
/// `is_channels_last_strides_2d`/`_3d` rules).
pub fn suggest_memory_format<T: Tensor>(t: &T) -> Result<MemoryFormat, Error> {
    if layout(t)? != Layout::Strided {
        return Ok(MemoryFormat::Contiguous);
    }
    let (sizes, strides) = (t.sizes()?, t.strides()?);
    Ok(match sizes.len() {
        4 if channels_last_strides(&sizes, &strides, &[1, 3, 2, 0]) => MemoryFormat::ChannelsLast,
        5 if channels_last_strides(&sizes, &strides, &[1, 4, 3, 2, 0]) => {
            MemoryFormat::ChannelsLast3d
        }
        _ => MemoryFormat::Contiguous,
    })
}

/// c10's `is_channels_last_strides_2d_s4`/`_3d_s5`: walking the dimensions from the
/// innermost of the channels-last order (`order`), each stride is at least the extent of
/// the previous one; a size-1 dimension does not decide; the batch dimension may not be
/// the innermost.
fn channels_last_strides(sizes: &[i64], strides: &[i64], order: &[usize]) -> bool {
    let mut min = 0;
    if strides[1] == 0 {
        return false;
    }
    for &d in order {
        if sizes[d] == 0 {
            return false;
        }
        if strides[d] < min {
            return false;
        }
        // The batch dimension of size 1 with the innermost stride (N11W) is not NHWC.
        if d == 0 && min == strides[1] {
            return false;
        }
        min = strides[d];
        if sizes[d] > 1 {
            min *= sizes[d];
        }
    }
    true
}

/// C++'s `a + b` on scalars: integers stay integers, a float or complex operand makes the
/// result one.
pub fn scalar_add(a: Scalar, b: Scalar) -> Scalar {
    scalar_arith(
        a,
        b,
        |x, y| x.wrapping_add(y),
        |x, y| x + y,
        |x, y| Complex {
            re: x.re + y.re,
            im: x.im + y.im,
        },
    )
}

/// C++'s `a - b` on scalars.
pub fn scalar_sub(a: Scalar, b: Scalar) -> Scalar {
    scalar_arith(
        a,
        b,
        |x, y| x.wrapping_sub(y),
        |x, y| x - y,
        |x, y| Complex {
            re: x.re - y.re,
            im: x.im - y.im,
        },
    )
}

/// C++'s `a * b` on scalars.
pub fn scalar_mul(a: Scalar, b: Scalar) -> Scalar {
    scalar_arith(
        a,
        b,
        |x, y| x.wrapping_mul(y),
        |x, y| x * y,
        |x, y| Complex {
            re: x.re * y.re - x.im * y.im,
            im: x.re * y.im + x.im * y.re,
        },
    )
}

/// C++'s `a / b` on scalars (integer division truncates, as C++'s).
pub fn scalar_div(a: Scalar, b: Scalar) -> Scalar {
    let int_div = |x: i64, y: i64| x.checked_div(y).unwrap_or(0);
    scalar_arith(
        a,
        b,
        int_div,
        |x, y| x / y,
        |x, y| {
            let d = y.re * y.re + y.im * y.im;
            Complex {
                re: (x.re * y.re + x.im * y.im) / d,
                im: (x.im * y.re - x.re * y.im) / d,
            }
        },
    )
}

/// C++'s `-a` on a scalar.
pub fn scalar_neg(a: Scalar) -> Scalar {
    scalar_sub(Scalar::Int(0), a)
}

fn scalar_arith(
    a: Scalar,
    b: Scalar,
    int: impl Fn(i64, i64) -> i64,
    float: impl Fn(f64, f64) -> f64,
    complex: impl Fn(Complex, Complex) -> Complex,
) -> Scalar {
    let as_complex = |s: Scalar| match s {
        Scalar::Complex(c) => c,
        other => Complex {
            re: other.to_f64(),
            im: 0.0,
        },
    };
    let as_int = |s: Scalar| match s {
        Scalar::Bool(b) => i64::from(b),
        Scalar::Int(i) => i,
        _ => 0,
    };
    match (a, b) {
        (Scalar::Complex(_), _) | (_, Scalar::Complex(_)) => {
            Scalar::Complex(complex(as_complex(a), as_complex(b)))
        }
        (Scalar::Float(_), _) | (_, Scalar::Float(_)) => {
            Scalar::Float(float(a.to_f64(), b.to_f64()))
        }
        _ => Scalar::Int(int(as_int(a), as_int(b))),
    }
}

/// `s.toComplexDouble()`: the scalar as a complex number.
pub fn to_complex_double(s: Scalar) -> Scalar {
    match s {
        Scalar::Complex(c) => Scalar::Complex(c),
        other => Scalar::Complex(Complex {
            re: other.to_f64(),
            im: 0.0,
        }),
    }
}

/// `s.equal(v)`: whether a scalar equals a number (a complex one only if its imaginary part
/// is 0).
pub(crate) fn scalar_equals(s: Scalar, v: f64) -> bool {
    match s {
        Scalar::Complex(c) => c.re == v && c.im == 0.0,
        other => other.to_f64() == v,
    }
}
