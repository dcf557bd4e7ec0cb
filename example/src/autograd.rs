//! `MiniTensor` takes part in autograd: every tensor holds its [`AutogradMeta`](opgen::autograd::AutogradMeta) (returned by
//! the [`Tensor::autograd_meta`] hook) and carries its device's autograd key (`AutogradCPU`,
//! `AutogradMeta`, `AutogradPrivateUse1`), as every PyTorch tensor does; this module gives
//! the engine the tensor math it needs ([`Differentiable`]) and gradient checking its values
//! ([`GradcheckTensor`]).
//!
//! Whether a tensor requires grad, its `grad`, `grad_fn`, `is_leaf`, ... are the methods of
//! [`opgen::autograd::AutogradTensor`]; `backward` and `grad` are
//! [`opgen::autograd::backward`] and [`opgen::autograd::grad`]. Gradients flow through an
//! operator once it has an Autograd kernel; the example's operators get theirs from
//! derivative formulas. Until then, an operator without one is not recorded: its result
//! does not require grad.
//!
//! ```
//! use opgen::autograd::{AutogradTensor, Differentiable, NoGradGuard, backward};
//! use opgen::prelude::*;
//! use opgen_example::MiniTensor;
//! # fn main() -> Result<(), Error> {
//! let w = MiniTensor::from_vec(vec![0.5f32, -1.0, 2.0], &[3])?;
//! assert!(!w.requires_grad() && w.is_leaf());
//! w.set_requires_grad(true)?;
//!
//! // A leaf that is its own output: the gradient of a scalar is one, accumulated.
//! let s = MiniTensor::from_vec(vec![3.0f64], &[])?;
//! s.set_requires_grad(true)?;
//! backward(&[s.share()], &[], Some(true), false)?;
//! backward(&[s.share()], &[], None, false)?;
//! assert_eq!(s.grad().map(|g| g.to_vec::<f64>()).transpose()?, Some(vec![2.0]));
//!
//! // `detach` shares the data and the version counter, not the autograd state.
//! let d = w.detach()?;
//! assert!(!d.requires_grad() && d.shares_storage(&w));
//! {
//!     let _no_grad = NoGradGuard::new();
//!     assert!(!opgen::autograd::is_grad_enabled());
//! }
//! # Ok(()) }
//! ```

use opgen::autograd::Differentiable;
use opgen::prelude::*;
use opgen::testing::GradcheckTensor;

use crate::MiniTensor;
use crate::kernels::factory::fill;
use crate::ops::{SumDimIntListArgs, try_add, try_sum_dim_int_list_with};

impl Differentiable for MiniTensor {
    /// A new tensor over the same storage, geometry and version counter, with fresh
    /// autograd state: a leaf that does not require grad (PyTorch's `detach()`, which is
    /// not a view in the graph, so it has no `view_base`).
    fn detach(&self) -> Result<MiniTensor, Error> {
        Ok(self.detached())
    }

    /// Ones of this tensor's shape, dtype and device (no data on `meta`).
    fn ones_like(&self) -> Result<MiniTensor, Error> {
        let ones = MiniTensor::new_empty(&self.shape(), &self.options()?)?;
        fill(&ones, Scalar::Int(1))?;
        Ok(ones)
    }

    /// Zeros of this tensor's shape, dtype and device (no data on `meta`).
    fn zeros_like(&self) -> Result<MiniTensor, Error> {
        MiniTensor::new_empty(&self.shape(), &self.options()?)
    }

    /// `self + other` through the `add` operator, so that the sum is recorded when the
    /// backward pass builds a graph (`create_graph`).
    fn accumulate(&self, other: &MiniTensor) -> Result<MiniTensor, Error> {
        try_add(self, other)
    }

    /// PyTorch's `at::sum_to`: sums the leading dimensions `sizes` does not have and the
    /// dimensions where `sizes` has 1, then drops the leading ones (a view).
    fn sum_to(&self, sizes: &[i64]) -> Result<MiniTensor, Error> {
        let shape = self.shape();
        if shape == sizes {
            return Ok(self.share());
        }
        let Some(leading) = shape.len().checked_sub(sizes.len()) else {
            return Err(Error::from(format!(
                "sum_to: a tensor of shape {shape:?} cannot be summed to {sizes:?}, which has more dimensions"
            )));
        };
        let mut dims: Vec<i64> = (0..leading as i64).collect();
        for (i, (&have, &want)) in shape[leading..].iter().zip(sizes).enumerate() {
            if want == 1 && have != 1 {
                dims.push((leading + i) as i64);
            }
        }
        let keep = SumDimIntListArgs {
            keepdim: true,
            dtype: None,
        };
        let summed = match dims.is_empty() {
            true => self.share(),
            false => try_sum_dim_int_list_with(self, Some(&dims), keep)?,
        };
        match leading {
            0 => Ok(summed),
            _ => summed.try_view(sizes),
        }
    }
}

impl GradcheckTensor for MiniTensor {
    /// The values as `f64`; an error on `meta`.
    fn values_f64(&self) -> Result<Vec<f64>, Error> {
        self.to_vec::<f64>()
    }

    /// A new leaf of this tensor's shape, dtype and device holding `values` (converted to
    /// the dtype: use `Double` tensors for gradient checks, as PyTorch advises).
    fn with_values(&self, values: &[f64]) -> Result<MiniTensor, Error> {
        let t = MiniTensor::new_empty(&self.shape(), &self.options()?)?;
        t.copy_values_from(&MiniTensor::from_vec(values.to_vec(), &self.shape())?)?;
        Ok(t)
    }
}
