#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("sum.dim(Tensor self, int dim) -> Tensor")]
fn sum_cpu(self_: &MyTensor, dim: i32) -> MyTensor {
    self_.clone()
}

fn main() {}
