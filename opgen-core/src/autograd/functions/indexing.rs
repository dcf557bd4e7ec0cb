//! Derivatives of indexing, scatter/gather reductions, pooling with indices, embeddings,
//! convolutions and FFTs.

use super::Gradients3;
use super::accessors::{back, suggest_memory_format, wrap_dim};
use super::ops::*;
use super::{numel, options, scalar_type, size, sizes};
use crate::dispatch::{Error, Scalar, Tensor};

/// The second derivative of a max pooling with indices over its last `dim` dimensions: the
/// values of `grad` at `indices` (`max_pool_double_backward`).
pub fn max_pool_double_backward<T: Tensor>(grad: &T, indices: &T, dim: i64) -> Result<T, Error> {
    let shape = sizes(indices)?;
    let keep = shape.len().checked_sub(dim as usize).ok_or_else(|| {
        Error::from(format!(
            "max_pool_double_backward: indices have fewer than {dim} dimensions"
        ))
    })?;
    if numel(indices)? == 0 {
        return empty_like_o(indices, options(grad)?);
    }
    let mut size = shape[..keep].to_vec();
    size.push(-1);
    let indices_view = view(indices, &size)?;
    let grad = contiguous(grad, suggest_memory_format(indices)?)?;
    view(
        &gather(&view(&grad, &size)?, -1, &indices_view, false)?,
        &shape,
    )
}

/// `max_pool2d_backward`'s derivative on MPS without indices: PyTorch's error
/// (`error_for_max_pool2d_double_backward`).
pub fn error_for_max_pool2d_double_backward<T: Tensor>() -> Result<T, Error> {
    Err(Error::from(
        "max_pool2d with `return_indices=False` is not infinitely differentiable. \
         If you want to calculate higher order derivatives, e.g. second order, set `return_indices=True`.",
    ))
}

/// `index`'s derivative: `grad` accumulated into zeros at `indices`
/// (`index_backward`).
pub fn index_backward<T: Tensor>(
    zeros_like_self: &T,
    indices: &[Option<T>],
    grad: &T,
) -> Result<T, Error> {
    index_put(zeros_like_self, indices, grad, true)
}

/// `take`'s derivative: `grad` accumulated into zeros like `self` at the flat `indices`
/// (`take_backward`).
pub fn take_backward<T: Tensor>(grad: &T, self_: &T, indices: &T) -> Result<T, Error> {
    put(&zeros_like(self_)?, indices, grad, true)
}

/// The reductions `scatter_reduce` and `index_reduce` share, written once over the two
/// ways of placing `src` into `self`: `place` (`scatter_add`/`index_add`), `pick`
/// (`gather`/`index_select`), `reduce_into` (the forward itself) and `clear`
/// (`scatter`/`index_fill` with 0 where `include_self` is false).
struct Placement<'a, T> {
    place: &'a dyn Fn(&T, &T) -> Result<T, Error>,
    pick: &'a dyn Fn(&T) -> Result<T, Error>,
    reduce_into: &'a dyn Fn(&T, &T) -> Result<T, Error>,
    clear: &'a dyn Fn(&T) -> Result<T, Error>,
}

#[allow(clippy::too_many_arguments)]
fn reduce_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    src: &T,
    reduce: &str,
    include_self: bool,
    result: &T,
    p: &Placement<'_, T>,
    expected: &str,
) -> Result<(Option<T>, Option<T>), Error> {
    let dtype = scalar_type(self_)?;
    let (grad_self, grad_src) = match reduce {
        "sum" => (grad.clone(), (p.pick)(grad)?),
        "prod" => {
            let masked_self = masked_fill_s(self_, &eq_s(self_, Scalar::Int(0))?, Scalar::Int(1))?;
            let masked_self_result = (p.reduce_into)(&masked_self, src)?;
            let grad_self = div(&mul(grad, &masked_self_result)?, &masked_self)?;
            let src_zero = eq_s(src, Scalar::Int(0))?;
            let src_num_zeros = (p.pick)(&(p.place)(&zeros_like(self_)?, &to(&src_zero, dtype)?)?)?;
            let src_single_zero = bitwise_and(&src_zero, &eq_s(&src_num_zeros, Scalar::Int(1))?)?;
            let masked_src = masked_fill_s(src, &src_single_zero, Scalar::Int(1))?;
            let masked_src_result = (p.reduce_into)(self_, &masked_src)?;
            let through_zero = (p.pick)(&mul(grad, &masked_src_result)?)?;
            let regular = div(
                &(p.pick)(&mul(grad, result)?)?,
                &masked_fill_s(src, &src_zero, Scalar::Int(1))?,
            )?;
            (
                grad_self,
                where_(&src_single_zero, &through_zero, &regular)?,
            )
        }
        "mean" => {
            let n = if include_self {
                ones_like(grad)?
            } else {
                zeros_like(grad)?
            };
            let n = (p.place)(&n, &ones_like(src)?)?;
            let n = masked_fill_s(&n, &eq_s(&n, Scalar::Int(0))?, Scalar::Int(1))?;
            (div(grad, &n)?, div(&(p.pick)(grad)?, &(p.pick)(&n)?)?)
        }
        "amax" | "amin" => {
            let value = (p.pick)(result)?;
            let self_is_result = to(&eq(self_, result)?, dtype)?;
            let src_is_result = to(&eq(src, &value)?, dtype)?;
            let n = (p.place)(&self_is_result, &src_is_result)?;
            let distributed = div(grad, &n)?;
            let grad_self = mul(&eq(self_, result)?, &distributed)?;
            (grad_self, mul(&eq(src, &value)?, &(p.pick)(&distributed)?)?)
        }
        other => {
            return Err(Error::from(format!(
                "Expected 'reduce' to be one of {expected} but got {other}."
            )));
        }
    };
    let grad_self = if include_self {
        grad_self
    } else {
        (p.clear)(&grad_self)?
    };
    Ok((Some(grad_self), Some(grad_src)))
}

/// `scatter_reduce`'s derivatives for `self` and `src`, by reduction (`sum`, `prod` with
/// care for zeros, `mean`, `amax`/`amin` shared evenly among ties)
/// (`scatter_reduce_backward`). Unlike PyTorch, a double backward through `prod` with
/// several zeros scattered to one place is not refused.
#[allow(clippy::too_many_arguments)]
pub fn scatter_reduce_backward<T: Tensor>(
    grad: Option<&T>,
    self_: &T,
    dim: i64,
    index: &T,
    src: &T,
    reduce: &str,
    include_self: bool,
    result: &T,
) -> Result<(Option<T>, Option<T>), Error> {
    let Some(grad) = grad else {
        return Ok((None, None));
    };
    let p = Placement {
        place: &|a: &T, b: &T| scatter_add(a, dim, index, b),
        pick: &|a: &T| gather(a, dim, index, false),
        reduce_into: &|a: &T, b: &T| scatter_reduce(a, dim, index, b, reduce, include_self),
        clear: &|a: &T| scatter_value(a, dim, index, Scalar::Int(0)),
    };
    reduce_backward(
        grad,
        self_,
        src,
        reduce,
        include_self,
        result,
        &p,
        "'sum', 'prod', 'mean', 'amax', 'amin'",
    )
}

/// `index_reduce`'s derivatives for `self` and `source` (`index_reduce_backward`), as
/// [`scatter_reduce_backward`] along an index of `dim`.
#[allow(clippy::too_many_arguments)]
pub fn index_reduce_backward<T: Tensor>(
    grad: Option<&T>,
    self_: &T,
    dim: i64,
    index: &T,
    source: &T,
    reduce: &str,
    include_self: bool,
    result: &T,
) -> Result<(Option<T>, Option<T>), Error> {
    let Some(grad) = grad else {
        return Ok((None, None));
    };
    if reduce == "sum" {
        return Err(Error::from(format!(
            "Expected 'reduce' to be one of 'prod', 'amax', 'amin' or 'mean' but got {reduce}."
        )));
    }
    let p = Placement {
        place: &|a: &T, b: &T| index_add(a, dim, index, b, Scalar::Int(1)),
        pick: &|a: &T| index_select(a, dim, index),
        reduce_into: &|a: &T, b: &T| {
            super::ops::index_reduce(a, dim, index, b, reduce, include_self)
        },
        clear: &|a: &T| index_fill(a, dim, index, Scalar::Int(0)),
    };
    reduce_backward(
        grad,
        self_,
        source,
        reduce,
        include_self,
        result,
        &p,
        "'prod', 'amax', 'amin' or 'mean'",
    )
}

/// `scatter_reduce`'s forward derivative: linear for `sum` and `mean`, the mean of the
/// tangents at the extreme values for `amax`/`amin`, none otherwise (`scatter_reduce_jvp`).
#[allow(clippy::too_many_arguments)]
pub fn scatter_reduce_jvp<T: Tensor>(
    self_p: &T,
    self_t: &T,
    dim: i64,
    index: &T,
    src_p: &T,
    src_t: &T,
    reduce: &str,
    include_self: bool,
    result: &T,
) -> Result<Option<T>, Error> {
    match reduce {
        "sum" | "mean" => scatter_reduce(self_t, dim, index, src_t, reduce, include_self).map(Some),
        "amin" | "amax" => {
            let dtype = scalar_type(self_t)?;
            let gather_result = gather(result, dim, index, false)?;
            let mask_self = eq(self_p, result)?;
            let mask_src = eq(src_p, &gather_result)?;
            let masked_src_t = where_s(&mask_src, src_t, Scalar::Float(0.0))?;
            let count = scatter_reduce(
                &to(&mask_self, dtype)?,
                dim,
                index,
                &to(&mask_src, dtype)?,
                "sum",
                include_self,
            )?;
            let masked_self_t = where_s(&mask_self, self_t, Scalar::Float(0.0))?;
            let total = scatter_reduce(
                &masked_self_t,
                dim,
                index,
                &masked_src_t,
                "sum",
                include_self,
            )?;
            div(&total, &count).map(Some)
        }
        _ => Ok(None),
    }
}

/// `embedding_dense_backward`'s derivative: the rows of `grad` at `indices`, zeros at
/// `padding_idx` (`embedding_dense_double_backward_symint`).
pub fn embedding_dense_double_backward_symint<T: Tensor>(
    grad: &T,
    indices: &T,
    padding_idx: i64,
) -> Result<T, Error> {
    let mut gg_weight = index_select(grad, 0, &reshape(indices, &[-1])?)?;
    let mut size = sizes(indices)?;
    size.push(-1);
    if padding_idx >= 0 {
        let padding = reshape(&eq_s(indices, Scalar::Int(padding_idx))?, &[-1, 1])?;
        gg_weight = masked_fill_s(&gg_weight, &padding, Scalar::Int(0))?;
    }
    view(&gg_weight, &size)
}

/// The cuDNN convolutions' derivatives for the input and the weight, through
/// `convolution_backward` (`_cudnn_convolution_backward`).
#[allow(clippy::too_many_arguments)]
pub fn _cudnn_convolution_backward<T: Tensor>(
    self_: &T,
    grad_output: Option<&T>,
    weight: &T,
    padding: &[i64],
    output_padding: &[i64],
    stride: &[i64],
    dilation: &[i64],
    transposed: bool,
    groups: i64,
    output_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    let Some(grad_output) = grad_output else {
        return Ok((None, None));
    };
    let mask = [output_mask[0], output_mask[1], false];
    let (gi, gw, _) = convolution_backward(
        grad_output,
        self_,
        weight,
        None,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
        mask,
    )?;
    Ok((Some(gi), Some(gw)))
}

/// `convolution`'s forward derivative: `conv(dx, w) + conv(x, dw, db)` (`convolution_jvp`).
#[allow(clippy::too_many_arguments)]
pub fn convolution_jvp<T: Tensor>(
    input_p: &T,
    input_t: &T,
    weight_p: &T,
    weight_t: &T,
    _bias_p: Option<&T>,
    bias_t: Option<&T>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    transposed: bool,
    output_padding: &[i64],
    groups: i64,
) -> Result<T, Error> {
    let a = convolution(
        input_t,
        weight_p,
        None,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
    )?;
    let b = convolution(
        input_p,
        weight_t,
        bias_t,
        stride,
        padding,
        dilation,
        transposed,
        output_padding,
        groups,
    )?;
    add(&a, &b)
}

/// `_convolution`'s forward derivative (`_convolution_jvp`).
#[allow(clippy::too_many_arguments)]
pub fn _convolution_jvp<T: Tensor>(
    input_p: &T,
    input_t: &T,
    weight_p: &T,
    weight_t: &T,
    _bias_p: Option<&T>,
    bias_t: Option<&T>,
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    transposed: bool,
    output_padding: &[i64],
    groups: i64,
    benchmark: bool,
    deterministic: bool,
    cudnn_enabled: bool,
    allow_tf32: bool,
) -> Result<T, Error> {
    let flags = (benchmark, deterministic, cudnn_enabled, allow_tf32);
    let conv = |x: &T, w: &T, b: Option<&T>| {
        convolution_full(
            x,
            w,
            b,
            stride,
            padding,
            dilation,
            transposed,
            output_padding,
            groups,
            flags.0,
            flags.1,
            flags.2,
            flags.3,
        )
    };
    add(
        &conv(input_t, weight_p, None)?,
        &conv(input_p, weight_t, bias_t)?,
    )
}

/// The forward derivative of `convolution_backward`'s bias gradient: `grad_out_t` summed
/// over the batch and spatial dimensions (`convolution_backward_jvp_grad_bias`).
pub fn convolution_backward_jvp_grad_bias<T: Tensor>(
    grad_out_t: &T,
    grad_bias: Option<&T>,
) -> Result<Option<T>, Error> {
    if grad_bias.is_none() {
        return Ok(None);
    }
    let rank = sizes(grad_out_t)?.len() as i64;
    let dims: &[i64] = match rank - 2 {
        1 => &[0, 2],
        2 => &[0, 2, 3],
        3 => &[0, 2, 3, 4],
        other => {
            return Err(Error::from(format!(
                "convolution_backward_jvp_grad_bias expected dim of grad_out_t to be 3, 4, or 5, but got: {}",
                other + 2
            )));
        }
    };
    sum_dim(grad_out_t, dims, false).map(Some)
}

/// `_fft_r2c`'s derivative: the inverse complex FFT of `grad`, completed with zeros for a
/// one-sided transform, real part (`fft_r2c_backward`).
pub fn fft_r2c_backward<T: Tensor>(
    grad: &T,
    dim: &[i64],
    normalization: i64,
    onesided: bool,
    last_dim_size: i64,
) -> Result<T, Error> {
    if !onesided {
        return real(&fft_c2c(grad, dim, normalization, false)?);
    }
    let half_sizes = sizes(grad)?;
    let last = back(dim)?;
    let last_dim = wrap_dim(last, half_sizes.len())?;
    let zero_length = last_dim_size - size(grad, last)?;
    let full = if zero_length > 0 {
        let mut shape = half_sizes.clone();
        shape[last_dim] = last_dim_size;
        let zeros = new_zeros(grad, &shape)?;
        slice_scatter(
            &zeros,
            grad,
            last_dim as i64,
            Some(0),
            Some(half_sizes[last_dim]),
            1,
        )?
    } else {
        grad.clone()
    };
    real(&fft_c2c(&full, dim, normalization, false)?)
}

/// `_fft_c2r`'s derivative: the one-sided real FFT of `grad`, the entries mirrored by
/// conjugate symmetry doubled (`fft_c2r_backward`).
pub fn fft_c2r_backward<T: Tensor>(grad: &T, dim: &[i64], normalization: i64) -> Result<T, Error> {
    let gi = fft_r2c(grad, dim, normalization, true)?;
    let last = back(dim)?;
    let double_length = size(grad, last)? - size(&gi, last)?;
    if double_length <= 0 {
        return Ok(gi);
    }
    let doubled = mul_n(&narrow(&gi, last, 1, double_length)?, 2)?;
    slice_scatter(&gi, &doubled, last, Some(1), Some(1 + double_length), 1)
}

/// `_trilinear`'s derivatives: each input's gradient is another `_trilinear` of `grad`
/// with the two other inputs (`_trilinear_backward`).
#[allow(clippy::too_many_arguments)]
pub fn _trilinear_backward<T: Tensor>(
    grad_out: Option<&T>,
    i1: Option<&T>,
    i2: Option<&T>,
    i3: Option<&T>,
    expand1: &[i64],
    expand2: &[i64],
    expand3: &[i64],
    sumdim: &[i64],
    grad_mask: [bool; 3],
) -> Result<Gradients3<T>, Error> {
    let Some(g) = grad_out else {
        return Ok((None, None, None));
    };
    fn need<T>(t: Option<&T>) -> Result<&T, Error> {
        t.ok_or_else(|| Error::from("_trilinear_backward: an input needed is not saved"))
    }
    let g1 = grad_mask[0]
        .then(|| {
            trilinear(
                g,
                need(i2)?,
                need(i3)?,
                sumdim,
                expand2,
                expand3,
                expand1,
                1,
            )
        })
        .transpose()?;
    let g2 = grad_mask[1]
        .then(|| {
            trilinear(
                need(i1)?,
                g,
                need(i3)?,
                expand1,
                sumdim,
                expand3,
                expand2,
                1,
            )
        })
        .transpose()?;
    let g3 = grad_mask[2]
        .then(|| {
            trilinear(
                need(i1)?,
                need(i2)?,
                g,
                expand1,
                expand2,
                sumdim,
                expand3,
                1,
            )
        })
        .transpose()?;
    Ok((g1, g2, g3))
}
