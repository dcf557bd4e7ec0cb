#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", variants = "function, method")]
fn neg_out_cpu(self_: &MyTensor, out: &mut MyTensor) {}

fn main() {}
