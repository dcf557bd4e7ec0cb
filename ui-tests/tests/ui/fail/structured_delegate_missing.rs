#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", structured_delegate = "relu.out", tensor = "MyTensor")]
fn relu();

fn main() {}
