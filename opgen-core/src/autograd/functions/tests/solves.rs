//! Forward derivatives of solves and the derivative of `_trilinear`, against finite
//! differences.

use super::linalg::{as_rows, cholesky, flat, inverse};
use super::nd::{mat_mul, solve, solve_triangular, transpose2};
use super::*;

#[test]
fn solve_forward_derivatives_match_finite_differences() {
    setup();
    let a = vec![
        vec![4.0, 2.0, 0.6],
        vec![2.0, 5.0, 1.0],
        vec![0.6, 1.0, 3.0],
    ];
    let l = cholesky(&a);
    let da = [0.5, 0.2, -0.1, 0.2, -1.0, 0.4, -0.1, 0.4, 0.3];
    let h = 1e-6;
    let jvp_of = |f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], t: &[f64]| -> Vec<f64> {
        let at = |s: f64| f(&x.iter().zip(t).map(|(x, t)| x + s * t).collect::<Vec<_>>());
        at(h)
            .iter()
            .zip(at(-h))
            .map(|(p, m)| (p - m) / (2.0 * h))
            .collect()
    };
    let chol = |x: &[f64]| flat(&cholesky(&as_rows(x, 3)));
    let dl = cholesky_jvp(
        &TT::new(&[3, 3], da.to_vec()),
        &TT::new(&[3, 3], flat(&l)),
        false,
    )
    .expect("cholesky");
    assert_close(&dl.values(), &jvp_of(&chol, &flat(&a), &da));
    let upper = cholesky_jvp(
        &TT::new(&[3, 3], da.to_vec()),
        &TT::new(&[3, 3], flat(&transpose2(&l))),
        true,
    )
    .expect("upper");
    assert_close(
        &upper.values(),
        &flat(&transpose2(&as_rows(&dl.values(), 3))),
    );
    // cholesky_inverse(F) = (F Fᵀ)⁻¹ along dF: PyTorch's formula, `K + Kᵀ` with `K = -X dF X
    // Fᵀ`, which is not the derivative for a non-diagonal factor (pytorch/pytorch#196682);
    // the helper computes what PyTorch computes.
    let inv_of = |x: &[f64]| {
        let f = as_rows(x, 3);
        flat(&inverse(&mat_mul(&f, &transpose2(&f))))
    };
    let df = [0.1, 0.0, 0.0, 0.3, -0.2, 0.0, 0.5, 0.1, 0.4];
    let xm = inverse(&mat_mul(&l, &transpose2(&l)));
    let x = TT::new(&[3, 3], flat(&xm));
    let jvp = cholesky_inverse_jvp(
        &TT::new(&[3, 3], flat(&l)),
        &TT::new(&[3, 3], df.to_vec()),
        &x,
        false,
    )
    .expect("inverse");
    let k = mat_mul(
        &mat_mul(&mat_mul(&xm, &as_rows(&df, 3)), &xm),
        &transpose2(&l),
    );
    let pytorch: Vec<f64> = (0..9)
        .map(|i| -(k[i / 3][i % 3] + k[i % 3][i / 3]))
        .collect();
    assert_close(&jvp.values(), &pytorch);
    let true_derivative = jvp_of(&inv_of, &flat(&l), &df);
    assert!(
        (jvp.values()[0] - true_derivative[0]).abs() > 1e-3,
        "PyTorch's formula changed?"
    );
    // cholesky_solve(B, L) along (dL, dB).
    let b = [1.0, 2.0, -1.0];
    let solve_of = |p: &[f64]| {
        let f = as_rows(&p[..9], 3);
        flat(&solve(&mat_mul(&f, &transpose2(&f)), &as_rows(&p[9..], 1)))
    };
    let point = [flat(&l), b.to_vec()].concat();
    let db = [0.2, -0.3, 0.5];
    let xs = TT::new(&[3, 1], solve_of(&point));
    let jvp = cholesky_solve_jvp(
        &xs,
        &TT::new(&[3, 3], flat(&l)),
        &TT::new(&[3, 3], df.to_vec()),
        &TT::new(&[3, 1], db.to_vec()),
        false,
    )
    .expect("solve");
    assert_close(
        &jvp.values(),
        &jvp_of(&solve_of, &point, &[df.to_vec(), db.to_vec()].concat()),
    );
    // Triangular solves along (dA, dB): only the triangle of dA counts.
    let tri = [2.0, 0.0, 0.0, 1.0, 3.0, 0.0, -1.0, 0.5, 4.0];
    let bm = [1.0, 2.0, 0.0, -1.0, 3.0, 1.0];
    let tri_of = |p: &[f64]| {
        let lower: Vec<f64> = (0..9)
            .map(|i| if i % 3 <= i / 3 { p[i] } else { 0.0 })
            .collect();
        flat(&solve_triangular(
            &as_rows(&lower, 3),
            &as_rows(&p[9..], 2),
            false,
            false,
        ))
    };
    let point = [tri.to_vec(), bm.to_vec()].concat();
    let (dt, dbm) = (
        [0.3, 9.0, 9.0, -0.2, 0.1, 9.0, 0.4, 0.5, -0.3],
        [0.1, 0.2, 0.3, -0.1, 0.0, 0.5],
    );
    let xs = TT::new(&[3, 2], tri_of(&point));
    let direction = [dt.to_vec(), dbm.to_vec()].concat();
    let expected = jvp_of(&tri_of, &point, &direction);
    let (ta, tb, tdt) = (
        TT::new(&[3, 3], tri.to_vec()),
        TT::new(&[3, 2], dbm.to_vec()),
        TT::new(&[3, 3], dt.to_vec()),
    );
    let jvp = linalg_solve_triangular_forward_AD(&tdt, &tb, &ta, &xs, false, true, false)
        .expect("solve_triangular");
    assert_close(&jvp.values(), &expected);
    let jvp = triangular_solve_jvp(
        &xs,
        &ta,
        &TT::new(
            &[3, 3],
            (0..9)
                .map(|i| if i % 3 <= i / 3 { dt[i] } else { 0.0 })
                .collect(),
        ),
        &tb,
        false,
        false,
        false,
    )
    .expect("triangular_solve");
    assert_close(&jvp.values(), &expected);
}

#[test]
fn trilinear_backward_matches_finite_differences() {
    setup();
    // out[i, j] = a[i] b[j] c[i, j]: a expanded at dim 1, b at dim 0, nothing summed.
    let (a, b, c) = (
        [1.0, -2.0],
        [0.5, 1.5, -1.0],
        [1.0, 2.0, 3.0, -1.0, 0.5, 2.0],
    );
    let g = [1.0, -1.0, 0.5, 2.0, 0.0, 1.0];
    let product = |a: &[f64], b: &[f64], c: &[f64]| -> Vec<f64> {
        (0..6).map(|k| a[k / 3] * b[k % 3] * c[k]).collect()
    };
    let (ga, gb, gc) = _trilinear_backward(
        Some(&TT::new(&[2, 3], g.to_vec())),
        Some(&TT::vec(&a)),
        Some(&TT::vec(&b)),
        Some(&TT::new(&[2, 3], c.to_vec())),
        &[1],
        &[0],
        &[],
        &[],
        [true, true, true],
    )
    .expect("trilinear");
    assert_close(
        &ga.expect("a").values(),
        &numeric_vjp(|a| product(a, &b, &c), &a, &g),
    );
    assert_close(
        &gb.expect("b").values(),
        &numeric_vjp(|b| product(&a, b, &c), &b, &g),
    );
    assert_close(
        &gc.expect("c").values(),
        &numeric_vjp(|c| product(&a, &b, c), &c, &g),
    );
}
