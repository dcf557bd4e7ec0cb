//! A fixed number of iterations of one case, for counting instructions with callgrind: what
//! a tensor that never requires grad pays for `MiniTensor`'s autograd state.
//!
//! ```text
//! cargo build --release -p opgen-example --example callgrind
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/callgrind add 10000
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/callgrind add 20000
//! ```
//!
//! Instructions per iteration = (second total - first total) / 10000. Cases: `add` (the
//! operator `add` on two 4-element `Float` tensors through the global dispatcher: a plain
//! call that makes one tensor), `new` (a 4-element tensor made from a `Vec` and dropped),
//! `view` (`transpose`, a view operator: a new tensor sharing its input's storage and
//! version counter), `fresh` and `fresh_ag` (two operators with the same kernel, the second
//! with a derivative formula: its generated Autograd kernel, no input requiring grad; see
//! `benches/support/pair.rs`).
//!
//! With a third argument `time`, the iterations are also timed (wall-clock) and the ns per
//! iteration printed, for paired runs of two cases in alternating processes.

use std::hint::black_box;
use std::process::ExitCode;

use opgen::autograd::{AutogradTensor, backward};
use opgen_example::{MiniTensor, ops};

#[path = "../benches/support/pair.rs"]
mod pair;

/// A one-element `Double` tensor, requiring grad or not.
fn scalar(x: f64, requires_grad: bool) -> Result<MiniTensor, String> {
    let t = MiniTensor::from_vec(vec![x], &[]).map_err(|e| e.to_string())?;
    t.set_requires_grad(requires_grad)
        .map_err(|e| e.to_string())?;
    Ok(t)
}

fn run(case: &str, n: u64) -> Result<(), String> {
    opgen_example::install().map_err(|e| e.to_string())?;
    let tensor = |v: Vec<f32>| MiniTensor::from_vec(v, &[2, 2]).map_err(|e| e.to_string());
    let (a, b) = (tensor(vec![1.0, 2.0, 3.0, 4.0])?, tensor(vec![5.0; 4])?);
    match case {
        "add" => (0..n).for_each(|_| drop(black_box(black_box(&a).add(&b)))),
        "new" => {
            for _ in 0..n {
                drop(black_box(tensor(black_box(vec![1.0, 2.0, 3.0, 4.0]))?));
            }
        }
        "view" => (0..n).for_each(|_| drop(black_box(black_box(&a).transpose(0, 1)))),
        "fresh" => (0..n).for_each(|_| drop(black_box(pair::try_fresh(black_box(&a))))),
        "fresh_ag" => (0..n).for_each(|_| drop(black_box(pair::try_fresh_ag(black_box(&a))))),
        "fresh_rg" => {
            let leaf = scalar(2.0, true)?;
            (0..n).for_each(|_| drop(black_box(pair::try_fresh_ag(black_box(&leaf)))));
        }
        "mul" | "mul_rg" | "mul_backward" => {
            let (x, w) = (scalar(2.0, case != "mul")?, scalar(3.0, false)?);
            for _ in 0..n {
                let y = ops::try_mul(black_box(&x), &w).map_err(|e| e.to_string())?;
                if case == "mul_backward" {
                    backward(&[y], &[], None, false).map_err(|e| e.to_string())?;
                } else {
                    drop(black_box(y));
                }
            }
        }
        other => {
            return Err(format!(
                "unknown case `{other}`; expected add new view fresh fresh_ag fresh_rg mul mul_rg mul_backward"
            ));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(case), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse().ok())) else {
        eprintln!(
            "usage: callgrind CASE ITERATIONS [time] (CASE: add new view fresh fresh_ag fresh_rg mul mul_rg mul_backward)"
        );
        return ExitCode::FAILURE;
    };
    let timed = args.get(3).is_some_and(|a| a == "time");
    if timed && let Err(e) = opgen_example::install() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    let start = std::time::Instant::now();
    match run(case, n) {
        Ok(()) if timed => {
            // The library was installed before the clock started.
            let ns = start.elapsed().as_nanos() as f64 / n as f64;
            println!("{ns:.3}");
            ExitCode::SUCCESS
        }
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
