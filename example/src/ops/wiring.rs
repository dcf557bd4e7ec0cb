//! How the operators PyTorch does not make structured turn a meta function and an impl
//! function of [`crate::kernels`] into a functional, in-place or out kernel, by hand:
//! allocate, check or resize the output from the meta's [`OutputMeta`], run the impl unless
//! the tensors are on `meta`. Version counters are not theirs to bump: as in PyTorch, the
//! `ADInplaceOrView` kernels ([`crate::install`]) bump those of the written arguments.
//!
//! The structured operators ([`super::structured`]) have no such glue: opgen's structured
//! kernels derive their functional, in-place and out kernels from one meta and one impl.

use opgen::prelude::*;

use crate::MiniTensor;
use crate::kernels::OutputMeta;
use crate::promote::{can_cast, cast_error};

/// A functional operator: a new output from `meta`, filled by `compute` (skipped on meta).
pub fn functional(
    meta: OutputMeta,
    compute: impl FnOnce(&mut MiniTensor) -> Result<(), Error>,
) -> Result<MiniTensor, Error> {
    let mut out = meta.allocate()?;
    if !out.is_meta() {
        compute(&mut out)?;
    }
    Ok(out)
}

/// An in-place operator: `self` must already have the result's shape and device, and a
/// dtype the result casts to (never resized); `compute` writes into it (skipped on meta).
pub fn inplace(
    self_: &mut MiniTensor,
    meta: OutputMeta,
    compute: impl FnOnce(&mut MiniTensor) -> Result<(), Error>,
) -> Result<(), Error> {
    if self_.shape() != meta.sizes {
        return Err(Error::from(format!(
            "output with shape {:?} doesn't match the broadcast shape {:?}",
            self_.shape(),
            meta.sizes
        )));
    }
    check_dtype_and_device(self_, &meta)?;
    if !self_.is_meta() {
        compute(self_)?;
    }
    Ok(())
}

fn check_dtype_and_device(out: &MiniTensor, meta: &OutputMeta) -> Result<(), Error> {
    if out.device() != meta.device() {
        return Err(Error::from(format!(
            "Expected out tensor to have device {}, but got {} instead",
            meta.device(),
            out.device()
        )));
    }
    if !can_cast(meta.dtype(), out.dtype()) {
        return Err(cast_error(meta.dtype(), out.dtype()));
    }
    Ok(())
}

/// Checks an out argument against its meta and resizes it when its shape differs
/// (PyTorch's `resize_output`, which keeps the strides of an out argument of the right
/// shape).
fn prepare_out(out: &mut MiniTensor, meta: &OutputMeta) -> Result<(), Error> {
    check_dtype_and_device(out, meta)?;
    if out.shape() != meta.sizes {
        out.resize_(&meta.sizes)?;
    }
    Ok(())
}

/// An out operator: checks and resizes `out`, `compute` writes into it (skipped on meta).
pub fn out(
    out: &mut MiniTensor,
    meta: OutputMeta,
    compute: impl FnOnce(&mut MiniTensor) -> Result<(), Error>,
) -> Result<(), Error> {
    prepare_out(out, &meta)?;
    if !out.is_meta() {
        compute(out)?;
    }
    Ok(())
}
