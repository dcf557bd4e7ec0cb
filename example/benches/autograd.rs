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
//! summary prints each case (ns of wall-clock time, best of 7 loops) and each figure as a
//! paired measurement: rounds in one run (401 for the no-grad pair, 41 for the others), each
//! timing many calls of both cases of the pair back to back, in alternating order,
//! wall-clock time; the median of the rounds' differences, with its interquartile range. `cargo bench -p opgen-example --bench autograd -- nothing` skips
//! criterion's part. Instruction counts: `examples/callgrind.rs` (`fresh`, `fresh_ag`,
//! `fresh_rg`, `mul`, `mul_rg`, `mul_backward`).

use std::hint::black_box;

use criterion::Criterion;
use opgen::autograd::{AutogradTensor, backward};
use opgen_example::{MiniTensor, ops};

#[path = "../../opgen-core/benches/support/cpu_time.rs"]
mod cpu_time;
#[path = "support/pair.rs"]
mod pair;
use cpu_time::{Paired, ROUNDS, time};

/// The rounds of the no-grad pair (20,000 calls of each case per round).
const NO_GRAD_ROUNDS: usize = 401;

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

fn summary() {
    let mut t = std::collections::BTreeMap::new();
    let mut cases: std::collections::BTreeMap<_, _> = cases().into_iter().collect();
    for (name, body) in cases.iter_mut() {
        let n = if name.contains("backward") {
            100_000
        } else {
            1_000_000
        };
        t.insert(*name, time(&mut **body, n));
    }
    println!("\nsummary (ns of wall-clock time, best of 7 loops)");
    for (name, ns) in &t {
        println!("  {name:<24} {ns:9.1}");
    }
    let mut pair = |a: &'static str, b: &'static str, n: u32, rounds: usize| {
        let mut body_a = cases.remove(a).expect("case");
        let mut body_b = cases.remove(b).expect("case");
        let p = Paired::run(&mut *body_a, &mut *body_b, n, rounds);
        cases.insert(a, body_a);
        cases.insert(b, body_b);
        p
    };
    // The no-grad figure is a few ns: many short rounds, so that the interquartile range of
    // the differences says whether it is within its budget.
    let kernel = pair(
        "fresh/plain",
        "fresh/autograd_kernel",
        20_000,
        NO_GRAD_ROUNDS,
    );
    let node = pair(
        "fresh/autograd_kernel",
        "fresh/requires_grad",
        50_000,
        ROUNDS,
    );
    let mul = pair("mul/no_grad", "mul/requires_grad", 50_000, ROUNDS);
    println!("paired (median difference [interquartile range]):");
    let report = |what: &str, p: &Paired, budget: &str| {
        let (m, lo, hi) = p.median();
        println!(
            "  {what:<44} {m:7.1} ns [{lo:.1}, {hi:.1}] (best {:.1} vs {:.1}; {} rounds; budget {budget})",
            p.best.0,
            p.best.1,
            p.diffs.len()
        );
    };
    report("Autograd kernel, no input requires grad:", &kernel, "3 ns");
    report(
        "forward bookkeeping, a node saving nothing:",
        &node,
        "450 ns",
    );
    report("forward bookkeeping, MulBackward0:", &mul, "450 ns");
    println!(
        "  mul forward + backward(), total:             {:7.1} ns",
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
