//! A kernel named as a function the attribute generates (`relu`, `try_relu`): both would be
//! defined in the module; one error at the kernel's name, with the fixes.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
fn relu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function("neg(Tensor self) -> Tensor", dispatch = "CPU")]
fn try_neg(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
