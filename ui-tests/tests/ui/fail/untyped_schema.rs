//! A schema the loader accepts but typed calls cannot take (`int[][]`): the attribute says
//! so once, with the way to register such an operator (13.5); the kernel is not checked
//! against a signature that cannot exist.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("nested(Tensor self, int[][] sizes) -> Tensor", dispatch = "CPU")]
fn nested_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
