//! The cost of the first `Dispatcher::global()` with the whole corpus linked: the 3,100
//! `def`s of `native_functions.yaml` (and their generated `BackendSelect` kernels), the
//! kernels attached by name, the structured steps.
//!
//! ```text
//! cargo run --release -p opgen-tests-corpus --example first_global
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/first_global
//! ```
//!
//! It prints the wall time of the first `global()`, then of a first lookup and typed call
//! (which parse that operator's schema and build its table), then of looking up every
//! operator (which builds every table). Under callgrind the total instruction count is,
//! within a few hundred thousand instructions of process start-up, the first `global()`'s:
//! the later steps run only with the argument `all`.

use std::time::Instant;

use opgen::prelude::*;
use opgen_tests_corpus::CpuTensor;

fn main() {
    let start = Instant::now();
    let dispatcher = Dispatcher::global();
    let linked = start.elapsed();
    println!(
        "first Dispatcher::global(): {:.3} ms",
        linked.as_secs_f64() * 1e3
    );
    if std::env::args().nth(1).as_deref() != Some("all") {
        return;
    }
    let start = Instant::now();
    let add = dispatcher
        .typed::<_, (&CpuTensor, &CpuTensor, Scalar), CpuTensor>("aten::add", "Tensor")
        .expect("aten::add.Tensor");
    let a = CpuTensor::new(&[1.0, 2.0]);
    let sum = add.call(&a, &a, Scalar::Int(1));
    println!(
        "first lookup, typed handle and call of aten::add.Tensor: {:.3} ms ({:?})",
        start.elapsed().as_secs_f64() * 1e3,
        sum.data()
    );
    let start = Instant::now();
    let operators = dispatcher.operators();
    println!(
        "every operator looked up ({}): {:.3} ms",
        operators.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    let start = Instant::now();
    let parsed = operators.iter().filter(|op| op.schema().is_some()).count();
    println!(
        "every schema parsed ({parsed}): {:.3} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
}
