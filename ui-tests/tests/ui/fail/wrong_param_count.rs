#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")]
fn add_cpu(self_: &MyTensor, other: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
