//! Derivatives of products of Householder reflectors: `linalg_householder_product` and
//! `ormqr`. With `H_i(σ) = I - σ v_i v_iᴴ`, `Q = H_1(τ_1) ... H_k(τ_k)` (first columns).

use super::Gradients3;
use super::ops::*;
use super::{conj, numel, options, size, sizes};
use crate::dispatch::{Error, Tensor};

/// `(I - t u vᴴ) K` (`left`) or `K (I - t u vᴴ)`, or without the identity
/// (`apply_simple_transformation`, out of place).
fn transform<T: Tensor>(
    u: &T,
    v: &T,
    tau: &T,
    k: &T,
    with_identity: bool,
    left: bool,
) -> Result<T, Error> {
    let t = unsqueeze(tau, -1)?;
    let product = if left {
        mul(&mul(&t, u)?, &matmul(&m_h(v)?, k)?)?
    } else {
        mul(&matmul(k, &mul(&t, u)?)?, &m_h(v)?)?
    };
    if with_identity {
        sub(k, &product)
    } else {
        neg(&product)
    }
}

/// `V` with the diagonal set to 1 and the upper triangle to 0 (the reflectors' vectors).
fn reflector_vectors<T: Tensor>(v: &T) -> Result<T, Error> {
    let lower = tril(v, -1)?;
    diagonal_scatter(&lower, &ones_like(&diag(&lower)?)?, 0, -2, -1)
}

/// `σ_i` with `H(σ_i) = H(τ_i)⁻¹`: `τ / (τ ‖v‖² - 1)`.
fn inverse_taus<T: Tensor>(v: &T, tau: &T, k: i64) -> Result<T, Error> {
    let cols = narrow(v, -1, 0, k)?;
    let norm_sq = sum_dim(&mul(&cols, &conj(&cols)?)?, &[-2], false)?;
    div(tau, &sub_s(&mul(tau, &norm_sq)?, 1.0)?)
}

/// `linalg_householder_product`'s derivatives for the reflectors' vectors and the scalars
/// `τ`, going through the reflectors in order (reversed with `flip_order`, as `ormqr`
/// needs) and updating `K = H_{i+1}⁻¹ K H_i` (`householder_product_backward`).
pub fn householder_product_backward<T: Tensor>(
    grad: Option<&T>,
    result: &T,
    input: &T,
    tau: &T,
    flip_order: bool,
) -> Result<(Option<T>, Option<T>), Error> {
    let Some(grad) = grad else {
        return Ok((None, None));
    };
    if numel(input)? == 0 || numel(tau)? == 0 {
        return Ok((None, None));
    }
    let (m, k) = (size(input, -2)?, size(tau, -1)?);
    let v = reflector_vectors(input)?;
    let sigma = inverse_taus(&v, tau, k)?;
    let column = |x: &T, i: i64| narrow(x, -1, i, 1);
    let reflect = |i: i64, t: &T, kk: &T, left: bool| -> Result<T, Error> {
        let vi = column(&v, i)?;
        transform(&vi, &vi, t, kk, true, left)
    };
    let flip = |i: i64| if flip_order { k - i - 1 } else { i };
    let apply_left = !flip_order;
    let update = |i: i64, t: &T, kk: &T| -> Result<(T, T), Error> {
        let vi = narrow(&column(&v, i)?, -2, i, m - i)?;
        let vhk = matmul(&m_h(&vi)?, &narrow(kk, -2, i, m - i)?)?;
        let kv = matmul(&narrow(kk, -1, i, m - i)?, &vi)?;
        let tu = unsqueeze(t, -1)?;
        let v_grad = sub(
            &squeeze(&conj(&mul(&neg(&tu)?, &vhk)?)?, -2)?,
            &squeeze(&mul(&tu, &kv)?, -1)?,
        )?;
        let tau_grad = neg(&conj(&matmul(&narrow(&vhk, -1, i, m - i)?, &vi)?)?)?;
        Ok((unsqueeze(&v_grad, -1)?, squeeze(&tau_grad, -1)?))
    };
    let mut kk = matmul(result, &m_h(grad)?)?;
    kk = reflect(flip(0), &column(&sigma, flip(0))?, &kk, apply_left)?;
    let columns = size(input, -1)?;
    let count = usize::try_from(k)
        .map_err(|_| Error::from("householder_product_backward: no reflectors"))?;
    let mut input_grads: Vec<Option<T>> = vec![None; count];
    let mut tau_grads: Vec<Option<T>> = vec![None; count];
    for step in 0..k {
        let i = flip(step);
        let ti = column(tau, i)?;
        let (gv, gt) = update(i, &ti, &kk)?;
        input_grads[i as usize] = Some(gv);
        tau_grads[i as usize] = Some(gt);
        if i != flip(k - 1) {
            let next = if flip_order { i - 1 } else { i + 1 };
            kk = reflect(next, &column(&sigma, next)?, &kk, apply_left)?;
            kk = reflect(i, &ti, &kk, !apply_left)?;
        }
    }
    if k < columns {
        let mut shape = sizes(input)?;
        let last = shape.len() - 1;
        shape[last] = columns - k;
        input_grads.push(Some(zeros_o(&shape, options(input)?)?));
    }
    let input_grads: Vec<T> = input_grads.into_iter().flatten().collect();
    let tau_grads: Vec<T> = tau_grads.into_iter().flatten().collect();
    let input_grad = tril(&cat(&input_grads, -1)?, -1)?;
    Ok((Some(input_grad), Some(cat(&tau_grads, -1)?)))
}

/// `linalg_householder_product`'s forward derivative: `Σ_i H_1 ... H_{i-1} dH_i H_{i+1} ...
/// H_k` with `dH_i = -(dτ_i v vᴴ + τ_i dv vᴴ + τ_i v dvᴴ)` (`householder_product_jvp`).
pub fn householder_product_jvp<T: Tensor>(
    dv: &T,
    dtau: &T,
    prod: &T,
    v: &T,
    tau: &T,
) -> Result<T, Error> {
    let k = size(tau, -1)?;
    let v = reflector_vectors(v)?;
    let dv = tril(dv, -1)?;
    let sigma = inverse_taus(&v, tau, k)?;
    let mut h_plus = clone(&detach(prod)?, None)?;
    let mut batch = sizes(&v)?;
    batch.pop();
    let mut h_minus = embed_diag(&expand(&ones_o(&[1], options(&v)?)?, &batch)?)?;
    let mut dprod = zeros_like(prod)?;
    for i in 0..k {
        let column = |x: &T| narrow(x, -1, i, 1);
        let (vi, dvi, ti, dti, si) = (
            column(&v)?,
            column(&dv)?,
            column(tau)?,
            column(dtau)?,
            column(&sigma)?,
        );
        h_plus = transform(&vi, &vi, &si, &h_plus, true, true)?;
        let term = add(
            &add(
                &transform(&vi, &vi, &dti, &h_plus, false, true)?,
                &transform(&dvi, &vi, &ti, &h_plus, false, true)?,
            )?,
            &transform(&vi, &dvi, &ti, &h_plus, false, true)?,
        )?;
        dprod = add(&dprod, &matmul(&h_minus, &term)?)?;
        h_minus = transform(&vi, &vi, &ti, &h_minus, true, false)?;
    }
    Ok(dprod)
}

/// `ormqr`'s derivatives: for `other` another `ormqr` with the opposite transposition; for
/// the reflectors and `τ`, [`householder_product_backward`] with `grad` and `result` in the
/// roles the side and transposition give them (`ormqr_backward`).
#[allow(clippy::too_many_arguments)]
pub fn ormqr_backward<T: Tensor>(
    grad: Option<&T>,
    result: &T,
    self_: &T,
    tau: &T,
    _other: &T,
    left: bool,
    transpose: bool,
    grad_output_mask: [bool; 3],
) -> Result<Gradients3<T>, Error> {
    let Some(grad) = grad else {
        return Ok((None, None, None));
    };
    let other_grad = grad_output_mask[2]
        .then(|| ormqr(self_, tau, grad, left, !transpose))
        .transpose()?;
    let (mut self_grad, mut tau_grad) = (None, None);
    if grad_output_mask[0] || grad_output_mask[1] {
        let (hpb_grad, hpb_result, flip) = if left ^ transpose {
            let g = if transpose { m_h(grad)? } else { grad.clone() };
            let r = if transpose {
                m_h(result)?
            } else {
                result.clone()
            };
            (g, r, false)
        } else {
            let g = if transpose {
                result.clone()
            } else {
                m_h(result)?
            };
            let r = if transpose { grad.clone() } else { m_h(grad)? };
            (g, r, true)
        };
        (self_grad, tau_grad) =
            householder_product_backward(Some(&hpb_grad), &hpb_result, self_, tau, flip)?;
    }
    Ok((self_grad, tau_grad, other_grad))
}
