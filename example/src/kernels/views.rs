//! View operators: results share their input's storage (the `ADInplaceOrView` kernels
//! make them share its version counter too). The same code serves `cpu`, `meta` and
//! `privateuseone` tensors (geometry only, no data).

use opgen::prelude::*;

use crate::shape::{infer_size, storage_extent, view_strides, wrap_dim};
use crate::{Element, MiniTensor};

/// `view(Tensor(a) self, SymInt[] size) -> Tensor(a)`: the same elements with another
/// shape (one size may be `-1`), when the strides allow it without a copy.
pub fn view(self_: &MiniTensor, size: &[i64]) -> Result<MiniTensor, Error> {
    let sizes = infer_size(size, self_.numel())?;
    let strides = view_strides(&self_.shape(), &self_.stride(), &sizes).ok_or_else(|| {
        Error::from(
            "view size is not compatible with input tensor's size and stride (at least one \
             dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
        )
    })?;
    Ok(self_.make_view(sizes, strides, self_.storage_offset()))
}

/// `transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)`.
pub fn transpose(self_: &MiniTensor, dim0: i64, dim1: i64) -> Result<MiniTensor, Error> {
    let (mut sizes, mut strides) = (self_.shape(), self_.stride());
    let (d0, d1) = (wrap_dim(dim0, sizes.len())?, wrap_dim(dim1, sizes.len())?);
    if !sizes.is_empty() {
        sizes.swap(d0, d1);
        strides.swap(d0, d1);
    }
    Ok(self_.make_view(sizes, strides, self_.storage_offset()))
}

/// `select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)`: the slice at `index`
/// along `dim`, without that dimension.
pub fn select(self_: &MiniTensor, dim: i64, index: i64) -> Result<MiniTensor, Error> {
    let (mut sizes, mut strides) = (self_.shape(), self_.stride());
    if sizes.is_empty() {
        return Err(Error::from("select() cannot be applied to a 0-dim tensor."));
    }
    let d = wrap_dim(dim, sizes.len())?;
    let size = sizes[d];
    if index < -size || index >= size {
        return Err(Error::from(format!(
            "select(): index {index} out of range for tensor of size {sizes:?} at dimension {d}"
        )));
    }
    let index = if index < 0 { index + size } else { index };
    let offset = self_.storage_offset() + index * strides[d];
    sizes.remove(d);
    strides.remove(d);
    Ok(self_.make_view(sizes, strides, offset))
}

/// `alias(Tensor(a) self) -> Tensor(a)`: a new tensor with the same geometry and storage.
pub fn alias(self_: &MiniTensor) -> MiniTensor {
    self_.make_view(self_.shape(), self_.stride(), self_.storage_offset())
}

/// `as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)
/// -> Tensor(a)`: any geometry within the storage (the offset defaults to `self`'s).
pub fn as_strided(
    self_: &MiniTensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<MiniTensor, Error> {
    if size.len() != stride.len() {
        return Err(Error::from(format!(
            "mismatch in length of strides and shape: {} and {}",
            stride.len(),
            size.len()
        )));
    }
    crate::shape::check_sizes(size)?;
    if stride.iter().any(|&s| s < 0) {
        return Err(Error::from(format!(
            "as_strided: Negative strides are not supported at the moment, got strides: {stride:?}"
        )));
    }
    let offset = storage_offset.unwrap_or_else(|| self_.storage_offset());
    if offset < 0 {
        return Err(Error::from(format!(
            "Tensor: invalid storage offset {offset}"
        )));
    }
    let needed = storage_extent(size, stride, offset);
    let have = self_.storage_len() as i64;
    if needed > have {
        let item = match self_.dtype() {
            ScalarType::Float => 4,
            ScalarType::Bool => 1,
            _ => 8,
        };
        return Err(Error::from(format!(
            "setStorage: sizes {size:?}, strides {stride:?}, storage offset {offset}, and \
             itemsize {item} requiring a storage size of {} are out of bounds for storage of \
             size {}",
            needed * item,
            have * item
        )));
    }
    Ok(self_.make_view(size.to_vec(), stride.to_vec(), offset))
}

/// A view with a dimension of size 1 inserted at `dim` (`unsqueeze`; used by `stack` and
/// `matmul`).
pub fn unsqueeze(self_: &MiniTensor, dim: i64) -> Result<MiniTensor, Error> {
    let (mut sizes, mut strides) = (self_.shape(), self_.stride());
    let d = wrap_dim(dim, sizes.len() + 1)?;
    let stride = if d >= sizes.len() {
        1
    } else {
        sizes[d] * strides[d]
    };
    sizes.insert(d, 1);
    strides.insert(d, stride);
    Ok(self_.make_view(sizes, strides, self_.storage_offset()))
}

/// A view of `len` elements starting at `start` along `dim` (`narrow`; used by `cat`).
pub fn narrow(self_: &MiniTensor, dim: usize, start: i64, len: i64) -> MiniTensor {
    let (mut sizes, strides) = (self_.shape(), self_.stride());
    let offset = self_.storage_offset() + start * strides[dim];
    sizes[dim] = len;
    self_.make_view(sizes, strides, offset)
}

/// `expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)`: `self`
/// broadcast to `size` without copying (stride 0 along new and size-1 dimensions; `-1`
/// keeps a size), PyTorch's `inferExpandGeometry`.
pub fn expand(self_: &MiniTensor, size: &[i64]) -> Result<MiniTensor, Error> {
    let (sizes, strides) = (self_.shape(), self_.stride());
    if size.len() < sizes.len() {
        return Err(Error::from(format!(
            "expand({sizes:?}, size={size:?}): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
            size.len(),
            sizes.len()
        )));
    }
    let lead = size.len() - sizes.len();
    let mut out_sizes = Vec::with_capacity(size.len());
    let mut out_strides = Vec::with_capacity(size.len());
    for (i, &target) in size.iter().enumerate() {
        let (have, stride) = match i.checked_sub(lead) {
            Some(j) => (Some(sizes[j]), strides[j]),
            None => (None, 0),
        };
        let want = match (target, have) {
            (-1, Some(h)) => h,
            (-1, None) => {
                return Err(Error::from(format!(
                    "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}"
                )));
            }
            (t, _) => t,
        };
        let stride = match have {
            Some(h) if h == want => stride,
            Some(1) | None => 0,
            Some(h) => {
                return Err(Error::from(format!(
                    "The expanded size of the tensor ({want}) must match the existing size ({h}) at non-singleton dimension {i}.  Target sizes: {size:?}.  Tensor sizes: {sizes:?}"
                )));
            }
        };
        out_sizes.push(want);
        out_strides.push(stride);
    }
    Ok(self_.make_view(out_sizes, out_strides, self_.storage_offset()))
}

/// `squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)`: without dimension `dim` when its
/// size is 1, else the same geometry.
pub fn squeeze_dim(self_: &MiniTensor, dim: i64) -> Result<MiniTensor, Error> {
    let (mut sizes, mut strides) = (self_.shape(), self_.stride());
    let d = wrap_dim(dim, sizes.len().max(1))?;
    if sizes.get(d) == Some(&1) {
        sizes.remove(d);
        strides.remove(d);
    }
    Ok(self_.make_view(sizes, strides, self_.storage_offset()))
}

/// `slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt
/// step=1) -> Tensor(a)`: every `step`-th element of `start..end` along `dim` (negative
/// bounds count from the end; bounds are clamped).
pub fn slice(
    self_: &MiniTensor,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<MiniTensor, Error> {
    let (mut sizes, mut strides) = (self_.shape(), self_.stride());
    if sizes.is_empty() {
        return Err(Error::from("slice() cannot be applied to a 0-dim tensor."));
    }
    if step <= 0 {
        return Err(Error::from("slice step must be positive"));
    }
    let d = wrap_dim(dim, sizes.len())?;
    let (start, end) = slice_bounds(sizes[d], start, end);
    let offset = self_.storage_offset() + start * strides[d];
    sizes[d] = (end - start + step - 1) / step;
    strides[d] *= step;
    Ok(self_.make_view(sizes, strides, offset))
}

/// PyTorch's clamped `start..end` of a slice of a dimension of `size` (`start <= end`).
pub fn slice_bounds(size: i64, start: Option<i64>, end: Option<i64>) -> (i64, i64) {
    let wrap = |v: i64| if v < 0 { v + size } else { v };
    let start = wrap(start.unwrap_or(0)).clamp(0, size);
    let end = wrap(end.unwrap_or(i64::MAX).min(size)).clamp(start, size);
    (start, end)
}

/// `as_strided`'s derivative (PyTorch's `as_strided_backward`): each element of `grad` is
/// added to the storage position the view read it from, and each element of `self` takes
/// the sum at its position (divided among the elements of `self` sharing it, when `self`'s
/// own geometry overlaps). On `meta`, zeros of `self`'s shape.
pub fn as_strided_backward(
    grad: &MiniTensor,
    self_: &MiniTensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<MiniTensor, Error> {
    let out = MiniTensor::new_empty(&self_.shape(), &grad.options()?)?;
    if grad.is_meta() {
        return Ok(out);
    }
    let offset = storage_offset.unwrap_or_else(|| self_.storage_offset());
    let read = crate::shape::element_offsets(size, stride, offset);
    let inputs =
        crate::shape::element_offsets(&self_.shape(), &self_.stride(), self_.storage_offset());
    let extent = read.iter().chain(&inputs).max().map_or(0, |m| m + 1);
    let (mut sums, mut counts) = (vec![0.0; extent], vec![0u32; extent]);
    let g: Vec<f64> = grad
        .to_dtype(ScalarType::Double)?
        .broadcast_values(&grad.shape())?;
    for (&at, v) in read.iter().zip(g) {
        sums[at] += v;
    }
    for &at in &inputs {
        counts[at] += 1;
    }
    let values: Vec<f64> = inputs
        .iter()
        .map(|&at| sums[at] / f64::from(counts[at]))
        .collect();
    crate::kernels::with_dtype!(out.dtype(), |E| {
        out.scatter(&values.iter().map(|&v| E::cast(v)).collect::<Vec<E>>())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_share_storage() {
        let a = MiniTensor::from_vec((0..6).map(|x| x as f64).collect(), &[2, 3]).unwrap();
        let v = view(&a, &[3, -1]).unwrap();
        assert_eq!(v.shape(), [3, 2]);
        assert!(v.shares_storage(&a));
        let t = transpose(&a, 0, 1).unwrap();
        assert_eq!(t.to_vec::<f64>().unwrap(), [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        let err = view(&t, &[6]).unwrap_err().to_string();
        assert!(err.contains("Use .reshape(...) instead"), "{err}");
        let s = select(&t, 1, -1).unwrap(); // column 1 of t = row 1 of a
        assert_eq!(s.to_vec::<f64>().unwrap(), [3.0, 4.0, 5.0]);
        // The kernels share storage; the version counter is ADInplaceOrView's job.
        assert!(s.shares_storage(&a) && s.view_base().is_none());
        let err = select(&a, 0, 2).unwrap_err().to_string();
        assert!(
            err.contains("index 2 out of range for tensor of size [2, 3] at dimension 0"),
            "{err}"
        );
        let d = as_strided(&a, &[2, 2], &[1, 2], Some(1)).unwrap();
        assert_eq!(d.to_vec::<f64>().unwrap(), [1.0, 3.0, 2.0, 4.0]);
        let err = as_strided(&a, &[4], &[2], None).unwrap_err().to_string();
        assert!(
            err.contains("out of bounds for storage of size 48"),
            "{err}"
        );
        let u = unsqueeze(&a, -1).unwrap();
        assert_eq!((u.shape(), u.stride()), (vec![2, 3, 1], vec![3, 1, 1]));
        let al = alias(&a);
        assert!(!al.is_same(&a).unwrap() && al.shares_storage(&a));
    }
}
