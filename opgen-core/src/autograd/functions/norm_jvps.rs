//! Forward derivatives of normalization layers: batch, layer, group and RMS norm.

use super::ops::*;
use super::{size, sizes};
use crate::dispatch::{Error, Scalar, Tensor};

fn rank<T: Tensor>(t: &T) -> Result<usize, Error> {
    Ok(sizes(t)?.len())
}

fn undefined(what: &str) -> Error {
    Error::from(format!("{what} is undefined where the derivative needs it"))
}

/// The forward derivative of `1 / std(input)` over `dims` (`_invstd_jvp`).
fn invstd_jvp<T: Tensor>(
    input_p: &T,
    input_t: &T,
    mean_p: &T,
    invstd_p: &T,
    dims: &[i64],
    numel: i64,
    keepdim: bool,
) -> Result<T, Error> {
    let centered_t = sub(input_t, &mean_dim(input_t, dims, true)?)?;
    let t = mul(
        &mul(&neg(&pow_s(invstd_p, Scalar::Int(3))?)?, &centered_t)?,
        &sub(input_p, mean_p)?,
    )?;
    div_n(&sum_dim(&t, dims, keepdim)?, numel)
}

/// The forward derivative of `(input - mean) * invstd` over `dims` (`_norm_jvp`).
fn norm_jvp_of<T: Tensor>(
    input_p: &T,
    input_t: &T,
    mean_p: &T,
    invstd_p: &T,
    dims: &[i64],
    numel: i64,
) -> Result<T, Error> {
    let invstd_t = invstd_jvp(input_p, input_t, mean_p, invstd_p, dims, numel, true)?;
    let first = mul(&sub(input_t, &mean_dim(input_t, dims, true)?)?, invstd_p)?;
    add(&first, &mul(&sub(input_p, mean_p)?, &invstd_t)?)
}

/// The forward derivative of `input * weight + bias` (`_affine_jvp`).
fn affine_jvp<T: Tensor>(
    input_p: Option<&T>,
    input_t: T,
    weight_p: Option<&T>,
    weight_t: Option<&T>,
    bias_t: Option<&T>,
) -> Result<T, Error> {
    let mut out = input_t;
    if let Some(wp) = weight_p {
        let ip = input_p.ok_or_else(|| undefined("the normalized input"))?;
        let wt = weight_t.map_or_else(|| zeros_like(wp), |t| Ok(t.clone()))?;
        out = add(&mul(&out, wp)?, &mul(ip, &wt)?)?;
    }
    if let Some(bt) = bias_t {
        out = add(&out, bt)?;
    }
    Ok(out)
}

/// `v.view(shape)` of an optional tensor.
fn view_opt<T: Tensor>(v: Option<&T>, shape: &[i64]) -> Result<Option<T>, Error> {
    v.map(|v| view(v, shape)).transpose()
}

/// `batch_norm`'s forward derivative, from the saved statistics in training and from the
/// running ones in evaluation (`batch_norm_jvp`).
#[allow(clippy::too_many_arguments)]
pub fn batch_norm_jvp<T: Tensor>(
    input_p: &T,
    input_t: &T,
    weight_p: Option<&T>,
    weight_t: Option<&T>,
    _bias_p: Option<&T>,
    bias_t: Option<&T>,
    running_mean: Option<&T>,
    running_var: Option<&T>,
    saved_mean: &T,
    saved_invstd: &T,
    train: bool,
    eps: f64,
) -> Result<T, Error> {
    let mut view_size = sizes(input_t)?;
    let (mut dims, mut numel) = (Vec::new(), 1);
    for (d, n) in view_size.iter_mut().enumerate() {
        if d != 1 {
            numel *= *n;
            *n = 1;
            dims.push(d as i64);
        }
    }
    let (mean_p, invstd_p, result_t) = if train {
        let mean_p = view(saved_mean, &view_size)?;
        let invstd_p = view(saved_invstd, &view_size)?;
        let result_t = norm_jvp_of(input_p, input_t, &mean_p, &invstd_p, &dims, numel)?;
        (mean_p, invstd_p, result_t)
    } else {
        let (rm, rv) = running_mean.zip(running_var).ok_or_else(|| {
            Error::from("Expect running_mean and running_var to have value when train=false")
        })?;
        let invstd = reciprocal(&sqrt(&add_s(rv, eps)?)?)?;
        let invstd_p = view(&invstd, &view_size)?;
        (
            view(rm, &view_size)?,
            invstd_p.clone(),
            mul(input_t, &invstd_p)?,
        )
    };
    let result_p = weight_p
        .map(|_| mul(&sub(input_p, &mean_p)?, &invstd_p))
        .transpose()?;
    affine_jvp(
        result_p.as_ref(),
        result_t,
        view_opt(weight_p, &view_size)?.as_ref(),
        view_opt(weight_t, &view_size)?.as_ref(),
        view_opt(bias_t, &view_size)?.as_ref(),
    )
}

/// The shapes of `layer_norm`-style statistics (1 over the normalized dimensions) and
/// affine parameters (1 over the others), the normalized dimensions, and their size.
fn normalized_views(input_shape: &[i64], normalized: usize) -> (Vec<i64>, Vec<i64>, Vec<i64>, i64) {
    let (mut view_size, mut affine) = (input_shape.to_vec(), input_shape.to_vec());
    let (mut dims, mut numel) = (Vec::new(), 1);
    let split = input_shape.len().saturating_sub(normalized);
    for i in 0..input_shape.len() {
        if i < split {
            affine[i] = 1;
        } else {
            numel *= input_shape[i];
            view_size[i] = 1;
            dims.push(i as i64);
        }
    }
    (view_size, affine, dims, numel)
}

/// `layer_norm`'s forward derivative (`layer_norm_jvp`).
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_jvp<T: Tensor>(
    input_p: &T,
    input_t: &T,
    weight_p: Option<&T>,
    weight_t: Option<&T>,
    _bias_p: Option<&T>,
    bias_t: Option<&T>,
    saved_mean: &T,
    saved_invstd: &T,
    normalized_shape: &[i64],
) -> Result<T, Error> {
    let (view_size, affine, dims, numel) =
        normalized_views(&sizes(input_t)?, normalized_shape.len());
    let mean_p = view(saved_mean, &view_size)?;
    let invstd_p = view(saved_invstd, &view_size)?;
    let result_t = norm_jvp_of(input_p, input_t, &mean_p, &invstd_p, &dims, numel)?;
    let result_p = weight_p
        .map(|_| mul(&sub(input_p, &mean_p)?, &invstd_p))
        .transpose()?;
    affine_jvp(
        result_p.as_ref(),
        result_t,
        view_opt(weight_p, &affine)?.as_ref(),
        view_opt(weight_t, &affine)?.as_ref(),
        view_opt(bias_t, &affine)?.as_ref(),
    )
}

/// The forward derivative of `rstd = 1 / sqrt(mean(x²) + eps)` over the normalized
/// dimensions, viewed for broadcasting.
fn rstd_t<T: Tensor>(
    input_p: &T,
    input_t: &T,
    rstd_p: &T,
    dims: &[i64],
    numel: i64,
) -> Result<T, Error> {
    let t = mul(
        &mul(&neg(&pow_s(rstd_p, Scalar::Int(3))?)?, input_t)?,
        input_p,
    )?;
    div_n(&sum_dim(&t, dims, true)?, numel)
}

/// `rms_norm`'s forward derivative (`rms_norm_jvp`).
pub fn rms_norm_jvp<T: Tensor>(
    input_p: &T,
    input_t: &T,
    weight_p: Option<&T>,
    weight_t: Option<&T>,
    saved_rstd: &T,
    normalized_shape: &[i64],
) -> Result<T, Error> {
    let (view_size, affine, dims, numel) =
        normalized_views(&sizes(input_t)?, normalized_shape.len());
    let rstd_p = view(saved_rstd, &view_size)?;
    let d_rstd = rstd_t(input_p, input_t, &rstd_p, &dims, numel)?;
    let result_t = add(&mul(input_t, &rstd_p)?, &mul(input_p, &d_rstd)?)?;
    let result_p = weight_p.map(|_| mul(input_p, &rstd_p)).transpose()?;
    affine_jvp(
        result_p.as_ref(),
        result_t,
        view_opt(weight_p, &affine)?.as_ref(),
        view_opt(weight_t, &affine)?.as_ref(),
        None,
    )
}

/// `rms_norm`'s forward derivative for `rstd` (`rms_norm_rstd_jvp`).
pub fn rms_norm_rstd_jvp<T: Tensor>(
    input_p: &T,
    input_t: &T,
    saved_rstd: &T,
    normalized_shape: &[i64],
) -> Result<T, Error> {
    let (view_size, _, dims, numel) = normalized_views(&sizes(input_t)?, normalized_shape.len());
    rstd_t(
        input_p,
        input_t,
        &view(saved_rstd, &view_size)?,
        &dims,
        numel,
    )
}

/// The `(1, N * groups, -1)` view group norm computes its statistics over.
fn group_view<T: Tensor>(input: &T, groups: i64) -> Result<Vec<i64>, Error> {
    let n = size(input, 0)?;
    Ok(vec![1, n * groups, if n != 0 { -1 } else { 1 }])
}

/// `group_norm`'s forward derivative: batch norm's over the groups, then the affine map per
/// channel (`group_norm_jvp`).
#[allow(clippy::too_many_arguments)]
pub fn group_norm_jvp<T: Tensor>(
    input_p: &T,
    input_t: &T,
    weight_p: Option<&T>,
    weight_t: Option<&T>,
    _bias_p: Option<&T>,
    bias_t: Option<&T>,
    saved_mean: &T,
    saved_invstd: &T,
    groups: i64,
) -> Result<T, Error> {
    let input_shape = sizes(input_p)?;
    let shape = group_view(input_p, groups)?;
    let input_t_r = view(input_t, &shape)?;
    let input_p_r = view(input_p, &shape)?;
    let result_t = batch_norm_jvp(
        &input_p_r,
        &input_t_r,
        None,
        None,
        None,
        None,
        None,
        None,
        saved_mean,
        saved_invstd,
        true,
        0.0,
    )?;
    let result_t = view(&result_t, &input_shape)?;
    let result_p = match weight_p {
        Some(_) => {
            let mut vs = vec![1; rank(&input_t_r)?];
            vs[1] = size(&input_t_r, 1)?;
            let normalized = mul(
                &sub(&input_p_r, &view(saved_mean, &vs)?)?,
                &view(saved_invstd, &vs)?,
            )?;
            Some(view(&normalized, &input_shape)?)
        }
        None => None,
    };
    let mut affine = vec![1; input_shape.len()];
    affine[1] = input_shape[1];
    affine_jvp(
        result_p.as_ref(),
        result_t,
        view_opt(weight_p, &affine)?.as_ref(),
        view_opt(weight_t, &affine)?.as_ref(),
        view_opt(bias_t, &affine)?.as_ref(),
    )
}

/// `group_norm`'s forward derivative for the mean (`group_norm_mean_jvp`).
pub fn group_norm_mean_jvp<T: Tensor>(input_t: &T, mean_p: &T, groups: i64) -> Result<T, Error> {
    let reshaped = view(input_t, &group_view(input_t, groups)?)?;
    view_as(&mean_dim(&reshaped, &[2], false)?, mean_p)
}

/// `group_norm`'s forward derivative for the inverse standard deviation
/// (`group_norm_invstd_jvp`).
pub fn group_norm_invstd_jvp<T: Tensor>(
    input_p: &T,
    input_t: &T,
    mean_p: &T,
    invstd_p: &T,
    groups: i64,
) -> Result<T, Error> {
    let shape = group_view(input_p, groups)?;
    let input_t_r = view(input_t, &shape)?;
    let input_p_r = view(input_p, &shape)?;
    let numel = size(&input_t_r, 2)?;
    // PyTorch passes the tangent and the primal in this order; the value is the same.
    let jvp = invstd_jvp(
        &input_t_r,
        &input_p_r,
        &view(mean_p, &shape)?,
        &view(invstd_p, &shape)?,
        &[2],
        numel,
        false,
    )?;
    view_as(&jvp, invstd_p)
}
