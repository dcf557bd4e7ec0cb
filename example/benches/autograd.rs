//! What the generated Autograd kernels cost on `MiniTensor`, each figure a difference of two
//! measurements in the same run:
//!
//! * **the Autograd kernel when no input requires grad**: `fresh_ag(x)` minus `fresh(x)`,
//!   two operators with the same kernel, the first with a derivative formula (budget: 3 ns);
//! * **forward bookkeeping**: the same call with `x` requiring grad (the node made, its
//!   inputs' edges, the output's history), and `mul(x, w)` with `x` requiring grad minus the
//!   same call with neither (the generated `MulBackward0` saving `w` and two dtypes);
//! * **one operator's forward and `backward()`**: `mul(x, w)` then `backward()`.
//!
//! Run with `cargo bench -p opgen-example --bench autograd`; after criterion's report, a
//! summary prints each figure (ns of thread CPU time, best of 7 loops). Instruction counts:
//! `examples/callgrind.rs` (`fresh`, `fresh_ag`).

use std::hint::black_box;
use std::time::Instant;

use criterion::Criterion;
use opgen::autograd::{AutogradTensor, backward};
use opgen_example::{MiniTensor, ops};

#[path = "support/pair.rs"]
mod pair;

type Case = (&'static str, Box<dyn FnMut()>);

fn scalar(x: f64, requires_grad: bool) -> MiniTensor {
    let t = MiniTensor::from_vec(vec![x], &[]).expect("a tensor");
    t.set_requires_grad(requires_grad).expect("requires_grad");
    t
}

fn cases() -> Vec<Case> {
    opgen_example::install().expect("install");
    let (x, leaf, w) = (scalar(2.0, false), scalar(2.0, true), scalar(3.0, false));
    let (x2, leaf2, w2, leaf3, w3) = (x.share(), leaf.share(), w.share(), leaf.share(), w.share());
    let x3 = x.share();
    vec![
        (
            "fresh/plain",
            Box::new(move || drop(black_box(pair::try_fresh(black_box(&x))))),
        ),
        (
            "fresh/autograd_kernel",
            Box::new(move || drop(black_box(pair::try_fresh_ag(black_box(&x2))))),
        ),
        (
            "fresh/requires_grad",
            Box::new(move || drop(black_box(pair::try_fresh_ag(black_box(&leaf))))),
        ),
        (
            "mul/no_grad",
            Box::new(move || drop(black_box(ops::try_mul(black_box(&x3), &w)))),
        ),
        (
            "mul/requires_grad",
            Box::new(move || drop(black_box(ops::try_mul(black_box(&leaf2), &w2)))),
        ),
        (
            "mul/forward_backward",
            Box::new(move || {
                let y = ops::try_mul(black_box(&leaf3), &w3).expect("mul");
                backward(&[y], &[], None, false).expect("backward");
            }),
        ),
    ]
}

/// This thread's CPU time in ns (Linux's `/proc/thread-self/schedstat`), so that time the
/// thread waits for a core on a busy machine does not count; wall time elsewhere.
fn now_ns() -> f64 {
    let cpu = std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok());
    cpu.unwrap_or_else(|| {
        static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e9
    })
}

/// ns per call: the best of 7 runs of `n` calls.
fn time(body: &mut dyn FnMut(), n: u32) -> f64 {
    (0..7)
        .map(|_| {
            let start = now_ns();
            for _ in 0..n {
                body();
            }
            (now_ns() - start) / f64::from(n)
        })
        .fold(f64::INFINITY, f64::min)
}

fn summary() {
    let mut t = std::collections::BTreeMap::new();
    for (name, mut body) in cases() {
        let n = if name.contains("backward") {
            100_000
        } else {
            1_000_000
        };
        t.insert(name, time(&mut *body, n));
    }
    println!("\nsummary (ns of thread CPU time, best of 7 loops)");
    for (name, ns) in &t {
        println!("  {name:<24} {ns:9.1}");
    }
    let kernel = t["fresh/autograd_kernel"] - t["fresh/plain"];
    let node = t["fresh/requires_grad"] - t["fresh/autograd_kernel"];
    let mul = t["mul/requires_grad"] - t["mul/no_grad"];
    println!("Autograd kernel, no input requires grad: {kernel:7.1} ns (budget 3 ns)");
    println!("forward bookkeeping, a node saving nothing: {node:7.1} ns (budget 450 ns)");
    println!("forward bookkeeping, MulBackward0:       {mul:7.1} ns (budget 450 ns)");
    println!(
        "mul forward + backward(), total:         {:7.1} ns",
        t["mul/forward_backward"]
    );
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("autograd");
    for (name, mut body) in cases() {
        group.bench_function(name, |b| b.iter(&mut body));
    }
    group.finish();
    c.final_summary();
    summary();
}
