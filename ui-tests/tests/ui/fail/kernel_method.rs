//! A method (with `self`) cannot be a kernel: the tensor is a parameter.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

struct Ops;

impl Ops {
    #[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
    fn relu_cpu(&self, self_: &MyTensor) -> MyTensor {
        self_.clone()
    }
}

fn main() {}
