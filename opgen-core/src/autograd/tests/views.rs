//! Views in the graph and in-place operations on them (`CopySlices`).

use super::ops::ops;
use super::tensor::TT;
use crate::autograd::{AutogradTensor, NoGradGuard, backward};

fn g(t: &TT) -> Vec<f64> {
    t.grad().expect("a gradient").values()
}

fn name(t: &TT) -> String {
    t.grad_fn()
        .map(|n| n.name().to_string())
        .unwrap_or_default()
}

#[test]
fn a_view_has_the_view_operator_as_grad_fn() {
    let o = ops();
    let x = TT::param(&[1.0, 2.0, 3.0, 4.0]);
    let v = o.narrow.call(&x, 1, 2);
    assert!(v.is_view() && v.view_base().is_some_and(|b| b.same(&x)));
    assert_eq!(name(&v), "NarrowBackward0");
    backward(&[o.sum.call(&v)], &[], None, false).expect("backward");
    assert_eq!(g(&x), [0.0, 1.0, 1.0, 0.0]);
    // A view of a view keeps the root as its base.
    let vv = o.narrow.call(&v, 1, 1);
    assert!(vv.view_base().is_some_and(|b| b.same(&x)));
    assert_eq!(vv.values(), [3.0]);
}

#[test]
fn in_place_on_a_view_rewrites_the_base_history() {
    let o = ops();
    let (x, w) = (TT::param(&[1.0, 2.0, 3.0, 4.0]), TT::param(&[10.0, 20.0]));
    let b = o.clone.call(&x);
    let mut v = o.narrow.call(&b, 1, 2);
    o.mul_.call(&mut v, &w);
    assert_eq!(b.values(), [1.0, 20.0, 60.0, 4.0]);
    assert_eq!(name(&b), "CopySlices");
    // The view's grad_fn is the view replayed on the base's new history.
    let vf = v.grad_fn().expect("grad_fn");
    assert_eq!(vf.name(), "NarrowBackward0");
    let next = vf.next_edges()[0].as_ref().expect("edge");
    assert_eq!(next.node.name(), "CopySlices");
    // d sum(b) / dx: 1 outside the view, w inside; d/dw: the view's old values.
    backward(&[o.sum.call(&b)], &[], None, false).expect("backward");
    assert_eq!(g(&x), [1.0, 10.0, 20.0, 1.0]);
    assert_eq!(g(&w), [2.0, 3.0]);
}

#[test]
fn in_place_with_an_input_that_requires_grad_gives_history() {
    let o = ops();
    // `a` has no autograd state until the in-place operation gives it a `grad_fn`.
    let mut a = TT::vec(&[1.0, 2.0]);
    let w = TT::param(&[3.0, 4.0]);
    assert!(!a.requires_grad());
    o.mul_.call(&mut a, &w);
    assert!(a.requires_grad() && !a.is_leaf());
    assert_eq!(name(&a), "MulBackward0");
    backward(&[o.sum.call(&a)], &[], None, false).expect("backward");
    assert_eq!(g(&w), [1.0, 2.0]);
}

#[test]
fn in_place_on_a_view_of_a_base_that_did_not_require_grad() {
    let o = ops();
    let base = TT::vec(&[1.0, 2.0, 3.0]);
    let w = TT::param(&[5.0]);
    let mut v = o.narrow.call(&base, 2, 1);
    assert!(!base.requires_grad());
    o.mul_.call(&mut v, &w);
    assert!(base.requires_grad() && v.requires_grad());
    backward(&[o.sum.call(&base)], &[], None, false).expect("backward");
    assert_eq!(g(&w), [3.0]);
}

#[test]
fn a_view_follows_its_base_modified_in_place() {
    let o = ops();
    let (x, w) = (TT::param(&[1.0, 2.0, 3.0]), TT::param(&[2.0, 3.0, 4.0]));
    let mut b = o.clone.call(&x);
    let v = o.narrow.call(&b, 0, 2);
    let before = v.grad_fn().expect("grad_fn");
    o.mul_.call(&mut b, &w);
    let after = v.grad_fn().expect("grad_fn");
    assert!(!std::sync::Arc::ptr_eq(&before, &after));
    backward(&[o.sum.call(&v)], &[], None, false).expect("backward");
    assert_eq!(g(&x), [2.0, 3.0, 0.0]);
    assert_eq!(g(&w), [1.0, 2.0, 0.0]);
}

#[test]
fn a_view_of_a_leaf_may_not_be_modified_in_place() {
    let o = ops();
    let x = TT::param(&[1.0, 2.0]);
    let mut v = o.narrow.call(&x, 0, 1);
    let err = o.mul_.try_call(&mut v, &TT::vec(&[2.0])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a view of a leaf Variable that requires grad is being used in an in-place operation. \
         (in `mul_`)"
    );
}

#[test]
fn a_view_made_under_no_grad_may_not_be_modified_in_place() {
    let o = ops();
    let b = o.clone.call(&TT::param(&[1.0, 2.0]));
    let mut v = {
        let _off = NoGradGuard::new();
        o.narrow.call(&b, 0, 1)
    };
    let err = o.mul_.try_call(&mut v, &TT::param(&[2.0])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "A view was created in no_grad mode and is being modified inplace with grad mode \
         enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You \
         can clarify your code by moving both the view and the inplace either both inside the \
         no_grad block (if you don't want the inplace to be tracked) or both outside (if you \
         want the inplace to be tracked). (in `mul_`)"
    );
}

#[test]
fn the_views_of_a_multi_output_view_may_not_be_modified_in_place() {
    let o = ops();
    let leaf = TT::new(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]);
    leaf.set_requires_grad(true).expect("requires_grad");
    let matrix = o.clone.call(&leaf);
    let mut rows = o.unbind.call(&matrix);
    assert_eq!(name(&rows[1]), "UnbindBackward0");
    assert_eq!(rows[1].output_nr(), 1);
    let err = o
        .mul_
        .try_call(&mut rows[0], &TT::param(&[2.0, 2.0]))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Output 0 of UnbindBackward0 is a view and is being modified inplace. This view is the \
         output of a function that returns multiple views. Such functions do not allow the \
         output views to be modified inplace. You should replace the inplace operation by an \
         out-of-place one. (in `mul_`)"
    );
    // The gradient of one row flows back into the matrix; the other row's is zero.
    backward(&[o.sum.call(&rows[1])], &[], None, false).expect("backward");
    assert_eq!(g(&leaf), [0.0, 0.0, 1.0, 1.0]);
}
