//! A generated backward node saves only what its formulas use, for the gradients that are
//! needed (torchgen's `saved_variables` and `should_compute_output`), and frees it after
//! `backward`: `mul` keeps the operand the other one's gradient needs, `exp` and `relu`
//! keep their result, not their input.

use opgen::autograd::{AutogradTensor, backward};

use crate::MiniTensor;
use crate::ops::{try_add, try_exp, try_mul, try_relu, try_sum};

/// A tensor that requires grad and is not a leaf (a leaf is also held by its accumulator).
fn input(values: &[f64]) -> MiniTensor {
    let leaf = MiniTensor::from_vec(values.to_vec(), &[values.len() as i64]).unwrap();
    leaf.set_requires_grad(true).unwrap();
    leaf.try_clone().unwrap()
}

fn constant(values: &[f64]) -> MiniTensor {
    MiniTensor::from_vec(values.to_vec(), &[values.len() as i64]).unwrap()
}

#[test]
fn mul_saves_the_operand_the_other_gradient_needs() {
    let (a, b) = (input(&[1.0, 2.0]), constant(&[3.0, 4.0]));
    let (ha, hb) = (a.handles(), b.handles());
    // `self: mul_tensor_backward(grad, other, ...)`: only `other` is kept when only `self`
    // requires grad.
    let y = try_mul(&a, &b).unwrap();
    assert_eq!((a.handles(), b.handles()), (ha, hb + 1));
    let z = try_mul(&b, &a).unwrap();
    assert_eq!((a.handles(), b.handles()), (ha, hb + 2));
    // Both require grad: both are kept.
    let c = input(&[5.0, 6.0]);
    let hc = c.handles();
    let w = try_mul(&a, &c).unwrap();
    assert_eq!((a.handles(), c.handles()), (ha + 1, hc + 1));
    let s = try_sum(&try_add(&try_add(&y, &z).unwrap(), &w).unwrap()).unwrap();
    backward(&[s], &[], None, false).unwrap();
    // Freed once the graph ran.
    assert_eq!((a.handles(), b.handles(), c.handles()), (ha, hb, hc));
}

#[test]
fn exp_and_relu_keep_their_result_not_their_input() {
    crate::install().unwrap();
    let a = input(&[-1.0, 2.0]);
    let ha = a.handles();
    let e = try_exp(&a).unwrap();
    let r = try_relu(&a).unwrap();
    assert_eq!(a.handles(), ha);
    // The result is kept as another handle to its data, without its autograd state (the
    // output itself is not held by its own node): writing it in place is caught.
    assert_eq!((e.handles(), r.handles()), (1, 1));
    let mut r2 = r.share();
    r2.try_mul_(&constant(&[2.0])).unwrap();
    let s = try_sum(&try_add(&e, &r).unwrap()).unwrap();
    let err = backward(&[s], &[], None, false).unwrap_err().to_string();
    assert!(
        err.contains(
            "which is output 0 of ReluBackward0, is at version 1; expected version 0 instead"
        ),
        "{err}"
    );
}
