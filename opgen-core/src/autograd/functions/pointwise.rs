//! Derivatives of pointwise operators: products and quotients, clamps, powers, complex
//! angles and signs, and special functions.

use super::accessors::{is_complex, is_complex_type, scalar_conj, scalar_equals, scalar_sub};
use super::ops::*;
use super::{conj, options, scalar_type};
use crate::dispatch::{Complex, Error, Layout, Scalar, ScalarType, Tensor};

/// `t * s`, or `t` itself when `s` is 1 (`maybe_multiply`).
pub fn maybe_multiply<T: Tensor>(t: &T, s: Scalar) -> Result<T, Error> {
    let is_one = match s {
        Scalar::Float(f) => f == 1.0,
        Scalar::Int(i) => i == 1,
        Scalar::Bool(b) => b,
        Scalar::Complex(_) => false,
    };
    if is_one { Ok(t.clone()) } else { mul_s(t, s) }
}

/// The real part of a complex `gradient` of a real input (`handle_r_to_c`).
pub fn handle_r_to_c<T: Tensor>(self_st: ScalarType, gradient: &T) -> Result<T, Error> {
    if !is_complex_type(self_st) && is_complex(gradient)? {
        return real(gradient);
    }
    Ok(gradient.clone())
}

/// [`handle_r_to_c`] with the input's dtype read from the input.
pub(crate) fn r_to_c_of<T: Tensor>(input: &T, gradient: &T) -> Result<T, Error> {
    handle_r_to_c(scalar_type(input)?, gradient)
}

/// `mul`'s derivative for a tensor `other`: `grad * other.conj()` (`mul_tensor_backward`).
pub fn mul_tensor_backward<T: Tensor>(
    grad: &T,
    other: &T,
    self_st: ScalarType,
) -> Result<T, Error> {
    handle_r_to_c(self_st, &mul(grad, &conj(other)?)?)
}

/// `mul_tensor_backward` for a `Scalar` `other`.
pub fn mul_tensor_backward_scalar<T: Tensor>(
    grad: &T,
    other: Scalar,
    self_st: ScalarType,
) -> Result<T, Error> {
    handle_r_to_c(self_st, &mul_s(grad, scalar_conj(other))?)
}

/// `div`'s derivative for `self`: `grad / other.conj()`, or zeros of `self`'s dtype with a
/// rounding mode (`div_tensor_self_backward`).
pub fn div_tensor_self_backward<T: Tensor>(
    grad: &T,
    other: &T,
    self_st: ScalarType,
    rounding_mode: Option<&str>,
) -> Result<T, Error> {
    if rounding_mode.is_some() {
        return zeros_like_o(grad, options(grad)?.dtype(self_st));
    }
    handle_r_to_c(self_st, &div(grad, &conj(other)?)?)
}

/// `div_tensor_self_backward` for a `Scalar` `other`.
pub fn div_tensor_self_backward_scalar<T: Tensor>(
    grad: &T,
    other: Scalar,
    self_st: ScalarType,
    rounding_mode: Option<&str>,
) -> Result<T, Error> {
    if rounding_mode.is_some() {
        return zeros_like_o(grad, options(grad)?.dtype(self_st));
    }
    handle_r_to_c(self_st, &div_s(grad, scalar_conj(other))?)
}

/// `div`'s derivative for `other`: `-grad * ((self / other) / other).conj()`, or zeros of
/// `other`'s dtype with a rounding mode (`div_tensor_other_backward`).
pub fn div_tensor_other_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    other: &T,
    rounding_mode: Option<&str>,
) -> Result<T, Error> {
    if rounding_mode.is_some() {
        return zeros_like_o(grad, options(grad)?.dtype(scalar_type(other)?));
    }
    let quotient = div(&div(self_, other)?, other)?;
    r_to_c_of(other, &mul(&neg(grad)?, &conj(&quotient)?)?)
}

/// `clamp`'s derivative with scalar bounds: `grad` where `min <= self <= max`, else 0 (the
/// subgradient 1 at the bounds) (`clamp_backward`).
pub fn clamp_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<T, Error> {
    let mask = match (min, max) {
        (None, None) => return Ok(grad.clone()),
        (Some(lo), None) => ge_s(self_, lo)?,
        (None, Some(hi)) => le_s(self_, hi)?,
        (Some(lo), Some(hi)) => logical_and(&ge_s(self_, lo)?, &le_s(self_, hi)?)?,
    };
    where_(&mask, grad, &scalar_tensor(0.0, options(grad)?)?)
}

/// `clamp`'s derivative for `self` with tensor bounds, either of which may be undefined
/// (`clamp_backward`).
pub fn clamp_backward_tensor<T: Tensor>(
    grad: &T,
    self_: &T,
    min: Option<&T>,
    max: Option<&T>,
) -> Result<T, Error> {
    let mask = match (min, max) {
        (None, None) => return Ok(grad.clone()),
        (Some(lo), None) => ge(self_, lo)?,
        (None, Some(hi)) => le(self_, hi)?,
        (Some(lo), Some(hi)) => logical_and(&ge(self_, lo)?, &le(self_, hi)?)?,
    };
    where_(&mask, grad, &scalar_tensor(0.0, options(grad)?)?)
}

/// `clamp`'s derivatives for its tensor bounds: `grad` where `self < min` (and `min < max`)
/// for `min`, where `self > max` (or `max < min`) for `max` (`clamp_backward_min_max`).
pub fn clamp_backward_min_max<T: Tensor>(
    grad: &T,
    self_: &T,
    min: Option<&T>,
    max: Option<&T>,
    grad_input_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    let zero = scalar_tensor(0.0, options(grad)?)?;
    let pick = |mask: T| where_(&mask, grad, &zero).map(Some);
    let mut ret = (None, None);
    match (min, max) {
        (Some(lo), Some(hi)) => {
            if grad_input_mask[0] {
                ret.0 = pick(logical_and(&lt(self_, lo)?, &lt(lo, hi)?)?)?;
            }
            if grad_input_mask[1] {
                ret.1 = pick(logical_or(&gt(self_, hi)?, &lt(hi, lo)?)?)?;
            }
        }
        (Some(lo), None) if grad_input_mask[0] => ret.0 = pick(lt(self_, lo)?)?,
        (None, Some(hi)) if grad_input_mask[1] => ret.1 = pick(gt(self_, hi)?)?,
        _ => {}
    }
    Ok(ret)
}

/// `clamp`'s forward derivative: the tangent of whichever of `self`, `min`, `max` the
/// result is (`max` where `min > max`) (`clamp_jvp`).
pub fn clamp_jvp<T: Tensor>(
    self_p: &T,
    self_t: &T,
    min_p: Option<&T>,
    min_t: Option<&T>,
    max_p: Option<&T>,
    max_t: Option<&T>,
) -> Result<T, Error> {
    let tangent = |t: Option<&T>, like: &T| match t {
        Some(t) => Ok(t.clone()),
        None => zeros_like(like),
    };
    match (min_p, max_p) {
        (Some(lo), Some(hi)) => {
            let (lo_t, hi_t) = (tangent(min_t, lo)?, tangent(max_t, hi)?);
            let inner = where_(&gt(self_p, hi)?, &hi_t, self_t)?;
            let inner = where_(&lt(self_p, lo)?, &lo_t, &inner)?;
            where_(&gt(lo, hi)?, &hi_t, &inner)
        }
        (Some(lo), None) => where_(&gt(self_p, lo)?, self_t, &tangent(min_t, lo)?),
        (None, Some(hi)) => where_(&lt(self_p, hi)?, self_t, &tangent(max_t, hi)?),
        (None, None) => Ok(self_t.clone()),
    }
}

/// `copysign`'s derivative for `self`: `grad * result / self`, 0 where `self` is 0
/// (`copysign_tensor_self_backward`).
pub fn copysign_tensor_self_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    result: &T,
) -> Result<T, Error> {
    let ratio = masked_fill_s(
        &div(result, self_)?,
        &eq_s(self_, Scalar::Int(0))?,
        Scalar::Int(0),
    )?;
    mul(grad, &ratio)
}

/// `pow`'s derivative for `self` with a scalar exponent: `grad * (e * self^(e-1)).conj()`,
/// zeros for `e == 0` (`pow_backward`).
pub fn pow_backward<T: Tensor>(grad: &T, self_: &T, exponent: Scalar) -> Result<T, Error> {
    if scalar_equals(exponent, 0.0) {
        return zeros_like(self_);
    }
    let exponent = match exponent {
        Scalar::Complex(_) => exponent,
        other => Scalar::Float(other.to_f64()),
    };
    let power = pow_s(self_, scalar_sub(exponent, Scalar::Float(1.0)))?;
    let out = mul(grad, &conj(&mul_s(&power, exponent)?)?)?;
    r_to_c_of(self_, &out)
}

/// `pow`'s derivative for `self` with a tensor exponent: `grad * (e * self^(e-1)).conj()`,
/// 0 where `e == 0` (`pow_backward_self`).
pub fn pow_backward_self<T: Tensor>(grad: &T, self_: &T, exponent: &T) -> Result<T, Error> {
    let power = pow_t(self_, &sub_s(exponent, 1)?)?;
    let derivative = mul(grad, &conj(&mul(exponent, &power)?)?)?;
    let zero = scalar_tensor(0.0, options(grad)?)?;
    let out = where_(&eq_s(exponent, Scalar::Float(0.0))?, &zero, &derivative)?;
    r_to_c_of(self_, &out)
}

/// `pow`'s derivative for the exponent: `grad * (result * log(self)).conj()`, 0 where
/// `self == 0` and the exponent is real and `>= 0` (PyTorch's choice at the boundary)
/// (`pow_backward_exponent`).
pub fn pow_backward_exponent<T: Tensor>(
    grad: &T,
    self_: &T,
    exponent: &T,
    result: &T,
) -> Result<T, Error> {
    let self_zero = eq_s(self_, Scalar::Float(0.0))?;
    let cond = logical_and(&self_zero, &real_nonnegative(exponent)?)?;
    let self_ = to(self_, result_type(self_, exponent)?)?;
    let zero = scalar_tensor(0.0, options(grad)?)?;
    let log_term = conj(&mul(result, &log(&self_)?)?)?;
    let out = mul(grad, &where_(&cond, &zero, &log_term)?)?;
    r_to_c_of(exponent, &out)
}

/// [`pow_backward_exponent`] for a scalar base: `grad * (result * log(base)).conj()`, 0
/// where `base == 0` and the exponent is real and `>= 0`.
pub fn pow_backward_exponent_scalar<T: Tensor>(
    grad: &T,
    base: Scalar,
    exponent: &T,
    result: &T,
) -> Result<T, Error> {
    let base = match base {
        Scalar::Complex(_) => base,
        other if is_complex(exponent)? => super::to_complex_double(other),
        other => other,
    };
    let log_term = conj(&mul_s(result, scalar_log(base))?)?;
    let out = if scalar_equals(base, 0.0) {
        let zero = zeros_o(&[], options(grad)?)?;
        mul(
            grad,
            &where_(&real_nonnegative(exponent)?, &zero, &log_term)?,
        )?
    } else {
        mul(grad, &log_term)?
    };
    r_to_c_of(exponent, &out)
}

/// Where `e` is real and `>= 0` (for a complex `e`: imaginary part 0, real part `>= 0`).
fn real_nonnegative<T: Tensor>(e: &T) -> Result<T, Error> {
    if is_complex(e)? {
        let imag_zero = eq_s(&imag(e)?, Scalar::Float(0.0))?;
        logical_and(&imag_zero, &ge_s(&real(e)?, Scalar::Float(0.0))?)
    } else {
        ge_s(e, Scalar::Float(0.0))
    }
}

/// `Scalar::log()`: the natural logarithm (principal branch for a complex).
fn scalar_log(s: Scalar) -> Scalar {
    match s {
        Scalar::Complex(c) => Scalar::Complex(Complex {
            re: c.re.hypot(c.im).ln(),
            im: c.im.atan2(c.re),
        }),
        other => Scalar::Float(other.to_f64().ln()),
    }
}

/// `i` as a `Scalar`.
pub(crate) const I: Scalar = Scalar::Complex(Complex { re: 0.0, im: 1.0 });

/// `angle`'s derivative: `grad * self / |self|² * i` for a complex input (0 at 0), zeros for
/// a real one (`angle_backward`).
pub fn angle_backward<T: Tensor>(grad: &T, self_: &T) -> Result<T, Error> {
    if !is_complex(self_)? {
        return zeros_like(self_);
    }
    let ratio = div(&mul(grad, self_)?, &pow_s(&abs(self_)?, Scalar::Int(2))?)?;
    let zero = zeros_o(&[], options(self_)?)?;
    where_(&eq_s(self_, Scalar::Float(0.0))?, &zero, &mul_s(&ratio, I)?)
}

/// `mvlgamma`'s derivative: `grad * Σ_{j<p} digamma(self - j/2)` (`mvlgamma_backward`).
pub fn mvlgamma_backward<T: Tensor>(grad: &T, self_: &T, p: i64) -> Result<T, Error> {
    let o = options(self_)?.layout(Layout::Strided);
    let args: T = arange(-(p as f64) / 2.0 + 0.5, 0.5, 0.5, o)?;
    let args = add(&args, &unsqueeze(self_, -1)?)?;
    mul(grad, &sum_dim(&digamma(&args)?, &[-1], false)?)
}

/// `sgn`'s derivative: `(gx - sgn² * gx.conj()) / (2|x|)`, 0 at 0, for a complex input;
/// zeros for a real one (`sgn_backward`).
pub fn sgn_backward<T: Tensor>(x: &T, gx: &T, sgn: &T) -> Result<T, Error> {
    if !is_complex(x)? {
        return efficientzerotensor(&sgn.sizes()?, options(sgn)?);
    }
    let a = abs(x)?;
    let numerator = sub(gx, &mul(&mul(sgn, sgn)?, &conj(gx)?)?)?;
    let out = div(&numerator, &mul_n(&a, 2.0)?)?;
    masked_fill_s(&out, &eq_s(&a, Scalar::Float(0.0))?, Scalar::Float(0.0))
}

/// `masked_fill`'s derivative for a tensor `value`: the sum of `grad` where `mask` is set
/// (`masked_fill_backward`).
pub fn masked_fill_backward<T: Tensor>(grad: &T, mask: &T) -> Result<T, Error> {
    sum(&masked_select(grad, mask)?)
}

/// `t.masked_fill_(mask, value)` on a temporary where that is safe, `masked_fill` otherwise
/// (`masked_fill_inplace_if_safe`): the same values, computed out of place.
pub fn masked_fill_inplace_if_safe<T: Tensor>(t: &T, mask: &T, value: Scalar) -> Result<T, Error> {
    masked_fill_s(t, mask, value)
}

/// `deg2rad`'s derivative: `grad * π/180` (`deg2rad_backward`).
pub fn deg2rad_backward<T: Tensor>(grad: &T) -> Result<T, Error> {
    mul_n(grad, std::f64::consts::PI / 180.0)
}

/// `rad2deg`'s derivative: `grad * 180/π` (`rad2deg_backward`).
pub fn rad2deg_backward<T: Tensor>(grad: &T) -> Result<T, Error> {
    mul_n(grad, 180.0 / std::f64::consts::PI)
}

fn is_sparse(layout: Layout) -> bool {
    !matches!(layout, Layout::Strided | Layout::Mkldnn | Layout::Jagged)
}

/// `log1p`'s derivative: `grad / (self + 1).conj()` (dense `self + 1` for a sparse `self`;
/// `grad * reciprocal` for a sparse `grad`, keeping its layout) (`log1p_backward`).
pub fn log1p_backward<T: Tensor>(grad: &T, self_: &T) -> Result<T, Error> {
    let dense = if is_sparse(super::layout(self_)?) {
        to_dense(self_, None, None)?
    } else {
        self_.clone()
    };
    let self_p1_conj = conj(&add_s(&dense, 1)?)?;
    if is_sparse(super::layout(grad)?) {
        return mul(grad, &reciprocal(&self_p1_conj)?);
    }
    div(grad, &self_p1_conj)
}

/// `sinc`'s derivative: `grad * ((πx cos πx - sin πx) / (πx²)).conj()`, 0 at 0
/// (`sinc_backward`).
pub fn sinc_backward<T: Tensor>(grad: &T, self_: &T) -> Result<T, Error> {
    let pi = std::f64::consts::PI;
    let self_pi = mul_n(self_, pi)?;
    let self_squared_pi = mul_n(&mul(self_, self_)?, pi)?;
    let numerator = sub(&mul(&self_pi, &cos(&self_pi)?)?, &sin(&self_pi)?)?;
    let out = mul(grad, &conj(&div(&numerator, &self_squared_pi)?)?)?;
    let zero = scalar_tensor(0.0, options(grad)?)?;
    where_(&eq_s(&self_squared_pi, Scalar::Float(0.0))?, &zero, &out)
}

/// The machine epsilon of a floating dtype (`AT_DISPATCH_FLOATING_TYPES`: float and
/// double only).
fn epsilon(dtype: ScalarType, name: &str) -> Result<f64, Error> {
    match dtype {
        ScalarType::Double => Ok(f64::EPSILON),
        ScalarType::Float => Ok(f64::from(f32::EPSILON)),
        other => Err(Error::from(format!(
            "\"{name}\" not implemented for '{other}'"
        ))),
    }
}

/// `special_i1`'s derivative: `grad * (i0(x) - i1(x) / x)`, 0.5 where `|x|` is at most the
/// dtype's epsilon (`i1_backward`).
pub fn i1_backward<T: Tensor>(grad: &T, self_: &T, result: &T) -> Result<T, Error> {
    let eps = epsilon(scalar_type(self_)?, "i1_backward")?;
    let (not_tiny, safe) = safe_nonzero(self_, eps)?;
    let gradx = sub(&i0(&safe)?, &mul(result, &reciprocal(&safe)?)?)?;
    let half = scalar_tensor(0.5, options(self_)?)?;
    mul(grad, &where_(&not_tiny, &gradx, &half)?)
}

/// `special_i1e`'s derivative: `grad * (i0e(x) - i1e(x) * (sgn(x) + 1/x))`, 0.5 where `|x|`
/// is at most the dtype's epsilon (`i1e_backward`).
pub fn i1e_backward<T: Tensor>(grad: &T, self_: &T, result: &T) -> Result<T, Error> {
    let eps = epsilon(scalar_type(self_)?, "i1e_backward")?;
    let (not_tiny, safe) = safe_nonzero(self_, eps)?;
    let factor = add(&sgn(&safe)?, &reciprocal(&safe)?)?;
    let gradx = sub(&special_i0e(&safe)?, &mul(result, &factor)?)?;
    let half = scalar_tensor(0.5, options(self_)?)?;
    mul(grad, &where_(&not_tiny, &gradx, &half)?)
}

/// `special_bessel_j1`'s derivative: `grad * (J0(x) - J1(x) / x)`, 0.5 (the limit) where
/// `|x|` is at most the dtype's epsilon (`bessel_j1_backward`).
pub fn bessel_j1_backward<T: Tensor>(grad: &T, self_: &T, result: &T) -> Result<T, Error> {
    let eps = epsilon(scalar_type(self_)?, "bessel_j1_backward")?;
    let (not_tiny, safe) = safe_nonzero(self_, eps)?;
    let gradx = sub(
        &special_bessel_j0(&safe)?,
        &mul(result, &reciprocal(&safe)?)?,
    )?;
    let half = scalar_tensor(0.5, options(self_)?)?;
    mul(grad, &where_(&not_tiny, &gradx, &half)?)
}

/// `special_bessel_y1`'s derivative: `grad * (Y0(x) - Y1(x) / x)` (`Y1` is singular at 0,
/// and so is its derivative) (`bessel_y1_backward`).
pub fn bessel_y1_backward<T: Tensor>(grad: &T, self_: &T, result: &T) -> Result<T, Error> {
    let gradx = sub(&special_bessel_y0(self_)?, &div(result, self_)?)?;
    mul(grad, &gradx)
}

/// `_test_warn_in_autograd`'s derivative: `grad`, with c10's warning `Warning: backwards`
/// written to standard error as `TORCH_WARN`'s default handler does (`warn_backwards`).
pub fn warn_backwards<T: Tensor>(grad: &T) -> Result<T, Error> {
    eprintln!("Warning: Warning: backwards");
    Ok(grad.clone())
}

/// `|x| > eps`, and `x` with `eps` where it is not.
fn safe_nonzero<T: Tensor>(x: &T, eps: f64) -> Result<(T, T), Error> {
    let not_tiny = gt_s(&abs(x)?, Scalar::Float(eps))?;
    let safe = where_(&not_tiny, x, &scalar_tensor(eps, options(x)?)?)?;
    Ok((not_tiny, safe))
}

/// `logit`'s derivative: `grad / (x (1 - x))` inside `[eps, 1 - eps]` (0 outside), or
/// inside `[0, 1]` (NaN outside) without `eps` (`infinitely_differentiable_logit_backward`).
pub fn infinitely_differentiable_logit_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    eps: Option<f64>,
) -> Result<T, Error> {
    let (lo, hi, outside) = match eps {
        Some(lo) => (lo, 1.0 - lo, 0.0),
        None => (0.0, 1.0, f64::NAN),
    };
    let inside = logical_and(
        &ge_s(self_, Scalar::Float(lo))?,
        &le_s(self_, Scalar::Float(hi))?,
    )?;
    let derivative = div(grad, &mul(self_, &rsub_s(1.0, self_)?)?)?;
    where_(
        &inside,
        &derivative,
        &scalar_tensor(outside, options(self_)?)?,
    )
}

/// `atan2`'s derivatives: `grad * other / (self² + other²)` and `-grad * self / (self² +
/// other²)` (`atan2_backward`).
pub fn atan2_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    other: &T,
    output_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    let recip = reciprocal(&add(&mul(self_, self_)?, &mul(other, other)?)?)?;
    let grad_self = if output_mask[0] {
        Some(mul(&mul(grad, other)?, &recip)?)
    } else {
        None
    };
    let grad_other = if output_mask[1] {
        Some(mul(&mul(grad, &neg(self_)?)?, &recip)?)
    } else {
        None
    };
    Ok((grad_self, grad_other))
}

/// `polar`'s derivatives: `Re(grad.conj() * sgn(result))` for `abs`, `Re(grad.conj() *
/// result * i)` for `angle` (`polar_backward`).
pub fn polar_backward<T: Tensor>(grad: &T, result: &T) -> Result<(Option<T>, Option<T>), Error> {
    let grad_conj = conj(grad)?;
    let grad_abs = real(&mul(&grad_conj, &sgn(result)?)?)?;
    let grad_angle = real(&mul(&grad_conj, &mul_s(result, I)?)?)?;
    Ok((Some(grad_abs), Some(grad_angle)))
}

/// `t` if `cond`, else no tensor (`wrap_opt_if`: what a node saves only when an input that
/// needs it requires grad).
pub fn wrap_opt_if<T: Tensor>(t: &T, cond: bool) -> Result<Option<T>, Error> {
    Ok(cond.then(|| t.clone()))
}
