//! Custom functions: an operation whose forward and backward the caller writes, recorded in
//! the graph as one node whose backward is a closure (PyTorch's C++
//! `torch::autograd::Function` and Python's `torch.autograd.Function`).

use std::collections::HashSet;
use std::sync::{Arc, LazyLock, Mutex, Weak};

use super::error::AutogradErrorKind;
use super::grad_mode::{GradModeGuard, is_grad_enabled};
use super::meta::{
    Differentiable, gradient_edge, is_differentiable_type, requires_grad, set_history,
};
use super::node::{
    Backward, BackwardContext, InputMeta, InputMetas, NextEdges, Node, NodeParts, next_sequence_nr,
};
use super::saved::SavedVariable;
use crate::dispatch::{Error, Tensor};

/// What a custom function's forward and backward share (PyTorch's `AutogradContext`, Python's
/// `ctx`): the tensors saved for backward, which inputs need a gradient, the outputs marked
/// non-differentiable, and whether missing output gradients are given to backward as zeros.
pub struct FunctionCtx<T: Tensor> {
    needs_input_grad: Vec<bool>,
    to_save: Vec<Option<T>>,
    saved: Vec<SavedVariable<T>>,
    non_differentiable: Vec<usize>,
    materialize_grads: bool,
    node: Option<Weak<Node<T>>>,
}

impl<T: Tensor> FunctionCtx<T> {
    fn new(needs_input_grad: Vec<bool>) -> FunctionCtx<T> {
        FunctionCtx {
            needs_input_grad,
            to_save: Vec::new(),
            saved: Vec::new(),
            non_differentiable: Vec::new(),
            materialize_grads: true,
            node: None,
        }
    }

    /// Saves tensors (inputs or outputs; `None`: an undefined tensor) for backward, where
    /// [`FunctionCtx::saved_tensors`] gives them back (`ctx.save_for_backward(...)`; call it
    /// once, in forward: a later call replaces the list).
    pub fn save_for_backward(&mut self, tensors: Vec<Option<T>>) {
        self.to_save = tensors;
    }

    /// The saved tensors, in backward: the saved outputs with the function's node as their
    /// `grad_fn` (`ctx.saved_tensors`).
    ///
    /// # Errors
    /// A saved tensor modified in place since, or freed by an earlier backward without
    /// `retain_graph` (PyTorch's errors); called outside backward.
    pub fn saved_tensors(&self) -> Result<Vec<Option<T>>, Error> {
        let node = self.node.as_ref().and_then(Weak::upgrade).ok_or_else(|| {
            Error::from("saved tensors of a custom function are read in its backward")
        })?;
        self.saved.iter().map(|s| s.unpack(&node)).collect()
    }

    /// Whether forward argument `i` is a tensor that requires grad
    /// (`ctx.needs_input_grad[i]`; `false` for arguments that are not tensors).
    pub fn needs_input_grad(&self, i: usize) -> bool {
        self.needs_input_grad.get(i).copied().unwrap_or(false)
    }

    /// [`FunctionCtx::needs_input_grad`] for every forward argument.
    pub fn needs_input_grads(&self) -> &[bool] {
        &self.needs_input_grad
    }

    /// Marks outputs as not differentiable (`ctx.mark_non_differentiable(...)`): they do
    /// not require grad, and backward gets `None` (or zeros) as their gradients.
    pub fn mark_non_differentiable(&mut self, outputs: &[T]) {
        self.non_differentiable
            .extend(outputs.iter().filter_map(identity));
    }

    /// Whether backward gets zeros for the outputs that received no gradient (the default,
    /// `true`) or `None` (`ctx.set_materialize_grads(False)`).
    pub fn set_materialize_grads(&mut self, materialize: bool) {
        self.materialize_grads = materialize;
    }
}

/// The identity of a tensor (its autograd metadata is shared by all its handles).
fn identity<T: Tensor>(t: &T) -> Option<usize> {
    (t.materialize_autograd_meta()).map(|m| std::ptr::from_ref(m) as *const () as usize)
}

/// The backward of a custom function, with the context its forward filled.
type BackwardFn<T> =
    Box<dyn FnMut(&mut FunctionCtx<T>, Vec<Option<T>>) -> Result<Vec<Option<T>>, Error> + Send>;

/// The node of a custom function (PyTorch's `CppNode` / `PyNode`): runs the backward closure
/// and checks what it returns.
struct FunctionNode<T: Tensor> {
    name: &'static str,
    ctx: FunctionCtx<T>,
    backward: BackwardFn<T>,
    /// Per forward argument: whether it is a tensor (and has an edge).
    is_tensor_input: Vec<bool>,
    /// Per output (non-differentiable ones too, as PyTorch): a detached handle to make the
    /// zeros of a missing gradient from, when gradients are materialized.
    zeros_of: Vec<Option<T>>,
    zeros_like: fn(&T) -> Result<T, Error>,
}

impl<T: Tensor> Backward<T> for FunctionNode<T> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn apply(&mut self, ctx: &mut BackwardContext<'_, T>) -> Result<(), Error> {
        self.ctx.node = Some(Arc::downgrade(ctx.node()));
        let mut grads = ctx.grads().to_vec();
        if self.ctx.materialize_grads {
            for (g, proto) in grads.iter_mut().zip(&self.zeros_of) {
                if let (None, Some(proto)) = (&g, proto) {
                    *g = Some((self.zeros_like)(proto)?);
                }
            }
        }
        let mut results = (self.backward)(&mut self.ctx, grads)?;
        let expected = self.is_tensor_input.len();
        // Too many results are accepted when the extra ones are all `None`.
        if results.len() > expected && results[expected..].iter().all(Option::is_none) {
            results.truncate(expected);
        }
        if results.len() != expected {
            return Err(AutogradErrorKind::FunctionGradientCount {
                node: self.name.to_string(),
                expected,
                got: results.len(),
            }
            .into());
        }
        let mut edge = 0;
        for (i, (grad, &is_tensor)) in results.into_iter().zip(&self.is_tensor_input).enumerate() {
            if !is_tensor {
                if grad.is_some() {
                    return Err(AutogradErrorKind::FunctionGradientForNonTensor {
                        node: self.name.to_string(),
                        position: i + 1,
                    }
                    .into());
                }
                continue;
            }
            ctx.set_edge(edge, grad);
            edge += 1;
        }
        Ok(())
    }

    fn release_saved(&mut self) {
        self.ctx.saved.iter_mut().for_each(SavedVariable::reset);
    }
}

/// The names of custom functions' nodes, each kept once for the life of the process (a node
/// name is `&'static str`; there is one per function type, not per call).
static NAMES: LazyLock<Mutex<HashSet<&'static str>>> = LazyLock::new(Default::default);

fn intern(name: &str) -> &'static str {
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = names.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    leaked
}

/// Runs a custom function and records it (PyTorch's `Function<T>::apply`): `forward` runs
/// with grad mode off and returns the outputs; when grad mode is on and a tensor input
/// requires grad, the outputs get a node named `name` whose backward is `backward`, which
/// gets one gradient per output (zeros for those that received none, unless
/// [`FunctionCtx::set_materialize_grads`] turned that off) and returns one per forward
/// argument (`None` for arguments that are not tensors or need no gradient).
///
/// `inputs` are the forward's arguments: `Some(tensor)` for a tensor, `None` for anything
/// else. An output that is one of the inputs is returned as a new handle to the same data
/// (PyTorch returns a view of it). Outputs marked non-differentiable and outputs whose dtype
/// is not floating point or complex do not require grad.
///
/// ```
/// use std::sync::Arc;
/// use opgen_core::autograd::*;
/// use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Error, Tensor};
///
/// #[derive(Clone)]
/// struct Num(Arc<(f64, AutogradMeta<Num>)>);
/// impl Num {
///     fn new(x: f64) -> Num { Num(Arc::new((x, AutogradMeta::new()))) }
///     fn get(&self) -> f64 { self.0.0 }
/// }
/// impl Tensor for Num {
///     fn key_set(&self) -> DispatchKeySet { DispatchKeySet::from_keys(&[DispatchKey::CPU]) }
///     fn sizes(&self) -> Result<Vec<i64>, Error> { Ok(vec![]) }
///     fn autograd_meta(&self) -> Option<&AutogradMeta<Self>> { Some(&self.0.1) }
/// }
/// impl Differentiable for Num {
///     fn detach(&self) -> Result<Num, Error> { Ok(Num::new(self.get())) }
///     fn ones_like(&self) -> Result<Num, Error> { Ok(Num::new(1.0)) }
///     fn zeros_like(&self) -> Result<Num, Error> { Ok(Num::new(0.0)) }
///     fn accumulate(&self, o: &Num) -> Result<Num, Error> { Ok(Num::new(self.get() + o.get())) }
///     fn sum_to(&self, _: &[i64]) -> Result<Num, Error> { Ok(self.clone()) }
/// }
///
/// /// `x * k` for a number `k`: the gradient of `x` is `grad * k`, `k` gets none.
/// fn mul_constant(x: &Num, k: f64) -> Result<Num, Error> {
///     let outputs = apply_function(
///         "MulConstantBackward",
///         &[Some(x), None],
///         |_ctx| Ok(vec![Num::new(x.get() * k)]),
///         move |_ctx, grads| Ok(vec![grads[0].as_ref().map(|g| Num::new(g.get() * k)), None]),
///     )?;
///     Ok(outputs.into_iter().next().expect("one output"))
/// }
///
/// /// `x³`, saving `x` for backward.
/// fn cube(x: &Num) -> Result<Num, Error> {
///     let outputs = apply_function(
///         "CubeBackward",
///         &[Some(x)],
///         |ctx| {
///             ctx.save_for_backward(vec![Some(x.clone())]);
///             Ok(vec![Num::new(x.get().powi(3))])
///         },
///         |ctx, grads| {
///             let x = ctx.saved_tensors()?[0].clone().expect("saved");
///             let g = grads[0].as_ref().map(|g| Num::new(g.get() * 3.0 * x.get() * x.get()));
///             Ok(vec![g])
///         },
///     )?;
///     Ok(outputs.into_iter().next().expect("one output"))
/// }
///
/// let x = Num::new(2.0);
/// x.set_requires_grad(true)?;
/// let y = cube(&mul_constant(&x, 3.0)?)?;  // (3x)³
/// assert_eq!(y.grad_fn().map(|n| n.name()), Some("CubeBackward"));
/// backward(&[y], &[], None, false)?;
/// assert_eq!(x.grad().map(|g| g.get()), Some(324.0)); // 81x²
/// # Ok::<(), Error>(())
/// ```
///
/// # Errors
/// What `forward` returns; the errors of making the graph's edges. Backward raises
/// PyTorch's "function CubeBackward returned an incorrect number of gradients (expected 1,
/// got 2)" and "... returned a gradient different than None at position 2, but the
/// corresponding forward input was not a Variable".
pub fn apply_function<T, F, B>(
    name: &str,
    inputs: &[Option<&T>],
    forward: F,
    backward: B,
) -> Result<Vec<T>, Error>
where
    T: Differentiable,
    F: FnOnce(&mut FunctionCtx<T>) -> Result<Vec<T>, Error>,
    B: FnMut(&mut FunctionCtx<T>, Vec<Option<T>>) -> Result<Vec<Option<T>>, Error> + Send + 'static,
{
    let tensors = || inputs.iter().flatten().copied();
    let needs = inputs
        .iter()
        .map(|t| t.is_some_and(requires_grad))
        .collect();
    let executable = is_grad_enabled() && tensors().any(requires_grad);
    // Numbered before the forward runs, as PyTorch numbers the node it makes first.
    let sequence_nr = next_sequence_nr();
    let mut ctx = FunctionCtx::new(needs);
    let outputs = {
        let _no_grad = GradModeGuard::new(false);
        forward(&mut ctx)?
    };
    let input_ids: Vec<usize> = tensors().filter_map(identity).collect();
    let is_input = |t: &T| identity(t).is_some_and(|id| input_ids.contains(&id));
    if !executable {
        // Nothing recorded; an input returned is a new handle without its history.
        return (outputs.into_iter())
            .map(|o| if is_input(&o) { o.detach() } else { Ok(o) })
            .collect();
    }
    let next_edges = tensors()
        .map(gradient_edge)
        .collect::<Result<NextEdges<T>, _>>()?;
    let mut plan = Vec::with_capacity(outputs.len());
    for o in &outputs {
        let differentiable = !identity(o).is_some_and(|id| ctx.non_differentiable.contains(&id))
            && (o.options().ok().and_then(|x| x.dtype)).is_none_or(is_differentiable_type);
        // An input returned, or a non-differentiable output that requires grad, is
        // returned as a new handle (PyTorch's `_view_as_self_with_no_grad`, `detach`).
        let own = if is_input(o) || (!differentiable && requires_grad(o)) {
            o.detach()?
        } else {
            o.clone()
        };
        plan.push((own, differentiable));
    }
    ctx.saved = super::saved::checked_save(|| {
        Ok(saved_variables(&ctx.to_save, &outputs, &plan, &is_input))
    })?;
    ctx.to_save.clear();
    let zeros_of = (plan.iter())
        .map(|(o, _)| ctx.materialize_grads.then(|| o.detach()).transpose())
        .collect::<Result<_, _>>()?;
    let input_meta: InputMetas = plan.iter().map(|(o, _)| InputMeta::of(o)).collect();
    let parts = NodeParts {
        sequence_nr,
        next_edges,
        arg_edges: None,
        input_meta,
    };
    let function = FunctionNode {
        name: intern(name),
        ctx,
        backward: Box::new(backward),
        is_tensor_input: inputs.iter().map(Option::is_some).collect(),
        zeros_of,
        zeros_like: T::zeros_like,
    };
    let node = Node::new(parts, function);
    for (nr, (o, differentiable)) in plan.iter().enumerate() {
        if *differentiable {
            set_history(o, &node, nr as u32);
        }
    }
    Ok(plan.into_iter().map(|(o, _)| o).collect())
}

/// The saved values of `to_save`: an output of the function (not an input it returned) is
/// saved as the node's output `nr`, anything else as an input.
fn saved_variables<T: Tensor>(
    to_save: &[Option<T>],
    outputs: &[T],
    plan: &[(T, bool)],
    is_input: &impl Fn(&T) -> bool,
) -> Vec<SavedVariable<T>> {
    let output_ids: Vec<Option<usize>> = outputs.iter().map(identity).collect();
    (to_save.iter())
        .map(|t| {
            let Some(t) = t else {
                return SavedVariable::none();
            };
            let id = identity(t);
            let nr = (!is_input(t))
                .then(|| output_ids.iter().position(|o| o.is_some() && *o == id))
                .flatten();
            match nr {
                Some(nr) if plan[nr].1 => SavedVariable::output(&plan[nr].0, nr as u32),
                Some(nr) => SavedVariable::input(&plan[nr].0),
                None => SavedVariable::input(t),
            }
        })
        .collect()
}
