//! The `#[native_function]` expansion of the whole corpus (2,590 schemas), a given number of
//! times, for counting instructions with callgrind (the cases are those of
//! `benches/codegen.rs`):
//!
//! ```text
//! cargo build --release -p opgen-core --features codegen --example codegen_callgrind
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/codegen_callgrind 1
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/codegen_callgrind 2
//! ```
//!
//! Instructions per operator = (total of the second run - total of the first) / 2590, which
//! cancels start-up and the corpus's loading. `codegen_callgrind 1 count` prints the number
//! of output tokens per operator; `codegen_callgrind 1 dump` prints every expansion, one per
//! line, to check that a change of the expansion code keeps its output.

use std::hint::black_box;

use opgen_core::codegen::native_function;
use opgen_core::native::{DeviceCheck, DispatchOrigin, NativeFunction, load_native_functions};
use opgen_core::plan::{dispatcher_signature, returns_type};
use proc_macro2::TokenStream;

#[path = "../benches/support/corpus_kernels.rs"]
mod corpus_kernels;

const YAML: &str = include_str!("../tests/data/native_functions.yaml");
const TAGS: &str = include_str!("../tests/data/tags.yaml");

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let Ok(nfs) = load_native_functions(YAML, TAGS) else {
        panic!("the corpus loads");
    };
    let cases: Vec<(TokenStream, TokenStream)> = nfs
        .entries()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (args, kernel) = corpus_kernels::corpus_case(i, f);
            (
                args.parse().expect("attribute lexes"),
                kernel.parse().expect("kernel lexes"),
            )
        })
        .collect();
    // `count` as the second argument also counts the output's tokens (outside the timing);
    // `dump` prints every expansion, one per line (to compare two versions' output).
    let counting = std::env::args().nth(2).is_some_and(|s| s == "count");
    if std::env::args().nth(2).is_some_and(|s| s == "dump") {
        for (args, kernel) in &cases {
            println!("{}", native_function(args.clone(), kernel.clone()));
        }
        return;
    }
    let mut tokens = 0usize;
    for _ in 0..rounds {
        for (args, kernel) in &cases {
            let out = black_box(native_function(args.clone(), kernel.clone()));
            if counting {
                tokens += count(out);
            }
        }
    }
    if counting {
        println!(
            "{:.0} output tokens per operator",
            tokens as f64 / (cases.len() * rounds) as f64
        );
    }
}

/// The output's tokens, groups' contents included (a group counts as two, its delimiters).
fn count(ts: TokenStream) -> usize {
    ts.into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => 2 + count(g.stream()),
            _ => 1,
        })
        .sum()
}
