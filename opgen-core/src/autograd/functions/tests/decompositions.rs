//! Derivatives of LU, QR, symmetric eigen- and singular value decompositions, determinants,
//! solves and least squares, against finite differences of the plain-Rust decompositions
//! of `reference` (pivots, signs and orders fixed near the point).

use super::nd::{mat_mul, solve, transpose2};
use super::reference::*;
use super::*;

fn tt(m: &M) -> TT {
    super::nd::from_rows(m)
}

fn flat(m: &M) -> Vec<f64> {
    m.concat()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The forward derivative of `f` at `x` along `t`.
fn numeric_jvp(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], t: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    let at = |s: f64| f(&x.iter().zip(t).map(|(x, t)| x + s * t).collect::<Vec<_>>());
    at(h)
        .iter()
        .zip(at(-h))
        .map(|(p, m)| (p - m) / (2.0 * h))
        .collect()
}

/// Deterministic values in `[-1, 1)`.
fn values(n: usize, seed: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 37 + seed * 101) % 23) as f64 / 11.5 - 1.0)
        .collect()
}

#[test]
fn lu_backward_matches_finite_differences_for_square_wide_and_tall_inputs() {
    setup();
    for (m, n) in [(3, 3), (2, 3), (3, 2)] {
        let a = values(m * n, m + 2 * n);
        let k = m.min(n);
        let factors = |a: &[f64]| {
            let (lu, piv) = lu_packed(&as_rows(a, n));
            let (_, l, u) = lu_unpack(&lu, &piv);
            [flat(&l), flat(&u)].concat()
        };
        let (lu, piv) = lu_packed(&as_rows(&a, n));
        let (p, l, u) = lu_unpack(&lu, &piv);
        let (gl, gu) = (values(m * k, 3), values(k * n, 4));
        let got = linalg_lu_backward(
            Some(&TT::new(&[m as i64, k as i64], gl.clone())),
            Some(&TT::new(&[k as i64, n as i64], gu.clone())),
            &tt(&p),
            &tt(&l),
            &tt(&u),
            true,
        );
        let expected = numeric_vjp(factors, &a, &[gl.clone(), gu.clone()].concat());
        assert_close(&got.expect("lu").expect("defined").values(), &expected);
        // One of the two gradients only.
        let got = linalg_lu_backward(
            None,
            Some(&TT::new(&[k as i64, n as i64], gu.clone())),
            &tt(&p),
            &tt(&l),
            &tt(&u),
            true,
        );
        let expected = numeric_vjp(factors, &a, &[vec![0.0; m * k], gu].concat());
        assert_close(&got.expect("lu").expect("defined").values(), &expected);
        // The packed form.
        let packed = |a: &[f64]| flat(&lu_packed(&as_rows(a, n)).0);
        let g = values(m * n, 5);
        let got = lu_factor_ex_backward(
            &TT::new(&[m as i64, n as i64], g.clone()),
            &tt(&lu),
            &TT::vec(&piv),
            true,
        );
        assert_close(
            &got.expect("lu_factor").expect("defined").values(),
            &numeric_vjp(packed, &a, &g),
        );
        let (dl, du) = linalg_lu_jvp(
            &TT::new(&[m as i64, n as i64], g.clone()),
            &tt(&p),
            &tt(&l),
            &tt(&u),
            true,
        )
        .expect("jvp");
        let expected = numeric_jvp(factors, &a, &g);
        assert_close(
            &[dl.expect("l").values(), du.expect("u").values()].concat(),
            &expected,
        );
        let jvp = lu_factor_ex_jvp(
            &TT::new(&[m as i64, n as i64], g.clone()),
            &tt(&lu),
            &TT::vec(&piv),
            true,
        )
        .expect("jvp");
        assert_close(&jvp.values(), &numeric_jvp(packed, &a, &g));
    }
}

#[test]
fn lu_solve_derivatives_match_finite_differences() {
    setup();
    // Well conditioned, with a row swap.
    let a = [1.0, 3.0, -1.0, 4.0, 1.0, 0.5, 0.5, -1.0, 5.0];
    let (lu, piv) = lu_packed(&as_rows(&a, 3));
    assert_eq!(piv[0], 2.0);
    let b = values(6, 8);
    for (left, adjoint) in [(true, false), (true, true), (false, false), (false, true)] {
        let (rows_b, cols_b) = if left { (3, 2) } else { (2, 3) };
        let x_of = |lu: &[f64], b: &[f64]| {
            let (p, l, u) = lu_unpack(&as_rows(lu, 3), &piv);
            let a = mat_mul(&mat_mul(&p, &l), &u);
            let a = if adjoint { transpose2(&a) } else { a };
            let bm = as_rows(b, cols_b);
            let x = if left {
                solve(&a, &bm)
            } else {
                transpose2(&solve(&transpose2(&a), &transpose2(&bm)))
            };
            flat(&x)
        };
        let x = TT::new(&[rows_b, cols_b as i64], x_of(&flat(&lu), &b));
        let g = values(6, 9);
        let got = linalg_lu_solve_LU(
            &TT::new(&[rows_b, cols_b as i64], g.clone()),
            &tt(&lu),
            &TT::vec(&piv),
            &x,
            left,
            adjoint,
        );
        assert_close(
            &got.expect("lu_solve").values(),
            &numeric_vjp(|lu| x_of(lu, &b), &flat(&lu), &g),
        );
        let (dlu, db) = (values(9, 10), values(6, 11));
        let jvp = linalg_lu_solve_jvp(
            &x,
            &tt(&lu),
            &TT::vec(&piv),
            &TT::new(&[3, 3], dlu.clone()),
            &TT::new(&[rows_b, cols_b as i64], db.clone()),
            left,
            adjoint,
        )
        .expect("jvp");
        let point = [flat(&lu), b.clone()].concat();
        let expected = numeric_jvp(|p| x_of(&p[..9], &p[9..]), &point, &[dlu, db].concat());
        assert_close(&jvp.values(), &expected);
    }
}

fn det3(a: &[f64]) -> f64 {
    a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6])
        + a[2] * (a[3] * a[7] - a[4] * a[6])
}

#[test]
fn determinant_and_solve_backward_match_finite_differences() {
    setup();
    let a = values(9, 12);
    // For a contiguous real A, PyTorch's forward factors Aᵀ (F-contiguous for LAPACK).
    let (lu, piv) = lu_packed(&transpose2(&as_rows(&a, 3)));
    let det = det3(&a);
    let _no_grad = crate::autograd::NoGradGuard::new();
    let got = linalg_det_backward(
        Some(&TT::scalar(1.5)),
        &TT::scalar(det),
        &TT::new(&[3, 3], a.clone()),
        &tt(&lu),
        &TT::vec(&piv),
    );
    assert_close(
        &got.expect("det").expect("defined").values(),
        &numeric_vjp(|a| vec![det3(a)], &a, &[1.5]),
    );
    let logabs = |a: &[f64]| vec![det3(a).abs().ln()];
    let sign = TT::scalar(det.signum());
    let got = slogdet_backward(
        Some(&TT::scalar(0.0)),
        Some(&TT::scalar(2.0)),
        &TT::new(&[3, 3], a.clone()),
        &sign,
        &tt(&lu),
        &TT::vec(&piv),
    );
    assert_close(
        &got.expect("slogdet").expect("defined").values(),
        &numeric_vjp(logabs, &a, &[2.0]),
    );
    drop(_no_grad);
    // linalg_solve: both inputs, through a new solve (grad mode on).
    let bm = values(6, 13);
    let solve_of = |a: &[f64], b: &[f64]| flat(&solve(&as_rows(a, 3), &as_rows(b, 2)));
    let x = TT::new(&[3, 2], solve_of(&a, &bm));
    let at = TT::new(&[3, 3], a.clone());
    crate::autograd::AutogradTensor::set_requires_grad(&at, true).expect("requires grad");
    let g = values(6, 14);
    let (ga, gb) = linalg_solve_backward(
        Some(&TT::new(&[3, 2], g.clone())),
        &x,
        &at,
        &tt(&lu),
        &TT::vec(&piv),
        true,
        true,
    )
    .expect("solve");
    assert_close(
        &ga.expect("a").values(),
        &numeric_vjp(|a| solve_of(a, &bm), &a, &g),
    );
    assert_close(
        &gb.expect("b").values(),
        &numeric_vjp(|b| solve_of(&a, b), &bm, &g),
    );
}

#[test]
fn qr_derivatives_match_finite_differences() {
    setup();
    for (m, n) in [(3, 2), (2, 3)] {
        let k = m.min(n);
        let a = values(m * n, 15 + m);
        let factors = |a: &[f64]| {
            let (q, r) = qr(&as_rows(a, n));
            [flat(&q), flat(&r)].concat()
        };
        let (q, r) = qr(&as_rows(&a, n));
        let (gq, gr) = (values(m * k, 16), values(k * n, 17));
        let got = linalg_qr_backward(
            Some(&TT::new(&[m as i64, k as i64], gq.clone())),
            Some(&TT::new(&[k as i64, n as i64], gr.clone())),
            &tt(&q),
            &tt(&r),
            "reduced",
        );
        assert_close(
            &got.expect("qr").expect("defined").values(),
            &numeric_vjp(factors, &a, &[gq, gr].concat()),
        );
        let da = values(m * n, 18);
        let (dq, dr) = linalg_qr_jvp(
            &TT::new(&[m as i64, n as i64], da.clone()),
            &tt(&q),
            &tt(&r),
            "reduced",
        )
        .expect("jvp");
        assert_close(
            &[dq.expect("q").values(), dr.expect("r").values()].concat(),
            &numeric_jvp(factors, &a, &da),
        );
    }
    let (q, r) = qr(&as_rows(&values(6, 1), 2));
    let err = linalg_qr_backward(Some(&tt(&q)), None, &tt(&q), &tt(&r), "r")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'"
        ),
        "{err}"
    );
}

#[test]
fn symmetric_eigen_derivatives_match_finite_differences() {
    setup();
    let a = [2.0, 0.0, 0.0, 0.5, 3.0, 0.0, -0.3, 0.8, 1.0];
    // A loss independent of the eigenvectors' signs: Σ c_i v_iᵀ M v_i + Σ g_i λ_i.
    let (c, gl) = ([1.0, -0.5, 2.0], [0.3, 1.0, -0.7]);
    let mm = as_rows(&[1.0, 0.2, 0.0, 0.4, -1.0, 0.5, 0.0, 0.3, 2.0], 3);
    let loss = |a: &[f64]| {
        let (lambda, v) = eigh(&as_rows(a, 3));
        let quad: f64 = (0..3)
            .map(|i| {
                let vi: Vec<f64> = (0..3).map(|r| v[r][i]).collect();
                let mv: Vec<f64> = (0..3).map(|r| dot(&mm[r], &vi)).collect();
                c[i] * dot(&vi, &mv)
            })
            .sum();
        vec![quad + dot(&gl, &lambda)]
    };
    let (lambda, v) = eigh(&as_rows(&a, 3));
    let sym: M = (0..3)
        .map(|i| (0..3).map(|j| mm[i][j] + mm[j][i]).collect())
        .collect();
    let gv: M = (0..3)
        .map(|r| {
            (0..3)
                .map(|i| c[i] * (0..3).map(|k| sym[r][k] * v[k][i]).sum::<f64>())
                .collect()
        })
        .collect();
    let got = linalg_eig_backward(
        Some(&TT::vec(&gl)),
        Some(&tt(&gv)),
        &TT::vec(&lambda),
        &tt(&v),
        true,
        true,
    );
    let ga = got.expect("eigh").expect("defined").values();
    let fd = numeric_vjp(loss, &a, &[1.0]);
    for i in 0..3 {
        for j in 0..i {
            assert_close(&[ga[i * 3 + j] + ga[j * 3 + i]], &[fd[i * 3 + j]]);
        }
        assert_close(&[ga[i * 4]], &[fd[i * 4]]);
    }
    // Forward: a symmetric direction.
    let da = [0.5, 0.2, -0.1, 0.2, -1.0, 0.4, -0.1, 0.4, 0.3];
    let (dl, dv) = linalg_eig_jvp(
        &TT::new(&[3, 3], da.to_vec()),
        &TT::vec(&lambda),
        &tt(&v),
        true,
    )
    .expect("jvp");
    let decomposition = |a: &[f64]| {
        let (l, v) = eigh(&as_rows(a, 3));
        [l, flat(&v)].concat()
    };
    assert_close(
        &[dl.expect("l").values(), dv.expect("v").values()].concat(),
        &numeric_jvp(decomposition, &a, &da),
    );
}

/// The reduced SVD of a tall full-rank matrix from the eigendecomposition of `AᵀA`:
/// singular values descending, `U = A V / S`.
fn svd(a: &[f64], m: usize, n: usize) -> (M, Vec<f64>, M) {
    let am = as_rows(a, n);
    let (lambda, v) = eigh(&mat_mul(&transpose2(&am), &am));
    let order: Vec<usize> = (0..n).rev().collect();
    let s: Vec<f64> = order.iter().map(|&i| lambda[i].sqrt()).collect();
    let v: M = (0..n)
        .map(|r| order.iter().map(|&c| v[r][c]).collect())
        .collect();
    let av = mat_mul(&am, &v);
    let u: M = (0..m)
        .map(|r| (0..n).map(|c| av[r][c] / s[c]).collect())
        .collect();
    (u, s, transpose2(&v))
}

#[test]
fn svd_derivatives_match_finite_differences() {
    setup();
    let a = [2.0, 0.3, -0.5, 1.2, 0.7, 0.4];
    let decomposition = |a: &[f64]| {
        let (u, s, vh) = svd(a, 3, 2);
        [flat(&u), s, flat(&vh)].concat()
    };
    let (u, s, vh) = svd(&a, 3, 2);
    let (gu, gs, gvh) = (values(6, 20), [0.4, -1.1], values(4, 21));
    let got = svd_backward(
        Some(&TT::new(&[3, 2], gu.clone())),
        Some(&TT::vec(&gs)),
        Some(&TT::new(&[2, 2], gvh.clone())),
        &tt(&u),
        &TT::vec(&s),
        &tt(&vh),
    );
    let expected = numeric_vjp(decomposition, &a, &[gu, gs.to_vec(), gvh].concat());
    assert_close(&got.expect("svd").expect("defined").values(), &expected);
    let da = values(6, 22);
    let (du, ds, dvh) = linalg_svd_jvp(
        &TT::new(&[3, 2], da.clone()),
        &tt(&u),
        &TT::vec(&s),
        &tt(&vh),
        false,
    )
    .expect("jvp");
    let got = [
        du.expect("u").values(),
        ds.expect("s").values(),
        dvh.expect("vh").values(),
    ]
    .concat();
    assert_close(&got, &numeric_jvp(decomposition, &a, &da));
}

#[test]
fn least_squares_and_pseudo_inverse_forward_derivatives() {
    setup();
    let (a, b) = ([1.0, 2.0, 0.5, -1.0, 3.0, 1.0], [1.0, 0.0, 2.0]);
    let pinv = |a: &[f64]| {
        let am = as_rows(a, 2);
        flat(&solve(&mat_mul(&transpose2(&am), &am), &transpose2(&am)))
    };
    let solution = |a: &[f64], b: &[f64]| flat(&mat_mul(&as_rows(&pinv(a), 3), &as_rows(b, 1)));
    let residuals = |a: &[f64], b: &[f64]| {
        let x = as_rows(&solution(a, b), 1);
        let r = mat_mul(&as_rows(a, 2), &x);
        vec![(0..3).map(|i| (r[i][0] - b[i]).powi(2)).sum::<f64>()]
    };
    let (at, bt) = (TT::new(&[3, 2], a.to_vec()), TT::new(&[3, 1], b.to_vec()));
    let x = TT::new(&[2, 1], solution(&a, &b));
    let (gx, gl) = ([0.5, -1.0], [2.0]);
    let (ga, gb) = linalg_lstsq_backward(
        Some(&TT::new(&[2, 1], gx.to_vec())),
        Some(&TT::vec(&gl)),
        &at,
        &bt,
        &x,
        [true, true],
    )
    .expect("lstsq");
    let total = |a: &[f64], b: &[f64]| vec![dot(&solution(a, b), &gx) + gl[0] * residuals(a, b)[0]];
    assert_close(
        &ga.expect("a").values(),
        &numeric_vjp(|a| total(a, &b), &a, &[1.0]),
    );
    assert_close(
        &gb.expect("b").values(),
        &numeric_vjp(|b| total(&a, b), &b, &[1.0]),
    );
    let (da, db) = ([0.3, -0.2, 1.0, 0.5, -0.4, 0.1], [0.2, 1.0, -0.5]);
    let point = [a.to_vec(), b.to_vec()].concat();
    let direction = [da.to_vec(), db.to_vec()].concat();
    let jvp = linalg_lstsq_solution_jvp(
        &at,
        &bt,
        &TT::new(&[3, 2], da.to_vec()),
        &TT::new(&[3, 1], db.to_vec()),
    )
    .expect("jvp");
    assert_close(
        &jvp.values(),
        &numeric_jvp(|p| solution(&p[..6], &p[6..]), &point, &direction),
    );
    let res = TT::vec(&residuals(&a, &b));
    let jvp = linalg_lstsq_residuals_jvp(
        &at,
        &bt,
        &TT::new(&[3, 2], da.to_vec()),
        &TT::new(&[3, 1], db.to_vec()),
        &x,
        &res,
    )
    .expect("jvp");
    assert_close(
        &jvp.values(),
        &numeric_jvp(|p| residuals(&p[..6], &p[6..]), &point, &direction),
    );
    let jvp = pinv_jvp(
        &at,
        &TT::new(&[2, 3], pinv(&a)),
        &TT::new(&[3, 2], da.to_vec()),
    )
    .expect("pinv");
    assert_close(&jvp.values(), &numeric_jvp(pinv, &a, &da));
}
