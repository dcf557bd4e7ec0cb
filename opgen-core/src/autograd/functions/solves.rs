//! Derivatives of Cholesky factorizations and of triangular, Cholesky and general solves.

use super::ops::*;
use super::{conj, is_contiguous, options, sizes};
use crate::autograd::is_grad_enabled;
use crate::dispatch::{Error, Tensor};

/// `X.tril() - 0.5 diag(X)`: the inverse of `sym` on lower triangular matrices.
fn tril_minus_half_diag<T: Tensor>(x: &T) -> Result<T, Error> {
    sub(&tril(x, 0)?, &embed_diag(&mul_n(&diag(x)?, 0.5)?)?)
}

/// `linalg_cholesky`'s forward derivative: `dL = L π(L⁻¹ dA L⁻ᴴ)` with `π(X) = tril(X) -
/// diag(X)/2` (`cholesky_jvp`).
pub fn cholesky_jvp<T: Tensor>(da: &T, l: &T, upper: bool) -> Result<T, Error> {
    let l_ = if upper { m_h(l)? } else { l.clone() };
    let dl = linalg_solve_triangular(&l_, da, false, true, false)?;
    let dl = linalg_solve_triangular(&m_h(&l_)?, &dl, true, false, false)?;
    let dl = matmul(&l_, &tril_minus_half_diag(&dl)?)?;
    if upper { m_h(&dl) } else { Ok(dl) }
}

/// `linalg_cholesky`'s derivative: `L⁻ᴴ π*(tril(Lᴴ gL)) L⁻¹` with `π*(X) = (X + Xᴴ -
/// diag(X))/2` (`cholesky_backward`).
pub fn cholesky_backward<T: Tensor>(gl: &T, upper: bool, l: &T) -> Result<T, Error> {
    let (l_, gl_) = if upper {
        (m_h(l)?, m_h(gl)?)
    } else {
        (l.clone(), gl.clone())
    };
    let ga = tril(&matmul(&m_h(&l_)?, &gl_)?, 0)?;
    let ga = mul_n(&add(&ga, &m_h(&tril(&ga, -1)?)?)?, 0.5)?;
    let ga = linalg_solve_triangular(&m_h(&l_)?, &ga, true, true, false)?;
    linalg_solve_triangular(&l_, &ga, false, false, false)
}

/// `cholesky_inverse`'s derivative: `-L (X (G + Gᴴ) X)` (upper) or `-(X (G + Gᴴ) X) L`
/// (lower), `X` the inverse (`cholesky_inverse_backward`).
pub fn cholesky_inverse_backward<T: Tensor>(
    grad: Option<&T>,
    l: &T,
    upper: bool,
    inverse: &T,
) -> Result<Option<T>, Error> {
    let Some(grad) = grad else { return Ok(None) };
    let common = add(grad, &m_h(grad)?)?;
    let common = matmul(inverse, &matmul(&common, inverse)?)?;
    let out = if upper {
        matmul(l, &common)?
    } else {
        matmul(&common, l)?
    };
    Ok(Some(neg(&out)?))
}

/// `cholesky_inverse`'s forward derivative as PyTorch computes it: `K + Kᴴ` with `K = -X dC
/// X C` (`C = F` upper, `Fᴴ` lower) (`cholesky_inverse_jvp`). For a non-diagonal factor this
/// is not the derivative (the factors are not in the order `-X dC C X`;
/// pytorch/pytorch#196682).
pub fn cholesky_inverse_jvp<T: Tensor>(f: &T, df: &T, x: &T, upper: bool) -> Result<T, Error> {
    let (cf, dcf) = if upper {
        (f.clone(), m_h(df)?)
    } else {
        (m_h(f)?, df.clone())
    };
    let partial = neg(&matmul(&matmul(&matmul(x, &dcf)?, x)?, &cf)?)?;
    add(&partial, &m_h(&partial)?)
}

/// `cholesky_solve`'s derivatives: `grad.cholesky_solve(L)` for `self`, `-L (S + Sᴴ)` or
/// `-(S + Sᴴ) L` with `S = gB Xᴴ` for the factor (`cholesky_solve_backward`).
pub fn cholesky_solve_backward<T: Tensor>(
    grad_x: Option<&T>,
    _self: &T,
    input2: &T,
    result: &T,
    upper: bool,
    output_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    let Some(grad_x) = grad_x else {
        return Ok((None, None));
    };
    let grad_self = cholesky_solve(grad_x, input2, upper)?;
    let grad_input2 = if output_mask[1] {
        let common = matmul(&grad_self, &m_h(result)?)?;
        let common = add(&common, &m_h(&common)?)?;
        let out = if upper {
            matmul(input2, &common)?
        } else {
            matmul(&common, input2)?
        };
        Some(neg(&out)?)
    } else {
        None
    };
    Ok((Some(grad_self), grad_input2))
}

/// Whether `other` is a vector (or a batch of them) on the right of a solve with `input`
/// (`linalg_solve_is_vector_rhs`).
pub(crate) fn is_vector_rhs<T: Tensor>(input: &T, other: &T) -> Result<bool, Error> {
    let (a, b) = (sizes(input)?, sizes(other)?);
    Ok(b.len() == 1 || (a.len().checked_sub(1) == Some(b.len()) && b[..] == a[..a.len() - 1]))
}

/// `B` as a matrix: a vector right-hand side (`vector_case`) as one column.
pub(crate) fn vector_as_matrix<T: Tensor>(b: &T, vector_case: bool) -> Result<T, Error> {
    if vector_case {
        unsqueeze(b, -1)
    } else {
        Ok(b.clone())
    }
}

/// Whether `linalg_lu_factor` of `A` was computed on `Aᵀ` (contiguous real `A`), as
/// `linalg_solve` does (`use_A_T`).
pub(crate) fn lu_of_transpose<T: Tensor>(a: &T) -> Result<bool, Error> {
    Ok(is_contiguous(a)? && !super::is_complex(a)?)
}

/// The solve of a derivative with `A` (`Aᴴ` when `adjoint`) on the left of `b` (on the
/// right unless `left`): through a new solve when a graph is being built (the result is then
/// differentiable in `A`), through the saved factorization `lu`, `pivots` otherwise (of `Aᵀ`
/// when `use_a_t`).
pub(crate) fn solve_with_a<T: Tensor>(
    b: &T,
    a: &T,
    (lu, pivots): (&T, &T),
    left: bool,
    adjoint: bool,
    use_a_t: bool,
) -> Result<T, Error> {
    match (is_grad_enabled(), adjoint) {
        (true, true) => linalg_solve(&m_h(a)?, b, left),
        (true, false) => linalg_solve(a, b, left),
        // The factorization of `Aᵀ` solves with `A` as an adjoint one, and the reverse.
        (false, _) => linalg_lu_solve(lu, pivots, b, left, adjoint != use_a_t),
    }
}

/// `dA X` (or `dA x` for a vector right-hand side).
fn da_contribution<T: Tensor>(x: &T, da: &T, db: &T) -> Result<T, Error> {
    if is_vector_rhs(da, db)? {
        squeeze(&matmul(da, &unsqueeze(x, -1)?)?, -1)
    } else {
        matmul(da, x)
    }
}

/// `cholesky_solve`'s forward derivative: `solve(dB - dA X)` with `dA = dK + dKᴴ`
/// (`cholesky_solve_jvp`).
pub fn cholesky_solve_jvp<T: Tensor>(
    x: &T,
    u: &T,
    du: &T,
    db: &T,
    upper: bool,
) -> Result<T, Error> {
    let dk = if upper {
        matmul(&m_h(du)?, u)?
    } else {
        matmul(du, &m_h(u)?)?
    };
    let da = add(&dk, &m_h(&dk)?)?;
    cholesky_solve(&sub(db, &da_contribution(x, &da, db)?)?, u, upper)
}

/// `triangular_solve`'s derivatives: `gB = A⁻ᴴ gX`, `gA = -gB Xᴴ` projected on the
/// triangle (plus the gradient of the returned copy of `A`) (`triangular_solve_backward`).
#[allow(clippy::too_many_arguments)] // PyTorch's signature
pub fn triangular_solve_backward<T: Tensor>(
    grad_x: Option<&T>,
    grad_m: Option<&T>,
    b: &T,
    a: &T,
    x: &T,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
    output_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    if grad_x.is_none() && grad_m.is_none() {
        return Ok((None, None));
    }
    let (mut grad_b, mut grad_a) = (None, None);
    if let Some(gx) = grad_x {
        let gb = triangular_solve(gx, &conj(a)?, upper, !transpose, unitriangular)?.0;
        if output_mask[1] {
            let ga = if transpose {
                neg(&matmul(&conj(x)?, &m_t(&gb)?)?)?
            } else {
                neg(&matmul(&gb, &m_h(x)?)?)?
            };
            let diagonal = i64::from(unitriangular);
            grad_a = Some(if upper {
                triu(&ga, diagonal)?
            } else {
                tril(&ga, -diagonal)?
            });
        }
        grad_b = Some(gb);
    }
    let grad_a = match grad_a {
        Some(ga) => ga,
        None => expand_as(&zeros_o(&[1], options(a)?)?, a)?,
    };
    let grad_b = match grad_b {
        Some(gb) => gb,
        None => expand_as(&zeros_o(&[1], options(b)?)?, b)?,
    };
    let grad_a = match grad_m {
        Some(gm) if output_mask[1] => add(&grad_a, gm)?,
        _ => grad_a,
    };
    Ok((Some(grad_b), Some(grad_a)))
}

/// `triangular_solve`'s forward derivative: `solve(dB - dA X)` (`triangular_solve_jvp`).
pub fn triangular_solve_jvp<T: Tensor>(
    x: &T,
    a: &T,
    da: &T,
    db: &T,
    upper: bool,
    transpose: bool,
    unitriangular: bool,
) -> Result<T, Error> {
    let rhs = sub(db, &da_contribution(x, da, db)?)?;
    Ok(triangular_solve(&rhs, a, upper, transpose, unitriangular)?.0)
}

/// `linalg_solve_triangular`'s forward derivative: `A⁻¹(dB - dA X)` with `dA` projected on
/// the triangle (`linalg_solve_triangular_forward_AD`).
#[allow(non_snake_case)] // PyTorch's name
pub fn linalg_solve_triangular_forward_AD<T: Tensor>(
    a_t: &T,
    b_t: &T,
    a: &T,
    x: &T,
    upper: bool,
    left: bool,
    unitriangular: bool,
) -> Result<T, Error> {
    let diagonal = i64::from(unitriangular);
    let proj = if upper {
        triu(a_t, diagonal)?
    } else {
        tril(a_t, -diagonal)?
    };
    let x_t = sub(
        b_t,
        &if left {
            matmul(&proj, x)?
        } else {
            matmul(x, &proj)?
        },
    )?;
    linalg_solve_triangular(a, &x_t, upper, left, unitriangular)
}

/// `linalg_solve_triangular`'s derivatives: `gB = A⁻ᴴ grad`, `gA = -gB Xᴴ` (or `-Xᴴ gB`)
/// projected on the triangle (`linalg_solve_triangular_backward`).
pub fn linalg_solve_triangular_backward<T: Tensor>(
    grad: Option<&T>,
    a: &T,
    x: &T,
    upper: bool,
    left: bool,
    unitriangular: bool,
    output_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    let (a_requires, b_requires) = (output_mask[0], output_mask[1]);
    let Some(grad) = grad.filter(|_| a_requires || b_requires) else {
        return Ok((None, None));
    };
    let g_b = linalg_solve_triangular(&m_h(a)?, grad, !upper, left, unitriangular)?;
    if !a_requires {
        return Ok((None, Some(g_b)));
    }
    let x_h = m_h(x)?;
    let g_a = neg(&if left {
        matmul(&g_b, &x_h)?
    } else {
        matmul(&x_h, &g_b)?
    })?;
    let diagonal = i64::from(unitriangular);
    let g_a = if upper {
        triu(&g_a, diagonal)?
    } else {
        tril(&g_a, -diagonal)?
    };
    Ok((Some(g_a), b_requires.then_some(g_b)))
}

/// `linalg_solve`'s derivatives: `gB = A⁻ᴴ gX` (through a new solve when a graph is being
/// built, through the saved LU otherwise), `gA = -gB Xᴴ` (`linalg_solve_backward`).
#[allow(clippy::too_many_arguments)]
pub fn linalg_solve_backward<T: Tensor>(
    g_x: Option<&T>,
    x: &T,
    a: &T,
    lu: &T,
    pivots: &T,
    left: bool,
    b_requires_grad: bool,
) -> Result<(Option<T>, Option<T>), Error> {
    let a_requires_grad = crate::autograd::requires_grad(a);
    let Some(g_x) = g_x.filter(|_| a_requires_grad || b_requires_grad) else {
        return Ok((None, None));
    };
    let vector_case = is_vector_rhs(lu, x)?;
    let g_x = vector_as_matrix(g_x, vector_case)?;
    let g_b = solve_with_a(&g_x, a, (lu, pivots), left, true, lu_of_transpose(a)?)?;
    let g_a = if a_requires_grad {
        let x_ = vector_as_matrix(x, vector_case)?;
        Some(neg(&if left {
            matmul(&g_b, &m_h(&x_)?)?
        } else {
            matmul(&m_h(&x_)?, &g_b)?
        })?)
    } else {
        None
    };
    let g_b = if !b_requires_grad {
        None
    } else if vector_case {
        Some(squeeze(&g_b, -1)?)
    } else {
        Some(g_b)
    };
    Ok((g_a, g_b))
}
