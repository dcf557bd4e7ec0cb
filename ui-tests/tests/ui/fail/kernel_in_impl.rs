//! The attribute on an associated function: it goes on a free function.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

struct Ops;

impl Ops {
    #[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
    fn relu_cpu(self_: &MyTensor) -> MyTensor {
        self_.clone()
    }
}

fn main() {}
