//! The example's operators with their generated Autograd kernels: gradients, gradcheck.

use opgen::autograd::{AutogradTensor, backward};
use opgen::testing::{GradcheckOptions, gradcheck};

use crate::MiniTensor;
use crate::ops;

fn doubles(values: &[f64], sizes: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(values.to_vec(), sizes).expect("a tensor")
}

fn leaf(values: &[f64], sizes: &[i64]) -> MiniTensor {
    let t = doubles(values, sizes);
    t.set_requires_grad(true).expect("requires_grad");
    t
}

#[test]
fn smoke_mul_exp() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let w = doubles(&[3.0, -4.0], &[2]);
    let y = ops::try_mul(&x, &w).unwrap();
    assert_eq!(y.grad_fn().map(|n| n.name()), Some("MulBackward0"));
    let e = ops::try_exp(&y).unwrap();
    assert_eq!(e.grad_fn().map(|n| n.name()), Some("ExpBackward0"));
    backward(
        &[e.share()],
        &[Some(doubles(&[1.0, 1.0], &[2]))],
        None,
        false,
    )
    .unwrap();
    let g = x.grad().unwrap().to_vec::<f64>().unwrap();
    let expect = [3.0 * (3.0f64).exp(), -4.0 * (-8.0f64).exp()];
    assert!(
        (g[0] - expect[0]).abs() < 1e-9 && (g[1] - expect[1]).abs() < 1e-12,
        "{g:?}"
    );
    gradcheck(
        |t| Ok(vec![ops::try_exp(&ops::try_mul(&t[0], &t[1])?)?]),
        &[x, leaf(&[0.5, 0.25], &[2])],
        GradcheckOptions::default(),
    )
    .unwrap();
}

#[test]
fn smoke_inplace_out_view() {
    crate::install().unwrap();
    let x = leaf(&[1.0, 2.0], &[2]);
    let w = doubles(&[3.0, -4.0], &[2]);
    let mut a = ops::try_neg(&x).unwrap();
    a.try_mul_(&w).unwrap();
    assert_eq!(a.grad_fn().map(|n| n.name()), Some("MulBackward0"));
    a.try_exp_().unwrap();
    assert_eq!(a.grad_fn().map(|n| n.name()), Some("ExpBackward0"));
    backward(
        &[a.share()],
        &[Some(doubles(&[1.0, 1.0], &[2]))],
        None,
        false,
    )
    .unwrap();
    let g = x.grad().unwrap().to_vec::<f64>().unwrap();
    let expect = [-3.0 * (-3.0f64).exp(), 4.0 * (8.0f64).exp()];
    assert!(
        (g[0] - expect[0]).abs() < 1e-9 && (g[1] - expect[1]).abs() < 1e-6,
        "{g:?} {expect:?}"
    );
    let mut out = doubles(&[0.0, 0.0], &[2]);
    let err = ops::try_mul_out(&mut out, &x, &w).unwrap_err().to_string();
    assert!(err.starts_with("mul(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."), "{err}");
    let m = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let t = ops::try_transpose(&m, 0, 1).unwrap();
    assert_eq!(t.grad_fn().map(|n| n.name()), Some("TransposeBackward0"));
    assert!(t.is_view());
    gradcheck(
        |t| Ok(vec![ops::try_transpose(&t[0], 0, 1)?]),
        &[m],
        GradcheckOptions::default(),
    )
    .unwrap();
}
