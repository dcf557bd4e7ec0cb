//! Custom functions (`apply_function`) and removable tensor hooks.

use std::sync::{Arc, Mutex};

use super::ops::ops;
use super::tensor::TT;
use crate::autograd::{
    AutogradTensor, FunctionCtx, NoGradGuard, apply_function, as_autograd_error, backward, grad,
};
use crate::dispatch::Error;

fn g(t: &TT) -> Vec<f64> {
    t.grad().expect("a gradient").values()
}

fn one(outputs: Vec<TT>) -> TT {
    outputs.into_iter().next().expect("one output")
}

/// `x * k` for a number `k`.
fn mul_constant(x: &TT, k: f64) -> Result<TT, Error> {
    apply_function(
        "MulConstantBackward",
        &[Some(x), None],
        |_| Ok(vec![x.map(|v| v * k)]),
        move |_, grads| Ok(vec![grads[0].as_ref().map(|g| g.map(|v| v * k)), None]),
    )
    .map(one)
}

/// `exp(x)`, saving its output.
fn my_exp(x: &TT) -> Result<TT, Error> {
    apply_function(
        "MyExpBackward",
        &[Some(x)],
        |ctx| {
            let y = x.map(f64::exp);
            ctx.save_for_backward(vec![Some(y.clone())]);
            Ok(vec![y])
        },
        |ctx, grads| {
            let y = ctx.saved_tensors()?[0].clone().expect("saved");
            // The saved output comes back with the function's node as its grad_fn.
            assert_eq!(y.grad_fn().map(|n| n.name()), Some("MyExpBackward"));
            Ok(vec![Some(TT::zip(
                grads[0].as_ref().expect("grad"),
                &y,
                |a, b| a * b,
            )?)])
        },
    )
    .map(one)
}

#[test]
fn a_custom_function_records_one_node_that_runs_its_backward() {
    let o = ops();
    let x = TT::param(&[1.0, 2.0]);
    let y = mul_constant(&x, 3.0).expect("apply");
    assert_eq!(y.values(), [3.0, 6.0]);
    let node = y.grad_fn().expect("a grad_fn");
    assert_eq!(node.name(), "MulConstantBackward");
    // One edge per tensor argument: x's accumulator.
    assert_eq!(node.next_edges().len(), 1);
    assert_eq!(
        node.next_edges()[0].as_ref().map(|e| e.node.name()),
        Some("AccumulateGrad")
    );
    let z = o.sum.call(&o.mul.call(&y, &y));
    backward(&[z], &[], None, false).expect("backward");
    assert_eq!(g(&x), [18.0, 36.0]); // d(9x²)/dx
}

#[test]
fn saved_tensors_come_back_in_backward_and_are_freed_after_it() {
    let o = ops();
    let x = TT::param(&[0.0, 1.0]);
    let y = my_exp(&x).expect("apply");
    let s = o.sum.call(&y);
    backward(std::slice::from_ref(&s), &[], Some(true), false).expect("backward");
    let e = 1f64.exp();
    assert_eq!(g(&x), [1.0, e]);
    backward(std::slice::from_ref(&s), &[], None, false).expect("retained");
    assert_eq!(g(&x), [2.0, 2.0 * e]);
    let err = backward(&[s], &[], None, false).expect_err("freed");
    assert!(
        err.to_string()
            .starts_with("Trying to backward through the graph a second time"),
        "{err}"
    );
}

#[test]
fn a_saved_input_modified_in_place_is_refused() {
    let o = ops();
    let x = TT::param(&[1.0, 2.0]);
    let w = TT::vec(&[3.0, 4.0]);
    let y = apply_function(
        "ScaleBackward",
        &[Some(&x), Some(&w)],
        |ctx| {
            ctx.save_for_backward(vec![Some(w.clone())]);
            TT::zip(&x, &w, |a, b| a * b).map(|y| vec![y])
        },
        |ctx, grads| {
            let w = ctx.saved_tensors()?[0].clone();
            let gx = TT::zip(
                grads[0].as_ref().expect("grad"),
                w.as_ref().expect("w"),
                |a, b| a * b,
            )?;
            Ok(vec![Some(gx), None])
        },
    )
    .map(one)
    .expect("apply");
    let mut w2 = w.clone();
    o.mul_.call(&mut w2, &TT::vec(&[2.0, 2.0]));
    let err = backward(&[o.sum.call(&y)], &[], None, false).expect_err("modified");
    assert!(
        err.to_string()
            .contains("is at version 1; expected version 0 instead"),
        "{err}"
    );
}

#[test]
fn the_number_of_gradients_is_checked_with_pytorchs_messages() {
    let run = |grads: fn(&TT) -> Vec<Option<TT>>| {
        let x = TT::param(&[1.0]);
        let y = apply_function(
            "BadBackward",
            &[Some(&x), None],
            |_| Ok(vec![x.map(|v| v * 2.0)]),
            move |_, g| Ok(grads(g[0].as_ref().expect("grad"))),
        )
        .map(one)
        .expect("apply");
        backward(&[y], &[], None, false).map(|()| g(&x))
    };
    // The engine names the node after PyTorch's message, as for its other errors.
    let err = run(|g| vec![Some(g.clone())]).expect_err("too few");
    assert_eq!(
        err.to_string(),
        "function BadBackward returned an incorrect number of gradients (expected 2, got 1) \
         (in `BadBackward`)"
    );
    assert!(as_autograd_error(&err).is_some());
    let err = run(|g| vec![Some(g.clone()), Some(g.clone())]).expect_err("non-tensor");
    assert_eq!(
        err.to_string(),
        "function BadBackward returned a gradient different than None at position 2, but the \
         corresponding forward input was not a Variable (in `BadBackward`)"
    );
    // Extra gradients are accepted when they are all None.
    assert_eq!(
        run(|g| vec![Some(g.clone()), None, None]).expect("extra Nones"),
        [1.0]
    );
}

#[test]
fn nothing_is_recorded_without_grad_mode_or_inputs_requiring_grad() {
    let x = TT::param(&[1.0]);
    {
        let _off = NoGradGuard::new();
        let y = mul_constant(&x, 2.0).expect("apply");
        assert!(!y.requires_grad() && y.grad_fn().is_none());
    }
    let plain = TT::vec(&[1.0]);
    assert!(
        mul_constant(&plain, 2.0)
            .expect("apply")
            .grad_fn()
            .is_none()
    );
    // An input returned as an output: a new handle to the same data, without history.
    let same = apply_function(
        "IdBackward",
        &[Some(&x)],
        |_| Ok(vec![x.clone()]),
        |_, g| Ok(g),
    )
    .map(one)
    .expect("apply");
    assert!(!same.same(&x) && same.values() == x.values());
    assert_eq!(same.grad_fn().map(|n| n.name()), Some("IdBackward"));
    assert!(x.is_leaf() && x.grad_fn().is_none());
    backward(&[same], &[], None, false).expect("backward");
    assert_eq!(g(&x), [1.0]);
}

/// Two outputs, the second marked non-differentiable; what backward gets for it.
fn split(x: &TT, materialize: bool, seen: Arc<Mutex<Vec<Option<Vec<f64>>>>>) -> Vec<TT> {
    apply_function(
        "SplitBackward",
        &[Some(x)],
        |ctx: &mut FunctionCtx<TT>| {
            let (a, b) = (x.map(|v| v * 2.0), x.map(|v| v + 1.0));
            ctx.mark_non_differentiable(std::slice::from_ref(&b));
            ctx.set_materialize_grads(materialize);
            assert!(ctx.needs_input_grad(0) && !ctx.needs_input_grad(1));
            Ok(vec![a, b])
        },
        move |_, grads| {
            *seen.lock().expect("lock") =
                grads.iter().map(|g| g.as_ref().map(TT::values)).collect();
            Ok(vec![grads[0].as_ref().map(|g| g.map(|v| v * 2.0))])
        },
    )
    .expect("apply")
}

#[test]
fn non_differentiable_outputs_and_materialized_gradients() {
    let o = ops();
    for materialize in [true, false] {
        let x = TT::param(&[1.0, 2.0]);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let outputs = split(&x, materialize, seen.clone());
        assert!(outputs[0].requires_grad() && !outputs[1].requires_grad());
        assert_eq!(outputs[0].output_nr(), 0);
        backward(&[o.sum.call(&outputs[0])], &[], None, false).expect("backward");
        assert_eq!(g(&x), [2.0, 2.0]);
        let zeros = materialize.then(|| vec![0.0, 0.0]);
        assert_eq!(*seen.lock().expect("lock"), [Some(vec![1.0, 1.0]), zeros]);
    }
}

#[test]
fn custom_functions_chain_with_operators_and_grad() {
    let o = ops();
    let x = TT::param(&[0.5]);
    let y = my_exp(&mul_constant(&o.mul.call(&x, &x), 2.0).expect("apply")).expect("apply");
    let dx = grad(&[y], std::slice::from_ref(&x), &[], None, false, false).expect("grad");
    let want = 4.0 * 0.5 * (2.0f64 * 0.25).exp();
    assert!((dx[0].as_ref().expect("dx").values()[0] - want).abs() < 1e-12);
    assert!(x.grad().is_none());
}

#[test]
fn hooks_are_removed_by_their_handles() {
    let o = ops();
    let x = TT::param(&[1.0, 2.0]);
    let h = o.mul.call(&x, &TT::vec(&[3.0, 3.0]));
    let calls = Arc::new(Mutex::new(0));
    let counted = calls.clone();
    let on_h = h
        .register_hook(Arc::new(move |g: &TT| {
            *counted.lock().expect("lock") += 1;
            Ok(Some(g.map(|v| v * 10.0)))
        }))
        .expect("hook");
    let on_x = x
        .register_hook(Arc::new(|g: &TT| Ok(Some(g.map(|v| v + 1.0)))))
        .expect("leaf hook");
    assert_ne!(on_h.id(), on_x.id());
    let s = o.sum.call(&h);
    backward(std::slice::from_ref(&s), &[], Some(true), false).expect("backward");
    assert_eq!(g(&x), [31.0, 31.0]);
    assert!(on_h.remove() && on_x.remove());
    assert!(!on_h.remove(), "removing twice does nothing");
    x.set_grad(None).expect("clear");
    backward(&[s], &[], None, false).expect("backward");
    assert_eq!(g(&x), [3.0, 3.0]);
    assert_eq!(*calls.lock().expect("lock"), 1);
}

#[test]
fn a_leafs_hooks_see_the_gradient_grad_returns() {
    let o = ops();
    let x = TT::param(&[1.0, 2.0]);
    let handle = x
        .register_hook(Arc::new(|g: &TT| Ok(Some(g.map(|v| v * 2.0)))))
        .expect("hook");
    let y = o.sum.call(&o.mul.call(&x, &x));
    let dx = grad(
        std::slice::from_ref(&y),
        std::slice::from_ref(&x),
        &[],
        Some(true),
        false,
        false,
    )
    .expect("grad");
    assert_eq!(dx[0].as_ref().expect("dx").values(), [4.0, 8.0]);
    handle.remove();
    let dx = grad(&[y], &[x], &[], None, false, false).expect("grad");
    assert_eq!(dx[0].as_ref().expect("dx").values(), [2.0, 4.0]);
}

#[test]
fn a_hook_error_stops_backward_and_comes_out_unchanged() {
    let o = ops();
    let x = TT::param(&[1.0]);
    x.register_hook(Arc::new(|_: &TT| Err(Error::from("hook failed"))))
        .expect("hook");
    let err = backward(&[o.sum.call(&x)], &[], None, false).expect_err("hook error");
    // The hook's own error, not wrapped in an autograd error.
    assert!(
        matches!(err.kind(), crate::dispatch::ErrorKind::Kernel { .. }),
        "{err:?}"
    );
    assert!(err.to_string().ends_with("hook failed"), "{err}");
    assert!(x.grad().is_none());
}
