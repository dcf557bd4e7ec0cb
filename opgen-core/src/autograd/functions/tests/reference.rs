//! Plain-Rust matrix decompositions for the tests: the functions the decompositions'
//! derivatives differentiate, for finite differences.

use super::nd::{mat_mul, transpose2};

pub(crate) type M = Vec<Vec<f64>>;

pub(crate) fn as_rows(x: &[f64], n: usize) -> M {
    x.chunks(n).map(<[f64]>::to_vec).collect()
}

pub(crate) fn eye(n: usize) -> M {
    (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect()
}

/// LU with partial pivoting of an `m × n` matrix, LAPACK's way: the packed `LU` (unit lower
/// `L` below the diagonal, `U` on and above) and the 1-based pivots (row `i` swapped with
/// row `piv[i] - 1`).
pub(crate) fn lu_packed(a: &M) -> (M, Vec<f64>) {
    let (m, n) = (a.len(), a[0].len());
    let mut lu = a.clone();
    let mut piv = Vec::new();
    for k in 0..m.min(n) {
        let p = (k..m)
            .max_by(|&i, &j| lu[i][k].abs().total_cmp(&lu[j][k].abs()))
            .unwrap_or(k);
        lu.swap(k, p);
        piv.push((p + 1) as f64);
        for i in k + 1..m {
            lu[i][k] /= lu[k][k];
            for j in k + 1..n {
                lu[i][j] -= lu[i][k] * lu[k][j];
            }
        }
    }
    (lu, piv)
}

/// `(P, L, U)` of a packed LU: `A = P L U`.
pub(crate) fn lu_unpack(lu: &M, piv: &[f64]) -> (M, M, M) {
    let (m, n) = (lu.len(), lu[0].len());
    let k = m.min(n);
    let l: M = (0..m)
        .map(|i| {
            (0..k)
                .map(|j| {
                    if i == j {
                        1.0
                    } else if i > j {
                        lu[i][j]
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let u: M = (0..k)
        .map(|i| {
            (0..n)
                .map(|j| if j >= i { lu[i][j] } else { 0.0 })
                .collect()
        })
        .collect();
    // The permutation: apply the swaps to the identity's rows, then P = that transposed.
    let mut perm: Vec<usize> = (0..m).collect();
    for (i, p) in piv.iter().enumerate() {
        perm.swap(i, *p as usize - 1);
    }
    let p: M = (0..m)
        .map(|r| (0..m).map(|c| f64::from(u8::from(perm[c] == r))).collect())
        .collect();
    (p, l, u)
}

/// Gram-Schmidt QR (reduced, positive diagonal) of an `m × n` matrix.
pub(crate) fn qr(a: &M) -> (M, M) {
    let (m, n) = (a.len(), a[0].len());
    let k = m.min(n);
    let cols = transpose2(a);
    let mut q: Vec<Vec<f64>> = Vec::new();
    let mut r = vec![vec![0.0; n]; k];
    for j in 0..n {
        let mut v = cols[j].clone();
        for (i, qi) in q.iter().enumerate() {
            let d: f64 = qi.iter().zip(&cols[j]).map(|(a, b)| a * b).sum();
            r[i][j] = d;
            v.iter_mut().zip(qi).for_each(|(x, y)| *x -= d * y);
        }
        if q.len() < k {
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            r[q.len()][j] = norm;
            q.push(v.iter().map(|x| x / norm).collect());
        }
    }
    (transpose2(&q), r)
}

/// The eigenvalues (ascending) and eigenvectors (columns, largest entry positive) of a
/// symmetric matrix, by Jacobi rotations; only the lower triangle is read.
pub(crate) fn eigh(a: &M) -> (Vec<f64>, M) {
    let n = a.len();
    let mut s: M = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| if j <= i { a[i][j] } else { a[j][i] })
                .collect()
        })
        .collect();
    let mut v = eye(n);
    for _ in 0..100 {
        for p in 0..n {
            for q in p + 1..n {
                if s[p][q].abs() < 1e-15 {
                    continue;
                }
                let theta = (s[q][q] - s[p][p]) / (2.0 * s[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let (c, sn) = (1.0 / (t * t + 1.0).sqrt(), t / (t * t + 1.0).sqrt());
                let mut rot = eye(n);
                rot[p][p] = c;
                rot[q][q] = c;
                rot[p][q] = sn;
                rot[q][p] = -sn;
                s = mat_mul(&mat_mul(&transpose2(&rot), &s), &rot);
                v = mat_mul(&v, &rot);
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| s[i][i].total_cmp(&s[j][j]));
    let values = order.iter().map(|&i| s[i][i]).collect();
    let vectors: M = (0..n)
        .map(|r| {
            order
                .iter()
                .map(|&c| {
                    let col: Vec<f64> = (0..n).map(|k| v[k][c]).collect();
                    let big = col
                        .iter()
                        .copied()
                        .fold(0.0f64, |m, x| if x.abs() > m.abs() { x } else { m });
                    v[r][c] * big.signum()
                })
                .collect()
        })
        .collect();
    (values, vectors)
}
