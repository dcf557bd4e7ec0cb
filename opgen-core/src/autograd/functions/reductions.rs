//! Derivatives of reductions: sums and means, selections of extreme values, products,
//! variances, log-sum-exps and cumulative operators.

use super::accessors::{is_complex, wrap_dim};
use super::ops::*;
use super::{conj, numel, options, sizes};
use crate::autograd::is_grad_enabled;
use crate::dispatch::{Error, Scalar, ScalarType, Tensor};

/// `t` with a dimension of size 1 inserted at each of `dims` (`unsqueeze_multiple`).
pub fn unsqueeze_multiple<T: Tensor>(t: &T, dims: Option<&[i64]>, n_dims: i64) -> Result<T, Error> {
    let dims = dims.unwrap_or(&[]);
    match dims {
        [] => return Ok(t.clone()),
        [d] => return unsqueeze(t, *d),
        _ => {}
    }
    let n =
        usize::try_from(n_dims).map_err(|_| Error::from("unsqueeze_multiple: negative rank"))?;
    let mut mask = vec![false; n];
    for &d in dims {
        let d = wrap_dim(d, n)?;
        if mask[d] {
            return Err(Error::from(format!(
                "dim {d} appears multiple times in the list of dims"
            )));
        }
        mask[d] = true;
    }
    let mut res = t.clone();
    for (i, _) in mask.iter().enumerate().filter(|(_, m)| **m) {
        res = unsqueeze(&res, i as i64)?;
    }
    Ok(res)
}

/// `sum`'s derivative: `grad` expanded back to `sizes`, the reduced dimensions restored
/// first unless kept (`sum_backward`).
pub fn sum_backward<T: Tensor>(
    grad: &T,
    sizes: &[i64],
    dims: Option<&[i64]>,
    keepdim: bool,
) -> Result<T, Error> {
    if !keepdim && !sizes.is_empty() && dims.is_some_and(|d| !d.is_empty()) {
        return expand(&unsqueeze_multiple(grad, dims, sizes.len() as i64)?, sizes);
    }
    expand(grad, sizes)
}

/// The number of elements the dimensions `dims` of `sizes` hold (`_safe_size`).
pub(crate) fn safe_size(sizes: &[i64], dims: &[i64]) -> Result<i64, Error> {
    if sizes.is_empty() {
        return Ok(1);
    }
    dims.iter()
        .try_fold(1, |n, &d| Ok(n * sizes[wrap_dim(d, sizes.len())?]))
}

/// `mean`'s derivative: [`sum_backward`] divided by the number of elements averaged
/// (`mean_backward`).
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
    div_n(&sum_backward(grad, shape, dims, keepdim)?, n)
}

/// `at::sum_to`: `t` summed over the dimensions it was broadcast along from `shape`.
pub fn sum_to<T: Tensor>(t: &T, shape: &[i64]) -> Result<T, Error> {
    let sizes = sizes(t)?;
    if sizes == shape {
        return Ok(t.clone());
    }
    if shape.is_empty() {
        return sum(t);
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
        out = sum_dim(&out, &reduce, true)?;
    }
    if leading > 0 {
        out = view(&out, shape)?;
    }
    Ok(out)
}

/// `max.dim`'s (and `topk`'s, `kthvalue`'s, ...) derivative: `grad` scattered into zeros of
/// `sizes` at `indices` along `dim` (`value_selecting_reduction_backward`).
pub fn value_selecting_reduction_backward<T: Tensor>(
    grad: &T,
    dim: i64,
    indices: &T,
    sizes: &[i64],
    keepdim: bool,
) -> Result<T, Error> {
    let zeros: T = zeros_o(sizes, options(grad)?)?;
    if keepdim {
        return scatter_src(&zeros, dim, indices, grad);
    }
    scatter_src(
        &zeros,
        dim,
        &unsqueeze(indices, dim)?,
        &unsqueeze(grad, dim)?,
    )
}

/// `output` with the dimensions `dims` a reduction removed put back as size 1
/// (`restore_reduced_dims`).
pub fn restore_reduced_dims<T: Tensor>(
    output: &T,
    dims: &[i64],
    keepdim: bool,
) -> Result<T, Error> {
    if keepdim {
        return Ok(output.clone());
    }
    let out_sizes = sizes(output)?;
    let total = out_sizes.len() + dims.len();
    let mut target = vec![0i64; total];
    for &d in dims {
        let i = if d < 0 { d + total as i64 } else { d };
        let i = usize::try_from(i).ok().filter(|&i| i < total);
        let i =
            i.ok_or_else(|| Error::from(format!("restore_reduced_dims: dim {d} out of range")))?;
        target[i] = 1;
    }
    let mut j = 0;
    for s in out_sizes {
        while target[j] > 0 {
            j += 1;
        }
        target[j] = s;
        j += 1;
    }
    reshape(output, &target)
}

/// `grad` shared evenly among the positions `mask` selects along `dims`
/// (`scale_grad_by_count`: `amax`'s and `amin`'s derivative).
pub fn scale_grad_by_count<T: Tensor>(grad: &T, mask: &T, dims: &[i64]) -> Result<T, Error> {
    mul(&div(grad, &sum_dim(mask, dims, true)?)?, mask)
}

/// `amax`'s and `amin`'s forward derivative: the mean of the tangents at the extreme
/// positions (`amaxamin_jvp`).
pub fn amaxamin_jvp<T: Tensor>(
    x: &T,
    dx: &T,
    result: &T,
    dim: &[i64],
    keepdim: bool,
) -> Result<T, Error> {
    let mask = eq(x, &restore_reduced_dims(result, dim, keepdim)?)?;
    let picked = sum_dim(&where_s(&mask, dx, Scalar::Float(0.0))?, dim, keepdim)?;
    div(&picked, &sum_dim(&mask, dim, keepdim)?)
}

/// `aminmax`'s derivative: for each of the minimum and the maximum whose gradient is
/// defined, the gradient shared evenly among the input's positions holding it, as `amin`
/// and `amax` do, along `dim` or over the whole input (`aminmax_backward`).
pub fn aminmax_backward<T: Tensor>(
    self_: &T,
    dim: Option<i64>,
    keepdim: bool,
    grad_min: Option<&T>,
    grad_max: Option<&T>,
    min: &T,
    max: &T,
) -> Result<Option<T>, Error> {
    let dims: Vec<i64> = dim.into_iter().collect();
    let mut total: Option<T> = None;
    for (grad, value) in [(grad_min, min), (grad_max, max)] {
        let Some(grad) = grad else { continue };
        let mask = eq(&restore_reduced_dims(value, &dims, keepdim)?, self_)?;
        let part = scale_grad_by_count(&restore_reduced_dims(grad, &dims, keepdim)?, &mask, &dims)?;
        total = Some(match total {
            Some(t) => add(&t, &part)?,
            None => part,
        });
    }
    Ok(total)
}

/// `aminmax`'s forward derivative for one of its results ([`amaxamin_jvp`] along `dim` or
/// over the whole input) (`aminmax_jvp`).
pub fn aminmax_jvp<T: Tensor>(
    self_p: &T,
    self_t: &T,
    result: &T,
    dim: Option<i64>,
    keepdim: bool,
) -> Result<T, Error> {
    let dims: Vec<i64> = dim.into_iter().collect();
    amaxamin_jvp(self_p, self_t, result, &dims, keepdim)
}

/// The derivative of a reduction to one of the input's values (`max()`, `median()`):
/// `grad` shared evenly among the positions equal to `value` (NaN positions for a NaN
/// value) (`evenly_distribute_backward`).
pub fn evenly_distribute_backward<T: Tensor>(grad: &T, input: &T, value: &T) -> Result<T, Error> {
    let both_nan = logical_and(&isnan(input)?, &isnan(value)?)?;
    let mask = logical_or(&eq(input, value)?, &both_nan)?;
    mul(&mask, &div(grad, &sum(&mask)?)?)
}

/// The forward derivative of such a reduction: the mean of the tangents at the positions
/// equal to `value` (`evenly_read_jvp`).
pub fn evenly_read_jvp<T: Tensor>(fw_grad: &T, input: &T, value: &T) -> Result<T, Error> {
    let mask = eq(input, value)?;
    let grad_output = div(fw_grad, &sum(&mask)?)?;
    sum(&mul(&mask, &grad_output)?)
}

/// The product of the other elements along `dim`, exclusive cumulative products from both
/// ends, which is right with zeros in the input (`prod_safe_zeros_backward`).
pub(crate) fn prod_safe_zeros_backward<T: Tensor>(grad: &T, inp: &T, dim: i64) -> Result<T, Error> {
    if numel(inp)? == 0 {
        return expand_as(grad, inp);
    }
    let n = super::size(inp, dim)?;
    if n == 1 {
        return Ok(grad.clone());
    }
    let mut ones_size = sizes(inp)?;
    let d = wrap_dim(dim, ones_size.len())?;
    ones_size[d] = 1;
    let ones: T = ones_o(&ones_size, options(grad)?)?;
    let normal = cumprod(
        &cat(&[ones.clone(), narrow(inp, dim, 0, n - 1)?], dim)?,
        dim,
        None,
    )?;
    let reversed = flip(&narrow(inp, dim, 1, n - 1)?, &[dim])?;
    let reverse = flip(&cumprod(&cat(&[ones, reversed], dim)?, dim, None)?, &[dim])?;
    mul(grad, &conj(&mul(&normal, &reverse)?)?)
}

/// How many elements of `t` are 0.
fn zero_count<T: Tensor>(t: &T) -> Result<i64, Error> {
    let indices = nonzero(&eq_s(t, Scalar::Int(0))?)?;
    Ok(sizes(&indices)?.first().copied().unwrap_or(0))
}

/// `prod`'s derivative: `grad * result / input` without zeros in the input, zeros with
/// more than one (unless a graph is being built), the exclusive products otherwise
/// (`prod_backward`).
pub fn prod_backward<T: Tensor>(grad: &T, input: &T, result: &T) -> Result<T, Error> {
    if sizes(input)?.is_empty() {
        return Ok(grad.clone());
    }
    let flat = |input: &T| {
        view(
            &contiguous(input, crate::dispatch::MemoryFormat::Contiguous)?,
            &[-1],
        )
    };
    if options(input)?.is_meta() {
        return view_as(&prod_safe_zeros_backward(grad, &flat(input)?, 0)?, input);
    }
    let zeros = zero_count(input)?;
    if zeros == 0 {
        return mul(grad, &conj(&div(result, input)?)?);
    }
    if !is_grad_enabled() && zeros > 1 {
        return zeros_like(input);
    }
    view_as(&prod_safe_zeros_backward(grad, &flat(input)?, 0)?, input)
}

/// `prod.dim_int`'s derivative ([`prod_backward`] along `dim`).
pub fn prod_backward_dim<T: Tensor>(
    grad: &T,
    input: &T,
    result: &T,
    dim: i64,
    keepdim: bool,
) -> Result<T, Error> {
    let ndim = sizes(input)?.len();
    if ndim == 0 {
        return Ok(grad.clone());
    }
    let dim = wrap_dim(dim, ndim)? as i64;
    let (grad, result) = if keepdim {
        (grad.clone(), result.clone())
    } else {
        (unsqueeze(grad, dim)?, unsqueeze(result, dim)?)
    };
    if options(input)?.is_meta() || zero_count(input)? > 0 {
        return prod_safe_zeros_backward(&grad, input, dim);
    }
    mul(&grad, &conj(&div(&result, input)?)?)
}

/// `var`'s derivative: `2 / (n - correction) * grad * (self - mean)`, with `n` the number
/// of elements reduced (NaN or infinity when `n <= correction`) (`var_backward`).
pub fn var_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    dim: Option<&[i64]>,
    correction: Option<Scalar>,
    keepdim: bool,
) -> Result<T, Error> {
    let correction = correction.map_or(1.0, Scalar::to_f64);
    let shape = sizes(self_)?;
    let Some(dims) = dim.filter(|_| !shape.is_empty()) else {
        let dof = numel(self_)? as f64 - correction;
        let centered = sub(self_, &mean_all(self_, None)?)?;
        if dof <= 0.0 {
            let at_mean = eq(self_, &mean_all(self_, None)?)?;
            let fill = where_ss(
                &at_mean,
                Scalar::Float(f64::NAN),
                Scalar::Float(f64::INFINITY),
            )?;
            return mul(grad, &fill);
        }
        return mul(&mul_n(grad, 2.0 / dof)?, &centered);
    };
    let grad = if !keepdim && shape.len() > 1 {
        unsqueeze_multiple(grad, Some(dims), shape.len() as i64)?
    } else {
        grad.clone()
    };
    let rnumel = safe_size(&shape, dims)? as f64;
    let centered = sub(self_, &mean_dim(self_, dims, true)?)?;
    mul(&mul_n(&grad, 2.0 / (rnumel - correction))?, &centered)
}

/// `std`'s derivative: [`var_backward`] of `grad / (2 std)` (0 where `std` is 0)
/// (`std_backward`).
pub fn std_backward<T: Tensor>(
    result: &T,
    grad: &T,
    self_: &T,
    dim: Option<&[i64]>,
    correction: Option<Scalar>,
    keepdim: bool,
) -> Result<T, Error> {
    let grad_var = div(grad, &mul_n(result, 2)?)?;
    let grad_var = masked_fill_s(&grad_var, &eq_s(result, Scalar::Int(0))?, Scalar::Int(0))?;
    var_backward(&grad_var, self_, dim, correction, keepdim)
}

/// Adds two optional gradients.
fn add_opt<T: Tensor>(a: Option<T>, b: Option<T>) -> Result<Option<T>, Error> {
    Ok(match (a, b) {
        (Some(a), Some(b)) => Some(add(&a, &b)?),
        (a, b) => a.or(b),
    })
}

/// `var_mean`'s derivative: [`var_backward`] plus [`mean_backward`], for the gradients
/// defined (`var_mean_backward`).
pub fn var_mean_backward<T: Tensor>(
    gvar: Option<&T>,
    gmean: Option<&T>,
    self_: &T,
    dim: Option<&[i64]>,
    correction: Option<Scalar>,
    keepdim: bool,
) -> Result<Option<T>, Error> {
    let from_var = gvar
        .map(|g| var_backward(g, self_, dim, correction, keepdim))
        .transpose()?;
    let from_mean = gmean
        .map(|g| {
            mean_backward(
                g,
                &sizes(self_)?,
                Some(dim.unwrap_or(&[])),
                numel(self_)?,
                keepdim,
            )
        })
        .transpose()?;
    add_opt(from_var, from_mean)
}

/// `std_mean`'s derivative: [`std_backward`] plus [`mean_backward`], for the gradients
/// defined (`std_mean_backward`).
pub fn std_mean_backward<T: Tensor>(
    gstd: Option<&T>,
    gmean: Option<&T>,
    self_: &T,
    std: &T,
    dim: Option<&[i64]>,
    correction: Option<Scalar>,
    keepdim: bool,
) -> Result<Option<T>, Error> {
    let from_std = gstd
        .map(|g| std_backward(std, g, self_, dim, correction, keepdim))
        .transpose()?;
    let from_mean = gmean
        .map(|g| {
            mean_backward(
                g,
                &sizes(self_)?,
                Some(dim.unwrap_or(&[])),
                numel(self_)?,
                keepdim,
            )
        })
        .transpose()?;
    add_opt(from_std, from_mean)
}

/// `nansum`'s derivative: [`sum_backward`], 0 where the input is NaN (`nansum_backward`).
pub fn nansum_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    dims: Option<&[i64]>,
    keepdim: bool,
) -> Result<T, Error> {
    let expanded = sum_backward(grad, &sizes(self_)?, dims, keepdim)?;
    mul(&expanded, &logical_not(&isnan(self_)?)?)
}

/// `logsumexp`'s derivative: `grad * exp(self - result).conj()` (`logsumexp_backward`).
pub fn logsumexp_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    result: &T,
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<T, Error> {
    let ndim = sizes(self_)?.len() as i64;
    let (grad, result) = if !keepdim && ndim != 0 {
        (
            unsqueeze_multiple(grad, dim, ndim)?,
            unsqueeze_multiple(result, dim, ndim)?,
        )
    } else {
        (grad.clone(), result.clone())
    };
    mul(&grad, &conj(&exp(&sub(self_, &result)?)?)?)
}

/// `logsumexp`'s forward derivative: the softmax-weighted sum of the tangents, with the
/// maximum subtracted before `exp` (`logsumexp_jvp`).
pub fn logsumexp_jvp<T: Tensor>(
    self_p: &T,
    self_t: &T,
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<T, Error> {
    let dim = dim.unwrap_or(&[]);
    let self_p_exp = if numel(self_p)? > 0 {
        let real_p = if is_complex(self_p)? {
            real(self_p)?
        } else {
            self_p.clone()
        };
        exp(&sub(self_p, &amax(&real_p, dim, true)?)?)?
    } else {
        exp(self_p)?
    };
    let sumexp_p = sum_dim(&self_p_exp, dim, keepdim)?;
    div(
        &sum_dim(&mul(&self_p_exp, self_t)?, dim, keepdim)?,
        &sumexp_p,
    )
}

/// [`logsumexp_jvp`], 0 for rows that are all `-inf` (`safe_logsumexp_jvp`).
pub fn safe_logsumexp_jvp<T: Tensor>(
    self_p: &T,
    self_t: &T,
    dim: &[i64],
    keepdim: bool,
) -> Result<T, Error> {
    let lse_jvp = logsumexp_jvp(self_p, self_t, Some(dim), keepdim)?;
    let dtype = options(&lse_jvp)?;
    let masked = eq(self_p, &scalar_tensor(f64::from(f32::NEG_INFINITY), dtype)?)?;
    let masked_rows = all_dims(&masked, Some(dim), true)?;
    where_(&masked_rows, &scalar_tensor(0.0, dtype)?, &lse_jvp)
}

/// The lowest finite value of a dtype (`std::numeric_limits<scalar_t>::lowest()`).
fn lowest(dtype: ScalarType) -> Result<f64, Error> {
    Ok(match dtype {
        ScalarType::Double | ScalarType::ComplexDouble => f64::MIN,
        ScalarType::Float | ScalarType::ComplexFloat => f64::from(f32::MIN),
        ScalarType::Half | ScalarType::ComplexHalf => -65504.0,
        ScalarType::BFloat16 => -3.389_531_389_251_535_5e38,
        other => {
            return Err(Error::from(format!(
                "\"logcumsumexp_backward\" not implemented for '{other}'"
            )));
        }
    })
}

/// `logcumsumexp`'s derivative, in log space with positive and negative gradients apart:
/// `exp(rev_lcse(log|g+| - result) + self) - exp(rev_lcse(log|g-| - result) + self)`
/// (`logcumsumexp_backward`).
pub fn logcumsumexp_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    result: &T,
    dim: i64,
) -> Result<T, Error> {
    if sizes(grad)?.is_empty() || numel(grad)? == 0 {
        return Ok(grad.clone());
    }
    let reverse_lcse = |x: &T| flip(&logcumsumexp(&flip(x, &[dim])?, dim)?, &[dim]);
    if is_complex(grad)? {
        let log_grad = log(&conj(grad)?)?;
        let output = exp(&add(&reverse_lcse(&sub(&log_grad, result)?)?, self_)?)?;
        return conj(&output);
    }
    let o = options(grad)?;
    let grad_min = scalar_tensor(lowest(o.dtype_or_default())?, o)?;
    let log_abs_grad = log(&abs(grad)?)?;
    let part = |mask: T| -> Result<T, Error> {
        let log_part = where_(&mask, &log_abs_grad, &grad_min)?;
        exp(&add(&reverse_lcse(&sub(&log_part, result)?)?, self_)?)
    };
    let output_pos = part(gt_s(grad, Scalar::Int(0))?)?;
    let output_neg = part(lt_s(grad, Scalar::Int(0))?)?;
    sub(&output_pos, &output_neg)
}

/// `logcumsumexp`'s forward derivative: `cumsum(exp(x - max) * t) / (cumsum(exp(x - max)) +
/// 1e-13)` (`logcumsumexp_jvp`).
pub fn logcumsumexp_jvp<T: Tensor>(self_p: &T, self_t: &T, dim: i64) -> Result<T, Error> {
    let self_p_exp = if is_complex(self_p)? {
        exp(self_p)?
    } else {
        exp(&sub(self_p, &max_dim(self_p, dim, true)?.0)?)?
    };
    let cumsumexp_p = add_s(&cumsum(&self_p_exp, dim, None)?, 1e-13)?;
    div(
        &cumsum(&mul(&self_p_exp, self_t)?, dim, None)?,
        &cumsumexp_p,
    )
}

/// `cumsum`'s derivative: the reversed cumulative sum of `grad` (`cumsum_backward`).
pub fn cumsum_backward<T: Tensor>(grad: &T, dim: i64) -> Result<T, Error> {
    if numel(grad)? <= 1 || super::size(grad, dim)? == 1 {
        return Ok(grad.clone());
    }
    flip(&cumsum(&flip(grad, &[dim])?, dim, None)?, &[dim])
}

/// `cumprod`'s forward derivative, right with zeros in the input (`cumprod_jvp`).
pub fn cumprod_jvp<T: Tensor>(self_t: &T, self_p: &T, result: &T, dim: i64) -> Result<T, Error> {
    let gradient = mul(&cumsum(&div(self_t, self_p)?, dim, None)?, result)?;
    let mask_zeros = eq_s(self_p, Scalar::Int(0))?;
    if sizes(self_p)?.is_empty() {
        return masked_fill_t(&gradient, &mask_zeros, self_t);
    }
    let first_zero = logical_and(
        &mask_zeros,
        &eq_s(&cumsum(&mask_zeros, dim, None)?, Scalar::Int(1))?,
    )?;
    let new_grad = cumprod(&where_(&first_zero, self_t, self_p)?, dim, None)?;
    let after_first_zero = to(&cumsum(&first_zero, dim, None)?, ScalarType::Bool)?;
    where_(&after_first_zero, &new_grad, &gradient)
}

/// `input.gather(dim, indices)` with `indices` of a reduction that dropped `dim` put back
/// (`gather_with_keepdimed_indices`: the forward derivative of `max.dim` and friends).
pub fn gather_with_keepdimed_indices<T: Tensor>(
    input: &T,
    dim: i64,
    indices: &T,
    keepdim: bool,
) -> Result<T, Error> {
    if keepdim {
        return gather(input, dim, indices, false);
    }
    squeeze(&gather(input, dim, &unsqueeze(indices, dim)?, false)?, dim)
}
