//! Derivatives of the LU decomposition and of what is computed through it: `lu_solve`,
//! `det`, `slogdet`.

use super::accessors::is_complex;
use super::ops::*;
use super::pointwise::I;
use super::reductions::prod_safe_zeros_backward;
use super::{conj, is_contiguous, numel, options, scalar_type, size, sizes};
use crate::autograd::is_grad_enabled;
use crate::dispatch::{Error, Scalar, ScalarType, Tensor};

/// `t` with its diagonals (of the last two dimensions) replaced by `d`.
pub(crate) fn with_diag<T: Tensor>(t: &T, d: &T) -> Result<T, Error> {
    diagonal_scatter(t, d, 0, -2, -1)
}

/// `at::native::_get_epsilon`: the machine epsilon of a real dtype.
fn epsilon(dtype: ScalarType) -> f64 {
    match dtype {
        ScalarType::Double => f64::EPSILON,
        ScalarType::Half => 0.000_976_562_5,
        ScalarType::BFloat16 => 0.007_812_5,
        _ => f64::from(f32::EPSILON),
    }
}

/// `c10::toRealValueType` of a tensor's dtype.
fn real_dtype<T: Tensor>(t: &T) -> Result<ScalarType, Error> {
    Ok(super::norms::real_value_type(scalar_type(t)?))
}

/// `LU` with `eps` wherever its diagonal is 0 (a non-singular approximation).
pub(crate) fn perturbed_lu<T: Tensor>(lu: &T) -> Result<T, Error> {
    let eps = epsilon(real_dtype(lu)?);
    let zero_diag = eq_s(&diag(lu)?, Scalar::Float(0.0))?;
    add(
        lu,
        &embed_diag(&where_s(
            &zero_diag,
            &scalar_tensor(eps, options(lu)?)?,
            Scalar::Float(0.0),
        )?)?,
    )
}

/// `linalg_lu`'s derivative, for square, wide and tall inputs (`linalg_lu_backward`).
pub fn linalg_lu_backward<T: Tensor>(
    l_grad: Option<&T>,
    u_grad: Option<&T>,
    p: &T,
    l: &T,
    u: &T,
    pivot: bool,
) -> Result<Option<T>, Error> {
    if l_grad.is_none() && u_grad.is_none() {
        return Ok(None);
    }
    let (m, n) = (size(l, -2)?, size(u, -1)?);
    let k = m.min(n);
    let add_opt =
        |a: Option<T>, b: T| -> Result<T, Error> { a.map_or(Ok(b.clone()), |a| add(&a, &b)) };
    let pivoted = |a: T| if pivot { matmul(p, &a) } else { Ok(a) };
    if m == n {
        let a = l_grad
            .map(|lg| tril(&matmul(&m_h(l)?, lg)?, -1))
            .transpose()?;
        let a = match u_grad {
            Some(ug) => add_opt(a, triu(&matmul(ug, &m_h(u)?)?, 0)?)?,
            None => a.ok_or_else(|| Error::from("linalg_lu_backward: no gradient"))?,
        };
        let a = linalg_solve_triangular(&m_h(u)?, &a, false, false, false)?;
        let a = linalg_solve_triangular(&m_h(l)?, &a, true, true, true)?;
        return pivoted(a).map(Some);
    }
    if m < n {
        let u1 = |x: &T| {
            if n == k {
                Ok(x.clone())
            } else {
                narrow(x, -1, 0, k)
            }
        };
        let u2 = |x: &T| narrow(x, -1, k, n - k);
        let a = l_grad.map(|lg| matmul(&m_h(l)?, lg)).transpose()?;
        let a = match u_grad {
            Some(ug) => {
                let term = matmul(&triu(ug, 0)?, &m_h(u)?)?;
                match a {
                    Some(a) => sub(&a, &term)?,
                    None => neg(&term)?,
                }
            }
            None => a.ok_or_else(|| Error::from("linalg_lu_backward: no gradient"))?,
        };
        let mut a = linalg_solve_triangular(&m_h(&u1(u)?)?, &tril(&a, -1)?, false, false, false)?;
        if let Some(ug) = u_grad {
            a = cat(&[add(&a, &triu(&u1(ug)?, 0)?)?, u2(ug)?], -1)?;
        }
        let mut a = linalg_solve_triangular(&m_h(l)?, &a, true, true, true)?;
        if u_grad.is_none() {
            a = cat(&[a, zeros_like(&u2(u)?)?], -1)?;
        }
        return pivoted(a).map(Some);
    }
    let l1 = |x: &T| {
        if m == k {
            Ok(x.clone())
        } else {
            narrow(x, -2, 0, k)
        }
    };
    let l2 = |x: &T| narrow(x, -2, k, m - k);
    let a = u_grad.map(|ug| matmul(ug, &m_h(u)?)).transpose()?;
    let a = match l_grad {
        Some(lg) => {
            let term = matmul(&m_h(l)?, &tril(lg, -1)?)?;
            match a {
                Some(a) => sub(&a, &term)?,
                None => neg(&term)?,
            }
        }
        None => a.ok_or_else(|| Error::from("linalg_lu_backward: no gradient"))?,
    };
    let mut a = linalg_solve_triangular(&m_h(&l1(l)?)?, &triu(&a, 0)?, true, true, true)?;
    if let Some(lg) = l_grad {
        a = cat(&[add(&a, &tril(&l1(lg)?, -1)?)?, l2(lg)?], -2)?;
    }
    let mut a = linalg_solve_triangular(&m_h(u)?, &a, false, false, false)?;
    if l_grad.is_none() {
        a = cat(&[a, zeros_like(&l2(l)?)?], -2)?;
    }
    pivoted(a).map(Some)
}

/// `linalg_lu_factor_ex`'s derivative: [`linalg_lu_backward`] with the packed gradient
/// split into its `L` and `U` parts (`lu_factor_ex_backward`).
pub fn lu_factor_ex_backward<T: Tensor>(
    grad: &T,
    lu: &T,
    pivs: &T,
    pivot: bool,
) -> Result<Option<T>, Error> {
    let (p, l, u) = lu_unpack(lu, pivs, true, pivot)?;
    let k = size(lu, -2)?.min(size(lu, -1)?);
    let l_grad = narrow(grad, -1, 0, k)?;
    let u_grad = narrow(grad, -2, 0, k)?;
    linalg_lu_backward(Some(&l_grad), Some(&u_grad), &p, &l, &u, pivot)
}

/// `linalg_lu`'s forward derivative: with `dK = L₁⁻¹ Pᵀ dA₁ U₁⁻¹`, `dL₁ = L₁ tril₋₁(dK)`,
/// `dU₁ = triu(dK) U₁`, and the rectangular blocks from them (`linalg_lu_jvp`).
pub fn linalg_lu_jvp<T: Tensor>(
    da: &T,
    p: &T,
    l: &T,
    u: &T,
    pivot: bool,
) -> Result<(Option<T>, Option<T>), Error> {
    let (m, n) = (size(da, -2)?, size(da, -1)?);
    let k = m.min(n);
    let pda = if pivot {
        matmul(&m_t(p)?, da)?
    } else {
        da.clone()
    };
    let square = |x: &T| narrow(&narrow(x, -2, 0, k)?, -1, 0, k);
    let (pda1, l1, u1) = (square(&pda)?, square(l)?, square(u)?);
    let dk = linalg_solve_triangular(&l1, &pda1, false, true, true)?;
    let dk = linalg_solve_triangular(&u1, &dk, true, false, false)?;
    let dl1 = matmul(&l1, &tril(&dk, -1)?)?;
    let du1 = matmul(&triu(&dk, 0)?, &u1)?;
    if m == n {
        return Ok((Some(dl1), Some(du1)));
    }
    if m < n {
        let pda2 = narrow(&pda, -1, k, n - k)?;
        let u2 = narrow(u, -1, k, n - k)?;
        let du2 = sub(
            &linalg_solve_triangular(&l1, &pda2, false, true, true)?,
            &matmul(&tril(&dk, -1)?, &u2)?,
        )?;
        return Ok((Some(dl1), Some(cat(&[du1, du2], -1)?)));
    }
    let pda2 = narrow(&pda, -2, k, m - k)?;
    let l2 = narrow(l, -2, k, m - k)?;
    let dl2 = sub(
        &linalg_solve_triangular(&u1, &pda2, true, false, false)?,
        &matmul(&l2, &triu(&dk, 0)?)?,
    )?;
    Ok((Some(cat(&[dl1, dl2], -2)?), Some(du1)))
}

/// `linalg_lu_factor_ex`'s forward derivative: [`linalg_lu_jvp`] packed into one matrix
/// (`lu_factor_ex_jvp`).
pub fn lu_factor_ex_jvp<T: Tensor>(da: &T, lu: &T, pivs: &T, pivot: bool) -> Result<T, Error> {
    let (p, l, u) = lu_unpack(lu, pivs, true, pivot)?;
    let (dl, du) = linalg_lu_jvp(da, &p, &l, &u, pivot)?;
    let (dl, du) = (dl.ok_or_else(missing)?, du.ok_or_else(missing)?);
    let (m, n) = (size(da, -2)?, size(da, -1)?);
    if m >= n {
        slice_scatter(
            &dl,
            &add(&narrow(&dl, -2, 0, n)?, &du)?,
            -2,
            Some(0),
            Some(n),
            1,
        )
    } else {
        slice_scatter(
            &du,
            &add(&narrow(&du, -1, 0, m)?, &dl)?,
            -1,
            Some(0),
            Some(m),
            1,
        )
    }
}

pub(crate) fn missing() -> Error {
    Error::from("a decomposition's derivative is missing a part")
}

/// `linalg_lu_solve`'s derivative for the packed `LU` (`linalg_lu_solve_LU`).
#[allow(non_snake_case)] // PyTorch's name
pub fn linalg_lu_solve_LU<T: Tensor>(
    gx: &T,
    lu: &T,
    pivots: &T,
    x: &T,
    left: bool,
    adjoint: bool,
) -> Result<T, Error> {
    let (p, l, u) = lu_unpack(lu, pivots, true, left == adjoint)?;
    if left != adjoint {
        let g = if left { gx.clone() } else { m_h(gx)? };
        let xx = if left { m_h(x)? } else { x.clone() };
        let g_r = linalg_solve_triangular(&m_h(&u)?, &neg(&matmul(&g, &xx)?)?, false, true, false)?;
        let g_l = tril(
            &linalg_solve_triangular(&m_h(&l)?, &matmul(&g_r, &m_h(&u)?)?, true, true, true)?,
            -1,
        )?;
        return add(&g_l, &triu(&g_r, 0)?);
    }
    let xx = if left { x.clone() } else { m_h(x)? };
    let g = if left { m_h(gx)? } else { gx.clone() };
    let g_r = neg(&matmul(&matmul(&matmul(&m_t(&p)?, &xx)?, &g)?, &p)?)?;
    let g_r = linalg_solve_triangular(&m_h(&l)?, &g_r, true, false, true)?;
    let g_u = triu(
        &linalg_solve_triangular(&m_h(&u)?, &matmul(&m_h(&l)?, &g_r)?, false, false, false)?,
        0,
    )?;
    add(&tril(&g_r, -1)?, &g_u)
}

/// `linalg_lu_solve`'s forward derivative (`linalg_lu_solve_jvp`).
pub fn linalg_lu_solve_jvp<T: Tensor>(
    x: &T,
    lu: &T,
    pivots: &T,
    dlu: &T,
    db: &T,
    left: bool,
    adjoint: bool,
) -> Result<T, Error> {
    let s = linalg_lu_solve(lu, pivots, db, left, adjoint)?;
    if left != adjoint {
        let r = linalg_solve_triangular(lu, &tril(dlu, -1)?, false, true, true)?;
        let u = triu(lu, 0)?;
        let r = neg(&linalg_solve_triangular(
            &u,
            &add(&triu(dlu, 0)?, &matmul(&r, &u)?)?,
            true,
            true,
            false,
        )?)?;
        let dx = if left {
            matmul(&r, x)?
        } else {
            matmul(x, &m_h(&r)?)?
        };
        return add(&dx, &s);
    }
    let (p, l, u) = lu_unpack(lu, pivots, true, true)?;
    let v = if left { m_h(x)? } else { x.clone() };
    let r = add(
        &linalg_solve_triangular(&u, &matmul(&l, &triu(dlu, 0)?)?, true, false, false)?,
        &tril(dlu, -1)?,
    )?;
    let r = linalg_solve_triangular(
        &l,
        &neg(&matmul(&matmul(&v, &p)?, &r)?)?,
        false,
        false,
        true,
    )?;
    let r = matmul(&r, &m_t(&p)?)?;
    add(&if left { m_h(&r)? } else { r }, &s)
}

/// Applies `f1` where `mask` is set and `f2` elsewhere, over the batch of matrices `t` and
/// `ts` (`masked_fmap`).
fn masked_fmap<T: Tensor>(
    mask: &T,
    f1: impl Fn(&T, &T, &T) -> Result<T, Error>,
    f2: impl Fn(&T, &T, &T) -> Result<T, Error>,
    t: &T,
    t1: &T,
    t2: &T,
) -> Result<T, Error> {
    let picked = |m: &T, x: &T| index(x, &[Some(m.clone())]);
    let n = numel(&picked(mask, t)?)?;
    if n == numel(t)? {
        return f1(t, t1, t2);
    }
    if n == 0 {
        return f2(t, t1, t2);
    }
    let not_mask = logical_not(mask)?;
    let empty = empty_like_o(t, options(t)?)?;
    let first = f1(&picked(mask, t)?, &picked(mask, t1)?, &picked(mask, t2)?)?;
    let ret = index_put(&empty, &[Some(mask.clone())], &first, false)?;
    let second = f2(
        &picked(&not_mask, t)?,
        &picked(&not_mask, t1)?,
        &picked(&not_mask, t2)?,
    )?;
    index_put(&ret, &[Some(not_mask)], &second, false)
}

/// `linalg_det`'s derivative: the solution of `Aᴴ G = (grad det)ᴴ I`, through the saved LU
/// (perturbed where singular) when no graph is being built, otherwise through a new solve
/// for non-singular matrices and the SVD's adjugate for (nearly) singular ones
/// (`linalg_det_backward`).
pub fn linalg_det_backward<T: Tensor>(
    grad: Option<&T>,
    det: &T,
    a: &T,
    lu: &T,
    pivots: &T,
) -> Result<Option<T>, Error> {
    let Some(grad) = grad else { return Ok(None) };
    if numel(a)? == 0 {
        return Ok(None);
    }
    let d_diag = mul(grad, &conj(det)?)?;
    let d = m_t(&embed_diag(&expand_as(&unsqueeze(&d_diag, -1)?, pivots)?)?)?;
    if !is_grad_enabled() {
        let use_a_t = is_contiguous(a)? && !is_complex(a)?;
        return linalg_lu_solve(&perturbed_lu(lu)?, pivots, &d, true, !use_a_t).map(Some);
    }
    let non_singular = |a: &T, d: &T, _: &T| linalg_solve(&m_h(a)?, d, true);
    let singular = |a: &T, _: &T, grad: &T| {
        let (u, s, vh) = linalg_svd(a, true, None)?;
        let alpha = mul(&conj(&mul(&linalg_det(&u)?, &linalg_det(&vh)?)?)?, grad)?;
        let last = sizes(&s)?.len() as i64 - 1;
        let dd = prod_safe_zeros_backward(&unsqueeze(&alpha, -1)?, &s, last)?;
        matmul(&mul(&u, &unsqueeze(&dd, -2)?)?, &vh)
    };
    let eps = epsilon(real_dtype(lu)?);
    let near_singular = lt_s(&abs(det)?, Scalar::Float(100.0 * eps))?;
    masked_fmap(&near_singular, singular, non_singular, a, &d, grad).map(Some)
}

/// `linalg_slogdet`'s derivative: `(g_abs - i Im(g_sign.conj() sign)) A⁻ᴴ` (`slogdet_backward`).
pub fn slogdet_backward<T: Tensor>(
    grad_sign: Option<&T>,
    grad_logabsdet: Option<&T>,
    a: &T,
    signdet: &T,
    lu: &T,
    pivots: &T,
) -> Result<Option<T>, Error> {
    let complex = is_complex(a)?;
    let g = match (complex, grad_sign, grad_logabsdet) {
        (_, None, None) | (false, _, None) => return Ok(None),
        (false, _, Some(g)) => g.clone(),
        (true, Some(gs), g) => {
            let term = mul_s(&imag(&mul(&conj(gs)?, signdet)?)?, I)?;
            match g {
                Some(g) => sub(g, &term)?,
                None => neg(&term)?,
            }
        }
        (true, None, Some(g)) => to(g, scalar_type(a)?)?,
    };
    let d = m_t(&embed_diag(&expand_as(&unsqueeze(&g, -1)?, pivots)?)?)?;
    if !is_grad_enabled() {
        let use_a_t = is_contiguous(a)? && !complex;
        return linalg_lu_solve(lu, pivots, &d, true, !use_a_t).map(Some);
    }
    linalg_solve(&m_h(a)?, &d, true).map(Some)
}
