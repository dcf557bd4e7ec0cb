//! Operators on `TT` in namespace `ag`, each with a CPU kernel and an Autograd kernel written
//! the way generated code calls the runtime: data (an `AutogradOp`), a backward struct, and
//! one call of `functional` / `inplace` / `out` / `view`.

use std::sync::{Arc, OnceLock};

use super::tensor::TT;
use crate::autograd::{
    AutogradOp, Backward, BackwardContext, SavedVariable, ViewFn, functional, inplace, out, view,
};
use crate::cross::{Installed, install_inplace_or_view};
use crate::dispatch::{
    DispatchKey as K, DispatchKeySet, Dispatcher, Error, Registration, TypedOperator,
};

type Op1 = TypedOperator<TT, (&'static TT,), TT>;
type Op2 = TypedOperator<TT, (&'static TT, &'static TT), TT>;

pub(crate) struct Ops {
    pub add: Op2,
    pub mul: Op2,
    pub neg: Op1,
    pub exp: Op1,
    pub relu: Op1,
    pub sum: Op1,
    pub clone: Op1,
    pub mul_: TypedOperator<TT, (&'static mut TT, &'static TT), TT>,
    pub mul_out: TypedOperator<TT, (&'static TT, &'static TT, &'static mut TT), TT>,
    pub narrow: TypedOperator<TT, (&'static TT, i64, i64), TT>,
    pub select: TypedOperator<TT, (&'static TT, i64), TT>,
    pub unbind: TypedOperator<TT, (&'static TT,), Vec<TT>>,
    pub max: TypedOperator<TT, (&'static TT,), (TT, TT)>,
    _registrations: Vec<Registration>,
    _views: Installed,
    /// The dispatcher they are registered on.
    pub dispatcher: Dispatcher,
}

static OPS: OnceLock<Ops> = OnceLock::new();

/// The operators, registered once on a dispatcher of their own.
pub(crate) fn ops() -> &'static Ops {
    OPS.get_or_init(|| setup().expect("test operators register"))
}

const SCHEMAS: &[&str] = &[
    "add(Tensor self, Tensor other) -> Tensor",
    "mul(Tensor self, Tensor other) -> Tensor",
    "neg(Tensor self) -> Tensor",
    "exp(Tensor self) -> Tensor",
    "relu(Tensor self) -> Tensor",
    "sum(Tensor self) -> Tensor",
    "clone(Tensor self) -> Tensor",
    "mul_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    "narrow(Tensor(a) self, int start, int length) -> Tensor(a)",
    "select(Tensor(a) self, int index) -> Tensor(a)",
    "unbind(Tensor(a -> *) self) -> Tensor(a)[]",
    "max(Tensor self) -> (Tensor values, Tensor indices)",
];

fn setup() -> Result<Ops, Error> {
    let d = Dispatcher::new();
    let lib = d.library("ag")?;
    let mut regs = Vec::new();
    for schema in SCHEMAS {
        regs.push(lib.def(schema)?);
    }
    regs.push(d.impls("_").fallback_fallthrough(K::Autograd)?);
    register_cpu(&lib, &mut regs)?;
    let ops = Ops {
        add: d.typed::<TT, (&TT, &TT), TT>("ag::add", "")?,
        mul: d.typed::<TT, (&TT, &TT), TT>("ag::mul", "")?,
        neg: d.typed::<TT, (&TT,), TT>("ag::neg", "")?,
        exp: d.typed::<TT, (&TT,), TT>("ag::exp", "")?,
        relu: d.typed::<TT, (&TT,), TT>("ag::relu", "")?,
        sum: d.typed::<TT, (&TT,), TT>("ag::sum", "")?,
        clone: d.typed::<TT, (&TT,), TT>("ag::clone", "")?,
        mul_: d.typed::<TT, (&mut TT, &TT), TT>("ag::mul_", "")?,
        mul_out: d.typed::<TT, (&TT, &TT, &mut TT), TT>("ag::mul", "out")?,
        narrow: d.typed::<TT, (&TT, i64, i64), TT>("ag::narrow", "")?,
        select: d.typed::<TT, (&TT, i64), TT>("ag::select", "")?,
        unbind: d.typed::<TT, (&TT,), Vec<TT>>("ag::unbind", "")?,
        max: d.typed::<TT, (&TT,), (TT, TT)>("ag::max", "")?,
        _views: install_inplace_or_view::<TT>(&d, "ag")?,
        _registrations: Vec::new(),
        dispatcher: d.clone(),
    };
    register_autograd(&lib, &ops, &mut regs)?;
    Ok(Ops {
        _registrations: regs,
        ..ops
    })
}

fn register_cpu(lib: &crate::dispatch::Library, regs: &mut Vec<Registration>) -> Result<(), Error> {
    regs.push(lib.impl_("add", K::CPU, |a: &TT, b: &TT| TT::zip(a, b, |x, y| x + y))?);
    regs.push(lib.impl_("mul", K::CPU, |a: &TT, b: &TT| TT::zip(a, b, |x, y| x * y))?);
    regs.push(lib.impl_("neg", K::CPU, |a: &TT| a.map(|x| -x))?);
    regs.push(lib.impl_("exp", K::CPU, |a: &TT| a.map(f64::exp))?);
    regs.push(lib.impl_("relu", K::CPU, |a: &TT| a.map(|x| x.max(0.0)))?);
    regs.push(lib.impl_("sum", K::CPU, |a: &TT| TT::scalar(a.values().iter().sum()))?);
    regs.push(lib.impl_("clone", K::CPU, |a: &TT| TT::new(a.shape(), a.values()))?);
    regs.push(lib.impl_("mul_", K::CPU, |a: &mut TT, b: &TT| {
        let product = TT::zip(a, b, |x, y| x * y)?;
        if product.shape() != a.shape() {
            return Err(Error::from("mul_: the product does not have self's shape"));
        }
        a.write(&product.values());
        Ok(a.clone())
    })?);
    regs.push(lib.impl_("mul.out", K::CPU, |a: &TT, b: &TT, o: &mut TT| {
        o.write(&TT::zip(a, b, |x, y| x * y)?.values());
        Ok::<_, Error>(o.clone())
    })?);
    regs.push(
        lib.impl_("narrow", K::CPU, |a: &TT, start: i64, length: i64| {
            let mut sizes = a.shape().to_vec();
            sizes[0] = length;
            a.view_with(
                sizes,
                a.stride().to_vec(),
                a.offset() + start * a.stride()[0],
            )
        })?,
    );
    regs.push(lib.impl_("select", K::CPU, |a: &TT, index: i64| select(a, index))?);
    regs.push(lib.impl_("unbind", K::CPU, |a: &TT| {
        (0..a.shape()[0]).map(|i| select(a, i)).collect::<Vec<_>>()
    })?);
    regs.push(lib.impl_("max", K::CPU, |a: &TT| {
        let values = a.values();
        let (i, m) = (values.iter().enumerate()).fold((0, f64::NEG_INFINITY), |best, (i, &v)| {
            if v > best.1 { (i, v) } else { best }
        });
        (TT::scalar(m), TT::scalar(i as f64))
    })?);
    Ok(())
}

fn select(a: &TT, index: i64) -> TT {
    a.view_with(
        a.shape()[1..].to_vec(),
        a.stride()[1..].to_vec(),
        a.offset() + index * a.stride()[0],
    )
}

fn o() -> &'static Ops {
    ops()
}

/// `mul`: `self: grad * other`, `other: grad * self`.
pub(crate) struct MulBackward {
    pub self_: SavedVariable<TT>,
    pub other: SavedVariable<TT>,
}

impl Backward<TT> for MulBackward {
    fn name(&self) -> &'static str {
        "MulBackward0"
    }
    fn apply(&mut self, ctx: &mut BackwardContext<'_, TT>) -> Result<(), Error> {
        let Some(grad) = ctx.grad(0).cloned() else {
            return Ok(());
        };
        if ctx.needs(0) {
            let other = self.other.get(ctx.node())?;
            ctx.set(0, Some(o().mul.try_call(&grad, &other)?));
        }
        if ctx.needs(1) {
            let self_ = self.self_.get(ctx.node())?;
            ctx.set(1, Some(o().mul.try_call(&grad, &self_)?));
        }
        Ok(())
    }
    fn release_saved(&mut self) {
        self.self_.reset();
        self.other.reset();
    }
}

/// A backward function from a closure over (saved values, grad, ctx); for the operators
/// whose formulas are one line.
struct Formula<S: Send + 'static> {
    name: &'static str,
    saved: S,
    f: fn(&mut S, &TT, &mut BackwardContext<'_, TT>) -> Result<(), Error>,
    release: fn(&mut S),
}

impl<S: Send + 'static> Backward<TT> for Formula<S> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn apply(&mut self, ctx: &mut BackwardContext<'_, TT>) -> Result<(), Error> {
        // PyTorch's `any_grad_defined`; the formulas of several outputs read `ctx.grads()`.
        if !ctx.any_grad_defined() {
            return Ok(());
        }
        let grad = ctx.grad(0).cloned().unwrap_or_else(|| TT::scalar(0.0));
        (self.f)(&mut self.saved, &grad, ctx)
    }
    fn release_saved(&mut self) {
        (self.release)(&mut self.saved)
    }
}

fn formula<S: Send + 'static>(
    name: &'static str,
    saved: S,
    f: fn(&mut S, &TT, &mut BackwardContext<'_, TT>) -> Result<(), Error>,
) -> Formula<S> {
    Formula {
        name,
        saved,
        f,
        release: |_| {},
    }
}

/// A formula over one saved tensor.
type SavingFormula =
    fn(&mut SavedVariable<TT>, &TT, &mut BackwardContext<'_, TT>) -> Result<(), Error>;

fn saving(name: &'static str, f: SavingFormula) -> Formula<SavedVariable<TT>> {
    Formula {
        name,
        saved: SavedVariable::none(),
        f,
        release: SavedVariable::reset,
    }
}

static ADD: AutogradOp = AutogradOp::new("add");
static MUL: AutogradOp = AutogradOp::new("mul");
static NEG: AutogradOp = AutogradOp::new("neg");
static EXP: AutogradOp = AutogradOp::new("exp");
static RELU: AutogradOp = AutogradOp::new("relu");
static SUM: AutogradOp = AutogradOp::new("sum");
static CLONE: AutogradOp = AutogradOp::new("clone");
static MUL_: AutogradOp = AutogradOp::new("mul_");
static MUL_OUT: AutogradOp = AutogradOp::new("mul");
static NARROW: AutogradOp = AutogradOp::new("narrow");
static SELECT: AutogradOp = AutogradOp::new("select");
static UNBIND: AutogradOp = AutogradOp::new("unbind");
static MAX: AutogradOp = AutogradOp {
    name: "max",
    output_differentiability: &[true, false],
};

fn register_autograd(
    lib: &crate::dispatch::Library,
    ops: &Ops,
    regs: &mut Vec<Registration>,
) -> Result<(), Error> {
    let at = K::AutogradCPU;
    let add = ops.add.clone();
    regs.push(
        lib.impl_("add", at, move |ks: DispatchKeySet, a: &TT, b: &TT| {
            // `self: grad`, `other: grad`: nothing saved; broadcasting is undone by the engine.
            let f = formula("AddBackward0", (), |_, grad, ctx| {
                (0..2).for_each(|i| ctx.set(i, Some(grad.clone())));
                Ok(())
            });
            functional(
                ks,
                &ADD,
                &[a.into(), b.into()],
                |_| Ok(f),
                |ks| add.try_redispatch(ks, a, b),
                |_, _| Ok(()),
            )
        })?,
    );
    let mul = ops.mul.clone();
    regs.push(
        lib.impl_("mul", at, move |ks: DispatchKeySet, a: &TT, b: &TT| {
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
                |ks| mul.try_redispatch(ks, a, b),
                |_, _| Ok(()),
            )
        })?,
    );
    let neg = ops.neg.clone();
    regs.push(lib.impl_("neg", at, move |ks: DispatchKeySet, a: &TT| {
        let f = formula("NegBackward0", (), |_, grad, ctx| {
            ctx.set(0, Some(o().neg.try_call(grad)?));
            Ok(())
        });
        functional(
            ks,
            &NEG,
            &[a.into()],
            |_| Ok(f),
            |ks| neg.try_redispatch(ks, a),
            |_, _| Ok(()),
        )
    })?);
    let exp = ops.exp.clone();
    regs.push(lib.impl_("exp", at, move |ks: DispatchKeySet, a: &TT| {
        // `self: grad * result`: the result is saved, the input is not.
        let f = saving("ExpBackward0", |result, grad, ctx| {
            let result = result.get(ctx.node())?;
            ctx.set(0, Some(o().mul.try_call(grad, &result)?));
            Ok(())
        });
        functional(
            ks,
            &EXP,
            &[a.into()],
            |_| Ok(f),
            |ks| exp.try_redispatch(ks, a),
            |f, r: &TT| {
                f.saved = SavedVariable::output(r, 0);
                Ok(())
            },
        )
    })?);
    let relu = ops.relu.clone();
    regs.push(lib.impl_("relu", at, move |ks: DispatchKeySet, a: &TT| {
        // `self: threshold_backward(grad, result, 0)`.
        let f = saving("ReluBackward0", |result, grad, ctx| {
            let mask = result
                .get(ctx.node())?
                .map(|x| if x > 0.0 { 1.0 } else { 0.0 });
            ctx.set(0, Some(o().mul.try_call(grad, &mask)?));
            Ok(())
        });
        functional(
            ks,
            &RELU,
            &[a.into()],
            |_| Ok(f),
            |ks| relu.try_redispatch(ks, a),
            |f, r: &TT| {
                f.saved = SavedVariable::output(r, 0);
                Ok(())
            },
        )
    })?);
    let sum = ops.sum.clone();
    regs.push(lib.impl_("sum", at, move |ks: DispatchKeySet, a: &TT| {
        // `self: grad.expand_symint(self.sym_sizes())`: only the sizes are saved.
        let f = formula("SumBackward0", a.shape().to_vec(), |sizes, grad, ctx| {
            let n = sizes.iter().product::<i64>() as usize;
            let ones = TT::new(sizes, vec![1.0; n]);
            ctx.set(0, Some(o().mul.try_call(&ones, grad)?));
            Ok(())
        });
        functional(
            ks,
            &SUM,
            &[a.into()],
            |_| Ok(f),
            |ks| sum.try_redispatch(ks, a),
            |_, _| Ok(()),
        )
    })?);
    let clone = ops.clone.clone();
    regs.push(lib.impl_("clone", at, move |ks: DispatchKeySet, a: &TT| {
        let f = formula("CloneBackward0", (), |_, grad, ctx| {
            ctx.set(0, Some(grad.clone()));
            Ok(())
        });
        functional(
            ks,
            &CLONE,
            &[a.into()],
            |_| Ok(f),
            |ks| clone.try_redispatch(ks, a),
            |_, _| Ok(()),
        )
    })?);
    register_mutating(lib, ops, regs)?;
    register_views(lib, ops, regs)
}

fn register_mutating(
    lib: &crate::dispatch::Library,
    ops: &Ops,
    regs: &mut Vec<Registration>,
) -> Result<(), Error> {
    let at = K::AutogradCPU;
    let mul_ = ops.mul_.clone();
    regs.push(
        lib.impl_("mul_", at, move |ks: DispatchKeySet, a: &mut TT, b: &TT| {
            // The functional formula; `self` is needed before it is overwritten: a clone.
            let self_ = a.clone();
            let save = |mask: &[bool]| {
                let original = if mask[1] {
                    let _no_grad = crate::autograd::NoGradGuard::new();
                    SavedVariable::input(&o().clone.try_call(&self_)?)
                } else {
                    SavedVariable::none()
                };
                Ok(MulBackward {
                    self_: original,
                    other: if mask[0] {
                        SavedVariable::input(b)
                    } else {
                        SavedVariable::none()
                    },
                })
            };
            inplace(
                ks,
                &MUL_,
                &self_,
                &[(&self_).into(), b.into()],
                save,
                |ks| mul_.try_redispatch(ks, a, b),
                |_, _| Ok(()),
            )
        })?,
    );
    let mul_out = ops.mul_out.clone();
    regs.push(lib.impl_(
        "mul.out",
        at,
        move |ks: DispatchKeySet, a: &TT, b: &TT, dst: &mut TT| {
            let dst_handle = dst.clone();
            out(
                ks,
                &MUL_OUT,
                &[a.into(), b.into()],
                &[(&dst_handle).into()],
                |ks| mul_out.try_redispatch(ks, a, b, dst),
            )
        },
    )?);
    let max = ops.max.clone();
    regs.push(lib.impl_("max", at, move |ks: DispatchKeySet, a: &TT| {
        // `self: value_selecting_reduction_backward(grad, indices)`; `indices` is not
        // differentiable.
        let f = formula(
            "MaxBackward0",
            (a.shape().to_vec(), SavedVariable::none()),
            |(sizes, indices), grad, ctx| {
                let index = indices.get(ctx.node())?.values()[0] as usize;
                let n = sizes.iter().product::<i64>() as usize;
                let mut onehot = vec![0.0; n];
                onehot[index] = 1.0;
                ctx.set(0, Some(o().mul.try_call(&TT::new(sizes, onehot), grad)?));
                Ok(())
            },
        );
        functional(
            ks,
            &MAX,
            &[a.into()],
            |_| Ok(f),
            |ks| max.try_redispatch(ks, a),
            |f, r: &(TT, TT)| {
                f.saved.1 = SavedVariable::input(&r.1);
                Ok(())
            },
        )
    })?);
    Ok(())
}

fn register_views(
    lib: &crate::dispatch::Library,
    ops: &Ops,
    regs: &mut Vec<Registration>,
) -> Result<(), Error> {
    let at = K::AutogradCPU;
    let narrow = ops.narrow.clone();
    regs.push(lib.impl_(
        "narrow",
        at,
        move |ks: DispatchKeySet, a: &TT, start: i64, length: i64| {
            let replay =
                |_| -> ViewFn<TT> { Arc::new(move |t: &TT| o().narrow.try_call(t, start, length)) };
            let f = formula(
                "NarrowBackward0",
                (a.shape().to_vec(), start),
                |(sizes, start), grad, ctx| {
                    ctx.set(0, Some(embed(sizes, *start, grad)));
                    Ok(())
                },
            );
            view(
                ks,
                &NARROW,
                a,
                &[a.into()],
                replay,
                |_| Ok(f),
                |ks| narrow.try_redispatch(ks, a, start, length),
                |_, _| Ok(()),
            )
        },
    )?);
    let select = ops.select.clone();
    regs.push(lib.impl_(
        "select",
        at,
        move |ks: DispatchKeySet, a: &TT, index: i64| {
            let replay =
                |_| -> ViewFn<TT> { Arc::new(move |t: &TT| o().select.try_call(t, index)) };
            let f = formula(
                "SelectBackward0",
                (a.shape().to_vec(), index),
                |(sizes, index), grad, ctx| {
                    let mut inner = sizes.clone();
                    inner[0] = 1;
                    let g = TT::new(&inner, grad.values());
                    ctx.set(0, Some(embed(sizes, *index, &g)));
                    Ok(())
                },
            );
            view(
                ks,
                &SELECT,
                a,
                &[a.into()],
                replay,
                |_| Ok(f),
                |ks| select.try_redispatch(ks, a, index),
                |_, _| Ok(()),
            )
        },
    )?);
    let unbind = ops.unbind.clone();
    regs.push(lib.impl_("unbind", at, move |ks: DispatchKeySet, a: &TT| {
        let replay =
            |i: usize| -> ViewFn<TT> { Arc::new(move |t: &TT| o().select.try_call(t, i as i64)) };
        let f = formula("UnbindBackward0", a.shape().to_vec(), |sizes, _, ctx| {
            let n = sizes.iter().product::<i64>() as usize;
            let row = n / sizes[0].max(1) as usize;
            let mut values = vec![0.0; n];
            for (i, g) in ctx.grads().iter().enumerate() {
                if let Some(g) = g {
                    values[i * row..(i + 1) * row].copy_from_slice(&g.values());
                }
            }
            ctx.set(0, Some(TT::new(sizes, values)));
            Ok(())
        });
        view(
            ks,
            &UNBIND,
            a,
            &[a.into()],
            replay,
            |_| Ok(f),
            |ks| unbind.try_redispatch(ks, a),
            |_, _| Ok(()),
        )
    })?);
    Ok(())
}

/// Zeros of `sizes` with `grad` written at rows `start..` (the backward of `narrow`).
fn embed(sizes: &[i64], start: i64, grad: &TT) -> TT {
    let n = sizes.iter().product::<i64>() as usize;
    let row = n / sizes[0].max(1) as usize;
    let mut values = vec![0.0; n];
    let g = grad.values();
    let at = start as usize * row;
    values[at..at + g.len()].copy_from_slice(&g);
    TT::new(sizes, values)
}
