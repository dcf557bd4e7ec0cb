//! Two arguments with one name (R92).

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("clamp2(Tensor self, Scalar min, Scalar min) -> Tensor", dispatch = "CPU")]
fn clamp_cpu(self_: &MyTensor, min: Scalar, max: Scalar) -> MyTensor {
    let _ = (min, max);
    self_.clone()
}

fn main() {}
