//! A kernel whose lifetime is bounded (in its generics or its `where` clause) is not a
//! function of any borrow, which the dispatcher calls it with: one error at each bound.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
fn relu_cpu<'a: 'static>(self_: &'a MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function("neg(Tensor self) -> Tensor", dispatch = "CPU")]
fn neg_cpu<'a, 'b>(self_: &'a MyTensor) -> MyTensor
where
    'a: 'b,
{
    self_.clone()
}

fn main() {}
