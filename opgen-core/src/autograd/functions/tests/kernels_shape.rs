//! `TT` kernels of views and shape operators.

use super::kernels::{k, schema};
use super::nd::*;
use crate::autograd::tests::tensor::TT;
use crate::dispatch::{DispatchKey as K, Error, Library, Registration, Scalar};

fn restride(a: &TT, sizes: Vec<i64>, strides: Vec<i64>) -> TT {
    view(a, sizes, strides, a.offset())
}

fn transpose(a: &TT, d0: i64, d1: i64) -> TT {
    let n = a.shape().len();
    let (d0, d1) = (wrap(d0, n), wrap(d1, n));
    let (mut sizes, mut strides) = (a.shape().to_vec(), a.stride().to_vec());
    sizes.swap(d0, d1);
    strides.swap(d0, d1);
    restride(a, sizes, strides)
}

/// A copy of `a` with `shape` (one -1 inferred).
fn reshaped(a: &TT, shape: &[i64]) -> TT {
    let n = a.numel() as i64;
    let known: i64 = shape.iter().filter(|s| **s != -1).product();
    let shape: Vec<i64> = shape
        .iter()
        .map(|&s| if s == -1 { n / known.max(1) } else { s })
        .collect();
    TT::new(&shape, a.values())
}

/// A contiguous copy of `a` with the values at `view` of it replaced by `src`.
fn scatter_view(a: &TT, src: &TT, view_of: impl Fn(&TT) -> TT) -> TT {
    let out = TT::new(a.shape(), a.values());
    view_of(&out).write(&src.values());
    out
}

fn slice_view(a: &TT, dim: i64, start: Option<i64>, end: Option<i64>, step: i64) -> TT {
    let d = wrap(dim, a.shape().len());
    let n = a.shape()[d];
    let clampi = |x: i64| if x < 0 { (x + n).max(0) } else { x.min(n) };
    let (s, e) = (clampi(start.unwrap_or(0)), clampi(end.unwrap_or(i64::MAX)));
    let (mut sizes, mut strides) = (a.shape().to_vec(), a.stride().to_vec());
    sizes[d] = ((e - s).max(0) + step - 1) / step;
    let offset = a.offset() + s * strides[d];
    strides[d] *= step;
    view(a, sizes, strides, offset)
}

fn diagonal_view(a: &TT, offset: i64, d1: i64, d2: i64) -> TT {
    let n = a.shape().len();
    let (d1, d2) = (wrap(d1, n), wrap(d2, n));
    let (size1, size2) = (a.shape()[d1], a.shape()[d2]);
    let (start, len) = if offset >= 0 {
        (offset * a.stride()[d2], (size1.min(size2 - offset)).max(0))
    } else {
        (-offset * a.stride()[d1], (size1 + offset).min(size2).max(0))
    };
    let mut sizes: Vec<i64> = Vec::new();
    let mut strides: Vec<i64> = Vec::new();
    for d in 0..n {
        if d != d1 && d != d2 {
            sizes.push(a.shape()[d]);
            strides.push(a.stride()[d]);
        }
    }
    sizes.push(len);
    strides.push(a.stride()[d1] + a.stride()[d2]);
    view(a, sizes, strides, a.offset() + start)
}

pub(crate) fn register_views(r: &mut Vec<Registration>, lib: &Library) -> Result<(), Error> {
    k!(r, lib, "expand", |a: &TT, size: &[i64], _: bool| {
        let skip = size.len() - a.shape().len();
        let strides = (0..size.len())
            .map(|i| {
                if i < skip || a.shape()[i - skip] != size[i] {
                    0
                } else {
                    a.stride()[i - skip]
                }
            })
            .collect();
        let sizes = (0..size.len())
            .map(|i| {
                if size[i] == -1 {
                    a.shape()[i - skip]
                } else {
                    size[i]
                }
            })
            .collect();
        restride(a, sizes, strides)
    });
    k!(r, lib, "expand_as", |a: &TT, o: &TT| {
        let size = o.shape().to_vec();
        let skip = size.len() - a.shape().len();
        let strides = (0..size.len())
            .map(|i| {
                if i < skip || a.shape()[i - skip] != size[i] {
                    0
                } else {
                    a.stride()[i - skip]
                }
            })
            .collect();
        restride(a, size, strides)
    });
    k!(r, lib, "unsqueeze", |a: &TT, dim: i64| {
        let d = wrap(dim, a.shape().len() + 1);
        let (mut sizes, mut strides) = (a.shape().to_vec(), a.stride().to_vec());
        let stride = if d < strides.len() {
            strides[d] * sizes[d]
        } else {
            1
        };
        sizes.insert(d, 1);
        strides.insert(d, stride);
        restride(a, sizes, strides)
    });
    k!(r, lib, "squeeze.dim", |a: &TT, dim: i64| {
        if a.shape().is_empty() {
            return a.clone();
        }
        let d = wrap(dim, a.shape().len());
        let (mut sizes, mut strides) = (a.shape().to_vec(), a.stride().to_vec());
        if sizes[d] == 1 {
            sizes.remove(d);
            strides.remove(d);
        }
        restride(a, sizes, strides)
    });
    k!(r, lib, "view", |a: &TT, size: &[i64]| reshaped(a, size));
    k!(r, lib, "reshape", |a: &TT, size: &[i64]| reshaped(a, size));
    k!(r, lib, "view_as", |a: &TT, o: &TT| reshaped(a, o.shape()));
    k!(r, lib, "reshape_as", |a: &TT, o: &TT| reshaped(
        a,
        o.shape()
    ));
    k!(r, lib, "narrow", |a: &TT,
                          dim: i64,
                          start: i64,
                          length: i64| {
        slice_view(a, dim, Some(start), Some(start + length), 1)
    });
    k!(r, lib, "slice.Tensor", slice_view);
    k!(r, lib, "select.int", |a: &TT, dim: i64, index: i64| {
        let d = wrap(dim, a.shape().len());
        let (mut sizes, mut strides) = (a.shape().to_vec(), a.stride().to_vec());
        let index = if index < 0 { index + sizes[d] } else { index };
        let offset = a.offset() + index * strides[d];
        sizes.remove(d);
        strides.remove(d);
        view(a, sizes, strides, offset)
    });
    k!(r, lib, "transpose.int", transpose);
    k!(r, lib, "t", |a: &TT| if a.shape().len() < 2 {
        a.clone()
    } else {
        transpose(a, 0, 1)
    });
    k!(r, lib, "mT", |a: &TT| transpose(a, -2, -1));
    k!(r, lib, "mH", |a: &TT| transpose(a, -2, -1));
    k!(r, lib, "permute", |a: &TT, dims: &[i64]| {
        let n = a.shape().len();
        let order: Vec<usize> = dims.iter().map(|&d| wrap(d, n)).collect();
        let sizes = order.iter().map(|&d| a.shape()[d]).collect();
        let strides = order.iter().map(|&d| a.stride()[d]).collect();
        restride(a, sizes, strides)
    });
    k!(r, lib, "diagonal", diagonal_view);
    k!(
        r,
        lib,
        "as_strided",
        |a: &TT, size: &[i64], stride: &[i64], offset: Option<i64>| {
            view(
                a,
                size.to_vec(),
                stride.to_vec(),
                offset.unwrap_or(a.offset()),
            )
        }
    );
    Ok(())
}

pub(crate) fn register_shapes(r: &mut Vec<Registration>, lib: &Library) -> Result<(), Error> {
    k!(r, lib, "cat", |ts: &[TT], dim: i64| cat(ts, dim));
    k!(r, lib, "stack", |ts: &[TT], dim: i64| {
        let n = ts.first().map_or(0, |t| t.shape().len());
        let d = wrap(dim, n + 1);
        let parts: Vec<TT> = ts
            .iter()
            .map(|t| {
                let mut s = t.shape().to_vec();
                s.insert(d, 1);
                TT::new(&s, t.values())
            })
            .collect();
        cat(&parts, d as i64)
    });
    k!(r, lib, "flip", |a: &TT, dims: &[i64]| {
        dims.iter().fold(a.clone(), |t, &d| {
            along(&t, d, |v| v.iter().rev().copied().collect())
        })
    });
    k!(r, lib, "tril", |a: &TT, diag: i64| triangle(a, |i, j| j
        - i
        <= diag));
    k!(r, lib, "triu", |a: &TT, diag: i64| triangle(a, |i, j| j
        - i
        >= diag));
    k!(r, lib, "diag_embed", |a: &TT, _: i64, _: i64, _: i64| {
        let n = *a.shape().last().expect("a vector");
        let mut shape = a.shape().to_vec();
        shape.push(n);
        let v = a.values();
        let out = (0..numel(&shape))
            .map(|p| {
                let idx = unravel(p, &shape);
                let (i, j) = (idx[idx.len() - 2], idx[idx.len() - 1]);
                if i == j { v[p / n as usize] } else { 0.0 }
            })
            .collect();
        TT::new(&shape, out)
    });
    k!(
        r,
        lib,
        "as_strided_scatter",
        |a: &TT, src: &TT, size: &[i64], stride: &[i64], offset: Option<i64>| {
            scatter_view(a, src, |o| {
                view(o, size.to_vec(), stride.to_vec(), offset.unwrap_or(0))
            })
        }
    );
    k!(
        r,
        lib,
        "slice_scatter",
        |a: &TT, src: &TT, dim: i64, s: Option<i64>, e: Option<i64>, step: i64| {
            scatter_view(a, src, |o| slice_view(o, dim, s, e, step))
        }
    );
    k!(
        r,
        lib,
        "diagonal_scatter",
        |a: &TT, src: &TT, off: i64, d1: i64, d2: i64| {
            scatter_view(a, src, |o| diagonal_view(o, off, d1, d2))
        }
    );
    k!(
        r,
        lib,
        "slice_backward",
        |g: &TT, sizes: &[i64], dim: i64, s: i64, e: i64, step: i64| {
            let zeros = TT::new(sizes, vec![0.0; numel(sizes)]);
            scatter_view(&zeros, g, |o| slice_view(o, dim, Some(s), Some(e), step))
        }
    );
    k!(
        r,
        lib,
        "constant_pad_nd",
        |a: &TT, pad: &[i64], value: Scalar| {
            let n = a.shape().len();
            let mut shape = a.shape().to_vec();
            for (i, p) in pad.chunks(2).enumerate() {
                shape[n - 1 - i] += p[0] + p[1];
            }
            let av = a.values();
            let out = (0..numel(&shape))
                .map(|q| {
                    let mut idx = unravel(q, &shape);
                    for (i, p) in pad.chunks(2).enumerate() {
                        idx[n - 1 - i] -= p[0];
                    }
                    let inside = idx.iter().zip(a.shape()).all(|(x, s)| *x >= 0 && x < s);
                    if inside {
                        av[ravel(&idx, a.shape())]
                    } else {
                        value.to_f64()
                    }
                })
                .collect();
            TT::new(&shape, out)
        }
    );
    Ok(())
}

fn triangle(a: &TT, keep: impl Fn(i64, i64) -> bool) -> TT {
    let shape = a.shape().to_vec();
    let v = a.values();
    let out = (0..v.len())
        .map(|p| {
            let idx = unravel(p, &shape);
            if keep(idx[idx.len() - 2], idx[idx.len() - 1]) {
                v[p]
            } else {
                0.0
            }
        })
        .collect();
    TT::new(&shape, out)
}
