//! N-dimensional array arithmetic on `TT` values for the test kernels: positions, fibers
//! along a dimension, reductions, concatenation, matrix products and solves.

use crate::autograd::tests::tensor::{TT, broadcast, contiguous_strides};
use crate::dispatch::Error;

pub(crate) fn wrap(d: i64, n: usize) -> usize {
    crate::autograd::functions::wrap_dim(d, n).expect("dim")
}

pub(crate) fn unravel(mut i: usize, sizes: &[i64]) -> Vec<i64> {
    let mut index = vec![0; sizes.len()];
    for d in (0..sizes.len()).rev() {
        let n = sizes[d].max(1) as usize;
        index[d] = (i % n) as i64;
        i /= n;
    }
    index
}

pub(crate) fn ravel(index: &[i64], sizes: &[i64]) -> usize {
    (index.iter().zip(contiguous_strides(sizes)))
        .map(|(i, s)| (i * s) as usize)
        .sum()
}

pub(crate) fn numel(shape: &[i64]) -> usize {
    shape.iter().product::<i64>() as usize
}

/// The value of a tensor of `shape` (row-major `values`) at a broadcast multi-index.
pub(crate) fn at(values: &[f64], shape: &[i64], index: &[i64]) -> f64 {
    let skip = index.len() - shape.len();
    let idx: Vec<i64> = (shape.iter().enumerate())
        .map(|(d, &n)| if n == 1 { 0 } else { index[skip + d] })
        .collect();
    values[ravel(&idx, shape)]
}

/// `f` elementwise over the broadcast of three tensors.
pub(crate) fn zip3(a: &TT, b: &TT, c: &TT, f: impl Fn(f64, f64, f64) -> f64) -> Result<TT, Error> {
    let shape = broadcast(&broadcast(a.shape(), b.shape())?, c.shape())?;
    let (av, bv, cv) = (a.values(), b.values(), c.values());
    let values = (0..numel(&shape))
        .map(|i| {
            let index = unravel(i, &shape);
            f(
                at(&av, a.shape(), &index),
                at(&bv, b.shape(), &index),
                at(&cv, c.shape(), &index),
            )
        })
        .collect();
    Ok(TT::new(&shape, values))
}

/// A view of `a`'s storage.
pub(crate) fn view(a: &TT, sizes: Vec<i64>, strides: Vec<i64>, offset: i64) -> TT {
    a.view_with(sizes, strides, offset)
}

/// The row-major positions of each line of `shape` along dimension `d`.
pub(crate) fn fibers(shape: &[i64], d: usize) -> Vec<Vec<usize>> {
    let mut outer = shape.to_vec();
    outer[d] = 1;
    (0..numel(&outer))
        .map(|k| {
            let mut index = unravel(k, &outer);
            (0..shape[d])
                .map(|j| {
                    index[d] = j;
                    ravel(&index, shape)
                })
                .collect()
        })
        .collect()
}

/// Each line of `a` along `dim` replaced by `f` of it (same length).
pub(crate) fn along(a: &TT, dim: i64, f: impl Fn(&[f64]) -> Vec<f64>) -> TT {
    let shape = a.shape().to_vec();
    if shape.is_empty() {
        return TT::new(&[], f(&a.values()));
    }
    let d = wrap(dim, shape.len());
    let values = a.values();
    let mut out = vec![0.0; values.len()];
    for line in fibers(&shape, d) {
        let xs: Vec<f64> = line.iter().map(|&p| values[p]).collect();
        for (p, v) in line.iter().zip(f(&xs)) {
            out[*p] = v;
        }
    }
    TT::new(&shape, out)
}

/// `a` reduced over `dims` (all if empty) with `f` of each group of values.
pub(crate) fn reduce(a: &TT, dims: &[i64], keepdim: bool, f: impl Fn(&[f64]) -> f64) -> TT {
    let shape = a.shape().to_vec();
    let dims: Vec<usize> = if dims.is_empty() {
        (0..shape.len()).collect()
    } else {
        dims.iter().map(|&d| wrap(d, shape.len())).collect()
    };
    let kept: Vec<i64> = (shape.iter().enumerate())
        .map(|(i, &n)| if dims.contains(&i) { 1 } else { n })
        .collect();
    let mut groups = vec![Vec::new(); numel(&kept)];
    for (k, v) in a.values().into_iter().enumerate() {
        let mut pos = unravel(k, &shape);
        for &d in &dims {
            pos[d] = 0;
        }
        groups[ravel(&pos, &kept)].push(v);
    }
    let values = groups.iter().map(|g| f(g)).collect();
    let final_shape: Vec<i64> = if keepdim {
        kept
    } else {
        (shape.iter().enumerate())
            .filter(|(i, _)| !dims.contains(i))
            .map(|(_, &n)| n)
            .collect()
    };
    TT::new(&final_shape, values)
}

/// `tensors` concatenated along `dim`.
pub(crate) fn cat(tensors: &[TT], dim: i64) -> TT {
    let parts: Vec<&TT> = tensors.iter().filter(|t| t.shape() != [0]).collect();
    let Some(first) = parts.first() else {
        return TT::new(&[0], vec![]);
    };
    let d = wrap(dim, first.shape().len());
    let mut shape = first.shape().to_vec();
    shape[d] = parts.iter().map(|t| t.shape()[d]).sum();
    let mut out = vec![0.0; numel(&shape)];
    let mut start = 0;
    for t in parts {
        for (k, v) in t.values().into_iter().enumerate() {
            let mut pos = unravel(k, t.shape());
            pos[d] += start;
            out[ravel(&pos, &shape)] = v;
        }
        start += t.shape()[d];
    }
    TT::new(&shape, out)
}

/// The matrix product of `a` (`[..., n, k]`) and `b` (`[..., k, m]`), 1-D operands promoted
/// and batch dimensions broadcast as `matmul` does.
pub(crate) fn matmul(a: &TT, b: &TT) -> Result<TT, Error> {
    let (a1, b1) = (a.shape().len() == 1, b.shape().len() == 1);
    let a = if a1 {
        TT::new(&[1, a.shape()[0]], a.values())
    } else {
        a.clone()
    };
    let b = if b1 {
        TT::new(&[b.shape()[0], 1], b.values())
    } else {
        b.clone()
    };
    let (ar, br) = (a.shape().len(), b.shape().len());
    let (n, k, m) = (a.shape()[ar - 2], a.shape()[ar - 1], b.shape()[br - 1]);
    if b.shape()[br - 2] != k {
        return Err(Error::from(format!(
            "matmul: {:?} @ {:?}",
            a.shape(),
            b.shape()
        )));
    }
    let batch = broadcast(&a.shape()[..ar - 2], &b.shape()[..br - 2])?;
    let mut shape = batch.clone();
    shape.extend([n, m]);
    let (av, bv) = (a.values(), b.values());
    let mut out = vec![0.0; numel(&shape)];
    for (bi, chunk) in out.chunks_mut((n * m) as usize).enumerate() {
        let index = unravel(bi, &batch);
        let at = |shape: &[i64]| -> usize {
            let s = &shape[..shape.len() - 2];
            let skip = index.len() - s.len();
            let idx: Vec<i64> = (s.iter().enumerate())
                .map(|(d, &sz)| if sz == 1 { 0 } else { index[skip + d] })
                .collect();
            ravel(&idx, s)
        };
        let (ao, bo) = (
            at(a.shape()) * (n * k) as usize,
            at(b.shape()) * (k * m) as usize,
        );
        for i in 0..n as usize {
            for j in 0..m as usize {
                chunk[i * m as usize + j] = (0..k as usize)
                    .map(|l| av[ao + i * k as usize + l] * bv[bo + l * m as usize + j])
                    .sum();
            }
        }
    }
    let mut result = TT::new(&shape, out);
    if a1 {
        let s: Vec<i64> = result
            .shape()
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != result.shape().len() - 2)
            .map(|(_, &x)| x)
            .collect();
        result = TT::new(&s, result.values());
    }
    if b1 {
        let s = result.shape()[..result.shape().len() - 1].to_vec();
        result = TT::new(&s, result.values());
    }
    Ok(result)
}

/// The matrices of a `[n, n]` tensor as rows.
pub(crate) fn rows(a: &TT) -> Vec<Vec<f64>> {
    let (n, m) = (a.shape()[0] as usize, a.shape()[1] as usize);
    let v = a.values();
    (0..n).map(|i| v[i * m..(i + 1) * m].to_vec()).collect()
}

pub(crate) fn from_rows(r: &[Vec<f64>]) -> TT {
    let (n, m) = (r.len() as i64, r.first().map_or(0, Vec::len) as i64);
    TT::new(&[n, m], r.concat())
}

pub(crate) fn transpose2(r: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let m = r.first().map_or(0, Vec::len);
    (0..m)
        .map(|j| r.iter().map(|row| row[j]).collect())
        .collect()
}

/// `A X = B` for a triangular 2-D `A` by substitution.
pub(crate) fn solve_triangular(
    a: &[Vec<f64>],
    b: &[Vec<f64>],
    upper: bool,
    unit: bool,
) -> Vec<Vec<f64>> {
    let n = a.len();
    let m = b.first().map_or(0, Vec::len);
    let mut x = vec![vec![0.0; m]; n];
    let order: Vec<usize> = if upper {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    for &i in &order {
        for c in 0..m {
            let known: f64 = (0..n)
                .filter(|&j| if upper { j > i } else { j < i })
                .map(|j| a[i][j] * x[j][c])
                .sum();
            let diag = if unit { 1.0 } else { a[i][i] };
            x[i][c] = (b[i][c] - known) / diag;
        }
    }
    x
}

/// `A X = B` by Gaussian elimination with partial pivoting.
pub(crate) fn solve(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    let mut aug: Vec<Vec<f64>> = (0..n)
        .map(|i| [a[i].clone(), b[i].clone()].concat())
        .collect();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| aug[i][col].abs().total_cmp(&aug[j][col].abs()))
            .unwrap_or(col);
        aug.swap(col, pivot);
        for row in 0..n {
            if row != col {
                let f = aug[row][col] / aug[col][col];
                let pivot_row = aug[col].clone();
                for (x, p) in aug[row].iter_mut().zip(pivot_row) {
                    *x -= f * p;
                }
            }
        }
    }
    (0..n)
        .map(|i| aug[i][n..].iter().map(|v| v / aug[i][i]).collect())
        .collect()
}

/// The product of two row-major matrices.
pub(crate) fn mat_mul(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let m = b.first().map_or(0, Vec::len);
    a.iter()
        .map(|row| {
            (0..m)
                .map(|j| row.iter().zip(b).map(|(x, brow)| x * brow[j]).sum())
                .collect()
        })
        .collect()
}
