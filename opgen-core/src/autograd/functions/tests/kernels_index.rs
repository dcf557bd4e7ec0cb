//! `TT` kernels of indexing, linear algebra, and the loss and activation backwards the
//! second derivatives call.

use super::kernels::{b, k, schema, sigmoid};
use super::nd::*;
use crate::autograd::tests::tensor::TT;
use crate::dispatch::{DispatchKey as K, Error, Library, Registration, Scalar};

/// The positions of `index`'s entries in `target` along `dim` (gather/scatter indexing).
fn along_index(index: &TT, dim: i64, target: &[i64]) -> Vec<(usize, usize)> {
    let d = wrap(dim, target.len());
    (index.values().iter().enumerate())
        .map(|(k, &i)| {
            let mut pos = unravel(k, index.shape());
            pos[d] = i as i64;
            (k, ravel(&pos, target))
        })
        .collect()
}

fn scatter_reduce_values(
    a: &TT,
    dim: i64,
    index: &TT,
    src: &TT,
    reduce: &str,
    include_self: bool,
) -> TT {
    let mut groups: Vec<Vec<f64>> = a
        .values()
        .into_iter()
        .map(|v| if include_self { vec![v] } else { vec![] })
        .collect();
    let sv = src.values();
    for (k, p) in along_index(index, dim, a.shape()) {
        groups[p].push(sv[k]);
    }
    let base = a.values();
    let out = (groups.iter().enumerate())
        .map(|(p, g)| match (reduce, g.is_empty()) {
            (_, true) => base[p],
            ("sum", _) => g.iter().sum(),
            ("prod", _) => g.iter().product(),
            ("mean", _) => g.iter().sum::<f64>() / g.len() as f64,
            ("amax", _) => g.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            _ => g.iter().copied().fold(f64::INFINITY, f64::min),
        })
        .collect();
    TT::new(a.shape(), out)
}

/// `index_select`-style positions: every element of `shape` whose `dim` coordinate is
/// `index[j]`, paired with the element of the selected tensor.
fn index_positions(shape: &[i64], dim: i64, index: &[f64]) -> Vec<(usize, usize)> {
    let d = wrap(dim, shape.len());
    let mut selected = shape.to_vec();
    selected[d] = index.len() as i64;
    (0..numel(&selected))
        .map(|k| {
            let mut pos = unravel(k, &selected);
            pos[d] = index[pos[d] as usize] as i64;
            (k, ravel(&pos, shape))
        })
        .collect()
}

pub(crate) fn register_indexing(r: &mut Vec<Registration>, lib: &Library) -> Result<(), Error> {
    k!(r, lib, "gather", |a: &TT, dim: i64, index: &TT, _: bool| {
        let av = a.values();
        let out = along_index(index, dim, a.shape())
            .into_iter()
            .map(|(_, p)| av[p])
            .collect();
        TT::new(index.shape(), out)
    });
    k!(
        r,
        lib,
        "scatter.src",
        |a: &TT, dim: i64, index: &TT, src: &TT| {
            let (mut out, sv) = (a.values(), src.values());
            for (k, p) in along_index(index, dim, a.shape()) {
                out[p] = sv[k];
            }
            TT::new(a.shape(), out)
        }
    );
    k!(
        r,
        lib,
        "scatter.value",
        |a: &TT, dim: i64, index: &TT, v: Scalar| {
            let mut out = a.values();
            for (_, p) in along_index(index, dim, a.shape()) {
                out[p] = v.to_f64();
            }
            TT::new(a.shape(), out)
        }
    );
    k!(
        r,
        lib,
        "scatter_add",
        |a: &TT, dim: i64, index: &TT, src: &TT| {
            scatter_reduce_values(a, dim, index, src, "sum", true)
        }
    );
    k!(
        r,
        lib,
        "scatter_reduce.two",
        |a: &TT, dim: i64, index: &TT, src: &TT, reduce: &str, include_self: bool| {
            scatter_reduce_values(a, dim, index, src, reduce, include_self)
        }
    );
    k!(r, lib, "index_select", |a: &TT, dim: i64, index: &TT| {
        let av = a.values();
        let positions = index_positions(a.shape(), dim, &index.values());
        let mut shape = a.shape().to_vec();
        let d = wrap(dim, shape.len());
        shape[d] = index.numel() as i64;
        TT::new(&shape, positions.into_iter().map(|(_, p)| av[p]).collect())
    });
    k!(
        r,
        lib,
        "index_add",
        |a: &TT, dim: i64, index: &TT, src: &TT, alpha: Scalar| {
            let (mut out, sv) = (a.values(), src.values());
            for (k, p) in index_positions(a.shape(), dim, &index.values()) {
                out[p] += alpha.to_f64() * sv[k];
            }
            TT::new(a.shape(), out)
        }
    );
    k!(
        r,
        lib,
        "index_fill.int_Scalar",
        |a: &TT, dim: i64, index: &TT, v: Scalar| {
            let mut out = a.values();
            for (_, p) in index_positions(a.shape(), dim, &index.values()) {
                out[p] = v.to_f64();
            }
            TT::new(a.shape(), out)
        }
    );
    k!(
        r,
        lib,
        "index_reduce",
        |a: &TT, dim: i64, index: &TT, src: &TT, reduce: &str, include_self: bool| {
            let mut groups: Vec<Vec<f64>> = a
                .values()
                .into_iter()
                .map(|v| if include_self { vec![v] } else { vec![] })
                .collect();
            let sv = src.values();
            for (k, p) in index_positions(a.shape(), dim, &index.values()) {
                groups[p].push(sv[k]);
            }
            let base = a.values();
            let out = (groups.iter().enumerate())
                .map(|(p, g)| match (reduce, g.is_empty()) {
                    (_, true) => base[p],
                    ("prod", _) => g.iter().product(),
                    ("mean", _) => g.iter().sum::<f64>() / g.len() as f64,
                    ("amax", _) => g.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    _ => g.iter().copied().fold(f64::INFINITY, f64::min),
                })
                .collect();
            TT::new(a.shape(), out)
        }
    );
    k!(
        r,
        lib,
        "index_put",
        |a: &TT, indices: &[Option<TT>], values: &TT, accumulate: bool| {
            // One integer index tensor on the first dimension.
            let index = indices[0].as_ref().expect("an index").values();
            let (mut out, vv) = (a.values(), values.values());
            let row: usize = a.shape()[1..].iter().product::<i64>() as usize;
            let values_row = vv.len() / index.len().max(1);
            for (j, &i) in index.iter().enumerate() {
                for c in 0..row {
                    let v = vv[(j * values_row + c % values_row.max(1)) % vv.len()];
                    let p = i as usize * row + c;
                    out[p] = if accumulate { out[p] + v } else { v };
                }
            }
            TT::new(a.shape(), out)
        }
    );
    k!(r, lib, "put", |a: &TT,
                       index: &TT,
                       src: &TT,
                       accumulate: bool| {
        let (mut out, sv) = (a.values(), src.values());
        for (k, &i) in index.values().iter().enumerate() {
            let p = if i < 0.0 {
                (i + out.len() as f64) as usize
            } else {
                i as usize
            };
            out[p] = if accumulate { out[p] + sv[k] } else { sv[k] };
        }
        TT::new(a.shape(), out)
    });
    k!(r, lib, "masked_select", |a: &TT, m: &TT| {
        let both = TT::zip(a, m, |x, m| if m != 0.0 { x } else { f64::NAN })?;
        Ok::<TT, Error>(TT::vec(
            &both
                .values()
                .into_iter()
                .filter(|v| !v.is_nan())
                .collect::<Vec<_>>(),
        ))
    });
    Ok(())
}

pub(crate) fn register_linalg(r: &mut Vec<Registration>, lib: &Library) -> Result<(), Error> {
    k!(r, lib, "mm", |a: &TT, c: &TT| matmul(a, c));
    k!(r, lib, "matmul", |a: &TT, c: &TT| matmul(a, c));
    k!(
        r,
        lib,
        "linalg_solve_triangular",
        |a: &TT, bm: &TT, upper: bool, left: bool, unit: bool| {
            if left {
                return from_rows(&solve_triangular(&rows(a), &rows(bm), upper, unit));
            }
            // X A = B  ⇔  Aᵀ Xᵀ = Bᵀ.
            let x_t = solve_triangular(&transpose2(&rows(a)), &transpose2(&rows(bm)), !upper, unit);
            from_rows(&transpose2(&x_t))
        }
    );
    k!(r, lib, "linalg_solve", |a: &TT, bm: &TT, left: bool| {
        let vector = bm.shape().len() == 1;
        let bm = if vector {
            TT::new(&[bm.numel() as i64, 1], bm.values())
        } else {
            bm.clone()
        };
        let x = if left {
            solve(&rows(a), &rows(&bm))
        } else {
            transpose2(&solve(&transpose2(&rows(a)), &transpose2(&rows(&bm))))
        };
        let x = from_rows(&x);
        if vector { TT::vec(&x.values()) } else { x }
    });
    k!(r, lib, "cholesky_solve", |bm: &TT, l: &TT, upper: bool| {
        let f = rows(l);
        let a = if upper {
            mat_mul(&transpose2(&f), &f)
        } else {
            mat_mul(&f, &transpose2(&f))
        };
        from_rows(&solve(&a, &rows(bm)))
    });
    k!(
        r,
        lib,
        "triangular_solve",
        |bm: &TT, a: &TT, upper: bool, transpose: bool, unit: bool| {
            let (m, up) = if transpose {
                (transpose2(&rows(a)), !upper)
            } else {
                (rows(a), upper)
            };
            (
                from_rows(&solve_triangular(&m, &rows(bm), up, unit)),
                a.map(|x| x),
            )
        }
    );
    k!(r, lib, "linalg_matrix_exp", |a: &TT| {
        let m = rows(a);
        let n = m.len();
        let mut result: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..n).map(|j| b(i == j)).collect())
            .collect();
        let mut term = result.clone();
        for k in 1..40 {
            term = mat_mul(&term, &m)
                .into_iter()
                .map(|row| row.into_iter().map(|x| x / f64::from(k)).collect())
                .collect();
            for (r, t) in result.iter_mut().zip(&term) {
                for (x, y) in r.iter_mut().zip(t) {
                    *x += y;
                }
            }
        }
        from_rows(&result)
    });
    k!(r, lib, "allclose", |a: &TT,
                            c: &TT,
                            rtol: f64,
                            atol: f64,
                            _: bool| {
        a.values()
            .iter()
            .zip(c.values())
            .all(|(x, y)| (x - y).abs() <= atol + rtol * y.abs())
    });
    Ok(())
}

pub(crate) fn register_backwards(r: &mut Vec<Registration>, lib: &Library) -> Result<(), Error> {
    k!(
        r,
        lib,
        "elu_backward",
        |g: &TT, alpha: Scalar, scale: Scalar, input_scale: Scalar, is_result: bool, x: &TT| {
            let (a, s, i) = (alpha.to_f64(), scale.to_f64(), input_scale.to_f64());
            TT::zip(g, x, |g, x| {
                let slope = if is_result {
                    if x <= 0.0 { i * (x + a * s) } else { s }
                } else if x <= 0.0 {
                    i * s * a * (i * x).exp()
                } else {
                    s
                };
                g * slope
            })
        }
    );
    k!(r, lib, "glu_backward", |g: &TT, x: &TT, dim: i64| {
        let d = wrap(dim, x.shape().len());
        let half = x.shape()[d] / 2;
        let xv = x.values();
        let gv = g.values();
        let mut half_shape = x.shape().to_vec();
        half_shape[d] = half;
        let mut out = vec![0.0; xv.len()];
        for k in 0..numel(&half_shape) {
            let mut idx = unravel(k, &half_shape);
            let a_at = ravel(&idx, x.shape());
            idx[d] += half;
            let b_at = ravel(&idx, x.shape());
            let (a, s) = (xv[a_at], sigmoid(xv[b_at]));
            out[a_at] = gv[k] * s;
            out[b_at] = gv[k] * a * s * (1.0 - s);
        }
        TT::new(x.shape(), out)
    });
    k!(
        r,
        lib,
        "huber_loss_backward",
        |g: &TT, x: &TT, y: &TT, reduction: i64, delta: f64| {
            let n = x.numel() as f64;
            let scale = if reduction == 1 { 1.0 / n } else { 1.0 };
            zip3(g, x, y, |g, x, y| {
                let d = x - y;
                let slope = if d.abs() < delta {
                    d
                } else {
                    delta * d.signum()
                };
                g * slope * scale
            })
        }
    );
    k!(
        r,
        lib,
        "soft_margin_loss_backward",
        |g: &TT, x: &TT, y: &TT, reduction: i64| {
            let n = x.numel() as f64;
            let scale = if reduction == 1 { 1.0 / n } else { 1.0 };
            zip3(g, x, y, |g, x, y| {
                g * scale * (-y * (-y * x).exp() / (1.0 + (-y * x).exp()))
            })
        }
    );
    Ok(())
}
