//! Derivatives of operators on nested tensors (strided and jagged layouts), through the
//! nested-tensor operators of ATen: the gradient is built as a nested tensor of the
//! gradients of the components.

use super::ops::*;
use super::{dim, size, sizes};
use crate::dispatch::{Error, Scalar, Tensor, TensorOptions};

/// The sizes of component `i` of a nested tensor, row `i` of its nested-sizes tensor
/// (`self._nested_tensor_size()`, one row of sizes per component).
fn component_sizes<T: Tensor>(nt_sizes: &T, i: i64) -> Result<Vec<i64>, Error> {
    let row = select(nt_sizes, 0, i)?;
    (0..size(&row, 0)?)
        .map(|j| match local_scalar_dense(&select(&row, 0, j)?)? {
            Scalar::Int(n) => Ok(n),
            other => Err(Error::from(format!(
                "a nested tensor's sizes are integers, found {other}"
            ))),
        })
        .collect()
}

/// `_nested_from_padded`'s derivative: the gradient padded back to the input's sizes (with
/// the 0213 transform undone when the forward fused it) (`_nested_from_padded_backward`).
pub fn _nested_from_padded_backward<T: Tensor>(
    grad: &T,
    input: &T,
    do_transform_0213: bool,
) -> Result<T, Error> {
    let s = sizes(input)?;
    if !do_transform_0213 {
        return to_padded_tensor(grad, 0.0, Some(&s));
    }
    if s.len() != 4 {
        return Err(Error::from(format!(
            "_nested_from_padded_backward: the 0213 transform needs a 4-d input, got {}",
            s.len()
        )));
    }
    let padded = to_padded_tensor(grad, 0.0, Some(&[s[0], s[2], s[1] * s[3]]))?;
    permute(&view(&padded, &[s[0], s[2], s[1], s[3]])?, &[0, 2, 1, 3])
}

/// `unbind`'s derivative for a strided nested tensor: a nested tensor of the gradients,
/// zeros of each component's sizes (`nt_sizes`) where a gradient is undefined
/// (`unbind_backward_nested`).
pub fn unbind_backward_nested<T: Tensor>(
    grads: &[Option<T>],
    nt_sizes: &T,
    _dim: i64,
    options: TensorOptions,
) -> Result<T, Error> {
    let mut components = Vec::with_capacity(grads.len());
    for (i, g) in grads.iter().enumerate() {
        components.push(match g {
            Some(g) => g.clone(),
            None => zeros_o(&component_sizes(nt_sizes, i as i64)?, options)?,
        });
    }
    nested_tensor_from_tensor_list(&components, None, None, None, None)
}

/// `chunk`'s derivative for a jagged nested tensor, along a dimension other than the batch:
/// the gradients of the chunks put back together, zeros for chunks without one
/// (`chunk_backward_nested`).
pub fn chunk_backward_nested<T: Tensor>(
    grads: &[Option<T>],
    self_: &T,
    chunks: i64,
    dim_: i64,
) -> Result<T, Error> {
    if dim_ == 0 || dim_ < -dim(self_)? {
        return Err(Error::from(
            "chunk_backward_nested: chunk of a nested tensor along the batch dimension",
        ));
    }
    let zeros = zeros_like(self_)?;
    let pieces = chunk(&zeros, chunks, dim_)?;
    let filled: Vec<T> = (pieces.into_iter().enumerate())
        .map(|(j, zero)| grads.get(j).cloned().flatten().unwrap_or(zero))
        .collect();
    cat(&filled, dim_)
}

/// `split_with_sizes`' derivative for a strided nested tensor: the gradients of the pieces
/// concatenated along `dim`, each undefined one a nested tensor of zeros whose components
/// have the input's sizes (`nt_sizes`) but `split_sizes[i]` along `dim`
/// (`_nested_split_with_sizes_backward`).
pub fn _nested_split_with_sizes_backward<T: Tensor>(
    grads: &[Option<T>],
    split_sizes: &[i64],
    dim: i64,
    nt_sizes: &T,
    options: TensorOptions,
) -> Result<T, Error> {
    let (components, component_rank) = (size(nt_sizes, 0)?, size(nt_sizes, 1)?);
    // The batch dimension counts: a component's dimension `dim - 1`.
    let dim = super::wrap_dim(dim, component_rank as usize + 1)? as i64;
    if dim == 0 {
        return Err(Error::from(
            "_nested_split_with_sizes_backward: split of a nested tensor along the batch dimension",
        ));
    }
    let mut pieces = Vec::with_capacity(grads.len());
    for (i, g) in grads.iter().enumerate() {
        if let Some(g) = g {
            pieces.push(g.clone());
            continue;
        }
        let length = *split_sizes.get(i).ok_or_else(|| {
            Error::from("_nested_split_with_sizes_backward: more gradients than split sizes")
        })?;
        let mut zeros = Vec::with_capacity(components as usize);
        for c in 0..components {
            let mut s = component_sizes(nt_sizes, c)?;
            s[dim as usize - 1] = length;
            zeros.push(zeros_o(&s, options)?);
        }
        pieces.push(nested_tensor_from_tensor_list(
            &zeros, None, None, None, None,
        )?);
    }
    cat(&pieces, dim)
}
