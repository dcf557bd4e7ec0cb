//! Derivatives of Householder products, grouped products and sparse-layout helpers.

use super::kernels_index::householder_q;
use super::nd::{mat_mul, transpose2};
use super::*;

fn as_rows(x: &[f64], n: usize) -> Vec<Vec<f64>> {
    x.chunks(n).map(<[f64]>::to_vec).collect()
}

/// The first `n` columns of the product of the reflectors of a `[m, n]` `v`.
fn householder_product(v: &[f64], tau: &[f64], m: usize, n: usize) -> Vec<f64> {
    let q = householder_q(&as_rows(v, n), tau, m);
    q.iter().flat_map(|row| row[..n].to_vec()).collect()
}

#[test]
fn householder_product_derivatives_match_finite_differences() {
    setup();
    let (v, tau) = ([9.0, 9.0, 0.5, 9.0, -1.0, 2.0], [1.2, 0.7]);
    let (m, n) = (3, 2);
    let q = TT::new(&[3, 2], householder_product(&v, &tau, m, n));
    let g = [1.0, -0.5, 2.0, 0.3, -1.0, 0.7];
    let (gv, gtau) = householder_product_backward(
        Some(&TT::new(&[3, 2], g.to_vec())),
        &q,
        &TT::new(&[3, 2], v.to_vec()),
        &TT::vec(&tau),
        false,
    )
    .expect("householder");
    // Only the entries strictly below the diagonal are read.
    let mut expected = numeric_vjp(|v| householder_product(v, &tau, m, n), &v, &g);
    for (i, e) in expected.iter_mut().enumerate() {
        if i % n >= i / n {
            *e = 0.0;
        }
    }
    assert_close(&gv.expect("v").values(), &expected);
    assert_close(
        &gtau.expect("tau").values(),
        &numeric_vjp(|t| householder_product(&v, t, m, n), &tau, &g),
    );
    // The forward derivative along (dV, dτ).
    let (dv, dtau) = ([0.0, 0.0, 1.0, 0.0, 0.5, -2.0], [0.3, -0.4]);
    let jvp = householder_product_jvp(
        &TT::new(&[3, 2], dv.to_vec()),
        &TT::vec(&dtau),
        &q,
        &TT::new(&[3, 2], v.to_vec()),
        &TT::vec(&tau),
    )
    .expect("jvp");
    let h = 1e-6;
    let at = |s: f64| {
        let v: Vec<f64> = v.iter().zip(&dv).map(|(a, d)| a + s * d).collect();
        let tau: Vec<f64> = tau.iter().zip(&dtau).map(|(a, d)| a + s * d).collect();
        householder_product(&v, &tau, m, n)
    };
    let expected: Vec<f64> = at(h)
        .iter()
        .zip(at(-h))
        .map(|(p, q)| (p - q) / (2.0 * h))
        .collect();
    assert_close(&jvp.values(), &expected);
}

#[test]
fn ormqr_backward_matches_finite_differences() {
    setup();
    let (v, tau, other) = (
        [9.0, 9.0, 0.5, 9.0, -1.0, 2.0],
        [1.2, 0.7],
        [1.0, 2.0, 0.5, -1.0, 3.0, 0.0],
    );
    let g = [0.2, 1.0, -1.0, 0.5, 0.0, 2.0];
    for (left, transpose) in [(true, false), (true, true), (false, false), (false, true)] {
        // Q (3x3) applied to other: [3, 2] on the left, [2, 3] on the right.
        let other_rows = if left { 2 } else { 3 };
        let ormqr_of = |v: &[f64], tau: &[f64], o: &[f64]| -> Vec<f64> {
            let q = householder_q(&as_rows(v, 2), tau, 3);
            let q = if transpose { transpose2(&q) } else { q };
            let o = as_rows(o, other_rows);
            let r = if left {
                mat_mul(&q, &o)
            } else {
                mat_mul(&o, &q)
            };
            r.concat()
        };
        let shape = if left { [3, 2] } else { [2, 3] };
        let result = TT::new(&shape, ormqr_of(&v, &tau, &other));
        let (gv, gt, go) = ormqr_backward(
            Some(&TT::new(&shape, g.to_vec())),
            &result,
            &TT::new(&[3, 2], v.to_vec()),
            &TT::vec(&tau),
            &TT::new(&shape, other.to_vec()),
            left,
            transpose,
            [true, true, true],
        )
        .expect("ormqr");
        let mut expected = numeric_vjp(|v| ormqr_of(v, &tau, &other), &v, &g);
        for (i, e) in expected.iter_mut().enumerate() {
            if i % 2 >= i / 2 {
                *e = 0.0;
            }
        }
        assert_close(&gv.expect("self").values(), &expected);
        assert_close(
            &gt.expect("tau").values(),
            &numeric_vjp(|t| ormqr_of(&v, t, &other), &tau, &g),
        );
        assert_close(
            &go.expect("other").values(),
            &numeric_vjp(|o| ormqr_of(&v, &tau, o), &other, &g),
        );
    }
}

#[test]
fn grouped_mm_and_sparse_helpers_on_strided_tensors() {
    setup();
    let (a, b) = (
        TT::new(&[2, 2, 3], (0..12).map(f64::from).collect()),
        TT::new(&[2, 3, 2], (0..12).map(|i| f64::from(i) * 0.5).collect()),
    );
    let g = TT::new(&[2, 2, 2], vec![1.0, 0.0, -1.0, 2.0, 0.5, 0.5, 1.0, -1.0]);
    // d(A B)/dA = G Bᵀ, d(A B)/dB = Aᵀ G; the column-major path gives the same values.
    let expected_a =
        super::nd::matmul(&g, &super::super::ops::transpose(&b, -2, -1).expect("t")).expect("mm");
    let ga = _grouped_mm_mat1_backward(
        &g,
        &b,
        &[2, 2, 3],
        &[6, 3, 1],
        Layout::Strided,
        None,
        Scalar::Int(1),
    );
    assert_close(&ga.expect("mat1").values(), &expected_a.values());
    let ga_cm = _grouped_mm_mat1_backward(
        &g,
        &b,
        &[2, 2, 3],
        &[6, 1, 2],
        Layout::Strided,
        None,
        Scalar::Int(1),
    );
    assert_close(&ga_cm.expect("mat1").values(), &expected_a.values());
    let expected_b =
        super::nd::matmul(&super::super::ops::transpose(&a, -2, -1).expect("t"), &g).expect("mm");
    let gb = _grouped_mm_mat2_backward(
        &g,
        &a,
        &[2, 3, 2],
        &[6, 2, 1],
        Layout::Strided,
        None,
        Scalar::Int(2),
    );
    let doubled: Vec<f64> = expected_b.values().iter().map(|x| 2.0 * x).collect();
    assert_close(&gb.expect("mat2").values(), &doubled);
    let err = _grouped_mm_mat1_backward(
        &g,
        &b,
        &[2, 2, 3],
        &[6, 3, 1],
        Layout::Sparse,
        None,
        Scalar::Int(1),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("only strided layout supported for grouped mm"),
        "{err}"
    );
    // A strided mat1: the plain product.
    let (g2, m2) = (
        TT::new(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]),
        TT::new(&[3, 2], vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
    );
    let gm = mm_mat1_sparse_backward(&g2, &TT::new(&[2, 3], vec![0.0; 6]), &m2, Scalar::Int(1))
        .expect("mm");
    assert_eq!(gm.values(), [1.0, 2.0, 3.0, 3.0, 4.0, 7.0]);
    let err = values_backward(Some(&g2), &g2).unwrap_err().to_string();
    assert!(
        err.contains("values backward with respect to self with layout Strided"),
        "{err}"
    );
    assert!(values_backward::<TT>(None, &g2).expect("none").is_none());
}

/// An LSTM layer (hidden size 1, batch 1) over `steps` inputs of size 2: its outputs, then
/// the last hidden and cell states.
fn lstm(p: &[f64], steps: usize, reverse: bool) -> Vec<f64> {
    let (x, w0, w1, b_ih, b_hh) = (
        &p[..2 * steps],
        &p[2 * steps..2 * steps + 8],
        &p[2 * steps + 8..2 * steps + 12],
        &p[2 * steps + 12..2 * steps + 16],
        &p[2 * steps + 16..2 * steps + 20],
    );
    let (mut h, mut c) = (p[2 * steps + 20], p[2 * steps + 21]);
    let sigmoid = |v: f64| 1.0 / (1.0 + (-v).exp());
    let mut out = vec![0.0; steps];
    for s in 0..steps {
        let t = if reverse { steps - 1 - s } else { s };
        let gate = |k: usize| {
            w0[2 * k] * x[2 * t] + w0[2 * k + 1] * x[2 * t + 1] + b_ih[k] + w1[k] * h + b_hh[k]
        };
        let (i, f, g, o) = (
            sigmoid(gate(0)),
            sigmoid(gate(1)),
            gate(2).tanh(),
            sigmoid(gate(3)),
        );
        c = f * c + i * g;
        h = o * c.tanh();
        out[t] = h;
    }
    out.extend([h, c]);
    out
}

#[test]
fn lstm_layer_backward_matches_finite_differences() {
    setup();
    let steps = 3;
    let p: Vec<f64> = (0..2 * steps + 22)
        .map(|i| ((i * 37 % 17) as f64 - 8.0) / 10.0)
        .collect();
    let g = [0.5, -1.0, 2.0, 0.3, -0.7];
    for reverse in [false, true] {
        let forward = lstm(&p, steps, reverse);
        let s = 2 * steps;
        let tt = |range: std::ops::Range<usize>, shape: &[i64]| TT::new(shape, p[range].to_vec());
        let (x, w0, w1) = (
            tt(0..s, &[3, 1, 2]),
            tt(s..s + 8, &[4, 2]),
            tt(s + 8..s + 12, &[4, 1]),
        );
        let (b_ih, b_hh, hx, cx) = (
            tt(s + 12..s + 16, &[4]),
            tt(s + 16..s + 20, &[4]),
            tt(s + 20..s + 21, &[1, 1]),
            tt(s + 21..s + 22, &[1, 1]),
        );
        let output = TT::new(&[3, 1, 1], forward[..3].to_vec());
        let (hy, cy) = (
            TT::new(&[1, 1], vec![forward[3]]),
            TT::new(&[1, 1], vec![forward[4]]),
        );
        let (go, ghy, gcy) = (
            TT::new(&[3, 1, 1], g[..3].to_vec()),
            TT::new(&[1, 1], vec![g[3]]),
            TT::new(&[1, 1], vec![g[4]]),
        );
        let grads = mkldnn_rnn_layer_differentiable_backward(
            &x,
            &w0,
            &w1,
            &b_ih,
            &b_hh,
            &hx,
            &cx,
            &output,
            &hy,
            &cy,
            Some(&go),
            Some(&ghy),
            Some(&gcy),
            reverse,
            2,
            1,
            1,
            true,
            true,
            false,
            &[],
            false,
            &output,
        )
        .expect("lstm backward");
        let expected = numeric_vjp(|p| lstm(p, steps, reverse), &p, &g);
        let values = |t: Option<TT>| t.expect("gradient").values();
        assert_close(&values(grads.0), &expected[..s]);
        assert_close(&values(grads.1), &expected[s..s + 8]);
        assert_close(&values(grads.2), &expected[s + 8..s + 12]);
        assert_close(&values(grads.3), &expected[s + 12..s + 16]);
        assert_close(&values(grads.4), &expected[s + 16..s + 20]);
        assert_close(&values(grads.5), &expected[s + 20..s + 21]);
        assert_close(&values(grads.6), &expected[s + 21..s + 22]);
    }
}
