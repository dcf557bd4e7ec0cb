//! Autograd's own cost per operator and per backward node, on `BT` (a one-element `f64`
//! tensor) with kernels that do almost nothing, so that what remains is bookkeeping. Each
//! figure is a difference of two measurements in the same run; the kernels' own time is in
//! both and cancels:
//!
//! * **the Autograd kernel when nothing requires grad**: `mul` on tensors with the autograd
//!   key, none requiring grad, minus the same call on tensors without the key (straight to
//!   the CPU kernel);
//! * **forward bookkeeping**: `mul(x, w)` with `x` requiring grad (node made, `w` saved,
//!   history set) minus the same call with no input requiring grad;
//! * **engine overhead per node**: `backward()` of a chain of `neg`s, minus the backward
//!   formulas' own operator calls made directly, per node;
//! * **forward + backward of one operator**: `mul(x, w)` then `backward()` (as PyTorch's
//!   `y = x * w; y.backward()`), minus the operator calls it makes (forward `mul`, the root's
//!   `ones_like`, `mul` in `MulBackward0`).
//!
//! Run with `cargo bench -p opgen-core --bench autograd`. After criterion's report, a summary
//! prints each figure (ns, best of 7 timing loops) next to its budget; the no-grad figure, a
//! few ns, is paired instead (the median difference of many alternating rounds, with its
//! interquartile range).

use std::hint::black_box;

use criterion::{BatchSize, Criterion};
use opgen_core::autograd::{Differentiable, backward};

#[path = "support/autograd_bt.rs"]
mod bt;
#[path = "support/cpu_time.rs"]
#[allow(dead_code)] // `ROUNDS`: the example's bench
mod cpu_time;
use bt::{BT, CHAIN, chain, leaf, ops};
use cpu_time::{Paired, now_ns, time};

/// The rounds of the paired no-grad figure (20,000 calls of each case per round): a few ns,
/// so many short rounds, whose interquartile range says whether it is within its budget.
const NO_GRAD_ROUNDS: usize = 401;

/// A named measurement: the body runs once per iteration.
type Case = (&'static str, Box<dyn FnMut()>);

fn cases() -> Vec<Case> {
    let o = ops();
    let (x, w, plain) = (leaf(2.0), BT::new(3.0), BT::new(2.0));
    let w2 = w.clone();
    let (x3, w3) = (leaf(2.0), BT::new(3.0));
    let g = BT::new(1.0);
    let (p1, p2) = (BT::plain(2.0), BT::plain(3.0));
    vec![
        (
            "mul/below_autograd",
            Box::new(move || drop(black_box(o.mul.call(black_box(&p1), &p2)))),
        ),
        (
            "mul/no_grad",
            Box::new(move || drop(black_box(o.mul.call(black_box(&plain), &w)))),
        ),
        (
            "mul/requires_grad",
            Box::new(move || drop(black_box(o.mul.call(black_box(&x), &w2)))),
        ),
        (
            "neg_x64/direct",
            Box::new(move || {
                let mut y = g.clone();
                for _ in 0..CHAIN {
                    y = o.neg.call(black_box(&y));
                }
                drop(black_box(y));
            }),
        ),
        (
            "mul_backward/total",
            Box::new(move || {
                let y = o.mul.call(black_box(&x3), &w3);
                backward(&[y], &[], None, false).expect("backward");
            }),
        ),
    ]
}

/// ns per backward of the chain (graph built before each timed call).
fn chain_backward(n: u32) -> f64 {
    let x = leaf(1.0);
    (0..7)
        .map(|_| {
            let graphs: Vec<BT> = (0..n).map(|_| chain(&x)).collect();
            let start = now_ns();
            for y in &graphs {
                backward(std::slice::from_ref(y), &[], None, false).expect("backward");
            }
            (now_ns() - start) / f64::from(n)
        })
        .fold(f64::INFINITY, f64::min)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("autograd");
    for (name, mut body) in cases() {
        group.bench_function(name, |b| b.iter(&mut body));
    }
    let x = leaf(1.0);
    group.bench_function("neg_x64/backward", |b| {
        b.iter_batched(
            || chain(&x),
            |y| backward(&[y], &[], None, false).expect("backward"),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn summary() {
    let mut t = std::collections::BTreeMap::new();
    // The cheap calls run longer, so that the CPU-time clock's granularity does not matter.
    for (name, mut body) in cases() {
        let n = if name.starts_with("mul/") && name != "mul/requires_grad" {
            5_000_000
        } else {
            200_000
        };
        t.insert(name, time(&mut *body, n));
    }
    t.insert("neg_x64/backward", chain_backward(2_000));
    let o = ops();
    let (a, b) = (BT::new(1.0), BT::new(2.0));
    let ones = BT::new(1.0);
    let kernel_ns = time(
        &mut || drop(black_box(o.mul.call(black_box(&a), &b))),
        5_000_000,
    );
    let ones_ns = time(&mut || drop(black_box(ones.ones_like())), 5_000_000);
    let mut cases: std::collections::BTreeMap<_, _> = cases().into_iter().collect();
    let (mut below, mut no_grad_call) = (
        cases.remove("mul/below_autograd").expect("case"),
        cases.remove("mul/no_grad").expect("case"),
    );
    let no_grad = Paired::run(&mut *below, &mut *no_grad_call, 20_000, NO_GRAD_ROUNDS);
    let forward = t["mul/requires_grad"] - t["mul/no_grad"];
    let per_node = (t["neg_x64/backward"] - t["neg_x64/direct"]) / CHAIN as f64;
    let one_op = t["mul_backward/total"] - 2.0 * kernel_ns - ones_ns;
    println!("\nsummary (ns of wall-clock time, best of 7 loops)");
    for (name, ns) in &t {
        println!("  {name:<22} {ns:9.1}");
    }
    println!("  kernel call (mul)      {kernel_ns:9.1}");
    let (median, q1, q3) = no_grad.median();
    println!(
        "Autograd kernel, nothing requires grad: {median:7.1} ns [{q1:.1}, {q3:.1}] (budget 3 ns; \
         paired: median difference of {NO_GRAD_ROUNDS} alternating rounds [interquartile range]; \
         best rounds {:.1} vs {:.1} ns)",
        no_grad.best.0, no_grad.best.1
    );
    println!("forward bookkeeping per operator:      {forward:7.1} ns (budget 450 ns)");
    println!("engine overhead per backward node:     {per_node:7.1} ns (budget 900 ns)");
    println!("one operator's forward + backward():   {one_op:7.1} ns (budget 7000 ns)");
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
    summary();
}
