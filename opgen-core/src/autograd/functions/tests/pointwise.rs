//! Pointwise and activation derivatives.

use super::super::ops;
use super::kernels::{bessel_i1, sigmoid};
use super::*;

fn v(values: &[f64]) -> TT {
    TT::vec(values)
}

fn vals(t: Result<TT, Error>) -> Vec<f64> {
    t.expect("helper").values()
}

/// The derivative of a scalar function, elementwise, by central differences.
fn fd(f: impl Fn(f64) -> f64, xs: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    xs.iter()
        .map(|&x| (f(x + h) - f(x - h)) / (2.0 * h))
        .collect()
}

#[test]
fn scalar_helpers() {
    setup();
    let x = v(&[1.0, -2.0]);
    assert!(maybe_multiply(&x, Scalar::Int(1)).expect("one").same(&x));
    assert_eq!(vals(maybe_multiply(&x, Scalar::Float(2.0))), [2.0, -4.0]);
    assert!(
        handle_r_to_c(ScalarType::Double, &x)
            .expect("real")
            .same(&x)
    );
    let g = v(&[3.0, 3.0]);
    assert_eq!(
        vals(mul_tensor_backward(&g, &x, ScalarType::Double)),
        [3.0, -6.0]
    );
    let by_two = mul_tensor_backward_scalar(&g, Scalar::Int(2), ScalarType::Double);
    assert_eq!(vals(by_two), [6.0, 6.0]);
    assert_eq!(
        vals(div_tensor_self_backward(&g, &x, ScalarType::Double, None)),
        [3.0, -1.5]
    );
    // d(a/b)/db = -a/b²
    let other = div_tensor_other_backward(&g, &v(&[4.0, 4.0]), &x, None);
    assert_eq!(vals(other), [-12.0, -3.0]);
    // With a rounding mode the quotient is piecewise constant: zeros.
    let floor = Some("floor");
    assert_eq!(
        vals(div_tensor_self_backward(&g, &x, ScalarType::Double, floor)),
        [0.0, 0.0]
    );
    assert_eq!(
        vals(div_tensor_other_backward(&g, &x, &x, floor)),
        [0.0, 0.0]
    );
    let by_scalar = div_tensor_self_backward_scalar(&g, Scalar::Int(3), ScalarType::Double, None);
    assert_eq!(vals(by_scalar), [1.0, 1.0]);
    assert!(scalar_conj(Scalar::Int(3)) == Scalar::Int(3));
}

#[test]
fn clamp_backward_passes_the_gradient_inside_the_bounds() {
    setup();
    let (g, x) = (v(&[1.0; 4]), v(&[-2.0, 0.0, 1.0, 3.0]));
    let both = clamp_backward(&g, &x, Some(Scalar::Int(0)), Some(Scalar::Int(1)));
    assert_eq!(vals(both), [0.0, 1.0, 1.0, 0.0]);
    assert_eq!(
        vals(clamp_backward(&g, &x, Some(Scalar::Int(0)), None)),
        [0.0, 1.0, 1.0, 1.0]
    );
    assert!(clamp_backward(&g, &x, None, None).expect("clamp").same(&g));
}

#[test]
fn clamp_with_tensor_bounds_sends_the_gradient_to_the_bound_taken() {
    setup();
    let (g, x) = (v(&[1.0; 4]), v(&[-2.0, 0.5, 1.0, 3.0]));
    let (lo, hi) = (v(&[0.0, 0.0, 1.0, 0.0]), v(&[1.0, 1.0, 2.0, 2.0]));
    let inside = clamp_backward_tensor(&g, &x, Some(&lo), Some(&hi));
    assert_eq!(vals(inside), [0.0, 1.0, 1.0, 0.0]);
    let (gmin, gmax) =
        clamp_backward_min_max(&g, &x, Some(&lo), Some(&hi), [true, true]).expect("bounds");
    assert_eq!(gmin.expect("min").values(), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(gmax.expect("max").values(), [0.0, 0.0, 0.0, 1.0]);
    // min > max: the result is max everywhere.
    let (lo2, hi2) = (v(&[3.0; 4]), v(&[2.0; 4]));
    let (gmin, gmax) =
        clamp_backward_min_max(&g, &x, Some(&lo2), Some(&hi2), [true, true]).expect("bounds");
    assert_eq!(
        (gmin.expect("min").values(), gmax.expect("max").values()),
        (vec![0.0; 4], vec![1.0; 4])
    );
    let (gmin, gmax) = clamp_backward_min_max(&g, &x, Some(&lo), None, [true, false]).expect("min");
    assert_eq!(
        (gmin.expect("min").values(), gmax.is_none()),
        (vec![1.0, 0.0, 0.0, 0.0], true)
    );
    // The forward derivative takes the tangent of whichever input the result is.
    let (t, lo_t, hi_t) = (v(&[10.0; 4]), v(&[20.0; 4]), v(&[30.0; 4]));
    let jvp = clamp_jvp(&x, &t, Some(&lo), Some(&lo_t), Some(&hi), Some(&hi_t));
    assert_eq!(vals(jvp), [20.0, 10.0, 10.0, 30.0]);
    let jvp = clamp_jvp(&x, &t, Some(&lo2), Some(&lo_t), Some(&hi2), Some(&hi_t));
    assert_eq!(vals(jvp), [30.0; 4]);
}

#[test]
fn maximum_shares_the_gradient_at_ties() {
    setup();
    // derivatives.yaml's `maximum`: masked_fill_inplace_if_safe(at::where(self == other,
    // grad / 2, grad), self < other, 0) for self, `self > other` for other.
    let (a, b, g) = (v(&[1.0, 2.0, 3.0]), v(&[2.0, 2.0, 1.0]), v(&[4.0; 3]));
    let split = ops::where_(
        &ops::eq(&a, &b).expect("eq"),
        &ops::div_n(&g, 2).expect("half"),
        &g,
    )
    .expect("where");
    let ga = masked_fill_inplace_if_safe(&split, &ops::lt(&a, &b).expect("lt"), Scalar::Int(0));
    let gb = masked_fill_inplace_if_safe(&split, &ops::gt(&a, &b).expect("gt"), Scalar::Int(0));
    assert_eq!(
        (vals(ga), vals(gb)),
        (vec![0.0, 2.0, 4.0], vec![4.0, 2.0, 0.0])
    );
}

#[test]
fn copysign_sign_and_angle_of_real_inputs() {
    setup();
    let (x, g) = (v(&[-2.0, 0.0, 3.0]), v(&[1.0; 3]));
    let result = v(&[2.0, -0.0, -3.0]); // copysign(x, [1, -1, -1])
    assert_eq!(
        vals(copysign_tensor_self_backward(&g, &x, &result)),
        [-1.0, 0.0, -1.0]
    );
    assert_eq!(vals(sgn_backward(&x, &g, &x)), [0.0; 3]);
    assert_eq!(vals(angle_backward(&g, &x)), [0.0; 3]);
}

#[test]
fn pow_derivatives_follow_pytorchs_boundary_conventions() {
    setup();
    let (x, g) = (v(&[0.5, 2.0]), v(&[1.0, 1.0]));
    assert_close(&vals(pow_backward(&g, &x, Scalar::Int(3))), &[0.75, 12.0]);
    assert_close(
        &vals(pow_backward(&g, &x, Scalar::Float(2.5))),
        &fd(|x| x.powf(2.5), &[0.5, 2.0]),
    );
    assert_eq!(vals(pow_backward(&g, &x, Scalar::Int(0))), [0.0, 0.0]);
    // Tensor exponent: 0 where the exponent is 0.
    assert_close(
        &vals(pow_backward_self(&g, &v(&[2.0, 2.0]), &v(&[0.0, 3.0]))),
        &[0.0, 12.0],
    );
    // d(a^b)/db = a^b ln a; 0 at a = 0, b >= 0; -inf at a = 0, b < 0.
    let (base, exponent) = (v(&[2.0, 0.0, 0.0]), v(&[3.0, 2.0, -1.0]));
    let result = v(&[8.0, 0.0, f64::INFINITY]);
    let ge = pow_backward_exponent(&v(&[1.0; 3]), &base, &exponent, &result);
    assert_close(&vals(ge), &[8.0 * 2f64.ln(), 0.0, f64::NEG_INFINITY]);
    let (exponent, result) = (v(&[1.0, 3.0]), v(&[2.0, 8.0]));
    let scalar_base = pow_backward_exponent_scalar(&g, Scalar::Int(2), &exponent, &result);
    assert_close(&vals(scalar_base), &[2.0 * 2f64.ln(), 8.0 * 2f64.ln()]);
    let zero_base = pow_backward_exponent_scalar(
        &g,
        Scalar::Int(0),
        &v(&[2.0, -1.0]),
        &v(&[0.0, f64::INFINITY]),
    );
    assert_eq!(vals(zero_base), [0.0, f64::NEG_INFINITY]);
}

#[test]
fn special_function_derivatives_match_finite_differences() {
    setup();
    let xs = [0.0, 0.3, -1.7];
    let sinc = |x: f64| {
        if x == 0.0 {
            1.0
        } else {
            (std::f64::consts::PI * x).sin() / (std::f64::consts::PI * x)
        }
    };
    let mut expected = fd(sinc, &xs);
    expected[0] = 0.0;
    assert_close(&vals(sinc_backward(&v(&[1.0; 3]), &v(&xs))), &expected);
    let xs = [0.0, 0.5, -2.0];
    let i1: Vec<f64> = xs.iter().map(|&x| bessel_i1(x)).collect();
    let ones = v(&[1.0; 3]);
    assert_close(
        &vals(i1_backward(&ones, &v(&xs), &v(&i1))),
        &[0.5, fd(bessel_i1, &[0.5])[0], fd(bessel_i1, &[-2.0])[0]],
    );
    let i1e = |x: f64| bessel_i1(x) * (-x.abs()).exp();
    let i1e_values: Vec<f64> = xs.iter().map(|&x| i1e(x)).collect();
    let expected = [0.5, fd(i1e, &[0.5])[0], fd(i1e, &[-2.0])[0]];
    assert_close(
        &vals(i1e_backward(&ones, &v(&xs), &v(&i1e_values))),
        &expected,
    );
    assert_close(
        &vals(log1p_backward(&v(&[2.0, 2.0]), &v(&[1.0, -0.5]))),
        &[1.0, 4.0],
    );
    let pi = std::f64::consts::PI;
    assert_close(&vals(deg2rad_backward(&v(&[180.0]))), &[pi]);
    assert_close(&vals(rad2deg_backward(&v(&[pi]))), &[180.0]);
}

#[test]
fn logit_backward_inside_and_outside_its_domain() {
    setup();
    let g = v(&[1.0; 3]);
    let with_eps = infinitely_differentiable_logit_backward(&g, &v(&[0.05, 0.5, 0.95]), Some(0.1));
    assert_close(&vals(with_eps), &[0.0, 4.0, 0.0]);
    let without = infinitely_differentiable_logit_backward(&g, &v(&[-0.1, 0.5, 1.2]), None);
    assert_close(&vals(without), &[f64::NAN, 4.0, f64::NAN]);
}

#[test]
fn atan2_and_polar_backward() {
    setup();
    let (a, b) = ([1.0, -2.0], [3.0, 0.5]);
    let (ga, gb) = atan2_backward(&v(&[1.0, 1.0]), &v(&a), &v(&b), [true, true]).expect("atan2");
    let da: Vec<f64> = (0..2).map(|i| fd(|x| x.atan2(b[i]), &[a[i]])[0]).collect();
    let db: Vec<f64> = (0..2).map(|i| fd(|y| a[i].atan2(y), &[b[i]])[0]).collect();
    assert_close(&ga.expect("self").values(), &da);
    assert_close(&gb.expect("other").values(), &db);
    let (only_self, none) =
        atan2_backward(&v(&[1.0]), &v(&[1.0]), &v(&[1.0]), [true, false]).expect("mask");
    assert!(only_self.is_some() && none.is_none());
    assert!(wrap_opt_if(&v(&[1.0]), false).expect("wrap").is_none());
}

#[test]
fn activation_derivatives_match_finite_differences() {
    setup();
    let xs = [-1.5, 0.0, 0.7, 2.0];
    let ones = v(&[1.0; 4]);
    let silu = |x: f64| x * sigmoid(x);
    assert_close(
        &vals(infinitely_differentiable_silu_backward(&ones, &v(&xs))),
        &fd(silu, &xs),
    );
    let mish = |x: f64| x * x.exp().ln_1p().tanh();
    assert_close(
        &vals(infinitely_differentiable_mish_backward(&ones, &v(&xs))),
        &fd(mish, &xs),
    );
    // Second derivatives: d/dx of the first backward, at grad = 1.
    let log_sigmoid_first = |x: f64| 1.0 - sigmoid(x);
    assert_close(
        &vals(log_sigmoid_double_backward(&ones, &v(&xs))),
        &fd(log_sigmoid_first, &xs),
    );
    let (beta, threshold) = (2.0, 1.0);
    let softplus_first = |x: f64| {
        if beta * x > threshold {
            1.0
        } else {
            sigmoid(beta * x)
        }
    };
    let sp = softplus_double_backward(
        &ones,
        &v(&xs),
        Scalar::Float(beta),
        Scalar::Float(threshold),
    );
    let mut expected = fd(softplus_first, &xs);
    expected[3] = 0.0; // beta x above the threshold: linear
    assert_close(&vals(sp), &expected);
    let (alpha, scale, input_scale) = (1.3, 1.1, 0.9);
    let elu_first = |x: f64| {
        if x <= 0.0 {
            input_scale * scale * alpha * (input_scale * x).exp()
        } else {
            scale
        }
    };
    let elu = elu_double_backward(
        &ones,
        &ones,
        Scalar::Float(alpha),
        Scalar::Float(scale),
        Scalar::Float(input_scale),
        false,
        &v(&xs),
    );
    let mut expected = fd(elu_first, &xs);
    expected[1] = 0.0; // at 0 PyTorch takes the positive side (x < 0 is false)
    assert_close(&vals(elu), &expected);
}

/// `Φ(x)` by Simpson's rule on the normal density.
fn normal_cdf(x: f64) -> f64 {
    let n = 2000;
    let h = x / f64::from(n);
    let phi = |t: f64| (-0.5 * t * t).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let inner: f64 = (1..n)
        .map(|i| phi(f64::from(i) * h) * if i % 2 == 1 { 4.0 } else { 2.0 })
        .sum();
    0.5 + h / 3.0 * (phi(0.0) + inner + phi(x))
}

#[test]
fn gelu_double_backward_is_geluss_second_derivative() {
    setup();
    let xs = [-1.2, 0.4, 2.1];
    let (gg, go) = (v(&[1.0; 3]), v(&[2.0; 3]));
    let phi = |x: f64| (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let exact_first = |x: f64| normal_cdf(x) + x * phi(x);
    let expected: Vec<f64> = fd(exact_first, &xs).into_iter().map(|d| 2.0 * d).collect();
    assert_close(
        &vals(gelu_double_backward(&gg, &go, &v(&xs), "none")),
        &expected,
    );
    let (beta, kappa) = ((2.0 / std::f64::consts::PI).sqrt(), 0.044715);
    let tanh_first = |x: f64| {
        let u = (beta * (x + kappa * x.powi(3))).tanh();
        0.5 * (1.0 + u) + 0.5 * x * (1.0 - u * u) * beta * (1.0 + 3.0 * kappa * x * x)
    };
    let expected: Vec<f64> = fd(tanh_first, &xs).into_iter().map(|d| 2.0 * d).collect();
    assert_close(
        &vals(gelu_double_backward(&gg, &go, &v(&xs), "tanh")),
        &expected,
    );
}

#[test]
fn glu_and_softmax_double_backward_match_finite_differences() {
    setup();
    // glu_backward(gO, x) along the last dimension of a [1, 4] input: halves a, b.
    let x = [0.3, -1.1, 0.8, 1.9];
    let go = [1.5, -0.5];
    let ggi = [0.7, -0.2, 1.3, 0.4];
    let glu_backward_of = |x: &[f64], go: &[f64]| -> Vec<f64> {
        let s = [sigmoid(x[2]), sigmoid(x[3])];
        vec![
            go[0] * s[0],
            go[1] * s[1],
            go[0] * x[0] * s[0] * (1.0 - s[0]),
            go[1] * x[1] * s[1] * (1.0 - s[1]),
        ]
    };
    let t = |vals: &[f64], n: i64| TT::new(&[1, n], vals.to_vec());
    let gx = glu_double_backward(&t(&ggi, 4), &t(&go, 2), &t(&x, 4), -1).expect("glu");
    assert_close(
        &gx.values(),
        &numeric_vjp(|x| glu_backward_of(x, &go), &x, &ggi),
    );
    let ggo = glu_double_backward_grad_output(&t(&ggi, 4), &t(&x, 4), 1).expect("glu gO");
    assert_close(
        &ggo.values(),
        &numeric_vjp(|go| glu_backward_of(&x, go), &go, &ggi),
    );
    // _softmax_backward_data(gO, output) = output * (gO - Σ gO output), differentiated in output.
    let (grad, go, out) = ([0.2, -0.4, 1.0], [1.0, 2.0, -1.0], [0.2, 0.3, 0.5]);
    let softmax_backward = |o: &[f64]| -> Vec<f64> {
        let dot: f64 = go.iter().zip(o).map(|(g, o)| g * o).sum();
        o.iter().zip(&go).map(|(o, g)| o * (g - dot)).collect()
    };
    let got = softmax_double_backward(&v(&grad), &v(&go), 0, &v(&out)).expect("softmax");
    assert_close(&got.values(), &numeric_vjp(softmax_backward, &out, &grad));
}

#[test]
fn dropout_derivatives_scale_by_the_mask() {
    setup();
    let (g, mask) = (v(&[1.0, 2.0, 3.0]), v(&[1.0, 0.0, 1.0]));
    assert_close(
        &vals(_fused_dropout_backward(&g, &mask, 0.5)),
        &[2.0, 0.0, 6.0],
    );
    assert_close(
        &vals(infinitely_differentiable_native_dropout_backward(
            &g, &mask, 2.0,
        )),
        &[2.0, 0.0, 6.0],
    );
    assert_close(
        &vals(native_dropout_double_backward(&g, &g, &mask, 4.0)),
        &[4.0, 0.0, 12.0],
    );
}
