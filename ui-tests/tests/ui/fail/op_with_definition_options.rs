#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function(op = "aten::neg", dispatch = "Meta", variants = "function, method")]
fn neg_meta(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
