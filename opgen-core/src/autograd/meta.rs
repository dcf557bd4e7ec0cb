//! The autograd state a tensor stores ([`AutogradMeta`]), the tensor math the engine needs
//! ([`Differentiable`]), and the autograd methods of tensors ([`AutogradTensor`]).

use std::any::type_name;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use super::error::AutogradErrorKind;
use super::node::{
    ACCUMULATE_SEQUENCE_NR, Edge, GradHook, HookList, InputMeta, NextEdges, Node, NodeParts,
    RemovableHandle, next_hook_id,
};
use super::view::{self, ViewMeta};
use crate::dispatch::{Error, ScalarType, Tensor};

/// The tensor math autograd needs from a tensor type that takes part in it. A type opts in by
/// implementing this trait and returning an [`AutogradMeta`] from
/// [`Tensor::autograd_meta`].
///
/// The engine calls [`accumulate`](Differentiable::accumulate) to sum gradients; with
/// `create_graph`, implement it with an operator that has an Autograd kernel so that the sums
/// are recorded too.
pub trait Differentiable: Tensor {
    /// A new handle to the same data and version counter, without autograd state
    /// (PyTorch's `detach()`).
    fn detach(&self) -> Result<Self, Error>;

    /// Ones of this tensor's shape, dtype and device (the gradient of a scalar output when
    /// none is given).
    fn ones_like(&self) -> Result<Self, Error>;

    /// Zeros of this tensor's shape, dtype and device.
    fn zeros_like(&self) -> Result<Self, Error>;

    /// `self + other`: sums two gradients of the same tensor.
    fn accumulate(&self, other: &Self) -> Result<Self, Error>;

    /// Sums a gradient that was broadcast back down to `sizes` (PyTorch's `at::sum_to`).
    fn sum_to(&self, sizes: &[i64]) -> Result<Self, Error>;
}

/// The [`Differentiable`] functions of a type, kept in its metadata so that code generic over
/// [`Tensor`] (the Autograd kernels) can call them.
pub(crate) struct GradOps<T> {
    pub detach: fn(&T) -> Result<T, Error>,
    pub accumulate: fn(&T, &T) -> Result<T, Error>,
}

impl<T> Clone for GradOps<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for GradOps<T> {}

const REQUIRES_GRAD: u8 = 1;
const IS_VIEW: u8 = 2;

/// The autograd state of one tensor (PyTorch's `AutogradMeta`): whether it requires grad, its
/// gradient, the node that made it (`grad_fn`) and which of that node's outputs it is, its
/// hooks, whether it retains its gradient, and, for a view, its base.
///
/// A tensor type stores one per tensor (not per handle: the handles of one tensor share it)
/// and returns it from [`Tensor::autograd_meta`]. Reading whether a tensor requires grad is
/// one atomic load; the rest sits behind a mutex that only the slow path takes.
///
/// ```
/// use std::sync::Arc;
/// use opgen_core::autograd::{AutogradMeta, AutogradTensor, Differentiable};
/// use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Error, Tensor};
///
/// #[derive(Clone)]
/// struct Scalar1(Arc<(f64, AutogradMeta<Scalar1>)>);
/// impl Scalar1 {
///     fn new(x: f64) -> Scalar1 { Scalar1(Arc::new((x, AutogradMeta::new()))) }
/// }
/// impl Tensor for Scalar1 {
///     fn key_set(&self) -> DispatchKeySet {
///         DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU])
///     }
///     fn sizes(&self) -> Result<Vec<i64>, Error> { Ok(vec![]) }
///     fn autograd_meta(&self) -> Option<&AutogradMeta<Self>> { Some(&self.0.1) }
/// }
/// impl Differentiable for Scalar1 {
///     fn detach(&self) -> Result<Self, Error> { Ok(Scalar1::new(self.0.0)) }
///     fn ones_like(&self) -> Result<Self, Error> { Ok(Scalar1::new(1.0)) }
///     fn zeros_like(&self) -> Result<Self, Error> { Ok(Scalar1::new(0.0)) }
///     fn accumulate(&self, o: &Self) -> Result<Self, Error> { Ok(Scalar1::new(self.0.0 + o.0.0)) }
///     fn sum_to(&self, _: &[i64]) -> Result<Self, Error> { Ok(self.clone()) }
/// }
///
/// let x = Scalar1::new(2.0);
/// assert!(!x.requires_grad() && x.is_leaf());
/// x.set_requires_grad(true)?;
/// assert!(x.requires_grad() && x.grad().is_none());
/// # Ok::<(), Error>(())
/// ```
pub struct AutogradMeta<T: Tensor> {
    flags: AtomicU8,
    ops: GradOps<T>,
    state: Mutex<MetaState<T>>,
}

pub(crate) struct MetaState<T: Tensor> {
    /// `requires_grad` as set on a leaf.
    pub leaf_requires_grad: bool,
    pub grad: Option<T>,
    pub grad_fn: Option<Arc<Node<T>>>,
    pub output_nr: u32,
    pub grad_accumulator: Weak<Node<T>>,
    /// The gradient of a non-leaf that retains it, shared with its node's hook.
    pub retained: Option<Arc<Mutex<Option<T>>>>,
    /// Hooks of a leaf (those of a non-leaf live on its `grad_fn`), shared with the handles
    /// that remove them; made by the first `register_hook`, so that metadata of tensors
    /// without hooks costs no allocation.
    pub hooks: Option<Arc<Mutex<HookList<T>>>>,
    pub view: Option<ViewMeta<T>>,
}

impl<T: Differentiable> AutogradMeta<T> {
    /// The state of a new tensor: a leaf that does not require grad.
    pub fn new() -> AutogradMeta<T> {
        AutogradMeta {
            flags: AtomicU8::new(0),
            ops: GradOps {
                detach: T::detach,
                accumulate: T::accumulate,
            },
            state: Mutex::new(MetaState {
                leaf_requires_grad: false,
                grad: None,
                grad_fn: None,
                output_nr: 0,
                // An empty `Weak` of a sized node, as one of `dyn Backward` cannot be made.
                grad_accumulator: Weak::<Node<T, AccumulateGrad<T>>>::new(),
                retained: None,
                hooks: None,
                view: None,
            }),
        }
    }
}

impl<T: Differentiable> Default for AutogradMeta<T> {
    fn default() -> AutogradMeta<T> {
        AutogradMeta::new()
    }
}

impl<T: Tensor> AutogradMeta<T> {
    pub(crate) fn state(&self) -> MutexGuard<'_, MetaState<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn ops(&self) -> GradOps<T> {
        self.ops
    }

    /// Whether the tensor requires grad because it is a leaf marked so or has a `grad_fn`
    /// (views also look at their base).
    #[inline]
    fn own_requires_grad(&self) -> u8 {
        self.flags.load(Ordering::Acquire)
    }

    pub(crate) fn set_flag(&self, flag: u8, on: bool) {
        if on {
            self.flags.fetch_or(flag, Ordering::AcqRel);
        } else {
            self.flags.fetch_and(!flag, Ordering::AcqRel);
        }
    }

    pub(crate) fn refresh_requires_grad(&self, state: &MetaState<T>) {
        self.set_flag(
            REQUIRES_GRAD,
            state.leaf_requires_grad || state.grad_fn.is_some(),
        );
    }

    pub(crate) fn mark_view(&self) {
        self.set_flag(IS_VIEW, true);
    }
}

impl<T: Tensor> std::fmt::Debug for AutogradMeta<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state();
        f.debug_struct("AutogradMeta")
            .field("requires_grad", &state.leaf_requires_grad)
            .field(
                "grad_fn",
                &state.grad_fn.as_ref().map(|n| n.name().to_string()),
            )
            .field("output_nr", &state.output_nr)
            .field("is_view", &state.view.is_some())
            .finish()
    }
}

/// Whether `t` requires grad: one atomic load for a type that opts in, nothing for one that
/// does not.
#[inline(always)]
pub fn requires_grad<T: Tensor>(t: &T) -> bool {
    match t.autograd_meta() {
        None => false,
        Some(meta) => match meta.own_requires_grad() {
            0 => false,
            f if f & REQUIRES_GRAD != 0 => true,
            _ => view_base_requires_grad(meta),
        },
    }
}

#[cold]
fn view_base_requires_grad<T: Tensor>(meta: &AutogradMeta<T>) -> bool {
    let base = meta.state().view.as_ref().map(|v| v.base.clone());
    base.is_some_and(|b| requires_grad(&b))
}

/// The metadata of `t` (made if the type makes it on demand), or the error for a type that
/// does not take part in autograd.
pub(crate) fn meta_of<T: Tensor>(t: &T) -> Result<&AutogradMeta<T>, Error> {
    t.materialize_autograd_meta().ok_or_else(|| {
        AutogradErrorKind::NoAutogradMeta {
            tensor_type: type_name::<T>(),
        }
        .into()
    })
}

/// PyTorch's `isDifferentiableType`: floating point and complex dtypes.
pub fn is_differentiable_type(dtype: ScalarType) -> bool {
    use ScalarType as S;
    matches!(
        dtype,
        S::Half
            | S::Float
            | S::Double
            | S::BFloat16
            | S::ComplexHalf
            | S::ComplexFloat
            | S::ComplexDouble
            | S::Float8_e5m2
            | S::Float8_e4m3fn
            | S::Float8_e5m2fnuz
            | S::Float8_e4m3fnuz
    )
}

/// The autograd methods of every tensor type (PyTorch's `Tensor.requires_grad`, `.grad`,
/// `.grad_fn`, `.is_leaf`, `.retain_grad()`, `.register_hook()`). On a type that does not
/// opt in, the queries answer as for a tensor that does not require grad and the setters
/// return an error.
pub trait AutogradTensor: Tensor {
    /// Whether the tensor requires grad: a leaf marked so, a tensor computed from one while
    /// grad mode was on, or a view of one.
    fn requires_grad(&self) -> bool {
        requires_grad(self)
    }

    /// Marks a leaf as requiring grad (or not): PyTorch's `requires_grad_`. Refused on a
    /// tensor that is not a leaf unless it asks for `true`, and for dtypes that are neither
    /// floating point nor complex, and `true` on an inference tensor outside inference mode.
    fn set_requires_grad(&self, requires_grad: bool) -> Result<(), Error> {
        if requires_grad && self.is_inference() && !super::is_inference_mode_enabled() {
            return Err(AutogradErrorKind::InferenceRequiresGrad.into());
        }
        if requires_grad
            && let Ok(options) = self.options()
            && let Some(dtype) = options.dtype
            && !is_differentiable_type(dtype)
        {
            return Err(AutogradErrorKind::RequiresGradDtype.into());
        }
        let meta = meta_of(self)?;
        let mut state = meta.state();
        if state.grad_fn.is_some() {
            if requires_grad {
                return Ok(());
            }
            return Err(AutogradErrorKind::NonLeafRequiresGrad { to_false: true }.into());
        }
        state.leaf_requires_grad = requires_grad;
        meta.refresh_requires_grad(&state);
        Ok(())
    }

    /// The accumulated gradient of a leaf (or of a tensor that retains its gradient).
    fn grad(&self) -> Option<Self> {
        let meta = self.autograd_meta()?;
        let state = meta.state();
        match &state.retained {
            Some(cell) => cell.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            None => state.grad.clone(),
        }
    }

    /// Replaces the gradient (`None` clears it, as `x.grad = None`).
    fn set_grad(&self, grad: Option<Self>) -> Result<(), Error> {
        let meta = meta_of(self)?;
        let mut state = meta.state();
        match &state.retained {
            Some(cell) => *cell.lock().unwrap_or_else(|e| e.into_inner()) = grad,
            None => state.grad = grad,
        }
        Ok(())
    }

    /// The node that computed the tensor (`None` for a leaf). For a view whose base was
    /// modified in place since, a node that replays the view on the base's new history.
    fn grad_fn(&self) -> Option<Arc<Node<Self>>> {
        grad_fn(self)
    }

    /// Whether the tensor is a leaf: it has no `grad_fn`.
    fn is_leaf(&self) -> bool {
        self.grad_fn().is_none()
    }

    /// Which output of its `grad_fn` the tensor is.
    fn output_nr(&self) -> u32 {
        self.autograd_meta().map_or(0, |m| m.state().output_nr)
    }

    /// Makes a non-leaf keep its gradient in [`AutogradTensor::grad`] during `backward`
    /// (leaves always do).
    fn retain_grad(&self) -> Result<(), Error> {
        let meta = meta_of(self)?;
        if !requires_grad(self) {
            return Err(AutogradErrorKind::RetainGradWithoutGrad.into());
        }
        let Some(node) = grad_fn(self) else {
            return Ok(());
        };
        let (cell, nr) = {
            let mut state = meta.state();
            let cell = state
                .retained
                .get_or_insert_with(|| Arc::new(Mutex::new(None)))
                .clone();
            (cell, state.output_nr)
        };
        node.add_retains_grad(nr, cell);
        Ok(())
    }

    /// Whether a non-leaf retains its gradient.
    fn retains_grad(&self) -> bool {
        self.autograd_meta()
            .is_some_and(|m| m.state().retained.is_some())
    }

    /// Registers a hook that sees the gradient of this tensor during `backward` (and the
    /// gradient [`grad`](super::grad) returns for it) and may return a replacement
    /// (PyTorch's `register_hook`). Hooks run in the order registered, each on the previous
    /// one's result. The handle removes the hook; dropping it leaves the hook in place.
    ///
    /// A non-leaf's hooks belong to its `grad_fn` (an in-place operation later gives the
    /// tensor a new `grad_fn`: the hook keeps seeing the gradient of the value it was
    /// registered on, as in PyTorch); a leaf's are read by its accumulator when it runs.
    ///
    /// # Errors
    /// PyTorch's "cannot register a hook on a tensor that doesn't require gradient".
    fn register_hook(&self, hook: GradHook<Self>) -> Result<RemovableHandle, Error> {
        let meta = meta_of(self)?;
        if !requires_grad(self) {
            return Err(AutogradErrorKind::HookWithoutGrad.into());
        }
        let id = next_hook_id();
        if let Some(node) = grad_fn(self) {
            node.add_tensor_hook(meta.state().output_nr, id, hook);
            let node = Arc::downgrade(&node);
            return Ok(RemovableHandle::new(id, move |id| {
                node.upgrade().is_some_and(|n| n.remove_tensor_hook(id))
            }));
        }
        // Under the state's lock, as the accumulator is made: a new accumulator sees the hook,
        // an existing one is told to look.
        let list = {
            let mut state = meta.state();
            let list = state.hooks.get_or_insert_with(Default::default).clone();
            (list.lock().unwrap_or_else(|e| e.into_inner())).push((id, hook));
            if let Some(accumulator) = state.grad_accumulator.upgrade() {
                accumulator.mark_has_hooks();
            }
            list
        };
        let list = Arc::downgrade(&list);
        Ok(RemovableHandle::new(id, move |id| {
            let Some(list) = list.upgrade() else {
                return false;
            };
            let mut hooks = list.lock().unwrap_or_else(|e| e.into_inner());
            let before = hooks.len();
            hooks.retain(|(i, _)| *i != id);
            hooks.len() != before
        }))
    }

    /// Whether the tensor is a view recorded by an Autograd kernel.
    fn is_view(&self) -> bool {
        self.autograd_meta()
            .is_some_and(|m| m.state().view.is_some())
    }

    /// The tensor this one is a view of (PyTorch's `_base`).
    fn view_base(&self) -> Option<Self> {
        let meta = self.autograd_meta()?;
        meta.state().view.as_ref().map(|v| v.base.clone())
    }
}

impl<T: Tensor> AutogradTensor for T {}

/// The `grad_fn` of `t`, regenerating a view's when its base changed.
pub(crate) fn grad_fn<T: Tensor>(t: &T) -> Option<Arc<Node<T>>> {
    let meta = t.autograd_meta()?;
    if meta.own_requires_grad() & IS_VIEW != 0 {
        return view::view_grad_fn(t, meta);
    }
    meta.state().grad_fn.clone()
}

/// Where a gradient of `t` goes (PyTorch's `impl::gradient_edge`): its `grad_fn` at its
/// output number, a leaf's accumulator, or nowhere if it does not require grad. Inlined into
/// the recording kernels: a tensor that does not require grad costs a load, one that does
/// a lock of its state (views take the out-of-line path).
#[inline]
pub(crate) fn gradient_edge<T: Tensor>(t: &T) -> Result<Option<Edge<T>>, Error> {
    let Some(meta) = t.autograd_meta() else {
        return Ok(None);
    };
    let flags = meta.own_requires_grad();
    if flags & IS_VIEW != 0 {
        return view_gradient_edge(t, meta);
    }
    // Not a view: a `grad_fn` or a leaf marked as requiring grad sets the flag.
    if flags & REQUIRES_GRAD == 0 {
        return Ok(None);
    }
    let mut state = meta.state();
    if let Some(node) = &state.grad_fn {
        let (node, input_nr) = (node.clone(), state.output_nr);
        return Ok(Some(Edge { node, input_nr }));
    }
    Ok(grad_accumulator(t, &mut state).map(|node| Edge { node, input_nr: 0 }))
}

/// [`gradient_edge`] of a view: its `grad_fn` regenerated if its base changed.
#[inline(never)]
fn view_gradient_edge<T: Tensor>(t: &T, meta: &AutogradMeta<T>) -> Result<Option<Edge<T>>, Error> {
    if let Some(node) = view::try_view_grad_fn(t, meta, false)? {
        let input_nr = meta.state().output_nr;
        return Ok(Some(Edge { node, input_nr }));
    }
    if !requires_grad(t) {
        return Ok(None);
    }
    let mut state = meta.state();
    Ok(grad_accumulator(t, &mut state).map(|node| Edge { node, input_nr: 0 }))
}

/// The accumulator of a leaf that requires grad, made on first use; the leaf keeps only a
/// weak reference, so an accumulator lives as long as some graph uses it.
#[inline]
fn grad_accumulator<T: Tensor>(t: &T, state: &mut MetaState<T>) -> Option<Arc<Node<T>>> {
    if let Some(node) = state.grad_accumulator.upgrade() {
        return Some(node);
    }
    if !state.leaf_requires_grad {
        return None;
    }
    Some(new_grad_accumulator(t, state))
}

/// Makes a leaf's accumulator (the last one is gone: no graph uses it any more).
#[inline(never)]
fn new_grad_accumulator<T: Tensor>(t: &T, state: &mut MetaState<T>) -> Arc<Node<T>> {
    let parts = NodeParts {
        sequence_nr: ACCUMULATE_SEQUENCE_NR,
        next_edges: NextEdges::new(),
        arg_edges: None,
        input_meta: smallvec::smallvec![InputMeta::of(t)],
    };
    let node = Node::new(parts, AccumulateGrad { leaf: t.clone() });
    let has_hooks = (state.hooks.as_ref())
        .is_some_and(|h| !h.lock().unwrap_or_else(|e| e.into_inner()).is_empty());
    if has_hooks {
        node.mark_has_hooks();
    }
    state.grad_accumulator = Arc::downgrade(&node);
    node
}

/// Makes `node` the `grad_fn` of `t`, as its output `output_nr` (PyTorch's `set_history`).
pub(crate) fn set_history<T: Tensor>(t: &T, node: &Arc<Node<T>>, output_nr: u32) {
    let Some(meta) = t.materialize_autograd_meta() else {
        return;
    };
    let mut state = meta.state();
    state.grad_fn = Some(node.clone());
    state.output_nr = output_nr;
    if let Some(view) = &mut state.view {
        view.attr_version = t.version().unwrap_or(0);
    }
    meta.refresh_requires_grad(&state);
}

/// The node that accumulates gradients into a leaf (PyTorch's `AccumulateGrad`).
struct AccumulateGrad<T: Tensor> {
    leaf: T,
}

impl<T: Tensor> super::Backward<T> for AccumulateGrad<T> {
    fn name(&self) -> &'static str {
        "AccumulateGrad"
    }

    fn leaf_hooks(&self) -> Vec<GradHook<T>> {
        let Some(meta) = self.leaf.autograd_meta() else {
            return Vec::new();
        };
        let Some(list) = meta.state().hooks.clone() else {
            return Vec::new();
        };
        let hooks = list.lock().unwrap_or_else(|e| e.into_inner());
        hooks.iter().map(|(_, h)| h.clone()).collect()
    }

    fn apply(&mut self, ctx: &mut super::BackwardContext<'_, T>) -> Result<(), Error> {
        let Some(grad) = ctx.grad(0).cloned() else {
            return Ok(());
        };
        let meta = meta_of(&self.leaf)?;
        if meta.state().grad_fn.is_some() {
            return Err(AutogradErrorKind::LeafMovedIntoGraph.into());
        }
        if !requires_grad(&self.leaf) {
            return Ok(());
        }
        let ops = meta.ops();
        let old = meta.state().grad.clone();
        let new = match old {
            // Without a graph of the backward, the gradient is stored as is, detached.
            None if !super::is_grad_enabled() => (ops.detach)(&grad)?,
            None => grad,
            // Out of place, so that a gradient the caller still holds is never written.
            Some(old) => (ops.accumulate)(&old, &grad)?,
        };
        meta.state().grad = Some(new);
        Ok(())
    }
}
