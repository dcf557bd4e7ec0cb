//! Derivatives involving sparse layouts: products with a sparse matrix, `sparse_mask`, the
//! values of a sparse tensor.

use super::Gradients3;
use super::ops::*;
use super::pointwise::maybe_multiply;
use super::{conj, layout, options, scalar_conj, sizes};
use crate::dispatch::{Error, Layout, Scalar, Tensor};

/// `addmm`'s derivative for a sparse `mat1`: `grad @ mat2ᴴ` times `alpha`, projected on
/// `mat1`'s sparsity pattern (COO: `sparse_mask` of the coalesced `mat1`; CSR: a sampled
/// product on a zero copy of `mat1`); the plain product for a strided `mat1`
/// (`mm_mat1_sparse_backward`).
pub fn mm_mat1_sparse_backward<T: Tensor>(
    grad: &T,
    mat1: &T,
    mat2: &T,
    alpha: Scalar,
) -> Result<T, Error> {
    let (lg, l1, l2) = (layout(grad)?, layout(mat1)?, layout(mat2)?);
    let strided = lg == Layout::Strided && l2 == Layout::Strided;
    match l1 {
        Layout::Sparse if strided => {
            let sparse = coalesce(mat1)?;
            let grad_sparse = maybe_multiply(&mm(grad, &t(&conj(mat2)?)?)?, alpha)?;
            sparse_mask(&grad_sparse, &sparse)
        }
        Layout::SparseCsr if strided => {
            // `mat1.clone()` with its values zeroed.
            let o = options(mat1)?;
            let (dtype, lay, device, pin) = o.into_parts();
            let zero_values = zeros_like(&values(mat1)?)?;
            let zero = sparse_compressed_tensor_unsafe_parts(
                &crow_indices(mat1)?,
                &col_indices(mat1)?,
                &zero_values,
                &sizes(mat1)?,
                dtype,
                lay,
                device,
                pin,
            )?;
            sparse_sampled_addmm(&zero, grad, &m_h(mat2)?, Scalar::Float(1.0), alpha)
        }
        Layout::Strided if strided => maybe_multiply(&mm(grad, &m_h(mat2)?)?, alpha),
        _ => Err(Error::from(format!(
            "sparse_addmm_sparse_backward: unsupported combination of layouts, grad: {lg:?}, mat1: {l1:?}, mat2: {l2:?}"
        ))),
    }
}

/// `gx` restricted to `x`'s sparsity pattern, by whichever of `sparse_mask` and
/// `_sparse_mask_projection` searches the smaller tensor (`sparse_mask_like_grad`).
fn sparse_mask_like_grad<T: Tensor>(x: &T, gx: &T, accumulate_matches: bool) -> Result<T, Error> {
    match (is_coalesced(x)?, is_coalesced(gx)?) {
        (true, true) if nnz(x)? >= nnz(gx)? => sparse_mask_projection(gx, x, accumulate_matches),
        (true, _) => sparse_mask(gx, x),
        (false, true) => sparse_mask_projection(gx, x, accumulate_matches),
        (false, false) if nnz(x)? >= nnz(gx)? => {
            sparse_mask_projection(&coalesce(gx)?, x, accumulate_matches)
        }
        (false, false) => sparse_mask(gx, &coalesce(x)?),
    }
}

/// `sparse_mask`'s derivative: `grad` on the mask's pattern, matches accumulated, dense for a
/// strided input (`sparse_mask_backward`).
pub fn sparse_mask_backward<T: Tensor>(
    grad: &T,
    mask: &T,
    self_layout: Layout,
) -> Result<T, Error> {
    let self_grad = sparse_mask_like_grad(mask, grad, true)?;
    if self_layout == Layout::Strided {
        return to_dense(&self_grad, None, None);
    }
    Ok(self_grad)
}

/// `_sparse_sparse_matmul`'s derivative for `a` (`grad_order` 0: `grad @ bᴴ`) or `b` (1: `aᴴ
/// @ grad`), on the operand's pattern (`sparse_sparse_matmul_backward`).
pub fn sparse_sparse_matmul_backward<T: Tensor>(
    grad: &T,
    a: &T,
    b: &T,
    grad_order: i64,
) -> Result<T, Error> {
    match grad_order {
        0 => sparse_mask_like_grad(a, &sparse_sparse_matmul(grad, &t(&conj(b)?)?)?, false),
        1 => sparse_mask_like_grad(b, &sparse_sparse_matmul(&t(&conj(a)?)?, grad)?, false),
        _ => Err(Error::from(
            ": grad_order not in [0, 1] at sparse_sparse_matmul_backward function",
        )),
    }
}

/// `sparse_sampled_addmm`'s derivatives: `grad * beta.conj()` for `self`, and `grad` sampled on
/// `self`'s pattern times `mat2ᴴ` (for `mat1`) or after `mat1ᴴ` (for `mat2`), times
/// `alpha.conj()` (`sparse_sampled_addmm_backward`).
pub fn sparse_sampled_addmm_backward<T: Tensor>(
    grad: Option<&T>,
    self_: &T,
    mat1: Option<&T>,
    mat2: Option<&T>,
    alpha: Scalar,
    beta: Scalar,
    grad_input_mask: [bool; 3],
) -> Result<Gradients3<T>, Error> {
    let Some(grad) = grad else {
        return Ok((None, None, None));
    };
    let projected = sparse_mask(grad, self_)?;
    fn need<T>(m: Option<&T>) -> Result<&T, Error> {
        m.ok_or_else(|| Error::from("sparse_sampled_addmm_backward: a factor needed is not saved"))
    }
    let g_self = grad_input_mask[0]
        .then(|| maybe_multiply(grad, scalar_conj(beta)))
        .transpose()?;
    let g_mat1 = grad_input_mask[1]
        .then(|| maybe_multiply(&mm(&projected, &m_h(need(mat2)?)?)?, scalar_conj(alpha)))
        .transpose()?;
    let g_mat2 = grad_input_mask[2]
        .then(|| maybe_multiply(&mm(&m_h(need(mat1)?)?, &projected)?, scalar_conj(alpha)))
        .transpose()?;
    Ok((g_self, g_mat1, g_mat2))
}

/// `values`' derivative: a sparse tensor of `self`'s pattern holding `grad`
/// (`values_backward`).
pub fn values_backward<T: Tensor>(grad: Option<&T>, self_: &T) -> Result<Option<T>, Error> {
    let Some(grad) = grad else { return Ok(None) };
    let (dtype, lay, device, pin) = options(self_)?.into_parts();
    let size = sizes(self_)?;
    let out = match layout(self_)? {
        Layout::Sparse => sparse_coo_tensor_unsafe_parts(
            &indices(self_)?,
            grad,
            &size,
            dtype,
            lay,
            device,
            pin,
            Some(true),
        )?,
        l @ (Layout::SparseCsr | Layout::SparseBsr | Layout::SparseCsc | Layout::SparseBsc) => {
            let (compressed, plain) = if matches!(l, Layout::SparseCsr | Layout::SparseBsr) {
                (crow_indices(self_)?, col_indices(self_)?)
            } else {
                (ccol_indices(self_)?, row_indices(self_)?)
            };
            sparse_compressed_tensor_unsafe_parts(
                &compressed,
                &plain,
                grad,
                &size,
                dtype,
                lay,
                device,
                pin,
            )?
        }
        other => {
            return Err(Error::from(format!(
                "values backward with respect to self with layout {other:?}"
            )));
        }
    };
    Ok(Some(out))
}
