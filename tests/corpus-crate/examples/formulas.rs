//! Type-checks PyTorch's backward formulas, translated into Rust calls of the corpus
//! crate's API (every ATen operator declared), one function per formula:
//!
//! ```text
//! cargo check -p opgen-tests-corpus --features translated-formulas --example formulas
//! ```
//!
//! `cargo test -p opgen-tests-corpus --features translated-formulas -- --ignored formulas`
//! counts the entries of `derivatives.yaml` whose formulas all translate and type-check, and
//! lists what keeps the others from type-checking (docs/AUTOGRAD.md gives the figures).

#![allow(
    unused_imports,
    unused_parens,
    unused_variables,
    non_snake_case,
    clippy::all
)]

use opgen::prelude::*;
use opgen_tests_corpus::CpuTensor;
use opgen_tests_corpus::aten::*;

include!(concat!(env!("OUT_DIR"), "/formulas.rs"));

fn main() {}
