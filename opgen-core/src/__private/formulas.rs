//! What a functional operator with derivative formulas lends its in-place and out variants
//! (torchgen's rule: an in-place or out operator without formulas of its own takes its
//! functional operator's). The attribute of a functional operator with `derivatives(...)`
//! implements these traits on its marker, for the tuple of its arguments; the attribute of
//! an in-place or out operator with `derivatives(functional)` calls them from its Autograd
//! kernel, with its own call below autograd as `forward`.
//!
//! ```text
//! // #[native_function("mul.Tensor(...) -> Tensor", derivatives(self = "...", other = "..."))]
//! impl<'a> InplaceFormulas<(&'a T, &'a T)> for mul { fn inplace(..) { autograd::inplace(..) } }
//! impl<'a> OutFormulas<(&'a T, &'a T)> for mul { fn out(..) { autograd::out(..) } }
//! // #[native_function("mul_.Tensor(...) -> Tensor(a!)", derivatives(functional))]
//! fn __opgen_autograd(ks, self_: &mut T, other: &T) -> Result<&mut T> {
//!     let h = self_.clone();
//!     <mul as InplaceFormulas<_>>::inplace(ks, (&h, other), |ks| <mul_ as Operator>::redispatch(ks, (self_, other)))
//! }
//! ```

use crate::autograd::Input;
use crate::dispatch::{DispatchKeySet, Error, Operator};

/// The Autograd kernel of the in-place variant of a functional operator with formulas, for
/// the functional operator's arguments `A` (`self` shared): the functional operator's backward
/// node, `self` saved as a clone made before the call where a formula reads it (PyTorch's
/// `original_self`), `result` read from `self` after it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` lends no derivative formulas to an in-place operator taking `{A}`",
    label = "`derivatives(functional)` takes the formulas of `{Self}`",
    note = "`derivatives(functional)` needs the functional operator (`{Self}`) to be declared by a \
            `#[native_function]` with `derivatives(...)`, one tensor return, and the arguments of \
            the in-place operator (`self` not written)",
    note = "give `{Self}` its formulas, name the right operator with `derivatives(functional = \
            path::to::op)`, or write this operator's own formulas in `derivatives(...)`"
)]
pub trait InplaceFormulas<A>: Operator {
    /// Runs the in-place operator (`forward`, below autograd) with `args` and records its
    /// history on `self` (the argument named `self`).
    ///
    /// # Errors
    /// PyTorch's in-place checks (a leaf that requires grad, ...), the operator's errors.
    fn inplace<R>(
        ks: DispatchKeySet,
        args: A,
        forward: impl FnOnce(DispatchKeySet) -> Result<R, Error>,
    ) -> Result<R, Error>;
}

/// The Autograd kernel of an out variant of a functional operator with formulas, for the
/// functional operator's arguments `A` (the out variant's arguments before its outs): it
/// refuses differentiable inputs and out arguments that require grad.
#[diagnostic::on_unimplemented(
    message = "`{Self}` lends no derivative formulas to an out operator taking `{A}` before its outs",
    label = "`derivatives(functional)` takes the formulas of `{Self}`",
    note = "`derivatives(functional)` needs the functional operator (`{Self}`) to be declared by a \
            `#[native_function]` with `derivatives(...)` and the arguments of the out operator \
            before its out arguments",
    note = "give `{Self}` its formulas, name the right operator with `derivatives(functional = \
            path::to::op)`, or write this operator's own formulas in `derivatives(...)`"
)]
pub trait OutFormulas<A>: Operator {
    /// Refuses `args`' differentiable inputs and `outs` that require grad, else runs the out
    /// operator (`forward`) below autograd.
    ///
    /// # Errors
    /// "functions with out=... arguments don't support automatic differentiation", the
    /// operator's errors.
    fn out<R>(
        ks: DispatchKeySet,
        args: A,
        outs: &[Input<'_, Self::Tensor>],
        forward: impl FnOnce(DispatchKeySet) -> Result<R, Error>,
    ) -> Result<R, Error>;
}
