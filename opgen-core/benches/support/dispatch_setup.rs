//! The operators, kernels and tensors measured by `benches/dispatch.rs` and counted by
//! `examples/dispatch_callgrind.rs`: no-op kernels that return (a clone of) their
//! reference-counted tensor argument, for `bench::identity(Tensor self) -> Tensor`,
//! `bench::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`, 3,000 other
//! operators `bench::other_<i>.overload(Tensor self) -> Tensor` (each with its own
//! registration of the identity kernel), and `agbench::ag_identity` with a CPU kernel and an
//! Autograd kernel as generated code writes it.

use std::sync::Arc;

use opgen_core::autograd::{
    AutogradMeta, AutogradOp, Backward, BackwardContext, Differentiable, functional,
};
use opgen_core::dispatch::{
    DispatchKey, DispatchKeySet, Dispatcher, Error, Registration, Scalar, Tensor, TypedOperator,
};

/// A tensor that is only its key set, behind a reference count (as a real tensor handle).
#[derive(Clone)]
pub struct BenchTensor(Arc<DispatchKeySet>);

impl Tensor for BenchTensor {
    fn key_set(&self) -> DispatchKeySet {
        *self.0
    }
}

pub fn identity(t: &BenchTensor) -> BenchTensor {
    t.clone()
}

pub fn add(a: &BenchTensor, _b: &BenchTensor, _alpha: Scalar) -> BenchTensor {
    a.clone()
}

/// A tensor type that takes part in autograd (its math is never called here).
#[derive(Clone)]
pub struct AgTensor(Arc<(DispatchKeySet, AutogradMeta<AgTensor>)>);

impl AgTensor {
    pub fn new(keys: &[DispatchKey]) -> AgTensor {
        AgTensor(Arc::new((
            DispatchKeySet::from_keys(keys),
            AutogradMeta::new(),
        )))
    }
}

impl Tensor for AgTensor {
    fn key_set(&self) -> DispatchKeySet {
        self.0.0
    }
    fn autograd_meta(&self) -> Option<&AutogradMeta<Self>> {
        Some(&self.0.1)
    }
}

impl Differentiable for AgTensor {
    fn detach(&self) -> Result<Self, Error> {
        Ok(AgTensor::new(&[DispatchKey::CPU]))
    }
    fn ones_like(&self) -> Result<Self, Error> {
        self.detach()
    }
    fn zeros_like(&self) -> Result<Self, Error> {
        self.detach()
    }
    fn accumulate(&self, _: &Self) -> Result<Self, Error> {
        self.detach()
    }
    fn sum_to(&self, _: &[i64]) -> Result<Self, Error> {
        self.detach()
    }
}

struct IdentityBackward;

impl Backward<AgTensor> for IdentityBackward {
    fn name(&self) -> &'static str {
        "IdentityBackward0"
    }
    fn apply(&mut self, ctx: &mut BackwardContext<'_, AgTensor>) -> Result<(), Error> {
        let grad = ctx.grad(0).cloned();
        ctx.set(0, grad);
        Ok(())
    }
}

static AG_IDENTITY: AutogradOp = AutogradOp::new("ag_identity");

pub type Identity = TypedOperator<BenchTensor, (&'static BenchTensor,), BenchTensor>;
pub type Add =
    TypedOperator<BenchTensor, (&'static BenchTensor, &'static BenchTensor, Scalar), BenchTensor>;
pub type AgIdentity = TypedOperator<AgTensor, (&'static AgTensor,), AgTensor>;

/// Operators defined besides the measured ones, so that lookups search a realistic registry
/// and the cycling case touches many operators' dispatch data.
pub const OTHER_OPERATORS: usize = 3000;

/// Everything the cases use, registered in the global dispatcher.
pub struct Setup {
    pub identity: Identity,
    pub add: Add,
    /// The other operators' typed handles, each with its own CPU kernel.
    pub many: Vec<Identity>,
    /// A tensor with the CPU key only.
    pub cpu: BenchTensor,
    /// A tensor with CPU and AutogradCPU (served by the default fallthrough fallback).
    pub autograd: BenchTensor,
    pub ag_identity: AgIdentity,
    pub ag_plain: AgTensor,
    pub ag_tracked: AgTensor,
    _registrations: Vec<Registration>,
}

impl Setup {
    /// Registers the operators (once per process: the namespaces are taken afterwards).
    pub fn new() -> Result<Setup, Error> {
        let d = Dispatcher::global();
        let lib = d.library("bench")?;
        let (ag_identity, mut registrations) = autograd_setup(d)?;
        registrations.extend([
            lib.def("identity(Tensor self) -> Tensor")?,
            lib.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")?,
            lib.impl_("identity", DispatchKey::CPU, identity)?,
            lib.impl_("add.Tensor", DispatchKey::CPU, add)?,
        ]);
        for i in 0..OTHER_OPERATORS {
            let name = format!("other_{i}.overload");
            registrations.push(lib.def(&format!("{name}(Tensor self) -> Tensor"))?);
            registrations.push(lib.impl_(&name, DispatchKey::CPU, identity)?);
        }
        let many = (0..OTHER_OPERATORS)
            .map(|i| {
                d.typed::<_, (&BenchTensor,), BenchTensor>(&format!("bench::other_{i}"), "overload")
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Setup {
            identity: d.typed::<_, (&BenchTensor,), BenchTensor>("bench::identity", "")?,
            add: d.typed::<_, (&BenchTensor, &BenchTensor, Scalar), BenchTensor>(
                "bench::add",
                "Tensor",
            )?,
            many,
            cpu: BenchTensor(Arc::new(DispatchKey::CPU.into())),
            autograd: BenchTensor(Arc::new(DispatchKeySet::from_keys(&[
                DispatchKey::CPU,
                DispatchKey::AutogradCPU,
            ]))),
            ag_identity,
            ag_plain: AgTensor::new(&[DispatchKey::CPU]),
            ag_tracked: AgTensor::new(&[DispatchKey::CPU, DispatchKey::AutogradCPU]),
            _registrations: registrations,
        })
    }

    /// The cycling case's next handle: one call per operator in turn.
    pub fn next_of_many(&self, next: &mut usize) -> &Identity {
        let op = &self.many[*next];
        *next = if *next + 1 == self.many.len() {
            0
        } else {
            *next + 1
        };
        op
    }
}

/// `agbench::ag_identity` with a CPU kernel and an Autograd kernel, as generated code makes it.
fn autograd_setup(d: &Dispatcher) -> Result<(AgIdentity, Vec<Registration>), Error> {
    let lib = d.library("agbench")?;
    let def = lib.def("ag_identity(Tensor self) -> Tensor")?;
    let cpu = lib.impl_("ag_identity", DispatchKey::CPU, |t: &AgTensor| t.clone())?;
    let op = d.typed::<AgTensor, (&AgTensor,), AgTensor>("agbench::ag_identity", "")?;
    let inner = op.clone();
    let autograd = lib.impl_(
        "ag_identity",
        DispatchKey::AutogradCPU,
        move |ks: DispatchKeySet, t: &AgTensor| {
            functional(
                ks,
                &AG_IDENTITY,
                &[t.into()],
                |_| Ok(IdentityBackward),
                |ks| inner.try_redispatch(ks, t),
                |_, _| Ok(()),
            )
        },
    )?;
    Ok((op, vec![def, cpu, autograd]))
}
