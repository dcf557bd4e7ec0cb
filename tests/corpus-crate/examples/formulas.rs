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
//!
//! The module is compiled without the prelude: translated code must name everything by its
//! full path, as code generated into a user's module must.

#![allow(
    unused_imports,
    unused_parens,
    unused_variables,
    non_snake_case,
    clippy::all
)]

/// The translated formulas, where nothing but the API and the tensor type is in scope.
#[no_implicit_prelude]
mod translated {
    use ::opgen_tests_corpus::CpuTensor;
    use ::opgen_tests_corpus::aten::*;

    ::core::include!(::core::concat!(::core::env!("OUT_DIR"), "/formulas.rs"));
}

fn main() {}
