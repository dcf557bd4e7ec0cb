//! Two operators with the same kernel, one with a derivative formula (so an Autograd
//! kernel, generated) and one without: the difference of their calls is what the Autograd
//! kernel costs. The kernel makes a one-element tensor, as an operator makes its output.

use opgen::prelude::*;
use opgen_example::MiniTensor;

/// A new one-element tensor (no Autograd kernel: the autograd key falls through).
#[native_function("bench::fresh(Tensor self) -> Tensor", dispatch = "CPU")]
pub fn fresh_cpu(self_: &MiniTensor) -> Result<MiniTensor, Error> {
    let _ = self_;
    MiniTensor::from_vec(vec![1.0f64], &[])
}

/// The same, with `self: grad` (an Autograd kernel that records a node saving nothing).
#[native_function(
    "bench::fresh_ag(Tensor self) -> Tensor",
    dispatch = "CPU",
    derivatives(self = "grad")
)]
pub fn fresh_ag_cpu(self_: &MiniTensor) -> Result<MiniTensor, Error> {
    let _ = self_;
    MiniTensor::from_vec(vec![1.0f64], &[])
}
