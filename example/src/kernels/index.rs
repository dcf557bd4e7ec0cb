//! Indexing along one dimension (`gather`, `scatter.src`, `scatter.value`, `scatter_add`)
//! and the operators that put a gradient back into a larger zero tensor
//! (`select_backward`, `slice_backward`): what the derivatives of `max.dim`, `topk`,
//! `select` and `slice` call.

use opgen::prelude::*;

use super::{OutputMeta, common_device, with_dtype};
use crate::shape::{contiguous_strides, wrap_dim};
use crate::{Element, MiniTensor};

/// The row-major coordinates of every element of `sizes`, one after the other.
fn coordinates(sizes: &[i64]) -> impl Iterator<Item = Vec<i64>> + '_ {
    let n: i64 = sizes.iter().product();
    let strides = contiguous_strides(sizes);
    (0..n).map(move |i| {
        (sizes.iter().zip(&strides))
            .map(|(&s, &st)| if s == 0 { 0 } else { (i / st) % s })
            .collect()
    })
}

/// The row-major position of `coord` in `sizes`.
fn position(coord: &[i64], sizes: &[i64]) -> usize {
    let strides = contiguous_strides(sizes);
    coord.iter().zip(&strides).map(|(c, s)| c * s).sum::<i64>() as usize
}

/// PyTorch's checks of `gather`/`scatter`: a `Long` index with as many dimensions as
/// `self` (and `src`), no larger than them outside `dim` (nor than `src` anywhere).
fn check_index(
    op: &str,
    self_: &MiniTensor,
    dim: i64,
    index: &MiniTensor,
    src: Option<&MiniTensor>,
) -> Result<usize, Error> {
    if index.dtype() != ScalarType::Long {
        return Err(Error::from(format!(
            "{op}(): Expected dtype int64 for index"
        )));
    }
    let d = wrap_dim(dim, self_.dim().max(1))?;
    let (s, i) = (self_.shape(), index.shape());
    if i.len().max(1) != s.len().max(1) {
        return Err(Error::from(
            "Index tensor must have the same number of dimensions as self tensor",
        ));
    }
    for (k, (&is, &ss)) in i.iter().zip(&s).enumerate() {
        if k != d && is > ss {
            return Err(Error::from(format!(
                "Size does not match at dimension {k} expected index {i:?} to be no larger than self {s:?} apart from dimension {d}"
            )));
        }
    }
    if let Some(src) = src {
        let ss = src.shape();
        if i.iter().zip(&ss).any(|(a, b)| a > b) {
            return Err(Error::from(format!(
                "Expected index {i:?} to be no larger than src {ss:?}"
            )));
        }
    }
    Ok(d)
}

/// `gather`'s meta: `index`'s shape, `self`'s dtype.
pub fn gather_meta(self_: &MiniTensor, dim: i64, index: &MiniTensor) -> Result<OutputMeta, Error> {
    check_index("gather", self_, dim, index, None)?;
    let device = common_device(&[self_, index])?;
    Ok(OutputMeta::new(index.shape(), self_.dtype(), device))
}

/// `gather`'s impl: `out[p] = self[p with dim replaced by index[p]]`.
pub fn gather_impl(
    self_: &MiniTensor,
    dim: i64,
    index: &MiniTensor,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let d = check_index("gather", self_, dim, index, None)?;
    let (sizes, ishape) = (self_.shape(), index.shape());
    let idx: Vec<i64> = index.broadcast_values(&ishape)?;
    let targets = target_positions(&sizes, &ishape, d, &idx)?;
    with_dtype!(self_.dtype(), |E| {
        let values: Vec<E> = self_.broadcast_values(&sizes)?;
        out.scatter(&targets.iter().map(|&t| values[t]).collect::<Vec<E>>())
    })
}

/// For each element of the index (row-major), the row-major position in `sizes` it
/// addresses; an index out of range is PyTorch's error.
fn target_positions(
    sizes: &[i64],
    ishape: &[i64],
    d: usize,
    idx: &[i64],
) -> Result<Vec<usize>, Error> {
    let size = sizes.get(d).copied().unwrap_or(1);
    coordinates(ishape)
        .zip(idx)
        .map(|(mut coord, &i)| {
            if i < -size || i >= size {
                return Err(Error::from(format!(
                    "index {i} is out of bounds for dimension {d} with size {size}"
                )));
            }
            if let Some(c) = coord.get_mut(d) {
                *c = if i < 0 { i + size } else { i };
            }
            Ok(position(&coord, sizes))
        })
        .collect()
}

/// What `scatter` writes: the elements of a tensor, or one value.
#[derive(Debug, Clone, Copy)]
pub enum ScatterSource<'a> {
    /// `src[p]` for index position `p`.
    Tensor(&'a MiniTensor),
    /// `value` everywhere.
    Value(Scalar),
}

/// `scatter`'s (and `scatter_add`'s) meta: `self`'s shape and dtype; a tensor source of the
/// same dtype.
pub fn scatter_meta(
    self_: &MiniTensor,
    dim: i64,
    index: &MiniTensor,
    src: ScatterSource<'_>,
) -> Result<OutputMeta, Error> {
    let src_tensor = match src {
        ScatterSource::Tensor(t) => Some(t),
        ScatterSource::Value(_) => None,
    };
    check_index("scatter", self_, dim, index, src_tensor)?;
    if let Some(s) = src_tensor
        && s.dtype() != self_.dtype()
    {
        return Err(Error::from(
            "scatter(): Expected self.dtype to be equal to src.dtype",
        ));
    }
    let mut tensors = vec![self_, index];
    tensors.extend(src_tensor);
    let device = common_device(&tensors)?;
    Ok(OutputMeta::new(self_.shape(), self_.dtype(), device))
}

/// `scatter`'s impl: `self` with `out[index[p] along dim] = src[p]` (summed with `add`).
pub fn scatter_impl(
    self_: &MiniTensor,
    dim: i64,
    index: &MiniTensor,
    src: ScatterSource<'_>,
    add: bool,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let src_tensor = match src {
        ScatterSource::Tensor(t) => Some(t),
        ScatterSource::Value(_) => None,
    };
    let d = check_index("scatter", self_, dim, index, src_tensor)?;
    let (sizes, ishape) = (self_.shape(), index.shape());
    let idx: Vec<i64> = index.broadcast_values(&ishape)?;
    let targets = target_positions(&sizes, &ishape, d, &idx)?;
    with_dtype!(self_.dtype(), |E| {
        let mut values: Vec<E> = self_.broadcast_values(&sizes)?;
        let source: Vec<E> = match src {
            ScatterSource::Tensor(s) => {
                let (ss, sv) = (s.shape(), s.broadcast_values::<E>(&s.shape())?);
                coordinates(&ishape)
                    .map(|c| sv[position(&c, &ss)])
                    .collect()
            }
            ScatterSource::Value(v) => vec![E::from_scalar(v); targets.len()],
        };
        for (&t, &v) in targets.iter().zip(&source) {
            values[t] = if add { sum(values[t], v) } else { v };
        }
        out.scatter(&values)
    })
}

fn sum<E: crate::Element>(a: E, b: E) -> E {
    E::cast(a.to_f64() + b.to_f64())
}

/// `select_backward`'s and `slice_backward`'s meta: zeros of `input_sizes`, `grad`'s dtype.
pub fn embed_meta(grad: &MiniTensor, input_sizes: &[i64]) -> Result<OutputMeta, Error> {
    crate::shape::check_sizes(input_sizes)?;
    Ok(OutputMeta::new(
        input_sizes.to_vec(),
        grad.dtype(),
        grad.device(),
    ))
}

/// Writes `grad` into the view `region` takes of `out` (zeros elsewhere).
pub fn embed_impl(
    grad: &MiniTensor,
    out: &mut MiniTensor,
    region: impl FnOnce(&MiniTensor) -> Result<MiniTensor, Error>,
) -> Result<(), Error> {
    let view = region(out)?;
    if view.shape() != grad.shape() {
        return Err(Error::from(format!(
            "the gradient of shape {:?} does not fit the selected region of shape {:?}",
            grad.shape(),
            view.shape()
        )));
    }
    view.copy_values_from(grad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(values: Vec<f64>, sizes: &[i64]) -> MiniTensor {
        MiniTensor::from_vec(values, sizes).unwrap()
    }

    #[test]
    fn gather_and_scatter_along_a_dimension() {
        let a = t(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let index = MiniTensor::from_vec(vec![2i64, 0, 1, 1], &[2, 2]).unwrap();
        let mut g = gather_meta(&a, 1, &index).unwrap().allocate().unwrap();
        gather_impl(&a, 1, &index, &mut g).unwrap();
        assert_eq!(g.to_vec::<f64>().unwrap(), [3.0, 1.0, 5.0, 5.0]);
        let zeros = t(vec![0.0; 6], &[2, 3]);
        let src = t(vec![10.0, 20.0, 30.0, 40.0], &[2, 2]);
        let mut s = scatter_meta(&zeros, 1, &index, ScatterSource::Tensor(&src))
            .unwrap()
            .allocate()
            .unwrap();
        scatter_impl(&zeros, 1, &index, ScatterSource::Tensor(&src), true, &mut s).unwrap();
        // Row 1 gets 30 and 40 both at column 1, summed.
        assert_eq!(
            s.to_vec::<f64>().unwrap(),
            [20.0, 0.0, 10.0, 0.0, 70.0, 0.0]
        );
        let bad = MiniTensor::from_vec(vec![3i64], &[1, 1]).unwrap();
        let err = gather_impl(&a, 1, &bad, &mut g).unwrap_err().to_string();
        assert!(
            err.contains("index 3 is out of bounds for dimension 1 with size 3"),
            "{err}"
        );
    }
}
