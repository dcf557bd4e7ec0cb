//! Two operators declaring one methods trait: each declares its own.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", variants = "method", methods = "trait Ops", dispatch = "CPU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function("neg(Tensor self) -> Tensor", variants = "method", methods = "trait Ops", dispatch = "CPU")]
fn neg_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
