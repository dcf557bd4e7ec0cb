//! Overhead of the tracer's kernel (`opgen_core::cross::install_tracer`) on
//! `add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`, whose CPU kernel
//! returns a clone of its reference-counted argument:
//!
//! * (a) `typed`: a typed call in a dispatcher without the tracer (the baseline);
//! * (b) `typed_tracer_off`: the same call with the tracer installed and no trace being
//!   recorded: `Tracer` is in no key set, so the call never reaches the kernel;
//! * (c) `typed_tracer_key_off`: (b) with tensors that carry the `Tracer` key: the boxed
//!   tracer kernel runs, finds no trace, and redispatches (boxing the arguments once);
//! * (d) `typed_tracing`: (b) while a trace is being recorded (a fresh one every 10,000
//!   calls, so that it stays small).
//!
//! Run with `cargo bench -p opgen-core --bench cross`. After criterion's report, a summary
//! gives ns per call and the ratio to (a), measured again with plain timing loops.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use criterion::Criterion;
use opgen_core::cross::{Installed, TracingGuard, install_tracer, start_tracing};
use opgen_core::dispatch::{
    DispatchKey, DispatchKeySet, Dispatcher, Error, Registration, Scalar, Tensor, TypedOperator,
};

#[derive(Clone)]
struct BenchTensor(Arc<DispatchKeySet>);

impl Tensor for BenchTensor {
    fn key_set(&self) -> DispatchKeySet {
        *self.0
    }
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(vec![1])
    }
    fn is_same(&self, other: &Self) -> Result<bool, Error> {
        Ok(Arc::ptr_eq(&self.0, &other.0))
    }
}

fn add(a: &BenchTensor, _b: &BenchTensor, _alpha: Scalar) -> BenchTensor {
    a.clone()
}

type Add =
    TypedOperator<BenchTensor, (&'static BenchTensor, &'static BenchTensor, Scalar), BenchTensor>;

struct Setup {
    plain: Add,
    traced: Add,
    cpu: BenchTensor,
    cpu_tracer: BenchTensor,
    _tracer: Installed,
    _registrations: Vec<Registration>,
}

/// A dispatcher with `bench::add.Tensor` and its CPU kernel.
fn dispatcher(registrations: &mut Vec<Registration>) -> (Dispatcher, Add) {
    let d = Dispatcher::new();
    let lib = d.library("bench").expect("namespace");
    registrations.push(
        lib.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
            .expect("def"),
    );
    registrations.push(
        lib.impl_("add.Tensor", DispatchKey::CPU, add)
            .expect("impl"),
    );
    let add = d
        .typed::<_, (&BenchTensor, &BenchTensor, Scalar), BenchTensor>("bench::add", "Tensor")
        .expect("typed");
    (d, add)
}

fn setup() -> Setup {
    let mut registrations = Vec::new();
    let (_, plain) = dispatcher(&mut registrations);
    let (d, traced) = dispatcher(&mut registrations);
    let tracer = install_tracer::<BenchTensor>(&d, "bench").expect("tracer");
    Setup {
        plain,
        traced,
        cpu: BenchTensor(Arc::new(DispatchKey::CPU.into())),
        cpu_tracer: BenchTensor(Arc::new(DispatchKeySet::from_keys(&[
            DispatchKey::CPU,
            DispatchKey::Tracer,
        ]))),
        _tracer: tracer,
        _registrations: registrations,
    }
}

/// A named loop body.
type Case<'s> = (&'static str, Box<dyn FnMut() + 's>);

fn cases(s: &Setup) -> Vec<Case<'_>> {
    let call = |op: &'static str, add: &'_ Add, t: &'_ BenchTensor| -> Case<'_> {
        let add = add.clone();
        let t = t.clone();
        (
            op,
            Box::new(move || {
                drop(black_box(add.call(
                    black_box(&t),
                    black_box(&t),
                    Scalar::Int(1),
                )))
            }),
        )
    };
    let mut n = 0u32;
    let mut trace: Option<TracingGuard<BenchTensor>> = None;
    let traced = s.traced.clone();
    let t = s.cpu.clone();
    vec![
        call("a_typed", &s.plain, &s.cpu),
        call("b_typed_tracer_off", &s.traced, &s.cpu),
        call("c_typed_tracer_key_off", &s.traced, &s.cpu_tracer),
        (
            "d_typed_tracing",
            Box::new(move || {
                if n.is_multiple_of(10_000) {
                    drop(trace.take()); // ends the trace before the next one starts
                    trace = Some(start_tracing::<BenchTensor>());
                }
                n += 1;
                drop(black_box(traced.call(
                    black_box(&t),
                    black_box(&t),
                    Scalar::Int(1),
                )));
            }),
        ),
    ]
}

fn bench(c: &mut Criterion, s: &Setup) {
    let mut group = c.benchmark_group("cross/tracer");
    for (name, mut body) in cases(s) {
        group.bench_function(name, |b| b.iter(&mut body));
    }
    group.finish();
}

/// ns per call: the best of 7 runs of `n` calls.
fn time(body: &mut dyn FnMut(), n: u32) -> f64 {
    (0..7)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..n {
                body();
            }
            start.elapsed().as_secs_f64() * 1e9 / f64::from(n)
        })
        .fold(f64::INFINITY, f64::min)
}

fn summary(s: &Setup) {
    println!("\nsummary: ns per call (best of 7 x 1,000,000), ratio to (a)");
    let mut baseline = 0.0;
    for (name, mut body) in cases(s) {
        let ns = time(&mut *body, 1_000_000);
        if name == "a_typed" {
            baseline = ns;
        }
        println!("  {name:<24} {ns:8.2} ns   x{:.2}", ns / baseline);
    }
}

fn main() {
    let s = setup();
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &s);
    c.final_summary();
    summary(&s);
}
