//! Second and forward derivatives of normalization layers, against finite differences of
//! the layers (and of their first derivatives) written out in plain Rust.

use super::*;

const EPS: f64 = 1e-5;

fn t(shape: &[i64], values: &[f64]) -> TT {
    TT::new(shape, values.to_vec())
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Deterministic values in `[-1.5, 1.5)`.
fn values(n: usize, seed: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|i| ((i * 7919 + seed * 104729) % 1000) as f64 / 1000.0 * 3.0 - 1.5)
        .collect()
}

/// The forward derivative of `f` at `x` along `t`, by central differences.
fn numeric_jvp(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], t: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    let plus: Vec<f64> = x.iter().zip(t).map(|(x, t)| x + h * t).collect();
    let minus: Vec<f64> = x.iter().zip(t).map(|(x, t)| x - h * t).collect();
    f(&plus)
        .iter()
        .zip(f(&minus))
        .map(|(p, m)| (p - m) / (2.0 * h))
        .collect()
}

/// The positions of channel `c` of an `[n, channels, l]` input.
fn channel(c: usize, n: usize, channels: usize, l: usize) -> Vec<usize> {
    (0..n)
        .flat_map(|i| (0..l).map(move |j| (i * channels + c) * l + j))
        .collect()
}

/// Batch norm's first backward (training: the statistics are the input's): `(gI, gγ, gβ)`.
fn batch_norm_backward(
    x: &[f64],
    gamma: &[f64],
    go: &[f64],
    stats: Option<(&[f64], &[f64])>,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (n, c, l) = (2, 2, 3);
    let m = (n * l) as f64;
    let (mut gi, mut gg, mut gb) = (vec![0.0; x.len()], vec![0.0; c], vec![0.0; c]);
    for ch in 0..c {
        let idx = channel(ch, n, c, l);
        let (mean, invstd) = match stats {
            Some((rm, rv)) => (rm[ch], 1.0 / (rv[ch] + EPS).sqrt()),
            None => {
                let mean = idx.iter().map(|&p| x[p]).sum::<f64>() / m;
                let var = idx.iter().map(|&p| (x[p] - mean).powi(2)).sum::<f64>() / m;
                (mean, 1.0 / (var + EPS).sqrt())
            }
        };
        let xhat = |p: usize| (x[p] - mean) * invstd;
        let sum_go: f64 = idx.iter().map(|&p| go[p]).sum();
        let sum_go_xhat: f64 = idx.iter().map(|&p| go[p] * xhat(p)).sum();
        for &p in &idx {
            gi[p] = match stats {
                Some(_) => gamma[ch] * invstd * go[p],
                None => gamma[ch] * invstd / m * (m * go[p] - sum_go - xhat(p) * sum_go_xhat),
            };
        }
        gg[ch] = sum_go_xhat;
        gb[ch] = sum_go;
    }
    (gi, gg, gb)
}

#[test]
fn batchnorm_double_backward_matches_finite_differences() {
    setup();
    let (x, go, gamma) = (values(12, 1), values(12, 2), [0.8, -1.3]);
    let (ggi, ggg, ggb) = (values(12, 3), [0.4, 1.1], [-0.6, 0.9]);
    let (rm, rv) = ([0.1, -0.2], [0.9, 1.7]);
    for training in [true, false] {
        let stats = (!training).then_some((&rm[..], &rv[..]));
        let objective = |x: &[f64], gamma: &[f64], go: &[f64]| {
            let (gi, gg, gb) = batch_norm_backward(x, gamma, go, stats);
            vec![dot(&gi, &ggi) + dot(&gg, &ggg) + dot(&gb, &ggb)]
        };
        let mean: Vec<f64> = (0..2)
            .map(|c| channel(c, 2, 2, 3).iter().map(|&p| x[p]).sum::<f64>() / 6.0)
            .collect();
        let invstd: Vec<f64> = (0..2)
            .map(|c| {
                let var = channel(c, 2, 2, 3)
                    .iter()
                    .map(|&p| (x[p] - mean[c]).powi(2))
                    .sum::<f64>()
                    / 6.0;
                1.0 / (var + EPS).sqrt()
            })
            .collect();
        let (input, g3) = (t(&[2, 2, 3], &x), t(&[2, 2, 3], &go));
        let (gamma_t, mean_t, invstd_t) = (TT::vec(&gamma), TT::vec(&mean), TT::vec(&invstd));
        let (rm_t, rv_t) = (TT::vec(&rm), TT::vec(&rv));
        let (gi, gg, ggo) = batchnorm_double_backward(
            &input,
            Some(&gamma_t),
            Some(&t(&[2, 2, 3], &ggi)),
            Some(&TT::vec(&ggg)),
            Some(&TT::vec(&ggb)),
            &g3,
            Some(&rm_t),
            Some(&rv_t),
            training,
            EPS,
            Some(&mean_t),
            Some(&invstd_t),
            [true, true, true],
        )
        .expect("double backward");
        assert_close(
            &gi.expect("input").values(),
            &numeric_vjp(|x| objective(x, &gamma, &go), &x, &[1.0]),
        );
        assert_close(
            &gg.expect("weight").values(),
            &numeric_vjp(|g| objective(&x, g, &go), &gamma, &[1.0]),
        );
        assert_close(
            &ggo.expect("grad_output").values(),
            &numeric_vjp(|go| objective(&x, &gamma, go), &go, &[1.0]),
        );
    }
}

/// Layer norm over the rows of a `[2, 3]` input: `(gI, gγ, gβ)` of its first backward.
fn layer_norm_backward(x: &[f64], gamma: &[f64], go: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let n = 3.0;
    let (mut gi, mut gg, mut gb) = (vec![0.0; 6], vec![0.0; 3], vec![0.0; 3]);
    for r in 0..2 {
        let row = &x[3 * r..3 * r + 3];
        let mean = row.iter().sum::<f64>() / n;
        let rstd = 1.0 / (row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n + EPS).sqrt();
        let xhat: Vec<f64> = row.iter().map(|v| (v - mean) * rstd).collect();
        let gxhat: Vec<f64> = (0..3).map(|j| go[3 * r + j] * gamma[j]).collect();
        let (s, sx) = (gxhat.iter().sum::<f64>(), dot(&gxhat, &xhat));
        for j in 0..3 {
            gi[3 * r + j] = rstd / n * (n * gxhat[j] - s - xhat[j] * sx);
            gg[j] += go[3 * r + j] * xhat[j];
            gb[j] += go[3 * r + j];
        }
    }
    (gi, gg, gb)
}

#[test]
fn layer_norm_double_backward_matches_finite_differences() {
    setup();
    let (x, go, gamma) = (values(6, 4), values(6, 5), [1.2, -0.7, 0.4]);
    let (ggi, ggg, ggb) = (values(6, 6), [0.3, -0.2, 1.0], [0.5, 0.5, -1.0]);
    let objective = |x: &[f64], gamma: &[f64], go: &[f64]| {
        let (gi, gg, gb) = layer_norm_backward(x, gamma, go);
        vec![dot(&gi, &ggi) + dot(&gg, &ggg) + dot(&gb, &ggb)]
    };
    let stats: Vec<(f64, f64)> = x
        .chunks(3)
        .map(|row| {
            let mean = row.iter().sum::<f64>() / 3.0;
            (
                mean,
                1.0 / (row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 3.0 + EPS).sqrt(),
            )
        })
        .collect();
    let mean = t(&[2, 1], &stats.iter().map(|s| s.0).collect::<Vec<_>>());
    let rstd = t(&[2, 1], &stats.iter().map(|s| s.1).collect::<Vec<_>>());
    let (gi, gg, ggo) = layer_norm_double_backward(
        &t(&[2, 3], &x),
        Some(&TT::vec(&gamma)),
        Some(&t(&[2, 3], &ggi)),
        Some(&TT::vec(&ggg)),
        Some(&TT::vec(&ggb)),
        &t(&[2, 3], &go),
        &mean,
        &rstd,
        &[3],
        [true, true, true],
    )
    .expect("double backward");
    assert_close(
        &gi.expect("input").values(),
        &numeric_vjp(|x| objective(x, &gamma, &go), &x, &[1.0]),
    );
    assert_close(
        &gg.expect("weight").values(),
        &numeric_vjp(|g| objective(&x, g, &go), &gamma, &[1.0]),
    );
    assert_close(
        &ggo.expect("grad_output").values(),
        &numeric_vjp(|go| objective(&x, &gamma, go), &go, &[1.0]),
    );
    // Forward derivative of layer_norm itself.
    let forward = |v: &[f64]| -> Vec<f64> {
        let (x, w, b) = (&v[..6], &v[6..9], &v[9..12]);
        x.chunks(3)
            .flat_map(|row| {
                let mean = row.iter().sum::<f64>() / 3.0;
                let rstd =
                    1.0 / (row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 3.0 + EPS).sqrt();
                (0..3).map(move |j| (row[j] - mean) * rstd * w[j] + b[j])
            })
            .collect()
    };
    let bias = [0.1, 0.2, 0.3];
    let (tangent_x, tangent_w, tangent_b) = (values(6, 7), [0.5, -1.0, 0.2], [1.0, 0.0, -1.0]);
    let point: Vec<f64> = [&x[..], &gamma, &bias].concat();
    let direction: Vec<f64> = [&tangent_x[..], &tangent_w, &tangent_b].concat();
    let jvp = layer_norm_jvp(
        &t(&[2, 3], &x),
        &t(&[2, 3], &tangent_x),
        Some(&TT::vec(&gamma)),
        Some(&TT::vec(&tangent_w)),
        Some(&TT::vec(&bias)),
        Some(&TT::vec(&tangent_b)),
        &mean,
        &rstd,
        &[3],
    )
    .expect("jvp");
    assert_close(&jvp.values(), &numeric_jvp(forward, &point, &direction));
}

#[test]
fn batch_and_group_norm_forward_derivatives_match_finite_differences() {
    setup();
    let (x, tx) = (values(12, 8), values(12, 9));
    let (w, tw, b, tb) = ([1.5, -0.5], [0.2, 1.0], [0.3, 0.0], [-1.0, 0.5]);
    let forward = |v: &[f64]| -> Vec<f64> {
        let (x, w, b) = (&v[..12], &v[12..14], &v[14..16]);
        let mut y = vec![0.0; 12];
        for c in 0..2 {
            let idx = channel(c, 2, 2, 3);
            let mean = idx.iter().map(|&p| x[p]).sum::<f64>() / 6.0;
            let invstd =
                1.0 / (idx.iter().map(|&p| (x[p] - mean).powi(2)).sum::<f64>() / 6.0 + EPS).sqrt();
            for &p in &idx {
                y[p] = (x[p] - mean) * invstd * w[c] + b[c];
            }
        }
        y
    };
    let mean: Vec<f64> = (0..2)
        .map(|c| channel(c, 2, 2, 3).iter().map(|&p| x[p]).sum::<f64>() / 6.0)
        .collect();
    let invstd: Vec<f64> = (0..2)
        .map(|c| {
            1.0 / (channel(c, 2, 2, 3)
                .iter()
                .map(|&p| (x[p] - mean[c]).powi(2))
                .sum::<f64>()
                / 6.0
                + EPS)
                .sqrt()
        })
        .collect();
    let jvp = batch_norm_jvp(
        &t(&[2, 2, 3], &x),
        &t(&[2, 2, 3], &tx),
        Some(&TT::vec(&w)),
        Some(&TT::vec(&tw)),
        Some(&TT::vec(&b)),
        Some(&TT::vec(&tb)),
        None,
        None,
        &TT::vec(&mean),
        &TT::vec(&invstd),
        true,
        EPS,
    )
    .expect("jvp");
    let point: Vec<f64> = [&x[..], &w, &b].concat();
    let direction: Vec<f64> = [&tx[..], &tw, &tb].concat();
    assert_close(&jvp.values(), &numeric_jvp(forward, &point, &direction));
    // Group norm of a [1, 4, 2] input in 2 groups of 2 channels: statistics over 4 values.
    let (gx, gt) = (values(8, 10), values(8, 11));
    let group_stats = |x: &[f64]| -> Vec<(f64, f64)> {
        x.chunks(4)
            .map(|g| {
                let mean = g.iter().sum::<f64>() / 4.0;
                (
                    mean,
                    1.0 / (g.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 4.0 + EPS).sqrt(),
                )
            })
            .collect()
    };
    let stats = group_stats(&gx);
    let (mean_t, invstd_t) = (
        t(&[1, 2], &[stats[0].0, stats[1].0]),
        t(&[1, 2], &[stats[0].1, stats[1].1]),
    );
    let no_affine = group_norm_jvp(
        &t(&[1, 4, 2], &gx),
        &t(&[1, 4, 2], &gt),
        None,
        None,
        None,
        None,
        &mean_t,
        &invstd_t,
        2,
    )
    .expect("group");
    let normalized = |x: &[f64]| -> Vec<f64> {
        let s = group_stats(x);
        x.iter()
            .enumerate()
            .map(|(i, v)| (v - s[i / 4].0) * s[i / 4].1)
            .collect()
    };
    assert_close(&no_affine.values(), &numeric_jvp(normalized, &gx, &gt));
    let mean_jvp = group_norm_mean_jvp(&t(&[1, 4, 2], &gt), &mean_t, 2).expect("mean");
    assert_close(
        &mean_jvp.values(),
        &numeric_jvp(|x| group_stats(x).iter().map(|s| s.0).collect(), &gx, &gt),
    );
    let invstd_jvp = group_norm_invstd_jvp(
        &t(&[1, 4, 2], &gx),
        &t(&[1, 4, 2], &gt),
        &mean_t,
        &invstd_t,
        2,
    )
    .expect("invstd");
    assert_close(
        &invstd_jvp.values(),
        &numeric_jvp(|x| group_stats(x).iter().map(|s| s.1).collect(), &gx, &gt),
    );
}

#[test]
fn rms_norm_derivatives_match_finite_differences() {
    setup();
    let (x, tx, w, tw) = (
        values(6, 12),
        values(6, 13),
        [0.5, 2.0, -1.0],
        [1.0, -0.5, 0.25],
    );
    let rstd_of = |x: &[f64]| -> Vec<f64> {
        x.chunks(3)
            .map(|r| 1.0 / (r.iter().map(|v| v * v).sum::<f64>() / 3.0 + EPS).sqrt())
            .collect()
    };
    let forward = |v: &[f64]| -> Vec<f64> {
        let (x, w) = (&v[..6], &v[6..9]);
        let r = rstd_of(x);
        (0..6).map(|i| x[i] * r[i / 3] * w[i % 3]).collect()
    };
    let rstd = t(&[2, 1], &rstd_of(&x));
    let jvp = rms_norm_jvp(
        &t(&[2, 3], &x),
        &t(&[2, 3], &tx),
        Some(&TT::vec(&w)),
        Some(&TT::vec(&tw)),
        &rstd,
        &[3],
    )
    .expect("jvp");
    let (point, direction): (Vec<f64>, Vec<f64>) = ([&x[..], &w].concat(), [&tx[..], &tw].concat());
    assert_close(&jvp.values(), &numeric_jvp(forward, &point, &direction));
    let rstd_jvp = rms_norm_rstd_jvp(&t(&[2, 3], &x), &t(&[2, 3], &tx), &rstd, &[3]).expect("rstd");
    assert_close(&rstd_jvp.values(), &numeric_jvp(rstd_of, &x, &tx));
    // The backward from the gradients of the output and of rstd.
    let (dy, drstd) = (values(6, 14), [0.7, -0.3]);
    let objective = |x: &[f64], w: &[f64]| {
        let y: Vec<f64> = forward(&[x, w].concat());
        vec![dot(&y, &dy) + dot(&rstd_of(x), &drstd)]
    };
    let (dx, dw) = infinitely_differentiable_native_rms_norm_backward(
        Some(&t(&[2, 3], &dy)),
        Some(&t(&[2, 1], &drstd)),
        &t(&[2, 3], &x),
        &[3],
        &rstd,
        Some(&TT::vec(&w)),
        [true, true],
    )
    .expect("rms backward");
    assert_close(
        &dx.expect("input").values(),
        &numeric_vjp(|x| objective(x, &w), &x, &[1.0]),
    );
    let weight_only = |w: &[f64]| vec![dot(&forward(&[&x[..], w].concat()), &dy)];
    assert_close(
        &dw.expect("weight").values(),
        &numeric_vjp(weight_only, &w, &[1.0]),
    );
}

/// Group norm in plain Rust: `(y, mean, rstd)` of `x` (N, C, HxW) with `group` groups and
/// per-channel `gamma`, flattened.
fn group_norm(x: &[f64], gamma: &[f64], n: usize, c: usize, hxw: usize, group: usize) -> Vec<f64> {
    let (d, eps) = (c / group * hxw, 1e-5);
    let mut y = vec![0.0; x.len()];
    let (mut means, mut rstds) = (Vec::new(), Vec::new());
    for b in 0..n {
        for g in 0..group {
            let start = b * c * hxw + g * d;
            let xs = &x[start..start + d];
            let mean = xs.iter().sum::<f64>() / d as f64;
            let var = xs.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / d as f64;
            let rstd = 1.0 / (var + eps).sqrt();
            for (k, v) in xs.iter().enumerate() {
                let channel = (g * d + k) / hxw;
                y[start + k] = (v - mean) * rstd * gamma[channel];
            }
            means.push(mean);
            rstds.push(rstd);
        }
    }
    [y, means, rstds].concat()
}

#[test]
fn group_norm_derivatives_from_the_output_mean_and_rstd_match_finite_differences() {
    setup();
    let (n, c, hxw, group) = (2, 4, 3, 2);
    let x: Vec<f64> = (0..n * c * hxw)
        .map(|i| ((i * 7 + 3) % 11) as f64 / 5.0 - 1.0)
        .collect();
    let gamma = [0.5, -1.5, 2.0, 1.0];
    let dy: Vec<f64> = (0..x.len())
        .map(|i| ((i * 5 + 1) % 7) as f64 / 3.0 - 1.0)
        .collect();
    let (dmean, drstd) = ([0.3, -0.2, 0.5, 0.1], [0.05, -0.1, 0.02, 0.07]);
    let out = group_norm(&x, &gamma, n, c, hxw, group);
    let g = n * group;
    let (mean, rstd) = (&out[x.len()..x.len() + g], &out[x.len() + g..]);
    let shape = [n as i64, c as i64, hxw as i64];
    let stats = |v: &[f64]| TT::new(&[n as i64, group as i64], v.to_vec());
    let (gx, ggamma, gbeta) = native_group_norm_backward_dispatcher(
        Some(&TT::new(&shape, dy.clone())),
        Some(&stats(&dmean)),
        Some(&stats(&drstd)),
        &TT::new(&shape, x.clone()),
        &stats(mean),
        &stats(rstd),
        Some(&TT::vec(&gamma)),
        n as i64,
        c as i64,
        hxw as i64,
        group as i64,
        [true, true, true],
    )
    .expect("group norm backward");
    let upstream = [dy.clone(), dmean.to_vec(), drstd.to_vec()].concat();
    assert_close(
        &gx.expect("input").values(),
        &numeric_vjp(|x| group_norm(x, &gamma, n, c, hxw, group), &x, &upstream),
    );
    assert_close(
        &ggamma.expect("weight").values(),
        &numeric_vjp(|w| group_norm(&x, w, n, c, hxw, group), &gamma, &upstream),
    );
    let per_channel: Vec<f64> = (0..c)
        .map(|ch| {
            (0..n)
                .map(|b| dy[b * c * hxw + ch * hxw..][..hxw].iter().sum::<f64>())
                .sum()
        })
        .collect();
    assert_close(&gbeta.expect("bias").values(), &per_channel);
}
