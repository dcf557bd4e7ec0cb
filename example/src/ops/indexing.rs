//! Indexing along one dimension (`gather`, `scatter`, `scatter_add`), and the backward
//! operators that embed a gradient in zeros (`select_backward`, `slice_backward`):
//! the derivatives of `max.dim`, `topk`, `select` and `slice` call them. Registered for
//! `CPU` and `Meta`.

use opgen::prelude::*;

// The operators the derivative formulas call, by their canonical Rust names.
#[allow(unused_imports)]
use super::*;

use super::wiring::functional;
use crate::MiniTensor;
use crate::kernels::index::{self as ix, ScatterSource};
use crate::kernels::views;

/// `self`'s elements at `index` along `dim`: `out[i][j] = self[i][index[i][j]]` for `dim`
/// 1.
#[native_function(
    "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta",
    // PyTorch's `gather_backward(grad, self, dim, index, sparse_grad)` for dense
    // gradients, which opgen's helpers do not have yet: the same expression.
    derivatives(self = "zeros_like(self).scatter_add(dim, index, grad)", index = "non_differentiable")
)]
pub fn gather_kernel(
    self_: &MiniTensor,
    dim: i64,
    index: &MiniTensor,
    sparse_grad: bool,
) -> Result<MiniTensor, Error> {
    if sparse_grad {
        return Err(Error::from(
            "MiniTensor has no sparse gradients; pass sparse_grad=False",
        ));
    }
    functional(ix::gather_meta(self_, dim, index)?, |o| {
        ix::gather_impl(self_, dim, index, o)
    })
}

/// `self` with `src`'s elements written at `index` along `dim`.
#[native_function(
    "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta",
    derivatives(
        self = "grad.scatter(dim, index, 0)",
        index = "non_differentiable",
        src = "grad.gather(dim, index)",
    )
)]
pub fn scatter_src_kernel(
    self_: &MiniTensor,
    dim: i64,
    index: &MiniTensor,
    src: &MiniTensor,
) -> Result<MiniTensor, Error> {
    new_scattered(self_, dim, index, ScatterSource::Tensor(src), false)
}

/// `self` with `value` written at `index` along `dim`.
#[native_function(
    "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta",
    derivatives(self = "grad.scatter(dim, index, 0)", index = "non_differentiable")
)]
pub fn scatter_value_kernel(
    self_: &MiniTensor,
    dim: i64,
    index: &MiniTensor,
    value: Scalar,
) -> Result<MiniTensor, Error> {
    new_scattered(self_, dim, index, ScatterSource::Value(value), false)
}

/// `self` with `src`'s elements added at `index` along `dim` (repeated indices add up).
#[native_function(
    "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta",
    derivatives(
        self = "grad",
        index = "non_differentiable",
        src = "grad.gather(dim, index)"
    )
)]
pub fn scatter_add_kernel(
    self_: &MiniTensor,
    dim: i64,
    index: &MiniTensor,
    src: &MiniTensor,
) -> Result<MiniTensor, Error> {
    new_scattered(self_, dim, index, ScatterSource::Tensor(src), true)
}

/// Zeros of `input_sizes` with `grad_output` at `index` along `dim`: `select`'s derivative.
#[native_function(
    "select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt index) -> Tensor",
    dispatch = "CPU, Meta",
    derivatives(grad_output = "grad.select_symint(dim, index)")
)]
pub fn select_backward_kernel(
    grad_output: &MiniTensor,
    input_sizes: &[i64],
    dim: i64,
    index: i64,
) -> Result<MiniTensor, Error> {
    functional(ix::embed_meta(grad_output, input_sizes)?, |o| {
        ix::embed_impl(grad_output, o, |t| views::select(t, dim, index))
    })
}

/// Zeros of `input_sizes` with `grad_output` in the slice `start..end` by `step` along
/// `dim`: `slice`'s derivative.
#[native_function(
    "slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, SymInt end, SymInt step) -> Tensor",
    dispatch = "CPU, Meta",
    derivatives(grad_output = "grad.slice_symint(dim, start, end, step)")
)]
pub fn slice_backward_kernel(
    grad_output: &MiniTensor,
    input_sizes: &[i64],
    dim: i64,
    start: i64,
    end: i64,
    step: i64,
) -> Result<MiniTensor, Error> {
    functional(ix::embed_meta(grad_output, input_sizes)?, |o| {
        ix::embed_impl(grad_output, o, |t| {
            views::slice(t, dim, Some(start), Some(end), step)
        })
    })
}

/// The functional `scatter` family: a new tensor, `self` with `source` written (or, with
/// `accumulate`, added) at `index` along `dim`.
fn new_scattered(
    self_: &MiniTensor,
    dim: i64,
    index: &MiniTensor,
    source: ScatterSource<'_>,
    accumulate: bool,
) -> Result<MiniTensor, Error> {
    functional(ix::scatter_meta(self_, dim, index, source)?, |o| {
        ix::scatter_impl(self_, dim, index, source, accumulate, o)
    })
}
