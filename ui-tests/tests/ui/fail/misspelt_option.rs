#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("neg(Tensor self) -> Tensor", dispach = "CPU")]
fn neg_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
