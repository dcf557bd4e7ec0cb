//! Dispatch overhead, on no-op kernels that return (a clone of) their reference-counted tensor
//! argument, for `identity(Tensor self) -> Tensor` and
//! `add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`:
//!
//! * (a) `direct`: the kernel called through a function pointer hidden from the optimiser;
//! * (b) `typed`: a dispatched call through a cached typed handle; `b_typed_3000_ops` makes
//!   the same call cycling over 3,000 operators (each with its own registration of the same
//!   kernel), one call per operator in turn, so that their dispatch data is not all in the
//!   caches;
//! * (c) `boxed`: a boxed call (push the arguments, call, pop the result; the stack is reused);
//!   `boxed_resident` leaves the result on the stack as the next call's argument, which
//!   separates the dispatcher's share from the caller's pushes and pops;
//! * (d) `typed_autograd`: (b) with a tensor that also carries `AutogradCPU`, which has no
//!   kernel but the dispatcher's default fallthrough fallback (resolved when the table is
//!   built);
//! * (e) `autograd_kernel`: a typed call of an operator with an Autograd kernel (the runtime's
//!   `autograd::functional`) on a tensor type that takes part in autograd, no input requiring
//!   grad; `e0_plain` is the same operator and type without the autograd key, its baseline;
//! * (f) `find`: `Dispatcher::find` by name, among the 3,000 other operators the setup
//!   defines (the handle is dropped);
//! * (g) `find_typed_call`: what an interpreter does without caching: `find`, `typed()` and
//!   (b)'s call, every time;
//! * (h) `find_missing`: a failed `find` (an overload that does not exist), error included.
//!
//! The summary also times (f) on two threads at once: lookups do not take a lock, so each
//! thread's figure stays near the one-thread figure.
//!
//! Run with `cargo bench -p opgen-core --bench dispatch`. After criterion's report, a summary
//! gives ns per call and the overhead over (a), measured again with plain timing loops.

use std::hint::black_box;
use std::time::Instant;

use criterion::Criterion;
use opgen_core::dispatch::{Dispatcher, IValue, Scalar, Stack};

#[path = "support/dispatch_setup.rs"]
mod dispatch_setup;

use dispatch_setup::{BenchTensor, Setup, add, identity};

/// A named loop body.
type Case<'s> = (&'static str, Box<dyn FnMut() + 's>);

fn cases(s: &Setup) -> Vec<Case<'_>> {
    let direct1: fn(&BenchTensor) -> BenchTensor = black_box(identity);
    let direct3: fn(&BenchTensor, &BenchTensor, Scalar) -> BenchTensor = black_box(add);
    let mut stack1: Stack<BenchTensor> = Stack::with_capacity(4);
    let mut stack3: Stack<BenchTensor> = Stack::with_capacity(4);
    let mut resident: Stack<BenchTensor> = Stack::from(vec![IValue::Tensor(s.cpu.clone())]);
    let op1_resident = s.identity.handle().clone();
    let op1 = s.identity.handle().clone();
    let op3 = s.add.handle().clone();
    let d = Dispatcher::global();
    let mut next = 0;
    vec![
        (
            "1arg/a_direct",
            Box::new(move || drop(black_box(direct1(black_box(&s.cpu))))),
        ),
        (
            "1arg/b_typed",
            Box::new(move || drop(black_box(s.identity.call(black_box(&s.cpu))))),
        ),
        (
            "1arg/b_typed_3000_ops",
            Box::new(move || {
                drop(black_box(s.next_of_many(&mut next).call(black_box(&s.cpu))));
            }),
        ),
        (
            "1arg/c_boxed",
            Box::new(move || {
                stack1.push(IValue::Tensor(black_box(&s.cpu).clone()));
                op1.call_boxed(&mut stack1).expect("call");
                drop(black_box(stack1.pop()));
            }),
        ),
        (
            "1arg/c_boxed_resident",
            Box::new(move || {
                op1_resident
                    .call_boxed(black_box(&mut resident))
                    .expect("call")
            }),
        ),
        (
            "1arg/d_typed_autograd",
            Box::new(move || drop(black_box(s.identity.call(black_box(&s.autograd))))),
        ),
        (
            "1arg/e0_plain",
            Box::new(move || drop(black_box(s.ag_identity.call(black_box(&s.ag_plain))))),
        ),
        (
            "1arg/e_autograd_kernel",
            Box::new(move || drop(black_box(s.ag_identity.call(black_box(&s.ag_tracked))))),
        ),
        (
            "1arg/f_find",
            Box::new(move || drop(black_box(d.find(black_box("bench::identity"), "")))),
        ),
        (
            "1arg/g_find_typed_call",
            Box::new(move || {
                let op = d.find(black_box("bench::identity"), "").expect("find");
                let typed = op
                    .typed::<BenchTensor, (&BenchTensor,), BenchTensor>()
                    .expect("typed");
                drop(black_box(typed.call(black_box(&s.cpu))));
            }),
        ),
        (
            "1arg/h_find_missing",
            Box::new(move || drop(black_box(d.find(black_box("bench::identity"), "nope")))),
        ),
        (
            "3arg/a_direct",
            Box::new(move || {
                drop(black_box(direct3(
                    black_box(&s.cpu),
                    black_box(&s.cpu),
                    Scalar::Int(1),
                )))
            }),
        ),
        (
            "3arg/b_typed",
            Box::new(move || {
                drop(black_box(s.add.call(
                    black_box(&s.cpu),
                    black_box(&s.cpu),
                    Scalar::Int(1),
                )))
            }),
        ),
        (
            "3arg/c_boxed",
            Box::new(move || {
                stack3.push(IValue::Tensor(black_box(&s.cpu).clone()));
                stack3.push(IValue::Tensor(black_box(&s.cpu).clone()));
                stack3.push(IValue::from(Scalar::Int(1)));
                op3.call_boxed(&mut stack3).expect("call");
                drop(black_box(stack3.pop()));
            }),
        ),
        (
            "3arg/d_typed_autograd",
            Box::new(move || {
                drop(black_box(s.add.call(
                    black_box(&s.autograd),
                    black_box(&s.autograd),
                    Scalar::Int(1),
                )))
            }),
        ),
    ]
}

fn bench(c: &mut Criterion, s: &Setup) {
    let mut group = c.benchmark_group("dispatch");
    for (name, mut body) in cases(s) {
        group.bench_function(name, |b| b.iter(&mut body));
    }
    group.finish();
}

/// ns per call: the best of 3,000 batches of about 20 µs each. On a busy machine a batch
/// that ran without being preempted shows what the calls cost; long runs never do.
fn time(body: &mut dyn FnMut()) -> f64 {
    let start = Instant::now();
    let mut calibration = 0u32;
    while start.elapsed().as_micros() < 200 {
        body();
        calibration += 1;
    }
    let n = (calibration / 10).max(1);
    (0..3000)
        .map(|_| time_n(body, n))
        .fold(f64::INFINITY, f64::min)
}

/// ns per call of one run of `n` calls.
fn time_n(body: &mut dyn FnMut(), n: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..n {
        body();
    }
    start.elapsed().as_secs_f64() * 1e9 / f64::from(n)
}

fn summary(s: &Setup) {
    println!("\nsummary: ns per call (best of 3,000 batches of about 20 µs), overhead over (a)");
    let mut direct = 0.0;
    for (name, mut body) in cases(s) {
        let ns = time(&mut *body);
        if name.ends_with("a_direct") {
            direct = ns;
        }
        println!("  {name:<24} {ns:8.2} ns   {:+8.2} ns", ns - direct);
    }
}

/// ns per `find` on each of two threads looking up the same operator at once.
fn two_threads() -> [f64; 2] {
    let d = Dispatcher::global();
    let barrier = std::sync::Barrier::new(2);
    std::thread::scope(|scope| {
        let run = || {
            barrier.wait();
            time(&mut || drop(black_box(d.find(black_box("bench::identity"), ""))))
        };
        let other = scope.spawn(run);
        let here = run();
        [here, other.join().expect("no panic")]
    })
}

fn main() {
    let s = Setup::new().expect("setup");
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &s);
    c.final_summary();
    summary(&s);
    let [a, b] = two_threads();
    println!(
        "  {:<24} {a:6.2} ns and {b:6.2} ns (two threads at once)",
        "1arg/f_find"
    );
}
