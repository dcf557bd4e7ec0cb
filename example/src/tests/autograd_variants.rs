//! In-place and out operators whose attribute says `derivatives(functional)` take their
//! functional operator's formulas (torchgen's rule): the functional operator's node, `self`
//! saved before it is overwritten, `result` read after; out operators refuse inputs that
//! require grad. Nodes and Autograd kernels carry PyTorch's names.

use opgen::autograd::{AutogradTensor, grad};
use opgen::prelude::*;

use crate::MiniTensor;
use crate::ops::{self, *};

fn doubles(values: &[f64], sizes: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(values.to_vec(), sizes).expect("a tensor")
}

fn leaf(values: &[f64], sizes: &[i64]) -> MiniTensor {
    let t = doubles(values, sizes);
    t.set_requires_grad(true).expect("requires_grad");
    t
}

fn values(t: &MiniTensor) -> Vec<f64> {
    t.to_vec::<f64>().expect("values")
}

/// The gradient of `sum(f(x))` with respect to `x`.
fn grad_of_sum(x: &MiniTensor, y: &MiniTensor) -> Vec<f64> {
    let total = try_sum(y).unwrap();
    let g = grad(&[total], &[x.share()], &[None], None, false, false).unwrap();
    values(g[0].as_ref().expect("a gradient"))
}

#[test]
fn in_place_variants_use_the_functional_node_and_the_original_self() {
    crate::install().unwrap();
    let x = leaf(&[-1.5, 2.0, -0.5], &[3]);
    // `abs_`'s formula reads `self`: the value before the call (a saved clone), whose sign
    // gives the gradient; after the call every value is positive.
    let mut y = x.try_clone().unwrap();
    y.try_abs_().unwrap();
    assert_eq!(y.grad_fn().map(|n| n.name()), Some("AbsBackward0"));
    assert_eq!(grad_of_sum(&x, &y), [-1.0, 1.0, -1.0]);
    // `exp_`'s reads `result`: `self` after the call.
    let mut y = x.try_clone().unwrap();
    y.try_exp_().unwrap();
    assert_eq!(y.grad_fn().map(|n| n.name()), Some("ExpBackward0"));
    assert_eq!(grad_of_sum(&x, &y), values(&y));
    // Two differentiable inputs, through a structured delegate.
    let w = leaf(&[3.0, 4.0, 5.0], &[3]);
    let mut y = x.try_clone().unwrap();
    y.try_mul_(&w).unwrap();
    assert_eq!(y.grad_fn().map(|n| n.name()), Some("MulBackward0"));
    assert_eq!(grad_of_sum(&w, &y), [-1.5, 2.0, -0.5]);
    // PyTorch's check on leaves, in the in-place operator's name.
    let mut leaf_copy = x.share();
    let err = leaf_copy.try_relu_().unwrap_err().to_string();
    assert!(
        err.starts_with(
            "a leaf Variable that requires grad is being used in an in-place operation."
        ) && err.contains("relu_"),
        "{err}"
    );
}

#[test]
fn out_variants_refuse_inputs_that_require_grad_by_the_functional_formulas() {
    crate::install().unwrap();
    let x = leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let mut out = doubles(&[0.0, 0.0], &[2]);
    // `sum.IntList_out` names its functional operator by path (`sum_dim_int_list`).
    let err = ops::try_sum_int_list_out(&mut out, &x, Some(&[1]))
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("sum(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."),
        "{err}"
    );
    let err = ops::try_mean_out(&mut out, &x, Some(&[1]))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("mean(): functions with out="), "{err}");
    // Without grad, the out operator runs.
    let plain = doubles(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    ops::try_sum_int_list_out(&mut out, &plain, Some(&[1])).unwrap();
    assert_eq!(values(&out), [3.0, 7.0]);
}

#[test]
fn hand_written_formulas_have_pytorchs_node_names() {
    crate::install().unwrap();
    let x = leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let index = MiniTensor::from_vec(vec![1_i64, 0, 0, 1], &[2, 2]).unwrap();
    let g = try_gather(&x, 1, &index).unwrap();
    assert_eq!(g.grad_fn().map(|n| n.name()), Some("GatherBackward0"));
    let s = try_as_strided(&x, &[2], &[1]).unwrap();
    assert_eq!(s.grad_fn().map(|n| n.name()), Some("AsStridedBackward0"));
    // PyTorch writes `copy_`'s node by hand: `CopyBackwards`.
    let mut c = doubles(&[0.0; 4], &[2, 2]);
    c.try_copy_(&x).unwrap();
    assert_eq!(c.grad_fn().map(|n| n.name()), Some("CopyBackwards"));
    let debug = format!("{:?}", c.grad_fn().unwrap());
    assert!(debug.contains("CopyBackwards"), "{debug}");
}

#[test]
fn autograd_kernels_are_named_as_torchgen_names_them_in_dumps() {
    crate::install().unwrap();
    let op = Dispatcher::global().find("aten::mul", "Tensor").unwrap();
    let dump = op.dispatch_table().to_string();
    assert!(
        dump.contains("kernel VariableType::mul_Tensor registered at Autograd"),
        "{dump}"
    );
    assert!(!dump.contains("__opgen"), "{dump}");
    let op = Dispatcher::global().find("aten::relu_", "").unwrap();
    let dump = op.dispatch_table().to_string();
    assert!(
        dump.contains("kernel VariableType::relu_ registered at Autograd"),
        "{dump}"
    );
}

#[test]
fn unbind_records_each_output_as_a_view_that_may_not_be_modified_in_place() {
    crate::install().unwrap();
    let x = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let y = x.try_clone().unwrap();
    let rows = try_unbind(&y).unwrap();
    for (i, row) in rows.iter().enumerate() {
        assert!(row.is_view(), "output {i}");
        assert_eq!(row.grad_fn().map(|n| n.name()), Some("UnbindBackward0"));
        assert_eq!(row.output_nr(), i as u32);
        let base = row.view_base().expect("a base");
        assert_eq!(values(&base), values(&y));
    }
    // Gradients flow back through the node of the several views.
    let squares = try_mul(&rows[1], &rows[1]).unwrap();
    let total = try_add(&try_sum(&rows[0]).unwrap(), &try_sum(&squares).unwrap()).unwrap();
    let g = grad(&[total], &[x.share()], &[None], None, false, false).unwrap();
    assert_eq!(
        values(g[0].as_ref().unwrap()),
        [1.0, 1.0, 1.0, 8.0, 10.0, 12.0]
    );
    // PyTorch refuses to modify one of them in place with grad mode on.
    let mut row = rows[1].share();
    let err = row.try_exp_().unwrap_err().to_string();
    assert!(
        err.starts_with(
            "Output 1 of UnbindBackward0 is a view and is being modified inplace. This view is \
             the output of a function that returns multiple views. Such functions do not allow \
             the output views to be modified inplace. You should replace the inplace operation \
             by an out-of-place one."
        ),
        "{err}"
    );
    // Without grad, the outputs are views all the same, and may be written.
    let plain = doubles(&[1.0, 2.0], &[2]);
    let mut parts = try_unbind(&plain).unwrap();
    assert!(parts[0].is_view());
    parts[0].try_neg_().unwrap();
    assert_eq!(values(&plain), [-1.0, 2.0]);
}
