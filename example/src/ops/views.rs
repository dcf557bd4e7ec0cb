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
    dispatch = "CPU, Meta, PrivateUse1",
    derivatives(self = "grad.reshape_symint(self.sym_sizes())")
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
    name = "select",
    derivatives(self = "select_backward_symint(grad, self.sym_sizes(), dim, index)")
)]
pub fn select_kernel(self_: &MiniTensor, dim: i64, index: i64) -> Result<MiniTensor, Error> {
    views::select(self_, dim, index)
}

/// The slices of `self` along `dim`, each without that dimension: views of `self`, of
/// which (as in PyTorch, for an operator returning several views) none may be modified in
/// place while grad mode is on.
#[native_function(
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    variants = "function, method",
    dispatch = "CPU, Meta, PrivateUse1",
    name = "unbind",
    derivatives(self = "unbind_backward(grads, dim)")
)]
pub fn unbind_kernel(self_: &MiniTensor, dim: i64) -> Result<Vec<MiniTensor>, Error> {
    let sizes = self_.shape();
    if sizes.is_empty() {
        return Err(Error::from(
            "Dimension specified as 0 but tensor has no dimensions",
        ));
    }
    let n = sizes[crate::shape::wrap_dim(dim, sizes.len())?];
    (0..n).map(|i| views::select(self_, dim, i)).collect()
}

/// A new tensor handle viewing all of `self`.
#[native_function(
    "alias(Tensor(a) self) -> Tensor(a)",
    variants = "method, function",
    dispatch = "CPU, Meta, PrivateUse1",
    derivatives(self = "grad")
)]
pub fn alias_kernel(self_: &MiniTensor) -> MiniTensor {
    views::alias(self_)
}

/// A view with any sizes, strides and storage offset that stay within `self`'s storage.
#[native_function(
    "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
    variants = "function, method",
    dispatch = "CPU, Meta, PrivateUse1",
    // PyTorch's formula is `as_strided_backward(grad, TensorGeometry(self), size, stride,
    // storage_offset)`, a helper opgen's functions do not have yet: the same computation,
    // written for MiniTensor in Rust.
    derivatives(self = "rust: views::as_strided_backward(&grad, &self_, &size, &stride, storage_offset)?")
)]
pub fn as_strided_kernel(
    self_: &MiniTensor,
    size: &[i64],
    stride: &[i64],
    storage_offset: Option<i64>,
) -> Result<MiniTensor, Error> {
    views::as_strided(self_, size, stride, storage_offset)
}

/// `self` broadcast to `size` (`-1` keeps a size) without copying: size-1 and new leading
/// dimensions get stride 0.
#[native_function(
    "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
    variants = "method",
    dispatch = "CPU, Meta, PrivateUse1",
    derivatives(self = "at::sum_to(grad, self.sym_sizes())")
)]
pub fn expand_kernel(
    self_: &MiniTensor,
    size: &[i64],
    implicit: bool,
) -> Result<MiniTensor, Error> {
    let _ = implicit; // how the expansion was asked for, not what it does
    views::expand(self_, size)
}

/// `self` with a dimension of size 1 inserted at `dim` (a view).
#[native_function(
    "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
    variants = "function, method",
    dispatch = "CPU, Meta, PrivateUse1",
    derivatives(self = "grad.squeeze(dim)")
)]
pub fn unsqueeze_kernel(self_: &MiniTensor, dim: i64) -> Result<MiniTensor, Error> {
    views::unsqueeze(self_, dim)
}

/// `self` without dimension `dim` if its size is 1 (a view).
#[native_function(
    "squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
    variants = "function, method",
    dispatch = "CPU, Meta, PrivateUse1",
    derivatives(self = "unsqueeze_to(grad, dim, self.sym_sizes())")
)]
pub fn squeeze_dim_kernel(self_: &MiniTensor, dim: i64) -> Result<MiniTensor, Error> {
    views::squeeze_dim(self_, dim)
}

/// Every `step`-th element of `start..end` along `dim` (a view; bounds clamped, negative
/// ones counted from the end).
#[native_function(
    "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)",
    variants = "function, method",
    dispatch = "CPU, Meta, PrivateUse1",
    derivatives(self = "slice_backward_wrapper(grad, self.sym_sizes(), dim, start, end, step)")
)]
pub fn slice_kernel(
    self_: &MiniTensor,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<MiniTensor, Error> {
    views::slice(self_, dim, start, end, step)
}

/// `length` elements from `start` along `dim` (a view): a composite of `slice`, as in
/// PyTorch (its gradient is `slice`'s).
#[native_function(
    "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
    variants = "function, method"
)]
pub fn narrow_composite(
    self_: &MiniTensor,
    dim: i64,
    start: i64,
    length: i64,
) -> Result<MiniTensor, Error> {
    let d = crate::shape::wrap_dim(dim, self_.dim())?;
    let size = self_.shape()[d];
    let start = if start < 0 { start + size } else { start };
    if start < 0 || start > size || length < 0 || start + length > size {
        return Err(Error::from(format!(
            "start ({start}) + length ({length}) exceeds dimension size ({size})."
        )));
    }
    let args = SliceArgs {
        dim,
        start: Some(start),
        end: Some(start + length),
        step: 1,
    };
    try_slice_with(self_, args)
}

/// The transpose of a matrix (`self` of at most 2 dimensions; a view): a composite of
/// `transpose`.
#[native_function("t(Tensor(a) self) -> Tensor(a)", variants = "function, method")]
pub fn t_composite(self_: &MiniTensor) -> Result<MiniTensor, Error> {
    match self_.dim() {
        0 | 1 => self_.try_transpose(0, 0),
        2 => self_.try_transpose(0, 1),
        n => Err(Error::from(format!(
            "t() expects a tensor with <= 2 dimensions, but self is {n}D"
        ))),
    }
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
        super::try_clone_with(self_, args)?.try_view(&sizes)
    }
}
