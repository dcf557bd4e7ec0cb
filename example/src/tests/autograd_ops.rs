//! Gradients of `MiniTensor`s through operators. The example's operators get their Autograd
//! kernels from derivative formulas (generated); until then, these tests give two of them,
//! `mul.Tensor` and `sum`, Autograd kernels written by hand against the runtime, on a
//! dispatcher of their own (so that nothing here changes the global one): the kernel below
//! autograd calls the example's operator on the global dispatcher. Test code only.

use std::sync::OnceLock;

use opgen::autograd::{
    AutogradOp, AutogradTensor, Backward, BackwardContext, Differentiable, EnableGradGuard,
    NoGradGuard, SavedVariable, backward, functional,
};
use opgen::dispatch::{Registration, TypedOperator};
use opgen::prelude::*;
use opgen::testing::{GradcheckOptions, gradcheck, gradgradcheck};

use crate::MiniTensor;

type Binary = TypedOperator<MiniTensor, (&'static MiniTensor, &'static MiniTensor), MiniTensor>;
type Unary = TypedOperator<MiniTensor, (&'static MiniTensor,), MiniTensor>;

struct Ops {
    mul: Binary,
    sum: Unary,
    _registrations: Vec<Registration>,
}

fn ops() -> &'static Ops {
    static OPS: OnceLock<Ops> = OnceLock::new();
    OPS.get_or_init(|| setup().expect("the test operators register"))
}

fn mul(a: &MiniTensor, b: &MiniTensor) -> Result<MiniTensor, Error> {
    ops().mul.try_call(a, b)
}

fn sum(a: &MiniTensor) -> Result<MiniTensor, Error> {
    ops().sum.try_call(a)
}

static MUL: AutogradOp = AutogradOp::new("mul");
static SUM: AutogradOp = AutogradOp::new("sum");

/// `mul.Tensor`: `self: grad * other`, `other: grad * self` (broadcasting is undone by the
/// engine); the products go through `mul` itself, so double backward sees them.
struct MulBackward0 {
    self_: SavedVariable<MiniTensor>,
    other: SavedVariable<MiniTensor>,
}

impl Backward<MiniTensor> for MulBackward0 {
    fn name(&self) -> &'static str {
        "MulBackward0"
    }

    fn apply(&mut self, ctx: &mut BackwardContext<'_, MiniTensor>) -> Result<(), Error> {
        let Some(grad) = ctx.grad(0).cloned() else {
            return Ok(());
        };
        if ctx.needs(0) {
            let other = self.other.get(ctx.node())?;
            ctx.set(0, Some(mul(&grad, &other)?));
        }
        if ctx.needs(1) {
            let self_ = self.self_.get(ctx.node())?;
            ctx.set(1, Some(mul(&grad, &self_)?));
        }
        Ok(())
    }

    fn release_saved(&mut self) {
        self.self_.reset();
        self.other.reset();
    }
}

/// `sum`: `self: grad.expand(self.sizes())`, here `grad * ones(self.sizes())`; only the
/// input's shape and options are saved.
struct SumBackward0 {
    self_sizes: Vec<i64>,
    self_options: TensorOptions,
}

impl Backward<MiniTensor> for SumBackward0 {
    fn name(&self) -> &'static str {
        "SumBackward0"
    }

    fn apply(&mut self, ctx: &mut BackwardContext<'_, MiniTensor>) -> Result<(), Error> {
        let Some(grad) = ctx.grad(0).cloned() else {
            return Ok(());
        };
        let ones = crate::ops::try_ones(&self.self_sizes, self.self_options)?;
        ctx.set(0, Some(mul(&grad, &ones)?));
        Ok(())
    }
}

fn setup() -> Result<Ops, Error> {
    let d = Dispatcher::new();
    let lib = d.library("aten")?;
    let mut regs = vec![
        lib.def("mul.Tensor(Tensor self, Tensor other) -> Tensor")?,
        lib.def("sum(Tensor self) -> Tensor")?,
    ];
    // Below autograd: the example's operators, on the global dispatcher (CPU and Meta).
    let backends = DispatchKey::CompositeExplicitAutograd;
    regs.push(lib.impl_("mul.Tensor", backends, crate::ops::try_mul)?);
    regs.push(lib.impl_("sum", backends, |a: &MiniTensor| crate::ops::try_sum(a))?);
    let ops = Ops {
        mul: d
            .typed::<MiniTensor, (&MiniTensor, &MiniTensor), MiniTensor>("aten::mul", "Tensor")?,
        sum: d.typed::<MiniTensor, (&MiniTensor,), MiniTensor>("aten::sum", "")?,
        _registrations: Vec::new(),
    };
    let below = ops.mul.clone();
    regs.push(lib.impl_(
        "mul.Tensor",
        DispatchKey::Autograd,
        move |ks: DispatchKeySet, a: &MiniTensor, b: &MiniTensor| {
            let save = |mask: &[bool]| {
                Ok(MulBackward0 {
                    self_: match mask[1] {
                        true => SavedVariable::input(a),
                        false => SavedVariable::none(),
                    },
                    other: match mask[0] {
                        true => SavedVariable::input(b),
                        false => SavedVariable::none(),
                    },
                })
            };
            let forward = |ks| below.try_redispatch(ks, a, b);
            functional(
                ks,
                &MUL,
                &[a.into(), b.into()],
                save,
                forward,
                |_, _| Ok(()),
            )
        },
    )?);
    let below = ops.sum.clone();
    regs.push(lib.impl_(
        "sum",
        DispatchKey::Autograd,
        move |ks: DispatchKeySet, a: &MiniTensor| {
            let save = |_: &[bool]| {
                Ok(SumBackward0 {
                    self_sizes: a.shape(),
                    self_options: a.options()?,
                })
            };
            let forward = |ks| below.try_redispatch(ks, a);
            functional(ks, &SUM, &[a.into()], save, forward, |_, _| Ok(()))
        },
    )?);
    Ok(Ops {
        _registrations: regs,
        ..ops
    })
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
    // Second derivatives, without broadcasting: the engine's `sum_to` and `accumulate` call
    // `sum.dim_IntList`, `view` and `add`, which have no Autograd kernel here, so with
    // `create_graph` they are not recorded (they will be once the example's operators get
    // theirs).
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
