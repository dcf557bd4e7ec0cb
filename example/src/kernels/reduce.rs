//! Reductions: `sum`, `mean`, `max.dim`, `argmax`, `topk`.
//!
//! Structured in PyTorch (meta + impl below): `sum.IntList_out`, `mean.out`,
//! `max.dim_max`, `argmax.out`, `topk.values`. `sum` and `mean` over everything are
//! CompositeExplicitAutograd functions; here they reuse the `dim` forms with no dims.

use opgen::prelude::*;

use super::{Num, OutputMeta, total_cmp, with_dtype};
use crate::promote::{check_supported, is_floating, is_integral_or_bool};
use crate::shape::{contiguous_strides, element_offsets, wrap_dim};
use crate::{Element, MiniTensor};

/// Which dimensions a reduction over `dim` reduces: all of them for `None` or an empty
/// list (PyTorch's rule), else the listed ones, each once.
pub fn reduce_mask(sizes: &[i64], dim: Option<&[i64]>) -> Result<Vec<bool>, Error> {
    let ndim = sizes.len();
    let dims = dim.unwrap_or(&[]);
    if dims.is_empty() {
        return Ok(vec![true; ndim]);
    }
    let mut mask = vec![false; ndim];
    for &d in dims {
        let w = wrap_dim(d, ndim)?;
        if ndim == 0 {
            continue;
        }
        if std::mem::replace(&mut mask[w], true) {
            return Err(Error::from(format!(
                "dim {w} appears multiple times in the list of dims"
            )));
        }
    }
    Ok(mask)
}

/// The sizes after reducing the masked dimensions (kept as 1 with `keepdim`).
pub fn reduced_sizes(sizes: &[i64], mask: &[bool], keepdim: bool) -> Vec<i64> {
    sizes
        .iter()
        .zip(mask)
        .filter_map(|(&s, &m)| match (m, keepdim) {
            (false, _) => Some(s),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

/// For each input element (row-major), the output element (row-major) it reduces into.
fn targets(sizes: &[i64], mask: &[bool]) -> Vec<usize> {
    let kept = reduced_sizes(sizes, mask, true);
    let mut strides = contiguous_strides(&kept);
    for (s, &m) in strides.iter_mut().zip(mask) {
        if m {
            *s = 0;
        }
    }
    element_offsets(sizes, &strides, 0)
}

/// The dtype of `sum`: `dtype` if given, else `Long` for integer and bool inputs, else the
/// input's.
fn sum_dtype(self_: &MiniTensor, dtype: Option<ScalarType>) -> Result<ScalarType, Error> {
    match dtype {
        Some(d) => check_supported(d),
        None if is_integral_or_bool(self_.dtype()) => Ok(ScalarType::Long),
        None => Ok(self_.dtype()),
    }
}

/// `sum.IntList_out`'s meta (structured in PyTorch): `int[1]? dim` (none or empty: every
/// dimension), `keepdim`, `ScalarType? dtype`.
pub fn sum_meta(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
) -> Result<OutputMeta, Error> {
    let sizes = self_.shape();
    let mask = reduce_mask(&sizes, dim)?;
    Ok(OutputMeta::new(
        reduced_sizes(&sizes, &mask, keepdim),
        sum_dtype(self_, dtype)?,
        self_.device(),
    ))
}

/// Sums into `out` (accumulating in `f64` for floating outputs, `i64` otherwise); with
/// `divide`, divides by the number of elements reduced (`mean`).
fn sum_into(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    divide: bool,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let sizes = self_.shape();
    let mask = reduce_mask(&sizes, dim)?;
    let targets = targets(&sizes, &mask);
    let n_out = out.numel() as usize;
    let count: i64 = sizes
        .iter()
        .zip(&mask)
        .filter(|(_, m)| **m)
        .map(|(s, _)| s)
        .product();
    if is_floating(out.dtype()) {
        let mut acc = vec![0.0f64; n_out];
        for (&t, x) in targets.iter().zip(self_.broadcast_values::<f64>(&sizes)?) {
            acc[t] += x;
        }
        if divide {
            acc.iter_mut().for_each(|a| *a /= count as f64);
        }
        out.scatter(&acc)
    } else {
        let mut acc = vec![0i64; n_out];
        for (&t, x) in targets.iter().zip(self_.broadcast_values::<i64>(&sizes)?) {
            acc[t] = acc[t].add(x);
        }
        out.scatter(&acc)
    }
}

/// `sum.IntList_out`'s impl (structured in PyTorch).
pub fn sum_impl(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let _ = (keepdim, dtype); // the shape and dtype of `out` carry them
    sum_into(self_, dim, false, out)
}

/// `mean.out`'s meta (structured in PyTorch): as `sum`, but the dtype must be floating.
pub fn mean_meta(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
) -> Result<OutputMeta, Error> {
    let result = match dtype {
        Some(d) => check_supported(d)?,
        None => self_.dtype(),
    };
    if !is_floating(result) {
        let what = if dtype.is_some() { "Optional" } else { "Input" };
        return Err(Error::from(format!(
            "mean(): could not infer output dtype. {what} dtype must be either a floating \
             point or complex dtype. Got: {result}"
        )));
    }
    let sizes = self_.shape();
    let mask = reduce_mask(&sizes, dim)?;
    Ok(OutputMeta::new(
        reduced_sizes(&sizes, &mask, keepdim),
        result,
        self_.device(),
    ))
}

/// `mean.out`'s impl (structured in PyTorch): the sum divided by the number of elements
/// reduced (NaN for none).
pub fn mean_impl(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let _ = (keepdim, dtype);
    sum_into(self_, dim, true, out)
}

/// `(outer, len, inner)` of a reduction along one dimension (a zero-dim tensor is one
/// element along its only dimension).
fn split_at(sizes: &[i64], dim: Option<usize>) -> (usize, usize, usize) {
    let Some(d) = dim.filter(|_| !sizes.is_empty()) else {
        let n: i64 = sizes.iter().product();
        return (1, n as usize, 1);
    };
    let outer: i64 = sizes[..d].iter().product();
    let inner: i64 = sizes[d + 1..].iter().product();
    (outer as usize, sizes[d] as usize, inner as usize)
}

/// The sizes after reducing dimension `d` of `sizes`.
fn without_dim(sizes: &[i64], d: usize, keepdim: bool) -> Vec<i64> {
    if sizes.is_empty() {
        return Vec::new();
    }
    let mask: Vec<bool> = (0..sizes.len()).map(|i| i == d).collect();
    reduced_sizes(sizes, &mask, keepdim)
}

/// `max.dim_max`'s meta (structured in PyTorch): values (the input's dtype) and indices
/// (`Long`).
pub fn max_dim_meta(self_: &MiniTensor, dim: i64, keepdim: bool) -> Result<[OutputMeta; 2], Error> {
    let sizes = self_.shape();
    let d = wrap_dim(dim, sizes.len())?;
    if sizes.get(d) == Some(&0) {
        return Err(Error::from(format!(
            "max(): Expected reduction dim {d} to have non-zero size."
        )));
    }
    let out = without_dim(&sizes, d, keepdim);
    Ok([
        OutputMeta::new(out.clone(), self_.dtype(), self_.device()),
        OutputMeta::new(out, ScalarType::Long, self_.device()),
    ])
}

/// The index of the largest element of each slice along `dim` (the first one on ties;
/// NaN counts as the largest).
fn argmax_slices(self_: &MiniTensor, dim: Option<usize>) -> Result<Vec<usize>, Error> {
    let sizes = self_.shape();
    let (outer, len, inner) = split_at(&sizes, dim);
    with_dtype!(self_.dtype(), |E| {
        let v: Vec<E> = self_.broadcast_values(&sizes)?;
        let mut best = Vec::with_capacity(outer * inner);
        for o in 0..outer {
            for i in 0..inner {
                let at = |k: usize| v[(o * len + k) * inner + i];
                let mut b = 0;
                for k in 1..len {
                    if total_cmp(at(k), at(b)) == std::cmp::Ordering::Greater {
                        b = k;
                    }
                }
                best.push(b);
            }
        }
        Ok(best)
    })
}

/// `max.dim_max`'s impl (structured in PyTorch). PyTorch names the out arguments `max`
/// (the values) and `max_values` (the indices).
pub fn max_dim_impl(
    self_: &MiniTensor,
    dim: i64,
    keepdim: bool,
    max: &mut MiniTensor,
    max_values: &mut MiniTensor,
) -> Result<(), Error> {
    let _ = keepdim;
    let sizes = self_.shape();
    let d = wrap_dim(dim, sizes.len())?;
    let (_, len, inner) = split_at(&sizes, Some(d));
    let best = argmax_slices(self_, Some(d))?;
    with_dtype!(self_.dtype(), |E| {
        let v: Vec<E> = self_.broadcast_values(&sizes)?;
        let values: Vec<E> = best
            .iter()
            .enumerate()
            .map(|(j, &b)| v[((j / inner) * len + b) * inner + j % inner])
            .collect();
        max.scatter(&values)
    })?;
    max_values.scatter(&best.iter().map(|&b| b as i64).collect::<Vec<_>>())
}

/// `argmax.out`'s meta (structured in PyTorch): `int? dim` (none: the flattened tensor),
/// `Long` indices.
pub fn argmax_meta(
    self_: &MiniTensor,
    dim: Option<i64>,
    keepdim: bool,
) -> Result<OutputMeta, Error> {
    let sizes = self_.shape();
    let out = match dim {
        Some(dim) => {
            let d = wrap_dim(dim, sizes.len())?;
            if sizes.get(d) == Some(&0) {
                return Err(Error::from(format!(
                    "argmax(): Expected reduction dim {d} to have non-zero size."
                )));
            }
            without_dim(&sizes, d, keepdim)
        }
        None => {
            if self_.numel() == 0 {
                return Err(Error::from(
                    "argmax(): Expected reduction dim to be specified for input.numel() == 0.",
                ));
            }
            if keepdim {
                vec![1; sizes.len()]
            } else {
                Vec::new()
            }
        }
    };
    Ok(OutputMeta::new(out, ScalarType::Long, self_.device()))
}

/// `argmax.out`'s impl (structured in PyTorch).
pub fn argmax_impl(
    self_: &MiniTensor,
    dim: Option<i64>,
    keepdim: bool,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let _ = keepdim;
    let d = dim.map(|d| wrap_dim(d, self_.dim())).transpose()?;
    let best = argmax_slices(self_, d)?;
    out.scatter(&best.iter().map(|&b| b as i64).collect::<Vec<_>>())
}

/// `topk.values`' meta (structured in PyTorch): values and `Long` indices with `k`
/// elements along `dim`.
pub fn topk_meta(
    self_: &MiniTensor,
    k: i64,
    dim: i64,
    largest: bool,
    sorted: bool,
) -> Result<[OutputMeta; 2], Error> {
    let _ = (largest, sorted);
    let sizes = self_.shape();
    let d = wrap_dim(dim, sizes.len())?;
    let len = sizes.get(d).copied().unwrap_or(1);
    if k < 0 || k > len {
        return Err(Error::from("selected index k out of range"));
    }
    let mut out = sizes.clone();
    if let Some(s) = out.get_mut(d) {
        *s = k;
    }
    Ok([
        OutputMeta::new(out.clone(), self_.dtype(), self_.device()),
        OutputMeta::new(out, ScalarType::Long, self_.device()),
    ])
}

/// `topk.values`' impl (structured in PyTorch): the `k` largest (or smallest) elements of
/// each slice along `dim`, sorted (also when `sorted` is false, which allows any order);
/// NaN counts as the largest.
pub fn topk_impl(
    self_: &MiniTensor,
    k: i64,
    dim: i64,
    largest: bool,
    sorted: bool,
    values: &mut MiniTensor,
    indices: &mut MiniTensor,
) -> Result<(), Error> {
    let _ = sorted;
    let sizes = self_.shape();
    let d = wrap_dim(dim, sizes.len())?;
    let (outer, len, inner) = split_at(&sizes, Some(d));
    let k = k as usize;
    let mut picked = vec![0usize; outer * k * inner];
    with_dtype!(self_.dtype(), |E| {
        let v: Vec<E> = self_.broadcast_values(&sizes)?;
        let mut vals: Vec<E> = vec![E::cast(0i64); picked.len()];
        for o in 0..outer {
            for i in 0..inner {
                let at = |j: usize| v[(o * len + j) * inner + i];
                let mut order: Vec<usize> = (0..len).collect();
                if largest {
                    order.sort_by(|&a, &b| total_cmp(at(b), at(a)));
                } else {
                    order.sort_by(|&a, &b| total_cmp(at(a), at(b)));
                }
                for (j, &src) in order.iter().take(k).enumerate() {
                    let dst = (o * k + j) * inner + i;
                    picked[dst] = src;
                    vals[dst] = at(src);
                }
            }
        }
        values.scatter(&vals)
    })?;
    indices.scatter(&picked.iter().map(|&p| p as i64).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(v: Vec<f64>, s: &[i64]) -> MiniTensor {
        MiniTensor::from_vec(v, s).unwrap()
    }

    #[test]
    fn sum_and_mean_over_dims() {
        let a = m(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let meta = sum_meta(&a, Some(&[1]), true, None).unwrap();
        assert_eq!(meta.sizes, [2, 1]);
        let mut out = meta.allocate().unwrap();
        sum_impl(&a, Some(&[1]), true, None, &mut out).unwrap();
        assert_eq!(out.to_vec::<f64>().unwrap(), [6.0, 15.0]);
        let meta = mean_meta(&a, Some(&[0, -1]), false, None).unwrap();
        assert_eq!(meta.sizes, Vec::<i64>::new());
        let mut out = meta.allocate().unwrap();
        mean_impl(&a, Some(&[0, -1]), false, None, &mut out).unwrap();
        assert_eq!(out.item::<f64>().unwrap(), 3.5);
        let l = MiniTensor::from_vec(vec![true, true, false], &[3]).unwrap();
        assert_eq!(
            sum_meta(&l, None, false, None).unwrap().dtype(),
            ScalarType::Long
        );
        let err = mean_meta(&l, None, false, None).unwrap_err().to_string();
        assert!(
            err.contains("Input dtype must be either a floating point"),
            "{err}"
        );
        let err = sum_meta(&a, Some(&[1, 1]), false, None)
            .unwrap_err()
            .to_string();
        assert!(err.contains("dim 1 appears multiple times"), "{err}");
    }

    #[test]
    fn max_argmax_topk() {
        let a = m(vec![3.0, 7.0, 7.0, 1.0, f64::NAN, 0.0], &[2, 3]);
        let [mv, mi] = max_dim_meta(&a, 1, false).unwrap();
        let (mut v, mut i) = (mv.allocate().unwrap(), mi.allocate().unwrap());
        max_dim_impl(&a, 1, false, &mut v, &mut i).unwrap();
        let vals = v.to_vec::<f64>().unwrap();
        assert_eq!(vals[0], 7.0);
        assert!(vals[1].is_nan());
        assert_eq!(i.to_vec::<i64>().unwrap(), [1, 1]);
        let meta = argmax_meta(&a, None, false).unwrap();
        let mut o = meta.allocate().unwrap();
        argmax_impl(&a, None, false, &mut o).unwrap();
        assert_eq!(o.item::<i64>().unwrap(), 4);
        let b = MiniTensor::from_vec(vec![5i64, 1, 4, 2], &[4]).unwrap();
        let [tv, ti] = topk_meta(&b, 2, -1, true, true).unwrap();
        let (mut v, mut i) = (tv.allocate().unwrap(), ti.allocate().unwrap());
        topk_impl(&b, 2, -1, true, true, &mut v, &mut i).unwrap();
        assert_eq!(v.to_vec::<i64>().unwrap(), [5, 4]);
        assert_eq!(i.to_vec::<i64>().unwrap(), [0, 2]);
        topk_impl(&b, 2, -1, false, true, &mut v, &mut i).unwrap();
        assert_eq!(v.to_vec::<i64>().unwrap(), [1, 2]);
        assert!(
            topk_meta(&b, 5, 0, true, true)
                .unwrap_err()
                .to_string()
                .contains("k out of range")
        );
        let empty = m(vec![], &[0]);
        assert!(argmax_meta(&empty, None, false).is_err());
        assert!(max_dim_meta(&empty, 0, false).is_err());
    }
}
