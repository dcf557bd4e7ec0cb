#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("numel(Tensor self) -> int")]
fn numel_cpu(self_: &MyTensor) -> usize {
    0
}

fn main() {}
