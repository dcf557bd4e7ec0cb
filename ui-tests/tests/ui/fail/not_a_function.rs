#![allow(unused)]

use opgen::prelude::*;

#[native_function("neg(Tensor self) -> Tensor")]
struct Neg;

fn main() {}
