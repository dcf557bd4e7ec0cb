//! A framework that re-exports opgen names its path with `crate = `.

use opgen_ui_tests::MyTensor;

mod framework {
    pub use ::opgen as ops_runtime;
}

#[opgen::native_function("double(Tensor self) -> Tensor", dispatch = "CPU",
                         crate = "crate::framework::ops_runtime")]
fn double_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {
    let _ = double(&MyTensor::cpu());
}
