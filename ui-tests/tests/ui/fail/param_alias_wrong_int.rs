//! A parameter of a type alias to the wrong integer type: a plain type mismatch at the
//! parameter, in types the user knows.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

type Dim = i32;

#[native_function("sum.dim(Tensor self, int dim) -> Tensor", dispatch = "CPU")]
fn sum_cpu(self_: &MyTensor, dim: Dim) -> MyTensor {
    let _ = dim;
    self_.clone()
}

fn main() {}
