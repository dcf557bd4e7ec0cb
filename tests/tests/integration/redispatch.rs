//! Redispatch: an autograd kernel that takes the key set and runs the rest of the stack.

use std::sync::atomic::{AtomicUsize, Ordering};

use opgen_tests::ops;

use super::*;

static AUTOGRAD_CALLS: AtomicUsize = AtomicUsize::new(0);

/// `relu` at `AutogradCPU`: counts, then redispatches below its own key.
#[opgen::native_function(op = "aten::relu", dispatch = "AutogradCPU")]
fn relu_autograd(keys: DispatchKeySet, self_: &TestTensor) -> Result<TestTensor, Error> {
    AUTOGRAD_CALLS.fetch_add(1, Ordering::SeqCst);
    ops::relu::redispatch(keys.below(DispatchKey::AutogradCPU), (self_,))
}

#[test]
fn an_autograd_kernel_runs_once_then_the_backend_kernel() {
    let t = cpu(&[-1.0, 3.0]).requires_grad();
    let before = AUTOGRAD_CALLS.load(Ordering::SeqCst);
    let out = ops::relu(&t);
    assert_eq!(out.data(), [0.0, 3.0]);
    assert_eq!(AUTOGRAD_CALLS.load(Ordering::SeqCst), before + 1);
    // Boxed calls take the same route.
    let op = Dispatcher::global().find("aten::relu", "").unwrap();
    let mut stack = Stack::from(vec![IValue::Tensor(t)]);
    op.call_boxed(&mut stack).unwrap();
    assert_eq!(AUTOGRAD_CALLS.load(Ordering::SeqCst), before + 2);
}

#[test]
fn redispatch_uses_the_keys_given() {
    let t = cpu(&[-2.0]).requires_grad();
    // Below AutogradCPU only CPU is left: the autograd kernel does not run.
    let before = AUTOGRAD_CALLS.load(Ordering::SeqCst);
    let out = ops::relu::redispatch(t.key_set().below(DispatchKey::AutogradCPU), (&t,)).unwrap();
    assert_eq!(out.data(), [0.0]);
    assert!(AUTOGRAD_CALLS.load(Ordering::SeqCst) >= before);
}
