//! Shapes and strides: broadcasting, dimension wrapping, contiguity and the stride
//! computation of `view`, with PyTorch's rules and error messages.

use opgen::prelude::*;

/// The number of elements of a tensor of `sizes` (1 for a zero-dim tensor).
pub fn numel(sizes: &[i64]) -> i64 {
    sizes.iter().product()
}

/// Row-major (contiguous) strides for `sizes`; a dimension of size 0 or 1 still gets the
/// stride it would have with size 1, as PyTorch computes them.
pub fn contiguous_strides(sizes: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; sizes.len()];
    let mut acc = 1i64;
    for (stride, &size) in strides.iter_mut().zip(sizes).rev() {
        *stride = acc;
        acc = acc.saturating_mul(size.max(1));
    }
    strides
}

/// Whether `sizes` and `strides` describe a row-major contiguous tensor (dimensions of size
/// 1 may have any stride, an empty tensor is contiguous).
pub fn is_contiguous(sizes: &[i64], strides: &[i64]) -> bool {
    if numel(sizes) == 0 {
        return true;
    }
    let mut expected = 1;
    for (&size, &stride) in sizes.iter().zip(strides).rev() {
        if size != 1 {
            if stride != expected {
                return false;
            }
            expected *= size;
        }
    }
    true
}

/// Whether the tensor's elements cover a contiguous block of storage without overlap in
/// some order of the dimensions (PyTorch's `is_non_overlapping_and_dense`): `clone` with
/// `preserve_format` keeps such strides.
pub fn is_non_overlapping_and_dense(sizes: &[i64], strides: &[i64]) -> bool {
    let mut dims: Vec<usize> = (0..sizes.len()).filter(|&d| sizes[d] != 1).collect();
    dims.sort_by_key(|&d| strides[d]);
    let mut expected = 1;
    for d in dims {
        if strides[d] != expected {
            return false;
        }
        expected *= sizes[d];
    }
    true
}

/// `dim` wrapped into `0..ndim` (negative counts from the end); a zero-dim tensor accepts
/// `-1` and `0`, as in PyTorch.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize, Error> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        return Err(Error::from(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n,
            n - 1
        )));
    }
    Ok(if dim < 0 { dim + n } else { dim } as usize)
}

/// The shape two shapes broadcast to, by PyTorch's (NumPy's) rules.
pub fn broadcast_shapes(a: &[i64], b: &[i64]) -> Result<Vec<i64>, Error> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for (i, o) in out.iter_mut().enumerate() {
        let da = (i + a.len()).checked_sub(n).map_or(1, |j| a[j]);
        let db = (i + b.len()).checked_sub(n).map_or(1, |j| b[j]);
        *o = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::from(format!(
                "The size of tensor a ({da}) must match the size of tensor b ({db}) at \
                 non-singleton dimension {i}"
            )));
        };
    }
    Ok(out)
}

/// The strides with which a tensor of `sizes`/`strides` is read as if broadcast to `shape`
/// (stride 0 along broadcast dimensions).
pub fn broadcast_strides(sizes: &[i64], strides: &[i64], shape: &[i64]) -> Result<Vec<i64>, Error> {
    if sizes.len() > shape.len() {
        return Err(Error::from(format!(
            "cannot broadcast a tensor of shape {sizes:?} to shape {shape:?}"
        )));
    }
    let lead = shape.len() - sizes.len();
    let mut out = vec![0; shape.len()];
    for (i, &target) in shape.iter().enumerate().skip(lead) {
        let (size, stride) = (sizes[i - lead], strides[i - lead]);
        out[i] = if size == target {
            stride
        } else if size == 1 {
            0
        } else {
            return Err(Error::from(format!(
                "The expanded size of the tensor ({target}) must match the existing size \
                 ({size}) at non-singleton dimension {i}.  Target sizes: {shape:?}.  Tensor \
                 sizes: {sizes:?}"
            )));
        };
    }
    Ok(out)
}

/// The storage offsets of a tensor's elements in row-major order of its indices.
pub fn element_offsets(sizes: &[i64], strides: &[i64], offset: i64) -> Vec<usize> {
    let n = numel(sizes).max(0) as usize;
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let mut index = vec![0i64; sizes.len()];
    let mut at = offset;
    loop {
        out.push(at.max(0) as usize);
        // Advance the odometer from the last dimension.
        let mut d = sizes.len();
        loop {
            if d == 0 {
                return out;
            }
            d -= 1;
            index[d] += 1;
            at += strides[d];
            if index[d] < sizes[d] {
                break;
            }
            at -= strides[d] * sizes[d];
            index[d] = 0;
        }
    }
}

/// The number of storage elements a tensor of this geometry needs: one past its last
/// element (0 when it has no elements).
pub fn storage_extent(sizes: &[i64], strides: &[i64], offset: i64) -> i64 {
    if numel(sizes) == 0 {
        return offset;
    }
    offset
        + 1
        + sizes
            .iter()
            .zip(strides)
            .map(|(&s, &st)| (s - 1) * st)
            .sum::<i64>()
}

/// `size` with one `-1` replaced by the size that keeps `numel` elements; PyTorch's
/// `infer_size`.
pub fn infer_size(size: &[i64], numel: i64) -> Result<Vec<i64>, Error> {
    let mut out = size.to_vec();
    let mut infer = None;
    let mut known = 1i64;
    for (i, &s) in size.iter().enumerate() {
        if s == -1 {
            if infer.replace(i).is_some() {
                return Err(Error::from("only one dimension can be inferred"));
            }
        } else if s < 0 {
            return Err(Error::from(format!("invalid shape dimension {s}")));
        } else {
            known *= s;
        }
    }
    let invalid = || {
        Error::from(format!(
            "shape '{size:?}' is invalid for input of size {numel}"
        ))
    };
    match infer {
        Some(i) => {
            if known == 0 || numel % known != 0 {
                return Err(invalid());
            }
            out[i] = numel / known;
        }
        None if known != numel => return Err(invalid()),
        None => {}
    }
    Ok(out)
}

/// The strides of `self` viewed with `new_sizes` without copying, if the view is possible
/// (PyTorch's `computeStride`).
pub fn view_strides(sizes: &[i64], strides: &[i64], new_sizes: &[i64]) -> Option<Vec<i64>> {
    if sizes.is_empty() {
        return Some(vec![1; new_sizes.len()]);
    }
    let numel = numel(sizes);
    if numel == 0 {
        return if sizes == new_sizes {
            Some(strides.to_vec())
        } else {
            Some(contiguous_strides(new_sizes))
        };
    }
    let mut new_strides = vec![0i64; new_sizes.len()];
    let mut view_d = new_sizes.len() as i64 - 1;
    let mut chunk_base_stride = *strides.last()?;
    let mut tensor_numel = 1i64;
    let mut view_numel = 1i64;
    for tensor_d in (0..sizes.len()).rev() {
        tensor_numel *= sizes[tensor_d];
        let boundary = tensor_d == 0
            || (sizes[tensor_d - 1] != 1
                && strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
        if boundary {
            while view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel * chunk_base_stride;
                view_numel *= new_sizes[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    (view_d == -1).then_some(new_strides)
}

/// Checks that every size is non-negative (factories, `resize_`, `as_strided`).
pub fn check_sizes(sizes: &[i64]) -> Result<(), Error> {
    match sizes.iter().find(|&&s| s < 0) {
        Some(s) => Err(Error::from(format!(
            "Trying to create tensor with negative dimension {s}: {sizes:?}"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy() {
        assert_eq!(broadcast_shapes(&[2, 1, 3], &[4, 1]).unwrap(), [2, 4, 3]);
        assert_eq!(broadcast_shapes(&[], &[3]).unwrap(), [3]);
        let err = broadcast_shapes(&[2, 3], &[4]).unwrap_err().to_string();
        assert!(err.contains("size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"), "{err}");
        assert_eq!(broadcast_strides(&[3], &[1], &[2, 3]).unwrap(), [0, 1]);
        assert_eq!(
            broadcast_strides(&[1, 3], &[3, 1], &[2, 3]).unwrap(),
            [0, 1]
        );
    }

    #[test]
    fn offsets_walk_strided_layouts() {
        // A transposed 2x3 tensor: sizes [3, 2], strides [1, 3].
        assert_eq!(element_offsets(&[3, 2], &[1, 3], 0), [0, 3, 1, 4, 2, 5]);
        assert_eq!(element_offsets(&[], &[], 4), [4]);
        assert!(element_offsets(&[2, 0], &[1, 1], 0).is_empty());
        assert_eq!(storage_extent(&[3, 2], &[1, 3], 1), 7);
    }

    #[test]
    fn view_strides_match_pytorch() {
        assert_eq!(view_strides(&[2, 3], &[3, 1], &[3, 2]), Some(vec![2, 1]));
        assert_eq!(view_strides(&[2, 3], &[3, 1], &[6]), Some(vec![1]));
        // A transposed tensor cannot be flattened without a copy.
        assert_eq!(view_strides(&[3, 2], &[1, 3], &[6]), None);
        // But its dimensions can be split.
        assert_eq!(
            view_strides(&[3, 2], &[1, 3], &[3, 2, 1]),
            Some(vec![1, 3, 3])
        );
        assert_eq!(infer_size(&[-1, 2], 6).unwrap(), [3, 2]);
        let err = infer_size(&[4, 2], 6).unwrap_err().to_string();
        assert!(
            err.contains("shape '[4, 2]' is invalid for input of size 6"),
            "{err}"
        );
    }

    #[test]
    fn contiguity_and_dims() {
        assert!(is_contiguous(&[2, 3], &[3, 1]));
        assert!(!is_contiguous(&[3, 2], &[1, 3]));
        assert!(is_non_overlapping_and_dense(&[3, 2], &[1, 3]));
        assert!(!is_non_overlapping_and_dense(&[3], &[2]));
        assert_eq!(contiguous_strides(&[2, 0, 3]), [3, 3, 1]);
        assert_eq!(wrap_dim(-1, 3).unwrap(), 2);
        assert_eq!(wrap_dim(-1, 0).unwrap(), 0);
        let err = wrap_dim(3, 3).unwrap_err().to_string();
        assert!(
            err.contains("expected to be in range of [-3, 2], but got 3"),
            "{err}"
        );
    }
}
