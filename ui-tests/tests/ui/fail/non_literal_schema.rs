#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

const SCHEMA: &str = "neg(Tensor self) -> Tensor";

#[native_function(SCHEMA, dispatch = "CPU")]
fn neg_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
