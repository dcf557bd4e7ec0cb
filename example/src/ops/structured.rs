//! The operators PyTorch makes structured (`structured: True` on the out operator, the
//! functional and in-place operators `structured_delegate` to it), registered today as
//! ordinary kernels for `CPU` and `Meta` that call the meta and impl functions of
//! [`crate::kernels`] through [`super::wiring`].
//!
//! | group (out operator) | meta, impl |
//! |---|---|
//! | `add.out`, `add.Tensor`, `add_.Tensor` | [`pw::add_meta`], [`pw::add_impl`] |
//! | `sub.out`, `sub.Tensor`, `sub_.Tensor` | [`pw::sub_meta`], [`pw::sub_impl`] |
//! | `mul.out`, `mul.Tensor`, `mul_.Tensor` | [`pw::mul_meta`], [`pw::mul_impl`] |
//! | `div.out`, `div.Tensor`, `div_.Tensor` | [`pw::div_meta`], [`pw::div_impl`] |
//! | `neg.out`, `neg`, `neg_` | [`pw::unary_meta`], [`pw::unary_impl`] (`Unary::Neg`) |
//! | `exp.out`, `exp`, `exp_` | [`pw::unary_meta`], [`pw::unary_impl`] (`Unary::Exp`) |
//! | `clamp.out`, `clamp`, `clamp_` | [`pw::clamp_meta`], [`pw::clamp_impl`] |
//! | `eq`/`lt`/`gt` `.Tensor_out`, `.Scalar_out`, `.Tensor`, `.Scalar` | [`pw::compare_meta`], [`pw::compare_impl`] |
//! | `sum.IntList_out`, `sum.dim_IntList` | [`red::sum_meta`], [`red::sum_impl`] |
//! | `mean.out`, `mean.dim` | [`red::mean_meta`], [`red::mean_impl`] |
//! | `max.dim_max`, `max.dim` | [`red::max_dim_meta`], [`red::max_dim_impl`] |
//! | `argmax.out`, `argmax` | [`red::argmax_meta`], [`red::argmax_impl`] |
//! | `topk.values`, `topk` | [`red::topk_meta`], [`red::topk_impl`] |
//! | `mm.out`, `mm` | [`linalg::mm_meta`], [`linalg::mm_impl`] |
//! | `cat.out`, `cat` | [`join::cat_meta`], [`join::cat_impl`] |
//!
//! When opgen's structured kernels land, each group here becomes the meta function with
//! `structured` on the out schema, the impl with `op = "<out>", structured, dispatch =
//! "CPU"`, and the two delegate schemas; Meta kernels then come for free.

use opgen::prelude::*;

use super::wiring::{functional, functional2, inplace, out, out2};
use crate::MiniTensor;
use crate::kernels::pointwise::{self as pw, Compare, Operand, Unary};
use crate::kernels::{join, linalg, reduce as red};

/// `self + alpha * other`, broadcasting and promoting `self` and `other`.
#[native_function(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn add_kernel(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
) -> Result<MiniTensor, Error> {
    functional(pw::add_meta(self_, other, alpha)?, |o| {
        pw::add_impl(self_, other, alpha, o)
    })
}

/// In place: `self + alpha * other`; the result must fit `self` (no resizing, a castable dtype).
#[native_function(
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    variants = "method",
    dispatch = "CPU, Meta"
)]
pub fn add_inplace_kernel(
    self_: &mut MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
) -> Result<(), Error> {
    let input = self_.share();
    inplace(self_, pw::add_meta(&input, other, alpha)?, |o| {
        pw::add_impl(&input, other, alpha, o)
    })
}

/// Into `out`: `self + alpha * other` (`out` is resized if its shape differs).
#[native_function(
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn add_out_kernel(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    out(out_, pw::add_meta(self_, other, alpha)?, |o| {
        pw::add_impl(self_, other, alpha, o)
    })
}

/// `self - alpha * other`, broadcasting and promoting `self` and `other`.
#[native_function(
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn sub_kernel(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
) -> Result<MiniTensor, Error> {
    functional(pw::sub_meta(self_, other, alpha)?, |o| {
        pw::sub_impl(self_, other, alpha, o)
    })
}

/// In place: `self - alpha * other`; the result must fit `self` (no resizing, a castable dtype).
#[native_function(
    "sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    variants = "method",
    dispatch = "CPU, Meta"
)]
pub fn sub_inplace_kernel(
    self_: &mut MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
) -> Result<(), Error> {
    let input = self_.share();
    inplace(self_, pw::sub_meta(&input, other, alpha)?, |o| {
        pw::sub_impl(&input, other, alpha, o)
    })
}

/// Into `out`: `self - alpha * other` (`out` is resized if its shape differs).
#[native_function(
    "sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn sub_out_kernel(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    out(out_, pw::sub_meta(self_, other, alpha)?, |o| {
        pw::sub_impl(self_, other, alpha, o)
    })
}

/// `self * other`, broadcasting and promoting `self` and `other`.
#[native_function(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn mul_kernel(self_: &MiniTensor, other: &MiniTensor) -> Result<MiniTensor, Error> {
    functional(pw::mul_meta(self_, other)?, |o| {
        pw::mul_impl(self_, other, o)
    })
}

/// In place: `self * other`; the result must fit `self` (no resizing, a castable dtype).
#[native_function(
    "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    variants = "method",
    dispatch = "CPU, Meta"
)]
pub fn mul_inplace_kernel(self_: &mut MiniTensor, other: &MiniTensor) -> Result<(), Error> {
    let input = self_.share();
    inplace(self_, pw::mul_meta(&input, other)?, |o| {
        pw::mul_impl(&input, other, o)
    })
}

/// Into `out`: `self * other` (`out` is resized if its shape differs).
#[native_function(
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn mul_out_kernel(
    self_: &MiniTensor,
    other: &MiniTensor,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    out(out_, pw::mul_meta(self_, other)?, |o| {
        pw::mul_impl(self_, other, o)
    })
}

/// `self / other` (true division: integers give the default float dtype), broadcasting and promoting `self` and `other`.
#[native_function(
    "div.Tensor(Tensor self, Tensor other) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn div_kernel(self_: &MiniTensor, other: &MiniTensor) -> Result<MiniTensor, Error> {
    functional(pw::div_meta(self_, other)?, |o| {
        pw::div_impl(self_, other, o)
    })
}

/// In place: `self / other` (true division: integers give the default float dtype); the result must fit `self` (no resizing, a castable dtype).
#[native_function(
    "div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    variants = "method",
    dispatch = "CPU, Meta"
)]
pub fn div_inplace_kernel(self_: &mut MiniTensor, other: &MiniTensor) -> Result<(), Error> {
    let input = self_.share();
    inplace(self_, pw::div_meta(&input, other)?, |o| {
        pw::div_impl(&input, other, o)
    })
}

/// Into `out`: `self / other` (true division: integers give the default float dtype) (`out` is resized if its shape differs).
#[native_function(
    "div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn div_out_kernel(
    self_: &MiniTensor,
    other: &MiniTensor,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    out(out_, pw::div_meta(self_, other)?, |o| {
        pw::div_impl(self_, other, o)
    })
}

/// The negation of `self` (not for `Bool`).
#[native_function(
    "neg(Tensor self) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn neg_kernel(self_: &MiniTensor) -> Result<MiniTensor, Error> {
    functional(pw::unary_meta(Unary::Neg, self_)?, |o| {
        pw::unary_impl(Unary::Neg, self_, o)
    })
}

/// In place: The negation of `self` (not for `Bool`).
#[native_function(
    "neg_(Tensor(a!) self) -> Tensor(a!)",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn neg_inplace_kernel(self_: &mut MiniTensor) -> Result<(), Error> {
    let input = self_.share();
    inplace(self_, pw::unary_meta(Unary::Neg, &input)?, |o| {
        pw::unary_impl(Unary::Neg, &input, o)
    })
}

/// Into `out`: The negation of `self` (not for `Bool`).
#[native_function(
    "neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn neg_out_kernel(self_: &MiniTensor, out_: &mut MiniTensor) -> Result<(), Error> {
    out(out_, pw::unary_meta(Unary::Neg, self_)?, |o| {
        pw::unary_impl(Unary::Neg, self_, o)
    })
}

/// `e` to the power of `self` (integers give the default float dtype).
#[native_function(
    "exp(Tensor self) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn exp_kernel(self_: &MiniTensor) -> Result<MiniTensor, Error> {
    functional(pw::unary_meta(Unary::Exp, self_)?, |o| {
        pw::unary_impl(Unary::Exp, self_, o)
    })
}

/// In place: `e` to the power of `self` (integers give the default float dtype).
#[native_function(
    "exp_(Tensor(a!) self) -> Tensor(a!)",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn exp_inplace_kernel(self_: &mut MiniTensor) -> Result<(), Error> {
    let input = self_.share();
    inplace(self_, pw::unary_meta(Unary::Exp, &input)?, |o| {
        pw::unary_impl(Unary::Exp, &input, o)
    })
}

/// Into `out`: `e` to the power of `self` (integers give the default float dtype).
#[native_function(
    "exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn exp_out_kernel(self_: &MiniTensor, out_: &mut MiniTensor) -> Result<(), Error> {
    out(out_, pw::unary_meta(Unary::Exp, self_)?, |o| {
        pw::unary_impl(Unary::Exp, self_, o)
    })
}

/// `self` clamped to `[min, max]`; either bound may be omitted, not both. The bounds take
/// part in type promotion as wrapped numbers.
#[native_function(
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn clamp_kernel(
    self_: &MiniTensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<MiniTensor, Error> {
    functional(pw::clamp_meta(self_, min, max)?, |o| {
        pw::clamp_impl(self_, min, max, o)
    })
}

/// In place: `self` clamped to `[min, max]`.
#[native_function(
    "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn clamp_inplace_kernel(
    self_: &mut MiniTensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<(), Error> {
    let input = self_.share();
    inplace(self_, pw::clamp_meta(&input, min, max)?, |o| {
        pw::clamp_impl(&input, min, max, o)
    })
}

/// Into `out`: `self` clamped to `[min, max]`.
#[native_function(
    "clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn clamp_out_kernel(
    self_: &MiniTensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    out(out_, pw::clamp_meta(self_, min, max)?, |o| {
        pw::clamp_impl(self_, min, max, o)
    })
}

/// `self == other` elementwise, as `Bool` (the operands broadcast and promote).
#[native_function(
    "eq.Tensor(Tensor self, Tensor other) -> Tensor",
    variants = "method, function",
    dispatch = "CPU, Meta"
)]
pub fn eq_tensor_kernel(self_: &MiniTensor, other: &MiniTensor) -> Result<MiniTensor, Error> {
    let other = Operand::Tensor(other);
    functional(pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Eq, self_, other, o)
    })
}

/// `self == other` elementwise with a `Scalar`, as `Bool`.
#[native_function(
    "eq.Scalar(Tensor self, Scalar other) -> Tensor",
    variants = "method, function",
    dispatch = "CPU, Meta"
)]
pub fn eq_scalar_kernel(self_: &MiniTensor, other: Scalar) -> Result<MiniTensor, Error> {
    let other = Operand::Scalar(other);
    functional(pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Eq, self_, other, o)
    })
}

/// Into `out`: `self == other` elementwise.
#[native_function(
    "eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn eq_tensor_out_kernel(
    self_: &MiniTensor,
    other: &MiniTensor,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    let other = Operand::Tensor(other);
    out(out_, pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Eq, self_, other, o)
    })
}

/// Into `out`: `self == other` elementwise with a `Scalar`.
#[native_function(
    "eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn eq_scalar_out_kernel(
    self_: &MiniTensor,
    other: Scalar,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    let other = Operand::Scalar(other);
    out(out_, pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Eq, self_, other, o)
    })
}

/// `self < other` elementwise, as `Bool` (the operands broadcast and promote).
#[native_function(
    "lt.Tensor(Tensor self, Tensor other) -> Tensor",
    variants = "method, function",
    dispatch = "CPU, Meta"
)]
pub fn lt_tensor_kernel(self_: &MiniTensor, other: &MiniTensor) -> Result<MiniTensor, Error> {
    let other = Operand::Tensor(other);
    functional(pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Lt, self_, other, o)
    })
}

/// `self < other` elementwise with a `Scalar`, as `Bool`.
#[native_function(
    "lt.Scalar(Tensor self, Scalar other) -> Tensor",
    variants = "method, function",
    dispatch = "CPU, Meta"
)]
pub fn lt_scalar_kernel(self_: &MiniTensor, other: Scalar) -> Result<MiniTensor, Error> {
    let other = Operand::Scalar(other);
    functional(pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Lt, self_, other, o)
    })
}

/// Into `out`: `self < other` elementwise.
#[native_function(
    "lt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn lt_tensor_out_kernel(
    self_: &MiniTensor,
    other: &MiniTensor,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    let other = Operand::Tensor(other);
    out(out_, pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Lt, self_, other, o)
    })
}

/// Into `out`: `self < other` elementwise with a `Scalar`.
#[native_function(
    "lt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn lt_scalar_out_kernel(
    self_: &MiniTensor,
    other: Scalar,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    let other = Operand::Scalar(other);
    out(out_, pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Lt, self_, other, o)
    })
}

/// `self > other` elementwise, as `Bool` (the operands broadcast and promote).
#[native_function(
    "gt.Tensor(Tensor self, Tensor other) -> Tensor",
    variants = "method, function",
    dispatch = "CPU, Meta"
)]
pub fn gt_tensor_kernel(self_: &MiniTensor, other: &MiniTensor) -> Result<MiniTensor, Error> {
    let other = Operand::Tensor(other);
    functional(pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Gt, self_, other, o)
    })
}

/// `self > other` elementwise with a `Scalar`, as `Bool`.
#[native_function(
    "gt.Scalar(Tensor self, Scalar other) -> Tensor",
    variants = "method, function",
    dispatch = "CPU, Meta"
)]
pub fn gt_scalar_kernel(self_: &MiniTensor, other: Scalar) -> Result<MiniTensor, Error> {
    let other = Operand::Scalar(other);
    functional(pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Gt, self_, other, o)
    })
}

/// Into `out`: `self > other` elementwise.
#[native_function(
    "gt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn gt_tensor_out_kernel(
    self_: &MiniTensor,
    other: &MiniTensor,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    let other = Operand::Tensor(other);
    out(out_, pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Gt, self_, other, o)
    })
}

/// Into `out`: `self > other` elementwise with a `Scalar`.
#[native_function(
    "gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn gt_scalar_out_kernel(
    self_: &MiniTensor,
    other: Scalar,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    let other = Operand::Scalar(other);
    out(out_, pw::compare_meta(self_, other)?, |o| {
        pw::compare_impl(Compare::Gt, self_, other, o)
    })
}

/// The sum over the dimensions `dim` (none or empty: all), keeping them as size 1 with
/// `keepdim`; integer and bool inputs sum to `Long` unless `dtype` says otherwise.
#[native_function(
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn sum_dim_kernel(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
) -> Result<MiniTensor, Error> {
    functional(red::sum_meta(self_, dim, keepdim, dtype)?, |o| {
        red::sum_impl(self_, dim, keepdim, dtype, o)
    })
}

/// Into `out`: the sum over `dim`. Without `dtype`, the sum is computed in `out`'s dtype
/// (PyTorch's rule for reductions into an out argument).
#[native_function(
    "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn sum_out_kernel(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    let dtype = dtype.or(Some(out_.dtype()));
    out(out_, red::sum_meta(self_, dim, keepdim, dtype)?, |o| {
        red::sum_impl(self_, dim, keepdim, dtype, o)
    })
}

/// The mean over the dimensions `dim` (none or empty: all); the dtype must be floating.
#[native_function(
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn mean_dim_kernel(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
) -> Result<MiniTensor, Error> {
    functional(red::mean_meta(self_, dim, keepdim, dtype)?, |o| {
        red::mean_impl(self_, dim, keepdim, dtype, o)
    })
}

/// Into `out`: the mean over `dim` (without `dtype`, in `out`'s dtype).
#[native_function(
    "mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn mean_out_kernel(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    let dtype = dtype.or(Some(out_.dtype()));
    out(out_, red::mean_meta(self_, dim, keepdim, dtype)?, |o| {
        red::mean_impl(self_, dim, keepdim, dtype, o)
    })
}

/// The largest value along `dim` and its index (the first on ties; NaN is the largest),
/// as the named tuple `(values, indices)`.
#[native_function(
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn max_dim_kernel(
    self_: &MiniTensor,
    dim: i64,
    keepdim: bool,
) -> Result<(MiniTensor, MiniTensor), Error> {
    functional2(red::max_dim_meta(self_, dim, keepdim)?, |v, i| {
        red::max_dim_impl(self_, dim, keepdim, v, i)
    })
}

/// Into `max` (the values) and `max_values` (the indices: PyTorch's names).
#[native_function(
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    dispatch = "CPU, Meta"
)]
pub fn max_dim_max_kernel(
    self_: &MiniTensor,
    dim: i64,
    keepdim: bool,
    max: &mut MiniTensor,
    max_values: &mut MiniTensor,
) -> Result<(), Error> {
    out2(
        max,
        max_values,
        red::max_dim_meta(self_, dim, keepdim)?,
        |v, i| red::max_dim_impl(self_, dim, keepdim, v, i),
    )
}

/// The index of the largest value (of the flattened tensor when `dim` is none).
#[native_function(
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn argmax_kernel(
    self_: &MiniTensor,
    dim: Option<i64>,
    keepdim: bool,
) -> Result<MiniTensor, Error> {
    functional(red::argmax_meta(self_, dim, keepdim)?, |o| {
        red::argmax_impl(self_, dim, keepdim, o)
    })
}

/// Into `out`: the index of the largest value.
#[native_function(
    "argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn argmax_out_kernel(
    self_: &MiniTensor,
    dim: Option<i64>,
    keepdim: bool,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    out(out_, red::argmax_meta(self_, dim, keepdim)?, |o| {
        red::argmax_impl(self_, dim, keepdim, o)
    })
}

/// The `k` largest (or smallest) values along `dim` and their indices, as the named tuple
/// `(values, indices)`.
#[native_function(
    "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
    variants = "method, function",
    dispatch = "CPU, Meta"
)]
pub fn topk_kernel(
    self_: &MiniTensor,
    k: i64,
    dim: i64,
    largest: bool,
    sorted: bool,
) -> Result<(MiniTensor, MiniTensor), Error> {
    functional2(red::topk_meta(self_, k, dim, largest, sorted)?, |v, i| {
        red::topk_impl(self_, k, dim, largest, sorted, v, i)
    })
}

/// Into `values` and `indices`: the `k` largest (or smallest) values along `dim`.
#[native_function(
    "topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    dispatch = "CPU, Meta"
)]
pub fn topk_values_kernel(
    self_: &MiniTensor,
    k: i64,
    dim: i64,
    largest: bool,
    sorted: bool,
    values: &mut MiniTensor,
    indices: &mut MiniTensor,
) -> Result<(), Error> {
    out2(
        values,
        indices,
        red::topk_meta(self_, k, dim, largest, sorted)?,
        |v, i| red::topk_impl(self_, k, dim, largest, sorted, v, i),
    )
}

/// The matrix product of two matrices of one dtype.
#[native_function(
    "mm(Tensor self, Tensor mat2) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta"
)]
pub fn mm_kernel(self_: &MiniTensor, mat2: &MiniTensor) -> Result<MiniTensor, Error> {
    functional(linalg::mm_meta(self_, mat2)?, |o| {
        linalg::mm_impl(self_, mat2, o)
    })
}

/// Into `out`: the matrix product.
#[native_function(
    "mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn mm_out_kernel(
    self_: &MiniTensor,
    mat2: &MiniTensor,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    out(out_, linalg::mm_meta(self_, mat2)?, |o| {
        linalg::mm_impl(self_, mat2, o)
    })
}

/// The tensors joined along `dim` (sizes agree elsewhere; dtypes promote; 1-D empty
/// tensors are skipped, PyTorch's legacy rule). Function only.
#[native_function("cat(Tensor[] tensors, int dim=0) -> Tensor", dispatch = "CPU, Meta")]
pub fn cat_kernel(tensors: &[MiniTensor], dim: i64) -> Result<MiniTensor, Error> {
    functional(join::cat_meta(tensors, dim)?, |o| {
        join::cat_impl(tensors, dim, o)
    })
}

/// Into `out`: the tensors joined along `dim`.
#[native_function(
    "cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta"
)]
pub fn cat_out_kernel(
    tensors: &[MiniTensor],
    dim: i64,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    out(out_, join::cat_meta(tensors, dim)?, |o| {
        join::cat_impl(tensors, dim, o)
    })
}
