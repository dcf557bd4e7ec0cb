#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("add.Tensor(Tensor self, Tensr other, *, Scalar alpha=1) -> Tensor")]
fn add_cpu(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
    self_.clone()
}

fn main() {}
