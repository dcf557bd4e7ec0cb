//! Derivatives of matrix products, pseudo-inverses, `lu_unpack` and analytic matrix
//! functions.

use super::Gradients3;
use super::ops::*;
use super::pointwise::maybe_multiply;
use super::reductions::sum_to;
use super::{conj, layout, options, scalar_conj, size, sizes};
use crate::dispatch::{Error, Layout, Scalar, Tensor};

/// Whether `t` and the input's layout are strided (the column-major shortcut of `mm`'s
/// derivatives applies only then).
fn all_strided<T: Tensor>(t: &T, other: &T, input_layout: Layout) -> Result<bool, Error> {
    Ok(input_layout == Layout::Strided
        && layout(t)? == Layout::Strided
        && layout(other)? == Layout::Strided)
}

/// `mm`'s derivative for `mat1`: `grad.mm(mat2.t().conj())` times `alpha.conj()`, computed
/// column-major for a column-major `mat1` (`mm_mat1_backward`).
pub fn mm_mat1_backward<T: Tensor>(
    grad: &T,
    mat2: &T,
    mat1_sizes: &[i64],
    mat1_strides: &[i64],
    mat1_layout: Layout,
    alpha: Scalar,
) -> Result<T, Error> {
    let column_major =
        mat1_strides.first() == Some(&1) && mat1_strides.get(1) == mat1_sizes.first();
    if column_major && all_strided(grad, mat2, mat1_layout)? {
        return maybe_multiply(&t(&mm(&conj(mat2)?, &t(grad)?)?)?, scalar_conj(alpha));
    }
    maybe_multiply(&mm(grad, &conj(&t(mat2)?)?)?, scalar_conj(alpha))
}

/// `mm`'s derivative for `mat2`: `mat1.t().conj().mm(grad)` times `alpha.conj()`
/// (`mm_mat2_backward`).
pub fn mm_mat2_backward<T: Tensor>(
    grad: &T,
    mat1: &T,
    mat2_sizes: &[i64],
    mat2_strides: &[i64],
    mat2_layout: Layout,
    alpha: Scalar,
) -> Result<T, Error> {
    let column_major =
        mat2_strides.first() == Some(&1) && mat2_strides.get(1) == mat2_sizes.first();
    if column_major && all_strided(grad, mat1, mat2_layout)? {
        return maybe_multiply(&t(&mm(&t(grad)?, &conj(mat1)?)?)?, scalar_conj(alpha));
    }
    maybe_multiply(&mm(&conj(&t(mat1)?)?, grad)?, scalar_conj(alpha))
}

/// Whether the last two dimensions of a matrix of these sizes and strides are column-major.
fn column_major(sizes: &[i64], strides: &[i64]) -> bool {
    let n = sizes.len();
    n >= 2 && strides[n - 2] == 1 && strides[n - 1] == sizes[n - 2]
}

/// Checks the layouts of a grouped matrix product's derivative.
fn grouped_strided<T: Tensor>(grad: &T, other: &T, input_layout: Layout) -> Result<(), Error> {
    if all_strided(grad, other, input_layout)? {
        return Ok(());
    }
    Err(Error::from("only strided layout supported for grouped mm"))
}

/// `_grouped_mm`'s derivative for `mat1`: `_grouped_mm(grad, mat2ᵀ, offs)` (computed
/// column-major for a column-major `mat1`) times `alpha.conj()`
/// (`_grouped_mm_mat1_backward`).
pub fn _grouped_mm_mat1_backward<T: Tensor>(
    grad: &T,
    mat2: &T,
    mat1_sizes: &[i64],
    mat1_strides: &[i64],
    mat1_layout: Layout,
    offs: Option<&T>,
    alpha: Scalar,
) -> Result<T, Error> {
    grouped_strided(grad, mat2, mat1_layout)?;
    let grad_inp = if column_major(mat1_sizes, mat1_strides) {
        let product = grouped_mm(mat2, &transpose(grad, -2, -1)?, offs, None, None)?;
        transpose(&product, -2, -1)?
    } else {
        grouped_mm(grad, &transpose(mat2, -2, -1)?, offs, None, None)?
    };
    maybe_multiply(&grad_inp, scalar_conj(alpha))
}

/// `_grouped_mm`'s derivative for `mat2`: `_grouped_mm(mat1ᵀ, grad, offs)` times
/// `alpha.conj()` (`_grouped_mm_mat2_backward`).
pub fn _grouped_mm_mat2_backward<T: Tensor>(
    grad: &T,
    mat1: &T,
    mat2_sizes: &[i64],
    mat2_strides: &[i64],
    mat2_layout: Layout,
    offs: Option<&T>,
    alpha: Scalar,
) -> Result<T, Error> {
    grouped_strided(grad, mat1, mat2_layout)?;
    let grad_inp = if column_major(mat2_sizes, mat2_strides) {
        let product = grouped_mm(&transpose(grad, -2, -1)?, mat1, offs, None, None)?;
        transpose(&product, -2, -1)?
    } else {
        grouped_mm(&transpose(mat1, -2, -1)?, grad, offs, None, None)?
    };
    maybe_multiply(&grad_inp, scalar_conj(alpha))
}

/// `matmul`'s derivatives, for the inputs `grad_input_mask` asks: 1-D operands are promoted
/// to matrices as `matmul` does, broadcast batch dimensions are summed back
/// (`matmul_backward`).
pub fn matmul_backward<T: Tensor>(
    grad: Option<&T>,
    self_: &T,
    other: &T,
    grad_input_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    let Some(grad) = grad else {
        return Ok((None, None));
    };
    let (sd, od) = (sizes(self_)?.len(), sizes(other)?.len());
    let a = if sd == 1 {
        unsqueeze(self_, 0)?
    } else {
        self_.clone()
    };
    let b = if od == 1 {
        unsqueeze(other, 1)?
    } else {
        other.clone()
    };
    let mut g = grad.clone();
    if sd == 1 {
        g = unsqueeze(&g, -2)?;
    }
    if od == 1 {
        g = unsqueeze(&g, -1)?;
    }
    let mut grads = (None, None);
    if grad_input_mask[0] {
        let ga = matmul(&g, &conj(&transpose(&b, -1, -2)?)?)?;
        let ga = if sd == 1 { squeeze(&ga, -2)? } else { ga };
        grads.0 = Some(sum_to(&ga, &sizes(self_)?)?);
    }
    if grad_input_mask[1] {
        let gb = matmul(&conj(&transpose(&a, -1, -2)?)?, &g)?;
        let gb = if od == 1 { squeeze(&gb, -1)? } else { gb };
        grads.1 = Some(sum_to(&gb, &sizes(other)?)?);
    }
    Ok(grads)
}

/// A 1-D tensor as a row (`unsqueeze(0)`), anything else as it is.
fn as_row<T: Tensor>(x: &T) -> Result<T, Error> {
    if sizes(x)?.len() == 1 {
        unsqueeze(x, 0)
    } else {
        Ok(x.clone())
    }
}

/// `linear_backward`'s derivatives for `self`, `grad_output` and `weight` from the
/// gradients of its three results (`linear_double_backward`).
pub fn linear_double_backward<T: Tensor>(
    grads: &[Option<T>],
    self_: &T,
    grad_output: Option<&T>,
    weight: &T,
) -> Result<Gradients3<T>, Error> {
    let Some(grad_output) = grad_output else {
        return Ok((None, None, None));
    };
    let g = |i: usize| grads.get(i).and_then(Option::as_ref);
    let go_1d = sizes(grad_output)?.len() == 1;
    let grad_self = g(1)
        .map(|g1| {
            let r = matmul(&as_row(grad_output)?, g1)?;
            if go_1d { squeeze(&r, 0) } else { Ok(r) }
        })
        .transpose()?;
    let grad_weight = g(0)
        .map(|g0| {
            let lhs = if go_1d {
                unsqueeze(grad_output, 1)?
            } else {
                m_t(grad_output)?
            };
            matmul(&lhs, &as_row(g0)?)
        })
        .transpose()?;
    let mut ggo: Option<T> = None;
    if g(0).is_some() || g(1).is_some() || g(2).is_some() {
        let z = zeros_like(grad_output)?;
        ggo = Some(if go_1d { unsqueeze(&z, 0)? } else { z });
    }
    let mut accumulate = |term: T| -> Result<(), Error> {
        ggo = Some(match ggo.take() {
            Some(acc) => add(&acc, &term)?,
            None => term,
        });
        Ok(())
    };
    if let Some(g0) = g(0) {
        accumulate(matmul(&as_row(g0)?, &m_t(weight)?)?)?;
    }
    if let Some(g1) = g(1) {
        accumulate(matmul(&as_row(self_)?, &m_t(g1)?)?)?;
    }
    if let Some(g2) = g(2) {
        accumulate(g2.clone())?;
    }
    let ggo = match ggo {
        Some(x) if go_1d => Some(squeeze(&x, 0)?),
        other => other,
    };
    Ok((grad_self, ggo, grad_weight))
}

/// `_euclidean_dist`'s derivatives: with `r = grad / dist` (0 where the distance is 0),
/// `x1 * Σ_j r - r @ x2` and `x2 * Σ_i r - rᵀ @ x1` (`_euclidean_dist_backward`).
pub fn _euclidean_dist_backward<T: Tensor>(
    grad: Option<&T>,
    x1: &T,
    x2: &T,
    res: &T,
) -> Result<(Option<T>, Option<T>), Error> {
    let Some(grad) = grad else {
        return Ok((None, None));
    };
    let ratio = masked_fill_s(
        &div(grad, res)?,
        &eq_s(res, Scalar::Int(0))?,
        Scalar::Int(0),
    )?;
    let g1 = sub(
        &mul(x1, &sum_dim(&ratio, &[-1], true)?)?,
        &matmul(&ratio, x2)?,
    )?;
    let col = unsqueeze(&sum_dim(&ratio, &[-2], false)?, -1)?;
    let g2 = sub(&mul(x2, &col)?, &matmul(&m_t(&ratio)?, x1)?)?;
    Ok((Some(g1), Some(g2)))
}

/// `linalg_pinv`'s derivative, with the products ordered to keep matrices small
/// (`pinv_backward`).
pub fn pinv_backward<T: Tensor>(grad: &T, pinv_a: &T, a: &T) -> Result<T, Error> {
    let (m, n) = (size(a, -2)?, size(a, -1)?);
    let pinv_ah = m_h(pinv_a)?;
    let gradh = m_h(grad)?;
    if m <= n {
        let k = matmul(&gradh, pinv_a)?;
        let k_pinv_ah = matmul(&k, &pinv_ah)?;
        let first = sub(
            &neg(&m_h(&matmul(pinv_a, &k)?)?)?,
            &matmul(&matmul(a, pinv_a)?, &k_pinv_ah)?,
        )?;
        let last = matmul(&matmul(&pinv_ah, pinv_a)?, &sub(&gradh, &matmul(&k, a)?)?)?;
        add(&add(&first, &k_pinv_ah)?, &last)
    } else {
        let k = matmul(pinv_a, &gradh)?;
        let pinv_ah_k = matmul(&pinv_ah, &k)?;
        let first = neg(&m_h(&matmul(&k, pinv_a)?)?)?;
        let second = matmul(&matmul(&sub(&gradh, &matmul(a, &k)?)?, pinv_a)?, &pinv_ah)?;
        let last = matmul(&matmul(&pinv_ah_k, pinv_a)?, a)?;
        sub(&add(&add(&first, &second)?, &pinv_ah_k)?, &last)
    }
}

/// `linalg_pinv`'s forward derivative (Golub and Pereyra's formula) (`pinv_jvp`).
pub fn pinv_jvp<T: Tensor>(a: &T, pinv_a: &T, da: &T) -> Result<T, Error> {
    let (m, n) = (size(a, -2)?, size(a, -1)?);
    let dah = m_h(da)?;
    let pinv_ah = m_h(pinv_a)?;
    if m <= n {
        let k = matmul(&pinv_ah, &dah)?;
        let inner = sub(&sub(&k, &m_h(&k)?)?, &matmul(&k, &matmul(a, pinv_a)?)?)?;
        let second = matmul(
            &sub(&dah, &matmul(pinv_a, &matmul(a, &dah)?)?)?,
            &matmul(&pinv_ah, pinv_a)?,
        )?;
        add(&matmul(pinv_a, &inner)?, &second)
    } else {
        let k = matmul(pinv_a, da)?;
        let kh = m_h(&k)?;
        let first = matmul(
            &sub(&sub(&kh, &k)?, &matmul(&matmul(pinv_a, a)?, &kh)?)?,
            pinv_a,
        )?;
        let second = matmul(
            &matmul(pinv_a, &pinv_ah)?,
            &sub(&dah, &matmul(&matmul(&dah, a)?, pinv_a)?)?,
        )?;
        add(&first, &second)
    }
}

/// `lu_unpack`'s derivative: the triangles of the gradients of `L` and `U` put back into one
/// packed matrix (`lu_unpack_backward`).
pub fn lu_unpack_backward<T: Tensor>(
    l_grad: Option<&T>,
    u_grad: Option<&T>,
    m: i64,
    n: i64,
) -> Result<Option<T>, Error> {
    let k = m.min(n);
    let l1 = |l: &T| {
        if m == k {
            tril(l, -1)
        } else {
            tril(&narrow(l, -2, 0, k)?, -1)
        }
    };
    let u1 = |u: &T| {
        if n == k {
            triu(u, 0)
        } else {
            triu(&narrow(u, -1, 0, k)?, 0)
        }
    };
    let with_zeros = |x: T, like: &T, dim: i64, extra: i64| -> Result<T, Error> {
        let mut shape = sizes(like)?;
        let at = shape.len() as i64 + dim;
        shape[at as usize] = extra;
        cat(&[x, zeros_o(&shape, options(like)?)?], dim)
    };
    Ok(Some(match (l_grad, u_grad) {
        (None, None) => return Ok(None),
        (Some(lg), Some(ug)) if m == n => add(&tril(lg, -1)?, &triu(ug, 0)?)?,
        (Some(lg), Some(ug)) => {
            let a1 = add(&l1(lg)?, &u1(ug)?)?;
            if m > n {
                cat(&[a1, narrow(lg, -2, k, m - k)?], -2)?
            } else {
                cat(&[a1, narrow(ug, -1, k, n - k)?], -1)?
            }
        }
        (Some(lg), None) if m >= n => tril(lg, -1)?,
        (Some(lg), None) => with_zeros(tril(lg, -1)?, lg, -1, n - m)?,
        (None, Some(ug)) if n >= m => triu(ug, 0)?,
        (None, Some(ug)) => with_zeros(triu(ug, 0)?, ug, -2, m - n)?,
    }))
}

/// The derivative (or, with `adjoint`, its adjoint) of an analytic matrix function `f` at
/// `A` in the direction `E`: the top-right block of `f([[A, E], [0, A]])` (Mathias 1996)
/// (`differential_analytic_matrix_function`).
fn differential_analytic_matrix_function<T: Tensor>(
    self_: &T,
    grad: &T,
    f: impl Fn(&T) -> Result<T, Error>,
    adjoint: bool,
) -> Result<T, Error> {
    let a = if adjoint {
        conj(&transpose(self_, -2, -1)?)?
    } else {
        self_.clone()
    };
    let n = size(&a, -1)?;
    let top = cat(&[a.clone(), grad.clone()], -1)?;
    let bottom = cat(&[zeros_like(&a)?, a], -1)?;
    let meta = cat(&[top, bottom], -2)?;
    narrow(&narrow(&f(&meta)?, -2, 0, n)?, -1, n, n)
}

/// `linalg_matrix_exp`'s derivative (`adjoint`) or forward derivative
/// (`linalg_matrix_exp_differential`).
pub fn linalg_matrix_exp_differential<T: Tensor>(
    self_: &T,
    grad: &T,
    adjoint: bool,
) -> Result<T, Error> {
    differential_analytic_matrix_function(self_, grad, linalg_matrix_exp, adjoint)
}

/// The derivative of the square root of a Hermitian positive semi-definite matrix, in the
/// direction `grad`, and its adjoint (the same map: it is self-adjoint): with
/// `A = Q diag(λ) Qᴴ` and `s = √λ`, `Q ((Qᴴ E Q) / (sᵢ + sⱼ)) Qᴴ`, the solution `X` of
/// `√A X + X √A = E` (`linalg_matrix_sqrth_differential`).
pub fn linalg_matrix_sqrth_differential<T: Tensor>(self_: &T, grad: &T) -> Result<T, Error> {
    let (lambda, q) = linalg_eigh(self_, "L")?;
    let s = sqrt(&lambda)?;
    let denom = add(&unsqueeze(&s, -1)?, &unsqueeze(&s, -2)?)?;
    let qh = m_h(&q)?;
    let inner = div(&matmul(&matmul(&qh, grad)?, &q)?, &denom)?;
    matmul(&matmul(&q, &inner)?, &qh)
}
