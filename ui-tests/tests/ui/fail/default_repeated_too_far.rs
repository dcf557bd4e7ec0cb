//! A scalar default repeated into a huge fixed-size list (R86): refused rather than built.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("pad(Tensor self, int[4294967295] sizes=0) -> Tensor", dispatch = "CPU")]
fn pad_cpu(self_: &MyTensor, sizes: &[i64]) -> MyTensor {
    let _ = sizes;
    self_.clone()
}

fn main() {}
