//! Derivatives of operators that move elements around: concatenations and splits,
//! `as_strided`, padding, repetition, permutation, and conversions.

use super::accessors::{TensorGeometry, is_complex, is_complex_type, wrap_dim};
use super::ops::*;
use super::{options, sizes};
use crate::dispatch::{Error, Layout, ScalarType, Tensor, TensorOptions};

/// `cat`'s derivative: the slices of `grad` along `dim`, one per input, real parts for real
/// inputs; an empty 1-D input gets an empty gradient (`cat_tensors_backward`).
pub fn cat_tensors_backward<T: Tensor>(
    grad: Option<&T>,
    sizes: &[Vec<i64>],
    dtypes: &[ScalarType],
    dim: i64,
) -> Result<Vec<Option<T>>, Error> {
    let Some(grad) = grad else {
        return Ok(vec![None; sizes.len()]);
    };
    // `legacy_cat_wrap_dim`: the first input that is not an empty 1-D tensor sets the rank.
    let rank = (sizes.iter())
        .find(|s| s.as_slice() != [0])
        .map_or(1, Vec::len);
    let dim = wrap_dim(dim, rank)?;
    let real_grad = if is_complex(grad)? {
        Some(real(grad)?)
    } else {
        None
    };
    let mut start = 0;
    let mut out = Vec::with_capacity(sizes.len());
    for (shape, dtype) in sizes.iter().zip(dtypes) {
        let g = match &real_grad {
            Some(r) if !is_complex_type(*dtype) => r,
            _ => grad,
        };
        if shape.as_slice() == [0] {
            out.push(Some(zeros_o(&[0], options(g)?)?));
            continue;
        }
        let n = shape[dim];
        out.push(Some(narrow(g, dim as i64, start, n)?));
        start += n;
    }
    Ok(out)
}

/// `stack`'s derivative: `grad.select(dim, i)` for each input, real parts for real inputs
/// (`stack_tensors_backward`).
pub fn stack_tensors_backward<T: Tensor>(
    grad: Option<&T>,
    dim: i64,
    dtypes: &[ScalarType],
) -> Result<Vec<Option<T>>, Error> {
    let Some(grad) = grad else {
        return Ok(vec![None; dtypes.len()]);
    };
    let complex = is_complex(grad)?;
    (dtypes.iter().enumerate())
        .map(|(i, dtype)| {
            let g = select(grad, dim, i as i64)?;
            Ok(Some(if complex && !is_complex_type(*dtype) {
                real(&g)?
            } else {
                g
            }))
        })
        .collect()
}

/// `block_diag`'s derivative: the diagonal blocks of `grad`, in the inputs' shapes (0-D,
/// 1-D or 2-D), real parts for real inputs (`block_diag_backward`).
pub fn block_diag_backward<T: Tensor>(
    grad: Option<&T>,
    sizes: &[Vec<i64>],
    dtypes: &[ScalarType],
) -> Result<Vec<Option<T>>, Error> {
    let Some(grad) = grad else {
        return Ok(vec![None; sizes.len()]);
    };
    let real_grad = if is_complex(grad)? {
        Some(real(grad)?)
    } else {
        None
    };
    let (mut row, mut col) = (0, 0);
    let mut out = Vec::with_capacity(sizes.len());
    for (shape, dtype) in sizes.iter().zip(dtypes) {
        let g = match &real_grad {
            Some(r) if !is_complex_type(*dtype) => r,
            _ => grad,
        };
        if shape.as_slice() == [0] {
            out.push(Some(zeros_o(&[0], options(g)?)?));
            continue;
        }
        let (rows, cols) = match shape.as_slice() {
            [r, c] => (*r, *c),
            [c] => (1, *c),
            _ => (1, 1),
        };
        let block = slice(
            &slice(g, 0, Some(row), Some(row + rows), 1)?,
            1,
            Some(col),
            Some(col + cols),
            1,
        )?;
        let block = match shape.len() {
            1 => squeeze(&block, -1)?,
            0 => squeeze(&squeeze(&block, -1)?, -1)?,
            _ => block,
        };
        out.push(Some(block));
        row += rows;
        col += cols;
    }
    Ok(out)
}

/// `split_with_sizes`'s derivative: the gradients concatenated along `dim`, zeros for the
/// undefined ones (`split_with_sizes_backward`).
pub fn split_with_sizes_backward<T: Tensor>(
    grads: &[Option<T>],
    split_sizes: &[i64],
    dim: i64,
    sizes: &[i64],
    options: TensorOptions,
) -> Result<T, Error> {
    let d = wrap_dim(dim, sizes.len())?;
    let all: Vec<T> = (grads.iter().zip(split_sizes))
        .map(|(g, &length)| match g {
            Some(g) => Ok(g.clone()),
            None => {
                let mut shape = sizes.to_vec();
                shape[d] = length;
                zeros_o(&shape, options)
            }
        })
        .collect::<Result<_, Error>>()?;
    cat(&all, d as i64)
}

/// `split`'s derivative: [`split_with_sizes_backward`] with every piece `split_size` long
/// but the last (`split_backward`).
pub fn split_backward<T: Tensor>(
    grads: &[Option<T>],
    split_size: i64,
    dim: i64,
    sizes: &[i64],
    options: TensorOptions,
) -> Result<T, Error> {
    let d = wrap_dim(dim, sizes.len())?;
    let n = grads.len() as i64;
    let mut split_sizes = vec![split_size; grads.len()];
    if let Some(last) = split_sizes.last_mut() {
        *last = split_size - (split_size * n - sizes[d]);
    }
    split_with_sizes_backward(grads, &split_sizes, d as i64, sizes, options)
}

/// `unbind`'s derivative: the gradients stacked along `dim`, zeros shaped like the defined
/// ones in place of the others (`unbind_backward`).
pub fn unbind_backward<T: Tensor>(grads: &[Option<T>], dim: i64) -> Result<T, Error> {
    let first = grads.iter().flatten().next();
    let (shape, o) = match first {
        Some(g) => (sizes(g)?, options(g)?),
        None => (Vec::new(), TensorOptions::default()),
    };
    let all: Vec<T> = grads
        .iter()
        .map(|g| match g {
            Some(g) => Ok(g.clone()),
            None => expand(&zeros_o(&[], o)?, &shape),
        })
        .collect::<Result<_, Error>>()?;
    stack(&all, dim)
}

/// `t` with a dimension of size 1 inserted wherever `sizes` has one (`unsqueeze_to`: the
/// derivative of `squeeze`).
pub fn unsqueeze_to<T: Tensor>(t: &T, sizes: &[i64]) -> Result<T, Error> {
    let mut result = t.clone();
    for (d, _) in sizes.iter().enumerate().filter(|(_, s)| **s == 1) {
        result = unsqueeze(&result, d as i64)?;
    }
    Ok(result)
}

/// [`unsqueeze_to`] restricted to the dimensions `dims` (`squeeze.dims`' derivative).
pub fn unsqueeze_to_dims<T: Tensor>(t: &T, dims: &[i64], sizes: &[i64]) -> Result<T, Error> {
    let mut mask = vec![false; sizes.len()];
    for &d in dims {
        mask[wrap_dim(d, sizes.len())?] = true;
    }
    let mut result = t.clone();
    for d in 0..sizes.len() {
        if mask[d] && sizes[d] == 1 {
            result = unsqueeze(&result, d as i64)?;
        }
    }
    Ok(result)
}

/// [`unsqueeze_to`] for one dimension (`squeeze.dim`'s derivative).
pub fn unsqueeze_to_dim<T: Tensor>(t: &T, dim: i64, sizes: &[i64]) -> Result<T, Error> {
    unsqueeze_to_dims(t, &[dim], sizes)
}

/// `permute`'s derivative: `grad` permuted by the inverse permutation (`permute_backwards`).
pub fn permute_backwards<T: Tensor>(grad: &T, fwd_dims: &[i64]) -> Result<T, Error> {
    let mut dims = vec![0i64; fwd_dims.len()];
    for (i, &d) in fwd_dims.iter().enumerate() {
        dims[wrap_dim(d, fwd_dims.len())?] = i as i64;
    }
    permute(grad, &dims)
}

/// `repeat`'s derivative: `grad` summed over the new leading dimensions and over the
/// repetitions of each dimension (zeros if anything was repeated 0 times)
/// (`repeat_backward`).
pub fn repeat_backward<T: Tensor>(
    grad: &T,
    repeats: &[i64],
    input_shape: &[i64],
) -> Result<T, Error> {
    if repeats.contains(&0) {
        return zeros_o(input_shape, options(grad)?);
    }
    let mut grad = grad.clone();
    let unsqueezed = sizes(&grad)?.len().saturating_sub(input_shape.len());
    for _ in 0..unsqueezed {
        grad = sum_dim(&grad, &[0], false)?;
    }
    let (mut grad_size, mut sum_dims) = (Vec::new(), Vec::new());
    for (dim, &n) in input_shape.iter().enumerate() {
        let repeat = repeats[dim + unsqueezed];
        if repeat != 1 {
            grad_size.push(repeat);
            sum_dims.push(grad_size.len() as i64 - 1);
        }
        grad_size.push(n);
    }
    if !sum_dims.is_empty() {
        grad = sum_dim(&reshape(&grad, &grad_size)?, &sum_dims, false)?;
    }
    Ok(grad)
}

/// `slice`'s derivative with optional bounds (`slice_backward_wrapper`: 0 and `i64::MAX`
/// for the missing ones).
pub fn slice_backward_wrapper<T: Tensor>(
    grad: &T,
    input_sizes: &[i64],
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<T, Error> {
    slice_backward(
        grad,
        input_sizes,
        dim,
        start.unwrap_or(0),
        end.unwrap_or(i64::MAX),
        step,
    )
}

/// `constant_pad_nd`'s derivative: `grad` padded by the negated pads
/// (`constant_pad_nd_backward`).
pub fn constant_pad_nd_backward<T: Tensor>(grad: &T, pad: &[i64]) -> Result<T, Error> {
    let negated: Vec<i64> = pad.iter().map(|p| -p).collect();
    constant_pad_nd(grad, &negated, crate::dispatch::Scalar::Int(0))
}

/// The list reversed (`reverse_list`, `reverse_list_symint`).
pub fn reverse_list(list: &[i64]) -> Result<Vec<i64>, Error> {
    Ok(list.iter().rev().copied().collect())
}

/// `_to_copy`'s derivative: `grad` back in the input's options (its real part for a real
/// input) (`_to_copy_backward`).
pub fn _to_copy_backward<T: Tensor>(grad: &T, self_options: TensorOptions) -> Result<T, Error> {
    let self_type = self_options.dtype_or_default();
    let grad = if !is_complex_type(self_type) && is_complex(grad)? {
        real(grad)?
    } else {
        grad.clone()
    };
    to_options(&grad, self_options)
}

/// `to_sparse`'s (and `to_dense`'s) derivative: `grad` back in the input's layout
/// (`to_sparse_backward`).
pub fn to_sparse_backward<T: Tensor>(
    grad: &T,
    self_layout: Layout,
    blocksize: Option<&[i64]>,
) -> Result<T, Error> {
    if self_layout == Layout::Strided {
        return to_dense(grad, None, None);
    }
    to_sparse(grad, Some(self_layout), blocksize, None)
}

/// Whether a tensor of these sizes and strides may use a memory location twice: after
/// dropping size-1 dimensions and sorting by stride, some stride is not larger than the
/// span of the smaller ones (`_maybe_overlapping_memory`; a `false` is certain).
fn maybe_overlapping(sizes: &[i64], strides: &[i64]) -> bool {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| strides[i]);
    let mut max_index_in_slice = 0;
    for i in order {
        if strides[i] <= max_index_in_slice {
            return true;
        }
        max_index_in_slice += strides[i] * (sizes[i] - 1);
    }
    false
}

/// The storage a tensor of this geometry needs (`_min_storage_size`).
fn min_storage_size(sizes: &[i64], strides: &[i64], offset: i64) -> i64 {
    let mut size = offset + 1;
    for (&n, &s) in sizes.iter().zip(strides) {
        if n == 0 {
            return offset;
        }
        size += (n - 1) * s;
    }
    size
}

/// The sizes and strides of the dimensions that are not of size 1, or `None` if a
/// dimension is empty.
fn nontrivial(sizes: &[i64], strides: &[i64]) -> Option<(Vec<i64>, Vec<i64>)> {
    if sizes.contains(&0) {
        return None;
    }
    Some(
        (sizes.iter().zip(strides))
            .filter(|(n, _)| **n != 1)
            .map(|(n, s)| (*n, *s))
            .unzip(),
    )
}

/// `as_strided`'s derivative, layout-agnostic as PyTorch's (NOTE [as_strided Backward]):
/// `grad` summed over stride-0 dimensions, scattered (accumulated where the output overlaps
/// itself) into a flat storage, divided by how often the input geometry visits each
/// location where the input overlaps itself, and viewed with the input's geometry
/// (`as_strided_backward`).
pub fn as_strided_backward<T: Tensor>(
    grad: &T,
    input: &TensorGeometry,
    out_sizes: &[i64],
    out_strides: &[i64],
    storage_offset: Option<i64>,
) -> Result<T, Error> {
    let offset = storage_offset.unwrap_or(input.storage_offset);
    let zeros_of_input = || zeros_o(&input.sizes, options(grad)?);
    // The output geometry: size-1 dimensions squeezed, expanded (stride-0) ones summed.
    let mut grad = grad.clone();
    let (mut osizes, mut ostrides) = (Vec::new(), Vec::new());
    for i in (0..out_sizes.len()).rev() {
        match (out_sizes[i], out_strides[i]) {
            (0, _) => return zeros_of_input(),
            (1, _) => grad = squeeze(&grad, i as i64)?,
            (_, 0) => grad = sum_dim(&grad, &[i as i64], false)?,
            (n, s) => {
                osizes.insert(0, n);
                ostrides.insert(0, s);
            }
        }
    }
    let out_overlap = maybe_overlapping(&osizes, &ostrides);
    let Some((isizes, istrides)) = nontrivial(&input.sizes, &input.strides) else {
        return zeros_of_input();
    };
    let in_overlap = maybe_overlapping(&isizes, &istrides);
    let shared = input.storage_offset.min(offset);
    let (in_offset, out_offset) = (input.storage_offset - shared, offset - shared);
    let base_size = min_storage_size(&isizes, &istrides, in_offset)
        .max(min_storage_size(&osizes, &ostrides, out_offset));
    let mut storage = new_zeros(&grad, &[base_size])?;
    let indices = if in_overlap || out_overlap {
        Some(arange(
            0,
            base_size,
            1,
            options(&grad)?.dtype(ScalarType::Long),
        )?)
    } else {
        None
    };
    match &indices {
        Some(flat) if out_overlap => {
            let out_indices = as_strided(flat, &osizes, &ostrides, Some(out_offset))?;
            let (index, values) = (reshape(&out_indices, &[-1])?, reshape(&grad, &[-1])?);
            storage = index_add(
                &storage,
                0,
                &index,
                &values,
                crate::dispatch::Scalar::Int(1),
            )?;
        }
        _ => storage = as_strided_scatter(&storage, &grad, &osizes, &ostrides, Some(out_offset))?,
    }
    if let (true, Some(flat)) = (in_overlap, &indices) {
        let inp_indices = reshape(
            &as_strided(flat, &isizes, &istrides, Some(in_offset))?,
            &[-1],
        )?;
        let ones = expand_as(&ones_o(&[1], options(&grad)?)?, &inp_indices)?;
        let count = index_add(
            &zeros_like(&storage)?,
            0,
            &inp_indices,
            &ones,
            crate::dispatch::Scalar::Int(1),
        )?;
        storage = div(&storage, &count)?;
    }
    as_strided(&storage, &input.sizes, &input.strides, Some(in_offset))
}

/// `as_strided_scatter`'s derivative for `self` as PyTorch computes it for a contiguous
/// input (`as_strided_scatter_backward`): zeros of the input's shape holding, in the window
/// `sizes`/`strides`/`storage_offset`, the same window of the contiguous `grad`.
pub fn as_strided_scatter_backward<T: Tensor>(
    grad: &T,
    input: &TensorGeometry,
    _src: &TensorGeometry,
    sizes: &[i64],
    strides: &[i64],
    storage_offset: Option<i64>,
) -> Result<T, Error> {
    let grad = contiguous(grad, crate::dispatch::MemoryFormat::Contiguous)?;
    let grad_slice = as_strided(&grad, sizes, strides, storage_offset)?;
    let buffer = new_zeros(&grad, &input.sizes)?;
    let buffer = as_strided_scatter(&buffer, &grad_slice, sizes, strides, storage_offset)?;
    as_strided(&buffer, &input.sizes, &input.strides, None)
}
