#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu_(Tensor(A!) self) -> Tensor(A!)")]
fn relu_cpu_(self_: &mut MyTensor) {}

fn main() {}
