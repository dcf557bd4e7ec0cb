//! Gradient checking: `torch.autograd.gradcheck` and `gradgradcheck`. The analytical
//! gradients (the backward functions, through [`crate::autograd::grad`]) are compared with
//! finite differences of the forward, element by element, in double precision.

use std::fmt;

use crate::autograd::{AutogradTensor, Differentiable, grad};
use crate::dispatch::Error;

/// What gradient checking needs from a tensor type besides autograd: its values as `f64`
/// and new tensors of the same shape with other values.
pub trait GradcheckTensor: Differentiable {
    /// The values, in row-major order.
    fn values_f64(&self) -> Result<Vec<f64>, Error>;

    /// A new tensor of this one's shape, dtype and device, holding `values` (row-major).
    fn with_values(&self, values: &[f64]) -> Result<Self, Error>;
}

/// The tolerances and step of [`gradcheck`]: PyTorch's defaults (`eps=1e-6`, `atol=1e-5`,
/// `rtol=1e-3`, `nondet_tol=0.0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GradcheckOptions {
    /// The finite-difference step.
    pub eps: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Relative tolerance (of the numerical value).
    pub rtol: f64,
    /// How far two backward passes with the same inputs may differ.
    pub nondet_tol: f64,
}

impl Default for GradcheckOptions {
    fn default() -> GradcheckOptions {
        GradcheckOptions {
            eps: 1e-6,
            atol: 1e-5,
            rtol: 1e-3,
            nondet_tol: 0.0,
        }
    }
}

/// Why a gradient check failed, in PyTorch's words; or an error of the function or of the
/// backward pass.
#[derive(Debug)]
pub enum GradcheckError {
    /// The analytical and numerical Jacobians differ.
    Mismatch {
        /// The output's position.
        output: usize,
        /// The input's position.
        input: usize,
        /// The numerical Jacobian, one row per input element.
        numerical: Vec<Vec<f64>>,
        /// The analytical Jacobian, the same way.
        analytical: Vec<Vec<f64>>,
    },
    /// Two backward passes gave different gradients.
    NotReentrant {
        /// The tolerance that was exceeded.
        nondet_tol: f64,
    },
    /// No input requires grad.
    NoInputRequiresGrad,
    /// The function or the backward pass failed.
    Call(Error),
}

fn matrix(m: &[Vec<f64>]) -> String {
    let rows: Vec<String> = m
        .iter()
        .map(|r| {
            let cells: Vec<String> = r.iter().map(|v| format!("{v:.4}")).collect();
            format!("[{}]", cells.join(", "))
        })
        .collect();
    format!(
        "tensor([{}], dtype=torch.float64)",
        rows.join(",\n        ")
    )
}

impl fmt::Display for GradcheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GradcheckError::Mismatch {
                output,
                input,
                numerical,
                analytical,
            } => write!(
                f,
                "Jacobian mismatch for output {output} with respect to input {input},\nnumerical:{}\nanalytical:{}\n",
                matrix(numerical),
                matrix(analytical)
            ),
            GradcheckError::NotReentrant { nondet_tol } => write!(
                f,
                "Backward is not reentrant, i.e., running backward with same input and grad_output \
                 multiple times gives different values, although analytical gradient matches \
                 numerical gradient.The tolerance for nondeterminism was {nondet_tol}."
            ),
            GradcheckError::NoInputRequiresGrad => f.write_str(
                "gradcheck expects at least one input tensor to require gradient, but none of \
                 the them have requires_grad=True.",
            ),
            GradcheckError::Call(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GradcheckError {}

impl From<Error> for GradcheckError {
    fn from(e: Error) -> GradcheckError {
        GradcheckError::Call(e)
    }
}

/// A function of tensors, as gradcheck calls it.
type Function<'f, T> = &'f dyn Fn(&[T]) -> Result<Vec<T>, Error>;

/// The numerical Jacobian of output `o` with respect to input `j`: central differences,
/// one row per element of the input. The shifted input requires grad as the original does
/// (a function that differentiates inside, as gradgradcheck's, needs it).
fn numerical<T: GradcheckTensor>(
    f: Function<'_, T>,
    inputs: &[T],
    j: usize,
    o: usize,
    eps: f64,
) -> Result<Vec<Vec<f64>>, Error> {
    let base = inputs[j].values_f64()?;
    let requires_grad = inputs[j].requires_grad();
    let mut rows = Vec::with_capacity(base.len());
    for k in 0..base.len() {
        let at = |delta: f64| -> Result<Vec<f64>, Error> {
            let mut values = base.clone();
            values[k] += delta;
            let mut shifted = inputs.to_vec();
            shifted[j] = inputs[j].with_values(&values)?;
            if requires_grad {
                shifted[j].set_requires_grad(true)?;
            }
            f(&shifted)?[o].values_f64()
        };
        let (plus, minus) = (at(eps)?, at(-eps)?);
        rows.push(
            plus.iter()
                .zip(&minus)
                .map(|(p, m)| (p - m) / (2.0 * eps))
                .collect(),
        );
    }
    Ok(rows)
}

/// The analytical Jacobians of output `o` with respect to every input that requires grad
/// (`None` for the others): one backward pass per output element, each gradient a column.
fn analytical<T: GradcheckTensor>(
    outputs: &[T],
    inputs: &[T],
    o: usize,
) -> Result<Vec<Option<Vec<Vec<f64>>>>, Error> {
    let differentiable: Vec<usize> = (0..inputs.len())
        .filter(|&j| inputs[j].requires_grad())
        .collect();
    let wrt: Vec<T> = differentiable.iter().map(|&j| inputs[j].clone()).collect();
    let out = &outputs[o];
    let n = out.values_f64()?.len();
    let mut jacobians: Vec<Option<Vec<Vec<f64>>>> = (0..inputs.len())
        .map(|j| {
            let rows = inputs[j].values_f64().map_or(0, |v| v.len());
            differentiable
                .contains(&j)
                .then(|| vec![vec![0.0; n]; rows])
        })
        .collect();
    if !out.requires_grad() {
        return Ok(jacobians);
    }
    for m in 0..n {
        let mut onehot = vec![0.0; n];
        onehot[m] = 1.0;
        let grad_output = out.with_values(&onehot)?;
        let grads = grad(
            std::slice::from_ref(out),
            &wrt,
            &[Some(grad_output)],
            Some(true),
            false,
            true,
        )?;
        for (&j, g) in differentiable.iter().zip(grads) {
            let (Some(g), Some(jac)) = (g, jacobians[j].as_mut()) else {
                continue;
            };
            for (row, v) in jac.iter_mut().zip(g.values_f64()?) {
                row[m] = v;
            }
        }
    }
    Ok(jacobians)
}

/// Checks the gradients of `f` at `inputs` against finite differences
/// (`torch.autograd.gradcheck`, slow mode, real values): for every output and every input
/// that requires grad, each element of the analytical Jacobian must be within
/// `atol + rtol * |numerical|` of the numerical one; a second backward pass must give the same
/// gradients (within `nondet_tol`). Inputs should hold `f64` values (`Double`), as PyTorch
/// advises.
///
/// ```
/// # use std::sync::Arc;
/// # use opgen_core::autograd::*;
/// # use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Error, Tensor};
/// use opgen_core::testing::{GradcheckOptions, GradcheckTensor, gradcheck};
/// # #[derive(Clone)]
/// # struct Num(Arc<(f64, AutogradMeta<Num>)>);
/// # impl Num { fn new(x: f64) -> Num { Num(Arc::new((x, AutogradMeta::new()))) } fn get(&self) -> f64 { self.0.0 } }
/// # impl Tensor for Num {
/// #     fn key_set(&self) -> DispatchKeySet { DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]) }
/// #     fn sizes(&self) -> Result<Vec<i64>, Error> { Ok(vec![]) }
/// #     fn autograd_meta(&self) -> Option<&AutogradMeta<Self>> { Some(&self.0.1) }
/// # }
/// # impl Differentiable for Num {
/// #     fn detach(&self) -> Result<Num, Error> { Ok(Num::new(self.get())) }
/// #     fn ones_like(&self) -> Result<Num, Error> { Ok(Num::new(1.0)) }
/// #     fn zeros_like(&self) -> Result<Num, Error> { Ok(Num::new(0.0)) }
/// #     fn accumulate(&self, o: &Num) -> Result<Num, Error> { Ok(Num::new(self.get() + o.get())) }
/// #     fn sum_to(&self, _: &[i64]) -> Result<Num, Error> { Ok(self.clone()) }
/// # }
/// impl GradcheckTensor for Num {
///     fn values_f64(&self) -> Result<Vec<f64>, Error> { Ok(vec![self.get()]) }
///     fn with_values(&self, v: &[f64]) -> Result<Num, Error> { Ok(Num::new(v[0])) }
/// }
///
/// /// `square` with a backward function that says `2 * scale * x`.
/// struct SquareBackward(SavedVariable<Num>, f64);
/// impl Backward<Num> for SquareBackward {
///     fn name(&self) -> &'static str { "SquareBackward0" }
///     fn apply(&mut self, ctx: &mut BackwardContext<'_, Num>) -> Result<(), Error> {
///         let (Some(g), x) = (ctx.grad(0).map(Num::get), self.0.get(ctx.node())?.get()) else { return Ok(()) };
///         ctx.set(0, Some(Num::new(self.1 * x * g)));
///         Ok(())
///     }
/// }
/// fn square(x: &Num, derivative_factor: f64) -> Result<Num, Error> {
///     static SQUARE: AutogradOp = AutogradOp::new("square");
///     let ks = DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]);
///     let save = |_: &[bool]| Ok(SquareBackward(SavedVariable::input(x), derivative_factor));
///     functional(ks, &SQUARE, &[x.into()], save, |_| Ok(Num::new(x.get() * x.get())), |_, _| Ok(()))
/// }
///
/// let x = Num::new(1.5);
/// x.set_requires_grad(true)?;
/// assert!(gradcheck(|t| Ok(vec![square(&t[0], 2.0)?]), &[x.clone()], GradcheckOptions::default()).is_ok());
/// let err = gradcheck(|t| Ok(vec![square(&t[0], 3.0)?]), &[x], GradcheckOptions::default()).unwrap_err();
/// assert!(err.to_string().starts_with("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:"));
/// # Ok::<(), Error>(())
/// ```
///
/// # Errors
/// The first mismatch, in PyTorch's words ("Jacobian mismatch for output 0 with respect to
/// input 1, numerical: ... analytical: ..."), or an error of `f` or of the backward pass.
pub fn gradcheck<T: GradcheckTensor>(
    f: impl Fn(&[T]) -> Result<Vec<T>, Error>,
    inputs: &[T],
    options: GradcheckOptions,
) -> Result<(), GradcheckError> {
    if !inputs.iter().any(|t| t.requires_grad()) {
        return Err(GradcheckError::NoInputRequiresGrad);
    }
    let outputs = f(inputs)?;
    for o in 0..outputs.len() {
        let jacobians = analytical(&outputs, inputs, o)?;
        let again = analytical(&outputs, inputs, o)?;
        for (j, jac) in jacobians.iter().enumerate() {
            let Some(jac) = jac else {
                continue;
            };
            let num = numerical(&f, inputs, j, o, options.eps)?;
            let close = (num.iter().flatten())
                .zip(jac.iter().flatten())
                .all(|(n, a)| (a - n).abs() <= options.atol + options.rtol * n.abs());
            if !close {
                return Err(GradcheckError::Mismatch {
                    output: o,
                    input: j,
                    numerical: num,
                    analytical: jac.clone(),
                });
            }
            let second = again[j].iter().flatten().flatten();
            if jac
                .iter()
                .flatten()
                .zip(second)
                .any(|(a, b)| (a - b).abs() > options.nondet_tol)
            {
                return Err(GradcheckError::NotReentrant {
                    nondet_tol: options.nondet_tol,
                });
            }
        }
    }
    Ok(())
}

/// A deterministic pseudo-random value in `[-1, 1)` for element `i` (the gradients
/// gradgradcheck differentiates with: PyTorch draws them at random).
fn pseudo_random(i: usize) -> f64 {
    let mut x = (i as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x2545_F491_4F6C_DD1D);
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// Checks second derivatives (`torch.autograd.gradgradcheck`): [`gradcheck`] of the
/// function that maps (inputs, output gradients) to the gradients of `f`'s outputs with
/// respect to the inputs, computed with `create_graph`. Needs backward functions that are
/// themselves differentiable (operators with Autograd kernels).
///
/// # Errors
/// As [`gradcheck`], for the gradient function.
pub fn gradgradcheck<T: GradcheckTensor>(
    f: impl Fn(&[T]) -> Result<Vec<T>, Error>,
    inputs: &[T],
    options: GradcheckOptions,
) -> Result<(), GradcheckError> {
    let outputs = f(inputs)?;
    let mut seed = 0;
    let mut grad_outputs = Vec::with_capacity(outputs.len());
    for out in &outputs {
        let n = out.values_f64()?.len();
        let values: Vec<f64> = (0..n).map(|i| pseudo_random(seed + i)).collect();
        seed += n;
        let g = out.with_values(&values)?;
        g.set_requires_grad(true)?;
        grad_outputs.push(g);
    }
    let n_inputs = inputs.len();
    let differentiable: Vec<usize> = (0..n_inputs)
        .filter(|&j| inputs[j].requires_grad())
        .collect();
    let grad_fn = |all: &[T]| -> Result<Vec<T>, Error> {
        let (xs, gs) = all.split_at(n_inputs);
        let outputs = f(xs)?;
        let wrt: Vec<T> = differentiable.iter().map(|&j| xs[j].clone()).collect();
        let gs: Vec<Option<T>> = gs.iter().cloned().map(Some).collect();
        let grads = grad(&outputs, &wrt, &gs, Some(true), true, true)?;
        Ok(grads.into_iter().flatten().collect())
    };
    let mut all = inputs.to_vec();
    all.extend(grad_outputs);
    gradcheck(grad_fn, &all, options)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::autograd::tests::ops::ops;
    use crate::autograd::tests::tensor::TT;
    use crate::autograd::{AutogradOp, Backward, BackwardContext, SavedVariable, functional};
    use crate::dispatch::{DispatchKey, DispatchKeySet};

    impl GradcheckTensor for TT {
        fn values_f64(&self) -> Result<Vec<f64>, Error> {
            Ok(self.values())
        }
        fn with_values(&self, values: &[f64]) -> Result<TT, Error> {
            Ok(TT::new(self.shape(), values.to_vec()))
        }
    }

    fn ok(f: impl Fn(&[TT]) -> Result<Vec<TT>, Error>, inputs: &[TT]) {
        if let Err(e) = gradcheck(f, inputs, GradcheckOptions::default()) {
            panic!("{e}");
        }
    }

    #[test]
    fn the_test_operators_pass() {
        let o = ops();
        let (x, w) = (TT::param(&[0.5, -1.5, 2.0]), TT::param(&[1.5, 0.25, -3.0]));
        ok(
            |t| Ok(vec![o.mul.try_call(&t[0], &t[1])?]),
            &[x.clone(), w.clone()],
        );
        ok(
            |t| Ok(vec![o.exp.try_call(&t[0])?, o.sum.try_call(&t[1])?]),
            &[x.clone(), w.clone()],
        );
        ok(
            |t| Ok(vec![o.relu.try_call(&t[0])?]),
            std::slice::from_ref(&x),
        );
        let b = TT::new(&[1], vec![0.5]);
        b.set_requires_grad(true).expect("requires_grad");
        ok(|t| Ok(vec![o.add.try_call(&t[0], &t[1])?]), &[x.clone(), b]);
        ok(
            |t| Ok(vec![o.narrow.try_call(&t[0], 1, 2)?]),
            std::slice::from_ref(&x),
        );
        ok(
            |t| Ok(vec![o.max.try_call(&t[0])?.0]),
            std::slice::from_ref(&x),
        );
        // An in-place operation on a clone, through the functional formula.
        ok(
            |t| {
                let mut y = o.clone.try_call(&t[0])?;
                o.mul_.try_call(&mut y, &t[1])?;
                Ok(vec![y])
            },
            &[x, w],
        );
    }

    #[test]
    fn second_derivatives_of_the_test_operators() {
        let o = ops();
        let (x, w) = (TT::param(&[0.5, -1.5]), TT::param(&[1.5, 0.25]));
        let f = |t: &[TT]| Ok(vec![o.exp.try_call(&o.mul.try_call(&t[0], &t[1])?)?]);
        assert!(gradgradcheck(f, &[x, w], GradcheckOptions::default()).is_ok());
    }

    /// `square` whose backward computes `2 * x * grad` directly, outside the graph.
    struct SquareBackward {
        x: SavedVariable<TT>,
        scale: f64,
    }
    impl Backward<TT> for SquareBackward {
        fn name(&self) -> &'static str {
            "SquareBackward0"
        }
        fn apply(&mut self, ctx: &mut BackwardContext<'_, TT>) -> Result<(), Error> {
            let (Some(g), x) = (ctx.grad(0).cloned(), self.x.get(ctx.node())?) else {
                return Ok(());
            };
            let s = self.scale;
            ctx.set(0, Some(TT::zip(&x, &g, |x, g| s * x * g)?));
            Ok(())
        }
    }

    static SQUARE: AutogradOp = AutogradOp::new("square");

    fn square(x: &TT, scale: impl Fn() -> f64) -> Result<TT, Error> {
        let ks = DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]);
        let save = |_: &[bool]| {
            Ok(SquareBackward {
                x: SavedVariable::input(x),
                scale: scale(),
            })
        };
        functional(
            ks,
            &SQUARE,
            &[x.into()],
            save,
            |_| Ok(x.map(|v| v * v)),
            |_, _| Ok(()),
        )
    }

    #[test]
    fn a_wrong_derivative_is_a_jacobian_mismatch() {
        let x = TT::param(&[1.0, 2.0]);
        assert!(
            gradcheck(
                |t| Ok(vec![square(&t[0], || 2.0)?]),
                std::slice::from_ref(&x),
                GradcheckOptions::default()
            )
            .is_ok()
        );
        let err = gradcheck(
            |t| Ok(vec![square(&t[0], || 3.0)?]),
            &[x],
            GradcheckOptions::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Jacobian mismatch for output 0 with respect to input 0,\n\
             numerical:tensor([[2.0000, 0.0000],\n        [0.0000, 4.0000]], dtype=torch.float64)\n\
             analytical:tensor([[3.0000, 0.0000],\n        [0.0000, 6.0000]], dtype=torch.float64)\n"
        );
    }

    #[test]
    fn a_backward_giving_different_values_twice_is_not_reentrant() {
        static CALLS: AtomicUsize = AtomicUsize::new(0);
        struct Drifting(SavedVariable<TT>);
        impl Backward<TT> for Drifting {
            fn name(&self) -> &'static str {
                "DriftingBackward0"
            }
            fn apply(&mut self, ctx: &mut BackwardContext<'_, TT>) -> Result<(), Error> {
                let drift = CALLS.fetch_add(1, Ordering::Relaxed) as f64 * 1e-9;
                let (Some(g), x) = (ctx.grad(0).cloned(), self.0.get(ctx.node())?) else {
                    return Ok(());
                };
                ctx.set(0, Some(TT::zip(&x, &g, |x, g| (2.0 * x + drift) * g)?));
                Ok(())
            }
        }
        let x = TT::param(&[1.0]);
        let ks = DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]);
        let f = |t: &[TT]| {
            let x = &t[0];
            let y = functional(
                ks,
                &SQUARE,
                &[x.into()],
                |_| Ok(Drifting(SavedVariable::input(x))),
                |_| Ok(x.map(|v| v * v)),
                |_, _| Ok(()),
            )?;
            Ok(vec![y])
        };
        let err = gradcheck(f, &[x], GradcheckOptions::default()).unwrap_err();
        assert!(matches!(err, GradcheckError::NotReentrant { .. }), "{err}");
        assert!(err.to_string().starts_with("Backward is not reentrant"));
    }

    #[test]
    fn backward_outside_the_graph_fails_gradgradcheck_and_inputs_must_require_grad() {
        let x = TT::param(&[1.0, 2.0]);
        let err = gradgradcheck(
            |t| Ok(vec![square(&t[0], || 2.0)?]),
            &[x],
            GradcheckOptions::default(),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Jacobian mismatch for output 0 with respect to input 0"),
            "{err}"
        );
        let plain = TT::vec(&[1.0]);
        let err = gradcheck(
            |t| Ok(vec![t[0].clone()]),
            &[plain],
            GradcheckOptions::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "gradcheck expects at least one input tensor to require gradient, but none of the them have requires_grad=True."
        );
    }
}
