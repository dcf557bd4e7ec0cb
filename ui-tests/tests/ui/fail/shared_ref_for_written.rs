#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu_(Tensor(a!) self) -> Tensor(a!)")]
fn relu_cpu_(self_: &MyTensor) {}

fn main() {}
