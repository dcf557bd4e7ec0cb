//! Pointwise operators that PyTorch does not make structured: the `Scalar` overloads of
//! the arithmetic operators (CompositeExplicitAutograd in PyTorch), `abs` (its out operator
//! is an ordinary CPU kernel), `relu` and `where.self` (CPU kernels). Registered for `CPU`
//! and `Meta`.

use opgen::prelude::*;

// The operators the derivative formulas call, by their canonical Rust names.
#[allow(unused_imports)]
use super::*;

use super::wiring::{functional, inplace, out};
use crate::MiniTensor;
use crate::kernels::pointwise::{self as pw, Arith, Operand, Unary};

/// `self + alpha * other` with a `Scalar` `other` (a wrapped number in type promotion:
/// a `Long` tensor plus `0.5` is `Float`). `alpha` is positional here, unlike in
/// `add.Tensor`.
#[native_function(
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn add_scalar_kernel(
    self_: &MiniTensor,
    other: Scalar,
    alpha: Scalar,
) -> Result<MiniTensor, Error> {
    let (o, a) = (Operand::Scalar(other), Some(alpha));
    functional(pw::arith_meta(Arith::Add, self_, o, a)?, |out| {
        pw::arith_impl(Arith::Add, self_, o, a, out)
    })
}

/// `self - alpha * other` with a `Scalar` `other`.
#[native_function(
    "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn sub_scalar_kernel(
    self_: &MiniTensor,
    other: Scalar,
    alpha: Scalar,
) -> Result<MiniTensor, Error> {
    let (o, a) = (Operand::Scalar(other), Some(alpha));
    functional(pw::arith_meta(Arith::Sub, self_, o, a)?, |out| {
        pw::arith_impl(Arith::Sub, self_, o, a, out)
    })
}

/// `self * other` with a `Scalar` `other`.
#[native_function(
    "mul.Scalar(Tensor self, Scalar other) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn mul_scalar_kernel(self_: &MiniTensor, other: Scalar) -> Result<MiniTensor, Error> {
    let o = Operand::Scalar(other);
    functional(pw::arith_meta(Arith::Mul, self_, o, None)?, |out| {
        pw::arith_impl(Arith::Mul, self_, o, None, out)
    })
}

/// `self / other` with a `Scalar` `other` (true division).
#[native_function(
    "div.Scalar(Tensor self, Scalar other) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn div_scalar_kernel(self_: &MiniTensor, other: Scalar) -> Result<MiniTensor, Error> {
    let o = Operand::Scalar(other);
    functional(pw::arith_meta(Arith::Div, self_, o, None)?, |out| {
        pw::arith_impl(Arith::Div, self_, o, None, out)
    })
}

/// The absolute value (not for `Bool`).
#[native_function(
    "abs(Tensor self) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn abs_kernel(self_: &MiniTensor) -> Result<MiniTensor, Error> {
    functional(pw::unary_meta(Unary::Abs, self_)?, |o| {
        pw::unary_impl(Unary::Abs, self_, o)
    })
}

/// In place: the absolute value.
#[native_function(
    "abs_(Tensor(a!) self) -> Tensor(a!)",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn abs_inplace_kernel(self_: &mut MiniTensor) -> Result<(), Error> {
    let input = self_.share();
    inplace(self_, pw::unary_meta(Unary::Abs, &input)?, |o| {
        pw::unary_impl(Unary::Abs, &input, o)
    })
}

/// Into `out`: the absolute value.
#[native_function(
    "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn abs_out_kernel(self_: &MiniTensor, out_: &mut MiniTensor) -> Result<(), Error> {
    out(out_, pw::unary_meta(Unary::Abs, self_)?, |o| {
        pw::unary_impl(Unary::Abs, self_, o)
    })
}

/// `max(self, 0)` (NaN stays NaN; not for `Bool`).
#[native_function(
    "relu(Tensor self) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn relu_kernel(self_: &MiniTensor) -> Result<MiniTensor, Error> {
    functional(pw::unary_meta(Unary::Relu, self_)?, |o| {
        pw::unary_impl(Unary::Relu, self_, o)
    })
}

/// In place: `max(self, 0)`.
#[native_function(
    "relu_(Tensor(a!) self) -> Tensor(a!)",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn relu_inplace_kernel(self_: &mut MiniTensor) -> Result<(), Error> {
    let input = self_.share();
    inplace(self_, pw::unary_meta(Unary::Relu, &input)?, |o| {
        pw::unary_impl(Unary::Relu, &input, o)
    })
}

/// `self` where `condition` (a `Bool` tensor) holds, else `other`; the three broadcast.
/// The method's receiver is `self`: `a.where_self(&condition, &b)`.
#[native_function(
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn where_kernel(
    condition: &MiniTensor,
    self_: &MiniTensor,
    other: &MiniTensor,
) -> Result<MiniTensor, Error> {
    functional(pw::where_meta(condition, self_, other)?, |o| {
        pw::where_impl(condition, self_, other, o)
    })
}
