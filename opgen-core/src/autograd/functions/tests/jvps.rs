//! Forward derivatives through a saved LU (`det`, `slogdet`, `solve`) against central
//! differences, in both of their paths (a new solve with `A` under grad mode, the saved LU
//! without), and those of `cat` and `stack` from the inputs' tangents.

use super::nd::{solve, transpose2};
use super::reference::*;
use super::*;

fn det3(a: &[f64]) -> f64 {
    a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6])
        + a[2] * (a[3] * a[7] - a[4] * a[6])
}

/// The forward derivative of `f` at `x` along `t`, by central differences.
fn numeric_jvp(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], t: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    let at = |s: f64| f(&x.iter().zip(t).map(|(x, t)| x + s * t).collect::<Vec<_>>());
    (at(h).iter().zip(at(-h)))
        .map(|(p, m)| (p - m) / (2.0 * h))
        .collect()
}

const A: [f64; 9] = [2.0, -1.0, 0.5, 0.3, 1.5, -0.7, -0.4, 0.8, 1.2];
const DA: [f64; 9] = [0.1, 0.4, -0.2, 0.7, -0.3, 0.5, 0.2, -0.6, 0.9];

/// `A`, its LU (of `Aᵀ`, as PyTorch factors a contiguous real matrix) and pivots.
fn factored() -> (TT, TT, TT) {
    let (lu, piv) = lu_packed(&transpose2(&as_rows(&A, 3)));
    (
        TT::new(&[3, 3], A.to_vec()),
        super::nd::from_rows(&lu),
        TT::vec(&piv),
    )
}

#[test]
fn determinant_and_slogdet_forward_derivatives_match_finite_differences() {
    setup();
    let (a, lu, piv) = factored();
    let da = TT::new(&[3, 3], DA.to_vec());
    let det = TT::scalar(det3(&A));
    let expected = numeric_jvp(|a| vec![det3(a)], &A, &DA);
    for grad_mode in [true, false] {
        let _guard = (!grad_mode).then(crate::autograd::NoGradGuard::new);
        let got = linalg_det_jvp(&da, &det, &a, &lu, &piv, true).expect("det jvp");
        assert_close(&got.values(), &expected);
        let sign = TT::scalar(det3(&A).signum());
        let (d_sign, d_logabs) = slogdet_jvp(&lu, &piv, &da, &a, &sign, true).expect("slogdet jvp");
        assert_close(&d_sign.expect("sign").values(), &[0.0]);
        assert_close(
            &d_logabs.expect("logabsdet").values(),
            &numeric_jvp(|a| vec![det3(a).abs().ln()], &A, &DA),
        );
    }
}

#[test]
fn solve_forward_derivative_matches_finite_differences() {
    setup();
    let (a, lu, piv) = factored();
    let b = [0.5, -1.0, 2.0, 0.25, 1.5, -0.5];
    let db = [0.3, 0.1, -0.2, 0.6, -0.4, 0.2];
    let solve_of = |x: &[f64]| {
        let (a, b) = x.split_at(9);
        solve(&as_rows(a, 3), &as_rows(b, 2)).concat()
    };
    let x = TT::new(&[3, 2], solve_of(&[A.to_vec(), b.to_vec()].concat()));
    let expected = numeric_jvp(
        solve_of,
        &[A.to_vec(), b.to_vec()].concat(),
        &[DA.to_vec(), db.to_vec()].concat(),
    );
    for grad_mode in [true, false] {
        let _guard = (!grad_mode).then(crate::autograd::NoGradGuard::new);
        let got = linalg_solve_jvp(
            &TT::new(&[3, 3], DA.to_vec()),
            &TT::new(&[3, 2], db.to_vec()),
            &x,
            &a,
            &lu,
            &piv,
            true,
        )
        .expect("solve jvp");
        assert_close(&got.values(), &expected);
    }
}

#[test]
fn cat_and_stack_forward_derivatives_gather_the_tangents() {
    setup();
    let tensors = [TT::vec(&[1.0, 2.0]), TT::vec(&[3.0])];
    let tangents = [None, Some(TT::vec(&[0.5]))];
    let got = cat_jvp(&tensors, &tangents, 0).expect("cat jvp");
    assert_eq!(got.expect("defined").values(), [0.0, 0.0, 0.5]);
    // No input has a tangent: no tangent.
    assert!(
        cat_jvp(&tensors, &[None, None], 0)
            .expect("cat jvp")
            .is_none()
    );
    let pair = [TT::vec(&[1.0, 2.0]), TT::vec(&[3.0, 4.0])];
    let got = stack_jvp(&pair, &[Some(TT::vec(&[1.0, -1.0])), None], 0).expect("stack jvp");
    let got = got.expect("defined");
    assert_eq!(sizes(&got).expect("sizes"), [2, 2]);
    assert_eq!(got.values(), [1.0, -1.0, 0.0, 0.0]);
}
