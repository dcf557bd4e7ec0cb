#![allow(unused)]

use opgen::prelude::*;
use opgen::structured::StructuredMeta;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", structured)]
fn relu_meta(meta: &mut StructuredMeta<'_, MyTensor>, self_: &MyTensor) {}

fn main() {}
