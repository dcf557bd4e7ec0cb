#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

// The formula translates into a call of `try_sgn`, which this crate does not define: rustc
// reports it at the formula.
#[native_function(
    "abs(Tensor self) -> Tensor",
    dispatch = "CPU",
    derivatives(self = "grad * self.sgn()")
)]
fn abs_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {}
