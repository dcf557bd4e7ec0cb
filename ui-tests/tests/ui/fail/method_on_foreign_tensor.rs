//! Inherent methods on a tensor type of another crate: rustc refuses the `impl`, at the
//! option asking for methods; `methods = "trait NAME"` declares them in a trait instead.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", variants = "method", dispatch = "CPU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
