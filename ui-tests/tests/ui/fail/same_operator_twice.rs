//! Two kernels declaring one operator in one module: the second attaches with `op =`.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function("relu(Tensor self) -> Tensor", dispatch = "Meta")]
fn relu_meta(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
