//! The autograd check: a right Autograd kernel passes, a wrong
//! derivative and an Autograd kernel that changes the forward fail, an operator without
//! one is skipped.

use crate::autograd::tests::ops::ops;
use crate::autograd::tests::tensor::TT;
use crate::autograd::{AutogradOp, Backward, BackwardContext, functional};
use crate::dispatch::{DispatchKey, DispatchKeySet, Dispatcher, Error, IValue, Registration};
use crate::testing::{Check, OpCheck, OpCheckFailure, OpCheckReport};

fn check(
    d: &Dispatcher,
    name: &str,
    overload: &str,
    inputs: Vec<TT>,
) -> Result<OpCheckReport, OpCheckFailure> {
    let op = d.find(name, overload).expect("operator");
    let inputs = inputs.into_iter().map(IValue::Tensor).collect();
    OpCheck::new(d, &op, inputs)
        .compare_with(|a: &TT, b: &TT| a.shape() == b.shape() && a.values() == b.values())
        .autograd()
        .run()
}

/// (In-place and out operators, whose groups this test library does not fill, are checked
/// on the example library's operators.)
#[test]
fn a_right_kernel_passes() {
    let d = &ops().dispatcher;
    let report =
        check(d, "ag::exp", "", vec![TT::vec(&[0.5, -1.0])]).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.passed.contains(&Check::Autograd), "{report:?}");
}

static NEG: AutogradOp = AutogradOp::new("neg");

/// A wrong derivative of `neg`: `grad` instead of `-grad`.
struct WrongNegBackward;

impl Backward<TT> for WrongNegBackward {
    fn name(&self) -> &'static str {
        "NegBackward0"
    }
    fn apply(&mut self, ctx: &mut BackwardContext<'_, TT>) -> Result<(), Error> {
        let g = ctx.grad(0).cloned();
        ctx.set(0, g);
        Ok(())
    }
}

fn with_neg(
    kernel: fn(DispatchKeySet, &TT) -> Result<TT, Error>,
) -> (Dispatcher, Vec<Registration>) {
    let d = Dispatcher::new();
    let lib = d.library("bad").expect("library");
    let regs = vec![
        lib.def("neg(Tensor self) -> Tensor").expect("def"),
        lib.def("exp(Tensor self) -> Tensor").expect("def"),
        lib.impl_("neg", DispatchKey::CPU, |a: &TT| a.map(|x| -x))
            .expect("cpu"),
        lib.impl_("exp", DispatchKey::CPU, |a: &TT| a.map(f64::exp))
            .expect("cpu"),
        lib.impl_("neg", DispatchKey::Autograd, kernel)
            .expect("autograd"),
    ];
    (d, regs)
}

#[test]
fn a_wrong_derivative_fails_gradcheck() {
    fn kernel(ks: DispatchKeySet, a: &TT) -> Result<TT, Error> {
        functional(
            ks,
            &NEG,
            &[a.into()],
            |_| Ok(WrongNegBackward),
            |_| Ok(a.map(|x| -x)),
            |_, _| Ok(()),
        )
    }
    let (d, _regs) = with_neg(kernel);
    let err = check(&d, "bad::neg", "", vec![TT::vec(&[1.0, 2.0])]).unwrap_err();
    assert_eq!(err.check, Check::Autograd);
    assert!(
        err.message
            .starts_with("gradcheck: Jacobian mismatch for output 0 with respect to input 0"),
        "{}",
        err.message
    );
    // `exp` has no Autograd kernel: the check does not apply.
    let report = check(&d, "bad::exp", "", vec![TT::vec(&[1.0])]).expect("passes");
    assert!(report.skipped.contains(&(
        Check::Autograd,
        "the operator has no Autograd kernel".into()
    )));
}

#[test]
fn an_autograd_kernel_that_changes_the_forward_fails() {
    fn kernel(ks: DispatchKeySet, a: &TT) -> Result<TT, Error> {
        functional(
            ks,
            &NEG,
            &[a.into()],
            |_| Ok(WrongNegBackward),
            |_| Ok(a.map(|x| 2.0 * x)),
            |_, _| Ok(()),
        )
    }
    let (d, _regs) = with_neg(kernel);
    let err = check(&d, "bad::neg", "", vec![TT::vec(&[1.0, 2.0])]).unwrap_err();
    assert_eq!(err.check, Check::Autograd);
    assert_eq!(
        err.message,
        "output 0 with inputs requiring grad differs from the output below autograd"
    );
}

static SUM_ALL: AutogradOp = AutogradOp::new("sum_all");

/// `sum_all(tensors)`'s backward: `grad` spread over each tensor of the list, times
/// `factors[i]` (1 is right).
struct SumAllBackward {
    shapes: Vec<Vec<i64>>,
    factors: [f64; 2],
}

impl Backward<TT> for SumAllBackward {
    fn name(&self) -> &'static str {
        "SumAllBackward0"
    }
    fn apply(&mut self, ctx: &mut BackwardContext<'_, TT>) -> Result<(), Error> {
        let g = ctx.grad(0).map_or(0.0, |g| g.values()[0]);
        let grads = (self.shapes.iter().zip(self.factors))
            .map(|(s, f)| Some(TT::new(s, vec![g * f; s.iter().product::<i64>() as usize])))
            .collect();
        ctx.set_list(0, grads);
        Ok(())
    }
}

/// A library with `sum_all(Tensor[] tensors) -> Tensor`, whose Autograd kernel's backward
/// multiplies the gradients of the list's tensors by `factors`.
fn with_sum_all(factors: [f64; 2]) -> (Dispatcher, Vec<Registration>) {
    let d = Dispatcher::new();
    let lib = d.library("lists").expect("library");
    let sum = |ts: &[TT]| TT::scalar(ts.iter().flat_map(TT::values).sum());
    let kernel = move |ks: DispatchKeySet, ts: &[TT]| -> Result<TT, Error> {
        functional(
            ks,
            &SUM_ALL,
            &[ts.into()],
            |_| {
                let shapes = ts.iter().map(|t| t.shape().to_vec()).collect();
                Ok(SumAllBackward { shapes, factors })
            },
            |_| Ok(sum(ts)),
            |_, _| Ok(()),
        )
    };
    let regs = vec![
        lib.def("sum_all(Tensor[] tensors) -> Tensor").expect("def"),
        lib.impl_("sum_all", DispatchKey::CPU, move |ts: &[TT]| sum(ts))
            .expect("cpu"),
        lib.impl_("sum_all", DispatchKey::Autograd, kernel)
            .expect("autograd"),
    ];
    (d, regs)
}

/// The tensors of a `Tensor[]` argument are inputs of gradcheck, each one.
#[test]
fn the_tensors_of_a_list_argument_are_checked() {
    let list = || {
        IValue::TensorList(std::sync::Arc::new(vec![
            TT::vec(&[1.0, 2.0]),
            TT::vec(&[3.0]),
        ]))
    };
    let run = |d: &Dispatcher| {
        let op = d.find("lists::sum_all", "").expect("operator");
        OpCheck::new(d, &op, vec![list()])
            .compare_with(|a: &TT, b: &TT| a.shape() == b.shape() && a.values() == b.values())
            .autograd()
            .run()
    };
    let (d, _regs) = with_sum_all([1.0, 1.0]);
    let report = run(&d).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.passed.contains(&Check::Autograd), "{report:?}");
    // A wrong gradient for the list's second tensor: gradcheck's input 1.
    let (d, _regs) = with_sum_all([1.0, 2.0]);
    let err = run(&d).unwrap_err();
    assert_eq!(err.check, Check::Autograd);
    assert!(
        err.message
            .starts_with("gradcheck: Jacobian mismatch for output 0 with respect to input 1"),
        "{}",
        err.message
    );
}
