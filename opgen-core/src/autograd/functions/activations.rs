//! Derivatives of activation functions written to be differentiable again (SiLU, Mish),
//! second derivatives of activations (ELU, GELU, softplus, log-sigmoid, GLU, softmax), and
//! dropout's.

use super::ops::*;
use super::{options, size, wrap_dim};
use crate::autograd::requires_grad;
use crate::dispatch::{Error, Scalar, Tensor};

/// `silu`'s derivative, in differentiable operators: `grad * σ(x) * (1 + x (1 - σ(x)))`
/// (`infinitely_differentiable_silu_backward`).
pub fn infinitely_differentiable_silu_backward<T: Tensor>(
    grad_output: &T,
    input: &T,
) -> Result<T, Error> {
    let s = sigmoid(input)?;
    let inner = add_s(&mul(input, &rsub_s(1.0, &s)?)?, 1.0)?;
    mul(&mul(grad_output, &s)?, &inner)
}

/// `mish`'s derivative, in differentiable operators: `grad * (tanh(sp) + x σ(x) (1 -
/// tanh²(sp)))` with `sp = log1p(exp(x))` (`infinitely_differentiable_mish_backward`).
pub fn infinitely_differentiable_mish_backward<T: Tensor>(
    grad_output: &T,
    input: &T,
) -> Result<T, Error> {
    let s = sigmoid(input)?;
    let tanh_softplus = tanh(&log1p(&exp(input)?)?)?;
    let squared = mul(&tanh_softplus, &tanh_softplus)?;
    let term = mul(&mul(input, &s)?, &rsub_s(1.0, &squared)?)?;
    mul(grad_output, &add(&tanh_softplus, &term)?)
}

/// `gelu_backward`'s derivative for its input: `ggI * gO * d²gelu/dx²`, for the exact GELU
/// or its `tanh` approximation (`gelu_double_backward`).
pub fn gelu_double_backward<T: Tensor>(
    ggi: &T,
    go: &T,
    input: &T,
    approximate: &str,
) -> Result<T, Error> {
    let factor = if approximate == "tanh" {
        gelu_tanh_second_derivative(input)?
    } else {
        let beta = std::f64::consts::FRAC_2_SQRT_PI * std::f64::consts::FRAC_1_SQRT_2 * 0.5;
        let input_sq = mul(input, input)?;
        let pdf = mul_n(&exp(&mul_n(&input_sq, -0.5)?)?, beta)?;
        sub(&mul_n(&pdf, 2.0)?, &mul(&input_sq, &pdf)?)?
    };
    mul(&mul(ggi, go)?, &factor)
}

/// The second derivative of `0.5 x (1 + tanh(β (x + κ x³)))`.
fn gelu_tanh_second_derivative<T: Tensor>(x: &T) -> Result<T, Error> {
    let beta = std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5;
    let kappa = 0.044715;
    let inner = mul_n(&add(x, &mul_n(&pow_s(x, Scalar::Int(3))?, kappa)?)?, beta)?;
    let tanh_inner = tanh(&inner)?;
    let sech_inner = reciprocal(&cosh(&inner)?)?;
    let f = mul_n(x, 0.5)?;
    let g = rsub_s(1, &mul(&tanh_inner, &tanh_inner)?)?;
    let h = mul_n(&add_s(&mul_n(&mul(x, x)?, 3.0 * kappa)?, 1)?, beta)?;
    let f_prime_gh = mul_n(&mul(&g, &h)?, 0.5)?;
    let g_prime = mul(
        &mul(
            &mul_n(&sech_inner, 2.0)?,
            &neg(&mul(&sech_inner, &tanh_inner)?)?,
        )?,
        &h,
    )?;
    let g_prime_fh = mul(&mul(&f, &h)?, &g_prime)?;
    let h_prime = mul_n(x, 6.0 * kappa * beta)?;
    let h_prime_fg = mul(&mul(&f, &g)?, &h_prime)?;
    add(&add(&mul_n(&f_prime_gh, 2.0)?, &g_prime_fh)?, &h_prime_fg)
}

/// `elu_backward`'s derivative for its input (`elu_double_backward`): through the result,
/// `grad * gO * input_scale` where it is negative; through the input, `elu_backward` of
/// `grad * gO * input_scale` where the input is negative.
pub fn elu_double_backward<T: Tensor>(
    grad: &T,
    grad_output: &T,
    alpha: Scalar,
    scale: Scalar,
    input_scale: Scalar,
    is_result: bool,
    self_or_result: &T,
) -> Result<T, Error> {
    let negative = type_as(&lt_s(self_or_result, Scalar::Int(0))?, grad)?;
    let scaled = mul_s(&mul(grad, grad_output)?, input_scale)?;
    if is_result {
        return mul(&scaled, &negative);
    }
    let back = elu_backward(
        &scaled,
        alpha,
        scale,
        input_scale,
        is_result,
        self_or_result,
    )?;
    mul(&back, &negative)
}

/// `softplus_backward`'s derivative for its input: `sigmoid_backward(grad, σ(βx)) * β`
/// where `βx < threshold` (`softplus_double_backward`).
pub fn softplus_double_backward<T: Tensor>(
    grad: &T,
    input: &T,
    beta: Scalar,
    threshold: Scalar,
) -> Result<T, Error> {
    let x = mul_s(input, beta)?;
    let below = type_as(&lt_s(&x, threshold)?, grad)?;
    mul_s(&mul(&sigmoid_backward(grad, &sigmoid(&x)?)?, &below)?, beta)
}

/// `log_sigmoid_backward`'s derivative for its input: `grad * (σ(x) - 1) σ(x)`
/// (`log_sigmoid_double_backward`).
pub fn log_sigmoid_double_backward<T: Tensor>(grad: &T, input: &T) -> Result<T, Error> {
    let z = sigmoid(input)?;
    mul(&mul(grad, &sub_s(&z, 1)?)?, &z)
}

/// `glu_backward`'s derivative for its input (`glu_double_backward`), with `a, b` the halves
/// of the input along `dim` and `σ = σ(b)`: `ggI_b gO σ(1-σ)` for `a`, `ggI_b a gO
/// σ(1-σ)(1-2σ) + ggI_a gO σ(1-σ)` for `b`.
pub fn glu_double_backward<T: Tensor>(
    grad: &T,
    grad_output: &T,
    input: &T,
    dim: i64,
) -> Result<T, Error> {
    let half = size(input, dim)? / 2;
    let first_half = narrow(input, dim, 0, half)?;
    let sig = sigmoid(&narrow(input, dim, half, half)?)?;
    let one_sub_sig = rsub_s(1, &sig)?;
    let sig_one_sub_sig = mul(&sig, &one_sub_sig)?;
    let ggi_first = narrow(grad, dim, 0, half)?;
    let ggi_second = narrow(grad, dim, half, half)?;
    let gi_first = mul(&mul(&ggi_second, grad_output)?, &sig_one_sub_sig)?;
    let second_order = sub(
        &mul(&sig_one_sub_sig, &one_sub_sig)?,
        &mul(&sig, &sig_one_sub_sig)?,
    )?;
    let gi_second = add(
        &mul(
            &mul(&mul(&ggi_second, &first_half)?, grad_output)?,
            &second_order,
        )?,
        &mul(&mul(&ggi_first, grad_output)?, &sig_one_sub_sig)?,
    )?;
    cat(&[gi_first, gi_second], dim)
}

/// `glu_backward`'s derivative for its `grad_output`: the halves of `grad * glu_backward(1,
/// input)` added (`glu_double_backward_grad_output`).
pub fn glu_double_backward_grad_output<T: Tensor>(
    grad: &T,
    input: &T,
    dim: i64,
) -> Result<T, Error> {
    let mut sizes = input.sizes()?;
    let d = wrap_dim(dim, sizes.len())?;
    sizes[d] /= 2;
    let half = sizes[d];
    let ones = ones_o(&sizes, options(input)?)?;
    let d = d as i64;
    let tmp = mul(grad, &glu_backward(&ones, input, d)?)?;
    add(&narrow(&tmp, d, 0, half)?, &narrow(&tmp, d, half, half)?)
}

/// `_softmax_backward_data`'s derivative for `grad_output`: `gO * grad - (output *
/// gO).sum(dim) * grad - gO * (output * grad).sum(dim)` (`softmax_double_backward`).
pub fn softmax_double_backward<T: Tensor>(
    grad: &T,
    grad_output: &T,
    dim: i64,
    output: &T,
) -> Result<T, Error> {
    let first = mul(grad_output, grad)?;
    let second = mul(&sum_dim(&mul(output, grad_output)?, &[dim], true)?, grad)?;
    let third = mul(grad_output, &sum_dim(&mul(output, grad)?, &[dim], true)?)?;
    sub(&sub(&first, &second)?, &third)
}

/// `_fused_dropout`'s derivative: `grad * mask / (1 - p)` (`p1m` is `1 - p`), written with
/// differentiable operators when `grad` requires grad, with `_masked_scale` otherwise
/// (`_fused_dropout_backward`).
pub fn _fused_dropout_backward<T: Tensor>(grad: &T, mask: &T, p1m: f64) -> Result<T, Error> {
    if requires_grad(grad) {
        return mul(grad, &mul_n(&type_as(mask, grad)?, 1.0 / p1m)?);
    }
    masked_scale(grad, mask, 1.0 / p1m)
}

/// `native_dropout`'s derivative: `grad * mask * scale`
/// (`infinitely_differentiable_native_dropout_backward`).
pub fn infinitely_differentiable_native_dropout_backward<T: Tensor>(
    grad: &T,
    mask: &T,
    scale: f64,
) -> Result<T, Error> {
    mul(grad, &mul_n(&type_as(mask, grad)?, scale)?)
}

/// `native_dropout_backward`'s derivative for its `grad_output`: `ggI * mask * scale`
/// (`native_dropout_double_backward`).
pub fn native_dropout_double_backward<T: Tensor>(
    ggi: &T,
    grad: &T,
    mask: &T,
    scale: f64,
) -> Result<T, Error> {
    mul(&type_as(ggi, grad)?, &mul_n(&type_as(mask, grad)?, scale)?)
}
