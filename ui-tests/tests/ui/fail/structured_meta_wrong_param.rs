#![allow(unused)]

use opgen::prelude::*;
use opgen::structured::StructuredMeta;
use opgen_ui_tests::MyTensor;

#[native_function("relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", structured)]
fn relu_meta(meta: &mut StructuredMeta<'_, MyTensor>, self_: &mut MyTensor) {}

#[native_function("neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", structured)]
fn neg_meta(self_: &MyTensor) {}

fn main() {}
