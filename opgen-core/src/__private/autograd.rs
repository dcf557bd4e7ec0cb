//! What generated Autograd kernels and backward nodes call besides the runtime of
//! `crate::autograd` (`functional`, `inplace`, `out`, `view`, `SavedVariable`): saving lists
//! and values, unpacking them, and turning a formula's value into input gradients.

use std::sync::Arc;

use crate::autograd::{BackwardContext, NoGradGuard, Node, SavedVariable};
use crate::dispatch::{Error, Tensor};

/// A value of a formula as the gradient of one tensor input: a tensor, or an optional one
/// (`None` is zero, PyTorch's undefined tensor).
pub trait IntoGrad<T> {
    /// The gradient.
    fn into_grad(self) -> Option<T>;
}

impl<T: Tensor> IntoGrad<T> for T {
    #[inline]
    fn into_grad(self) -> Option<T> {
        Some(self)
    }
}

impl<T: Tensor> IntoGrad<T> for Option<T> {
    #[inline]
    fn into_grad(self) -> Option<T> {
        self
    }
}

/// A value of a formula as the gradients of a list input, one per tensor of the list.
pub trait IntoGradList<T> {
    /// The gradients.
    fn into_grad_list(self) -> Vec<Option<T>>;
}

impl<T: Tensor> IntoGradList<T> for Vec<T> {
    fn into_grad_list(self) -> Vec<Option<T>> {
        self.into_iter().map(Some).collect()
    }
}

impl<T: Tensor> IntoGradList<T> for Vec<Option<T>> {
    fn into_grad_list(self) -> Vec<Option<T>> {
        self
    }
}

/// Sets the gradient of input `arg` from a formula's value.
#[inline]
pub fn set_grad<T: Tensor>(ctx: &mut BackwardContext<'_, T>, arg: usize, grad: impl IntoGrad<T>) {
    ctx.set(arg, grad.into_grad());
}

/// Sets the gradients of list input `arg` from a formula's value.
#[inline]
pub fn set_grad_list<T: Tensor>(
    ctx: &mut BackwardContext<'_, T>,
    arg: usize,
    grads: impl IntoGradList<T>,
) {
    ctx.set_list(arg, grads.into_grad_list());
}

/// `self` before an in-place operation overwrites it, for a formula that reads it (PyTorch's
/// `original_self = self.clone()`): a copy made by `aten::clone` with grad mode off.
///
/// # Errors
/// The tensor type has no `clone` operator, or it failed.
pub fn original_self<T: Tensor>(t: &T) -> Result<T, Error> {
    let _no_grad = NoGradGuard::new();
    crate::autograd::functions::clone_tensor(t, None)
}

/// Saves a tensor input when `needed`.
#[inline]
pub fn save<T: Tensor>(needed: bool, t: &T) -> SavedVariable<T> {
    if needed {
        SavedVariable::input(t)
    } else {
        SavedVariable::none()
    }
}

/// Saves an optional tensor input when `needed`.
#[inline]
pub fn save_optional<T: Tensor>(needed: bool, t: Option<&T>) -> SavedVariable<T> {
    if needed {
        SavedVariable::optional(t)
    } else {
        SavedVariable::none()
    }
}

/// Saves the original `self` of an in-place operation when `needed`.
///
/// # Errors
/// As [`original_self`].
pub fn save_original<T: Tensor>(needed: bool, t: &T) -> Result<SavedVariable<T>, Error> {
    Ok(if needed {
        SavedVariable::input(&original_self(t)?)
    } else {
        SavedVariable::none()
    })
}

/// Saves a list of tensors when `needed` (empty otherwise).
pub fn save_list<T: Tensor>(needed: bool, ts: &[T]) -> Vec<SavedVariable<T>> {
    if needed {
        ts.iter().map(SavedVariable::input).collect()
    } else {
        Vec::new()
    }
}

/// Saves a list of optional tensors when `needed` (empty otherwise).
pub fn save_optional_list<T: Tensor>(needed: bool, ts: &[Option<T>]) -> Vec<SavedVariable<T>> {
    if needed {
        ts.iter()
            .map(|t| SavedVariable::optional(t.as_ref()))
            .collect()
    } else {
        Vec::new()
    }
}

/// Saves an output of the node when `needed`: output `nr` among its differentiable ones.
#[inline]
pub fn save_output<T: Tensor>(needed: bool, t: &T, nr: u32) -> SavedVariable<T> {
    if needed {
        SavedVariable::output(t, nr)
    } else {
        SavedVariable::none()
    }
}

/// A value computed when `needed`.
///
/// # Errors
/// The computation's.
#[inline]
pub fn save_value<V>(
    needed: bool,
    f: impl FnOnce() -> Result<V, Error>,
) -> Result<Option<V>, Error> {
    if needed { f().map(Some) } else { Ok(None) }
}

/// A saved value, which the formula reading it made the kernel save.
///
/// # Errors
/// It was not saved (an internal error).
#[inline]
pub fn saved<V: Clone>(v: &Option<V>, node: &Arc<Node<impl Tensor>>) -> Result<V, Error> {
    v.clone().ok_or_else(|| not_saved(node.name()))
}

/// The saved tensors of a list.
///
/// # Errors
/// As [`SavedVariable::get`].
pub fn unpack_list<T: Tensor>(
    saved: &[SavedVariable<T>],
    node: &Arc<Node<T>>,
) -> Result<Vec<T>, Error> {
    saved.iter().map(|s| s.get(node)).collect()
}

/// The saved tensors of a list of optional tensors.
///
/// # Errors
/// As [`SavedVariable::unpack`].
pub fn unpack_optional_list<T: Tensor>(
    saved: &[SavedVariable<T>],
    node: &Arc<Node<T>>,
) -> Result<Vec<Option<T>>, Error> {
    saved.iter().map(|s| s.unpack(node)).collect()
}

/// Frees the tensors of a saved list.
pub fn reset_list<T: Tensor>(saved: &mut [SavedVariable<T>]) {
    saved.iter_mut().for_each(SavedVariable::reset);
}

#[cold]
fn not_saved(node: &str) -> Error {
    Error::internal(format!("{node} used a saved value that was not saved"))
}
