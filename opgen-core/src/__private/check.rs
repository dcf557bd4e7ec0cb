//! Compile-time checks of a kernel attached to an operator by path (`op = aten::add`, the
//! operator's marker): each parameter's type against the operator's argument at its place,
//! the number of parameters, the return type. The expansion calls these with the user's
//! types spanned where they are written, so a mismatch is an error at the kernel's
//! parameter, in opgen's words.

use crate::dispatch::{ArgFamily, Error, KernelArg, Operator, RetValue, Tensor, for_each_arity};

/// The argument family at position `I` of a tuple of families; positions past the end are
/// [`NoArgumentHere`]: an extra parameter is reported there ([`IsArgument`]), a missing one
/// by [`check_arity`], each once.
pub trait ArgAt<const I: usize> {
    /// The family at `I`.
    type Family;
}

/// Stands for the family of a position past the operator's arguments.
pub struct NoArgumentHere;

/// A position that holds an argument of the operator (not [`NoArgumentHere`]).
#[diagnostic::on_unimplemented(
    message = "the operator has no argument at the place of this parameter",
    label = "the operator's arguments end before this parameter",
    note = "the kernel's parameters are the operator's arguments in schema order (after an \
            optional first `DispatchKeySet`); remove this parameter"
)]
pub trait IsArgument<T> {}

impl<T: Tensor, F: ArgFamily<T>> IsArgument<T> for F {}

/// The family a parameter `U` is compared with at a position: the argument's there, and
/// `U`'s own past the operator's arguments, where [`IsArgument`] reports the parameter
/// (once).
pub trait Compared<T, U> {
    /// The family.
    type Family;
}

impl<T: Tensor, F: ArgFamily<T>, U> Compared<T, U> for F {
    type Family = F;
}

impl<T: Tensor, U: KernelArg<T>> Compared<T, U> for NoArgumentHere {
    type Family = U::Family;
}

/// A kernel parameter type `Self` fitting an argument of family `F` (tensor type `T`).
#[diagnostic::on_unimplemented(
    message = "the kernel's parameter `{Self}` does not fit the operator's argument at its place, whose Rust type is `{F}`",
    label = "expected the Rust type of `{F}` (with any lifetime)",
    note = "the kernel's parameters are the operator's arguments in schema order, with the Rust \
            types of the mapping table of `opgen::dispatch`"
)]
pub trait ParamFits<T, F> {}

// The family is compared in a where clause, not in the impl's header: a mismatch is then
// this trait's unmet bound (its message), not a type mismatch of a projection.
impl<T: Tensor, U: KernelArg<T>, F> ParamFits<T, F> for U where U::Family: SameFamily<F> {}

/// `Self` is `F`.
pub trait SameFamily<F> {}

impl<F> SameFamily<F> for F {}

/// The family past the last of `Args` (a tuple of argument families), whose position `N`
/// is the number of a kernel's parameters: the kernel has a parameter for each argument.
#[diagnostic::on_unimplemented(
    message = "the kernel has {N} parameters, but the operator's arguments have the Rust types `{Args}`",
    label = "expected one parameter per argument of the operator",
    note = "a first `DispatchKeySet` parameter is not counted"
)]
pub trait Arity<Args, const N: usize> {}

#[diagnostic::do_not_recommend]
impl<Args, const N: usize> Arity<Args, N> for NoArgumentHere {}

/// A kernel return type `Self` fitting returns `R`: `R` itself, or `Result<R, E>`.
#[diagnostic::on_unimplemented(
    message = "the kernel returns `{Self}`, but the operator returns `{R}`",
    label = "expected `{R}`, or a `Result` of it",
    note = "a kernel of an operator defined elsewhere returns the operator's returns"
)]
pub trait ReturnFits<T, R> {}

#[diagnostic::do_not_recommend]
impl<T: Tensor, R: RetValue<T>> ReturnFits<T, R> for R {}
#[diagnostic::do_not_recommend]
impl<T: Tensor, R: RetValue<T>, E: Into<Error>> ReturnFits<T, R> for Result<R, E> {}

/// Checks kernel parameter `U` against argument `I` of `O` (that there is one, and that
/// `U` fits it).
pub const fn check_param<O: Operator, U, const I: usize>()
where
    O::Args: ArgAt<I>,
    <O::Args as ArgAt<I>>::Family: IsArgument<O::Tensor> + Compared<O::Tensor, U>,
    U: ParamFits<O::Tensor, <<O::Args as ArgAt<I>>::Family as Compared<O::Tensor, U>>::Family>,
{
}

/// Checks that a kernel of `N` parameters has one for every argument of `O` (one too many
/// is [`check_param`]'s error, at that parameter).
pub const fn check_arity<O: Operator, const N: usize>()
where
    O::Args: ArgAt<N>,
    <O::Args as ArgAt<N>>::Family: Arity<O::Args, N>,
{
}

/// Checks a kernel's return type `R` against `O`'s returns.
pub const fn check_return<O: Operator, R>()
where
    R: ReturnFits<O::Tensor, O::Returns>,
{
}

/// `ArgAt<i>` of a tuple of the families `all`: `idx` counts the positions placed so far,
/// `rest` the families still to place; then every position past the end up to 24 (one
/// marker `x` per position left) is `NoArgumentHere`.
macro_rules! arg_at {
    ([$($all:ident)*] [$($idx:tt)*] [$F:ident $($rest:ident)*] [$x:tt $($xs:tt)*]) => {
        impl<$($all),*> ArgAt<{ 0 $(+ (1 + 0 * $idx))* }> for ($($all,)*) {
            type Family = $F;
        }
        arg_at!([$($all)*] [$($idx)* 0] [$($rest)*] [$($xs)*]);
    };
    ([$($all:ident)*] [$($idx:tt)*] [] [$x:tt $($xs:tt)*]) => {
        impl<$($all),*> ArgAt<{ 0 $(+ (1 + 0 * $idx))* }> for ($($all,)*) {
            type Family = NoArgumentHere;
        }
        arg_at!([$($all)*] [$($idx)* 0] [] [$($xs)*]);
    };
    ([$($all:ident)*] [$($idx:tt)*] [] []) => {};
}

macro_rules! tuples {
    ($(($A:ident $F:ident $a:ident $v:ident $i:tt))*) => {
        arg_at!([$($F)*] [] [$($F)*] [x x x x x x x x x x x x x x x x x x x x x x x x x]);
    };
}

for_each_arity!(tuples);
