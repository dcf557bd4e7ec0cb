//! Tests of the autograd runtime on `TT`, a small strided `f64` tensor with hand-written
//! kernels and backward functions.

pub(crate) mod ops;
pub(crate) mod tensor;

mod checks;
mod engine;
mod function;
mod memory;
mod nograd;
mod views;
