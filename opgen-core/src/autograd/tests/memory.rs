//! A node saves only what its formulas use, and frees it after `backward`.

use super::ops::ops;
use super::tensor::TT;
use crate::autograd::backward;

/// A tensor that requires grad and is not a leaf (a leaf is also held by its accumulator).
fn input(values: &[f64]) -> TT {
    ops().clone.call(&TT::param(values))
}

#[test]
fn mul_saves_the_operand_the_other_gradient_needs() {
    let o = ops();
    let (a, b) = (input(&[1.0, 2.0]), TT::vec(&[3.0, 4.0]));
    let (ha, hb) = (a.handles(), b.handles());
    // `self: grad * other`: only `other` is saved when only `self` requires grad.
    let y = o.mul.call(&a, &b);
    assert_eq!((a.handles(), b.handles()), (ha, hb + 1));
    let z = o.mul.call(&b, &a);
    assert_eq!((a.handles(), b.handles()), (ha, hb + 2));
    // Both operands require grad: both are saved.
    let c = input(&[5.0, 6.0]);
    let hc = c.handles();
    let w = o.mul.call(&a, &c);
    assert_eq!((a.handles(), c.handles()), (ha + 1, hc + 1));
    let s = o.sum.call(&o.add.call(&o.add.call(&y, &z), &w));
    backward(&[s], &[], None, false).expect("backward");
    // Freed once the graph ran.
    assert_eq!((a.handles(), b.handles(), c.handles()), (ha, hb, hc));
}

#[test]
fn exp_and_relu_save_their_result_not_their_input() {
    let o = ops();
    let a = input(&[-1.0, 2.0]);
    let ha = a.handles();
    let e = o.exp.call(&a);
    let r = o.relu.call(&a);
    assert_eq!(a.handles(), ha);
    // The result is saved without its autograd state, as a second handle to its data: the
    // output itself is not held by its own node.
    assert_eq!((e.handles(), r.handles()), (1, 1));
    let s = o.sum.call(&o.add.call(&e, &r));
    backward(&[s], &[], None, false).expect("backward");
}

#[test]
fn sum_saves_only_the_sizes() {
    let o = ops();
    let a = input(&[1.0, 2.0, 3.0]);
    let ha = a.handles();
    let s = o.sum.call(&a);
    assert_eq!(a.handles(), ha);
    backward(&[s], &[], None, false).expect("backward");
}
