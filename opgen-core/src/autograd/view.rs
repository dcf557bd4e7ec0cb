//! Views in the graph: what a view remembers of its base, the `grad_fn` of a view whose base
//! changed, and in-place operations on views, which rewrite the base's history as PyTorch's
//! `CopySlices` does.

use std::sync::Arc;

use super::error::AutogradErrorKind;
use super::grad_mode::GradModeGuard;
use super::meta::{AutogradMeta, gradient_edge, requires_grad, set_history};
use super::node::{
    Backward, BackwardContext, InputMeta, NextEdges, Node, NodeParts, next_sequence_nr,
};
use crate::dispatch::{Error, Tensor, TensorOptions};

/// Replays a view operation on another tensor: given the base (or a tensor of the base's
/// geometry), returns the view the operation took of it. The Autograd kernel of a view
/// operator passes one (a call of the operator with the same non-tensor arguments).
pub type ViewFn<T> = Arc<dyn Fn(&T) -> Result<T, Error> + Send + Sync>;

/// How a view was made (PyTorch's `CreationMeta`): decides whether it may be modified in
/// place with autograd on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreationMeta {
    /// An ordinary view.
    Default,
    /// Made while grad mode was off.
    NoGradMode,
    /// One of several views returned by one operator (`unbind`, `split`).
    MultipleOutputs,
    /// Made in inference mode.
    InferenceMode,
}

impl CreationMeta {
    /// PyTorch's `propagate_creation_meta`: a view of a view keeps the stricter mark.
    fn propagate(previous: CreationMeta, new: CreationMeta) -> CreationMeta {
        match (previous, new) {
            (p, CreationMeta::Default) | (p @ CreationMeta::InferenceMode, _) => p,
            (_, n) => n,
        }
    }
}

pub(crate) struct ViewMeta<T: Tensor> {
    /// The base: never itself a view.
    pub base: T,
    /// Replays the chain of view operations from the base.
    pub replay: ViewFn<T>,
    pub creation: CreationMeta,
    /// The version the view's `grad_fn` was computed at.
    pub attr_version: u64,
}

/// Records that `output` is a view of `input` made by an operation that `replay` repeats
/// (PyTorch's `as_view`).
pub(crate) fn record_view<T: Tensor>(
    input: &T,
    output: &T,
    replay: ViewFn<T>,
    creation: CreationMeta,
) {
    // The output's state is made first: a kernel that returned its input's handle then
    // finds the same state on both and made no new tensor, so there is nothing to record.
    let Some(out_meta) = output.materialize_autograd_meta() else {
        return;
    };
    let in_meta = input.autograd_meta();
    if in_meta.is_some_and(|m| std::ptr::eq(m, out_meta)) {
        return;
    }
    // An input without autograd state is no view.
    let parent = in_meta.and_then(|m| {
        (m.state().view.as_ref()).map(|v| (v.base.clone(), v.replay.clone(), v.creation))
    });
    let (base, replay, creation) = match parent {
        Some((base, first, previous)) => {
            let chained: ViewFn<T> = Arc::new(move |t: &T| replay(&first(t)?));
            (base, chained, CreationMeta::propagate(previous, creation))
        }
        None => (input.clone(), replay, creation),
    };
    let attr_version = output.version().unwrap_or(0);
    out_meta.state().view = Some(ViewMeta {
        base,
        replay,
        creation,
        attr_version,
    });
    out_meta.mark_view();
}

/// Records `output`, made from `base` by a view operator inside inference mode, as a view
/// marked [`CreationMeta::InferenceMode`] (what c10's `ADInplaceOrView` kernel does there;
/// outside inference mode the Autograd kernel records views). For a type that takes part in
/// autograd; nothing for the others. Such a view is never replayed: modifying it (or its
/// base) in place with autograd is refused first ([`check_view_rebase`]), so its replay
/// only says so.
pub(crate) fn record_inference_view<T: Tensor>(base: &T, output: &T) {
    if output.materialize_autograd_meta().is_none() {
        return;
    }
    let replay: ViewFn<T> = Arc::new(|_| {
        Err(Error::from(
            "a view made in inference mode is not replayed: modifying it in place outside \
             inference mode is refused",
        ))
    });
    record_view(base, output, replay, CreationMeta::InferenceMode);
}

/// The `grad_fn` of a view: its own, unless the base (or another view of it) was modified
/// in place since it was computed, in which case the view is replayed on the base's new
/// history (PyTorch's `VariableHooks::grad_fn`).
pub(crate) fn view_grad_fn<T: Tensor>(t: &T, meta: &AutogradMeta<T>) -> Option<Arc<Node<T>>> {
    match try_view_grad_fn(t, meta, false) {
        Ok(node) => node,
        Err(_) => meta.state().grad_fn.clone(),
    }
}

/// [`view_grad_fn`], with the errors of an indirect in-place modification; `force`
/// regenerates even if the version did not change.
pub(crate) fn try_view_grad_fn<T: Tensor>(
    t: &T,
    meta: &AutogradMeta<T>,
    force: bool,
) -> Result<Option<Arc<Node<T>>>, Error> {
    let (current_fn, base, replay, attr_version) = {
        let state = meta.state();
        let Some(view) = &state.view else {
            return Ok(state.grad_fn.clone());
        };
        (
            state.grad_fn.clone(),
            view.base.clone(),
            view.replay.clone(),
            view.attr_version,
        )
    };
    if current_fn.is_none() && !requires_grad(&base) {
        return Ok(None);
    }
    let version = t.version().unwrap_or(attr_version);
    if !force && version == attr_version {
        return Ok(current_fn);
    }
    check_view_rebase(t, meta, true)?;
    let replayed = {
        let _grad = GradModeGuard::new(true);
        replay(&base)?
    };
    let new_fn = super::meta::grad_fn(&replayed);
    let mut state = meta.state();
    state.grad_fn = new_fn.clone();
    state.output_nr = 0;
    if let Some(view) = &mut state.view {
        view.attr_version = version;
    }
    meta.refresh_requires_grad(&state);
    Ok(new_fn)
}

/// PyTorch's `handle_view_on_rebase`: refuses to modify in place a view made in no-grad
/// mode, in inference mode, or as one of several outputs.
pub(crate) fn check_view_rebase<T: Tensor>(
    t: &T,
    meta: &AutogradMeta<T>,
    indirect: bool,
) -> Result<(), Error> {
    let (creation, grad_fn, output_nr) = {
        let state = meta.state();
        let Some(view) = &state.view else {
            return Ok(());
        };
        (view.creation, state.grad_fn.clone(), state.output_nr)
    };
    let _ = t;
    if creation == CreationMeta::Default {
        return Ok(());
    }
    let modified = if indirect {
        "its base or another view of its base has been"
    } else {
        "is being"
    };
    let mut msg = match (&grad_fn, creation) {
        (Some(node), CreationMeta::MultipleOutputs) => format!(
            "Output {output_nr} of {} is a view and {modified} modified inplace.",
            node.name()
        ),
        (grad_fn, _) => {
            let prefix = match grad_fn {
                Some(node) => format!(
                    "Output {output_nr} of {} is a view of a view which was created in",
                    node.name()
                ),
                None => "A view was created in".to_string(),
            };
            if creation == CreationMeta::InferenceMode {
                format!("{prefix} inference mode and {modified} modified inplace in normal mode.")
            } else {
                format!(
                    "{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
                )
            }
        }
    };
    msg.push_str(match creation {
        CreationMeta::MultipleOutputs => {
            " This view is the output of a function that returns multiple views. Such functions \
             do not allow the output views to be modified inplace. You should replace the \
             inplace operation by an out-of-place one."
        }
        CreationMeta::NoGradMode => {
            " Given that this use case is ambiguous and error-prone, it is forbidden. You can \
             clarify your code by moving both the view and the inplace either both inside the \
             no_grad block (if you don't want the inplace to be tracked) or both outside (if \
             you want the inplace to be tracked)."
        }
        _ => {
            " Given that this use case is ambiguous and error-prone, it is forbidden. You can \
             clarify your code by moving both the view and the inplace either both inside the \
             inference_mode block (if you don't want the inplace to be tracked) or both \
             outside (if you want the inplace to be tracked)."
        }
    });
    Err(AutogradErrorKind::ViewInplace { message: msg }.into())
}

/// Makes `node` (the node of an in-place operation on `t`) part of `t`'s history (PyTorch's
/// `rebase_history`). For a view, the base's history is rewritten: the base gets a
/// `CopySlices` node that routes the gradient of the view's region through `node` and the
/// rest of the base's gradient to the base's old history; the view's `grad_fn` is then
/// replayed on it.
pub(crate) fn rebase_history<T: Tensor>(t: &T, node: Arc<Node<T>>) -> Result<(), Error> {
    let Some(meta) = t.materialize_autograd_meta() else {
        return Ok(());
    };
    let view = meta
        .state()
        .view
        .as_ref()
        .map(|v| (v.base.clone(), v.replay.clone()));
    let Some((base, replay)) = view else {
        set_history(t, &node, 0);
        return Ok(());
    };
    if node.num_inputs() != 1 {
        return Err(Error::from(
            "Functions which modify views in-place must return a single Variable",
        ));
    }
    let mut next_edges: NextEdges<T> = smallvec::smallvec![gradient_edge(&base)?];
    next_edges.extend(node.next_edges().iter().skip(1).cloned());
    let geometry = Geometry::of(&base)?;
    let parts = NodeParts {
        sequence_nr: next_sequence_nr(),
        next_edges,
        arg_edges: None,
        input_meta: smallvec::smallvec![InputMeta::of(&base)],
    };
    let copy_slices = Node::new(
        parts,
        CopySlices {
            geometry,
            replay,
            function: node,
        },
    );
    set_history(&base, &copy_slices, 0);
    try_view_grad_fn(t, meta, true)?;
    Ok(())
}

/// The sizes, strides and options of a tensor, to make one like it.
struct Geometry {
    sizes: Vec<i64>,
    strides: Option<Vec<i64>>,
    options: TensorOptions,
}

impl Geometry {
    fn of<T: Tensor>(t: &T) -> Result<Geometry, Error> {
        Ok(Geometry {
            sizes: t.sizes()?,
            strides: t.strides().ok(),
            options: t.options()?,
        })
    }
}

/// A copy of `src` in a new tensor of `geometry`.
fn copy_into_new<T: Tensor>(geometry: &Geometry, src: &T) -> Result<T, Error> {
    let mut t = T::empty(
        &geometry.sizes,
        geometry.strides.as_deref(),
        &geometry.options,
    )?;
    t.copy_(src)?;
    Ok(t)
}

/// The node of a base whose view was modified in place (PyTorch's `CopySlices`): the
/// gradient of the base, with the view's region replaced by what the in-place operation's
/// backward makes of it.
struct CopySlices<T: Tensor> {
    geometry: Geometry,
    replay: ViewFn<T>,
    function: Arc<Node<T>>,
}

impl<T: Tensor> Backward<T> for CopySlices<T> {
    fn name(&self) -> &'static str {
        "CopySlices"
    }

    fn apply(&mut self, ctx: &mut BackwardContext<'_, T>) -> Result<(), Error> {
        let Some(grad) = ctx.grad(0) else {
            return Ok(());
        };
        let result = copy_into_new(&self.geometry, grad)?;
        let mut grad_slice = {
            let _no_grad = GradModeGuard::new(false);
            (self.replay)(&result)?
        };
        let slice = copy_into_new(&Geometry::of(&grad_slice)?, &grad_slice)?;
        let needed: Vec<bool> = (0..self.function.next_edges().len())
            .map(|i| ctx.needs_edge(i))
            .collect();
        let grads = std::iter::once(Some(slice)).collect();
        let mut inner = BackwardContext::new(&self.function, grads, &needed);
        self.function.function().apply(&mut inner)?;
        let (res, _) = inner.into_outputs();
        for (i, g) in res.into_iter().enumerate() {
            let Some(g) = g.filter(|_| ctx.needs_edge(i)) else {
                continue;
            };
            if i == 0 {
                grad_slice.copy_(&g)?;
                ctx.set_edge(0, Some(result.clone()));
            } else {
                ctx.set_edge(i, Some(g));
            }
        }
        Ok(())
    }

    fn release_saved(&mut self) {
        self.function.release_saved();
    }
}
