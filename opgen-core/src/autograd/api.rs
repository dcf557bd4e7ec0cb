//! `backward` and `grad`: the entry points of the engine (PyTorch's
//! `torch.autograd.backward` and `torch.autograd.grad`).

use super::engine;
use super::error::AutogradErrorKind;
use super::meta::{Differentiable, gradient_edge};
use super::node::Edge;
use crate::dispatch::Error;

/// Computes the gradients of `outputs` with respect to the leaves of their graph and adds
/// them to the leaves' [`grad`](super::AutogradTensor::grad) (`torch.autograd.backward`).
///
/// `grad_outputs` holds one gradient per output (`None`, or an empty slice for all: ones,
/// only for outputs of one element). `retain_graph` keeps the saved values for another pass
/// (by default, `create_graph`); `create_graph` records the backward pass itself, for
/// higher-order derivatives.
///
/// # Errors
/// PyTorch's: an output that does not require grad ("element 0 of tensors does not require
/// grad and does not have a grad_fn"), an implicit gradient for an output of several
/// elements, a gradient of the wrong shape, a graph freed by an earlier pass, a saved tensor
/// modified in place, and any error of a backward function.
pub fn backward<T: Differentiable>(
    outputs: &[T],
    grad_outputs: &[Option<T>],
    retain_graph: Option<bool>,
    create_graph: bool,
) -> Result<(), Error> {
    let (roots, grads) = roots(outputs, grad_outputs)?;
    let keep_graph = retain_graph.unwrap_or(create_graph);
    engine::run(roots, grads, keep_graph, create_graph, None).map(drop)
}

/// The gradients of `outputs` with respect to `inputs`, returned rather than accumulated
/// (`torch.autograd.grad`): only the part of the graph between them runs, and no leaf's
/// `grad` changes. An input the outputs do not depend on is an error, or `None` with
/// `allow_unused`.
///
/// # Errors
/// Those of [`backward`], and PyTorch's "One of the differentiated Tensors does not require
/// grad" and "... appears to not have been used in the graph".
pub fn grad<T: Differentiable>(
    outputs: &[T],
    inputs: &[T],
    grad_outputs: &[Option<T>],
    retain_graph: Option<bool>,
    create_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<T>>, Error> {
    let (roots, grads) = roots(outputs, grad_outputs)?;
    let mut captures = Vec::with_capacity(inputs.len());
    for input in inputs {
        if !super::meta::requires_grad(input) {
            return Err(AutogradErrorKind::InputDoesNotRequireGrad.into());
        }
        captures.push(gradient_edge(input)?);
    }
    let keep_graph = retain_graph.unwrap_or(create_graph);
    let result = engine::run(roots, grads, keep_graph, create_graph, Some(&captures))?;
    if !allow_unused && result.iter().any(Option::is_none) {
        return Err(AutogradErrorKind::UnusedInput.into());
    }
    Ok(result)
}

/// The root edges and their gradients (PyTorch's `_make_grads` and the checks of
/// `run_backward`).
type Roots<T> = (Vec<Edge<T>>, Vec<Option<T>>);

fn roots<T: Differentiable>(outputs: &[T], grad_outputs: &[Option<T>]) -> Result<Roots<T>, Error> {
    if !grad_outputs.is_empty() && grad_outputs.len() != outputs.len() {
        return Err(AutogradErrorKind::GradCount {
            outputs: outputs.len(),
            grads: grad_outputs.len(),
        }
        .into());
    }
    let mut edges = Vec::with_capacity(outputs.len());
    let mut grads = Vec::with_capacity(outputs.len());
    for (index, output) in outputs.iter().enumerate() {
        let Some(edge) = gradient_edge(output)? else {
            return Err(AutogradErrorKind::NoGradFn { index }.into());
        };
        let grad = match grad_outputs.get(index).and_then(Option::as_ref) {
            Some(g) => {
                check_same_shape(index, g, output)?;
                g.clone()
            }
            None => {
                let numel: i64 = output.sizes()?.iter().product();
                if numel != 1 {
                    return Err(AutogradErrorKind::ImplicitGradNotScalar.into());
                }
                output.ones_like()?
            }
        };
        edges.push(edge);
        grads.push(Some(grad));
    }
    Ok((edges, grads))
}

fn check_same_shape<T: Differentiable>(index: usize, grad: &T, output: &T) -> Result<(), Error> {
    let (Ok(g), Ok(o)) = (grad.sizes(), output.sizes()) else {
        return Ok(());
    };
    if g != o {
        return Err(AutogradErrorKind::ShapeMismatch {
            index,
            grad: g,
            output: o,
        }
        .into());
    }
    Ok(())
}
