//! Independent problems of one attribute are reported together: the schema's and the
//! options'.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensr self) -> Tensor", dispatch = "CPUU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
