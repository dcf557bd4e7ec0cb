//! Derivatives of matrix products, solves, factorizations and matrix functions, against
//! finite differences of plain-Rust references.

use super::nd::{mat_mul, solve, solve_triangular, transpose2};
use super::*;

fn mat(rows: &[&[f64]]) -> TT {
    let n = rows.len() as i64;
    TT::new(&[n, rows[0].len() as i64], rows.concat())
}

fn as_rows(x: &[f64], n: usize) -> Vec<Vec<f64>> {
    x.chunks(n).map(<[f64]>::to_vec).collect()
}

fn inverse(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    let eye: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect())
        .collect();
    solve(a, &eye)
}

fn cholesky(a: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let n = a.len();
    let mut l = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i][k] * l[j][k]).sum();
            l[i][j] = if i == j {
                (a[i][i] - s).sqrt()
            } else {
                (a[i][j] - s) / l[j][j]
            };
        }
    }
    l
}

fn flat(x: &[Vec<f64>]) -> Vec<f64> {
    x.concat()
}

#[test]
fn mm_and_matmul_backward() {
    setup();
    let (a, b) = (
        m(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        m(3, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
    );
    let g = m(2, 2, &[1.0, 1.0, 1.0, 1.0]);
    let strided = Layout::Strided;
    let ga = mm_mat1_backward(&g, &b, &[2, 3], &[3, 1], strided, Scalar::Int(1)).expect("mat1");
    assert_eq!(ga.values(), [1.0, 1.0, 2.0, 1.0, 1.0, 2.0]);
    let gb = mm_mat2_backward(&g, &a, &[3, 2], &[2, 1], strided, Scalar::Int(2)).expect("mat2");
    assert_eq!(gb.values(), [10.0, 10.0, 14.0, 14.0, 18.0, 18.0]);
    // The column-major shortcut gives the same values.
    let ga_col = mm_mat1_backward(&g, &b, &[2, 3], &[1, 2], strided, Scalar::Int(1)).expect("mat1");
    assert_eq!(ga_col.values(), ga.values());
    let (gs, go) = matmul_backward(Some(&g), &a, &b, [true, true]).expect("matmul");
    assert_eq!(gs.expect("self").values(), ga.values());
    assert_eq!(go.expect("other").values(), [5.0, 5.0, 7.0, 7.0, 9.0, 9.0]);
    // Matrix times vector: the vector's gradient is a vector again.
    let v = TT::vec(&[1.0, 1.0, 1.0]);
    let (_, gv) =
        matmul_backward(Some(&TT::vec(&[1.0, 1.0])), &a, &v, [false, true]).expect("matmul");
    let gv = gv.expect("vector");
    assert_eq!(
        (gv.shape(), gv.values()),
        (&[3i64][..], vec![5.0, 7.0, 9.0])
    );
    assert!(
        matmul_backward::<TT>(None, &a, &b, [true, true])
            .expect("none")
            .0
            .is_none()
    );
}

#[test]
fn pinv_backward_matches_finite_differences() {
    setup();
    let g = [1.0, 2.0, 3.0, 4.0, -1.0, 0.5];
    // Square and invertible: pinv is the inverse.
    let a = [2.0, 1.0, 1.0, 3.0];
    let inv = |a: &[f64]| flat(&inverse(&as_rows(a, 2)));
    let got = pinv_backward(
        &TT::new(&[2, 2], g[..4].to_vec()),
        &TT::new(&[2, 2], inv(&a)),
        &TT::new(&[2, 2], a.to_vec()),
    );
    assert_close(&got.expect("pinv").values(), &numeric_vjp(inv, &a, &g[..4]));
    // Wide (full row rank): pinv(A) = Aᵀ (A Aᵀ)⁻¹, [3, 2].
    let wide = [1.0, 2.0, 0.0, -1.0, 1.0, 3.0];
    let pinv_wide = |a: &[f64]| {
        let a = as_rows(a, 3);
        flat(&mat_mul(
            &transpose2(&a),
            &inverse(&mat_mul(&a, &transpose2(&a))),
        ))
    };
    let got = pinv_backward(
        &TT::new(&[3, 2], g.to_vec()),
        &TT::new(&[3, 2], pinv_wide(&wide)),
        &TT::new(&[2, 3], wide.to_vec()),
    );
    assert_close(
        &got.expect("pinv").values(),
        &numeric_vjp(pinv_wide, &wide, &g),
    );
    // Tall (full column rank): pinv(A) = (Aᵀ A)⁻¹ Aᵀ, [2, 3].
    let pinv_tall = |a: &[f64]| {
        let a = as_rows(a, 2);
        flat(&mat_mul(
            &inverse(&mat_mul(&transpose2(&a), &a)),
            &transpose2(&a),
        ))
    };
    let got = pinv_backward(
        &TT::new(&[2, 3], g.to_vec()),
        &TT::new(&[2, 3], pinv_tall(&wide)),
        &TT::new(&[3, 2], wide.to_vec()),
    );
    assert_close(
        &got.expect("pinv").values(),
        &numeric_vjp(pinv_tall, &wide, &g),
    );
}

#[test]
fn cholesky_derivatives_match_finite_differences() {
    setup();
    let a = vec![
        vec![4.0, 2.0, 0.6],
        vec![2.0, 5.0, 1.0],
        vec![0.6, 1.0, 3.0],
    ];
    let l = cholesky(&a);
    let gl = [1.0, 0.0, 0.0, -0.5, 2.0, 0.0, 0.3, 0.7, -1.2];
    let ga = cholesky_backward(
        &TT::new(&[3, 3], gl.to_vec()),
        false,
        &TT::new(&[3, 3], flat(&l)),
    )
    .expect("chol")
    .values();
    // Perturbing A_ij below the diagonal (PyTorch reads the lower triangle) changes both
    // A_ij and A_ji of the symmetric gradient.
    let from_lower = |x: &[f64]| {
        let mut m = as_rows(x, 3);
        for i in 0..3 {
            for j in i + 1..3 {
                m[i][j] = m[j][i];
            }
        }
        flat(&cholesky(&m))
    };
    let fd = numeric_vjp(from_lower, &flat(&a), &gl);
    for i in 0..3 {
        for j in 0..i {
            assert_close(&[ga[i * 3 + j] + ga[j * 3 + i]], &[fd[i * 3 + j]]);
        }
        assert_close(&[ga[i * 4]], &[fd[i * 4]]);
    }
    // The upper form: U = Lᵀ, gradient of U.
    let gu = transpose2(&as_rows(&gl, 3));
    let ga_upper = cholesky_backward(
        &TT::new(&[3, 3], flat(&gu)),
        true,
        &TT::new(&[3, 3], flat(&transpose2(&l))),
    )
    .expect("upper");
    assert_close(&ga_upper.values(), &ga);
    // cholesky_inverse(L) = (L Lᵀ)⁻¹, differentiated in every entry of L.
    let inv_of = |x: &[f64]| {
        let l = as_rows(x, 3);
        flat(&inverse(&mat_mul(&l, &transpose2(&l))))
    };
    let g = [1.0, 0.5, -0.2, 0.0, 2.0, 1.0, 0.3, -1.0, 0.4];
    let x = TT::new(&[3, 3], inv_of(&flat(&l)));
    let got = cholesky_inverse_backward(
        Some(&TT::new(&[3, 3], g.to_vec())),
        &TT::new(&[3, 3], flat(&l)),
        false,
        &x,
    );
    assert_close(
        &got.expect("inverse").expect("defined").values(),
        &numeric_vjp(inv_of, &flat(&l), &g),
    );
    // cholesky_solve(B, L) = (L Lᵀ)⁻¹ B.
    let b = [1.0, 2.0, -1.0];
    let solve_of = |l: &[f64], b: &[f64]| {
        let l = as_rows(l, 3);
        flat(&solve(&mat_mul(&l, &transpose2(&l)), &as_rows(b, 1)))
    };
    let result = TT::new(&[3, 1], solve_of(&flat(&l), &b));
    let gx = [0.5, -1.0, 2.0];
    let (gb, gl2) = cholesky_solve_backward(
        Some(&TT::new(&[3, 1], gx.to_vec())),
        &TT::new(&[3, 1], b.to_vec()),
        &TT::new(&[3, 3], flat(&l)),
        &result,
        false,
        [true, true],
    )
    .expect("solve");
    assert_close(
        &gb.expect("b").values(),
        &numeric_vjp(|b| solve_of(&flat(&l), b), &b, &gx),
    );
    assert_close(
        &gl2.expect("l").values(),
        &numeric_vjp(|l| solve_of(l, &b), &flat(&l), &gx),
    );
}

#[test]
fn triangular_solve_derivatives_match_finite_differences() {
    setup();
    let a = [2.0, 0.0, 0.0, 1.0, 3.0, 0.0, -1.0, 0.5, 4.0];
    let b = [1.0, 2.0, 0.0, -1.0, 3.0, 1.0];
    let g = [1.0, -1.0, 0.5, 2.0, 0.0, 1.5];
    let x_of = |a: &[f64], b: &[f64]| {
        flat(&solve_triangular(
            &as_rows(a, 3),
            &as_rows(b, 2),
            false,
            false,
        ))
    };
    let x = TT::new(&[3, 2], x_of(&a, &b));
    let (at, bt, gt) = (
        TT::new(&[3, 3], a.to_vec()),
        TT::new(&[3, 2], b.to_vec()),
        TT::new(&[3, 2], g.to_vec()),
    );
    let (ga, gb) =
        linalg_solve_triangular_backward(Some(&gt), &at, &x, false, true, false, [true, true])
            .expect("solve");
    let mut fd_a = numeric_vjp(|a| x_of(a, &b), &a, &g);
    for i in 0..3 {
        for j in i + 1..3 {
            fd_a[i * 3 + j] = 0.0; // the upper triangle is not read
        }
    }
    assert_close(&ga.expect("a").values(), &fd_a);
    let gb = gb.expect("b").values();
    assert_close(&gb, &numeric_vjp(|b| x_of(&a, b), &b, &g));
    let (none, only_b) =
        linalg_solve_triangular_backward(Some(&gt), &at, &x, false, true, false, [false, true])
            .expect("mask");
    assert!(none.is_none() && only_b.is_some());
    // triangular_solve(b, A, upper=false): the same, plus the gradient of the copy of A.
    let gm = TT::new(&[3, 3], vec![1.0; 9]);
    let (gb2, ga2) = triangular_solve_backward(
        Some(&gt),
        Some(&gm),
        &bt,
        &at,
        &x,
        false,
        false,
        false,
        [true, true],
    )
    .expect("triangular");
    assert_close(&gb2.expect("b").values(), &gb);
    let expected: Vec<f64> = fd_a.iter().map(|v| v + 1.0).collect();
    assert_close(&ga2.expect("a").values(), &expected);
}

#[test]
fn decomposition_shortcuts_and_lu_unpack_backward() {
    setup();
    // svdvals: gA = U diag(gS) Vh.
    let u = mat(&[&[0.6, 0.8], &[-0.8, 0.6]]);
    let vh = mat(&[&[0.0, 1.0], &[1.0, 0.0]]);
    let (s, gs) = (TT::vec(&[3.0, 1.0]), TT::vec(&[2.0, -1.0]));
    let ga = svd_backward(None, Some(&gs), None, &u, &s, &vh)
        .expect("svd")
        .expect("defined");
    assert_close(&ga.values(), &[-0.8, 1.2, -0.6, -1.6]);
    assert!(
        svd_backward::<TT>(None, None, None, &u, &s, &vh)
            .expect("svd")
            .is_none()
    );
    // eigvalsh: gA = V diag(gL) Vᵀ.
    let ga = linalg_eig_backward(Some(&gs), None, &s, &u, true, true)
        .expect("eigh")
        .expect("defined");
    assert_close(&ga.values(), &[0.08, -1.44, -1.44, 0.92]);
    let err = linalg_eig_backward(Some(&gs), None, &s, &u, true, false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("torch.symeig(A, eigenvectors=False) is not differentiable"),
        "{err}"
    );
    // lu_unpack of a square matrix: strict lower part from L's gradient, upper from U's.
    let (gl, gu) = (
        mat(&[&[1.0, 2.0], &[3.0, 4.0]]),
        mat(&[&[5.0, 6.0], &[7.0, 8.0]]),
    );
    let g = lu_unpack_backward(Some(&gl), Some(&gu), 2, 2)
        .expect("lu_unpack")
        .expect("defined");
    assert_eq!(g.values(), [5.0, 6.0, 3.0, 8.0]);
    let tall = lu_unpack_backward(
        Some(&mat(&[&[1.0, 2.0], &[3.0, 4.0], &[5.0, 6.0]])),
        None,
        3,
        2,
    )
    .expect("tall");
    assert_eq!(
        tall.expect("defined").values(),
        [0.0, 0.0, 3.0, 0.0, 5.0, 6.0]
    );
}

#[test]
fn matrix_exp_and_linear_and_distance_derivatives() {
    setup();
    let a = [0.1, 0.4, -0.3, 0.2];
    let exp_of = |a: &[f64]| {
        let m = as_rows(a, 2);
        let (mut result, mut term) = (
            vec![vec![1.0, 0.0], vec![0.0, 1.0]],
            vec![vec![1.0, 0.0], vec![0.0, 1.0]],
        );
        for k in 1..40 {
            term = mat_mul(&term, &m)
                .into_iter()
                .map(|r| r.into_iter().map(|x| x / f64::from(k)).collect())
                .collect();
            result = result
                .iter()
                .zip(&term)
                .map(|(r, t)| r.iter().zip(t).map(|(x, y)| x + y).collect())
                .collect();
        }
        flat(&result)
    };
    let g = [1.0, -2.0, 0.5, 3.0];
    let got = linalg_matrix_exp_differential(
        &TT::new(&[2, 2], a.to_vec()),
        &TT::new(&[2, 2], g.to_vec()),
        true,
    );
    assert_close(&got.expect("exp").values(), &numeric_vjp(exp_of, &a, &g));
    // linear_backward's three results from (self, grad_output, weight): gO W, gOᵀ self, Σ gO.
    let (x, go, w) = (
        [1.0, 2.0, -1.0, 0.5],
        [0.3, -0.7, 1.1, 0.2, 0.0, 1.0],
        [1.0, 0.0, -1.0, 2.0, 0.5, 1.5],
    );
    let (g0, g1, g2) = (
        [0.1, 0.2, 0.3, 0.4],
        [1.0, -1.0, 0.5, 0.5, 2.0, 0.0],
        [0.5, -0.5, 1.0],
    );
    // self [2, 2], grad_output [2, 3], weight [3, 2].
    let objective = |x: &[f64], go: &[f64], w: &[f64]| {
        let gi = flat(&mat_mul(&as_rows(go, 3), &as_rows(w, 2)));
        let gw = flat(&mat_mul(&transpose2(&as_rows(go, 3)), &as_rows(x, 2)));
        let gb: Vec<f64> = (0..3).map(|c| go[c] + go[3 + c]).collect();
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        vec![dot(&gi, &g0) + dot(&gw, &g1) + dot(&gb, &g2)]
    };
    let grads = [
        Some(TT::new(&[2, 2], g0.to_vec())),
        Some(TT::new(&[3, 2], g1.to_vec())),
        Some(TT::vec(&g2)),
    ];
    let (gx, ggo, gw) = linear_double_backward(
        &grads,
        &TT::new(&[2, 2], x.to_vec()),
        Some(&TT::new(&[2, 3], go.to_vec())),
        &TT::new(&[3, 2], w.to_vec()),
    )
    .expect("linear");
    assert_close(
        &gx.expect("self").values(),
        &numeric_vjp(|x| objective(x, &go, &w), &x, &[1.0]),
    );
    assert_close(
        &ggo.expect("grad_output").values(),
        &numeric_vjp(|go| objective(&x, go, &w), &go, &[1.0]),
    );
    assert_close(
        &gw.expect("weight").values(),
        &numeric_vjp(|w| objective(&x, &go, w), &w, &[1.0]),
    );
    // _euclidean_dist between the rows of x1 [2, 2] and x2 [2, 2].
    let dist = |x1: &[f64], x2: &[f64]| -> Vec<f64> {
        (0..2)
            .flat_map(|i| {
                (0..2).map(move |j| {
                    ((x1[2 * i] - x2[2 * j]).powi(2) + (x1[2 * i + 1] - x2[2 * j + 1]).powi(2))
                        .sqrt()
                })
            })
            .collect()
    };
    let (x1, x2, gd) = (
        [0.0, 1.0, 2.0, -1.0],
        [1.0, 1.0, 0.5, 3.0],
        [1.0, 2.0, -1.0, 0.5],
    );
    let res = TT::new(&[2, 2], dist(&x1, &x2));
    let (g1, g2) = _euclidean_dist_backward(
        Some(&TT::new(&[2, 2], gd.to_vec())),
        &TT::new(&[2, 2], x1.to_vec()),
        &TT::new(&[2, 2], x2.to_vec()),
        &res,
    )
    .expect("dist");
    assert_close(
        &g1.expect("x1").values(),
        &numeric_vjp(|x1| dist(x1, &x2), &x1, &gd),
    );
    assert_close(
        &g2.expect("x2").values(),
        &numeric_vjp(|x2| dist(&x1, x2), &x2, &gd),
    );
}
