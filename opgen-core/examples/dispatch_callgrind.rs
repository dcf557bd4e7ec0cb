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
//! counts the data cache misses per call too (`D1mr`), e.g. with this machine's L1d and L2:
//! `--cache-sim=yes --D1=49152,12,64 --LL=2097152,16,64`.
//!
//! The operators and kernels are those of the benchmark (`benches/support/dispatch_setup.rs`),
//! all registered for every case.

use std::hint::black_box;
use std::process::ExitCode;

use opgen_core::dispatch::{Dispatcher, Error, IValue, Scalar, Stack};

#[path = "../benches/support/dispatch_setup.rs"]
mod dispatch_setup;

use dispatch_setup::{BenchTensor, Setup, add, identity};

const CASES: &str = "a1 b1 b1_many c1 d1 e1 a3 b3 c3 d3 find find_typed_call find_missing g0 g1";

fn run(case: &str, n: u64) -> Result<(), Error> {
    let s = Setup::new()?;
    let d = Dispatcher::global();
    let (op1, op3) = (&s.identity, &s.add);
    let direct1: fn(&BenchTensor) -> BenchTensor = black_box(identity);
    let direct3: fn(&BenchTensor, &BenchTensor, Scalar) -> BenchTensor = black_box(add);
    let mut stack: Stack<BenchTensor> = Stack::with_capacity(4);
    let (t, autograd) = (&s.cpu, &s.autograd);
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
            let mut next = 0;
            repeat!(drop(black_box(
                s.next_of_many(&mut next).call(black_box(t))
            )));
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
        "d1" => repeat!(drop(black_box(op1.call(black_box(autograd))))),
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
            black_box(autograd),
            black_box(autograd),
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
        "g0" => repeat!(drop(black_box(s.ag_identity.call(black_box(&s.ag_plain))))),
        "g1" => repeat!(drop(black_box(
            s.ag_identity.call(black_box(&s.ag_tracked))
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
