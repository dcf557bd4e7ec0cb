//! Autograd: gradients of operators, PyTorch's way (`torch.autograd`).
//!
//! A tensor type takes part by implementing [`Differentiable`] and returning an
//! [`AutogradMeta`] from [`Tensor::autograd_meta`](crate::dispatch::Tensor::autograd_meta).
//! Operators get an Autograd kernel (at an autograd key, typically the `Autograd` alias) that
//! calls [`functional`], [`inplace`], [`out`] or [`view`] with a backward function
//! ([`Backward`]) that holds what its formulas use ([`SavedVariable`]). While grad mode is on
//! ([`is_grad_enabled`], [`NoGradGuard`]) and an input requires grad, each call records a
//! [`Node`] in a graph; [`backward`] and [`grad`] run it.
//!
//! | PyTorch | here |
//! |---|---|
//! | `x.requires_grad_()`, `x.grad`, `x.grad_fn`, `x.is_leaf`, `x.retain_grad()`, `x.register_hook(f)` | [`AutogradTensor`] methods |
//! | `torch.autograd.backward`, `y.backward()` | [`backward`] |
//! | `torch.autograd.grad` | [`grad`] |
//! | `torch.no_grad()`, `torch.enable_grad()`, `torch.inference_mode()` | [`NoGradGuard`], [`EnableGradGuard`], [`InferenceModeGuard`] |
//! | `VariableType` kernels | [`functional`], [`inplace`], [`out`], [`view`] |
//! | generated `Node`s (`MulBackward0`) | a [`Backward`] implementation |
//! | `SavedVariable` | [`SavedVariable`] |
//! | `AccumulateGrad`, `CopySlices` | the same names, made by the runtime |
//!
//! # Types that do not opt in
//!
//! [`Tensor::autograd_meta`](crate::dispatch::Tensor::autograd_meta)'s default returns
//! `None`: such tensors never require grad, and an Autograd kernel called with them runs the
//! operator below autograd after one thread-local read.
//!
//! # The engine
//!
//! As PyTorch's: dependencies are counted over the graph reachable from the outputs; a node
//! runs when every gradient it waits for has arrived (several arriving at one input are
//! summed with [`Differentiable::accumulate`]); among ready nodes, the one created last runs
//! first (leaf accumulators before anything else). Without `retain_graph`, each node frees
//! its saved values after it ran. Backward runs on the calling thread, in grad mode
//! `create_graph`.
//!
//! # In-place operations on views
//!
//! A view made by a [`view`] kernel remembers its base and how to replay it. An in-place
//! operation on a view whose base requires grad (or with an input that does) rewrites the
//! base's history as PyTorch's `CopySlices` does: the base's gradient flows to its old
//! history except in the view's region, which goes through the in-place operation's backward;
//! the view's `grad_fn` becomes the view replayed on the base. This needs the tensor type's
//! `sizes`, `strides`, `options`, `empty`, `copy_` (writing through views) and
//! `version`/`bump_version` hooks. Views made in no-grad mode or as one of several outputs may
//! not be modified in place while grad mode is on (PyTorch's errors).

mod api;
mod engine;
mod error;
pub mod functions;
mod grad_mode;
mod kernel;
mod meta;
mod node;
mod outputs;
mod saved;
mod view;

#[cfg(test)]
pub(crate) mod tests;

pub use api::{backward, grad};
pub use error::{AutogradError, AutogradErrorKind, ERR_BACKWARD_TWICE, as_autograd_error};
pub use grad_mode::{
    EnableGradGuard, GradModeGuard, INFERENCE_EXCLUDED, InferenceModeGuard, NoGradGuard,
    is_grad_enabled, is_inference_mode_enabled, set_grad_enabled,
};
pub use kernel::{
    AutogradOp, Input, any_requires_grad, below_autograd, check_inplace, check_no_requires_grad,
    functional, inplace, not_implemented, out, view,
};
pub use meta::{
    AutogradMeta, AutogradTensor, Differentiable, is_differentiable_type, requires_grad,
};
pub use node::{
    Backward, BackwardContext, Edge, GradHook, InputMeta, Node, NodeParts, PostHook, PreHook,
};
pub use outputs::{OutputElem, Outputs};
pub use saved::SavedVariable;
pub use view::{CreationMeta, ViewFn};
