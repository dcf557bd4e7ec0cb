//! What generated code calls. Outside semver: only the expansions of `#[native_function]`
//! and `include_native_functions!` may use these items, and they change with opgen-core's
//! version (the macros and the runtime are locked to the same version).
//!
//! An expansion is declarations and calls of these functions; it holds no logic of its own.
//! `#rt` is the runtime path (`::opgen`, or the `crate = ` option); `add` is an operator's
//! marker (`dispatch::Operator`), named as its free function.
//!
//! * [`LinkEntry`] in `LINK_ENTRIES_0_1_0` (and [`Deferred`] in `DEFERRED`): the
//!   link-time entries, built by `const` constructors, one group per expansion:
//!
//!   ```text
//!   #[#rt::__private::distributed_slice(#rt::__private::LINK_ENTRIES_0_1_0)]
//!   #[linkme(crate = #rt::__private::linkme)]
//!   static __OPGEN_LINK: #rt::__private::require_version!("0.1.0") = &[
//!       #rt::__private::LinkEntry::def("aten::add.Tensor(Tensor self, ...) -> Tensor")
//!           .variants(true, true)
//!           .with_kernel(&[#rt::DispatchKey::CPU], |lib, key, site| lib.impl_of::<add, _>(key, add_cpu, site)),
//!   ];
//!   ```
//!
//!   `Dispatcher::global()` registers every entry on its first access. The same group is the
//!   entries of the expansion's table, [`op_table!`](crate::__opgen_op_table)`(__OPGEN_TABLE,
//!   __OPGEN_LINK, 1)`, with one cache per entry and the crate's static-dispatch setting;
//!   each marker's `impl Operator` names the table and its entry's index
//!   (`type Table = __OPGEN_TABLE; const INDEX: usize = 0;`) and reads its schema there. The group's type is
//!   [`require_version!`](crate::__opgen_require_version)`("0.1.0")` (the macros'
//!   version): against a runtime of another version that is one error naming both versions
//!   and the fix. The slice's name carries the version too and every expansion names it,
//!   the hard lock (``cannot find macro `LINK_ENTRIES_0_1_0` ``).
//! * [`impl_kernel`], [`impl_kernel_of`], [`impl_named_of`]: register a kernel at a key,
//!   inside the device check and guard of its operator at device-guarded keys;
//!   [`backend_select`]: an operator's generated `BackendSelect` kernel.
//! * [`call`]: what every generated function ends in,
//!   `call::<add, MyTensor, _, _>((self_, other, alpha))`
//!   (the operator's cached typed handle; with the user crate's feature
//!   `opgen-static-dispatch`, the kernel linked for the arguments' backend); and
//!   [`unwrap`], what the plain (non-`try_`) forms wrap it in.
//! * [`check_param`], [`check_arity`], [`check_return`]: the compile-time check of a kernel
//!   attached by path (`op = aten::add`).
//! * [`impl_result`]: what a structured impl's coerced function returns.
//! * [`autograd`]: what generated Autograd kernels and backward nodes call besides the
//!   runtime's `autograd::{functional, inplace, out, view}`; [`formulas`]: what a functional
//!   operator's formulas lend its in-place and out variants.

use crate::dispatch::Error;

pub use linkme;
/// linkme's attribute, as expansions name it (`#[#rt::__private::distributed_slice(..)]`,
/// with `#[linkme(crate = #rt::__private::linkme)]`).
pub use linkme::distributed_slice;

pub mod autograd;
mod check;
pub mod formulas;
mod register;

pub use check::{
    ArgAt, Arity, Compared, IsArgument, NoArgumentHere, ParamFits, ReturnFits, SameFamily,
    check_arity, check_param, check_return,
};
pub use register::{
    ByPath, RegisterByPath, RegisterUnfit, backend_select, impl_kernel, impl_kernel_by_path,
    impl_kernel_of, impl_named_of,
};

/// Calls the operator with marker `O`: every argument in schema order, as one tuple of the
/// kernel parameter types the call site has (`(&MyTensor, &MyTensor, Scalar)`), returning
/// `R`; what the generated functions call, as `call::<add, MyTensor, _, _>((self_, other,
/// alpha))`.
///
/// The signature names no associated type of `O`, so that a call site costs the compiler
/// no normalisation of `O`'s `impl Operator`: the arguments' types are inferred from the
/// tuple and `R` from the caller's return type. `(T, A, R)` is compared with the signature
/// `O` declares (two constants) and checked against the schema when the handle is looked
/// up: a call of another signature is an error value, as
/// [`Operator::call`](crate::dispatch::Operator::call) would be a compile error.
#[inline]
pub fn call<O, T, A, R>(args: A) -> Result<R, Error>
where
    O: crate::dispatch::Operator,
    T: crate::dispatch::Tensor,
    A: crate::dispatch::KernelArgs<T>,
    R: crate::dispatch::RetValue<T>,
{
    O::CACHE.call_as::<O, T, A::Families, R>(args.into_borrowed())
}

pub use crate::dispatch::registry::entry::{
    BackendSelectFn, DEFERRED, Deferred, LINK_ENTRIES, LinkEntry, RegisterFn, link_entries,
};

/// `LINK_ENTRIES` under the name every expansion uses, which exists only in opgen-core
/// 0.1.0: the version lock. A macro crate of another version names another slice, and fails
/// to build against this runtime at its first expansion.
pub use crate::dispatch::registry::entry::LINK_ENTRIES as LINK_ENTRIES_0_1_0;

/// The version check of every expansion: the type of its group of link entries is
/// `require_version!("0.1.0")`, with the version of the macros that expanded it. For this
/// runtime's own version it is `&[LinkEntry]`; for another, one error naming both versions
/// and the fix (the slice name above still fails after it).
#[doc(hidden)]
#[macro_export]
macro_rules! __opgen_require_version {
    ("0.1.0") => {
        &'static [$crate::__private::LinkEntry]
    };
    ($macros:literal) => {
        ::core::compile_error!(::core::concat!(
            "this code was expanded by opgen-macros ",
            $macros,
            ", but the opgen runtime (opgen-core) it is compiled with is 0.1.0: use the same \
             version of opgen and opgen-macros (depend on `opgen` alone, which brings its own \
             macros)"
        ))
    };
}

pub use crate::__opgen_require_version as require_version;

/// The table of one expansion ([`OpTable`](crate::dispatch::OpTable)): the hidden type
/// `$table` whose entries are the expansion's link group `$link` (`$n` entries), with one
/// cache per entry and the static-dispatch setting of the crate being compiled (the feature
/// `opgen-static-dispatch`, read where the macro is expanded). Each marker of the expansion
/// names it (`type Table = $table; const INDEX: usize = i;`).
#[doc(hidden)]
#[macro_export]
macro_rules! __opgen_op_table {
    ($table:ident, $link:ident, $n:literal) => {
        pub struct $table;
        #[allow(unexpected_cfgs)]
        impl $crate::dispatch::OpTable for $table {
            const ENTRIES: &'static [$crate::__private::LinkEntry] = $link;
            const CACHES: &'static [$crate::dispatch::OpCache] = {
                static CACHES: [$crate::dispatch::OpCache; $n] =
                    [const { $crate::dispatch::OpCache::new() }; $n];
                &CACHES
            };
            const STATIC_DISPATCH: bool = ::core::cfg!(feature = "opgen-static-dispatch");
        }
    };
}

pub use crate::__opgen_op_table as op_table;

/// The result of a structured impl (`()` or `Result<(), E>`), as the impl's
/// function-pointer type returns it.
#[diagnostic::on_unimplemented(
    message = "a structured impl returns `()` or `Result<(), E>` with `E: Into<opgen::Error>`, not `{Self}`",
    note = "the impl writes into its out arguments; the meta function decides shapes and dtypes"
)]
pub trait ImplResult {
    /// As a `Result`.
    fn into_impl_result(self) -> Result<(), Error>;
}

impl ImplResult for () {
    #[inline]
    fn into_impl_result(self) -> Result<(), Error> {
        Ok(())
    }
}

impl<E: Into<Error>> ImplResult for Result<(), E> {
    #[inline]
    fn into_impl_result(self) -> Result<(), Error> {
        self.map_err(Into::into)
    }
}

/// The result of a structured impl as a `Result`: what the coerced impl returns.
#[inline]
pub fn impl_result<R: ImplResult>(result: R) -> Result<(), Error> {
    result.into_impl_result()
}

/// The value, or a panic with the error's message at the caller's location: what the plain
/// (non-`try_`) generated functions do, as PyTorch raises.
#[track_caller]
#[inline]
pub fn unwrap<V>(result: Result<V, Error>) -> V {
    match result {
        Ok(value) => value,
        Err(error) => fail(error),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn fail(error: Error) -> ! {
    panic!("{error}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_version_check_names_this_crates_version() {
        // This runtime's own version passes (another is the ui case `runtime_version_mismatch`).
        let group: crate::__opgen_require_version!("0.1.0") = &[];
        assert!(group.is_empty());
        assert_eq!(
            env!("CARGO_PKG_VERSION"),
            "0.1.0",
            "update the version in `__opgen_require_version!` and `LINK_ENTRIES_0_1_0`"
        );
    }
}
