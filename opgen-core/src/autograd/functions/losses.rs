//! Derivatives of loss functions: reductions, binary cross-entropy (with and without
//! logits), and the second derivatives of the smooth L1, Huber, MSE and soft-margin losses.

use super::numel;
use super::ops::*;
use crate::dispatch::{Error, Scalar, Tensor};

/// `at::Reduction::Mean`.
const MEAN: i64 = 1;
/// `at::Reduction::Sum`.
const SUM: i64 = 2;
/// `at::Reduction::None`.
const NONE: i64 = 0;

/// A loss's elementwise values reduced as `reduction` asks: their mean, their sum, or
/// themselves (`apply_loss_reduction`).
pub fn apply_loss_reduction<T: Tensor>(unreduced: &T, reduction: i64) -> Result<T, Error> {
    match reduction {
        MEAN => mean_all(unreduced, None),
        SUM => sum(unreduced),
        _ => Ok(unreduced.clone()),
    }
}

/// `t` divided by the number of elements of `of` when the reduction is the mean.
fn mean_scaled<T: Tensor>(t: T, of: &T, reduction: i64) -> Result<T, Error> {
    if reduction == MEAN {
        return div_n(&t, numel(of)?);
    }
    Ok(t)
}

/// `t * weight` when a weight is given.
fn weighted<T: Tensor>(t: T, weight: Option<&T>) -> Result<T, Error> {
    match weight {
        Some(w) => mul(&t, w),
        None => Ok(t),
    }
}

/// `binary_cross_entropy`'s derivative for the target: `-logit(self) * grad * weight`
/// (`binary_cross_entropy_target_backward`).
pub fn binary_cross_entropy_target_backward<T: Tensor>(
    grad: &T,
    self_: &T,
    target: &T,
    weight: Option<&T>,
    reduction: i64,
) -> Result<T, Error> {
    let grad_target = mul(&neg(&logit(self_, None)?)?, grad)?;
    mean_scaled(weighted(grad_target, weight)?, target, reduction)
}

/// `binary_cross_entropy_backward`'s derivative for the target: `-grad * grad_output *
/// weight / max(self (1 - self), 1e-12)` (`binary_cross_entropy_double_backward_target`).
pub fn binary_cross_entropy_double_backward_target<T: Tensor>(
    grad: &T,
    grad_output: &T,
    self_: &T,
    target: &T,
    weight: Option<&T>,
    reduction: i64,
) -> Result<T, Error> {
    let res = weighted(mul(&neg(grad)?, grad_output)?, weight)?;
    let denom = {
        let _guard = crate::autograd::NoGradGuard::new();
        clamp_min(&mul(&rsub_s(1, self_)?, self_)?, Scalar::Float(1e-12))?
    };
    mean_scaled(div(&res, &denom)?, target, reduction)
}

/// `binary_cross_entropy_with_logits`'s derivative for the input: `(σ(x)(1 + (p - 1) y) -
/// p y) * grad * weight` with `p` the positive weight (`σ(x) - y` without one)
/// (`binary_cross_entropy_with_logits_backward`).
pub fn binary_cross_entropy_with_logits_backward<T: Tensor>(
    grad: &T,
    input: &T,
    target: &T,
    weight: Option<&T>,
    pos_weight: Option<&T>,
    reduction: i64,
) -> Result<T, Error> {
    let grad_input = match pos_weight {
        Some(pw) => {
            let t = mul(pw, target)?;
            sub(&mul(&sub(&add_s(&t, 1)?, target)?, &sigmoid(input)?)?, &t)?
        }
        None => sub(&sigmoid(input)?, target)?,
    };
    let grad_input = weighted(mul(&grad_input, grad)?, weight)?;
    mean_scaled(grad_input, input, reduction)
}

/// `binary_cross_entropy_with_logits`'s derivative for the target: `(log σ(-x) - p log σ(x))
/// * grad * weight` (`-x * grad * weight` without a positive weight)
/// (`binary_cross_entropy_with_logits_target_backward`).
pub fn binary_cross_entropy_with_logits_target_backward<T: Tensor>(
    grad_output: &T,
    self_: &T,
    target: &T,
    weight: Option<&T>,
    pos_weight: Option<&T>,
    reduction: i64,
) -> Result<T, Error> {
    let grad_target = match pos_weight {
        Some(pw) => {
            let terms = sub(&log_sigmoid(&neg(self_)?)?, &mul(&log_sigmoid(self_)?, pw)?)?;
            mul(&terms, grad_output)?
        }
        None => mul(&neg(self_)?, grad_output)?,
    };
    mean_scaled(weighted(grad_target, weight)?, target, reduction)
}

/// `binary_cross_entropy_backward`'s derivative for the input: `(x² - 2xy + y) / ((x +
/// ε)² (1 - x + ε)²) * grad * grad_output * weight`, ε = 1e-12
/// (`binary_cross_entropy_double_backward`).
pub fn binary_cross_entropy_double_backward<T: Tensor>(
    grad_output: &T,
    grad: &T,
    input: &T,
    target: &T,
    weight: Option<&T>,
    reduction: i64,
) -> Result<T, Error> {
    let eps = 1e-12;
    let inp_pl_eps = add_s(input, eps)?;
    let one_m_inp_pl_eps = add_s(&rsub_s(1, input)?, eps)?;
    let numerator = add(
        &sub(&mul(input, input)?, &mul_n(&mul(input, target)?, 2)?)?,
        target,
    )?;
    let two = Scalar::Int(2);
    let denominator = mul(&pow_s(&inp_pl_eps, two)?, &pow_s(&one_m_inp_pl_eps, two)?)?;
    let gi = mul(&div(&numerator, &denominator)?, &mul(grad, grad_output)?)?;
    mean_scaled(weighted(gi, weight)?, input, reduction)
}

/// `binary_cross_entropy_backward`'s derivative for `grad_output`: `(x - y) / ((x + ε)(1 - x
/// + ε)) * grad * weight` (`binary_cross_entropy_double_backward_grad_output`).
pub fn binary_cross_entropy_double_backward_grad_output<T: Tensor>(
    grad: &T,
    input: &T,
    target: &T,
    weight: Option<&T>,
    reduction: i64,
) -> Result<T, Error> {
    let eps = 1e-12;
    let denominator = mul(&add_s(input, eps)?, &add_s(&rsub_s(1, input)?, eps)?)?;
    let ggo = mul(&div(&sub(input, target)?, &denominator)?, grad)?;
    mean_scaled(weighted(ggo, weight)?, input, reduction)
}

/// `smooth_l1_loss_backward`'s derivative for the input: `grad / beta` where `|x - y| <
/// beta` (zeros for `beta == 0`) (`smooth_l1_loss_double_backward`).
pub fn smooth_l1_loss_double_backward<T: Tensor>(
    grad: &T,
    input: &T,
    target: &T,
    reduction: i64,
    beta: f64,
) -> Result<T, Error> {
    if beta == 0.0 {
        return zeros_o(&grad.sizes()?, grad.options()?);
    }
    let d = abs(&sub(input, target)?)?;
    let inside = type_as(&lt_s(&d, Scalar::Float(beta))?, grad)?;
    mean_scaled(div_n(&mul(grad, &inside)?, beta)?, input, reduction)
}

/// `huber_loss_backward`'s derivative for the input: `grad` where `|x - y| < delta`
/// (`huber_loss_double_backward`).
pub fn huber_loss_double_backward<T: Tensor>(
    grad: &T,
    input: &T,
    target: &T,
    reduction: i64,
    delta: f64,
) -> Result<T, Error> {
    let d = abs(&sub(input, target)?)?;
    mean_scaled(
        mul(grad, &lt_s(&d, Scalar::Float(delta))?)?,
        input,
        reduction,
    )
}

/// `huber_loss_backward`'s derivative for `grad_output`: `huber_loss_backward(grad)`
/// unreduced, `Σ grad * huber_loss_backward(1)` reduced
/// (`huber_loss_double_backward_grad_output`).
pub fn huber_loss_double_backward_grad_output<T: Tensor>(
    grad: &T,
    grad_output: &T,
    input: &T,
    target: &T,
    reduction: i64,
    delta: f64,
) -> Result<T, Error> {
    if reduction == NONE {
        return huber_loss_backward(grad, input, target, reduction, delta);
    }
    let r = huber_loss_backward(&ones_like(grad_output)?, input, target, reduction, delta)?;
    sum(&mul(&r, grad)?)
}

/// `mse_loss_backward`'s derivative for the input: `2 grad` (`mse_loss_double_backward`).
pub fn mse_loss_double_backward<T: Tensor>(
    grad: &T,
    input: &T,
    reduction: i64,
) -> Result<T, Error> {
    mean_scaled(mul_n(grad, 2)?, input, reduction)
}

/// `soft_margin_loss_backward`'s derivative for the input: `grad y² z / (1 + z)²` with `z =
/// exp(-x y)` (`soft_margin_loss_double_backward`).
pub fn soft_margin_loss_double_backward<T: Tensor>(
    grad: &T,
    input: &T,
    target: &T,
    reduction: i64,
) -> Result<T, Error> {
    let z = exp(&mul(input, &neg(target)?)?)?;
    let zplus1 = add_s(&z, 1)?;
    let numerator = mul(&mul(grad, &mul(target, target)?)?, &z)?;
    mean_scaled(div(&numerator, &mul(&zplus1, &zplus1)?)?, input, reduction)
}

/// `soft_margin_loss_backward`'s derivative for `grad_output`
/// (`soft_margin_loss_double_backward_grad_output`).
pub fn soft_margin_loss_double_backward_grad_output<T: Tensor>(
    grad: &T,
    grad_output: &T,
    input: &T,
    target: &T,
    reduction: i64,
) -> Result<T, Error> {
    if reduction == NONE {
        return soft_margin_loss_backward(grad, input, target, reduction);
    }
    let r = soft_margin_loss_backward(&ones_like(grad_output)?, input, target, reduction)?;
    sum(&mul(&r, grad)?)
}

/// The CTC losses' derivative from the raw gradient cuDNN returns: `raw * grad`, 0 for
/// infinite losses when `zero_infinity` (`_cudnn_ctc_loss_backward`).
pub fn _cudnn_ctc_loss_backward<T: Tensor>(
    grad_out: &T,
    loss: &T,
    raw_grad: &T,
    zero_infinity: bool,
) -> Result<T, Error> {
    let expanded = unsqueeze(&unsqueeze(grad_out, 0)?, 2)?;
    let scaled = mul(raw_grad, &expanded)?;
    if !zero_infinity {
        return Ok(scaled);
    }
    let zero_loss = eq_s(&unsqueeze(&unsqueeze(loss, 0)?, 2)?, Scalar::Int(0))?;
    where_(&zero_loss, &zeros_o(&[], raw_grad.options()?)?, &scaled)
}

/// MIOpen's CTC loss' derivative from its raw gradient, as cuDNN's:
/// `raw * grad`, 0 for infinite losses when `zero_infinity` (`_miopen_ctc_loss_backward`).
pub fn _miopen_ctc_loss_backward<T: Tensor>(
    grad_out: &T,
    loss: &T,
    raw_grad: &T,
    zero_infinity: bool,
) -> Result<T, Error> {
    _cudnn_ctc_loss_backward(grad_out, loss, raw_grad, zero_infinity)
}
