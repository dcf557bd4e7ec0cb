//! View operators: results share their input's storage (the `ADInplaceOrView` kernels
//! make them share its version counter too). The same code serves `cpu`, `meta` and
//! `privateuseone` tensors (geometry only, no data).

use opgen::prelude::*;

use crate::MiniTensor;
use crate::shape::{infer_size, storage_extent, view_strides, wrap_dim};

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
