#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("mask(Tensor self, bool[] keep) -> Tensor")]
fn mask_cpu(self_: &MyTensor, keep: &[bool]) -> MyTensor {
    self_.clone()
}

fn main() {}
