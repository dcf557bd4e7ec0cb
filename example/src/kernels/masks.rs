//! Masks and masked gradients: `logical_and`, and `threshold_backward` (the derivative of
//! `relu` and `threshold`).

use opgen::prelude::*;

use super::{Num, OutputMeta, common_device, with_numeric};
use crate::promote::ResultType;
use crate::shape::broadcast_shapes;
use crate::{Element, MiniTensor};

/// `logical_and`'s meta: the broadcast shape, `Bool`.
pub fn logical_and_meta(self_: &MiniTensor, other: &MiniTensor) -> Result<OutputMeta, Error> {
    let sizes = broadcast_shapes(&self_.shape(), &other.shape())?;
    let device = common_device(&[self_, other])?;
    Ok(OutputMeta::new(sizes, ScalarType::Bool, device))
}

/// `logical_and`'s impl: both elements nonzero.
pub fn logical_and_impl(
    self_: &MiniTensor,
    other: &MiniTensor,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let shape = out.shape();
    let a: Vec<bool> = self_.to_dtype(ScalarType::Bool)?.broadcast_values(&shape)?;
    let b: Vec<bool> = other.to_dtype(ScalarType::Bool)?.broadcast_values(&shape)?;
    out.scatter(
        &a.iter()
            .zip(&b)
            .map(|(&x, &y)| x && y)
            .collect::<Vec<bool>>(),
    )
}

/// `threshold_backward`'s meta: the broadcast shape, the promoted dtype.
pub fn threshold_backward_meta(
    grad_output: &MiniTensor,
    self_: &MiniTensor,
) -> Result<OutputMeta, Error> {
    let dtype = ResultType::new()
        .tensor(grad_output)
        .tensor(self_)
        .finish()?;
    let sizes = broadcast_shapes(&grad_output.shape(), &self_.shape())?;
    let device = common_device(&[grad_output, self_])?;
    Ok(OutputMeta::new(sizes, dtype, device))
}

/// `threshold_backward`'s impl: `grad_output` where `self > threshold`, else 0.
pub fn threshold_backward_impl(
    grad_output: &MiniTensor,
    self_: &MiniTensor,
    threshold: Scalar,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let shape = out.shape();
    with_numeric!(out.dtype(), |E| {
        let g: Vec<E> = grad_output.broadcast_values(&shape)?;
        let x: Vec<E> = self_.broadcast_values(&shape)?;
        let t = E::from_scalar(threshold);
        out.scatter(
            &g.iter()
                .zip(&x)
                .map(|(&g, &x)| if x <= t { E::ZERO } else { g })
                .collect::<Vec<E>>(),
        )
    }, bool => Err(Error::from("\"threshold_backward_cpu\" not implemented for 'Bool'")))
}
