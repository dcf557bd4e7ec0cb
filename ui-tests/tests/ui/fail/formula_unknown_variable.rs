#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    dispatch = "CPU",
    derivatives(self = "grad * othr", other = "grad * self")
)]
fn mul_cpu(self_: &MyTensor, other: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
