#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("clamp(Tensor self, *, Scalar min, *, Scalar max) -> Tensor")]
fn clamp_cpu(self_: &MyTensor, min: Scalar, max: Scalar) -> MyTensor {
    self_.clone()
}

fn main() {}
