//! Items of the module named as what the attribute generates: a function (`relu`), the
//! marker and the arguments struct (`neg`, `NegArgs`), the methods trait (`NegOps`). Each
//! attribute gives one error, at its schema, naming them, with the fixes. An item under
//! `#[cfg]` (maybe not compiled) and one in another namespace (`mod abs_with` beside the
//! function `abs_with`) are no clash.
#![allow(non_camel_case_types, dead_code)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

fn relu() {}
struct NegArgs;
struct neg {}
trait NegOps {}
#[cfg(any())]
fn abs() {}
mod abs_with {}

#[native_function("relu(Tensor self) -> Tensor", dispatch = "CPU")]
fn relu_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function(
    "neg(Tensor self, int x=1) -> Tensor",
    dispatch = "CPU",
    variants = "function, method",
    methods = "trait NegOps"
)]
fn neg_cpu(self_: &MyTensor, x: i64) -> MyTensor {
    let _ = x;
    self_.clone()
}

#[native_function("abs(Tensor self, int x=1) -> Tensor", dispatch = "CPU")]
fn abs_cpu(self_: &MyTensor, x: i64) -> MyTensor {
    let _ = x;
    self_.clone()
}

fn main() {}
