//! Each of PyTorch's checks, with PyTorch's message.

use std::sync::Arc;

use super::ops::ops;
use super::tensor::TT;
use crate::autograd::{
    AutogradErrorKind, AutogradOp, AutogradTensor, Backward, BackwardContext, NoGradGuard,
    SavedVariable, as_autograd_error, backward, check_no_requires_grad, functional, grad,
    not_implemented,
};
use crate::dispatch::{DispatchKey, DispatchKeySet, Error, Tensor};

fn kind(e: &Error) -> &AutogradErrorKind {
    as_autograd_error(e).expect("an autograd error").kind()
}

#[test]
fn backward_on_a_tensor_that_does_not_require_grad() {
    let o = ops();
    let x = TT::param(&[1.0]);
    let plain = TT::scalar(1.0);
    let err = backward(std::slice::from_ref(&plain), &[], None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "element 0 of tensors does not require grad and does not have a grad_fn"
    );
    let err = backward(&[o.sum.call(&x), plain], &[], None, false).unwrap_err();
    assert_eq!(*kind(&err), AutogradErrorKind::NoGradFn { index: 1 });
}

#[test]
fn backward_through_a_freed_graph() {
    let o = ops();
    let x = TT::param(&[1.0, 2.0]);
    let s = o.sum.call(&o.exp.call(&x));
    backward(std::slice::from_ref(&s), &[], None, false).expect("first");
    let err = backward(&[s], &[], None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Trying to backward through the graph a second time (or directly access saved tensors \
         after they have already been freed). Saved intermediate values of the graph are freed \
         when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to \
         backward through the graph a second time or if you need to access saved tensors after \
         calling backward. (in `ExpBackward0`)"
    );
}

#[test]
fn a_saved_input_modified_in_place() {
    let o = ops();
    let (x, mut b) = (TT::param(&[1.0, 2.0]), TT::vec(&[3.0, 4.0]));
    let y = o.mul.call(&x, &b);
    o.mul_.call(&mut b, &TT::vec(&[2.0, 2.0]));
    assert_eq!(b.version().expect("version"), 1);
    let err = backward(&[o.sum.call(&y)], &[], None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "one of the variables needed for gradient computation has been modified by an inplace \
         operation: [torch.DoubleTensor [2]] is at version 1; expected version 0 instead. Hint: \
         enable anomaly detection to find the operation that failed to compute its gradient, \
         with torch.autograd.set_detect_anomaly(True). (in `MulBackward0`)"
    );
}

#[test]
fn a_saved_output_modified_in_place_names_its_node() {
    let o = ops();
    let x = TT::param(&[0.0]);
    let mut y = o.exp.call(&o.clone.call(&x));
    o.mul_.call(&mut y, &TT::vec(&[2.0]));
    o.mul_.call(&mut y, &TT::vec(&[2.0]));
    let err = backward(&[o.sum.call(&y)], &[], None, false).unwrap_err();
    match kind(&err) {
        AutogradErrorKind::ModifiedInplace {
            output_of,
            version,
            expected,
            ..
        } => {
            assert_eq!(
                output_of.as_ref().map(|(n, s)| (*n, s.as_str())),
                Some((0, "ExpBackward0"))
            );
            assert_eq!((*version, *expected), (2, 0));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(err.to_string().contains(
        "[torch.DoubleTensor [1]], which is output 0 of ExpBackward0, is at version 2; expected \
         version 0 instead."
    ));
}

#[test]
fn in_place_on_a_leaf_that_requires_grad() {
    let o = ops();
    let mut x = TT::param(&[1.0]);
    let err = o.mul_.try_call(&mut x, &TT::vec(&[2.0])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a leaf Variable that requires grad is being used in an in-place operation. (in `mul_`)"
    );
    // Refused before the kernel ran: the value and the version are unchanged.
    assert_eq!((x.values(), x.version().expect("version")), (vec![1.0], 0));
    // Allowed under no_grad.
    let _off = NoGradGuard::new();
    o.mul_.call(&mut x, &TT::vec(&[2.0]));
    assert_eq!(x.values(), [2.0]);
}

#[test]
fn out_arguments_with_inputs_that_require_grad() {
    let o = ops();
    let (x, b) = (TT::param(&[1.0]), TT::vec(&[2.0]));
    let mut dst = TT::vec(&[0.0]);
    let err = o.mul_out.try_call(&x, &b, &mut dst).unwrap_err();
    assert_eq!(
        err.to_string(),
        "mul(): functions with out=... arguments don't support automatic differentiation, but \
         one of the arguments requires grad."
    );
    let mut dst_requires = TT::param(&[0.0]);
    assert!(o.mul_out.try_call(&b, &b, &mut dst_requires).is_err());
    o.mul_out.call(&b, &b, &mut dst);
    assert_eq!(dst.values(), [4.0]);
    let _off = NoGradGuard::new();
    o.mul_out.call(&x, &b, &mut dst);
    assert_eq!(dst.values(), [2.0]);
}

#[test]
fn implicit_and_mismatched_gradients() {
    let o = ops();
    let x = TT::param(&[1.0, 2.0]);
    let y = o.exp.call(&x);
    let err = backward(std::slice::from_ref(&y), &[], None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "grad can be implicitly created only for scalar outputs"
    );
    let err = backward(
        std::slice::from_ref(&y),
        &[Some(TT::vec(&[1.0; 3]))],
        None,
        false,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a \
         shape of torch.Size([2])."
    );
    let err = backward(std::slice::from_ref(&y), &[None, None], None, false).unwrap_err();
    assert_eq!(err.to_string(), "got 1 tensors and 2 gradients");
}

#[test]
fn grad_inputs_that_do_not_require_grad() {
    let o = ops();
    let x = TT::param(&[1.0]);
    let err = grad(
        &[o.sum.call(&x)],
        &[TT::vec(&[1.0])],
        &[],
        None,
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "One of the differentiated Tensors does not require grad"
    );
}

#[test]
fn requires_grad_retain_grad_and_hooks_on_the_wrong_tensors() {
    let o = ops();
    let x = TT::param(&[1.0]);
    let y = o.exp.call(&x);
    assert!(y.set_requires_grad(true).is_ok());
    assert_eq!(
        y.set_requires_grad(false).unwrap_err().to_string(),
        "you can only change requires_grad flags of leaf variables. If you want to use a \
         computed variable in a subgraph that doesn't require differentiation use var_no_grad \
         = var.detach()."
    );
    let plain = TT::vec(&[1.0]);
    assert_eq!(
        plain.retain_grad().unwrap_err().to_string(),
        "can't retain_grad on Tensor that has requires_grad=False"
    );
    assert_eq!(
        plain
            .register_hook(Arc::new(|_| Ok(None)))
            .unwrap_err()
            .to_string(),
        "cannot register a hook on a tensor that doesn't require gradient"
    );
}

#[test]
fn inputs_without_formula_and_unimplemented_formulas() {
    static OP: AutogradOp = AutogradOp::new("index");
    let x = TT::param(&[1.0]);
    let err = check_no_requires_grad(&OP, "indices", (&x).into()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "The function 'index' is not differentiable with respect to argument 'indices'. This \
         input cannot have requires_grad True."
    );
    assert!(check_no_requires_grad(&OP, "indices", (&TT::vec(&[1.0])).into()).is_ok());
    assert_eq!(
        not_implemented("chunk", "").to_string(),
        "the derivative for 'chunk' is not implemented."
    );
}

/// A backward function that returns a gradient of the wrong shape.
struct Wrong;
impl Backward<TT> for Wrong {
    fn name(&self) -> &'static str {
        "WrongBackward0"
    }
    fn apply(&mut self, ctx: &mut BackwardContext<'_, TT>) -> Result<(), Error> {
        ctx.set(0, Some(TT::vec(&[1.0, 1.0])));
        Ok(())
    }
}

#[test]
fn a_backward_function_returning_a_gradient_of_the_wrong_shape() {
    static OP: AutogradOp = AutogradOp::new("wrong");
    let x = TT::param(&[1.0, 2.0, 3.0]);
    let ks = DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]);
    let y = functional(
        ks,
        &OP,
        &[(&x).into()],
        |_| Ok(Wrong),
        |_| Ok(TT::scalar(0.0)),
        |_, _| Ok(()),
    )
    .expect("forward");
    let err = backward(&[y], &[], None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Function WrongBackward0 returned an invalid gradient at index 0 - got [2] but expected \
         shape compatible with [3] (in `WrongBackward0`)"
    );
}

#[test]
fn a_type_without_autograd_state() {
    #[derive(Clone)]
    struct Plain;
    impl Tensor for Plain {
        fn key_set(&self) -> DispatchKeySet {
            DispatchKey::CPU.into()
        }
    }
    assert!(!Plain.requires_grad() && Plain.grad().is_none() && Plain.is_leaf());
    let err = Plain.set_requires_grad(true).unwrap_err().to_string();
    assert!(err.contains("does not take part in autograd"), "{err}");
    let _ = SavedVariable::input(&Plain);
}
