//! View operators (their results alias `self`: `Tensor(a)`), registered for `CPU`, `Meta`
//! and `PrivateUse1` with one kernel each (views touch no data; an external backend needs
//! its own view kernels, as XLA has, since the CPU fallback cannot share storage and refuses
//! views), and `reshape`, a
//! CompositeImplicitAutograd kernel built from `view` and `clone` through the dispatcher.

use opgen::dispatch::MemoryFormat;
use opgen::prelude::*;

// The operators the derivative formulas call, by their canonical Rust names.
#[allow(unused_imports)]
use super::*;

use crate::MiniTensor;
use crate::kernels::views;
use crate::shape::{infer_size, view_strides};

/// The same elements with another shape (one size may be `-1`), without copying: an error
/// when the strides do not allow it (use `reshape`). Method only.
#[native_function(
    "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    variants = "method",
    dispatch = "CPU, Meta, PrivateUse1"
)]
pub fn view_kernel(self_: &MiniTensor, size: &[i64]) -> Result<MiniTensor, Error> {
    views::view(self_, size)
}

/// `self` with dimensions `dim0` and `dim1` swapped (a view).
#[native_function(
    "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    variants = "function, method",
    dispatch = "CPU, Meta, PrivateUse1",
    name = "transpose",
    derivatives(self = "grad.transpose(dim0, dim1)")
)]
pub fn transpose_kernel(self_: &MiniTensor, dim0: i64, dim1: i64) -> Result<MiniTensor, Error> {
    views::transpose(self_, dim0, dim1)
}

/// The slice at `index` along `dim`, without that dimension (a view).
#[native_function(
    "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
    variants = "function, method",
    dispatch = "CPU, Meta, PrivateUse1",
    name = "select"
)]
pub fn select_kernel(self_: &MiniTensor, dim: i64, index: i64) -> Result<MiniTensor, Error> {
    views::select(self_, dim, index)
}

/// A new tensor handle viewing all of `self`.
#[native_function(
    "alias(Tensor(a) self) -> Tensor(a)",
    variants = "method, function",
    dispatch = "CPU, Meta, PrivateUse1"
)]
pub fn alias_kernel(self_: &MiniTensor) -> MiniTensor {
    views::alias(self_)
}

/// A view with any sizes, strides and storage offset that stay within `self`'s storage.
#[native_function(
    "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
    variants = "function, method",
    dispatch = "CPU, Meta, PrivateUse1"
)]
pub fn as_strided_kernel(
    self_: &MiniTensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<MiniTensor, Error> {
    views::as_strided(self_, size, stride, storage_offset)
}

/// `self` with another shape: a view when the strides allow it, else a contiguous copy.
/// A composite (CompositeImplicitAutograd) kernel: it calls `view` and `clone` through the
/// dispatcher, so it works for every backend that has them.
#[native_function(
    "reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)",
    variants = "function, method"
)]
pub fn reshape_composite(self_: &MiniTensor, shape: &[i64]) -> Result<MiniTensor, Error> {
    let sizes = infer_size(shape, self_.numel())?;
    if view_strides(&self_.shape(), &self_.stride(), &sizes).is_some() {
        self_.try_view(&sizes)
    } else {
        let args = super::CloneArgs {
            memory_format: Some(MemoryFormat::Contiguous),
        };
        self_.try_clone_with(args)?.try_view(&sizes)
    }
}
