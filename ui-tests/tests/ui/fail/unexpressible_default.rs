#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("roll(Tensor self, int shift=long) -> Tensor")]
fn roll_cpu(self_: &MyTensor, shift: i64) -> MyTensor {
    self_.clone()
}

fn main() {}
