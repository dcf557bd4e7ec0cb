//! The engine on small graphs: chains, diamonds, shared inputs, several outputs,
//! `retain_graph`, grad modes, `grad`, double backward, order, hooks, broadcasting.

use std::sync::{Arc, Mutex};

use super::ops::ops;
use super::tensor::TT;
use crate::autograd::{
    AutogradTensor, EnableGradGuard, InferenceModeGuard, NoGradGuard, backward, grad,
};

fn g(t: &TT) -> Vec<f64> {
    t.grad().expect("a gradient").values()
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}");
    }
}

#[test]
fn chain_accumulates_into_leaves() {
    let o = ops();
    let (x, w) = (TT::param(&[1.0, 2.0, 3.0]), TT::param(&[4.0, 5.0, 6.0]));
    let y = o.mul.call(&x, &w);
    assert!(y.requires_grad() && !y.is_leaf());
    assert_eq!(
        y.grad_fn().map(|n| n.name().to_string()).as_deref(),
        Some("MulBackward0")
    );
    let s = o.sum.call(&y);
    backward(&[s], &[], None, false).expect("backward");
    close(&g(&x), &[4.0, 5.0, 6.0]);
    close(&g(&w), &[1.0, 2.0, 3.0]);
    // A second pass (on a new graph) adds to the gradients.
    let s = o.sum.call(&o.mul.call(&x, &w));
    backward(&[s], &[], None, false).expect("backward");
    close(&g(&x), &[8.0, 10.0, 12.0]);
}

#[test]
fn diamond_runs_the_shared_node_once_with_the_summed_gradient() {
    let o = ops();
    let x = TT::param(&[0.5, -1.0]);
    let c = TT::vec(&[3.0, 3.0]);
    let u = o.exp.call(&x);
    let runs = Arc::new(Mutex::new(0));
    let counter = runs.clone();
    u.grad_fn()
        .expect("grad_fn")
        .register_prehook(Arc::new(move |grads| {
            *counter.lock().expect("lock") += 1;
            assert!(grads[0].is_some());
            Ok(())
        }));
    let z = o.add.call(&o.mul.call(&u, &c), &o.neg.call(&u));
    backward(&[o.sum.call(&z)], &[], None, false).expect("backward");
    let expected: Vec<f64> = [0.5f64, -1.0].iter().map(|v| v.exp() * 2.0).collect();
    close(&g(&x), &expected);
    assert_eq!(*runs.lock().expect("lock"), 1);
}

#[test]
fn an_input_used_twice_gets_both_gradients() {
    let o = ops();
    let x = TT::param(&[1.5, -2.0]);
    backward(&[o.sum.call(&o.mul.call(&x, &x))], &[], None, false).expect("backward");
    close(&g(&x), &[3.0, -4.0]);
}

#[test]
fn several_outputs_and_outputs_of_one_node() {
    let o = ops();
    let (x, w) = (TT::param(&[0.0, 1.0]), TT::vec(&[2.0, 5.0]));
    let s1 = o.sum.call(&o.exp.call(&x));
    let s2 = o.sum.call(&o.mul.call(&x, &w));
    backward(&[s1, s2], &[None, Some(TT::scalar(2.0))], None, false).expect("backward");
    close(&g(&x), &[1.0 + 4.0, 1f64.exp() + 10.0]);
    // `max` returns (values, indices); only values is differentiable.
    let y = TT::param(&[1.0, 7.0, 3.0]);
    let (values, indices) = o.max.call(&y);
    assert!(values.requires_grad() && !indices.requires_grad());
    assert_eq!(values.output_nr(), 0);
    backward(&[values], &[], None, false).expect("backward");
    close(&g(&y), &[0.0, 1.0, 0.0]);
}

#[test]
fn retain_graph_keeps_saved_values_for_another_pass() {
    let o = ops();
    let x = TT::param(&[2.0]);
    let s = o.sum.call(&o.mul.call(&x, &x));
    backward(std::slice::from_ref(&s), &[], Some(true), false).expect("first");
    backward(std::slice::from_ref(&s), &[], Some(false), false).expect("second, retained");
    close(&g(&x), &[8.0]);
    let third = backward(std::slice::from_ref(&s), &[], None, false).unwrap_err();
    assert!(
        third
            .to_string()
            .starts_with("Trying to backward through the graph a second time")
    );
    // A graph that saved nothing can run again (as in PyTorch).
    let y = TT::param(&[1.0, 1.0]);
    let t = o.sum.call(&o.add.call(&y, &y));
    backward(std::slice::from_ref(&t), &[], None, false).expect("first");
    backward(std::slice::from_ref(&t), &[], None, false).expect("second");
    close(&g(&y), &[4.0, 4.0]);
}

#[test]
fn no_grad_enable_grad_and_inference_mode() {
    let o = ops();
    let x = TT::param(&[1.0]);
    {
        let _off = NoGradGuard::new();
        let y = o.mul.call(&x, &x);
        assert!(!y.requires_grad() && y.grad_fn().is_none());
        let _on = EnableGradGuard::new();
        assert!(o.mul.call(&x, &x).requires_grad());
    }
    {
        let _inference = InferenceModeGuard::new();
        let y = o.exp.call(&x);
        assert!(!y.requires_grad());
        close(&y.values(), &[1f64.exp()]);
    }
    assert!(o.mul.call(&x, &x).requires_grad());
}

#[test]
fn grad_returns_gradients_without_accumulating() {
    let o = ops();
    let (x, w, unused) = (
        TT::param(&[1.0, 2.0]),
        TT::param(&[3.0, 4.0]),
        TT::param(&[0.0]),
    );
    let h = o.mul.call(&x, &w);
    let s = o.sum.call(&o.exp.call(&h));
    let gs = grad(
        std::slice::from_ref(&s),
        &[x.clone(), h.clone()],
        &[],
        Some(true),
        false,
        false,
    )
    .expect("grad");
    let eh: Vec<f64> = [3.0f64, 8.0].iter().map(|v| v.exp()).collect();
    close(&gs[1].as_ref().expect("dh").values(), &eh);
    close(
        &gs[0].as_ref().expect("dx").values(),
        &[eh[0] * 3.0, eh[1] * 4.0],
    );
    assert!(x.grad().is_none() && w.grad().is_none());
    let err = grad(
        std::slice::from_ref(&s),
        std::slice::from_ref(&unused),
        &[],
        Some(true),
        false,
        false,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "One of the differentiated Tensors appears to not have been used in the graph. Set \
         allow_unused=True if this is the desired behavior."
    );
    let gs = grad(
        std::slice::from_ref(&s),
        &[unused, w.clone()],
        &[],
        None,
        false,
        true,
    )
    .expect("allow_unused");
    assert!(gs[0].is_none() && gs[1].is_some());
}

#[test]
fn create_graph_gives_second_derivatives() {
    let o = ops();
    let x = TT::param(&[1.0, -3.0]);
    // d/dx sum(x * x * x) = 3x²; d/dx sum(3x²) = 6x.
    let cube = o.mul.call(&o.mul.call(&x, &x), &x);
    let dx = grad(
        &[o.sum.call(&cube)],
        std::slice::from_ref(&x),
        &[],
        None,
        true,
        false,
    )
    .expect("grad")
    .remove(0)
    .expect("dx");
    close(&dx.values(), &[3.0, 27.0]);
    assert!(dx.requires_grad());
    let ddx = grad(
        &[o.sum.call(&dx)],
        std::slice::from_ref(&x),
        &[],
        None,
        false,
        false,
    )
    .expect("grad of grad")
    .remove(0)
    .expect("ddx");
    close(&ddx.values(), &[6.0, -18.0]);
}

#[test]
fn a_saved_output_unpacks_with_its_node_for_double_backward() {
    let o = ops();
    let x = TT::param(&[0.5, -1.0]);
    // d/dx exp(x) = grad * result: the saved result must come back with `ExpBackward0` as its
    // `grad_fn` (a fresh tensor of a type that makes its autograd state on demand).
    let e = o.exp.call(&x);
    let dx = grad(
        &[o.sum.call(&e)],
        std::slice::from_ref(&x),
        &[],
        None,
        true,
        false,
    )
    .expect("grad")
    .remove(0)
    .expect("dx");
    close(&dx.values(), &e.values());
    let ddx = grad(
        &[o.sum.call(&dx)],
        std::slice::from_ref(&x),
        &[],
        None,
        false,
        false,
    )
    .expect("grad of grad")
    .remove(0)
    .expect("ddx");
    close(&ddx.values(), &e.values());
}

#[test]
fn ready_nodes_run_newest_first() {
    let o = ops();
    let (x, w) = (TT::param(&[1.0]), TT::param(&[2.0]));
    let a = o.exp.call(&x); // created first
    let b = o.neg.call(&w); // created second
    let z = o.add.call(&a, &b);
    let log = Arc::new(Mutex::new(Vec::new()));
    for t in [&a, &b, &z] {
        let node = t.grad_fn().expect("grad_fn");
        let (log, name) = (log.clone(), node.name().to_string());
        node.register_prehook(Arc::new(move |_| {
            log.lock().expect("lock").push(name.clone());
            Ok(())
        }));
    }
    backward(&[z], &[], None, false).expect("backward");
    assert_eq!(
        *log.lock().expect("lock"),
        ["AddBackward0", "NegBackward0", "ExpBackward0"]
    );
}

#[test]
fn hooks_and_retain_grad() {
    let o = ops();
    let x = TT::param(&[1.0, 2.0]);
    let h = o.mul.call(&x, &TT::vec(&[3.0, 3.0]));
    h.retain_grad().expect("retain_grad");
    assert!(h.retains_grad());
    // Tensor hooks run before the retained gradient is stored, as in PyTorch.
    h.register_hook(Arc::new(|g: &TT| Ok(Some(g.map(|v| v * 2.0)))))
        .expect("hook");
    x.register_hook(Arc::new(|g: &TT| Ok(Some(g.map(|v| v + 1.0)))))
        .expect("leaf hook");
    backward(&[o.sum.call(&h)], &[], None, false).expect("backward");
    close(&g(&h), &[2.0, 2.0]);
    close(&g(&x), &[7.0, 7.0]);
}

#[test]
fn broadcast_gradients_are_summed_back_to_the_input_shape() {
    let o = ops();
    let (x, b) = (TT::param(&[1.0, 2.0, 3.0]), TT::param(&[10.0]));
    let two_d = TT::new(&[2, 3], vec![1.0; 6]);
    let y = o.add.call(&o.add.call(&x, &b), &two_d);
    assert_eq!(y.shape(), [2, 3]);
    backward(&[o.sum.call(&y)], &[], None, false).expect("backward");
    close(&g(&x), &[2.0, 2.0, 2.0]);
    close(&g(&b), &[6.0]);
    assert_eq!(b.grad().expect("grad").shape(), [1]);
}

#[test]
fn long_graphs_run_and_drop_without_deep_recursion() {
    let o = ops();
    let x = TT::param(&[1.0]);
    let mut y = x.clone();
    for _ in 0..100_000 {
        y = o.neg.call(&y);
    }
    backward(std::slice::from_ref(&y), &[], Some(true), false).expect("backward");
    close(&g(&x), &[1.0]);
    drop(y);
}
