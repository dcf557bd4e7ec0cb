//! `size_base` with the corpus crate linked (see `size_base.rs` for the measurement): every
//! operator is registered, and one typed function is called.

use opgen::prelude::*;
use opgen_tests_corpus::{CpuTensor, aten};

fn main() {
    let d = Dispatcher::global();
    println!("{} errors", Dispatcher::global_errors().len());
    println!("{}", d.find("aten::add", "Tensor").is_ok());
    let a = CpuTensor::new(&[1.0, 2.0]);
    println!("{:?}", aten::add(&a, &a).data());
}
