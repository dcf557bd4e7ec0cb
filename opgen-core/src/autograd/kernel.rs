//! The runtime of Autograd kernels: what a generated (or hand-written) kernel at an autograd
//! key calls, one function per kind of operator, so that the kernel itself is data plus
//! calls (PyTorch generates this logic into every `VariableType` kernel).
//!
//! | kind | function | what it does when an input requires grad |
//! |---|---|---|
//! | functional | [`functional`] | builds the node, saves, runs below autograd, attaches the node to the differentiable outputs |
//! | in-place | [`inplace`] | refuses leaves and some views, saves (the original `self` if a formula needs it), runs below autograd, rebases `self`'s history (`CopySlices` for a view) |
//! | out | [`out`] | refuses: `out=` functions are not differentiable |
//! | view | [`view`] | as functional, and records the outputs as views of the base, also when nothing requires grad |
//!
//! With grad mode off or no input requiring grad, each runs the operator below autograd
//! (`ks.below(Autograd)`) and does nothing else but one atomic load per tensor input, and one
//! thread-local read (grad mode) only if one of them requires grad (views also record the
//! view).

use std::ops::Range;

use super::error::AutogradErrorKind;
use super::grad_mode::is_grad_enabled;
use super::meta::{gradient_edge, requires_grad, set_history};
use super::node::{Backward, InputMeta, InputMetas, NextEdges, Node, NodeParts, next_sequence_nr};
use super::outputs::Outputs;
use super::saved::checked_save;
use super::view::{self, CreationMeta, ViewFn};
use crate::dispatch::{DispatchKey, DispatchKeySet, Error, ExcludeDispatchKeyGuard, Tensor};

/// What an Autograd kernel knows of its operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutogradOp {
    /// The operator's base name as PyTorch's messages show it (`mul`; `mul_` for in-place).
    pub name: &'static str,
    /// Which returns are differentiable (`output_differentiability`); empty: all.
    pub output_differentiability: &'static [bool],
}

impl AutogradOp {
    /// An operator whose returns are all differentiable.
    pub const fn new(name: &'static str) -> AutogradOp {
        AutogradOp {
            name,
            output_differentiability: &[],
        }
    }

    fn differentiable(&self, position: usize) -> bool {
        self.output_differentiability
            .get(position)
            .copied()
            .unwrap_or(self.output_differentiability.is_empty())
    }
}

/// A differentiable argument of a call, in schema order: each tensor of it gets an edge of
/// the backward node.
#[derive(Debug)]
pub enum Input<'a, T> {
    /// `Tensor`.
    One(&'a T),
    /// `Tensor?`.
    Optional(Option<&'a T>),
    /// `Tensor[]`.
    List(&'a [T]),
    /// `Tensor?[]`.
    OptionalList(&'a [Option<T>]),
}

impl<T> Clone for Input<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Input<'_, T> {}

impl<'a, T> From<&'a T> for Input<'a, T> {
    fn from(t: &'a T) -> Self {
        Input::One(t)
    }
}

impl<'a, T> From<Option<&'a T>> for Input<'a, T> {
    fn from(t: Option<&'a T>) -> Self {
        Input::Optional(t)
    }
}

impl<'a, T> From<&'a [T]> for Input<'a, T> {
    fn from(t: &'a [T]) -> Self {
        Input::List(t)
    }
}

impl<'a, T> From<&'a [Option<T>]> for Input<'a, T> {
    fn from(t: &'a [Option<T>]) -> Self {
        Input::OptionalList(t)
    }
}

impl<T: Tensor> Input<'_, T> {
    /// Whether a tensor of the argument requires grad.
    #[inline(always)]
    pub fn requires_grad(&self) -> bool {
        self.any(requires_grad)
    }

    /// Whether `test` holds for a tensor of the argument.
    #[inline(always)]
    fn any(&self, test: impl Fn(&T) -> bool) -> bool {
        match *self {
            Input::One(t) => test(t),
            Input::Optional(t) => t.is_some_and(test),
            Input::List(ts) => ts.iter().any(test),
            Input::OptionalList(ts) => ts.iter().flatten().any(test),
        }
    }

    fn is_list(&self) -> bool {
        matches!(self, Input::List(_) | Input::OptionalList(_))
    }

    fn push_edges(&self, edges: &mut NextEdges<T>) -> Result<(), Error> {
        match *self {
            Input::One(t) => edges.push(gradient_edge(t)?),
            Input::Optional(t) => edges.push(t.map(gradient_edge).transpose()?.flatten()),
            Input::List(ts) => {
                for t in ts {
                    edges.push(gradient_edge(t)?);
                }
            }
            Input::OptionalList(ts) => {
                for t in ts {
                    edges.push(t.as_ref().map(gradient_edge).transpose()?.flatten());
                }
            }
        }
        Ok(())
    }
}

/// Runs `save` (a node's saved values), refusing an inference tensor it saved as PyTorch's
/// `SavedVariable` does; only a call with an inference tensor among its inputs pays for the
/// check.
fn save_inputs<T: Tensor, R>(
    inputs: &[Input<'_, T>],
    save: impl FnOnce() -> Result<R, Error>,
) -> Result<R, Error> {
    match inputs.iter().any(|input| input.any(T::is_inference)) {
        true => checked_save(save),
        false => save(),
    }
}

/// PyTorch's `compute_requires_grad`: grad mode is on and some input requires grad.
/// Inlined into each kernel, where the kinds of the inputs are known, so that the check is a
/// load per tensor. The inputs are tested first and grad mode (a thread-local) is read only
/// when one requires grad: both are reads without side effects, so the answer is PyTorch's,
/// and a call where no input requires grad (the common case) reads no thread-local.
#[inline(always)]
pub fn any_requires_grad<T: Tensor>(inputs: &[Input<'_, T>]) -> bool {
    // A loop rather than `Iterator::any`, which the optimiser would keep out of line.
    for input in inputs {
        if input.requires_grad() {
            return is_grad_enabled();
        }
    }
    false
}

/// The keys below every autograd key (PyTorch's `after_autograd_keyset`), computed once.
const AFTER_AUTOGRAD: DispatchKeySet = DispatchKeySet::FULL.below(DispatchKey::Autograd);

/// The keys a recording kernel excludes while it runs the operator below it.
const AUTOGRAD_AND_INPLACE_OR_VIEW: DispatchKeySet =
    DispatchKeySet::from_keys(&[DispatchKey::Autograd, DispatchKey::ADInplaceOrView]);

/// The keys an Autograd kernel redispatches with: those below every autograd key (PyTorch's
/// `ks & after_autograd_keyset`): one `and` with a constant.
#[inline(always)]
pub fn below_autograd(ks: DispatchKeySet) -> DispatchKeySet {
    ks.intersection(AFTER_AUTOGRAD)
}

/// The edges of a node for `inputs`, and the edge range of each argument when some argument
/// is a list (PyTorch's `collect_next_edges`).
type Edges<T> = (NextEdges<T>, Option<Box<[Range<u32>]>>);

fn collect_next_edges<T: Tensor>(inputs: &[Input<'_, T>]) -> Result<Edges<T>, Error> {
    // One or two tensor arguments (most operators): the edges are filled in place.
    match inputs {
        [Input::One(a)] => {
            return Ok((
                NextEdges::from_buf_and_len([gradient_edge(*a)?, None], 1),
                None,
            ));
        }
        [Input::One(a), Input::One(b)] => {
            let edges = [gradient_edge(*a)?, gradient_edge(*b)?];
            return Ok((NextEdges::from_buf(edges), None));
        }
        _ => {}
    }
    let mut edges = NextEdges::with_capacity(inputs.len());
    if !inputs.iter().any(Input::is_list) {
        for input in inputs {
            input.push_edges(&mut edges)?;
        }
        return Ok((edges, None));
    }
    let mut ranges = Vec::with_capacity(inputs.len());
    for input in inputs {
        let start = edges.len() as u32;
        input.push_edges(&mut edges)?;
        ranges.push(start..edges.len() as u32);
    }
    Ok((edges, Some(ranges.into_boxed_slice())))
}

/// Runs `f` with `grad_input_mask`: for each argument, whether some tensor of it has an edge
/// (on the stack when there are no lists and at most eight arguments, the usual case). One
/// call of `f`, so that the kernel's `save` is inlined here.
#[inline(always)]
fn with_mask<T: Tensor, R>(edges: &Edges<T>, args: usize, f: impl FnOnce(&[bool]) -> R) -> R {
    let (edges, ranges) = edges;
    let mut inline = [false; 8];
    let heap: Vec<bool>;
    let mask: &[bool] = match ranges {
        None if edges.len() <= inline.len() => {
            for (needed, edge) in inline.iter_mut().zip(edges.iter()) {
                *needed = edge.is_some();
            }
            &inline[..edges.len()]
        }
        None => {
            heap = edges.iter().map(Option::is_some).collect();
            &heap
        }
        Some(ranges) => {
            heap = (ranges.iter().take(args))
                .map(|r| {
                    edges[r.start as usize..r.end as usize]
                        .iter()
                        .any(Option::is_some)
                })
                .collect();
            &heap
        }
    };
    f(mask)
}

/// The Autograd kernel of a functional operator (PyTorch's `VariableType` kernel of, say,
/// `mul.Tensor`). `inputs` are the differentiable arguments (those with a formula), in schema
/// order. When grad mode is on and one requires grad: `save` gets `grad_input_mask` and
/// builds the backward function with what the formulas use; `forward` runs the operator
/// with the key set it is given (below autograd); `after` saves outputs the formulas use
/// (`result`, with [`SavedVariable::output`](super::SavedVariable::output)); the node is
/// attached to the differentiable outputs, numbered in order. Otherwise only `forward` runs.
///
/// ```
/// # use opgen_core::autograd::*;
/// # use opgen_core::dispatch::*;
/// # #[derive(Clone)] struct T1;
/// # impl Tensor for T1 { fn key_set(&self) -> DispatchKeySet { DispatchKey::CPU.into() } }
/// # struct NegBackward;
/// # impl Backward<T1> for NegBackward {
/// #     fn name(&self) -> &'static str { "NegBackward0" }
/// #     fn apply(&mut self, _: &mut BackwardContext<'_, T1>) -> Result<(), Error> { Ok(()) }
/// # }
/// static NEG: AutogradOp = AutogradOp::new("neg");
/// fn neg_autograd(ks: DispatchKeySet, x: &T1) -> Result<T1, Error> {
///     functional(ks, &NEG, &[x.into()], |_mask| Ok(NegBackward), |ks| {
///         assert!(!ks.contains(DispatchKey::AutogradCPU));
///         Ok(T1) // the redispatch below autograd
///     }, |_, _| Ok(()))
/// }
/// let ks = DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]);
/// assert!(neg_autograd(ks, &T1).is_ok());
/// ```
#[inline]
pub fn functional<T, R, B, const N: usize>(
    ks: DispatchKeySet,
    op: &'static AutogradOp,
    inputs: &[Input<'_, T>; N],
    save: impl FnOnce(&[bool]) -> Result<B, Error>,
    forward: impl FnOnce(DispatchKeySet) -> Result<R, Error>,
    after: impl FnOnce(&mut B, &R) -> Result<(), Error>,
) -> Result<R, Error>
where
    T: Tensor,
    R: Outputs<T>,
    B: Backward<T>,
{
    if !any_requires_grad(inputs) {
        return forward(below_autograd(ks));
    }
    let inputs = recording_copy(inputs);
    record(ks, op, &inputs, save, forward, after, None)
}

/// A copy of a kernel's inputs, for the recording path only: the kernel's own array (a
/// temporary the generated call builds) is then only read, so that the optimiser keeps its
/// elements in registers and a call that records nothing never writes it to memory.
#[inline(always)]
fn recording_copy<'a, T, const N: usize>(inputs: &[Input<'a, T>; N]) -> [Input<'a, T>; N] {
    *inputs
}

/// What a view operator adds to [`record`]: the base and the replay of each output.
struct ViewSpec<'a, T: Tensor> {
    base: &'a T,
    replay: &'a dyn Fn(usize) -> ViewFn<T>,
}

/// The recording path of [`functional`] and [`view`].
#[inline(never)]
fn record<T, R, B>(
    ks: DispatchKeySet,
    op: &'static AutogradOp,
    inputs: &[Input<'_, T>],
    save: impl FnOnce(&[bool]) -> Result<B, Error>,
    forward: impl FnOnce(DispatchKeySet) -> Result<R, Error>,
    after: impl FnOnce(&mut B, &R) -> Result<(), Error>,
    view_spec: Option<ViewSpec<'_, T>>,
) -> Result<R, Error>
where
    T: Tensor,
    R: Outputs<T>,
    B: Backward<T>,
{
    let sequence_nr = next_sequence_nr();
    let edges = collect_next_edges(inputs)?;
    let mut function = save_inputs(inputs, || with_mask(&edges, inputs.len(), save))?;
    let outputs = {
        // Nested calls of the kernels below record nothing (PyTorch's
        // `AutoDispatchBelowADInplaceOrView`).
        let _below = ExcludeDispatchKeyGuard::new(AUTOGRAD_AND_INPLACE_OR_VIEW);
        forward(below_autograd(ks))?
    };
    if let Some(spec) = view_spec {
        record_views(&spec, &outputs);
    }
    after(&mut function, &outputs)?;
    let mut input_meta = InputMetas::new();
    outputs.visit(&mut |position, t| {
        if op.differentiable(position) {
            input_meta.push(InputMeta::of(t));
        }
    });
    let (next_edges, arg_edges) = edges;
    let parts = NodeParts {
        sequence_nr,
        next_edges,
        arg_edges,
        input_meta,
    };
    let node = Node::new(parts, function);
    let mut nr = 0;
    outputs.visit(&mut |position, t| {
        if op.differentiable(position) {
            set_history(t, &node, nr);
            nr += 1;
        }
    });
    Ok(outputs)
}

/// Records each output as a view of the base, for a type that takes part in autograd (an
/// output without autograd state after [`Tensor::materialize_autograd_meta`] is skipped).
fn record_views<T: Tensor, R: Outputs<T>>(spec: &ViewSpec<'_, T>, outputs: &R) {
    let mut count = 0;
    outputs.visit(&mut |_, _| count += 1);
    let creation = if !is_grad_enabled() {
        CreationMeta::NoGradMode
    } else if count > 1 {
        CreationMeta::MultipleOutputs
    } else {
        CreationMeta::Default
    };
    let mut i = 0;
    outputs.visit(&mut |_, t| {
        if t.materialize_autograd_meta().is_some() {
            view::record_view(spec.base, t, (spec.replay)(i), creation);
        }
        i += 1;
    });
}

/// The Autograd kernel of a view operator (`transpose`, `select`, `unbind`): as
/// [`functional`], and each output is recorded as a view of `base`, also when nothing
/// requires grad (PyTorch's `as_view` in the ADInplaceOrView kernel), so that a later
/// in-place operation on it can rewrite the base's history. `replay(i)` returns the function
/// that takes output `i`'s view of another tensor (the operator called with the same
/// non-tensor arguments); it is only called for types that take part in autograd.
// One parameter per piece of the operator, as the other kernels take them plus the base and
// the replay; a struct would only rename them.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn view<T, R, B>(
    ks: DispatchKeySet,
    op: &'static AutogradOp,
    base: &T,
    inputs: &[Input<'_, T>],
    replay: impl Fn(usize) -> ViewFn<T>,
    save: impl FnOnce(&[bool]) -> Result<B, Error>,
    forward: impl FnOnce(DispatchKeySet) -> Result<R, Error>,
    after: impl FnOnce(&mut B, &R) -> Result<(), Error>,
) -> Result<R, Error>
where
    T: Tensor,
    R: Outputs<T>,
    B: Backward<T>,
{
    let spec = ViewSpec {
        base,
        replay: &replay,
    };
    if any_requires_grad(inputs) {
        return record(ks, op, inputs, save, forward, after, Some(spec));
    }
    let outputs = forward(below_autograd(ks))?;
    record_views(&spec, &outputs);
    Ok(outputs)
}

/// PyTorch's `check_inplace`: with grad mode on and an input requiring grad, refuses to
/// modify in place a leaf that requires grad, a view of one, and views that may not be
/// modified in place (made in no-grad mode, or one of several outputs).
pub fn check_inplace<T: Tensor>(t: &T, any_requires_grad: bool) -> Result<(), Error> {
    if !any_requires_grad || !is_grad_enabled() {
        return Ok(());
    }
    let Some(meta) = t.autograd_meta() else {
        return Ok(());
    };
    let base = meta.state().view.as_ref().map(|v| v.base.clone());
    if let Some(base) = base {
        view::check_view_rebase(t, meta, false)?;
        if requires_grad(t) && super::meta::grad_fn(&base).is_none() && requires_grad(&base) {
            return Err(AutogradErrorKind::ViewOfLeafInplace.into());
        }
    }
    if requires_grad(t) && super::meta::grad_fn(t).is_none() {
        return Err(AutogradErrorKind::LeafInplace.into());
    }
    Ok(())
}

/// The Autograd kernel of an in-place operator (`mul_`): `self_` is the tensor written,
/// `inputs` every differentiable argument (`self` included, first). When grad mode is on and
/// one requires grad: [`check_inplace`], then as [`functional`], and `self_`'s history is
/// rebased on the new node (for a view, the base's history is rewritten through a
/// `CopySlices` node). `save` must save a clone of `self` where a formula uses its value
/// before the operation (PyTorch's `original_self`); `after` may save `self` after it
/// (the formula's `result`) as output 0.
#[inline]
pub fn inplace<T, R, B, const N: usize>(
    ks: DispatchKeySet,
    op: &'static AutogradOp,
    self_: &T,
    inputs: &[Input<'_, T>; N],
    save: impl FnOnce(&[bool]) -> Result<B, Error>,
    forward: impl FnOnce(DispatchKeySet) -> Result<R, Error>,
    after: impl FnOnce(&mut B, &R) -> Result<(), Error>,
) -> Result<R, Error>
where
    T: Tensor,
    B: Backward<T>,
{
    if !any_requires_grad(inputs) {
        return forward(below_autograd(ks));
    }
    let inputs = recording_copy(inputs);
    record_inplace(ks, op, self_, &inputs, save, forward, after)
}

#[inline(never)]
fn record_inplace<T, R, B>(
    ks: DispatchKeySet,
    op: &'static AutogradOp,
    self_: &T,
    inputs: &[Input<'_, T>],
    save: impl FnOnce(&[bool]) -> Result<B, Error>,
    forward: impl FnOnce(DispatchKeySet) -> Result<R, Error>,
    after: impl FnOnce(&mut B, &R) -> Result<(), Error>,
) -> Result<R, Error>
where
    T: Tensor,
    B: Backward<T>,
{
    check_inplace(self_, true).map_err(|e| in_op(e, op))?;
    let sequence_nr = next_sequence_nr();
    let edges = collect_next_edges(inputs)?;
    let mut function = save_inputs(inputs, || with_mask(&edges, inputs.len(), save))?;
    let output = {
        // PyTorch's `AutoDispatchBelowAutograd`: the version bump below still happens.
        let _below = ExcludeDispatchKeyGuard::new(DispatchKey::Autograd);
        forward(below_autograd(ks))?
    };
    after(&mut function, &output)?;
    let (next_edges, arg_edges) = edges;
    let parts = NodeParts {
        sequence_nr,
        next_edges,
        arg_edges,
        input_meta: smallvec::smallvec![InputMeta::of(self_)],
    };
    let node = Node::new(parts, function);
    view::rebase_history(self_, node)?;
    Ok(output)
}

/// The Autograd kernel of an `out=` operator: refuses a differentiable input or an out
/// argument that requires grad (with grad mode on), else runs the operator below autograd.
#[inline]
pub fn out<T, R>(
    ks: DispatchKeySet,
    op: &'static AutogradOp,
    inputs: &[Input<'_, T>],
    outs: &[Input<'_, T>],
    forward: impl FnOnce(DispatchKeySet) -> Result<R, Error>,
) -> Result<R, Error>
where
    T: Tensor,
{
    if any_requires_grad(inputs) || any_requires_grad(outs) {
        return Err(AutogradErrorKind::OutRequiresGrad {
            op: op.name.to_string(),
        }
        .into());
    }
    let _below = ExcludeDispatchKeyGuard::new(DispatchKey::Autograd);
    forward(below_autograd(ks))
}

/// PyTorch's `check_no_requires_grad`: an argument without a formula, not marked
/// non-differentiable, must not require grad.
#[inline]
pub fn check_no_requires_grad<T: Tensor>(
    op: &'static AutogradOp,
    argument: &str,
    input: Input<'_, T>,
) -> Result<(), Error> {
    // The input first: grad mode is read only when it requires grad (see
    // `any_requires_grad`).
    if input.requires_grad() && is_grad_enabled() {
        return Err(AutogradErrorKind::NotDifferentiable {
            op: op.name.to_string(),
            argument: argument.to_string(),
        }
        .into());
    }
    Ok(())
}

/// The error of a formula written `not_implemented("name")` (PyTorch's `not_implemented`).
pub fn not_implemented(name: &str, reason: &str) -> Error {
    AutogradErrorKind::NotImplemented {
        name: name.to_string(),
        reason: reason.to_string(),
    }
    .into()
}

fn in_op(e: Error, op: &AutogradOp) -> Error {
    match super::error::as_autograd_error(&e) {
        Some(a) => a.clone().in_context(op.name).into(),
        None => e,
    }
}
