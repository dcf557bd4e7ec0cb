//! A small model trained by gradient descent with the library's operators: a two-layer
//! perceptron (`relu(x @ w1 + b1) @ w2 + b2`) learning `y = x0 · x1` on a grid of points,
//! its gradients from the operators' generated Autograd kernels. The tour's section 8 runs
//! it; `example/python/tour.py` runs the same model from Python.
//!
//! ```
//! # fn main() -> Result<(), opgen::prelude::Error> {
//! let losses = opgen_example::learn::train(50, 0.2)?;
//! assert!(losses[49] < losses[0] / 2.0);
//! # Ok(()) }
//! ```

use opgen::autograd::{AutogradTensor, NoGradGuard, backward};
use opgen::prelude::*;

use crate::MiniTensor;
use crate::ops::{SubInplaceArgs, try_mean};

/// The inputs (a 5×5 grid of points of `[-1, 1]²`, `Float [25, 2]`) and the targets
/// (`x0 · x1`, `Float [25, 1]`).
pub fn dataset() -> Result<(MiniTensor, MiniTensor), Error> {
    let ticks = [-1.0f32, -0.5, 0.0, 0.5, 1.0];
    let mut x = Vec::with_capacity(50);
    let mut y = Vec::with_capacity(25);
    for a in ticks {
        for b in ticks {
            x.extend([a, b]);
            y.push(a * b);
        }
    }
    Ok((
        MiniTensor::from_vec(x, &[25, 2])?,
        MiniTensor::from_vec(y, &[25, 1])?,
    ))
}

/// The perceptron's parameters: leaves that require grad.
pub struct Mlp {
    /// `Float [2, hidden]`.
    pub w1: MiniTensor,
    /// `Float [hidden]`.
    pub b1: MiniTensor,
    /// `Float [hidden, 1]`.
    pub w2: MiniTensor,
    /// `Float [1]`.
    pub b2: MiniTensor,
}

/// `n` numbers in `[-scale, scale)` from a fixed linear congruential sequence (the same
/// start every run).
fn uniform(n: usize, scale: f32, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let unit = (state >> 40) as f32 / (1u64 << 24) as f32;
            (2.0 * unit - 1.0) * scale
        })
        .collect()
}

fn parameter(values: Vec<f32>, sizes: &[i64]) -> Result<MiniTensor, Error> {
    let t = MiniTensor::from_vec(values, sizes)?;
    t.set_requires_grad(true)?;
    Ok(t)
}

impl Mlp {
    /// A perceptron of `hidden` units, with fixed pseudo-random weights.
    pub fn new(hidden: usize) -> Result<Mlp, Error> {
        let h = hidden as i64;
        Ok(Mlp {
            w1: parameter(uniform(2 * hidden, 1.0, 1), &[2, h])?,
            b1: parameter(uniform(hidden, 0.5, 2), &[h])?,
            w2: parameter(uniform(hidden, 0.5, 3), &[h, 1])?,
            b2: parameter(vec![0.0], &[1])?,
        })
    }

    /// `relu(x @ w1 + b1) @ w2 + b2`.
    pub fn forward(&self, x: &MiniTensor) -> Result<MiniTensor, Error> {
        let hidden = x.try_mm(&self.w1)?.try_add(&self.b1)?.try_relu()?;
        hidden.try_mm(&self.w2)?.try_add(&self.b2)
    }

    /// The parameters.
    pub fn parameters(&self) -> [&MiniTensor; 4] {
        [&self.w1, &self.b1, &self.w2, &self.b2]
    }

    /// One step of gradient descent: each parameter moves by `-lr` times its gradient
    /// (in place, with grad mode off), and its gradient is cleared.
    pub fn step(&self, lr: f64) -> Result<(), Error> {
        let _no_grad = NoGradGuard::new();
        for p in self.parameters() {
            let Some(g) = p.grad() else { continue };
            let args = SubInplaceArgs {
                alpha: Scalar::Float(lr),
            };
            p.share().try_sub_with_(&g, args)?;
            p.set_grad(None)?;
        }
        Ok(())
    }
}

/// The mean squared error.
pub fn mse(prediction: &MiniTensor, target: &MiniTensor) -> Result<MiniTensor, Error> {
    let error = prediction.try_sub(target)?;
    try_mean(&error.try_mul(&error)?)
}

/// Trains a perceptron of 8 hidden units for `steps` steps of rate `lr` on [`dataset`];
/// the loss before each step.
pub fn train(steps: usize, lr: f64) -> Result<Vec<f64>, Error> {
    let (x, y) = dataset()?;
    let model = Mlp::new(8)?;
    let mut losses = Vec::with_capacity(steps);
    for _ in 0..steps {
        let loss = mse(&model.forward(&x)?, &y)?;
        losses.push(f64::from(loss.item::<f32>()?));
        backward(&[loss], &[], None, false)?;
        model.step(lr)?;
    }
    Ok(losses)
}
