//! Gradients of `MiniTensor`s through the library's operators, whose Autograd kernels are
//! generated from their derivative formulas (`mul.Tensor`'s and `sum`'s here): graphs,
//! accumulation across passes, grad mode, gradcheck and gradgradcheck, the version check of
//! saved tensors, and Meta tensors.

use opgen::autograd::{AutogradTensor, Differentiable, EnableGradGuard, NoGradGuard, backward};
use opgen::prelude::*;
use opgen::testing::{GradcheckOptions, gradcheck, gradgradcheck};

use crate::MiniTensor;

fn mul(a: &MiniTensor, b: &MiniTensor) -> Result<MiniTensor, Error> {
    crate::ops::try_mul(a, b)
}

fn sum(a: &MiniTensor) -> Result<MiniTensor, Error> {
    crate::ops::try_sum(a)
}

fn doubles(values: &[f64], sizes: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(values.to_vec(), sizes).expect("a tensor")
}

fn leaf(values: &[f64], sizes: &[i64]) -> MiniTensor {
    let t = doubles(values, sizes);
    t.set_requires_grad(true).expect("requires_grad");
    t
}

fn grad_values(t: &MiniTensor) -> Option<Vec<f64>> {
    t.grad().map(|g| g.to_vec::<f64>().expect("values"))
}

#[test]
fn gradients_flow_through_mul_and_sum() {
    let x = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let w = leaf(&[0.5, -1.0, 2.0], &[3]);
    let xw = mul(&x, &w).unwrap();
    assert!(xw.requires_grad() && !xw.is_leaf());
    assert_eq!(xw.grad_fn().map(|n| n.name()), Some("MulBackward0"));
    let y = sum(&xw).unwrap();
    let node = y.grad_fn().unwrap();
    assert_eq!(node.name(), "SumBackward0");
    let next: Vec<_> = node
        .next_edges()
        .iter()
        .flatten()
        .map(|e| e.node.name())
        .collect();
    assert_eq!(next, ["MulBackward0"]);
    backward(&[y], &[], None, false).unwrap();
    assert_eq!(grad_values(&x), Some(vec![0.5, -1.0, 2.0, 0.5, -1.0, 2.0]));
    // w was broadcast over the rows: its gradient is summed back to its shape.
    assert_eq!(grad_values(&w), Some(vec![5.0, 7.0, 9.0]));
    assert!(xw.grad().is_none()); // a non-leaf keeps no gradient
}

#[test]
fn gradients_accumulate_across_backward_calls_until_the_graph_is_freed() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let w = doubles(&[3.0, -4.0], &[2]);
    let y = sum(&mul(&x, &w).unwrap()).unwrap();
    backward(&[y.share()], &[], Some(true), false).unwrap();
    assert_eq!(grad_values(&x), Some(vec![3.0, -4.0]));
    backward(&[y.share()], &[], None, false).unwrap();
    assert_eq!(grad_values(&x), Some(vec![6.0, -8.0]));
    assert!(w.grad().is_none());
    let err = backward(&[y], &[], None, false).unwrap_err().to_string();
    assert!(
        err.starts_with("Trying to backward through the graph a second time"),
        "{err}"
    );
}

#[test]
fn no_grad_records_nothing_and_makes_no_state() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let w = doubles(&[3.0, 4.0], &[2]);
    {
        let _no_grad = NoGradGuard::new();
        let y = mul(&x, &w).unwrap();
        assert!(!y.requires_grad() && y.is_leaf());
        assert!(y.autograd_meta().is_none());
        let _enable = EnableGradGuard::new();
        assert!(mul(&x, &w).unwrap().requires_grad());
    }
    // Nothing requires grad: the Autograd kernel only runs the operator below it, and none of
    // the tensors gets autograd state.
    let y = mul(&w, &w).unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), [9.0, 16.0]);
    assert!(w.autograd_meta().is_none() && y.autograd_meta().is_none());
    // A detached input is a constant.
    let z = sum(&mul(&x.detach().unwrap(), &x).unwrap()).unwrap();
    backward(&[z], &[], None, false).unwrap();
    assert_eq!(grad_values(&x), Some(vec![1.0, 2.0]));
}

/// A function of tensors, as gradcheck takes it.
type Function<'f> = &'f dyn Fn(&[MiniTensor]) -> Result<Vec<MiniTensor>, Error>;

fn check(f: Function<'_>, inputs: &[MiniTensor]) {
    if let Err(e) = gradcheck(f, inputs, GradcheckOptions::default()) {
        panic!("{e}");
    }
}

#[test]
fn mul_and_sum_pass_gradcheck() {
    let x = leaf(&[0.5, -1.5, 2.0, 1.0, 0.25, -3.0], &[2, 3]);
    let w = leaf(&[1.5, 0.25, -2.0], &[3]);
    check(&|t| Ok(vec![mul(&t[0], &t[1])?]), &[x.share(), w.share()]);
    check(&|t| Ok(vec![sum(&t[0])?]), std::slice::from_ref(&x));
    // A shared input: d/dx sum(x * x) = 2x.
    check(
        &|t| Ok(vec![sum(&mul(&t[0], &t[0])?)?]),
        std::slice::from_ref(&x),
    );
    // Second derivatives: the backward functions call the library's operators, whose
    // Autograd kernels record them with `create_graph`.
    let v = leaf(&[1.0, -0.5, 0.75, 2.0, -1.25, 0.5], &[2, 3]);
    if let Err(e) = gradgradcheck(
        |t| Ok(vec![mul(&t[0], &t[1])?]),
        &[x, v],
        GradcheckOptions::default(),
    ) {
        panic!("{e}");
    }
}

#[test]
fn a_wrong_derivative_fails_gradcheck() {
    // x * x with one factor detached: the value is x², the recorded derivative x (not 2x).
    let x = leaf(&[0.5, -1.5], &[2]);
    let err = gradcheck(
        |t| Ok(vec![mul(&t[0], &t[0].detach()?)?]),
        &[x],
        GradcheckOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with(
            "Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor([[1.0000, 0.0000],\n        [0.0000, -3.0000]], dtype=torch.float64)\nanalytical:tensor([[0.5000, 0.0000],"
        ),
        "{err}"
    );
}

#[test]
fn a_saved_tensor_modified_in_place_is_refused() {
    crate::install().unwrap();
    let x = leaf(&[1.0, 2.0], &[2]);
    let mut w = doubles(&[3.0, 4.0], &[2]);
    let y = sum(&mul(&x, &w).unwrap()).unwrap();
    w.mul_(&doubles(&[2.0], &[])); // bumps w's version (ADInplaceOrView)
    let err = backward(&[y], &[], None, false).unwrap_err().to_string();
    assert!(
        err.starts_with(
            "one of the variables needed for gradient computation has been modified by an \
             inplace operation: [torch.DoubleTensor [2]] is at version 1; expected version 0 \
             instead."
        ),
        "{err}"
    );
}

#[test]
fn meta_tensors_compute_gradient_shapes() {
    let x = MiniTensor::meta(&[2, 3], ScalarType::Float).unwrap();
    let w = MiniTensor::meta(&[3], ScalarType::Float).unwrap();
    x.set_requires_grad(true).unwrap();
    w.set_requires_grad(true).unwrap();
    let y = sum(&mul(&x, &w).unwrap()).unwrap();
    assert!(y.is_meta() && y.shape().is_empty() && y.requires_grad());
    backward(&[y], &[], None, false).unwrap();
    let (gx, gw) = (x.grad().unwrap(), w.grad().unwrap());
    assert!(gx.is_meta() && gw.is_meta());
    assert_eq!((gx.shape(), gw.shape()), (vec![2, 3], vec![3]));
    assert_eq!(gw.dtype(), ScalarType::Float);
}

/// A recorded node keeps the shape of its output and a leaf's accumulator the leaf's, read
/// with `sizes_inline` when the node is made (inline up to four dimensions, spilled past
/// them), which the engine checks each gradient against.
#[test]
fn nodes_record_the_shapes_of_their_inputs() {
    let shapes: [&[i64]; 4] = [&[], &[2, 3], &[1, 2, 1, 2], &[1, 2, 1, 2, 1]];
    for sizes in shapes {
        let n = sizes.iter().product::<i64>() as usize;
        let x = leaf(&vec![1.5; n], sizes);
        let inline = x.sizes_inline().unwrap();
        assert_eq!(
            (inline.as_slice(), inline.spilled()),
            (sizes, sizes.len() > 4)
        );
        let y = mul(&x, &doubles(&vec![2.0; n], sizes)).unwrap();
        let node = y.grad_fn().unwrap();
        let shape = |node: &opgen::autograd::Node<MiniTensor>| {
            node.input_meta(0)
                .and_then(|m| m.shape.clone())
                .unwrap()
                .to_vec()
        };
        assert_eq!(shape(&node), sizes);
        let accumulator = node.next_edges()[0].as_ref().unwrap().node.clone();
        assert_eq!(accumulator.name(), "AccumulateGrad");
        assert_eq!(shape(&accumulator), sizes);
        backward(&[y], &[Some(doubles(&vec![1.0; n], sizes))], None, false).unwrap();
        assert_eq!(x.grad().unwrap().shape(), sizes);
    }
}
