#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

// An ordinary out operator: no marker, and a type of the marker's name that is not one.
#[native_function("relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", dispatch = "CPU")]
fn relu_out_cpu(self_: &MyTensor, out: &mut MyTensor) {}

struct StructuredReluOut;

#[native_function("relu(Tensor self) -> Tensor", structured_delegate = "relu.out", tensor = "MyTensor")]
fn relu();

fn main() {}
