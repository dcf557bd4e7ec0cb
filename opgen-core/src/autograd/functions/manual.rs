//! The backward helpers of PyTorch's `FunctionsManual.cpp` that the formulas of common
//! operators call, written over ATen operators.

use super::{aten, conj, is_complex, is_complex_type, scalar_conj, scalar_type, sizes, wrap_dim};
use crate::dispatch::{Error, Layout, Scalar, ScalarType, Tensor};

fn op1<T: Tensor>(name: &'static str, overload: &'static str, a: &T) -> Result<T, Error> {
    aten::<T, (&'static T,), T>(name, overload)?.try_call(a)
}

fn op2<T: Tensor>(name: &'static str, overload: &'static str, a: &T, b: &T) -> Result<T, Error> {
    aten::<T, (&'static T, &'static T), T>(name, overload)?.try_call(a, b)
}

fn op_scalar<T: Tensor>(
    name: &'static str,
    overload: &'static str,
    a: &T,
    s: Scalar,
) -> Result<T, Error> {
    aten::<T, (&'static T, Scalar), T>(name, overload)?.try_call(a, s)
}

fn op_int<T: Tensor>(
    name: &'static str,
    overload: &'static str,
    a: &T,
    i: i64,
) -> Result<T, Error> {
    aten::<T, (&'static T, i64), T>(name, overload)?.try_call(a, i)
}

fn expand<T: Tensor>(t: &T, size: &[i64]) -> Result<T, Error> {
    aten::<T, (&'static T, &'static [i64], bool), T>("expand", "")?.try_call(t, size, false)
}

fn mm<T: Tensor>(a: &T, b: &T) -> Result<T, Error> {
    op2("mm", "", a, b)
}

fn t<T: Tensor>(a: &T) -> Result<T, Error> {
    op1("t", "", a)
}

fn real<T: Tensor>(a: &T) -> Result<T, Error> {
    op1("real", "", a)
}

/// `t * s`, or `t` itself when `s` is 1 (`maybe_multiply`). Calls `aten::mul.Scalar`.
pub fn maybe_multiply<T: Tensor>(t: &T, s: Scalar) -> Result<T, Error> {
    let is_one = match s {
        Scalar::Float(f) => f == 1.0,
        Scalar::Int(i) => i == 1,
        Scalar::Bool(b) => b,
        Scalar::Complex(_) => false,
    };
    if is_one {
        Ok(t.clone())
    } else {
        op_scalar("mul", "Scalar", t, s)
    }
}

/// The real part of a complex `gradient` of a real input (`handle_r_to_c`). Calls
/// `aten::real` for complex gradients only.
pub fn handle_r_to_c<T: Tensor>(self_st: ScalarType, gradient: &T) -> Result<T, Error> {
    if !is_complex_type(self_st) && is_complex(gradient)? {
        return real(gradient);
    }
    Ok(gradient.clone())
}

/// `mul`'s derivative for a tensor `other`: `grad * other.conj()` (`mul_tensor_backward`).
pub fn mul_tensor_backward<T: Tensor>(
    grad: &T,
    other: &T,
    self_st: ScalarType,
) -> Result<T, Error> {
    handle_r_to_c(self_st, &op2("mul", "Tensor", grad, &conj(other)?)?)
}

/// `mul_tensor_backward` for a `Scalar` `other`.
pub fn mul_tensor_backward_scalar<T: Tensor>(
    grad: &T,
    other: Scalar,
    self_st: ScalarType,
) -> Result<T, Error> {
    handle_r_to_c(
        self_st,
        &op_scalar("mul", "Scalar", grad, scalar_conj(other))?,
    )
}

/// `div`'s derivative for `self`: `grad / other.conj()` (`div_tensor_self_backward`).
pub fn div_tensor_self_backward<T: Tensor>(
    grad: &T,
    other: &T,
    self_st: ScalarType,
) -> Result<T, Error> {
    handle_r_to_c(self_st, &op2("div", "Tensor", grad, &conj(other)?)?)
}

/// `div_tensor_self_backward` for a `Scalar` `other`.
pub fn div_tensor_self_backward_scalar<T: Tensor>(
    grad: &T,
    other: Scalar,
    self_st: ScalarType,
) -> Result<T, Error> {
    handle_r_to_c(
        self_st,
        &op_scalar("div", "Scalar", grad, scalar_conj(other))?,
    )
}

/// `div`'s derivative for `other`: `-grad * ((self / other) / other).conj()`
/// (`div_tensor_other_backward`).
pub fn div_tensor_other_backward<T: Tensor>(grad: &T, self_: &T, other: &T) -> Result<T, Error> {
    let quotient = op2("div", "Tensor", &op2("div", "Tensor", self_, other)?, other)?;
    let result = op2("mul", "Tensor", &op1("neg", "", grad)?, &conj(&quotient)?)?;
    handle_r_to_c(scalar_type(other)?, &result)
}

/// `clamp`'s derivative: `grad` where `min <= self <= max`, else 0 (`clamp_backward`).
/// Calls `aten::ge.Scalar`, `le.Scalar`, `logical_and`, `scalar_tensor`, `where.self`.
pub fn clamp_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<T, Error> {
    let mask = match (min, max) {
        (None, None) => return Ok(grad.clone()),
        (Some(lo), None) => op_scalar("ge", "Scalar", self_, lo)?,
        (None, Some(hi)) => op_scalar("le", "Scalar", self_, hi)?,
        (Some(lo), Some(hi)) => {
            let (ge, le) = (
                op_scalar("ge", "Scalar", self_, lo)?,
                op_scalar("le", "Scalar", self_, hi)?,
            );
            op2("logical_and", "", &ge, &le)?
        }
    };
    let zero = scalar_tensor(Scalar::Float(0.0), grad)?;
    aten::<T, (&'static T, &'static T, &'static T), T>("where", "self")?
        .try_call(&mask, grad, &zero)
}

/// `at::scalar_tensor(value, like.options())`.
fn scalar_tensor<T: Tensor>(value: Scalar, like: &T) -> Result<T, Error> {
    let (dtype, layout, device, pin) = like.options()?.into_parts();
    type Families = (
        Scalar,
        Option<ScalarType>,
        Option<crate::dispatch::Layout>,
        Option<crate::dispatch::Device>,
        Option<bool>,
    );
    aten::<T, Families, T>("scalar_tensor", "")?.try_call(value, dtype, layout, device, pin)
}

/// `t` with a dimension of size 1 inserted at each of `dims` (`unsqueeze_multiple`).
/// Calls `aten::unsqueeze`.
pub fn unsqueeze_multiple<T: Tensor>(
    t: &T,
    dims: Option<&[i64]>,
    n_dims: usize,
) -> Result<T, Error> {
    let dims = dims.unwrap_or(&[]);
    match dims {
        [] => return Ok(t.clone()),
        [d] => return op_int("unsqueeze", "", t, *d),
        _ => {}
    }
    let mut mask = vec![false; n_dims];
    for &d in dims {
        mask[wrap_dim(d, n_dims)?] = true;
    }
    let mut res = t.clone();
    for (i, _) in mask.iter().enumerate().filter(|(_, m)| **m) {
        res = op_int("unsqueeze", "", &res, i as i64)?;
    }
    Ok(res)
}

/// `sum`'s derivative: `grad` expanded back to `sizes` (`sum_backward`). Calls
/// `aten::unsqueeze` and `aten::expand`.
pub fn sum_backward<T: Tensor>(
    grad: &T,
    sizes: &[i64],
    dims: Option<&[i64]>,
    keepdim: bool,
) -> Result<T, Error> {
    if !keepdim && !sizes.is_empty() && dims.is_some_and(|d| !d.is_empty()) {
        return expand(&unsqueeze_multiple(grad, dims, sizes.len())?, sizes);
    }
    expand(grad, sizes)
}

/// The number of elements the dimensions `dims` of `sizes` hold (`_safe_size`).
fn safe_size(sizes: &[i64], dims: &[i64]) -> Result<i64, Error> {
    if sizes.is_empty() {
        return Ok(1);
    }
    dims.iter()
        .try_fold(1, |n, &d| Ok(n * sizes[wrap_dim(d, sizes.len())?]))
}

/// `mean`'s derivative: [`sum_backward`] divided by the number of elements averaged
/// (`mean_backward`). Calls `aten::div.Scalar` too.
pub fn mean_backward<T: Tensor>(
    grad: &T,
    shape: &[i64],
    dims: Option<&[i64]>,
    numel: i64,
    keepdim: bool,
) -> Result<T, Error> {
    let n = match dims {
        Some(d) if !d.is_empty() => safe_size(shape, d)?,
        _ => numel,
    };
    op_scalar(
        "div",
        "Scalar",
        &sum_backward(grad, shape, dims, keepdim)?,
        Scalar::Int(n),
    )
}

/// Whether `t` and the input's layout are strided (the column-major shortcut of `mm`'s
/// derivatives applies only then).
fn all_strided<T: Tensor>(t: &T, other: &T, layout: Layout) -> Result<bool, Error> {
    let strided = |x: &T| Ok::<_, Error>(super::layout(x)? == Layout::Strided);
    Ok(layout == Layout::Strided && strided(t)? && strided(other)?)
}

/// `mm`'s derivative for `mat1`: `grad.mm(mat2.t().conj())` times `alpha.conj()`, or the
/// column-major form for a column-major `mat1` (`mm_mat1_backward`). Calls `aten::mm`,
/// `aten::t`.
pub fn mm_mat1_backward<T: Tensor>(
    grad: &T,
    mat2: &T,
    mat1_sizes: &[i64],
    mat1_strides: &[i64],
    mat1_layout: Layout,
    alpha: Scalar,
) -> Result<T, Error> {
    let column_major =
        mat1_strides.first() == Some(&1) && mat1_strides.get(1) == mat1_sizes.first();
    if column_major && all_strided(grad, mat2, mat1_layout)? {
        return maybe_multiply(&t(&mm(&conj(mat2)?, &t(grad)?)?)?, scalar_conj(alpha));
    }
    maybe_multiply(&mm(grad, &conj(&t(mat2)?)?)?, scalar_conj(alpha))
}

/// `mm`'s derivative for `mat2`: `mat1.t().conj().mm(grad)` times `alpha.conj()`
/// (`mm_mat2_backward`). Calls `aten::mm`, `aten::t`.
pub fn mm_mat2_backward<T: Tensor>(
    grad: &T,
    mat1: &T,
    sizes: &[i64],
    strides: &[i64],
    layout: Layout,
    alpha: Scalar,
) -> Result<T, Error> {
    let column_major = strides.first() == Some(&1) && strides.get(1) == sizes.first();
    if column_major && all_strided(grad, mat1, layout)? {
        return maybe_multiply(&t(&mm(&t(grad)?, &conj(mat1)?)?)?, scalar_conj(alpha));
    }
    maybe_multiply(&mm(&conj(&t(mat1)?)?, grad)?, scalar_conj(alpha))
}

/// `matmul`'s derivatives, for the inputs `grad_input_mask` asks (`matmul_backward`): 1-D
/// operands are promoted to matrices as `matmul` does, broadcast batch dimensions are summed
/// back. Calls `aten::matmul`, `aten::transpose.int`, `aten::unsqueeze`, `aten::squeeze.dim`,
/// `aten::sum.dim_IntList`, `aten::view`.
pub fn matmul_backward<T: Tensor>(
    grad: Option<&T>,
    self_: &T,
    other: &T,
    grad_input_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    let Some(grad) = grad else {
        return Ok((None, None));
    };
    let (sd, od) = (sizes(self_)?.len(), sizes(other)?.len());
    // Promote 1-D operands as matmul does, then undo the promotion on the gradients.
    let a = if sd == 1 {
        op_int("unsqueeze", "", self_, 0)?
    } else {
        self_.clone()
    };
    let b = if od == 1 {
        op_int("unsqueeze", "", other, 1)?
    } else {
        other.clone()
    };
    let mut g = grad.clone();
    if sd == 1 {
        g = op_int("unsqueeze", "", &g, -2)?;
    }
    if od == 1 {
        g = op_int("unsqueeze", "", &g, -1)?;
    }
    let mt = |x: &T| aten::<T, (&'static T, i64, i64), T>("transpose", "int")?.try_call(x, -1, -2);
    let matmul = |x: &T, y: &T| op2("matmul", "", x, y);
    let mut grads = (None, None);
    if grad_input_mask[0] {
        let ga = matmul(&g, &conj(&mt(&b)?)?)?;
        let ga = if sd == 1 {
            op_int("squeeze", "dim", &ga, -2)?
        } else {
            ga
        };
        grads.0 = Some(sum_to(&ga, &sizes(self_)?)?);
    }
    if grad_input_mask[1] {
        let gb = matmul(&conj(&mt(&a)?)?, &g)?;
        let gb = if od == 1 {
            op_int("squeeze", "dim", &gb, -1)?
        } else {
            gb
        };
        grads.1 = Some(sum_to(&gb, &sizes(other)?)?);
    }
    Ok(grads)
}

/// `at::sum_to`: sums `t` over the dimensions it was broadcast along to reach its shape from
/// `shape`. Calls `aten::sum.dim_IntList` and `aten::view`.
pub fn sum_to<T: Tensor>(t: &T, shape: &[i64]) -> Result<T, Error> {
    let sizes = sizes(t)?;
    if sizes == shape {
        return Ok(t.clone());
    }
    if shape.is_empty() {
        return aten::<T, (&'static T, Option<ScalarType>), T>("sum", "")?.try_call(t, None);
    }
    let leading = sizes.len().saturating_sub(shape.len());
    let mut reduce: Vec<i64> = (0..leading as i64).collect();
    for i in leading..sizes.len() {
        if shape[i - leading] == 1 && sizes[i] != 1 {
            reduce.push(i as i64);
        }
    }
    let mut out = t.clone();
    if !reduce.is_empty() {
        out = aten::<T, (&'static T, Option<&'static [i64]>, bool, Option<ScalarType>), T>(
            "sum",
            "dim_IntList",
        )?
        .try_call(&out, Some(&reduce), true, None)?;
    }
    if leading > 0 {
        out = aten::<T, (&'static T, &'static [i64]), T>("view", "")?.try_call(&out, shape)?;
    }
    Ok(out)
}

/// `max.dim`'s (and `topk`'s) derivative: `grad` scattered into zeros of `sizes` at
/// `indices` along `dim` (`value_selecting_reduction_backward`). Calls `aten::zeros`,
/// `aten::unsqueeze`, `aten::scatter.src`.
pub fn value_selecting_reduction_backward<T: Tensor>(
    grad: &T,
    dim: i64,
    indices: &T,
    sizes: &[i64],
    keepdim: bool,
) -> Result<T, Error> {
    let zeros: T = super::zeros(sizes, grad.options()?)?;
    let (index, src) = if keepdim {
        (indices.clone(), grad.clone())
    } else {
        (
            op_int("unsqueeze", "", indices, dim)?,
            op_int("unsqueeze", "", grad, dim)?,
        )
    };
    aten::<T, (&'static T, i64, &'static T, &'static T), T>("scatter", "src")?
        .try_call(&zeros, dim, &index, &src)
}

/// `cat`'s derivative: the slices of `grad` along `dim`, one per input, real parts for real
/// inputs (`cat_tensors_backward`). Calls `aten::narrow`, `aten::real`, `aten::zeros`.
pub fn cat_tensors_backward<T: Tensor>(
    grad: Option<&T>,
    sizes: &[Vec<i64>],
    dtypes: &[ScalarType],
    dim: i64,
) -> Result<Vec<Option<T>>, Error> {
    let Some(grad) = grad else {
        return Ok(vec![None; sizes.len()]);
    };
    // `legacy_cat_wrap_dim`: the first input that is not an empty 1-D tensor sets the rank.
    let rank = (sizes.iter())
        .find(|s| s.as_slice() != [0])
        .map_or(1, Vec::len);
    let dim = wrap_dim(dim, rank)?;
    let complex = is_complex(grad)?;
    let real_grad = if complex { Some(real(grad)?) } else { None };
    let mut start = 0;
    let mut out = Vec::with_capacity(sizes.len());
    for (shape, dtype) in sizes.iter().zip(dtypes) {
        let g = match &real_grad {
            Some(r) if !is_complex_type(*dtype) => r,
            _ => grad,
        };
        if shape.as_slice() == [0] {
            out.push(Some(super::zeros(&[0], g.options()?)?));
            continue;
        }
        let n = shape[dim];
        let narrow = aten::<T, (&'static T, i64, i64, i64), T>("narrow", "")?;
        out.push(Some(narrow.try_call(g, dim as i64, start, n)?));
        start += n;
    }
    Ok(out)
}

/// `stack`'s derivative: `grad.select(dim, i)` for each input, real parts for real inputs
/// (`stack_tensors_backward`). Calls `aten::select.int`, `aten::real`.
pub fn stack_tensors_backward<T: Tensor>(
    grad: Option<&T>,
    dim: i64,
    dtypes: &[ScalarType],
) -> Result<Vec<Option<T>>, Error> {
    let Some(grad) = grad else {
        return Ok(vec![None; dtypes.len()]);
    };
    let complex = is_complex(grad)?;
    let select = aten::<T, (&'static T, i64, i64), T>("select", "int")?;
    (dtypes.iter().enumerate())
        .map(|(i, dtype)| {
            let g = select.try_call(grad, dim, i as i64)?;
            Ok(Some(if complex && !is_complex_type(*dtype) {
                real(&g)?
            } else {
                g
            }))
        })
        .collect()
}
