#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("add.out(Tensor self, Tensor(a!) out, Tensor other) -> Tensor(a!)")]
fn add_out_cpu(self_: &MyTensor, out: &mut MyTensor, other: &MyTensor) {}

fn main() {}
