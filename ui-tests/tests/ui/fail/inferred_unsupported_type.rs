#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function(dispatch = "CPU")]
fn repeat_cpu(self_: &MyTensor, times: u32) -> MyTensor {
    self_.clone()
}

fn main() {}
