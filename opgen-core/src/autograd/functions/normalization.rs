//! Second derivatives of normalization layers: batch, layer and RMS norm.

use super::Gradients3;
use super::ops::*;
use super::{options, scalar_type, sizes};
use crate::dispatch::{Error, Scalar, Tensor};

fn rank<T: Tensor>(t: &T) -> Result<usize, Error> {
    Ok(sizes(t)?.len())
}

/// `a + b` where either may be missing.
fn plus<T: Tensor>(a: Option<T>, b: T) -> Result<T, Error> {
    match a {
        Some(a) => add(&a, &b),
        None => Ok(b),
    }
}

/// `t` summed over every dimension but 1 (`sum_exclude_dim1`).
fn sum_exclude_dim1<T: Tensor>(t: &T, keepdim: bool) -> Result<T, Error> {
    let mut r = sum_dim(t, &[0], keepdim)?;
    let start = usize::from(keepdim);
    for d in (start + 1..rank(&r)?).rev() {
        r = sum_dim(&r, &[d as i64], keepdim)?;
    }
    Ok(r)
}

/// A per-channel `src` shaped to broadcast against `target` as if reduced with keepdim
/// (`unsqueeze_dim1`).
fn unsqueeze_dim1<T: Tensor>(src: &T, target: &T) -> Result<T, Error> {
    let target_rank = rank(target)?;
    let mut s = src.clone();
    while rank(&s)? + 1 < target_rank {
        s = unsqueeze(&s, 1)?;
    }
    if rank(&s)? + 1 == target_rank {
        s = unsqueeze(&s, 0)?;
    }
    Ok(s)
}

/// A per-channel `src` expanded to `target`'s shape (`expand_as_dim1`).
fn expand_as_dim1<T: Tensor>(src: &T, target: &T) -> Result<T, Error> {
    let target_rank = rank(target)?;
    let mut s = src.clone();
    while rank(&s)? + 1 < target_rank {
        s = unsqueeze(&s, 1)?;
    }
    expand_as(&s, target)
}

fn undefined(what: &str) -> Error {
    Error::from(format!("{what} is undefined where the derivative needs it"))
}

/// `batch_norm`'s second derivatives: for the input, the weight and `grad_output`, from the
/// gradients `ggI`, `ggG`, `ggB` of the first backward's results
/// (`batchnorm_double_backward`).
#[allow(clippy::too_many_arguments)]
pub fn batchnorm_double_backward<T: Tensor>(
    input: &T,
    gamma: Option<&T>,
    ggi: Option<&T>,
    ggg: Option<&T>,
    ggb: Option<&T>,
    go: &T,
    running_mean: Option<&T>,
    running_var: Option<&T>,
    training: bool,
    eps: f64,
    save_mean: Option<&T>,
    save_invstd: Option<&T>,
    output_mask: [bool; 3],
) -> Result<Gradients3<T>, Error> {
    let affine = gamma.is_some();
    let (gamma_expanded, ggg_expanded, ggb_expanded) = match gamma {
        Some(g) => (
            expand_as_dim1(g, input)?,
            ggg.map(|x| expand_as_dim1(x, input)).transpose()?,
            ggb.map(|x| expand_as_dim1(x, input)).transpose()?,
        ),
        None => (ones_o(&[], options(input)?)?, None, None),
    };
    let shape = sizes(input)?;
    let m = shape[0] * shape[2..].iter().product::<i64>();
    let mf = m as f64;
    let dtype = scalar_type(input)?;
    let mean = if training {
        to(save_mean.ok_or_else(|| undefined("save_mean"))?, dtype)?
    } else {
        running_mean
            .ok_or_else(|| undefined("running_mean"))?
            .clone()
    };
    let mu = unsqueeze_dim1(&mean, input)?;
    let input_sub_mu = sub(input, &mu)?;
    let invstd = if training {
        to(save_invstd.ok_or_else(|| undefined("save_invstd"))?, dtype)?
    } else {
        pow_s(
            &add_s(running_var.ok_or_else(|| undefined("running_var"))?, eps)?,
            Scalar::Float(-0.5),
        )?
    };
    let s_1_2 = unsqueeze_dim1(&invstd, input)?;
    let s_1 = pow_s(&s_1_2, Scalar::Int(2))?;
    let s_3_2 = pow_s(&s_1_2, Scalar::Int(3))?;
    let input_mu_s_3_2 = mul(&input_sub_mu, &s_3_2)?;
    let go_inmu_sum = sum_exclude_dim1(&mul(go, &input_sub_mu)?, true)?;
    let go_sum = sum_exclude_dim1(go, true)?;
    let mut gi = None;
    if let (Some(ggi), true) = (ggi, training) {
        let ggi_sum = sum_exclude_dim1(ggi, true)?;
        let ggi_inmu_sum = sum_exclude_dim1(&mul(ggi, &input_sub_mu)?, true)?;
        let all_sub = sub(
            &div_n(&mul(&ggi_sum, &go_sum)?, mf)?,
            &sum_exclude_dim1(&mul(go, ggi)?, true)?,
        )?;
        let cross = mul_n(&mul(&mul(&s_1, &go_inmu_sum)?, &ggi_inmu_sum)?, 3.0 / mf)?;
        let all_sub = add(&all_sub, &cross)?;
        let gi_0t = div_n(&mul(&input_mu_s_3_2, &all_sub)?, mf)?;
        let gi_1t = mul(
            &div_n(&mul(&ggi_inmu_sum, &s_3_2)?, mf)?,
            &sub(&div_n(&go_sum, mf)?, go)?,
        )?;
        let gi_2t = mul(
            &div_n(&mul(&go_inmu_sum, &s_3_2)?, mf)?,
            &sub(&div_n(&ggi_sum, mf)?, ggi)?,
        )?;
        gi = Some(mul(&gamma_expanded, &add(&add(&gi_0t, &gi_1t)?, &gi_2t)?)?);
    }
    if let (true, Some(ggg_e)) = (affine, &ggg_expanded) {
        let term = if training {
            let t0 = mul(go, &s_1_2)?;
            let t1 = div_n(&mul(&s_1_2, &go_sum)?, -mf)?;
            let t2 = div_n(&mul(&input_mu_s_3_2, &go_inmu_sum)?, -mf)?;
            mul(ggg_e, &add(&add(&t0, &t1)?, &t2)?)?
        } else {
            mul(&mul(ggg_e, &s_1_2)?, go)?
        };
        gi = Some(plus(gi, term)?);
    }
    let first_back = |go: &T, gamma: &T| -> Result<T, Error> {
        let h0 = div_n(&mul(gamma, &s_1_2)?, mf)?;
        let h1 = sub(&mul_n(go, m)?, &sum_exclude_dim1(go, true)?)?;
        let h1 = sub(
            &h1,
            &mul(
                &mul(&input_sub_mu, &s_1)?,
                &sum_exclude_dim1(&mul(go, &input_sub_mu)?, true)?,
            )?,
        )?;
        mul(&h0, &h1)
    };
    let gg = match ggi {
        Some(ggi) if affine && training => {
            let ones = ones_o(&[], options(&s_1_2)?)?;
            Some(sum_exclude_dim1(
                &mul(ggi, &first_back(go, &ones)?)?,
                false,
            )?)
        }
        Some(ggi) if affine => Some(sum_exclude_dim1(&mul(&mul(ggi, go)?, &s_1_2)?, false)?),
        _ => None,
    };
    let mut ggo = match ggi {
        Some(ggi) if training => Some(first_back(ggi, &gamma_expanded)?),
        Some(ggi) => Some(mul(&mul(ggi, &s_1_2)?, &gamma_expanded)?),
        None => None,
    };
    if ggg.is_some() {
        let ggg_e = ggg_expanded.as_ref().ok_or_else(|| undefined("gamma"))?;
        ggo = Some(plus(ggo, mul(&mul(ggg_e, &input_sub_mu)?, &s_1_2)?)?);
    }
    if ggb.is_some() {
        ggo = Some(plus(
            ggo,
            ggb_expanded.clone().ok_or_else(|| undefined("gamma"))?,
        )?);
    }
    if output_mask[1] && gg.is_none() && !affine {
        return Err(Error::from(
            "gamma should always be defined when it requires grad",
        ));
    }
    Ok((gi, gg, ggo))
}

/// `layer_norm`'s second derivatives, over the last `normalized_shape.len()` dimensions
/// (`layer_norm_double_backward`).
#[allow(clippy::too_many_arguments)]
pub fn layer_norm_double_backward<T: Tensor>(
    input_t: &T,
    gamma: Option<&T>,
    ggi: Option<&T>,
    ggg: Option<&T>,
    ggb: Option<&T>,
    go_t: &T,
    save_mean_t: &T,
    save_invstd_t: &T,
    normalized_shape: &[i64],
    output_mask: [bool; 3],
) -> Result<Gradients3<T>, Error> {
    let shape = sizes(input_t)?;
    let axis = shape
        .len()
        .checked_sub(normalized_shape.len())
        .ok_or_else(|| undefined("input"))?;
    let m: i64 = shape[..axis].iter().product();
    let n: i64 = shape[axis..].iter().product();
    let nf = n as f64;
    let input = reshape(input_t, &[m, n])?;
    let go = reshape(go_t, &[m, n])?;
    let save_mean = reshape(save_mean_t, &[m, 1])?;
    let save_invstd = reshape(save_invstd_t, &[m, 1])?;
    let affine = gamma.is_some();
    let (gamma_expanded, ggg_expanded, ggb_expanded) = match gamma {
        Some(g) => (
            reshape(g, &[1, n])?,
            ggg.map(|x| reshape(x, &[1, n])).transpose()?,
            ggb.map(|x| reshape(x, &[1, n])).transpose()?,
        ),
        None => (ones_o(&[1], options(&input)?)?, None, None),
    };
    let ggi_expanded = ggi.map(|x| reshape(x, &[m, n])).transpose()?;
    let dtype = scalar_type(&input)?;
    let input_sub_mu = sub(&input, &to(&save_mean, dtype)?)?;
    let s_1_2 = to(&save_invstd, dtype)?;
    let s_1 = pow_s(&s_1_2, Scalar::Int(2))?;
    let s_3_2 = pow_s(&s_1_2, Scalar::Int(3))?;
    let input_mu_s_3_2 = mul(&input_sub_mu, &s_3_2)?;
    let row_sum = |t: &T| sum_dim(t, &[1], true);
    let mut gi = None;
    if let Some(ggi_e) = &ggi_expanded {
        let gxhat = mul(&go, &gamma_expanded)?;
        let gxhat_mu_sum = row_sum(&mul(&gxhat, &input_sub_mu)?)?;
        let gxhat_sum = row_sum(&gxhat)?;
        let ggi_sum = row_sum(ggi_e)?;
        let ggi_mu_sum = row_sum(&mul(ggi_e, &input_sub_mu)?)?;
        let all_sub = sub(
            &div_n(&mul(&ggi_sum, &gxhat_sum)?, nf)?,
            &row_sum(&mul(ggi_e, &gxhat)?)?,
        )?;
        let all_sub = add(
            &all_sub,
            &mul_n(&mul(&mul(&s_1, &gxhat_mu_sum)?, &ggi_mu_sum)?, 3.0 / nf)?,
        )?;
        let gi_0t = div_n(&mul(&input_mu_s_3_2, &all_sub)?, nf)?;
        let gi_1t = mul(
            &div_n(&mul(&ggi_mu_sum, &s_3_2)?, nf)?,
            &sub(&div_n(&gxhat_sum, nf)?, &gxhat)?,
        )?;
        let gi_2t = mul(
            &div_n(&mul(&gxhat_mu_sum, &s_3_2)?, nf)?,
            &sub(&div_n(&ggi_sum, nf)?, ggi_e)?,
        )?;
        gi = Some(add(&add(&gi_0t, &gi_1t)?, &gi_2t)?);
    }
    if let (true, Some(ggg_e)) = (affine, &ggg_expanded) {
        let go_ggg = mul(&go, ggg_e)?;
        let t0 = mul(&go_ggg, &s_1_2)?;
        let t1 = div_n(&mul(&s_1_2, &row_sum(&go_ggg)?)?, -nf)?;
        let t2 = div_n(
            &mul(&input_mu_s_3_2, &row_sum(&mul(&go_ggg, &input_sub_mu)?)?)?,
            -nf,
        )?;
        gi = Some(plus(gi, add(&add(&t0, &t1)?, &t2)?)?);
    }
    let gi = gi.map(|g| reshape_as(&g, input_t)).transpose()?;
    let first_bwd = |go_local: &T, gamma_local: &T| -> Result<T, Error> {
        let h0 = div_n(&mul(gamma_local, &s_1_2)?, nf)?;
        let h1 = sub(&mul_n(go_local, n)?, &row_sum(go_local)?)?;
        let h1 = sub(
            &h1,
            &mul(
                &mul(&input_sub_mu, &s_1)?,
                &row_sum(&mul(go_local, &input_sub_mu)?)?,
            )?,
        )?;
        mul(&h0, &h1)
    };
    let gg = match (&ggi_expanded, gamma) {
        (Some(ggi_e), Some(g)) => {
            let ones = ones_o(&[], options(&s_1_2)?)?;
            let gg = sum_dim(&mul(&go, &first_bwd(ggi_e, &ones)?)?, &[0], false)?;
            Some(reshape_as(&gg, g)?)
        }
        _ => None,
    };
    let mut ggo = ggi_expanded
        .as_ref()
        .map(|g| first_bwd(g, &gamma_expanded))
        .transpose()?;
    if ggg.is_some() {
        let ggg_e = ggg_expanded.as_ref().ok_or_else(|| undefined("gamma"))?;
        ggo = Some(plus(ggo, mul(&mul(ggg_e, &input_sub_mu)?, &s_1_2)?)?);
    }
    if ggb.is_some() {
        ggo = Some(plus(
            ggo,
            ggb_expanded.clone().ok_or_else(|| undefined("gamma"))?,
        )?);
    }
    let ggo = ggo
        .map(|g| reshape_as(&expand(&g, &[m, n])?, input_t))
        .transpose()?;
    if output_mask[1] && gg.is_none() && !affine {
        return Err(Error::from(
            "gamma should always be defined when it requires grad",
        ));
    }
    Ok((gi, gg, ggo))
}

/// `_fused_rms_norm`'s derivative in differentiable operators, from the gradients of the
/// output and of `rstd` (`infinitely_differentiable_native_rms_norm_backward`).
pub fn infinitely_differentiable_native_rms_norm_backward<T: Tensor>(
    dy: Option<&T>,
    drstd: Option<&T>,
    input: &T,
    normalized_shape: &[i64],
    rstd: &T,
    weight: Option<&T>,
    grad_input_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    let shape = sizes(input)?;
    let axis = shape
        .len()
        .checked_sub(normalized_shape.len())
        .ok_or_else(|| undefined("input"))?;
    let n_rms = shape[axis..].iter().product::<i64>() as f64;
    let mut view_shape = sizes(rstd)?;
    let extra = normalized_shape.len().saturating_sub(view_shape.len());
    view_shape.extend(std::iter::repeat_n(1, extra));
    let rstd_b = view(rstd, &view_shape)?;
    let rstd_pow3 = pow_s(&rstd_b, Scalar::Int(3))?;
    let grad_x_hat = dy
        .map(|dy| weight.map_or(Ok(dy.clone()), |w| mul(dy, w)))
        .transpose()?;
    let scaled_input = div_n(&mul(input, &rstd_pow3)?, n_rms)?;
    let mut dx = None;
    if grad_input_mask[0] {
        let inner: Vec<i64> = (axis as i64..shape.len() as i64).collect();
        let from_dy = grad_x_hat
            .as_ref()
            .map(|gxh| {
                let s = sum_dim(&mul(input, gxh)?, &inner, true)?;
                sub(&mul(&rstd_b, gxh)?, &mul(&scaled_input, &s)?)
            })
            .transpose()?;
        let from_drstd = drstd
            .map(|d| neg(&mul(&scaled_input, &view(d, &view_shape)?)?))
            .transpose()?;
        dx = match (from_dy, from_drstd) {
            (Some(a), Some(b)) => Some(add(&a, &b)?),
            (a, b) => a.or(b),
        };
    }
    let mut dgamma = None;
    if let (true, Some(_), Some(dy)) = (grad_input_mask[1], weight, dy) {
        let full = mul(dy, &mul(input, &rstd_b)?)?;
        dgamma = Some(if axis > 0 {
            sum_dim(&full, &(0..axis as i64).collect::<Vec<_>>(), false)?
        } else {
            full
        });
    }
    Ok((dx, dgamma))
}

/// `native_group_norm`'s derivatives in differentiable operators (so that they can be
/// differentiated again), from the gradients of the output `dY`, of the mean and of the
/// reciprocal standard deviation. Per group of `D = C / group · HxW` elements, with
/// `x̂ = (x - μ) σ`: `dx = σ (dx̂ - mean(dx̂) - x̂ mean(dx̂ x̂)) + dμ / D - dσ σ³ (x - μ) / D`
/// where `dx̂ = dY γ`; `dγ = Σ dY x̂` and `dβ = Σ dY` over the batch and the spatial
/// dimensions (`native_group_norm_backward_dispatcher`).
#[allow(clippy::too_many_arguments)]
pub fn native_group_norm_backward_dispatcher<T: Tensor>(
    dy: Option<&T>,
    dmean: Option<&T>,
    drstd: Option<&T>,
    x: &T,
    mean: &T,
    rstd: &T,
    gamma: Option<&T>,
    n: i64,
    c: i64,
    hxw: i64,
    group: i64,
    output_mask: [bool; 3],
) -> Result<Gradients3<T>, Error> {
    if group <= 0 || c % group != 0 {
        return Err(Error::from(format!(
            "Expected number of channels in input to be divisible by num_groups, but got \
             input of shape {:?} and num_groups={group}",
            sizes(x)?
        )));
    }
    let d = c / group * hxw;
    let xg = reshape(x, &[n, group, d])?;
    let (mean_b, rstd_b) = (unsqueeze(mean, -1)?, unsqueeze(rstd, -1)?);
    let centered = sub(&xg, &mean_b)?;
    let x_hat = mul(&centered, &rstd_b)?;
    let dy_c = dy.map(|dy| reshape(dy, &[n, c, hxw])).transpose()?;
    let mut dx = None;
    if output_mask[0] {
        if let Some(dy_c) = &dy_c {
            let dx_hat = match gamma {
                Some(g) => mul(dy_c, &reshape(g, &[1, c, 1])?)?,
                None => dy_c.clone(),
            };
            let dx_hat = reshape(&dx_hat, &[n, group, d])?;
            let m1 = mean_dim(&dx_hat, &[-1], true)?;
            let m2 = mean_dim(&mul(&dx_hat, &x_hat)?, &[-1], true)?;
            let inner = sub(&sub(&dx_hat, &m1)?, &mul(&x_hat, &m2)?)?;
            dx = Some(mul(&rstd_b, &inner)?);
        }
        if let Some(dm) = dmean {
            let from_mean = div_n(&expand(&unsqueeze(dm, -1)?, &[n, group, d])?, d as f64)?;
            dx = Some(plus(dx, from_mean)?);
        }
        if let Some(ds) = drstd {
            let cubed = pow_s(&rstd_b, Scalar::Int(3))?;
            let per_x = div_n(&mul(&cubed, &centered)?, -(d as f64))?;
            dx = Some(plus(dx, mul(&unsqueeze(ds, -1)?, &per_x)?)?);
        }
        dx = dx.map(|t| reshape(&t, &sizes(x)?)).transpose()?;
    }
    let dgamma = match (&dy_c, output_mask[1]) {
        (Some(dy_c), true) => {
            let x_hat_c = reshape(&x_hat, &[n, c, hxw])?;
            Some(sum_dim(&mul(dy_c, &x_hat_c)?, &[0, 2], false)?)
        }
        _ => None,
    };
    let dbeta = match (&dy_c, output_mask[2]) {
        (Some(dy_c), true) => Some(sum_dim(dy_c, &[0, 2], false)?),
        _ => None,
    };
    Ok((dx, dgamma, dbeta))
}
