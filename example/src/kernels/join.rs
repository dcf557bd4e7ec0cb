//! Joining tensors: `cat` (structured in PyTorch: `cat.out`) and `stack`
//! (CompositeExplicitAutograd in PyTorch, not structured).

use opgen::prelude::*;

use super::views::{narrow, select};
use super::{OutputMeta, common_device, with_dtype};
use crate::MiniTensor;
use crate::promote::ResultType;
use crate::shape::wrap_dim;

/// Whether `cat` skips the tensor: PyTorch's legacy rule ignores 1-D tensors of size 0.
pub fn skipped(t: &MiniTensor) -> bool {
    t.shape() == [0]
}

fn promoted(tensors: &[MiniTensor]) -> Result<ScalarType, Error> {
    tensors
        .iter()
        .fold(ResultType::new(), |s, t| s.tensor(t))
        .finish()
}

/// `cat.out`'s meta (structured in PyTorch): the tensors' sizes agree except along `dim`;
/// dtypes promote.
pub fn cat_meta(tensors: &[MiniTensor], dim: i64) -> Result<OutputMeta, Error> {
    if tensors.is_empty() {
        return Err(Error::from(
            "torch.cat(): expected a non-empty list of Tensors",
        ));
    }
    let refs: Vec<&MiniTensor> = tensors.iter().collect();
    let device = common_device(&refs)?;
    let dtype = promoted(tensors)?;
    let Some(first) = tensors.iter().find(|t| !skipped(t)) else {
        return Ok(OutputMeta::new(vec![0], dtype, device));
    };
    let mut sizes = first.shape();
    if sizes.is_empty() {
        return Err(Error::from(
            "zero-dimensional tensor (at position 0) cannot be concatenated",
        ));
    }
    let d = wrap_dim(dim, sizes.len())?;
    sizes[d] = 0;
    for (i, t) in tensors.iter().enumerate().filter(|(_, t)| !skipped(t)) {
        let s = t.shape();
        if s.len() != sizes.len() {
            return Err(Error::from(format!(
                "Tensors must have same number of dimensions: got {} and {}",
                sizes.len(),
                s.len()
            )));
        }
        for (j, (&a, &b)) in sizes.iter().zip(&s).enumerate() {
            if j != d && a != b {
                return Err(Error::from(format!(
                    "Sizes of tensors must match except in dimension {d}. Expected size {a} \
                     but got size {b} for tensor number {i} in the list."
                )));
            }
        }
        sizes[d] += s[d];
    }
    Ok(OutputMeta::new(sizes, dtype, device))
}

/// `cat.out`'s impl (structured in PyTorch): copies each tensor into its slice of `out`.
pub fn cat_impl(tensors: &[MiniTensor], dim: i64, out: &mut MiniTensor) -> Result<(), Error> {
    let d = wrap_dim(dim, out.dim())?;
    let mut start = 0;
    for t in tensors.iter().filter(|t| !skipped(t)) {
        let len = t.shape()[d];
        narrow(out, d, start, len).copy_values_from(t)?;
        start += len;
    }
    Ok(())
}

/// `cat.out`'s impl along dimension 0: the output's row-major values are the tensors',
/// one after another, written in one pass (the tensors have `out`'s dtype).
pub fn cat_rows_impl(tensors: &[MiniTensor], out: &mut MiniTensor) -> Result<(), Error> {
    with_dtype!(out.dtype(), |E| {
        let mut values: Vec<E> = Vec::with_capacity(out.numel() as usize);
        for t in tensors.iter().filter(|t| !skipped(t)) {
            values.extend(t.to_vec::<E>()?);
        }
        out.scatter(&values)
    })
}

/// `stack`'s meta: tensors of one shape, joined along a new dimension `dim`.
pub fn stack_meta(tensors: &[MiniTensor], dim: i64) -> Result<OutputMeta, Error> {
    let Some(first) = tensors.first() else {
        return Err(Error::from("stack expects a non-empty TensorList"));
    };
    let shape = first.shape();
    for (i, t) in tensors.iter().enumerate() {
        if t.shape() != shape {
            return Err(Error::from(format!(
                "stack expects each tensor to be equal size, but got {shape:?} at entry 0 and \
                 {:?} at entry {i}",
                t.shape()
            )));
        }
    }
    let d = wrap_dim(dim, shape.len() + 1)?;
    let mut sizes = shape;
    sizes.insert(d, tensors.len() as i64);
    let refs: Vec<&MiniTensor> = tensors.iter().collect();
    Ok(OutputMeta::new(
        sizes,
        promoted(tensors)?,
        common_device(&refs)?,
    ))
}

/// `stack`'s impl: copies tensor `i` into `out.select(dim, i)`.
pub fn stack_impl(tensors: &[MiniTensor], dim: i64, out: &mut MiniTensor) -> Result<(), Error> {
    let d = wrap_dim(dim, out.dim())? as i64;
    for (i, t) in tensors.iter().enumerate() {
        select(out, d, i as i64)?.copy_values_from(t)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cat_and_stack() {
        let a = MiniTensor::from_vec(vec![1i64, 2, 3, 4], &[2, 2]).unwrap();
        let b = MiniTensor::from_vec(vec![0.5f32, 0.25], &[2, 1]).unwrap();
        let legacy = MiniTensor::from_vec(Vec::<i64>::new(), &[0]).unwrap();
        let ts = [a.share(), legacy, b];
        let meta = cat_meta(&ts, -1).unwrap();
        assert_eq!(
            (meta.sizes.clone(), meta.dtype()),
            (vec![2, 3], ScalarType::Float)
        );
        let mut out = meta.allocate().unwrap();
        cat_impl(&ts, -1, &mut out).unwrap();
        assert_eq!(
            out.to_vec::<f32>().unwrap(),
            [1.0, 2.0, 0.5, 3.0, 4.0, 0.25]
        );
        let err = cat_meta(&[a.share(), a.share()], 2)
            .unwrap_err()
            .to_string();
        assert!(err.contains("Dimension out of range"), "{err}");
        let c = MiniTensor::from_vec(vec![1i64, 2, 3], &[1, 3]).unwrap();
        let err = cat_meta(&[a.share(), c.share()], 1)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Expected size 2 but got size 1 for tensor number 1"),
            "{err}"
        );
        assert!(cat_meta(&[], 0).is_err());

        let meta = stack_meta(&[a.share(), a.share()], 1).unwrap();
        assert_eq!(meta.sizes, [2, 2, 2]);
        let mut out = meta.allocate().unwrap();
        stack_impl(&[a.share(), a.share()], 1, &mut out).unwrap();
        assert_eq!(out.to_vec::<i64>().unwrap(), [1, 2, 1, 2, 3, 4, 3, 4]);
        let err = stack_meta(&[a.share(), c], 0).unwrap_err().to_string();
        assert!(
            err.contains("stack expects each tensor to be equal size"),
            "{err}"
        );
    }
}
