#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

// `relu` has no formulas to lend.
#[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function(
    "relu_(Tensor(a!) self) -> Tensor(a!)",
    dispatch = "CPU",
    derivatives(functional)
)]
fn relu_inplace_cpu(self_: &mut MyTensor) {}

fn main() {}
