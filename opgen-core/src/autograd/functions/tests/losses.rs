//! Derivatives of losses, against finite differences of the losses and of their first
//! derivatives written out in plain Rust.

use super::kernels::sigmoid;
use super::*;

const NONE: i64 = 0;
const MEAN: i64 = 1;

fn v(x: &[f64]) -> TT {
    TT::vec(x)
}

fn vals(x: Result<TT, Error>) -> Vec<f64> {
    x.expect("helper").values()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn loss_reductions() {
    setup();
    let x = v(&[1.0, 2.0, 6.0]);
    assert_eq!(vals(apply_loss_reduction(&x, MEAN)), [3.0]);
    assert_eq!(vals(apply_loss_reduction(&x, 2)), [9.0]);
    assert!(apply_loss_reduction(&x, NONE).expect("none").same(&x));
}

#[test]
fn binary_cross_entropy_derivatives_match_finite_differences() {
    setup();
    let (x, y, w) = ([0.2, 0.7, 0.5], [1.0, 0.0, 0.3], [1.0, 2.0, 0.5]);
    let g = [1.0, -0.5, 2.0];
    let bce = |x: &[f64], y: &[f64]| -> Vec<f64> {
        (0..3)
            .map(|i| -w[i] * (y[i] * x[i].ln() + (1.0 - y[i]) * (1.0 - x[i]).ln()))
            .collect()
    };
    let got = binary_cross_entropy_target_backward(&v(&g), &v(&x), &v(&y), Some(&v(&w)), NONE);
    assert_close(&vals(got), &numeric_vjp(|y| bce(&x, y), &y, &g));
    let mean = |y: &[f64]| vec![bce(&x, y).iter().sum::<f64>() / 3.0];
    let got =
        binary_cross_entropy_target_backward(&TT::scalar(1.0), &v(&x), &v(&y), Some(&v(&w)), MEAN);
    assert_close(&vals(got), &numeric_vjp(mean, &y, &[1.0]));
    // PyTorch's first derivative: g w (x - y) / (x (1 - x)); its derivatives.
    let first = |g: &[f64], x: &[f64], y: &[f64]| -> Vec<f64> {
        (0..3)
            .map(|i| g[i] * w[i] * (x[i] - y[i]) / (x[i] * (1.0 - x[i])))
            .collect()
    };
    let gg = [0.3, 1.0, -2.0];
    let gi =
        binary_cross_entropy_double_backward(&v(&g), &v(&gg), &v(&x), &v(&y), Some(&v(&w)), NONE);
    assert_close(&vals(gi), &numeric_vjp(|x| first(&g, x, &y), &x, &gg));
    let ggo = binary_cross_entropy_double_backward_grad_output(
        &v(&gg),
        &v(&x),
        &v(&y),
        Some(&v(&w)),
        NONE,
    );
    assert_close(&vals(ggo), &numeric_vjp(|g| first(g, &x, &y), &g, &gg));
    let gt = binary_cross_entropy_double_backward_target(
        &v(&gg),
        &v(&g),
        &v(&x),
        &v(&y),
        Some(&v(&w)),
        NONE,
    );
    assert_close(&vals(gt), &numeric_vjp(|y| first(&g, &x, y), &y, &gg));
}

#[test]
fn binary_cross_entropy_with_logits_matches_finite_differences() {
    setup();
    let (x, y, w, p) = (
        [-0.5, 1.2, 0.3],
        [1.0, 0.0, 0.6],
        [1.0, 0.5, 2.0],
        [2.0, 1.0, 0.5],
    );
    let g = [1.0, 2.0, -1.0];
    let loss = |x: &[f64], y: &[f64], pos: Option<&[f64]>| -> Vec<f64> {
        (0..3)
            .map(|i| {
                let pw = pos.map_or(1.0, |p| p[i]);
                -w[i] * (pw * y[i] * sigmoid(x[i]).ln() + (1.0 - y[i]) * (1.0 - sigmoid(x[i])).ln())
            })
            .collect()
    };
    for pos in [None, Some(&p[..])] {
        let pw = pos.map(v);
        let gx = binary_cross_entropy_with_logits_backward(
            &v(&g),
            &v(&x),
            &v(&y),
            Some(&v(&w)),
            pw.as_ref(),
            NONE,
        );
        assert_close(&vals(gx), &numeric_vjp(|x| loss(x, &y, pos), &x, &g));
        let gy = binary_cross_entropy_with_logits_target_backward(
            &v(&g),
            &v(&x),
            &v(&y),
            Some(&v(&w)),
            pw.as_ref(),
            NONE,
        );
        assert_close(&vals(gy), &numeric_vjp(|y| loss(&x, y, pos), &y, &g));
    }
}

#[test]
fn regression_losses_second_derivatives_match_finite_differences() {
    setup();
    let (x, y) = ([0.2, 1.5, -1.0, 3.0], [0.0, 0.0, 0.5, 0.1]);
    let (g, gg) = ([1.0, -2.0, 0.5, 1.5], [0.5, 1.0, -1.0, 2.0]);
    let (beta, delta) = (1.0, 1.2);
    // First derivatives (elementwise, reduction none), as PyTorch computes them.
    let smooth_l1 = |x: &[f64]| -> Vec<f64> {
        (0..4)
            .map(|i| {
                let d = x[i] - y[i];
                g[i] * if d.abs() < beta { d / beta } else { d.signum() }
            })
            .collect()
    };
    let huber = |x: &[f64], g: &[f64]| -> Vec<f64> {
        (0..4)
            .map(|i| {
                let d = x[i] - y[i];
                g[i] * if d.abs() < delta {
                    d
                } else {
                    delta * d.signum()
                }
            })
            .collect()
    };
    let soft_margin = |x: &[f64], g: &[f64]| -> Vec<f64> {
        (0..4)
            .map(|i| {
                let z = (-y[i] * x[i]).exp();
                g[i] * -y[i] * z / (1.0 + z)
            })
            .collect()
    };
    let ggg = v(&gg.iter().zip(&g).map(|(a, b)| a * b).collect::<Vec<_>>());
    let sl1 = smooth_l1_loss_double_backward(&ggg, &v(&x), &v(&y), NONE, beta);
    assert_close(&vals(sl1), &numeric_vjp(smooth_l1, &x, &gg));
    assert_eq!(
        vals(smooth_l1_loss_double_backward(
            &ggg,
            &v(&x),
            &v(&y),
            NONE,
            0.0
        )),
        [0.0; 4]
    );
    let hub = huber_loss_double_backward(&ggg, &v(&x), &v(&y), NONE, delta);
    assert_close(&vals(hub), &numeric_vjp(|x| huber(x, &g), &x, &gg));
    let hub_go =
        huber_loss_double_backward_grad_output(&v(&gg), &v(&g), &v(&x), &v(&y), NONE, delta);
    assert_close(&vals(hub_go), &numeric_vjp(|g| huber(&x, g), &g, &gg));
    let sm = soft_margin_loss_double_backward(&ggg, &v(&x), &v(&y), NONE);
    assert_close(&vals(sm), &numeric_vjp(|x| soft_margin(x, &g), &x, &gg));
    let sm_go = soft_margin_loss_double_backward_grad_output(&v(&gg), &v(&g), &v(&x), &v(&y), NONE);
    assert_close(&vals(sm_go), &numeric_vjp(|g| soft_margin(&x, g), &g, &gg));
    // Reduced by the mean: a scalar grad_output, derivatives divided by n.
    let mean_huber = |go: &[f64]| vec![dot(&huber(&x, &[go[0] / 4.0; 4]), &gg)];
    let got = huber_loss_double_backward_grad_output(
        &v(&gg),
        &TT::scalar(1.0),
        &v(&x),
        &v(&y),
        MEAN,
        delta,
    );
    assert_close(&vals(got), &numeric_vjp(mean_huber, &[1.0], &[1.0]));
    assert_close(
        &vals(mse_loss_double_backward(&v(&gg), &v(&x), MEAN)),
        &gg.iter().map(|a| a / 2.0).collect::<Vec<_>>(),
    );
}

#[test]
fn ctc_loss_backward_scales_the_raw_gradient() {
    setup();
    // raw [T=1, N=2, C=2], losses [N], grad [N].
    let raw = TT::new(&[1, 2, 2], vec![1.0, 2.0, 3.0, 4.0]);
    let (loss, grad) = (v(&[0.0, 5.0]), v(&[2.0, 3.0]));
    assert_eq!(
        vals(_cudnn_ctc_loss_backward(&grad, &loss, &raw, false)),
        [2.0, 4.0, 9.0, 12.0]
    );
    assert_eq!(
        vals(_cudnn_ctc_loss_backward(&grad, &loss, &raw, true)),
        [0.0, 0.0, 9.0, 12.0]
    );
}
