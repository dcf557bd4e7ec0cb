//! A `structured_delegate` naming an operator that is declared nowhere the module sees: the
//! missing operator is named, at the string, with the two ways to provide it.

#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("relu(Tensor self) -> Tensor", structured_delegate = "relu.out", tensor = "MyTensor")]
fn relu();

fn main() {}
