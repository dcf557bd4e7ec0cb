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
use crate::kernels::masks;
use crate::kernels::pointwise::{self as pw, Arith, Compare, Operand, Unary};

/// `self + alpha * other` with a `Scalar` `other` (a wrapped number in type promotion:
/// a `Long` tensor plus `0.5` is `Float`). `alpha` is positional here, unlike in
/// `add.Tensor`.
#[native_function(
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta",
    derivatives(self = "handle_r_to_c(self.scalar_type(), grad)")
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
    dispatch = "CPU, Meta",
    derivatives(self = "handle_r_to_c(self.scalar_type(), grad)")
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
    dispatch = "CPU, Meta",
    derivatives(self = "mul_tensor_backward(grad, other, self.scalar_type())")
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
    dispatch = "CPU, Meta",
    derivatives(self = "div_tensor_self_backward(grad, other, self.scalar_type())")
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
    dispatch = "CPU, Meta",
    derivatives(self = "grad * self.sgn()")
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
    dispatch = "CPU, Meta",
    derivatives(functional)
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
    dispatch = "CPU, Meta",
    derivatives(functional)
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
    dispatch = "CPU, Meta",
    derivatives(self = "threshold_backward(grad, result, 0)")
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
    dispatch = "CPU, Meta",
    derivatives(functional)
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
    dispatch = "CPU, Meta",
    derivatives(
        condition = "non_differentiable",
        self = "where(condition, grad, 0)",
        other = "where(condition, 0, grad)",
    )
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

/// The sign of each element: -1, 0 or 1 (0 for NaN; a `Bool` tensor is its own sign).
#[native_function(
    "sgn(Tensor self) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta",
    derivatives(self = "sgn_backward(self, grad, result)")
)]
pub fn sgn_kernel(self_: &MiniTensor) -> Result<MiniTensor, Error> {
    functional(pw::unary_meta(Unary::Sgn, self_)?, |o| {
        pw::unary_impl(Unary::Sgn, self_, o)
    })
}

/// `grad_output` where `self > threshold`, else 0: `relu`'s derivative.
#[native_function(
    "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
    dispatch = "CPU, Meta",
    derivatives(
        grad_output = "threshold_backward(grad, self, threshold)",
        self = "zeros_like(grad)",
    )
)]
pub fn threshold_backward_kernel(
    grad_output: &MiniTensor,
    self_: &MiniTensor,
    threshold: Scalar,
) -> Result<MiniTensor, Error> {
    functional(masks::threshold_backward_meta(grad_output, self_)?, |o| {
        masks::threshold_backward_impl(grad_output, self_, threshold, o)
    })
}

/// Whether each element is at least `other` (a `Bool` tensor).
#[native_function(
    "ge.Scalar(Tensor self, Scalar other) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn ge_scalar_kernel(self_: &MiniTensor, other: Scalar) -> Result<MiniTensor, Error> {
    let o = Operand::Scalar(other);
    functional(pw::compare_meta(self_, o)?, |out| {
        pw::compare_impl(Compare::Ge, self_, o, out)
    })
}

/// Whether each element is at most `other` (a `Bool` tensor).
#[native_function(
    "le.Scalar(Tensor self, Scalar other) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn le_scalar_kernel(self_: &MiniTensor, other: Scalar) -> Result<MiniTensor, Error> {
    let o = Operand::Scalar(other);
    functional(pw::compare_meta(self_, o)?, |out| {
        pw::compare_impl(Compare::Le, self_, o, out)
    })
}

/// Whether both elements are nonzero (a `Bool` tensor; `self` and `other` broadcast).
#[native_function(
    "logical_and(Tensor self, Tensor other) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn logical_and_kernel(self_: &MiniTensor, other: &MiniTensor) -> Result<MiniTensor, Error> {
    functional(masks::logical_and_meta(self_, other)?, |o| {
        masks::logical_and_impl(self_, other, o)
    })
}

/// `self` where `condition`, else the number `other`: `where.self` with `other` wrapped in
/// a tensor on `self`'s device (a composite, as in PyTorch).
#[native_function("where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor")]
pub fn where_scalar_other_composite(
    condition: &MiniTensor,
    self_: &MiniTensor,
    other: Scalar,
) -> Result<MiniTensor, Error> {
    try_where_self(condition, self_, &wrapped(other, self_)?)
}

/// The number `self` where `condition`, else `other` (a composite of `where.self`).
#[native_function("where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor")]
pub fn where_scalar_self_composite(
    condition: &MiniTensor,
    self_: Scalar,
    other: &MiniTensor,
) -> Result<MiniTensor, Error> {
    try_where_self(condition, &wrapped(self_, other)?, other)
}

/// `value` as a 0-dim tensor of its own dtype (a wrapped number) on `like`'s device.
fn wrapped(value: Scalar, like: &MiniTensor) -> Result<MiniTensor, Error> {
    let dtype = crate::promote::scalar_dtype(value)?;
    let options = like.options()?.dtype(dtype);
    let t = MiniTensor::new_empty(&[], &options)?;
    crate::kernels::factory::fill(&t, value)?;
    Ok(t)
}
