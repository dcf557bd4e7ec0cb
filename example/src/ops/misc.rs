//! The other operators: reductions over everything (`sum`, `mean`), copies (`clone`,
//! `contiguous`, `copy_`), filling (`fill_`, `zero_`), `stack`, and `matmul` (a
//! CompositeImplicitAutograd kernel over `mm` and views).

use opgen::dispatch::MemoryFormat;
use opgen::prelude::*;

// The operators the derivative formulas call, by their canonical Rust names.
#[allow(unused_imports)]
use super::*;

use super::wiring::{functional, out};
use crate::MiniTensor;
use crate::kernels::{factory, join, reduce as red};
use crate::shape::{broadcast_shapes, contiguous_strides, is_non_overlapping_and_dense, numel};

/// The sum of all elements (integers and bools sum to `Long` unless `dtype` says otherwise).
#[native_function(
    "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta",
    derivatives(self = "grad.expand_symint(self.sym_sizes())")
)]
pub fn sum_kernel(self_: &MiniTensor, dtype: Option<ScalarType>) -> Result<MiniTensor, Error> {
    functional(red::sum_meta(self_, None, false, dtype)?, |o| {
        red::sum_impl(self_, None, false, dtype, o)
    })
}

/// The mean of all elements (the dtype must be floating).
#[native_function(
    "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta",
    derivatives(self = "grad.expand_symint(self.sym_sizes()) / self.sym_numel()")
)]
pub fn mean_kernel(self_: &MiniTensor, dtype: Option<ScalarType>) -> Result<MiniTensor, Error> {
    functional(red::mean_meta(self_, None, false, dtype)?, |o| {
        red::mean_impl(self_, None, false, dtype, o)
    })
}

/// A copy of `self` with its own storage. With `memory_format` none or `preserve_format`,
/// a dense tensor keeps its strides (a transposed tensor stays transposed), others become
/// contiguous; `contiguous_format` always gives a contiguous copy.
///
/// Its method `t.clone()` shadows `Clone::clone`, as PyTorch's `Tensor::clone` copies data:
/// use `t.share()` or `Clone::clone(&t)` for another handle.
#[native_function(
    "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
    variants = "function, method",
    dispatch = "CPU, Meta",
    derivatives(self = "grad")
)]
pub fn clone_kernel(
    self_: &MiniTensor,
    memory_format: Option<MemoryFormat>,
) -> Result<MiniTensor, Error> {
    let (sizes, strides) = (self_.shape(), self_.stride());
    let strides = match memory_format.unwrap_or(MemoryFormat::Preserve) {
        MemoryFormat::Preserve if is_non_overlapping_and_dense(&sizes, &strides) => strides,
        MemoryFormat::Preserve | MemoryFormat::Contiguous => contiguous_strides(&sizes),
        other => {
            return Err(Error::from(format!(
                "MiniTensor supports the memory formats contiguous_format and \
                 preserve_format; got {other}"
            )));
        }
    };
    let options = self_.options()?;
    let out = <MiniTensor as Tensor>::empty(&sizes, Some(&strides), &options)?;
    out.copy_values_from(self_)?;
    Ok(out)
}

/// `self` if it is contiguous, else a contiguous copy. PyTorch binds this operator by hand
/// (`manual_cpp_binding`): the method [`MiniTensor::contiguous`] returns `self` without a
/// dispatch when it is already contiguous, and calls the operator otherwise.
#[native_function(
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    variants = "method",
    manual_cpp_binding = true
)]
pub fn contiguous_composite(
    self_: &MiniTensor,
    memory_format: MemoryFormat,
) -> Result<MiniTensor, Error> {
    if memory_format != MemoryFormat::Contiguous {
        return Err(Error::from(format!(
            "MiniTensor supports only the contiguous_format memory format in contiguous(); got {memory_format}"
        )));
    }
    if self_.is_contiguous() {
        return Ok(self_.share());
    }
    super::try_clone_with(
        self_,
        super::CloneArgs {
            memory_format: Some(memory_format),
        },
    )
}

impl MiniTensor {
    /// `self` if it is contiguous (no dispatch, as PyTorch's `Tensor::contiguous`), else
    /// the `contiguous` operator: a contiguous copy.
    ///
    /// # Panics
    /// On error, with its message; [`MiniTensor::try_contiguous`] returns it instead.
    #[track_caller]
    pub fn contiguous(&self) -> MiniTensor {
        self.try_contiguous().unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`MiniTensor::contiguous`], returning errors.
    pub fn try_contiguous(&self) -> Result<MiniTensor, Error> {
        if self.is_contiguous() {
            Ok(self.share())
        } else {
            self.__try_dispatch_contiguous()
        }
    }
}

/// Fills `self` with `value` (converted to its dtype).
#[native_function(
    "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    variants = "function, method",
    dispatch = "CPU, Meta",
    name = "fill_",
    derivatives(self = "zeros_like(grad)")
)]
pub fn fill_kernel(self_: &mut MiniTensor, value: Scalar) -> Result<(), Error> {
    factory::fill(self_, value)
}

/// Fills `self` with zeros.
#[native_function(
    "zero_(Tensor(a!) self) -> Tensor(a!)",
    variants = "method, function",
    dispatch = "CPU, Meta",
    derivatives(self = "zeros_like(grad)")
)]
pub fn zero_kernel(self_: &mut MiniTensor) -> Result<(), Error> {
    factory::fill(self_, Scalar::Int(0))
}

/// Copies `src` (broadcast to `self`'s shape) into `self`, converting the dtype, across
/// devices. Registered, as in PyTorch, for
/// CompositeExplicitAutograd, so it serves every backend (`cpu`, `meta`, `privateuseone`):
/// a copy into a meta tensor only checks shapes, a copy out of one is an error.
#[native_function(
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    variants = "method",
    dispatch = "CompositeExplicitAutograd",
    // PyTorch writes `copy_`'s derivative by hand (`CopyBackwards`): the same gradients.
    derivatives(self = "zeros_like(grad)", src = "grad")
)]
pub fn copy_kernel(
    self_: &mut MiniTensor,
    src: &MiniTensor,
    non_blocking: bool,
) -> Result<(), Error> {
    let _ = non_blocking; // copies are synchronous
    <MiniTensor as Tensor>::copy_(self_, src)
}

/// The tensors (of one shape) joined along a new dimension `dim`. Function only.
#[native_function(
    "stack(Tensor[] tensors, int dim=0) -> Tensor",
    dispatch = "CPU, Meta",
    derivatives(tensors = "stack_tensors_backward(grad, dim, to_args_scalartypes(tensors))")
)]
pub fn stack_kernel(tensors: &[MiniTensor], dim: i64) -> Result<MiniTensor, Error> {
    functional(join::stack_meta(tensors, dim)?, |o| {
        join::stack_impl(tensors, dim, o)
    })
}

/// Into `out`: the tensors joined along a new dimension `dim`.
#[native_function(
    "stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)",
    dispatch = "CPU, Meta",
    derivatives(tensors = "stack_tensors_backward(grad, dim, to_args_scalartypes(tensors))")
)]
pub fn stack_out_kernel(
    tensors: &[MiniTensor],
    dim: i64,
    out_: &mut MiniTensor,
) -> Result<(), Error> {
    out(out_, join::stack_meta(tensors, dim)?, |o| {
        join::stack_impl(tensors, dim, o)
    })
}

/// The matrix product with NumPy's rules: 1-D operands are promoted to a row (first) or a
/// column (second) and the added dimension removed afterwards; dimensions before the last
/// two are batch dimensions and broadcast. A CompositeImplicitAutograd kernel: it calls
/// `reshape`, `select`, `mm` and `stack` through the dispatcher, so it also runs on `Meta`.
#[native_function(
    "matmul(Tensor self, Tensor other) -> Tensor",
    variants = "function, method"
)]
pub fn matmul_composite(self_: &MiniTensor, other: &MiniTensor) -> Result<MiniTensor, Error> {
    let (da, db) = (self_.dim(), other.dim());
    if da == 0 || db == 0 {
        return Err(Error::from(format!(
            "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        )));
    }
    let (sa, sb) = (self_.shape(), other.shape());
    // As matrices: [.., n, k] and [.., k, m].
    let a = if da == 1 {
        self_.try_reshape(&[1, sa[0]])?
    } else {
        self_.share()
    };
    let b = if db == 1 {
        other.try_reshape(&[sb[0], 1])?
    } else {
        other.share()
    };
    let (ma, mb) = (a.shape(), b.shape());
    let (n, m) = (ma[ma.len() - 2], mb[mb.len() - 1]);
    let batch = broadcast_shapes(&ma[..ma.len() - 2], &mb[..mb.len() - 2])?;
    let product = if batch.is_empty() {
        a.try_mm(&b)?
    } else {
        let pick = |t: &MiniTensor, index: &[i64]| -> Result<MiniTensor, Error> {
            // Index the batch dimensions of `t`, right-aligned with `batch`; size-1
            // dimensions broadcast.
            let tb = t.dim() - 2;
            let mut r = t.share();
            for &ix in index.iter().skip(batch.len() - tb) {
                let size = r.shape()[0];
                r = r.try_select(0, if size == 1 { 0 } else { ix })?;
            }
            Ok(r)
        };
        let mut products = Vec::new();
        let count = numel(&batch);
        for flat in 0..count {
            let mut index = vec![0; batch.len()];
            let mut rest = flat;
            for (ix, &size) in index.iter_mut().zip(&batch).rev() {
                *ix = rest % size;
                rest /= size;
            }
            products.push(pick(&a, &index)?.try_mm(&pick(&b, &index)?)?);
        }
        let mut shape = batch.clone();
        shape.extend([n, m]);
        if products.is_empty() {
            let options = a.options()?;
            return MiniTensor::new_empty(&final_shape(&batch, n, m, da, db), &options);
        }
        super::try_stack(&products)?.try_reshape(&shape)?
    };
    product.try_reshape(&final_shape(&batch, n, m, da, db))
}

/// The shape of `matmul`'s result: the batch, then `n` unless `self` was 1-D, then `m`
/// unless `other` was 1-D.
fn final_shape(batch: &[i64], n: i64, m: i64, da: usize, db: usize) -> Vec<i64> {
    let mut shape = batch.to_vec();
    if da > 1 {
        shape.push(n);
    }
    if db > 1 {
        shape.push(m);
    }
    shape
}
