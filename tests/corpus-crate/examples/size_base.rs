//! The baseline of the binary-size measurement: a program that uses the dispatcher without
//! the corpus. `size_corpus` is the same program with the corpus crate linked; the
//! difference of their stripped release binaries is what linking the corpus costs:
//!
//! ```text
//! cargo build --release -p opgen-tests-corpus --example size_base --example size_corpus
//! strip -o /tmp/base target/release/examples/size_base
//! strip -o /tmp/corpus target/release/examples/size_corpus
//! ls -l /tmp/base /tmp/corpus
//! ```

use opgen::prelude::*;

fn main() {
    let d = Dispatcher::global();
    println!("{} errors", Dispatcher::global_errors().len());
    println!("{}", d.find("aten::add", "Tensor").is_ok());
}
