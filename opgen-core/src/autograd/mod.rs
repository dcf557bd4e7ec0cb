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
//! | custom `autograd::Function`s (`Function<T>::apply`, `ctx`) | [`apply_function`], [`FunctionCtx`] |
//! | `SavedVariable` | [`SavedVariable`] |
//! | `AccumulateGrad`, `CopySlices` | the same names, made by the runtime |
//!
//! ```
//! use std::sync::Arc;
//! use opgen_core::autograd::*;
//! use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Error, Tensor};
//!
//! /// A number that takes part in autograd.
//! #[derive(Clone)]
//! struct Num(Arc<(f64, AutogradMeta<Num>)>);
//! impl Num {
//!     fn new(x: f64) -> Num { Num(Arc::new((x, AutogradMeta::new()))) }
//!     fn get(&self) -> f64 { self.0.0 }
//! }
//! impl Tensor for Num {
//!     fn key_set(&self) -> DispatchKeySet {
//!         DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU])
//!     }
//!     fn sizes(&self) -> Result<Vec<i64>, Error> { Ok(vec![]) }
//!     fn autograd_meta(&self) -> Option<&AutogradMeta<Self>> { Some(&self.0.1) }
//! }
//! impl Differentiable for Num {
//!     fn detach(&self) -> Result<Num, Error> { Ok(Num::new(self.get())) }
//!     fn ones_like(&self) -> Result<Num, Error> { Ok(Num::new(1.0)) }
//!     fn zeros_like(&self) -> Result<Num, Error> { Ok(Num::new(0.0)) }
//!     fn accumulate(&self, o: &Num) -> Result<Num, Error> { Ok(Num::new(self.get() + o.get())) }
//!     fn sum_to(&self, _: &[i64]) -> Result<Num, Error> { Ok(self.clone()) }
//! }
//!
//! /// `mul`'s backward: `self: grad * other`, `other: grad * self`.
//! struct MulBackward { a: SavedVariable<Num>, b: SavedVariable<Num> }
//! impl Backward<Num> for MulBackward {
//!     fn name(&self) -> &'static str { "MulBackward0" }
//!     fn apply(&mut self, ctx: &mut BackwardContext<'_, Num>) -> Result<(), Error> {
//!         let Some(g) = ctx.grad(0).map(Num::get) else { return Ok(()) };
//!         if ctx.needs(0) { ctx.set(0, Some(Num::new(g * self.b.get(ctx.node())?.get()))); }
//!         if ctx.needs(1) { ctx.set(1, Some(Num::new(g * self.a.get(ctx.node())?.get()))); }
//!         Ok(())
//!     }
//! }
//!
//! /// The Autograd kernel of `mul` (the forward is computed in place of a redispatch).
//! fn mul(a: &Num, b: &Num) -> Result<Num, Error> {
//!     static MUL: AutogradOp = AutogradOp::new("mul");
//!     let ks = DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]);
//!     let save = |mask: &[bool]| Ok(MulBackward {
//!         a: if mask[1] { SavedVariable::input(a) } else { SavedVariable::none() },
//!         b: if mask[0] { SavedVariable::input(b) } else { SavedVariable::none() },
//!     });
//!     functional(ks, &MUL, &[a.into(), b.into()], save, |_| Ok(Num::new(a.get() * b.get())), |_, _| Ok(()))
//! }
//!
//! let (x, w) = (Num::new(3.0), Num::new(4.0));
//! x.set_requires_grad(true)?;
//! let y = mul(&mul(&x, &w)?, &x)?; // x² w
//! assert_eq!(y.grad_fn().map(|n| n.name()), Some("MulBackward0"));
//! let dx = grad(&[y.clone()], &[x.clone()], &[], Some(true), false, false)?;
//! assert_eq!(dx[0].as_ref().map(Num::get), Some(24.0)); // 2xw
//! backward(&[y], &[], None, false)?;
//! assert_eq!(x.grad().map(|g| g.get()), Some(24.0));
//! assert!(w.grad().is_none()); // w does not require grad
//! {
//!     let _no_grad = NoGradGuard::new();
//!     assert!(!mul(&x, &w)?.requires_grad());
//! }
//! # Ok::<(), Error>(())
//! ```
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
mod function;
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
pub use function::{FunctionCtx, apply_function};
pub use grad_mode::{
    EnableGradGuard, GradModeGuard, INFERENCE_EXCLUDED, InferenceModeGuard, NoGradGuard,
    bump_version, check_inplace_update, is_grad_enabled, is_inference_mode_enabled,
    set_grad_enabled,
};
pub use kernel::{
    AutogradOp, Input, any_requires_grad, below_autograd, check_inplace, check_no_requires_grad,
    functional, inplace, not_implemented, out, view,
};
pub use meta::{
    AutogradMeta, AutogradTensor, Differentiable, is_differentiable_type, requires_grad,
};
pub use node::{
    Backward, BackwardContext, Edge, GradHook, InputMeta, InputMetas, NextEdges, Node, NodeParts,
    PostHook, PreHook, RemovableHandle,
};
pub use outputs::{OutputElem, Outputs};
pub use saved::SavedVariable;
pub(crate) use view::record_inference_view;
pub use view::{CreationMeta, ViewFn};
