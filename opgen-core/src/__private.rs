//! What generated code calls. Outside semver: only `#[native_function]`'s expansion may use
//! these items, and they change with opgen-core's version (the macro and the runtime are
//! locked to the same version).
//!
//! # The items, and how an expansion uses them
//!
//! `#rt` is the runtime path (`::opgen`, or the `crate = ` option). `MyTensor` stands for the
//! user's tensor type and `L` for the tuple of argument *families*: the kernel's parameter
//! types in schema order with every lifetime `'static` (`(&'static MyTensor, &'static
//! MyTensor, #rt::Scalar)`), as [`TypedOperator`] names them.
//!
//! * [`VERSION_0_1_0`]: named once by every expansion (`const _: () =
//!   #rt::__private::VERSION_0_1_0;`), so a macro and a runtime of different versions do not
//!   build together.
//! * [`Registration`] in `REGISTRATIONS`: one `static` per annotated kernel, collected at
//!   link time; [`Dispatcher::global`] registers them all on its first access.
//!
//!   ```text
//!   #[#rt::__private::linkme::distributed_slice(#rt::__private::REGISTRATIONS)]
//!   #[linkme(crate = #rt::__private::linkme)]
//!   static __OPGEN_REGISTRATION: #rt::__private::Registration = #rt::__private::Registration {
//!       namespace: "aten",
//!       schema: ::core::option::Option::Some("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"),
//!       name: "add.Tensor",
//!       keys: &[#rt::dispatch::DispatchKey::CPU],
//!       file: ::core::file!(),
//!       line: ::core::line!(),
//!       site: ::core::panic::Location::caller(),
//!       register: __opgen_register,
//!       variants: ::core::option::Option::Some(#rt::native::Variants { function: true, method: true }),
//!       device: ::core::option::Option::Some(#rt::dispatch::DeviceChecks::DEFAULT),
//!       backend_select: ::core::option::Option::None, // `Some(fn)` for factories
//!   };
//!   fn __opgen_register(
//!       lib: &#rt::dispatch::Library,
//!       key: #rt::dispatch::DispatchKey,
//!       site: #rt::dispatch::Site,
//!   ) -> ::core::result::Result<#rt::dispatch::Registration, #rt::dispatch::Error> {
//!       lib.impl_at("add.Tensor", key, add_cpu, site) // the kernel only, never a `def`
//!   }
//!   ```
//!
//! * [`Redispatch`], [`backend_select_keys`], [`register_kernel`]: the generated
//!   `BackendSelect` kernel of a factory (`backend_select` above), a closure registered by
//!   `register_kernel::<MyTensor, _, _>(lib, "zeros", DispatchKey::BackendSelect, ..)` that
//!   computes its key set with `backend_select_keys` and redispatches through a
//!   `Redispatch` of the library's dispatcher.
//! * [`check_same_device`], [`TensorArg`], [`DeviceGuard`], [`kernel_result`]: the hidden
//!   wrapper registered instead of a kernel at device-guarded keys (`CUDA`, `XPU`, ...).
//! * [`Op`]: one `static` per operator holding its cached typed handles, an [`OnceOp`]
//!   (looked up once for the life of the program) and a [`StaticOp`] (the static-dispatch
//!   mode, the user crate's feature `opgen-static-dispatch`). The generated functions call
//!   it through one hidden function, and the redispatch forms directly:
//!
//!   ```text
//!   static __OPGEN_OP_ADD: #rt::__private::Op<MyTensor, L, MyTensor> =
//!       #rt::__private::Op::new("aten::add", "Tensor");
//!   #[allow(unexpected_cfgs)]
//!   fn __opgen_call_add(self_: &MyTensor, other: &MyTensor, alpha: #rt::dispatch::Scalar)
//!       -> ::core::result::Result<MyTensor, #rt::dispatch::Error> {
//!       __OPGEN_OP_ADD.try_call(::core::cfg!(feature = "opgen-static-dispatch"), self_, other, alpha)
//!   }
//!   // try_ forms: __opgen_call_add(self_, other, alpha)
//!   // plain forms (panic with the error's message, at the caller's location):
//!   #rt::__private::panic_on_error(try_add(self_, other))
//!   // redispatch forms:
//!   __OPGEN_OP_ADD.try_redispatch(keys, self_, other, alpha)
//!   ```
//!
//!   [`Op::try_call`] (one method per arity) takes the feature as a constant flag, so that
//!   each generated function has one call to type-check. The feature is tested with `cfg!`
//!   in the body under `#[allow(unexpected_cfgs)]`: a
//!   `#[cfg(feature = "opgen-static-dispatch")]` attribute warns (`unexpected_cfgs`) in every
//!   crate that does not declare the feature, and no `allow` on the item itself silences
//!   it. Redispatch always goes through the dispatcher.
//!
//!   A static call computes the union of the key sets of its tensor arguments (no
//!   thread-local keys, no autograd) and, for an operator with TensorOptions, the backend
//!   key of its dtype, layout and device ([`Op::try_call_with_options`], which the hidden
//!   function calls instead of [`Op::try_call`]), takes its highest backend key, and calls the kernel
//!   linked for that key; without one, the first composite kernel of
//!   `CompositeExplicitAutograd`, `CompositeExplicitAutogradNonFunctional`,
//!   `CompositeImplicitAutograd`, `CompositeImplicitAutogradNestedTensor`; else the error
//!   "Static dispatch does not support aten::add.Tensor for Meta. ...". The
//!   choice is computed once per operator, on the first call, from `REGISTRATIONS` and
//!   `DEFERRED` (the entries of the operator's group, its namespace's operators with its
//!   base name, are registered into a private dispatcher as the global one registers them,
//!   structured delegates and derived wrappers included, and the kernels are taken from
//!   it): kernels registered at run time with a `Library` are not seen.

use std::fmt;
use std::sync::OnceLock;

use crate::dispatch::{
    ArgFamily, ArgList, Device, DispatchKey, DispatchKeySet, Dispatcher, Error, Kernel,
    KernelOutput, Layout, LazyTypedOperator, Library, RetValue, ScalarType, Site, Tensor,
    TypedOperator, for_each_arity,
};
use crate::native::Variants;

pub use crate::dispatch::device::{
    DeviceArg, DevicePlan, TensorArg, backend_select_keys, check_same_device,
};
pub use crate::dispatch::static_dispatch::{StaticOp, StaticOperator};
pub use crate::dispatch::{DeviceChecks, DeviceGuard};
pub use linkme;

/// Exists only in opgen-core 0.1.0; every expansion names it, so a macro crate of another
/// version fails to build against this runtime.
pub const VERSION_0_1_0: () = ();

/// One annotated kernel (or schema), as collected at link time in `REGISTRATIONS`.
///
/// `site` is a field of its own because a [`Site`] (`&'static Location<'static>`) cannot be
/// made from `file` and `line` on stable Rust; the expansion writes
/// `::core::panic::Location::caller()`, which in a `static`'s initializer is the location of
/// the macro's invocation. `file` and `line` are the same place, kept for messages.
pub struct Registration {
    /// The operator's namespace (`aten`).
    pub namespace: &'static str,
    /// The schema text to `def` (forms 1 and 3; with or without the namespace prefix);
    /// `None` for a kernel of an operator defined elsewhere (`op = `).
    pub schema: Option<&'static str>,
    /// The operator's full name without namespace (`add.Tensor`; `relu` without overload).
    pub name: &'static str,
    /// The keys the kernel is registered at (empty: a `def` without kernel).
    pub keys: &'static [DispatchKey],
    /// `file!()` of the annotated item.
    pub file: &'static str,
    /// `line!()` of the annotated item.
    pub line: u32,
    /// The registration site shown in the dispatcher's messages.
    pub site: Site,
    /// Registers the kernel at one key (`Library::impl_at`); never `def`s, which the caller
    /// does from `schema`.
    pub register: fn(&Library, DispatchKey, Site) -> Result<crate::dispatch::Registration, Error>,
    /// The operator's variants, recorded with its `def` (`Library::def_with_variants`) for
    /// the runtime catalog; `None` for a kernel of an operator defined elsewhere.
    pub variants: Option<Variants>,
    /// The operator's device check and guard, recorded with its `def`
    /// (`Library::def_native_at`) for the kernels attached to it by `op = ` at
    /// device-guarded keys; `None` for a kernel of an operator defined elsewhere.
    pub device: Option<DeviceChecks>,
    /// Registers the operator's generated `BackendSelect` kernel (schemas with
    /// TensorOptions, except `*_like` and `new_*`: SCHEMA.md §5.9), right after the `def`s
    /// and before the kernels, so that a kernel the user registers at `BackendSelect`
    /// shadows it.
    pub backend_select: Option<BackendSelectFn>,
}

/// The `register` of a [`Registration`] without kernel (its `keys` are empty, so it is
/// never called): the operators `include_native_functions!` declares.
///
/// # Errors
///
/// Always: there is no kernel to register.
pub fn no_kernel(
    _: &Library,
    key: DispatchKey,
    _: Site,
) -> Result<crate::dispatch::Registration, Error> {
    Err(Error::internal(format!(
        "no kernel to register at `{key}`: this operator is only declared"
    )))
}

/// Registers a generated `BackendSelect` kernel with a library of the operator's namespace.
pub type BackendSelectFn = fn(&Library, Site) -> Result<crate::dispatch::Registration, Error>;

impl Registration {
    /// `ns::name`: the operator as the dispatcher names it.
    pub fn operator(&self) -> String {
        format!("{}::{}", self.namespace, self.name)
    }
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registration")
            .field("operator", &self.operator())
            .field("schema", &self.schema)
            .field("keys", &self.keys)
            .field("site", &format_args!("{}:{}", self.file, self.line))
            .finish()
    }
}

/// Every [`Registration`] of every crate linked into the program.
#[linkme::distributed_slice]
pub static REGISTRATIONS: [Registration];

/// A registration that needs every kernel of the program first: the kernels of a
/// structured delegate, at the keys where its out operator has impls.
/// [`Dispatcher::global`] runs these after all [`REGISTRATIONS`], then derives the
/// wrappers of `opgen_core::structured::derive_wrappers`.
pub struct Deferred {
    /// The operator's namespace (`aten`).
    pub namespace: &'static str,
    /// The operator's full name without namespace (`add.Tensor`).
    pub name: &'static str,
    /// `file!()` of the annotated item.
    pub file: &'static str,
    /// `line!()` of the annotated item.
    pub line: u32,
    /// The registration site shown in the dispatcher's messages.
    pub site: Site,
    /// Registers the kernels with a library of the namespace.
    pub register: fn(&Library, Site) -> Result<Vec<crate::dispatch::Registration>, Error>,
}

impl fmt::Debug for Deferred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deferred")
            .field(
                "operator",
                &format_args!("{}::{}", self.namespace, self.name),
            )
            .field("site", &format_args!("{}:{}", self.file, self.line))
            .finish()
    }
}

/// Every [`Deferred`] registration of every crate linked into the program.
#[linkme::distributed_slice]
pub static DEFERRED: [Deferred];

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

/// Requires a structured marker: generated with the span of the `op` or
/// `structured_delegate` literal, so that a marker that is not one is reported there.
pub const fn assert_structured<S: crate::structured::StructuredOp>() {}

/// A typed handle of an operator of the global dispatcher, looked up on the first successful
/// [`OnceOp::get`] and kept for the life of the program. A failed lookup is not cached, so
/// an operator registered later is found later.
pub struct OnceOp<T, L, R> {
    name: &'static str,
    overload: &'static str,
    cell: OnceLock<TypedOperator<T, L, R>>,
}

impl<T, L, R> OnceOp<T, L, R> {
    /// The operator `name` (`aten::add`) with overload `overload` (`Tensor`; `""` for none).
    pub const fn new(name: &'static str, overload: &'static str) -> Self {
        OnceOp {
            name,
            overload,
            cell: OnceLock::new(),
        }
    }
}

impl<T: Tensor, L: ArgList<T>, R: RetValue<T>> OnceOp<T, L, R> {
    /// The typed handle: after the first success, one atomic load.
    #[inline]
    pub fn get(&'static self) -> Result<&'static TypedOperator<T, L, R>, Error> {
        match self.cell.get() {
            Some(op) => Ok(op),
            None => self.init(),
        }
    }

    #[cold]
    #[inline(never)]
    fn init(&'static self) -> Result<&'static TypedOperator<T, L, R>, Error> {
        let op = Dispatcher::global()
            .find(self.name, self.overload)?
            .typed_families::<T, L, R>()?;
        Ok(self.cell.get_or_init(|| op))
    }
}

impl<T, L, R> fmt::Debug for OnceOp<T, L, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OnceOp({}.{})", self.name, self.overload)
    }
}

/// The value, or a panic with the error's message at the caller's location: what the plain
/// (non-`try_`) generated functions do, as PyTorch raises.
#[track_caller]
#[inline]
pub fn panic_on_error<V>(result: Result<V, Error>) -> V {
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

/// An [`OnceOp`] and a [`StaticOp`] of the same operator in one `static`: what an expansion
/// holds per operator, so that it names the operator's types and name once. The public
/// forms call [`Op::get`] or, with the user crate's feature `opgen-static-dispatch` (tested
/// with `cfg!` in the body), [`Op::get_static`]; the redispatch forms always [`Op::get`].
pub struct Op<T, L, R> {
    once: OnceOp<T, L, R>,
    static_op: StaticOp<T, L, R>,
}

impl<T, L, R> Op<T, L, R> {
    /// The operator `name` (`aten::add`) with overload `overload` (`Tensor`; `""` for none).
    pub const fn new(name: &'static str, overload: &'static str) -> Self {
        Op {
            once: OnceOp::new(name, overload),
            static_op: StaticOp::new(name, overload),
        }
    }
}

impl<T: Tensor, L: ArgList<T>, R: RetValue<T>> Op<T, L, R> {
    /// The typed handle of the global dispatcher ([`OnceOp::get`]).
    #[inline]
    pub fn get(&'static self) -> Result<&'static TypedOperator<T, L, R>, Error> {
        self.once.get()
    }

    /// The static-dispatch handle ([`StaticOp::get`]).
    #[inline]
    pub fn get_static(&'static self) -> Result<&'static StaticOperator<T, L, R>, Error> {
        self.static_op.get()
    }
}

/// The calls of an [`Op`], one method per arity: what the generated functions call, so that
/// each names the operator's types once (one method call to type-check per generated
/// function, rather than a lookup, a `?` and a call, twice with static dispatch).
macro_rules! op_calls {
    ($(($A:ident $F:ident $a:ident $v:ident $i:tt))*) => {
        // With no arguments, `'a` is unused.
        #[allow(clippy::too_many_arguments, clippy::extra_unused_lifetimes)]
        impl<T: Tensor, R: RetValue<T>, $($F: ArgFamily<T>),*> Op<T, ($($F,)*), R> {
            /// Calls the operator: through the global dispatcher, or, when `static_dispatch`
            /// (the user crate's feature `opgen-static-dispatch`, a constant), the kernel
            /// linked for the arguments' backend.
            #[inline]
            pub fn try_call<'a>(
                &'static self,
                static_dispatch: bool,
                $($a: $F::Arg<'a>),*
            ) -> Result<R, Error> {
                if static_dispatch {
                    self.get_static()?.try_call($($a),*)
                } else {
                    self.get()?.try_call($($a),*)
                }
            }

            /// [`Self::try_call`] for an operator with TensorOptions (`dtype`, `layout`,
            /// `device` are among the arguments too): with static dispatch, the backend
            /// key of the three joins the arguments' keys, as torchgen's static dispatch
            /// computes it, so `zeros(.., device=meta)` reaches the Meta kernel; through
            /// the dispatcher, the operator's `BackendSelect` kernel does the same.
            #[inline]
            pub fn try_call_with_options<'a>(
                &'static self,
                static_dispatch: bool,
                options: (Option<ScalarType>, Option<Layout>, Option<Device>),
                $($a: $F::Arg<'a>),*
            ) -> Result<R, Error> {
                if static_dispatch {
                    let op = self.get_static()?;
                    let (dtype, layout, device) = options;
                    let ks = backend_select_keys(
                        op.name(), DispatchKeySet::EMPTY, false, dtype, layout, device,
                    )?;
                    op.try_call_keyed(ks, $($a),*)
                } else {
                    self.get()?.try_call($($a),*)
                }
            }

            /// Redispatches with the key set given (always through the global dispatcher).
            #[inline]
            pub fn try_redispatch<'a>(
                &'static self,
                ks: DispatchKeySet,
                $($a: $F::Arg<'a>),*
            ) -> Result<R, Error> {
                self.get()?.try_redispatch(ks, $($a),*)
            }
        }
    };
}

for_each_arity!(op_calls);

impl<T, L, R> fmt::Debug for Op<T, L, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.once.fmt(f)
    }
}

/// The typed handle a generated `BackendSelect` kernel redispatches through: the operator
/// `name` (`aten::zeros`) / `overload` of `lib`'s dispatcher (not necessarily the global
/// one), held weakly since the kernel lives in that operator's table, and looked up on the
/// kernel's first call (registering thousands of factories at link time looks none up).
pub struct Redispatch<T, L, R>(LazyTypedOperator<T, L, R>);

impl<T: Tensor, L: ArgList<T>, R: RetValue<T>> Redispatch<T, L, R> {
    /// The operator in `lib`'s dispatcher; looked up, and its signature checked, on the
    /// first [`Redispatch::get`].
    ///
    /// # Errors
    ///
    /// None now; the lookup's errors come from [`Redispatch::get`].
    pub fn new(lib: &Library, name: &str, overload: &str) -> Result<Self, Error> {
        Ok(Redispatch(LazyTypedOperator::new(
            &lib.dispatcher(),
            name,
            overload,
        )))
    }

    /// The typed handle, to call `try_redispatch` on.
    #[inline]
    pub fn get(&self) -> Result<TypedOperator<T, L, R>, Error> {
        self.0.get()
    }
}

/// `lib.impl_at(name, key, kernel, site)` with the tensor type named: what a generated
/// kernel whose parameters do not name it (a factory's) is registered with.
pub fn register_kernel<T: Tensor, M, K: Kernel<T, M>>(
    lib: &Library,
    name: &str,
    key: DispatchKey,
    kernel: K,
    site: Site,
) -> Result<crate::dispatch::Registration, Error> {
    lib.impl_at(name, key, kernel, site)
}

/// A kernel's output (`R` or `Result<R, E>`) as `Result<R, Error>`: what a generated wrapper
/// around the kernel returns.
#[inline(always)]
pub fn kernel_result<T: Tensor, M, O: KernelOutput<T, M>>(output: O) -> Result<O::Value, Error> {
    output.into_result()
}
