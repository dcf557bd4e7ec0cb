//! Inherent methods on a tensor type of another crate (imported with `use`): the macro
//! reads the import and names the fix, `methods = "trait NAME"`, at the option asking for
//! the methods.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", variants = "method", dispatch = "CPU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
