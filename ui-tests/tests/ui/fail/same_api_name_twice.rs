//! Two operators of one module whose APIs take one name (`name = "same"` twice; `add.Tensor`
//! and `add`, both named `add`): their functions, markers and arguments structs would be
//! defined twice. One error at the second attribute's `name` (else its schema), naming the
//! first, with the fix.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("p1(Tensor self) -> Tensor", dispatch = "CPU", name = "same")]
fn p1_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function("p2(Tensor self) -> Tensor", dispatch = "CPU", name = "same")]
fn p2_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function("add.Tensor(Tensor self, Tensor other) -> Tensor", dispatch = "CPU")]
fn add_tensor_cpu(self_: &MyTensor, other: &MyTensor) -> MyTensor {
    let _ = other;
    self_.clone()
}

#[native_function("add(Tensor self, Tensor other) -> Tensor", dispatch = "CPU")]
fn add_cpu(self_: &MyTensor, other: &MyTensor) -> MyTensor {
    let _ = other;
    self_.clone()
}

fn main() {}
