//! A tensor type the file does not place (a glob import): rustc refuses the inherent
//! `impl` (E0116), at the option asking for the methods, and nothing else fails.

use opgen::prelude::*;
use opgen_ui_tests::*;

#[native_function("relu(Tensor self) -> Tensor", variants = "method", dispatch = "CPU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
