//! `_testing.mul(x, y)` and `_testing.sum(x)`: two operators with Autograd kernels written by
//! hand against opgen's autograd runtime, for the Python tests of gradients through
//! operators (`grad_fn`, `backward()` through a graph, `autograd.grad`, `no_grad`). The
//! example's own operators get their Autograd kernels from derivative formulas; these exist
//! for the tests only, on the `_testing` dispatcher. Below autograd they call the example's
//! `mul` and `sum` on the global dispatcher.

use std::sync::OnceLock;

use opgen::autograd::{AutogradOp, Backward, BackwardContext, SavedVariable, functional};
use opgen::dispatch::{Library, TypedOperator};
use opgen::prelude::*;
use opgen_example::MiniTensor;

type Binary = TypedOperator<MiniTensor, (&'static MiniTensor, &'static MiniTensor), MiniTensor>;
type Unary = TypedOperator<MiniTensor, (&'static MiniTensor,), MiniTensor>;

static MUL_OP: OnceLock<Binary> = OnceLock::new();
static SUM_OP: OnceLock<Unary> = OnceLock::new();
static MUL: AutogradOp = AutogradOp::new("mul");
static SUM: AutogradOp = AutogradOp::new("sum");

fn mul(a: &MiniTensor, b: &MiniTensor) -> Result<MiniTensor, Error> {
    let op = MUL_OP
        .get()
        .ok_or_else(|| Error::from("_testing.mul is not defined"))?;
    op.try_call(a, b)
}

/// `self: grad * other`, `other: grad * self`, through `_testing.mul` (double backward sees
/// the products).
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
            ctx.set(0, Some(mul(&grad, &self.other.get(ctx.node())?)?));
        }
        if ctx.needs(1) {
            ctx.set(1, Some(mul(&grad, &self.self_.get(ctx.node())?)?));
        }
        Ok(())
    }

    fn release_saved(&mut self) {
        self.self_.reset();
        self.other.reset();
    }
}

/// `self: grad.expand(self.sizes())`, as `grad * ones(sizes)`.
struct SumBackward0 {
    sizes: Vec<i64>,
    options: TensorOptions,
}

impl Backward<MiniTensor> for SumBackward0 {
    fn name(&self) -> &'static str {
        "SumBackward0"
    }

    fn apply(&mut self, ctx: &mut BackwardContext<'_, MiniTensor>) -> Result<(), Error> {
        let Some(grad) = ctx.grad(0).cloned() else {
            return Ok(());
        };
        let ones = opgen_example::ops::try_ones(&self.sizes, self.options)?;
        ctx.set(0, Some(mul(&grad, &ones)?));
        Ok(())
    }
}

/// Defines `t::mul` and `t::sum` on `d` with their kernels.
pub(crate) fn define(d: &Dispatcher, lib: &Library) -> Result<(), Error> {
    lib.def("mul(Tensor self, Tensor other) -> Tensor")?
        .forget();
    lib.def("sum(Tensor self) -> Tensor")?.forget();
    let backends = DispatchKey::CompositeExplicitAutograd;
    lib.impl_("mul", backends, opgen_example::ops::try_mul)?
        .forget();
    lib.impl_("sum", backends, |a: &MiniTensor| {
        opgen_example::ops::try_sum(a)
    })?
    .forget();
    let mul_op = MUL_OP.get_or_init(|| {
        d.typed::<MiniTensor, (&MiniTensor, &MiniTensor), MiniTensor>("t::mul", "")
            .expect("t::mul was just defined")
    });
    let sum_op = SUM_OP.get_or_init(|| {
        d.typed::<MiniTensor, (&MiniTensor,), MiniTensor>("t::sum", "")
            .expect("t::sum was just defined")
    });
    let below = mul_op.clone();
    lib.impl_(
        "mul",
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
    )?
    .forget();
    let below = sum_op.clone();
    lib.impl_(
        "sum",
        DispatchKey::Autograd,
        move |ks: DispatchKeySet, a: &MiniTensor| {
            let save = |_: &[bool]| {
                Ok(SumBackward0 {
                    sizes: a.shape(),
                    options: a.options()?,
                })
            };
            let forward = |ks| below.try_redispatch(ks, a);
            functional(ks, &SUM, &[a.into()], save, forward, |_, _| Ok(()))
        },
    )?
    .forget();
    Ok(())
}
