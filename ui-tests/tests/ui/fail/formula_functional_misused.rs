#![allow(unused)]

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

// A functional operator has no functional operator to take formulas from.
#[native_function("neg(Tensor self) -> Tensor", dispatch = "CPU", derivatives(functional))]
fn neg_cpu(self_: &MyTensor) -> MyTensor {
    self_.clone()
}

// `functional` takes all of the formulas: none may be added.
#[native_function(
    "neg_(Tensor(a!) self) -> Tensor(a!)",
    dispatch = "CPU",
    derivatives(functional, self = "grad.neg()")
)]
fn neg_inplace_cpu(self_: &mut MyTensor) {}

// The marker named is not this operator's functional form (other arguments).
#[native_function(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    dispatch = "CPU",
    derivatives(self = "grad * other", other = "grad * self")
)]
fn mul_cpu(self_: &MyTensor, other: &MyTensor) -> MyTensor {
    self_.clone()
}

#[native_function(
    "exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU",
    derivatives(functional = mul)
)]
fn exp_out_cpu(self_: &MyTensor, out: &mut MyTensor) {}

fn main() {}
