#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("add.Tensor(Tensor self, Tensor other) -> Tensor")]
fn add_cpu(self_: &MyTensor, other: &mut MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
