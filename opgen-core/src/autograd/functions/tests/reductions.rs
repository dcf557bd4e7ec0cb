//! Derivatives of reductions and vector norms.

use super::*;

fn t(shape: &[i64], values: &[f64]) -> TT {
    TT::new(shape, values.to_vec())
}

fn vals(x: Result<TT, Error>) -> Vec<f64> {
    x.expect("helper").values()
}

#[test]
fn sum_and_mean_backward_restore_the_reduced_dimensions() {
    setup();
    let g = TT::vec(&[1.0, 2.0]);
    let full = sum_backward(&g, &[2, 3], Some(&[1]), false).expect("sum");
    assert_eq!(
        (full.shape(), full.values()),
        (&[2i64, 3][..], vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    );
    let mean = mean_backward(&g, &[2, 3], Some(&[-1]), 6, false).expect("mean");
    let (a, b) = (1.0 / 3.0, 2.0 / 3.0);
    assert_eq!(mean.values(), [a, a, a, b, b, b]);
    let all = mean_backward(&TT::scalar(6.0), &[2, 3], None, 6, false).expect("mean");
    assert_eq!(all.values(), [1.0; 6]);
    let two = unsqueeze_multiple(&TT::vec(&[5.0]), Some(&[0, 2]), 3).expect("unsqueeze");
    assert_eq!(two.shape(), [1, 1, 1]);
    let err = unsqueeze_multiple(&TT::vec(&[5.0]), Some(&[0, -3]), 3)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("dim 0 appears multiple times in the list of dims"),
        "{err}"
    );
}

#[test]
fn sum_to_and_selection_backward() {
    setup();
    let g = t(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(vals(sum_to(&g, &[3])), [5.0, 7.0, 9.0]);
    assert_eq!(vals(sum_to(&g, &[2, 1])), [6.0, 15.0]);
    assert_eq!(vals(sum_to(&g, &[])), [21.0]);
    let picked = value_selecting_reduction_backward(
        &TT::vec(&[7.0, 8.0]),
        1,
        &TT::vec(&[2.0, 0.0]),
        &[2, 3],
        false,
    );
    assert_eq!(vals(picked), [0.0, 0.0, 7.0, 8.0, 0.0, 0.0]);
    let indices = t(&[2, 1], &[2.0, 0.0]);
    let x = t(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(
        vals(gather_with_keepdimed_indices(
            &x,
            1,
            &TT::vec(&[2.0, 0.0]),
            false
        )),
        [3.0, 4.0]
    );
    assert_eq!(
        vals(gather_with_keepdimed_indices(&x, 1, &indices, true)),
        [3.0, 4.0]
    );
}

#[test]
fn amax_and_amin_share_the_gradient_among_ties() {
    setup();
    // derivatives.yaml's `amax`: scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim),
    // restore_reduced_dims(result, dim, keepdim) == self, dim).
    let x = t(&[2, 3], &[1.0, 3.0, 3.0, 2.0, 0.0, 2.0]);
    let (result, grad) = (TT::vec(&[3.0, 2.0]), TT::vec(&[1.0, 1.0]));
    let restored = restore_reduced_dims(&result, &[1], false).expect("restore");
    assert_eq!(restored.shape(), [2, 1]);
    let mask = super::super::ops::eq(&restored, &x).expect("eq");
    let g = scale_grad_by_count(
        &restore_reduced_dims(&grad, &[1], false).expect("grad"),
        &mask,
        &[1],
    );
    assert_eq!(vals(g), [0.0, 0.5, 0.5, 0.5, 0.0, 0.5]);
    assert_eq!(
        restore_reduced_dims(&TT::vec(&[1.0; 5]), &[0, -1], false)
            .expect("two")
            .shape(),
        [1, 5, 1]
    );
    let jvp = amaxamin_jvp(
        &x,
        &t(&[2, 3], &[10.0, 20.0, 40.0, 1.0, 2.0, 3.0]),
        &result,
        &[1],
        false,
    );
    assert_eq!(vals(jvp), [30.0, 2.0]);
    // aminmax over everything: min 0 once, max 3 twice.
    let y = TT::vec(&[1.0, 3.0, 3.0, 0.0]);
    let (gmin, gmax) = (TT::scalar(1.0), TT::scalar(2.0));
    let g = aminmax_backward(
        &y,
        None,
        false,
        Some(&gmin),
        Some(&gmax),
        &TT::scalar(0.0),
        &TT::scalar(3.0),
    );
    assert_eq!(
        g.expect("aminmax").expect("defined").values(),
        [0.0, 1.0, 1.0, 1.0]
    );
    let none = aminmax_backward(
        &y,
        Some(0),
        false,
        None,
        None,
        &TT::scalar(0.0),
        &TT::scalar(3.0),
    );
    assert!(none.expect("aminmax").is_none());
}

#[test]
fn evenly_distribute_backward_with_ties_and_nan() {
    setup();
    let g = evenly_distribute_backward(
        &TT::scalar(6.0),
        &TT::vec(&[1.0, 5.0, 5.0, 2.0]),
        &TT::scalar(5.0),
    );
    assert_eq!(vals(g), [0.0, 3.0, 3.0, 0.0]);
    let nan = f64::NAN;
    let g = evenly_distribute_backward(
        &TT::scalar(4.0),
        &TT::vec(&[nan, 1.0, nan]),
        &TT::scalar(nan),
    );
    assert_eq!(vals(g), [2.0, 0.0, 2.0]);
    let jvp = evenly_read_jvp(
        &TT::vec(&[1.0, 2.0, 3.0]),
        &TT::vec(&[5.0, 1.0, 5.0]),
        &TT::scalar(5.0),
    );
    assert_eq!(vals(jvp), [2.0]);
}

#[test]
fn prod_backward_with_and_without_zeros() {
    setup();
    let one = TT::scalar(1.0);
    assert_eq!(
        vals(prod_backward(
            &one,
            &TT::vec(&[2.0, 3.0, 4.0]),
            &TT::scalar(24.0)
        )),
        [12.0, 8.0, 6.0]
    );
    assert_eq!(
        vals(prod_backward(
            &one,
            &TT::vec(&[2.0, 0.0, 4.0]),
            &TT::scalar(0.0)
        )),
        [0.0, 8.0, 0.0]
    );
    assert_eq!(
        vals(prod_backward(
            &one,
            &TT::vec(&[0.0, 3.0, 0.0]),
            &TT::scalar(0.0)
        )),
        [0.0; 3]
    );
    {
        let _no_grad = crate::autograd::NoGradGuard::new();
        assert_eq!(
            vals(prod_backward(
                &one,
                &TT::vec(&[0.0, 3.0, 0.0]),
                &TT::scalar(0.0)
            )),
            [0.0; 3]
        );
    }
    let x = t(&[2, 2], &[1.0, 2.0, 0.0, 3.0]);
    let g = prod_backward_dim(&TT::vec(&[1.0, 1.0]), &x, &TT::vec(&[2.0, 0.0]), 1, false);
    assert_eq!(vals(g), [2.0, 1.0, 3.0, 0.0]);
}

/// The variance of each row of a `[2, 3]` input (or of all of it), with `correction`.
fn variance(x: &[f64], rows: bool, correction: f64) -> Vec<f64> {
    let groups: Vec<&[f64]> = if rows { x.chunks(3).collect() } else { vec![x] };
    groups
        .iter()
        .map(|g| {
            let mean = g.iter().sum::<f64>() / g.len() as f64;
            g.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (g.len() as f64 - correction)
        })
        .collect()
}

#[test]
fn var_and_std_backward_match_finite_differences() {
    setup();
    let x = [1.0, 4.0, 2.0, -1.0, 0.5, 3.0];
    let xt = t(&[2, 3], &x);
    let g = [0.7, -1.3];
    let dim: Option<&[i64]> = Some(&[1]);
    let got = var_backward(&TT::vec(&g), &xt, dim, Some(Scalar::Int(1)), false);
    assert_close(&vals(got), &numeric_vjp(|x| variance(x, true, 1.0), &x, &g));
    let got = var_backward(&TT::scalar(2.0), &xt, None, Some(Scalar::Int(0)), false);
    assert_close(
        &vals(got),
        &numeric_vjp(|x| variance(x, false, 0.0), &x, &[2.0]),
    );
    let std = |x: &[f64]| {
        variance(x, true, 1.0)
            .into_iter()
            .map(f64::sqrt)
            .collect::<Vec<_>>()
    };
    let result = TT::vec(&std(&x));
    let got = std_backward(&result, &TT::vec(&g), &xt, dim, None, false);
    assert_close(&vals(got), &numeric_vjp(std, &x, &g));
    // n == correction: infinity, NaN where the input equals its mean.
    let single = var_backward(&TT::scalar(1.0), &TT::vec(&[3.0]), None, None, false);
    assert!(vals(single)[0].is_nan());
    // var_mean: both gradients, summed.
    let (gv, gm) = (TT::vec(&g), TT::vec(&[0.5, 2.0]));
    let both = var_mean_backward(Some(&gv), Some(&gm), &xt, dim, None, false)
        .expect("var_mean")
        .expect("defined");
    let var_mean = |x: &[f64]| {
        let mut out = variance(x, true, 1.0);
        out.extend(x.chunks(3).map(|r| r.iter().sum::<f64>() / 3.0));
        out
    };
    assert_close(
        &both.values(),
        &numeric_vjp(var_mean, &x, &[0.7, -1.3, 0.5, 2.0]),
    );
    let std_mean =
        std_mean_backward(None, Some(&gm), &xt, &result, dim, None, false).expect("std_mean");
    assert_close(
        &std_mean.expect("defined").values(),
        &[
            0.5 / 3.0,
            0.5 / 3.0,
            0.5 / 3.0,
            2.0 / 3.0,
            2.0 / 3.0,
            2.0 / 3.0,
        ],
    );
}

#[test]
fn log_sum_exp_and_cumulative_derivatives_match_finite_differences() {
    setup();
    let x = [0.5, -1.0, 2.0, 0.0];
    let lse = |x: &[f64]| vec![x.iter().map(|v| v.exp()).sum::<f64>().ln()];
    let result = TT::scalar(lse(&x)[0]);
    let got = logsumexp_backward(&TT::scalar(1.5), &TT::vec(&x), &result, Some(&[0]), false);
    assert_close(&vals(got), &numeric_vjp(lse, &x, &[1.5]));
    let tangent = [1.0, 2.0, -1.0, 0.5];
    let jvp = logsumexp_jvp(&TT::vec(&x), &TT::vec(&tangent), Some(&[0]), false)
        .expect("jvp")
        .values();
    let expected: f64 = numeric_vjp(lse, &x, &[1.0])
        .iter()
        .zip(&tangent)
        .map(|(d, t)| d * t)
        .sum();
    assert_close(&jvp, &[expected]);
    let masked = t(&[2, 2], &[f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0, 1.0]);
    let safe = safe_logsumexp_jvp(&masked, &t(&[2, 2], &[1.0; 4]), &[1], true).expect("safe");
    assert_close(&safe.values(), &[0.0, 1.0]);
    // logcumsumexp with gradients of both signs.
    let lcse = |x: &[f64]| -> Vec<f64> {
        (0..x.len())
            .map(|i| x[..=i].iter().map(|v| v.exp()).sum::<f64>().ln())
            .collect()
    };
    let g = [1.0, -2.0, 0.5, -0.25];
    let got = logcumsumexp_backward(&TT::vec(&g), &TT::vec(&x), &TT::vec(&lcse(&x)), 0);
    assert_close(&vals(got), &numeric_vjp(lcse, &x, &g));
    let cumsum = |x: &[f64]| -> Vec<f64> { (0..x.len()).map(|i| x[..=i].iter().sum()).collect() };
    assert_close(
        &vals(cumsum_backward(&TT::vec(&g), 0)),
        &numeric_vjp(cumsum, &x, &g),
    );
    // cumprod's forward derivative, right across zeros: J t by differences.
    let p = [2.0, 0.0, 3.0, 0.0];
    let cumprod =
        |x: &[f64]| -> Vec<f64> { (0..x.len()).map(|i| x[..=i].iter().product()).collect() };
    let jvp =
        cumprod_jvp(&TT::vec(&tangent), &TT::vec(&p), &TT::vec(&cumprod(&p)), 0).expect("cumprod");
    let by_columns: Vec<f64> = (0..4)
        .map(|i| {
            let e: Vec<f64> = (0..4).map(|j| if j == i { 1.0 } else { 0.0 }).collect();
            numeric_vjp(cumprod, &p, &e)
                .iter()
                .zip(&tangent)
                .map(|(d, t)| d * t)
                .sum()
        })
        .collect();
    assert_close(&jvp.values(), &by_columns);
    let nansum = nansum_backward(&TT::scalar(2.0), &TT::vec(&[1.0, f64::NAN]), None, false);
    assert_eq!(vals(nansum), [2.0, 0.0]);
}

/// The `p`-norm of all of `x`.
fn p_norm(x: &[f64], p: f64) -> f64 {
    if p.is_infinite() {
        x.iter().fold(0.0, |m: f64, v| m.max(v.abs()))
    } else {
        x.iter().map(|v| v.abs().powf(p)).sum::<f64>().powf(1.0 / p)
    }
}

#[test]
fn norm_backward_matches_finite_differences_for_every_p() {
    setup();
    let x = [1.5, -2.0, 0.5, 3.0];
    for p in [1.0, 2.0, 3.0, 1.5, 0.5, f64::INFINITY] {
        let norm = TT::scalar(p_norm(&x, p));
        let got = norm_backward(
            &TT::scalar(2.0),
            &TT::vec(&x),
            Some(Scalar::Float(p)),
            &norm,
            &[],
            true,
        );
        let expected = numeric_vjp(|x| vec![p_norm(x, p)], &x, &[2.0]);
        assert_close(&got.expect("norm").expect("defined").values(), &expected);
        let tangent = [0.5, 1.0, -2.0, 0.25];
        let jvp = norm_jvp(
            &TT::vec(&x),
            &TT::vec(&tangent),
            Some(Scalar::Float(p)),
            &norm,
            &[],
            true,
        );
        let dot: f64 = expected
            .iter()
            .zip(&tangent)
            .map(|(d, t)| d * t / 2.0)
            .sum();
        assert_close(&jvp.expect("jvp").values(), &[dot]);
    }
    // Ties at the maximum share the gradient; a zero norm has a zero gradient.
    let tie = norm_backward(
        &TT::scalar(1.0),
        &TT::vec(&[-3.0, 3.0, 1.0]),
        Some(Scalar::Float(f64::INFINITY)),
        &TT::scalar(3.0),
        &[],
        true,
    );
    assert_eq!(
        tie.expect("inf").expect("defined").values(),
        [-0.5, 0.5, 0.0]
    );
    let zero = norm_backward(
        &TT::scalar(1.0),
        &TT::vec(&[0.0, 0.0]),
        None,
        &TT::scalar(0.0),
        &[],
        true,
    );
    assert_eq!(zero.expect("zero").expect("defined").values(), [0.0, 0.0]);
    let p0 = norm_backward(
        &TT::scalar(1.0),
        &TT::vec(&x),
        Some(Scalar::Int(0)),
        &TT::scalar(4.0),
        &[],
        true,
    );
    assert!(p0.expect("p = 0").is_none());
    // Along a dimension, not kept: rows of a [2, 2] input.
    let rows = t(&[2, 2], &x);
    let norms = TT::vec(&[p_norm(&x[..2], 3.0), p_norm(&x[2..], 3.0)]);
    let got = linalg_vector_norm_backward(
        &TT::vec(&[1.0, -1.0]),
        &rows,
        Scalar::Int(3),
        &norms,
        Some(&[1]),
        false,
    );
    let row_norms = |x: &[f64]| vec![p_norm(&x[..2], 3.0), p_norm(&x[2..], 3.0)];
    assert_close(
        &got.expect("rows").expect("defined").values(),
        &numeric_vjp(row_norms, &x, &[1.0, -1.0]),
    );
}

#[test]
fn renorm_backward_matches_finite_differences() {
    setup();
    let x = [3.0, 4.0, 0.3, 0.4];
    // renorm(x, p=2, dim=0, maxnorm=1): rows with norm above 1 scaled to norm 1 (+1e-7).
    let renorm = |x: &[f64]| -> Vec<f64> {
        x.chunks(2)
            .flat_map(|row| {
                let n = p_norm(row, 2.0);
                let scale = if n > 1.0 { 1.0 / (n + 1e-7) } else { 1.0 };
                row.iter().map(move |v| v * scale).collect::<Vec<_>>()
            })
            .collect()
    };
    let g = [1.0, -2.0, 0.5, 3.0];
    let got = renorm_backward(
        &t(&[2, 2], &g),
        &t(&[2, 2], &x),
        Scalar::Int(2),
        0,
        Scalar::Int(1),
    );
    assert_close(&vals(got), &numeric_vjp(renorm, &x, &g));
}
