#![allow(unused)]

use opgen::prelude::*;
use opgen::structured::StructuredMeta;
use opgen_ui_tests::MyTensor;

#[native_function("relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", structured)]
fn relu_meta(meta: &mut StructuredMeta<'_, MyTensor>, self_: &MyTensor) {}

#[native_function(op = "relu.out", structured, dispatch = "CPU")]
fn relu_out_cpu(self_: &MyTensor, out: &MyTensor) {}

fn main() {}
