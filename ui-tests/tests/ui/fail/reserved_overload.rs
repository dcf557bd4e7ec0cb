//! An overload name PyTorch reserves (R91), which the runtime's `def` refuses.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu.default(Tensor self) -> Tensor", dispatch = "CPU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
