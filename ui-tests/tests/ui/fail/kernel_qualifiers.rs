//! Kernels the dispatcher cannot call as they are: `unsafe`, another ABI, generic. Each is
//! one error at what is wrong, and the kernel is kept, so that its callers compile.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
unsafe fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function("neg(Tensor self) -> Tensor", dispatch = "CPU")]
extern "C" fn neg_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function("abs(Tensor self) -> Tensor", dispatch = "CPU")]
fn abs_cpu<T: Clone>(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

fn main() {
    let t = MyTensor::cpu();
    let _ = (unsafe { relu_cpu(&t) }, neg_cpu(&t), abs_cpu::<u8>(&t));
}
