//! The no-grad path of Autograd kernels: with grad mode off, inside inference mode, or when
//! no input requires grad, the kernel runs the operator below autograd (with the call's key
//! set without the autograd keys, as c10's `ks & after_autograd_keyset`) and records
//! nothing; with one input requiring grad among several, it records.

use std::sync::Mutex;

use super::ops::ops;
use super::tensor::TT;
use crate::autograd::{
    AutogradOp, AutogradTensor, Backward, BackwardContext, InferenceModeGuard, NoGradGuard,
    backward, functional, set_grad_enabled,
};
use crate::dispatch::{
    DispatchKey as K, DispatchKeySet, Dispatcher, Error, IValue, Registration, Stack, Tensor,
    TypedOperator, boxed,
};

/// The key sets the kernels below autograd were called with, in order.
static SEEN: Mutex<Vec<DispatchKeySet>> = Mutex::new(Vec::new());

/// `ng::sum3(a, b, c) = a + b + c` with a CPU kernel (unboxed, or boxed-only) that records
/// its key set, and an Autograd kernel written as generated code writes it.
struct Sum3 {
    op: TypedOperator<TT, (&'static TT, &'static TT, &'static TT), TT>,
    _dispatcher: Dispatcher,
    _regs: Vec<Registration>,
}

static SUM3: AutogradOp = AutogradOp::new("sum3");

struct Sum3Backward;

impl Backward<TT> for Sum3Backward {
    fn name(&self) -> &'static str {
        "Sum3Backward0"
    }
    fn apply(&mut self, ctx: &mut BackwardContext<'_, TT>) -> Result<(), Error> {
        let Some(grad) = ctx.grad(0).cloned() else {
            return Ok(());
        };
        for i in 0..3 {
            if ctx.needs(i) {
                ctx.set(i, Some(grad.clone()));
            }
        }
        Ok(())
    }
}

fn add3(a: &TT, b: &TT, c: &TT) -> Result<TT, Error> {
    TT::zip(&TT::zip(a, b, |x, y| x + y)?, c, |x, y| x + y)
}

fn sum3(boxed_only: bool) -> Result<Sum3, Error> {
    let d = Dispatcher::new();
    let lib = d.library("ng")?;
    let mut regs = vec![lib.def("sum3(Tensor a, Tensor b, Tensor c) -> Tensor")?];
    regs.push(if boxed_only {
        lib.impl_(
            "sum3",
            K::CPU,
            boxed(|_op, ks, stack: &mut Stack<TT>| {
                SEEN.lock().unwrap().push(ks);
                let base = stack.len() - 3;
                let args = stack.split_off(base);
                let [IValue::Tensor(a), IValue::Tensor(b), IValue::Tensor(c)] = &args[..] else {
                    return Err(Error::from("sum3: three tensors expected"));
                };
                stack.push(IValue::Tensor(add3(a, b, c)?));
                Ok(())
            }),
        )?
    } else {
        lib.impl_(
            "sum3",
            K::CPU,
            |ks: DispatchKeySet, a: &TT, b: &TT, c: &TT| {
                SEEN.lock().unwrap().push(ks);
                add3(a, b, c)
            },
        )?
    });
    let op = d.typed::<TT, (&TT, &TT, &TT), TT>("ng::sum3", "")?;
    let below = op.clone();
    regs.push(lib.impl_(
        "sum3",
        K::AutogradCPU,
        move |ks: DispatchKeySet, a: &TT, b: &TT, c: &TT| {
            functional(
                ks,
                &SUM3,
                &[a.into(), b.into(), c.into()],
                |_| Ok(Sum3Backward),
                |ks| below.try_redispatch(ks, a, b, c),
                |_, _| Ok(()),
            )
        },
    )?);
    Ok(Sum3 {
        op,
        _dispatcher: d,
        _regs: regs,
    })
}

/// Runs `f`, returning the key sets the CPU kernel saw during it. The tests of this module
/// share `SEEN`, so they take its lock in turn through this function.
fn seen_during(f: impl FnOnce()) -> Vec<DispatchKeySet> {
    static TURN: Mutex<()> = Mutex::new(());
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    SEEN.lock().unwrap().clear();
    f();
    std::mem::take(&mut *SEEN.lock().unwrap())
}

/// The CPU kernel was called once, below every autograd key (c10's `after_autograd_keyset`):
/// no autograd key, the backend kept (`ADInplaceOrView`, a fallthrough for this operator, is
/// left out by the table as for any call).
fn assert_below_autograd(seen: &[DispatchKeySet]) {
    assert_eq!(
        seen.len(),
        1,
        "the kernel below autograd runs once: {seen:?}"
    );
    let ks = seen[0];
    for key in [K::AutogradCPU, K::Autograd, K::AutogradOther] {
        assert!(!ks.contains(key), "{ks:?} still has {key:?}");
    }
    assert_eq!(ks, DispatchKeySet::from(K::CPU), "{ks:?}");
}

fn inputs(requires: [bool; 3]) -> [TT; 3] {
    let make = |x: f64, r: bool| if r { TT::param(&[x]) } else { TT::vec(&[x]) };
    [
        make(1.0, requires[0]),
        make(2.0, requires[1]),
        make(4.0, requires[2]),
    ]
}

fn check_no_grad_path(boxed_only: bool) {
    let s = sum3(boxed_only).expect("ng::sum3 registers");
    let call = |requires: [bool; 3]| {
        let [a, b, c] = inputs(requires);
        let mut out = None;
        let seen = seen_during(|| out = Some(s.op.call(&a, &b, &c)));
        let out = out.expect("called");
        assert_eq!(out.values(), [7.0]);
        (out, seen)
    };
    // Grad mode on, no input requiring grad.
    let (out, seen) = call([false; 3]);
    assert_below_autograd(&seen);
    assert!(out.grad_fn().is_none() && !out.requires_grad());
    // Inputs requiring grad with grad mode off, by the guard and by the setter.
    for off in [true, false] {
        let _guard = off.then(NoGradGuard::new);
        if !off {
            set_grad_enabled(false);
        }
        let (out, seen) = call([true, false, true]);
        set_grad_enabled(true);
        assert_below_autograd(&seen);
        assert!(out.grad_fn().is_none() && !out.requires_grad());
    }
    // Inference mode excludes the autograd keys: the kernel below runs without them.
    {
        let _inference = InferenceModeGuard::new();
        let (out, seen) = call([true, true, true]);
        assert_eq!(seen.len(), 1);
        assert!(!seen[0].contains(K::AutogradCPU) && !seen[0].contains(K::ADInplaceOrView));
        assert!(out.grad_fn().is_none() && !out.requires_grad());
    }
    // One input requiring grad among several, in each position: the node is recorded,
    // with an edge for that input only.
    for i in 0..3 {
        let mut requires = [false; 3];
        requires[i] = true;
        let [a, b, c] = inputs(requires);
        let mut out = None;
        let seen = seen_during(|| out = Some(s.op.call(&a, &b, &c)));
        let out = out.expect("called");
        assert_below_autograd(&seen);
        let node = out
            .grad_fn()
            .expect("recorded with one input requiring grad");
        assert_eq!(node.name(), "Sum3Backward0");
        backward(&[out], &[], None, false).expect("backward");
        let grads: Vec<bool> = [&a, &b, &c].iter().map(|t| t.grad().is_some()).collect();
        assert_eq!(grads, requires.to_vec(), "input {i}");
    }
}

#[test]
fn the_no_grad_path_redispatches_below_autograd() {
    check_no_grad_path(false);
}

#[test]
fn the_no_grad_path_reaches_a_boxed_only_kernel_below() {
    check_no_grad_path(true);
}

#[test]
fn in_place_and_out_variants_run_below_autograd_when_nothing_requires_grad() {
    let o = ops();
    // In place, nothing requires grad: written, version bumped, no history.
    let mut x = TT::vec(&[3.0]);
    let y = o.mul_.call(&mut x, &TT::vec(&[2.0]));
    assert_eq!((x.values(), x.version().expect("version")), (vec![6.0], 1));
    assert!(y.grad_fn().is_none() && x.grad_fn().is_none());
    // In place on a tensor that is not a leaf, under no_grad: no history is rewritten.
    let p = TT::param(&[1.0]);
    let mut z = o.neg.call(&p);
    let before = z.grad_fn().expect("neg recorded").name();
    {
        let _off = NoGradGuard::new();
        o.mul_.call(&mut z, &TT::vec(&[5.0]));
    }
    assert_eq!(z.values(), [-5.0]);
    assert_eq!(z.grad_fn().expect("history kept").name(), before);
    // Out, an input requiring grad under no_grad and nothing requiring grad with grad on.
    let mut dst = TT::vec(&[0.0]);
    {
        let _off = NoGradGuard::new();
        o.mul_out.call(&p, &TT::vec(&[3.0]), &mut dst);
    }
    assert_eq!(dst.values(), [3.0]);
    o.mul_out.call(&TT::vec(&[2.0]), &TT::vec(&[3.0]), &mut dst);
    assert_eq!(dst.values(), [6.0]);
    assert!(dst.grad_fn().is_none() && !dst.requires_grad());
    // With grad mode on, the same out call is still refused.
    assert!(o.mul_out.try_call(&p, &TT::vec(&[3.0]), &mut dst).is_err());
}
