//! A fixed number of calls of one dispatch benchmark case, for counting instructions with
//! callgrind (the cases are those of `benches/dispatch.rs`):
//!
//! ```text
//! cargo build --release --example dispatch_callgrind
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/dispatch_callgrind b1 100000
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/dispatch_callgrind b1 200000
//! ```
//!
//! Instructions per call = (total of the second run - total of the first) / 100000, which
//! cancels start-up and registration. Cases: `a1 b1 c1 d1` (one argument) and `a3 b3 c3 d3`
//! (three): a = direct call through an opaque function pointer, b = typed call, c = boxed
//! call (push the arguments, call, pop the result), d = typed call with an autograd key
//! served by the dispatcher's default fallthrough fallback; and `e1`, a boxed call whose result stays on the stack
//! as the next call's argument (the dispatcher's share of c1, without the caller's push/pop).
//! `g1`: a typed call through an Autograd kernel (`autograd::functional`) on a tensor type
//! that takes part in autograd, no input requiring grad; `g0`: the same operator and type
//! without the autograd key (its baseline).
//! Lookups by name, among 3,000 other operators: `find` (`Dispatcher::find`, the handle
//! dropped), `find_typed_call` (`find`, `typed()` and b1's call, every time) and
//! `find_missing` (a failed `find`, error included).
//! `b1_many`: b1's call cycling over those 3,000 operators (each with the same CPU kernel,
//! each its own registration), one call per operator in turn: what a program that uses many
//! operators pays when they are not all in the caches. With `--cache-sim=yes`, callgrind
//! counts the data cache misses per call too (`D1mr`).

use std::hint::black_box;
use std::process::ExitCode;
use std::sync::Arc;

use opgen_core::autograd::{
    AutogradMeta, AutogradOp, Backward, BackwardContext, Differentiable, functional,
};
use opgen_core::dispatch::{
    DispatchKey, DispatchKeySet, Dispatcher, Error, IValue, Library, Registration, Scalar, Stack,
    Tensor, TypedOperator,
};

#[derive(Clone)]
struct BenchTensor(Arc<DispatchKeySet>);

impl Tensor for BenchTensor {
    fn key_set(&self) -> DispatchKeySet {
        *self.0
    }
}

fn identity(t: &BenchTensor) -> BenchTensor {
    t.clone()
}

fn add(a: &BenchTensor, _b: &BenchTensor, _alpha: Scalar) -> BenchTensor {
    a.clone()
}

/// A tensor type that takes part in autograd (its math is never called here).
#[derive(Clone)]
struct AgTensor(Arc<(DispatchKeySet, AutogradMeta<AgTensor>)>);

impl AgTensor {
    fn new(keys: &[DispatchKey]) -> AgTensor {
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

/// The g cases: `agbench::ag_identity` with a CPU kernel and an Autograd kernel.
fn run_autograd(case: &str, n: u64) -> Result<(), Error> {
    let d = Dispatcher::global();
    let lib = d.library("agbench")?;
    let _def = lib.def("ag_identity(Tensor self) -> Tensor")?;
    let _cpu = lib.impl_("ag_identity", DispatchKey::CPU, |t: &AgTensor| t.clone())?;
    let op = d.typed::<AgTensor, (&AgTensor,), AgTensor>("agbench::ag_identity", "")?;
    let inner = op.clone();
    let _autograd = lib.impl_(
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
    let t = match case {
        "g0" => AgTensor::new(&[DispatchKey::CPU]),
        _ => AgTensor::new(&[DispatchKey::CPU, DispatchKey::AutogradCPU]),
    };
    for _ in 0..n {
        drop(black_box(op.call(black_box(&t))));
    }
    Ok(())
}

const CASES: &str =
    "a1 b1 c1 d1 e1 a3 b3 c3 d3 find find_typed_call find_missing g0 g1 b1_many";

/// The operators defined besides the measured ones.
const OTHERS: usize = 3000;

type Identity = TypedOperator<BenchTensor, (&'static BenchTensor,), BenchTensor>;

/// A CPU kernel for each of the other operators, and their typed handles.
fn many_operators(lib: &Library) -> Result<(Vec<Registration>, Vec<Identity>), Error> {
    let d = lib.dispatcher();
    let kernels = (0..OTHERS)
        .map(|i| lib.impl_(&format!("other_{i}.overload"), DispatchKey::CPU, identity))
        .collect::<Result<Vec<_>, Error>>()?;
    let handles = (0..OTHERS)
        .map(|i| d.typed::<_, (&BenchTensor,), BenchTensor>(&format!("bench::other_{i}"), "overload"))
        .collect::<Result<Vec<_>, Error>>()?;
    Ok((kernels, handles))
}

fn run(case: &str, n: u64) -> Result<(), Error> {
    if case.starts_with('g') {
        return run_autograd(case, n);
    }
    let d = Dispatcher::global();
    let lib = d.library("bench")?;
    let _defs = (
        lib.def("identity(Tensor self) -> Tensor")?,
        lib.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")?,
        lib.impl_("identity", DispatchKey::CPU, identity)?,
        lib.impl_("add.Tensor", DispatchKey::CPU, add)?,
    );
    let _others = (0..OTHERS)
        .map(|i| lib.def(&format!("other_{i}.overload(Tensor self) -> Tensor")))
        .collect::<Result<Vec<_>, Error>>()?;
    let (_kernels, many) = if case == "b1_many" {
        many_operators(&lib)?
    } else {
        (Vec::new(), Vec::new())
    };
    let op1 = d.typed::<_, (&BenchTensor,), BenchTensor>("bench::identity", "")?;
    let op3 =
        d.typed::<_, (&BenchTensor, &BenchTensor, Scalar), BenchTensor>("bench::add", "Tensor")?;
    let cpu = BenchTensor(Arc::new(DispatchKey::CPU.into()));
    let autograd = BenchTensor(Arc::new(DispatchKeySet::from_keys(&[
        DispatchKey::CPU,
        DispatchKey::AutogradCPU,
    ])));
    let direct1: fn(&BenchTensor) -> BenchTensor = black_box(identity);
    let direct3: fn(&BenchTensor, &BenchTensor, Scalar) -> BenchTensor = black_box(add);
    let mut stack: Stack<BenchTensor> = Stack::with_capacity(4);
    let t = &cpu;
    // The case is chosen once, outside the loop, so that every case's loop is only its call.
    macro_rules! repeat {
        ($body:expr) => {
            for _ in 0..n {
                $body;
            }
        };
    }
    match case {
        "a1" => repeat!(drop(black_box(direct1(black_box(t))))),
        "b1" => repeat!(drop(black_box(op1.call(black_box(t))))),
        "b1_many" => {
            let mut i = 0;
            repeat!({
                drop(black_box(many[i].call(black_box(t))));
                i = if i + 1 == many.len() { 0 } else { i + 1 };
            });
        }
        "c1" => repeat!({
            stack.push(IValue::Tensor(black_box(t).clone()));
            op1.handle().call_boxed(&mut stack)?;
            drop(black_box(stack.pop()));
        }),
        // The result of each call is the argument of the next: no push or pop by the caller.
        "e1" => {
            stack.push(IValue::Tensor(t.clone()));
            repeat!(op1.handle().call_boxed(black_box(&mut stack))?);
        }
        "d1" => repeat!(drop(black_box(op1.call(black_box(&autograd))))),
        "a3" => repeat!(drop(black_box(direct3(
            black_box(t),
            black_box(t),
            Scalar::Int(1)
        )))),
        "b3" => repeat!(drop(black_box(op3.call(
            black_box(t),
            black_box(t),
            Scalar::Int(1)
        )))),
        "c3" => repeat!({
            stack.push(IValue::Tensor(black_box(t).clone()));
            stack.push(IValue::Tensor(black_box(t).clone()));
            stack.push(IValue::from(Scalar::Int(1)));
            op3.handle().call_boxed(&mut stack)?;
            drop(black_box(stack.pop()));
        }),
        "d3" => repeat!(drop(black_box(op3.call(
            black_box(&autograd),
            black_box(&autograd),
            Scalar::Int(1)
        )))),
        "find" => repeat!(drop(black_box(d.find(black_box("bench::identity"), "")?))),
        "find_typed_call" => repeat!({
            let op = d.find(black_box("bench::identity"), "")?;
            let typed = op.typed::<BenchTensor, (&BenchTensor,), BenchTensor>()?;
            drop(black_box(typed.call(black_box(t))));
        }),
        "find_missing" => repeat!(drop(black_box(
            d.find(black_box("bench::identity"), "nope")
        ))),
        other => {
            return Err(Error::from(format!(
                "unknown case `{other}`; expected {CASES}"
            )));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(case), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse().ok())) else {
        eprintln!("usage: dispatch_callgrind CASE ITERATIONS (CASE: {CASES})");
        return ExitCode::FAILURE;
    };
    match run(case, n) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
