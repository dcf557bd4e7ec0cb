//! An operator name the dispatcher could not find: names are ASCII identifiers (R91).

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("rélu(Tensor self) -> Tensor", dispatch = "CPU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
