//! Derivatives of vector norms (`norm`, `linalg_vector_norm`, `dist`) and of `renorm`.

use super::accessors::{is_complex, wrap_dim};
use super::ops::*;
use super::reductions::unsqueeze_multiple;
use super::{conj, options, scalar_type, sizes};
use crate::dispatch::{DeviceType, Error, Scalar, ScalarType, Tensor};

/// `at::real(x)` (the tensor itself when real).
fn re<T: Tensor>(x: &T) -> Result<T, Error> {
    if is_complex(x)? {
        real(x)
    } else {
        Ok(x.clone())
    }
}

/// `t.masked_fill_(mask == 0, 0)` where `mask` is the norm.
fn zero_where_zero<T: Tensor>(t: &T, norm: &T) -> Result<T, Error> {
    masked_fill_s(t, &eq_s(norm, Scalar::Int(0))?, Scalar::Int(0))
}

/// The `p`-norm's derivative over `dim` (PyTorch's conventions at the non-differentiable
/// points: 0 where the norm is 0; for `p = ∞` the gradient is shared among the maximal
/// entries, NaNs included; for `p = 0` there is no gradient) (`norm_backward`).
pub fn norm_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    p: Option<Scalar>,
    norm: &T,
    dim: &[i64],
    keepdim: bool,
) -> Result<Option<T>, Error> {
    let ndim = sizes(self_)?.len() as i64;
    let p = p.map_or(2.0, Scalar::to_f64);
    let (grad, norm) = if !keepdim && ndim != 0 {
        (
            unsqueeze_multiple(grad, Some(dim), ndim)?,
            unsqueeze_multiple(norm, Some(dim), ndim)?,
        )
    } else {
        (grad.clone(), norm.clone())
    };
    let scaled_by_norm = |self_scaled: T| -> Result<T, Error> {
        let scale_v = div(&grad, &pow_s(&norm, Scalar::Float(p - 1.0))?)?;
        mul(&self_scaled, &zero_where_zero(&scale_v, &norm)?)
    };
    let out = if p == 0.0 {
        return Ok(None);
    } else if p == 1.0 {
        mul(&sgn(self_)?, &grad)?
    } else if p == 2.0 {
        mul(&grad, &zero_where_zero(&div(self_, &norm)?, &norm)?)?
    } else if p.is_infinite() {
        let self_abs = abs(self_)?;
        let mask = logical_or(&eq(&self_abs, &norm)?, &isnan(&self_abs)?)?;
        let shared = mul(&div(&grad, &sum_dim(&mask, dim, true)?)?, &mask)?;
        mul(&sgn(self_)?, &shared)?
    } else if p < 1.0 {
        let powered = pow_s(&abs(self_)?, Scalar::Float(p - 1.0))?;
        let powered = masked_fill_s(&powered, &eq_s(self_, Scalar::Int(0))?, Scalar::Int(0))?;
        let self_scaled = mul(&sgn(self_)?, &powered)?;
        mul(
            &mul(&self_scaled, &grad)?,
            &pow_s(&norm, Scalar::Float(1.0 - p))?,
        )?
    } else if p < 2.0 {
        scaled_by_norm(mul(
            &sgn(self_)?,
            &pow_s(&abs(self_)?, Scalar::Float(p - 1.0))?,
        )?)?
    } else {
        scaled_by_norm(mul(self_, &pow_s(&abs(self_)?, Scalar::Float(p - 2.0))?)?)?
    };
    Ok(Some(out))
}

/// The `p`-norm's forward derivative over `dim`, with [`norm_backward`]'s conventions
/// (`norm_jvp`).
pub fn norm_jvp<T: Tensor>(
    self_p: &T,
    self_t: &T,
    p: Option<Scalar>,
    norm: &T,
    dim: &[i64],
    keepdim: bool,
) -> Result<T, Error> {
    let ndim = sizes(self_p)?.len() as i64;
    let p = p.map_or(2.0, Scalar::to_f64);
    let sgn_dot = || re(&mul(&sgn(self_p)?, &conj(self_t)?)?);
    let by_norm = |sumpow_t: T| {
        zero_where_zero(
            &div(&sumpow_t, &pow_s(norm, Scalar::Float(p - 1.0))?)?,
            norm,
        )
    };
    if p == 0.0 {
        zeros_like(norm)
    } else if p == 1.0 {
        sum_dim(&sgn_dot()?, dim, keepdim)
    } else if p == 2.0 {
        let dot = sum_dim(&re(&mul(self_p, &conj(self_t)?)?)?, dim, keepdim)?;
        zero_where_zero(&div(&dot, norm)?, norm)
    } else if p.is_infinite() {
        let norm = if !keepdim && ndim != 0 {
            unsqueeze_multiple(norm, Some(dim), ndim)?
        } else {
            norm.clone()
        };
        let both_nan = logical_and(&isnan(self_p)?, &isnan(&norm)?)?;
        let is_eq_max = type_as(&logical_or(&eq(&abs(self_p)?, &norm)?, &both_nan)?, &norm)?;
        let mut nb_max = count_nonzero(&is_eq_max, dim)?;
        if ndim != 0 {
            nb_max = unsqueeze_multiple(&nb_max, Some(dim), ndim)?;
        }
        sum_dim(&div(&mul(&sgn_dot()?, &is_eq_max)?, &nb_max)?, dim, keepdim)
    } else if p < 1.0 {
        let powered = pow_s(&abs(self_p)?, Scalar::Float(p - 1.0))?;
        let powered = masked_fill_s(&powered, &eq_s(self_p, Scalar::Int(0))?, Scalar::Int(0))?;
        let sumpow_t = sum_dim(&mul(&powered, &sgn_dot()?)?, dim, keepdim)?;
        mul(&sumpow_t, &pow_s(norm, Scalar::Float(1.0 - p))?)
    } else if p < 2.0 {
        let powered = pow_s(&abs(self_p)?, Scalar::Float(p - 1.0))?;
        by_norm(sum_dim(&mul(&powered, &sgn_dot()?)?, dim, keepdim)?)
    } else {
        let powered = pow_s(&abs(self_p)?, Scalar::Float(p - 2.0))?;
        let dot = re(&mul(self_p, &conj(self_t)?)?)?;
        by_norm(sum_dim(&mul(&powered, &dot)?, dim, keepdim)?)
    }
}

/// `linalg_vector_norm`'s derivative ([`norm_backward`] over `dim`, all dimensions when
/// `None`) (`linalg_vector_norm_backward`).
pub fn linalg_vector_norm_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    ord: Scalar,
    norm: &T,
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<Option<T>, Error> {
    norm_backward(grad, self_, Some(ord), norm, dim.unwrap_or(&[]), keepdim)
}

/// `linalg_vector_norm`'s forward derivative (`linalg_vector_norm_jvp`).
pub fn linalg_vector_norm_jvp<T: Tensor>(
    self_p: &T,
    self_t: &T,
    ord: Scalar,
    norm: &T,
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<T, Error> {
    norm_jvp(self_p, self_t, Some(ord), norm, dim.unwrap_or(&[]), keepdim)
}

/// `at::toAccumulateType(dtype, device)`: the dtype reductions accumulate in.
pub(crate) fn accumulate_type(dtype: ScalarType, device: DeviceType) -> ScalarType {
    use ScalarType as S;
    let cuda_like = device != DeviceType::CPU;
    match dtype {
        S::Half | S::BFloat16 => S::Float,
        S::Float if cuda_like => S::Float,
        S::Float => S::Double,
        S::ComplexHalf => S::ComplexFloat,
        S::ComplexFloat if cuda_like => S::ComplexFloat,
        S::ComplexFloat => S::ComplexDouble,
        S::Double | S::ComplexDouble => dtype,
        _ => S::Long,
    }
}

/// The real dtype of a complex one (`c10::toRealValueType`).
pub(crate) fn real_value_type(dtype: ScalarType) -> ScalarType {
    match dtype {
        ScalarType::ComplexHalf => ScalarType::Half,
        ScalarType::ComplexFloat => ScalarType::Float,
        ScalarType::ComplexDouble => ScalarType::Double,
        other => other,
    }
}

/// Every dimension of `self` but `dim`, and `dim` wrapped.
fn other_dims<T: Tensor>(self_: &T, dim: i64) -> Result<(Vec<i64>, i64), Error> {
    let n = sizes(self_)?.len();
    let dim = wrap_dim(dim, n)? as i64;
    Ok(((0..n as i64).filter(|&d| d != dim).collect(), dim))
}

/// `renorm`'s derivative: where a slice's norm exceeds `maxnorm`, the derivative of
/// `maxnorm * x / (‖x‖ + 1e-7)`; elsewhere `grad` (`renorm_backward`).
pub fn renorm_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    p: Scalar,
    dim: i64,
    maxnorm: Scalar,
) -> Result<T, Error> {
    let (reduce_dims, _) = other_dims(self_, dim)?;
    let o = options(self_)?;
    let acc_type = accumulate_type(o.dtype_or_default(), o.device_or_default().kind);
    let norm = linalg_vector_norm(self_, p, Some(&reduce_dims), true, Some(acc_type))?;
    let real_acc_type = real_value_type(acc_type);
    let mut grad_output = mul(&conj(self_)?, grad)?;
    if real_acc_type != acc_type {
        grad_output = real(&grad_output)?;
    }
    let grad_output = sum_dims(&grad_output, Some(&reduce_dims), true, Some(real_acc_type))?;
    let nb = norm_backward(&grad_output, self_, Some(p), &norm, &reduce_dims, true)?
        .ok_or_else(|| Error::from("renorm_backward: the derivative of the 0-norm is undefined"))?;
    let invnorm = reciprocal(&add_s(&norm, 1e-7)?)?;
    let grad_norm = mul(
        &mul_s(&invnorm, maxnorm)?,
        &sub(grad, &mul(&invnorm, &nb)?)?,
    )?;
    where_(
        &gt_s(&norm, maxnorm)?,
        &to(&grad_norm, scalar_type(grad)?)?,
        grad,
    )
}

/// `renorm`'s forward derivative (`renorm_jvp`).
pub fn renorm_jvp<T: Tensor>(
    self_p: &T,
    self_t: &T,
    p: Scalar,
    dim: i64,
    maxnorm: Scalar,
) -> Result<T, Error> {
    let (reduce_dims, _) = other_dims(self_p, dim)?;
    let dtype = scalar_type(self_p)?;
    let acc_type = accumulate_type(dtype, DeviceType::CUDA);
    let ord = Scalar::Float(p.to_f64());
    let norm = if acc_type != dtype {
        linalg_vector_norm(self_p, ord, Some(&reduce_dims), true, Some(acc_type))?
    } else {
        linalg_vector_norm(self_p, ord, Some(&reduce_dims), true, None)?
    };
    let maxnorm = maxnorm.to_f64();
    let invnorm = reciprocal(&add_s(&norm, 1e-7)?)?;
    let factor = mul_n(&invnorm, maxnorm)?;
    let jvp = norm_jvp(self_p, self_t, Some(p), &norm, &reduce_dims, true)?;
    let inner = sub(self_t, &mul(&mul(self_p, &invnorm)?, &jvp)?)?;
    where_(
        &gt_s(&norm, Scalar::Float(maxnorm))?,
        &mul(&factor, &inner)?,
        self_t,
    )
}
