#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

mod ops {
    use opgen::prelude::*;
    use opgen_ui_tests::MyTensor;

    #[native_function(
        "exp(Tensor self) -> Tensor",
        dispatch = "CPU",
        derivatives(self = "rust: grad")
    )]
    pub fn exp_cpu(self_: &MyTensor) -> MyTensor {
        self_.clone()
    }
}

// `exp`'s marker is in `ops`, not imported here.
#[native_function(
    "exp_(Tensor(a!) self) -> Tensor(a!)",
    dispatch = "CPU",
    derivatives(functional)
)]
fn exp_inplace_cpu(self_: &mut MyTensor) {}

fn main() {}
