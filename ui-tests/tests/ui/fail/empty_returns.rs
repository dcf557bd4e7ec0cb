#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> ")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
