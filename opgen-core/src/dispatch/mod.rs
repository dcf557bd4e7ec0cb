//! The runtime: dispatch keys, the operator registry and dispatcher, typed and boxed calls.
//!
//! It reproduces PyTorch's c10 dispatcher. Operators are defined from schema strings,
//! kernels are registered per [`DispatchKey`], and each call runs the kernel of the
//! highest-priority key among the keys of its tensor arguments. The tensor type is the
//! user's: anything that implements [`Tensor`].
//!
//! ```
//! use std::sync::Arc;
//! use opgen_core::dispatch::*;
//!
//! #[derive(Clone, Debug)]
//! struct MyTensor(Arc<(DispatchKeySet, f64)>);
//! impl Tensor for MyTensor {
//!     fn key_set(&self) -> DispatchKeySet { self.0.0 }
//! }
//! let cpu = |x: f64| MyTensor(Arc::new((DispatchKey::CPU.into(), x)));
//!
//! let dispatcher = Dispatcher::new(); // or Dispatcher::global()
//! let lib = dispatcher.library("demo")?;
//! let _def = lib.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")?;
//! let _cpu = lib.impl_("add.Tensor", DispatchKey::CPU, move |a: &MyTensor, b: &MyTensor, alpha: Scalar| {
//!     cpu(a.0.1 + alpha.to_f64() * b.0.1)
//! })?;
//!
//! // Typed: checked once, then no lookup, lock or allocation per call.
//! let add = dispatcher.typed::<_, (&MyTensor, &MyTensor, Scalar), MyTensor>("demo::add", "Tensor")?;
//! let (a, b) = (cpu(1.0), cpu(2.0));
//! assert_eq!(add.call(&a, &b, Scalar::Int(2)).0.1, 5.0);
//!
//! // Boxed: arguments on a stack, replaced by the returns.
//! let op = dispatcher.find("demo::add", "Tensor")?;
//! let mut stack = Stack::from(vec![IValue::Tensor(a.clone()), IValue::Tensor(b.clone())]);
//! op.fill_defaults(&mut stack)?; // alpha=1
//! op.call_boxed(&mut stack)?;
//! assert_eq!(stack.pop().and_then(IValue::into_tensor).map(|t| t.0.1), Some(3.0));
//!
//! // Errors are values, worded like PyTorch's.
//! let meta = MyTensor(Arc::new((DispatchKey::Meta.into(), 0.0)));
//! let err = add.try_call(&meta, &meta, Scalar::Int(1)).unwrap_err();
//! assert!(err.to_string().starts_with(
//!     "Could not run 'demo::add.Tensor' with arguments from the 'Meta' backend."
//! ));
//! // Introspection: which registration serves each key, and every registration.
//! assert!(op.dispatch_table().to_string().contains("CPU: kernel "));
//! assert!(op.dump_state().starts_with("name: demo::add.Tensor\n"));
//! # Ok::<(), Error>(())
//! ```
//!
//! # Keys
//!
//! [`DispatchKey`] lists the runtime keys from the lowest priority to the highest:
//!
//! | group | keys | autograd key |
//! |---|---|---|
//! | dense backends | `CPU`, `CUDA`, `MPS`, `XPU`, `HPU`, `MTIA`, `PrivateUse1..3`, `Meta` | `Autograd` + the backend (`AutogradCPU`, ...) |
//! | other backends | `QuantizedCPU/CUDA/Meta`, `MkldnnCPU`, `Sparse{CPU,CUDA,MPS,XPU,Meta}`, `SparseCsr{CPU,CUDA,MPS,XPU,Meta}`, `ZeroTensor` | `AutogradOther` |
//! | nested backends | `NestedTensor{CPU,CUDA,XPU,HPU,Meta}` | `AutogradNestedTensor` |
//! | functionality | `BackendSelect` < `Functionalize` < `ADInplaceOrView` | |
//! | autograd | `AutogradOther` < the per-backend keys < `AutogradNestedTensor` | |
//! | functionality | `Tracer` (highest) | |
//!
//! These cover every backend key `native_functions.yaml` names, plus three user backends.
//! Alias keys are registration targets that stand for several runtime keys
//! ([`DispatchKey::runtime_keys`]):
//!
//! * `Autograd`: every autograd key;
//! * `CompositeImplicitAutograd` (CIA): every backend key except `ZeroTensor`, and every
//!   autograd key;
//! * `CompositeImplicitAutogradNestedTensor`: the `NestedTensor*` keys and
//!   `AutogradNestedTensor`;
//! * `CompositeExplicitAutograd` (CEA): every backend key except `NestedTensor*` and
//!   `ZeroTensor` (as c10's `backend_dispatch_keyset`);
//! * `CompositeExplicitAutogradNonFunctional` (CEANF): the CEA keys except `Sparse*`: the
//!   dense backends, `Quantized*`, `MkldnnCPU` and `SparseCsr*` (c10 also leaves out XLA and
//!   Lazy, which opgen does not have).
//!
//! `ZeroTensor` is a functionality key in c10, served only by its own kernels and fallback;
//! opgen files it with the backends (it maps to `AutogradOther`) but keeps c10's coverage.
//!
//! # Which kernel serves a key
//!
//! For each runtime key K of an operator, the first rule that applies:
//!
//! 1. A kernel registered directly at K.
//! 2. K is a backend key covered by CEANF: the CEANF kernel, if any.
//! 3. K is a backend key covered by CEA: the CEA kernel, if any.
//! 4. The CIA kernel, if any (at the nested keys, a `CompositeImplicitAutogradNestedTensor`
//!    kernel first), for backend and autograd keys, except:
//!    * at an autograd key, CIA is taken only if none of the key's backends has a kernel of
//!      its own (a fallthrough counts) and there is no CEA kernel; otherwise autograd falls
//!      through to the backend kernel. A CEANF kernel does not count here;
//!    * at `AutogradOther`, if a backend that maps to it has a kernel of its own, the entry
//!      is *ambiguous* (even with a CEA kernel): calling it is an error.
//! 5. K is an autograd key: the kernel registered at the `Autograd` alias, if any.
//! 6. The backend fallback registered for K, if any.
//! 7. Nothing: a call that lands on K is an error naming the keys that have kernels.
//!
//! The table is recomputed on every registration and is a pure function of the current
//! registrations: the same registrations in any order give the same table, and dropping a
//! registration gives back the table from before it. [`OperatorHandle::dispatch_table`]
//! shows which registration serves each key.
//!
//! **A second kernel at the same key** (same operator, same key) is allowed: the newest
//! serves while it lives, and dropping it brings back the previous one, as PyTorch's stack of
//! kernels does. As in PyTorch, a kernel that overrides one registered elsewhere is reported
//! with a [`Warning`] ("Overriding a previously registered kernel for the same operator and
//! the same dispatch key", both sites), to standard error unless
//! [`Dispatcher::set_warning_hook`] sends it elsewhere; the program goes on. Only `def`s (one
//! per operator) and fallbacks (one per key) are exclusive.
//!
//! # Fallthrough
//!
//! A fallthrough (a kernel from [`Library::impl_fallthrough`], or a fallback from
//! [`Library::fallback_fallthrough`]) means "skip this key": the call goes to the next key of
//! its key set. It is resolved when the table is built: the table keeps a mask of the keys
//! that are not fallthroughs, and every call intersects its key set with it, so skipping a
//! key costs nothing. Installing a fallthrough fallback for `Autograd` makes operators
//! without autograd kernels callable on tensors that carry an autograd key.
//!
//! # Rust types of schema types
//!
//! Kernels and typed calls take the arguments in schema order, with defaults not filled
//! (the dispatcher signature). `T` is the tensor type.
//!
//! | schema type | Rust parameter type |
//! |---|---|
//! | `Tensor` | `&T` |
//! | `Tensor(a!)` (written) | `&mut T` |
//! | `Tensor?` / `Tensor(a!)?` | `Option<&T>` / `Option<&mut T>` |
//! | `Tensor[]` / `Tensor(a!)[]` | `&[T]` / `&mut [T]` |
//! | `Tensor?[]` | `&[Option<T>]` |
//! | `int`, `SymInt` | `i64` |
//! | `int?`, `SymInt?` | `Option<i64>` |
//! | `int[]`, `int[N]`, `SymInt[]`, `SymInt[N]`, `DimVector` | `&[i64]` |
//! | `int[]?`, `int[N]?`, `SymInt[]?`, `SymInt[N]?` | `Option<&[i64]>` |
//! | `float` / `float?` | `f64` / `Option<f64>` |
//! | `float[]` / `float[]?` | `&[f64]` / `Option<&[f64]>` |
//! | `bool`, `SymBool` / `bool?` | `bool` / `Option<bool>` |
//! | `bool[N]` | `[bool; N]` |
//! | `str` / `str?` | `&str` / `Option<&str>` |
//! | `Scalar` / `Scalar?` / `Scalar[]` | [`Scalar`] / `Option<Scalar>` / `&[Scalar]` |
//! | `ScalarType`, `Layout`, `Device`, `MemoryFormat`, `QScheme` | [`ScalarType`], [`Layout`], [`Device`], [`MemoryFormat`], [`QScheme`] (`T?`: `Option<..>`) |
//! | `DeviceIndex` | `i8` |
//! | `Generator` / `Generator?` | [`Generator`] / `Option<Generator>` |
//! | `Storage`, `Stream` | [`Storage`], [`Stream`] |
//!
//! `GraphModule` and custom classes have no Rust type: such operators take boxed kernels.
//! The table is [`crate::plan::argument_type`] and [`crate::plan::return_type`], which the
//! code generator follows too; a kernel fits when its parameter and return types are the
//! ones they give.
//!
//! | schema returns | Rust return type |
//! |---|---|
//! | `()` | `()` |
//! | `Tensor`, also `Tensor(a!)` | `T` (for a written alias, a clone of the argument's handle) |
//! | `Tensor[]` / `Tensor?` | `Vec<T>` / `Option<T>` |
//! | `int`, `SymInt` / `float` / `bool`, `SymBool` | `i64` / `f64` / `bool` |
//! | `Scalar`, `ScalarType`, `QScheme` | [`Scalar`], [`ScalarType`], [`QScheme`] |
//! | several | a tuple of the above (up to 10) |
//!
//! In boxed calls, values travel as [`IValue`]s: two words each for a one-word tensor handle,
//! with lists, strings and other large payloads behind an `Arc`, and a `Scalar` carried as
//! the number it holds (`Int`, `Float`, `Bool` or `Complex`), as in c10.
//!
//! # Kernels
//!
//! A kernel is any function or closure whose signature fits the schema by these tables
//! (closure parameters need type annotations), with up to [`MAX_ARITY`] arguments:
//!
//! * it may take the call's [`DispatchKeySet`] as an extra first parameter, to redispatch;
//! * it may return `Result<R, E>` with `E: Into<Error>`; the error reaches the caller as a
//!   kernel error naming the operator;
//! * [`boxed`] makes a kernel from a closure over the stack instead; it fits any schema.
//!
//! Registering a kernel whose signature does not fit is an error naming the signature the
//! schema needs. Every kernel is callable both ways: the dispatcher unboxes the stack for a
//! boxed call to an unboxed kernel, and boxes the arguments for a typed call to a boxed one.
//!
//! ```
//! # use opgen_core::dispatch::*;
//! # #[derive(Clone)] struct MyTensor(DispatchKeySet);
//! # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
//! let d = Dispatcher::new();
//! let lib = d.library("demo")?;
//! let _def = lib.def("relu(Tensor self) -> Tensor")?;
//! let relu = d.typed::<_, (&MyTensor,), MyTensor>("demo::relu", "")?;
//! // An autograd kernel that runs the rest of the stack below its key.
//! let inner = relu.clone();
//! let _autograd = lib.impl_("relu", DispatchKey::AutogradCPU, move |ks: DispatchKeySet, t: &MyTensor| {
//!     inner.try_redispatch(ks.below(DispatchKey::AutogradCPU), t)
//! })?;
//! let _cpu = lib.impl_("relu", DispatchKey::CPU, |t: &MyTensor| MyTensor(t.0.add(DispatchKey::Tracer)))?;
//! let t = MyTensor(DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]));
//! assert!(relu.call(&t).0.contains(DispatchKey::Tracer));
//! # Ok::<(), Error>(())
//! ```
//!
//! # When registration takes effect
//!
//! Registrations made with a [`Library`] take effect when the call returns. Kernels annotated
//! with `#[native_function]` are collected at link time, from every crate linked into the
//! program, and registered with [`Dispatcher::global`] on its first access (generated
//! functions make it on their first call), before that access returns: all `def`s first,
//! then every kernel. They stay registered for the life of the program. A registration that
//! cannot take effect (a duplicate `def`, a kernel that does not fit its schema, a kernel for
//! an operator nothing defines) is never silent: `Dispatcher::global` panics listing every
//! one, as PyTorch aborts at start-up, unless the program takes them from
//! [`Dispatcher::try_global`] first. [`Dispatcher::global`] documents the details.
//!
//! A link-time `def` costs little until its operator is used: its schema is parsed, and its
//! table built, when the operator is first looked up, called or given a kernel.
//!
//! # Introspection
//!
//! [`OperatorHandle::dispatch_table`] shows which registration serves each key (PyTorch's
//! `_dispatch_dump_table`), [`OperatorHandle::dump_state`] every registration of the operator
//! (`_dispatch_dump`), with each kernel's site and Rust path, and
//! [`Dispatcher::dangling_impls`] the operators that have kernels but no `def`
//! (`_dispatch_find_dangling_impls`).
//!
//! # Concurrency and memory
//!
//! Registrations, lookups and calls may run on many threads at once. Registration takes the
//! dispatcher's lock; a lookup by name ([`Dispatcher::find`]) takes none (an index read with
//! atomic loads); nor does a call: the operator's table is immutable, published with an
//! atomic store and read with one atomic load. A kernel that a dropped registration removes
//! is dropped after the lock is released, so what it captured (other registrations, a
//! library, values that use the dispatcher when dropped) may use the dispatcher. A superseded table is not freed while the
//! operator exists (freeing it safely would need an atomic read-modify-write per call);
//! a table is a few hundred bytes, and one that equals a recent table is reused, so undoing
//! and redoing registrations does not grow memory. Kernels of dropped registrations are
//! kept alive by those retained tables.

/// Invokes `$m!` once per arity, from 0 to `MAX_ARITY` arguments; each argument is
/// `(KernelArgType Family arg_name stack_slot index)`.
macro_rules! for_each_arity {
    ($m:ident) => {
        for_each_arity!(@next $m []
            (A1 F1 a1 v1 0) (A2 F2 a2 v2 1) (A3 F3 a3 v3 2) (A4 F4 a4 v4 3) (A5 F5 a5 v5 4)
            (A6 F6 a6 v6 5) (A7 F7 a7 v7 6) (A8 F8 a8 v8 7) (A9 F9 a9 v9 8) (A10 F10 a10 v10 9)
            (A11 F11 a11 v11 10) (A12 F12 a12 v12 11) (A13 F13 a13 v13 12) (A14 F14 a14 v14 13)
            (A15 F15 a15 v15 14) (A16 F16 a16 v16 15) (A17 F17 a17 v17 16) (A18 F18 a18 v18 17)
            (A19 F19 a19 v19 18) (A20 F20 a20 v20 19) (A21 F21 a21 v21 20) (A22 F22 a22 v22 21)
            (A23 F23 a23 v23 22) (A24 F24 a24 v24 23));
    };
    (@next $m:ident [$($done:tt)*]) => {
        $m!($($done)*);
    };
    (@next $m:ident [$($done:tt)*] $next:tt $($rest:tt)*) => {
        $m!($($done)*);
        for_each_arity!(@next $m [$($done)* $next] $($rest)*);
    };
}
pub(crate) use for_each_arity;

mod args;
pub(crate) mod device;
mod erased;
mod error;
mod handle;
mod ivalue;
pub(crate) mod kernel;
mod keys;
mod keyset;
mod library;
pub(crate) mod registry;
mod returns;
pub(crate) mod static_dispatch;
mod table;
mod tensor;
pub mod tls;
mod value;

#[cfg(test)]
mod tests;

pub use args::{ArgFamily, KernelArg};
pub use device::{DeviceChecks, DeviceGuard, compute_dispatch_key, current_device};
pub use error::{Error, ErrorKind, Site};
pub(crate) use handle::LazyTypedOperator;
pub use handle::{OperatorHandle, TypedOperator};
pub use ivalue::{IValue, Stack};
pub use kernel::{
    ArgList, Boxed, BoxedKernel, Kernel, KernelArgs, MAX_ARITY, NoKeys, WithKeys, boxed,
};
pub use keys::DispatchKey;
pub use keyset::DispatchKeySet;
pub use library::{Library, LibraryKind, Variants};
pub use registry::{Dispatcher, LinkErrors, Registration, RegistrationId, Warning, WarningHook};
pub use returns::{Fallible, Infallible, KernelOutput, RetElem, RetValue};
pub use table::{DispatchTableDump, ServedBy};
pub use tensor::{Tensor, TensorOptions};
pub use tls::{ExcludeDispatchKeyGuard, IncludeDispatchKeyGuard};
pub use value::{
    Complex, Device, DeviceIndex, DeviceType, Dimname, Generator, Layout, MemoryFormat, QScheme,
    Scalar, ScalarType, Storage, Stream,
};
