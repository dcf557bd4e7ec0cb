//! The operators PyTorch makes structured (`structured: True` on the out operator, the
//! functional and in-place operators `structured_delegate` to it), as opgen's structured
//! kernels (docs/STRUCTURED.md): per group one **meta** function with `structured` on the
//! out schema, one **impl** (`op = "<out>", structured, dispatch = "CPU"`), and the
//! functional and in-place operators declared with `structured_delegate`. opgen derives the
//! functional, in-place and out kernels at `CPU` from the pair, and at `Meta` kernels that
//! run only the meta function.
//!
//! The meta and impl functions here are thin: the logic is in [`crate::kernels`], whose
//! meta functions compute an [`OutputMeta`] that [`set_output`] (and its variants for
//! casting and reductions) hands to [`StructuredMeta::set_output`].
//!
//! | group (out operator) | meta, impl | precomputed |
//! |---|---|---|
//! | `add.out`, `add.Tensor`, `add_.Tensor` | [`pw::add_meta`], [`pw::add_impl`] | |
//! | `sub.out`, `sub.Tensor`, `sub_.Tensor` | [`pw::sub_meta`], [`pw::sub_impl`] | |
//! | `mul.out`, `mul.Tensor`, `mul_.Tensor` | [`pw::mul_meta`], [`pw::mul_impl`] | |
//! | `div.out`, `div.Tensor`, `div_.Tensor` | [`pw::div_meta`], [`pw::div_impl`] | |
//! | `neg.out`, `neg`, `neg_` | [`pw::unary_meta`], [`pw::unary_impl`] (`Unary::Neg`) | |
//! | `exp.out`, `exp`, `exp_` | [`pw::unary_meta`], [`pw::unary_impl`] (`Unary::Exp`) | |
//! | `clamp.out`, `clamp`, `clamp_` | [`pw::clamp_meta`], [`pw::clamp_impl`] | |
//! | `eq`/`lt`/`gt` `.Tensor_out` with `.Tensor`, `.Scalar_out` with `.Scalar` | [`pw::compare_meta`], [`pw::compare_impl`] | |
//! | `sum.IntList_out`, `sum.dim_IntList` | [`red::sum_meta`], [`red::sum_impl`] | |
//! | `mean.out`, `mean.dim` | [`red::mean_meta`], [`red::mean_impl`] | |
//! | `max.dim_max`, `max.dim` | [`red::max_dim_meta`], [`red::max_dim_impl`] | `dim -> int dim` |
//! | `argmax.out`, `argmax` | [`red::argmax_meta`], [`red::argmax_impl`] | |
//! | `topk.values`, `topk` | [`red::topk_meta`], [`red::topk_impl`] | |
//! | `mm.out`, `mm` | [`linalg::mm_meta`], [`linalg::mm_impl`] | |
//! | `cat.out`, `cat` | [`join::cat_meta`], [`join::cat_impl`] | `dim -> int dim, int valid, bool all_contiguous, bool all_same_dtype, bool all_same_sizes_and_stride, MemoryFormat memory_format` |
//!
//! PyTorch's eq/lt/gt groups also have in-place operators (`eq_.Tensor`, ...); the library
//! does not define them.
//!
//! How outputs meet a given tensor (an out argument, `self` in place) follows PyTorch's
//! meta functions: the `TensorIterator` operators (`structured_inherits:
//! TensorIteratorBase` in the yaml: the pointwise groups) and `cat` write into an output of
//! another dtype the result casts to ([`set_output_cast`]); `sum` and `mean` without a
//! `dtype` compute in the out argument's dtype ([`reduction_dtype`]); the others need the
//! exact dtype ([`set_output`], opgen's check).

use opgen::dispatch::MemoryFormat;
use opgen::prelude::*;

// The operators the derivative formulas call, by their canonical Rust names.
#[allow(unused_imports)]
use super::*;
use opgen::structured::Mode;

use crate::MiniTensor;
use crate::kernels::OutputMeta;
use crate::kernels::pointwise::{self as pw, Compare, Operand, Unary};
use crate::kernels::{join, linalg, reduce as red};
use crate::promote::{can_cast, cast_error};
use crate::shape::wrap_dim;

/// Sets output `index` to `o` (opgen checks an out argument's dtype and device, and resizes
/// it; `self` in place must match exactly).
pub fn set_output(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    index: usize,
    o: OutputMeta,
) -> Result<(), Error> {
    meta.set_output(index, &o.sizes, o.options)
}

/// [`set_output`] for `TensorIterator` operators: a given output of another dtype is kept
/// when the result casts to it (the impl converts), else PyTorch's error; `self` in place
/// must already have the broadcast shape (never resized).
pub fn set_output_cast(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    index: usize,
    o: OutputMeta,
) -> Result<(), Error> {
    let mut options = o.options;
    if let Some(given) = meta.maybe_get_output(index) {
        if meta.mode() == Mode::InPlace && given.shape() != o.sizes {
            return Err(Error::from(format!(
                "output with shape {:?} doesn't match the broadcast shape {:?}",
                given.shape(),
                o.sizes
            )));
        }
        if !can_cast(o.dtype(), given.dtype()) {
            return Err(cast_error(o.dtype(), given.dtype()));
        }
        options = options.dtype(given.dtype());
    }
    meta.set_output(index, &o.sizes, options)
}

/// The dtype a reduction computes in: `dtype` if given, else an out argument's (PyTorch's
/// `infer_dtype_from_optional(self, dtype, maybe_get_output())`), else `None` (the
/// reduction's default).
pub fn reduction_dtype(
    meta: &StructuredMeta<'_, MiniTensor>,
    dtype: Option<ScalarType>,
) -> Option<ScalarType> {
    dtype.or_else(|| meta.maybe_get_output(0).map(MiniTensor::dtype))
}

/// `add.out`'s meta: the broadcast shape, the promoted dtype, the common device.
#[native_function(
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(functional)
)]
pub fn add_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::add_meta(self_, other, alpha)?)
}

/// `add.out`'s CPU impl: `self + alpha * other` into `out` (converted to its dtype).
#[native_function(op = "add.out", structured, dispatch = "CPU")]
pub fn add_out_cpu(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::add_impl(self_, other, alpha, out)
}

/// `self + alpha * other`, broadcasting and promoting `self` and `other`.
#[native_function(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    structured_delegate = "add.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(
        self = "handle_r_to_c(self.scalar_type(), grad)",
        other = "handle_r_to_c(other.scalar_type(), maybe_multiply(grad, alpha.conj()))",
    )
)]
pub fn add();

/// In place: `self + alpha * other`; the result must fit `self` (no resizing, a castable dtype).
#[native_function(
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    structured_delegate = "add.out",
    variants = "method",
    tensor = "MiniTensor",
    derivatives(functional)
)]
pub fn add_();

/// `sub.out`'s meta: the broadcast shape, the promoted dtype, the common device.
#[native_function(
    "sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(functional)
)]
pub fn sub_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::sub_meta(self_, other, alpha)?)
}

/// `sub.out`'s CPU impl: `self - alpha * other` into `out` (converted to its dtype).
#[native_function(op = "sub.out", structured, dispatch = "CPU")]
pub fn sub_out_cpu(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::sub_impl(self_, other, alpha, out)
}

/// `self - alpha * other`, broadcasting and promoting `self` and `other`.
#[native_function(
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    structured_delegate = "sub.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(
        self = "handle_r_to_c(self.scalar_type(), grad)",
        other = "handle_r_to_c(other.scalar_type(), maybe_multiply(-grad, alpha.conj()))",
    )
)]
pub fn sub();

/// In place: `self - alpha * other`; the result must fit `self` (no resizing, a castable dtype).
#[native_function(
    "sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    structured_delegate = "sub.out",
    variants = "method",
    tensor = "MiniTensor",
    derivatives(functional)
)]
pub fn sub_();

/// `mul.out`'s meta: the broadcast shape, the promoted dtype, the common device.
#[native_function(
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(functional)
)]
pub fn mul_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: &MiniTensor,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::mul_meta(self_, other)?)
}

/// `mul.out`'s CPU impl: `self * other` into `out` (converted to its dtype).
#[native_function(op = "mul.out", structured, dispatch = "CPU")]
pub fn mul_out_cpu(
    self_: &MiniTensor,
    other: &MiniTensor,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::mul_impl(self_, other, out)
}

/// `self * other`, broadcasting and promoting `self` and `other`.
#[native_function(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    structured_delegate = "mul.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(
        self = "mul_tensor_backward(grad, other, self.scalar_type())",
        other = "mul_tensor_backward(grad, self, other.scalar_type())",
    )
)]
pub fn mul();

/// In place: `self * other`; the result must fit `self` (no resizing, a castable dtype).
#[native_function(
    "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    structured_delegate = "mul.out",
    variants = "method",
    tensor = "MiniTensor",
    derivatives(functional)
)]
pub fn mul_();

/// `div.out`'s meta: the broadcast shape, the promoted dtype, the common device.
#[native_function(
    "div.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(functional)
)]
pub fn div_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: &MiniTensor,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::div_meta(self_, other)?)
}

/// `div.out`'s CPU impl: `self / other` into `out` (converted to its dtype).
#[native_function(op = "div.out", structured, dispatch = "CPU")]
pub fn div_out_cpu(
    self_: &MiniTensor,
    other: &MiniTensor,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::div_impl(self_, other, out)
}

/// `self / other` (true division: integers give the default float dtype), broadcasting and promoting `self` and `other`.
#[native_function(
    "div.Tensor(Tensor self, Tensor other) -> Tensor",
    structured_delegate = "div.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(
        self = "div_tensor_self_backward(grad, other, self.scalar_type())",
        other = "div_tensor_other_backward(grad, self, other)",
    )
)]
pub fn div();

/// In place: `self / other` (true division: integers give the default float dtype); the result must fit `self` (no resizing, a castable dtype).
#[native_function(
    "div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    structured_delegate = "div.out",
    variants = "method",
    tensor = "MiniTensor",
    derivatives(functional)
)]
pub fn div_();

/// `neg.out`'s meta: `self`'s shape and dtype (an error for `Bool`).
#[native_function(
    "neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(functional)
)]
pub fn neg_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::unary_meta(Unary::Neg, self_)?)
}

/// `neg.out`'s CPU impl.
#[native_function(op = "neg.out", structured, dispatch = "CPU")]
pub fn neg_out_cpu(self_: &MiniTensor, out: &mut MiniTensor) -> Result<(), Error> {
    pw::unary_impl(Unary::Neg, self_, out)
}

/// The negation of `self` (not for `Bool`).
#[native_function(
    "neg(Tensor self) -> Tensor",
    structured_delegate = "neg.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(self = "grad.neg()")
)]
pub fn neg();

/// In place: The negation of `self` (not for `Bool`).
#[native_function(
    "neg_(Tensor(a!) self) -> Tensor(a!)",
    structured_delegate = "neg.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(functional)
)]
pub fn neg_();

/// `exp.out`'s meta: `self`'s shape; integers give the default float dtype.
#[native_function(
    "exp.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(functional)
)]
pub fn exp_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::unary_meta(Unary::Exp, self_)?)
}

/// `exp.out`'s CPU impl.
#[native_function(op = "exp.out", structured, dispatch = "CPU")]
pub fn exp_out_cpu(self_: &MiniTensor, out: &mut MiniTensor) -> Result<(), Error> {
    pw::unary_impl(Unary::Exp, self_, out)
}

/// `e` to the power of `self` (integers give the default float dtype).
#[native_function(
    "exp(Tensor self) -> Tensor",
    structured_delegate = "exp.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(self = "grad * result.conj()")
)]
pub fn exp();

/// In place: `e` to the power of `self` (integers give the default float dtype).
#[native_function(
    "exp_(Tensor(a!) self) -> Tensor(a!)",
    structured_delegate = "exp.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(functional)
)]
pub fn exp_();

/// `clamp.out`'s meta: `self`'s shape, `self` promoted with the bounds as wrapped numbers;
/// at least one bound.
#[native_function(
    "clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(functional)
)]
pub fn clamp_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::clamp_meta(self_, min, max)?)
}

/// `clamp.out`'s CPU impl.
#[native_function(op = "clamp.out", structured, dispatch = "CPU")]
pub fn clamp_out_cpu(
    self_: &MiniTensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::clamp_impl(self_, min, max, out)
}

/// `self` clamped to `[min, max]`; either bound may be omitted, not both. The bounds take
/// part in type promotion as wrapped numbers.
#[native_function(
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    structured_delegate = "clamp.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(self = "clamp_backward(grad, self, min, max)")
)]
pub fn clamp();

/// In place: `self` clamped to `[min, max]`.
#[native_function(
    "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
    structured_delegate = "clamp.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(functional)
)]
pub fn clamp_();

/// `eq.Tensor_out`'s meta: the broadcast shape, `Bool` (the operands promote).
#[native_function(
    "eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    structured
)]
pub fn eq_tensor_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: &MiniTensor,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::compare_meta(self_, Operand::Tensor(other))?)
}

/// `eq.Tensor_out`'s CPU impl.
#[native_function(op = "eq.Tensor_out", structured, dispatch = "CPU")]
pub fn eq_tensor_out_cpu(
    self_: &MiniTensor,
    other: &MiniTensor,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::compare_impl(Compare::Eq, self_, Operand::Tensor(other), out)
}

/// `self == other` elementwise, as `Bool` (the operands broadcast and promote).
#[native_function(
    "eq.Tensor(Tensor self, Tensor other) -> Tensor",
    structured_delegate = "eq.Tensor_out",
    variants = "method, function",
    tensor = "MiniTensor"
)]
pub fn eq_tensor();

/// `eq.Scalar_out`'s meta: the broadcast shape, `Bool` (the operands promote).
#[native_function(
    "eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    structured
)]
pub fn eq_scalar_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: Scalar,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::compare_meta(self_, Operand::Scalar(other))?)
}

/// `eq.Scalar_out`'s CPU impl.
#[native_function(op = "eq.Scalar_out", structured, dispatch = "CPU")]
pub fn eq_scalar_out_cpu(
    self_: &MiniTensor,
    other: Scalar,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::compare_impl(Compare::Eq, self_, Operand::Scalar(other), out)
}

/// `self == other` elementwise with a `Scalar`, as `Bool`.
#[native_function(
    "eq.Scalar(Tensor self, Scalar other) -> Tensor",
    structured_delegate = "eq.Scalar_out",
    variants = "method, function",
    tensor = "MiniTensor"
)]
pub fn eq_scalar();

/// `lt.Tensor_out`'s meta: the broadcast shape, `Bool` (the operands promote).
#[native_function(
    "lt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    structured
)]
pub fn lt_tensor_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: &MiniTensor,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::compare_meta(self_, Operand::Tensor(other))?)
}

/// `lt.Tensor_out`'s CPU impl.
#[native_function(op = "lt.Tensor_out", structured, dispatch = "CPU")]
pub fn lt_tensor_out_cpu(
    self_: &MiniTensor,
    other: &MiniTensor,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::compare_impl(Compare::Lt, self_, Operand::Tensor(other), out)
}

/// `self < other` elementwise, as `Bool` (the operands broadcast and promote).
#[native_function(
    "lt.Tensor(Tensor self, Tensor other) -> Tensor",
    structured_delegate = "lt.Tensor_out",
    variants = "method, function",
    tensor = "MiniTensor"
)]
pub fn lt_tensor();

/// `lt.Scalar_out`'s meta: the broadcast shape, `Bool` (the operands promote).
#[native_function(
    "lt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    structured
)]
pub fn lt_scalar_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: Scalar,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::compare_meta(self_, Operand::Scalar(other))?)
}

/// `lt.Scalar_out`'s CPU impl.
#[native_function(op = "lt.Scalar_out", structured, dispatch = "CPU")]
pub fn lt_scalar_out_cpu(
    self_: &MiniTensor,
    other: Scalar,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::compare_impl(Compare::Lt, self_, Operand::Scalar(other), out)
}

/// `self < other` elementwise with a `Scalar`, as `Bool`.
#[native_function(
    "lt.Scalar(Tensor self, Scalar other) -> Tensor",
    structured_delegate = "lt.Scalar_out",
    variants = "method, function",
    tensor = "MiniTensor"
)]
pub fn lt_scalar();

/// `gt.Tensor_out`'s meta: the broadcast shape, `Bool` (the operands promote).
#[native_function(
    "gt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    structured
)]
pub fn gt_tensor_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: &MiniTensor,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::compare_meta(self_, Operand::Tensor(other))?)
}

/// `gt.Tensor_out`'s CPU impl.
#[native_function(op = "gt.Tensor_out", structured, dispatch = "CPU")]
pub fn gt_tensor_out_cpu(
    self_: &MiniTensor,
    other: &MiniTensor,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::compare_impl(Compare::Gt, self_, Operand::Tensor(other), out)
}

/// `self > other` elementwise, as `Bool` (the operands broadcast and promote).
#[native_function(
    "gt.Tensor(Tensor self, Tensor other) -> Tensor",
    structured_delegate = "gt.Tensor_out",
    variants = "method, function",
    tensor = "MiniTensor"
)]
pub fn gt_tensor();

/// `gt.Scalar_out`'s meta: the broadcast shape, `Bool` (the operands promote).
#[native_function(
    "gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)",
    structured
)]
pub fn gt_scalar_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    other: Scalar,
) -> Result<(), Error> {
    set_output_cast(meta, 0, pw::compare_meta(self_, Operand::Scalar(other))?)
}

/// `gt.Scalar_out`'s CPU impl.
#[native_function(op = "gt.Scalar_out", structured, dispatch = "CPU")]
pub fn gt_scalar_out_cpu(
    self_: &MiniTensor,
    other: Scalar,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    pw::compare_impl(Compare::Gt, self_, Operand::Scalar(other), out)
}

/// `self > other` elementwise with a `Scalar`, as `Bool`.
#[native_function(
    "gt.Scalar(Tensor self, Scalar other) -> Tensor",
    structured_delegate = "gt.Scalar_out",
    variants = "method, function",
    tensor = "MiniTensor"
)]
pub fn gt_scalar();

/// `sum.IntList_out`'s meta: the reduced shape; the dtype is `dtype`, else an out
/// argument's, else `Long` for integer and bool inputs and the input's otherwise.
#[native_function(
    "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(functional = sum_dim_int_list)
)]
pub fn sum_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
) -> Result<(), Error> {
    let dtype = reduction_dtype(meta, dtype);
    set_output(meta, 0, red::sum_meta(self_, dim, keepdim, dtype)?)
}

/// `sum.IntList_out`'s CPU impl: sums in `out`'s dtype.
#[native_function(op = "sum.IntList_out", structured, dispatch = "CPU")]
pub fn sum_out_cpu(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    red::sum_impl(self_, dim, keepdim, dtype, out)
}

/// The sum over the dimensions `dim` (none or empty: all), keeping them as size 1 with
/// `keepdim`; integer and bool inputs sum to `Long` unless `dtype` says otherwise.
#[native_function(
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    structured_delegate = "sum.IntList_out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(self = "sum_backward(grad, self.sym_sizes(), dim, keepdim)")
)]
pub fn sum_dim_int_list();

/// `mean.out`'s meta: as `sum`'s, but the dtype must be floating.
#[native_function(
    "mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(functional = mean_dim)
)]
pub fn mean_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
) -> Result<(), Error> {
    let dtype = reduction_dtype(meta, dtype);
    set_output(meta, 0, red::mean_meta(self_, dim, keepdim, dtype)?)
}

/// `mean.out`'s CPU impl.
#[native_function(op = "mean.out", structured, dispatch = "CPU")]
pub fn mean_out_cpu(
    self_: &MiniTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    red::mean_impl(self_, dim, keepdim, dtype, out)
}

/// The mean over the dimensions `dim` (none or empty: all); the dtype must be floating.
#[native_function(
    "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    structured_delegate = "mean.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(self = "mean_backward(grad, self.sym_sizes(), dim, self.sym_numel(), keepdim)")
)]
pub fn mean_dim();

/// `max.dim_max`'s meta: values (the input's dtype) and indices (`Long`); hands the
/// wrapped `dim` to the impl (`precomputed`, as PyTorch).
#[native_function(
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    structured,
    precomputed = "dim -> int dim",
    derivatives(
        self = "value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(), keepdim)"
    )
)]
pub fn max_dim_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    dim: i64,
    keepdim: bool,
) -> Result<MaxDimMaxOutPrecompute, Error> {
    let [values, indices] = red::max_dim_meta(self_, dim, keepdim)?;
    set_output(meta, 0, values)?;
    set_output(meta, 1, indices)?;
    let dim = wrap_dim(dim, self_.dim())? as i64;
    Ok(MaxDimMaxOutPrecompute { dim })
}

/// `max.dim_max`'s CPU impl: `dim` is wrapped. PyTorch names the out arguments `max` (the
/// values) and `max_values` (the indices).
#[native_function(op = "max.dim_max", structured, dispatch = "CPU")]
pub fn max_dim_max_cpu(
    self_: &MiniTensor,
    dim: i64,
    keepdim: bool,
    max: &mut MiniTensor,
    max_values: &mut MiniTensor,
) -> Result<(), Error> {
    red::max_dim_impl(self_, dim, keepdim, max, max_values)
}

/// The largest value along `dim` and its index (the first on ties; NaN is the largest),
/// as the named tuple `(values, indices)`.
#[native_function(
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    structured_delegate = "max.dim_max",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(
        self = "value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(), keepdim)"
    )
)]
pub fn max_dim();

/// `argmax.out`'s meta: `int? dim` (none: the flattened tensor), `Long` indices.
#[native_function(
    "argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
    structured
)]
pub fn argmax_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    dim: Option<i64>,
    keepdim: bool,
) -> Result<(), Error> {
    set_output(meta, 0, red::argmax_meta(self_, dim, keepdim)?)
}

/// `argmax.out`'s CPU impl.
#[native_function(op = "argmax.out", structured, dispatch = "CPU")]
pub fn argmax_out_cpu(
    self_: &MiniTensor,
    dim: Option<i64>,
    keepdim: bool,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    red::argmax_impl(self_, dim, keepdim, out)
}

/// The index of the largest value (of the flattened tensor when `dim` is none).
#[native_function(
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    structured_delegate = "argmax.out",
    variants = "function, method",
    tensor = "MiniTensor"
)]
pub fn argmax();

/// `topk.values`' meta: values and `Long` indices with `k` elements along `dim`.
#[native_function(
    "topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    structured,
    derivatives(
        self = "value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(), true)",
        output_differentiability = [true, false],
    )
)]
pub fn topk_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    k: i64,
    dim: i64,
    largest: bool,
    sorted: bool,
) -> Result<(), Error> {
    let [values, indices] = red::topk_meta(self_, k, dim, largest, sorted)?;
    set_output(meta, 0, values)?;
    set_output(meta, 1, indices)
}

/// `topk.values`' CPU impl.
#[native_function(op = "topk.values", structured, dispatch = "CPU")]
pub fn topk_values_cpu(
    self_: &MiniTensor,
    k: i64,
    dim: i64,
    largest: bool,
    sorted: bool,
    values: &mut MiniTensor,
    indices: &mut MiniTensor,
) -> Result<(), Error> {
    red::topk_impl(self_, k, dim, largest, sorted, values, indices)
}

/// The `k` largest (or smallest) values along `dim` and their indices, as the named tuple
/// `(values, indices)`.
#[native_function(
    "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
    structured_delegate = "topk.values",
    variants = "method, function",
    tensor = "MiniTensor",
    derivatives(
        self = "value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(), true)",
        output_differentiability = [true, false],
    )
)]
pub fn topk();

/// `mm.out`'s meta: two matrices of one dtype whose inner sizes agree.
#[native_function(
    "mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    derivatives(
        self = "mm_mat1_backward(grad, mat2, self.sym_sizes(), self.sym_strides(), self.layout(), 1)",
        mat2 = "mm_mat2_backward(grad, self, mat2.sym_sizes(), mat2.sym_strides(), mat2.layout(), 1)",
    )
)]
pub fn mm_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    self_: &MiniTensor,
    mat2: &MiniTensor,
) -> Result<(), Error> {
    set_output(meta, 0, linalg::mm_meta(self_, mat2)?)
}

/// `mm.out`'s CPU impl.
#[native_function(op = "mm.out", structured, dispatch = "CPU")]
pub fn mm_out_cpu(
    self_: &MiniTensor,
    mat2: &MiniTensor,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    linalg::mm_impl(self_, mat2, out)
}

/// The matrix product of two matrices of one dtype.
#[native_function(
    "mm(Tensor self, Tensor mat2) -> Tensor",
    structured_delegate = "mm.out",
    variants = "function, method",
    tensor = "MiniTensor",
    derivatives(
        self = "mm_mat1_backward(grad, mat2, self.sym_sizes(), self.sym_strides(), self.layout(), 1)",
        mat2 = "mm_mat2_backward(grad, self, mat2.sym_sizes(), mat2.sym_strides(), mat2.layout(), 1)",
    )
)]
pub fn mm();

/// `cat.out`'s meta: the sizes agree except along `dim`, dtypes promote (into an out
/// argument of a dtype they cast to); hands the impl what PyTorch's meta precomputes: the
/// wrapped `dim`, the first tensor not skipped (`valid`), and whether the tensors and the
/// output are all contiguous, of the output's dtype, and of one shape and strides.
#[native_function(
    "cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    precomputed = "dim -> int dim, int valid, bool all_contiguous, bool all_same_dtype, bool all_same_sizes_and_stride, MemoryFormat memory_format",
    derivatives(
        tensors = "cat_tensors_backward(grad, to_args_sizes_symint(tensors), to_args_scalartypes(tensors), dim)"
    )
)]
pub fn cat_meta(
    meta: &mut StructuredMeta<'_, MiniTensor>,
    tensors: &[MiniTensor],
    dim: i64,
) -> Result<CatOutPrecompute, Error> {
    let mut o = join::cat_meta(tensors, dim)?;
    if let Some(out) = meta.maybe_get_output(0) {
        if !can_cast(o.dtype(), out.dtype()) {
            return Err(Error::from(format!(
                "torch.cat(): input types can't be cast to the desired output type {}",
                out.dtype()
            )));
        }
        o.options = o.options.dtype(out.dtype());
    }
    let out_dtype = o.dtype();
    set_output(meta, 0, o)?;
    let taken: Vec<&MiniTensor> = tensors.iter().filter(|t| !join::skipped(t)).collect();
    let valid = tensors
        .iter()
        .position(|t| !join::skipped(t))
        .unwrap_or(tensors.len());
    let dim = match taken.first() {
        Some(t) => wrap_dim(dim, t.dim())? as i64,
        None => dim,
    };
    let first = taken.first().map(|t| (t.shape(), t.stride()));
    Ok(CatOutPrecompute {
        dim,
        valid: valid as i64,
        all_contiguous: meta.output(0)?.is_contiguous() && taken.iter().all(|t| t.is_contiguous()),
        all_same_dtype: taken.iter().all(|t| t.dtype() == out_dtype),
        all_same_sizes_and_stride: taken.iter().all(|t| Some((t.shape(), t.stride())) == first),
        memory_format: MemoryFormat::Contiguous,
    })
}

/// `cat.out`'s CPU impl: nothing to copy when every tensor is skipped; along dimension 0,
/// contiguous tensors of the output's dtype are written in one pass
/// ([`join::cat_rows_impl`]), else each into its slice of `out` ([`join::cat_impl`]).
/// MiniTensor outputs are contiguous, so `memory_format` is always `Contiguous`.
#[native_function(op = "cat.out", structured, dispatch = "CPU")]
#[allow(clippy::too_many_arguments)]
pub fn cat_out_cpu(
    tensors: &[MiniTensor],
    dim: i64,
    valid: i64,
    all_contiguous: bool,
    all_same_dtype: bool,
    all_same_sizes_and_stride: bool,
    memory_format: MemoryFormat,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let _ = (all_same_sizes_and_stride, memory_format);
    if valid as usize >= tensors.len() {
        return Ok(());
    }
    if dim == 0 && all_contiguous && all_same_dtype {
        return join::cat_rows_impl(tensors, out);
    }
    join::cat_impl(tensors, dim, out)
}

/// The tensors joined along `dim` (sizes agree elsewhere; dtypes promote; 1-D empty
/// tensors are skipped, PyTorch's legacy rule). Function only.
#[native_function(
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    structured_delegate = "cat.out",
    tensor = "MiniTensor",
    derivatives(
        tensors = "cat_tensors_backward(grad, to_args_sizes_symint(tensors), to_args_scalartypes(tensors), dim)"
    )
)]
pub fn cat();
