//! Forward derivatives (`*_jvp`) of the determinant, `slogdet` and `solve` through their
//! saved LU factorization, and of the operators that gather a list of tensors (`cat`,
//! `stack`, `block_diag`), which read each input's tangent themselves in C++: here the
//! translator passes the tangents (`tensors_t`) next to the tensors.

use super::decompositions::perturbed_lu;
use super::ops::*;
use super::pointwise::I;
use super::solves::{is_vector_rhs, lu_of_transpose, solve_with_a, vector_as_matrix};
use super::{is_complex, options, sizes};
use crate::dispatch::{Error, Tensor};

/// The trace of each matrix of a batch.
fn trace<T: Tensor>(m: &T) -> Result<T, Error> {
    sum_dims(&diagonal(m, 0, -2, -1)?, Some(&[-1]), false, None)
}

/// `linalg_det`'s forward derivative: `tr(A⁻¹ dA) det`, the LU perturbed where its diagonal
/// is 0 (the determinant is C¹: a singular matrix's derivative is the limit)
/// (`linalg_det_jvp`).
pub fn linalg_det_jvp<T: Tensor>(
    da: &T,
    det: &T,
    a: &T,
    lu: &T,
    pivots: &T,
    use_a_t: bool,
) -> Result<T, Error> {
    let lu = perturbed_lu(lu)?;
    let ainv_e = solve_with_a(da, a, (&lu, pivots), true, false, use_a_t)?;
    mul(&trace(&ainv_e)?, det)
}

/// `linalg_slogdet`'s forward derivatives: `(i Im(tr(A⁻¹ dA)) sign, Re(tr(A⁻¹ dA)))`, the
/// sign's a zero tensor for real inputs (`slogdet_jvp`; not differentiable at singular
/// matrices, so no perturbation).
pub fn slogdet_jvp<T: Tensor>(
    lu: &T,
    pivots: &T,
    da: &T,
    a: &T,
    sign: &T,
    use_a_t: bool,
) -> Result<(Option<T>, Option<T>), Error> {
    let tr = trace(&solve_with_a(da, a, (lu, pivots), true, false, use_a_t)?)?;
    if is_complex(lu)? {
        let d_sign = mul(&imag(&tr)?, &mul_s(sign, I)?)?;
        Ok((Some(d_sign), Some(real(&tr)?)))
    } else {
        let zeros = efficientzerotensor(&sizes(sign)?, options(sign)?)?;
        Ok((Some(zeros), Some(tr)))
    }
}

/// `linalg_solve`'s forward derivative: `dX = A⁻¹ (dB - dA X)` (`left`) or
/// `(dB - X dA) A⁻¹`, vectors as one-column matrices (`linalg_solve_jvp`).
pub fn linalg_solve_jvp<T: Tensor>(
    da: &T,
    db: &T,
    x: &T,
    a: &T,
    lu: &T,
    pivots: &T,
    left: bool,
) -> Result<T, Error> {
    let vector_case = is_vector_rhs(lu, x)?;
    let (x, db) = (
        vector_as_matrix(x, vector_case)?,
        vector_as_matrix(db, vector_case)?,
    );
    let r = if left {
        matmul(da, &x)?
    } else {
        matmul(&x, da)?
    };
    let use_a_t = lu_of_transpose(a)?;
    let dx = solve_with_a(&sub(&db, &r)?, a, (lu, pivots), left, false, use_a_t)?;
    if vector_case {
        squeeze_dim(&dx, -1)
    } else {
        Ok(dx)
    }
}

/// The tangents of `tensors`, a zero tensor of its size for each without one; `None` if
/// none has one.
fn tangents_or_zeros<T: Tensor>(
    tensors: &[T],
    tangents: &[Option<T>],
) -> Result<Option<Vec<T>>, Error> {
    if tangents.iter().all(Option::is_none) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(tensors.len());
    for (i, t) in tensors.iter().enumerate() {
        out.push(match tangents.get(i) {
            Some(Some(tangent)) => tangent.clone(),
            _ => efficientzerotensor(&sizes(t)?, options(t)?)?,
        });
    }
    Ok(Some(out))
}

/// `cat`'s forward derivative: the inputs' tangents concatenated (zeros for inputs without
/// one); undefined if no input has one (`cat_jvp`).
pub fn cat_jvp<T: Tensor>(
    tensors: &[T],
    tangents: &[Option<T>],
    dim: i64,
) -> Result<Option<T>, Error> {
    tangents_or_zeros(tensors, tangents)?
        .map(|t| cat(&t, dim))
        .transpose()
}

/// `stack`'s forward derivative: the inputs' tangents stacked (`stack_jvp`).
pub fn stack_jvp<T: Tensor>(
    tensors: &[T],
    tangents: &[Option<T>],
    dim: i64,
) -> Result<Option<T>, Error> {
    tangents_or_zeros(tensors, tangents)?
        .map(|t| stack(&t, dim))
        .transpose()
}

/// `block_diag`'s forward derivative: the block diagonal matrix of the inputs' tangents
/// (`block_diag_jvp`).
pub fn block_diag_jvp<T: Tensor>(
    tensors: &[T],
    tangents: &[Option<T>],
) -> Result<Option<T>, Error> {
    tangents_or_zeros(tensors, tangents)?
        .map(|t| block_diag(&t))
        .transpose()
}
