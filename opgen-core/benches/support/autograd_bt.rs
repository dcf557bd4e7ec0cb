//! `BT`, a one-element `f64` tensor that takes part in autograd, with operators `agb::mul`
//! and `agb::neg` (CPU kernels that do almost nothing, Autograd kernels as generated code
//! writes them): shared by `benches/autograd.rs` and `examples/autograd_callgrind.rs`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use opgen_core::autograd::{
    AutogradMeta, AutogradOp, AutogradTensor, Backward, BackwardContext, Differentiable,
    SavedVariable, functional,
};
use opgen_core::dispatch::{
    DispatchKey, DispatchKeySet, Dispatcher, Error, Registration, Tensor, TypedOperator,
};

#[derive(Clone)]
pub struct BT(Arc<Inner>);

struct Inner {
    keys: DispatchKeySet,
    value: f64,
    version: AtomicU64,
    meta: AutogradMeta<BT>,
}

impl BT {
    pub fn new(value: f64) -> BT {
        BT::with_keys(value, &[DispatchKey::CPU, DispatchKey::AutogradCPU])
    }

    /// A tensor without the autograd key: calls go straight to the CPU kernel.
    pub fn plain(value: f64) -> BT {
        BT::with_keys(value, &[DispatchKey::CPU])
    }

    fn with_keys(value: f64, keys: &[DispatchKey]) -> BT {
        BT(Arc::new(Inner {
            keys: DispatchKeySet::from_keys(keys),
            value,
            version: AtomicU64::new(0),
            meta: AutogradMeta::new(),
        }))
    }
}

impl Tensor for BT {
    fn key_set(&self) -> DispatchKeySet {
        self.0.keys
    }
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(Vec::new())
    }
    fn version(&self) -> Result<u64, Error> {
        Ok(self.0.version.load(Ordering::Relaxed))
    }
    fn autograd_meta(&self) -> Option<&AutogradMeta<Self>> {
        Some(&self.0.meta)
    }
}

impl Differentiable for BT {
    fn detach(&self) -> Result<BT, Error> {
        Ok(BT::new(self.0.value))
    }
    fn ones_like(&self) -> Result<BT, Error> {
        Ok(BT::new(1.0))
    }
    fn zeros_like(&self) -> Result<BT, Error> {
        Ok(BT::new(0.0))
    }
    fn accumulate(&self, other: &BT) -> Result<BT, Error> {
        Ok(BT::new(self.0.value + other.0.value))
    }
    fn sum_to(&self, _: &[i64]) -> Result<BT, Error> {
        Ok(self.clone())
    }
}

type Mul = TypedOperator<BT, (&'static BT, &'static BT), BT>;
type Neg = TypedOperator<BT, (&'static BT,), BT>;

pub struct Ops {
    pub mul: Mul,
    pub neg: Neg,
    _registrations: Vec<Registration>,
}

static OPS: OnceLock<Ops> = OnceLock::new();

pub fn ops() -> &'static Ops {
    OPS.get_or_init(|| setup().expect("operators register"))
}

struct MulBackward {
    self_: SavedVariable<BT>,
    other: SavedVariable<BT>,
}

impl Backward<BT> for MulBackward {
    fn name(&self) -> &'static str {
        "MulBackward0"
    }
    fn apply(&mut self, ctx: &mut BackwardContext<'_, BT>) -> Result<(), Error> {
        let Some(grad) = ctx.grad(0).cloned() else {
            return Ok(());
        };
        if ctx.needs(0) {
            let other = self.other.get(ctx.node())?;
            ctx.set(0, Some(ops().mul.try_call(&grad, &other)?));
        }
        if ctx.needs(1) {
            let self_ = self.self_.get(ctx.node())?;
            ctx.set(1, Some(ops().mul.try_call(&grad, &self_)?));
        }
        Ok(())
    }
    fn release_saved(&mut self) {
        self.self_.reset();
        self.other.reset();
    }
}

struct NegBackward;

impl Backward<BT> for NegBackward {
    fn name(&self) -> &'static str {
        "NegBackward0"
    }
    fn apply(&mut self, ctx: &mut BackwardContext<'_, BT>) -> Result<(), Error> {
        if let Some(grad) = ctx.grad(0).cloned() {
            ctx.set(0, Some(ops().neg.try_call(&grad)?));
        }
        Ok(())
    }
}

static MUL: AutogradOp = AutogradOp::new("mul");
static NEG: AutogradOp = AutogradOp::new("neg");

fn setup() -> Result<Ops, Error> {
    let d = Dispatcher::new();
    let lib = d.library("agb")?;
    let mut regs = vec![
        lib.def("mul(Tensor self, Tensor other) -> Tensor")?,
        lib.def("neg(Tensor self) -> Tensor")?,
        lib.impl_("mul", DispatchKey::CPU, |a: &BT, b: &BT| {
            BT::new(a.0.value * b.0.value)
        })?,
        lib.impl_("neg", DispatchKey::CPU, |a: &BT| BT::new(-a.0.value))?,
    ];
    let mul = d.typed::<BT, (&BT, &BT), BT>("agb::mul", "")?;
    let neg = d.typed::<BT, (&BT,), BT>("agb::neg", "")?;
    let inner = mul.clone();
    regs.push(lib.impl_(
        "mul",
        DispatchKey::AutogradCPU,
        move |ks: DispatchKeySet, a: &BT, b: &BT| {
            let save = |mask: &[bool]| {
                Ok(MulBackward {
                    self_: if mask[1] {
                        SavedVariable::input(a)
                    } else {
                        SavedVariable::none()
                    },
                    other: if mask[0] {
                        SavedVariable::input(b)
                    } else {
                        SavedVariable::none()
                    },
                })
            };
            functional(
                ks,
                &MUL,
                &[a.into(), b.into()],
                save,
                |ks| inner.try_redispatch(ks, a, b),
                |_, _| Ok(()),
            )
        },
    )?);
    let inner = neg.clone();
    regs.push(lib.impl_(
        "neg",
        DispatchKey::AutogradCPU,
        move |ks: DispatchKeySet, a: &BT| {
            functional(
                ks,
                &NEG,
                &[a.into()],
                |_| Ok(NegBackward),
                |ks| inner.try_redispatch(ks, a),
                |_, _| Ok(()),
            )
        },
    )?);
    Ok(Ops {
        mul,
        neg,
        _registrations: regs,
    })
}

/// The length of the chain of `neg`s.
pub const CHAIN: usize = 64;

/// A leaf that requires grad.
pub fn leaf(value: f64) -> BT {
    let t = BT::new(value);
    t.set_requires_grad(true).expect("requires_grad");
    t
}

/// `CHAIN` `neg`s of `x`.
pub fn chain(x: &BT) -> BT {
    let mut y = x.clone();
    for _ in 0..CHAIN {
        y = ops().neg.call(&y);
    }
    y
}
