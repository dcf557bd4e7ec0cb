//! A fixed number of iterations of one autograd benchmark case, for counting instructions
//! with callgrind (the operators are those of `benches/autograd.rs`):
//!
//! ```text
//! cargo build --release --example autograd_callgrind
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/autograd_callgrind fwd 10000
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/autograd_callgrind fwd 20000
//! ```
//!
//! Instructions per iteration = (second total - first total) / 10000. Cases: `below` (`mul`
//! on tensors without the autograd key: the CPU kernel only), `plain` (`mul` through its
//! Autograd kernel, no input requiring grad), `fwd` (`mul` with an input requiring grad: the node is made and
//! kept until the next iteration), `chain` (build 64 `neg`s and run `backward()`),
//! `chain_direct` (the 64 `neg` calls that build it, and the 64 its backward makes, without
//! autograd), `one` (`mul` then `backward()`), `ones` (the root gradient's `ones_like`).

use std::hint::black_box;
use std::process::ExitCode;

use opgen_core::autograd::{Differentiable, backward};

#[path = "../benches/support/autograd_bt.rs"]
mod bt;
use bt::{BT, CHAIN, chain, leaf, ops};

fn run(case: &str, n: u64) -> Result<(), String> {
    let o = ops();
    let (x, w, plain) = (leaf(2.0), BT::new(3.0), BT::new(2.0));
    match case {
        "below" => {
            let (a, b) = (BT::plain(2.0), BT::plain(3.0));
            (0..n).for_each(|_| drop(black_box(o.mul.call(black_box(&a), &b))));
        }
        "plain" => (0..n).for_each(|_| drop(black_box(o.mul.call(black_box(&plain), &w)))),
        "fwd" => (0..n).for_each(|_| drop(black_box(o.mul.call(black_box(&x), &w)))),
        "chain" => {
            for _ in 0..n {
                let y = chain(black_box(&x));
                backward(&[y], &[], None, false).map_err(|e| e.to_string())?;
            }
        }
        "chain_direct" => {
            for _ in 0..n {
                let mut y = plain.clone();
                for _ in 0..2 * CHAIN {
                    y = o.neg.call(black_box(&y));
                }
                drop(black_box(y));
            }
        }
        "one" => {
            for _ in 0..n {
                let y = o.mul.call(black_box(&x), &w);
                backward(&[y], &[], None, false).map_err(|e| e.to_string())?;
            }
        }
        "ones" => (0..n).for_each(|_| drop(black_box(plain.ones_like()))),
        other => {
            return Err(format!(
                "unknown case `{other}`; expected below plain fwd chain chain_direct one ones"
            ));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(case), Some(n)) = (args.get(1), args.get(2).and_then(|n| n.parse().ok())) else {
        eprintln!(
            "usage: autograd_callgrind CASE ITERATIONS (CASE: below plain fwd chain chain_direct one ones)"
        );
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
