//! The runtime: dispatch keys, the operator registry and dispatcher, typed and boxed calls.
//!
//! It reproduces PyTorch's c10 dispatcher. Operators are defined from schema strings,
//! kernels are registered per [`DispatchKey`], and each call runs the kernel of the
//! highest-priority key among the keys of its tensor arguments (the highest functionality,
//! on the highest backend of all of them). The tensor type is the user's: anything that
//! implements [`Tensor`].
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
//! // A CPU tensor with its autograd key: the default autograd fallthrough, then CPU.
//! let autograd = MyTensor(Arc::new((DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]), 1.0)));
//! assert_eq!(add.call(&autograd, &b, Scalar::Int(1)).0.1, 3.0);
//! # Ok::<(), Error>(())
//! ```
//!
//! # Keys
//!
//! Keys follow c10's representation. A [`DispatchKeySet`] has one bit per *backend
//! component* ([`BackendComponent`], c10's 16: `CPU`, `CUDA`, `HIP`, `XLA`, `MPS`, `IPU`,
//! `XPU`, `HPU`, `VE`, `Lazy`, `MTIA`, `MAIA`, `PrivateUse1..3`, `Meta`, lowest first) and
//! one bit per *functionality* (c10's 47, lowest first: dense, `FPGA`, `Vulkan`, `Metal`,
//! quantized, `CustomRNGKeyId`, `MkldnnCPU`, sparse, compressed sparse, nested,
//! `BackendSelect`, `Python`, `Fake`, `FuncTorchDynamicLayerBackMode`, `Functionalize`,
//! `Named`, `Conjugate`, `Negative`, `ZeroTensor`, `ADInplaceOrView`, `AutogradOther`,
//! autograd, `AutogradNestedTensor`, `Tracer`, the ten `Autocast*` keys, then functorch's,
//! `DeferredInit`, `PythonTLSSnapshot`, the two `TESTING_ONLY_*` keys, `PreDispatch` and
//! `PythonDispatcher`); its bits are c10's `raw_repr()`. Six functionalities are *per
//! backend*: a runtime key of them is a functionality on a backend component, named as in
//! c10:
//!
//! | functionality | runtime keys (one per backend component) | autograd key of the tensors |
//! |---|---|---|
//! | dense | `CPU`, `CUDA`, `HIP`, `XLA`, ..., `PrivateUse1`, `Meta` | `Autograd` + the backend (`AutogradXLA`); `AutogradOther` for `HIP` and `VE` |
//! | quantized | `QuantizedCPU`, `QuantizedXLA`, ... | the backend's (`AutogradCPU` for `QuantizedCPU`) |
//! | sparse | `SparseCPU`, `SparseHIP`, ... | the backend's |
//! | compressed sparse | `SparseCsrCPU`, `SparseCsrMeta`, ... | the backend's |
//! | nested | `NestedTensorCPU`, ... | `AutogradNestedTensor` |
//! | autograd | `AutogradCPU`, `AutogradLazy`, ... | |
//!
//! The other functionalities are one runtime key each; `FPGA`, `Vulkan`, `Metal`,
//! `CustomRNGKeyId` and `MkldnnCPU` are backends whose tensors carry `AutogradOther`
//! ([`DispatchKey::autograd_key`]). [`DispatchKey`] lists the 137 runtime keys in priority
//! order: by functionality, then by backend component.
//!
//! A call unions the key sets of its tensor arguments and runs the kernel of the highest
//! functionality present, on the highest backend component present among **all** the
//! arguments for a per-backend functionality. So a CPU tensor and a CUDA tensor, each with
//! its autograd key, dispatch to `AutogradCUDA` and then `CUDA`, never to `AutogradCPU`; a
//! sparse CPU tensor with a dense CUDA tensor dispatches to `SparseCUDA`. Key sets are as
//! lossy as c10's: removing a per-backend key (a redispatch below it, a fallthrough,
//! [`DispatchKeySet::remove`], an excluded key) removes its functionality for every backend,
//! so once a call has passed the autograd layer no tensor's autograd key is selected again.
//! [`DispatchKeySet::below`]`(AutogradCPU)` leaves `AutogradOther`; `below(Autograd)` leaves
//! no autograd key at all.
//!
//! Alias keys are registration targets that stand for several runtime keys
//! ([`DispatchKey::runtime_keys`], c10's `getRuntimeDispatchKeySet`):
//!
//! * `Autograd`: every autograd key;
//! * `CompositeExplicitAutograd` (CEA): the dense, quantized, sparse and compressed sparse
//!   keys of every backend component, `FPGA`, `Vulkan`, `Metal`, `CustomRNGKeyId` and
//!   `MkldnnCPU` (c10's `backend_dispatch_keyset`; not the nested keys, not `ZeroTensor`);
//! * `CompositeExplicitAutogradNonFunctional` (CEANF): the CEA keys without the sparse ones
//!   and without the functional backends `XLA` and `Lazy` (for every functionality);
//! * `CompositeImplicitAutograd` (CIA, also `CatchAll`): the CEA keys, the nested keys,
//!   `Functionalize` and every autograd key;
//! * `CompositeImplicitAutogradNestedTensor`: the nested keys and `AutogradNestedTensor`;
//! * `FuncTorchBatchedDecomposition`: `FuncTorchBatched`.
//!
//! # Which kernel serves a key
//!
//! An operator's table has c10's entries: one per runtime key and one for `Undefined`. For
//! each runtime key K, the first rule that applies (c10's `computeDispatchTableEntry`):
//!
//! 1. A kernel registered directly at K.
//! 2. K is covered by CEANF: the CEANF kernel, if any.
//! 3. K is covered by CEA: the CEA kernel, if any.
//! 4. K is a nested key or `AutogradNestedTensor`: the
//!    `CompositeImplicitAutogradNestedTensor` kernel, if any. Otherwise, K covered by CIA:
//!    the CIA kernel, if any, except:
//!    * at `AutogradOther`, if a backend that maps to it (the quantized, sparse and
//!      compressed sparse keys, `FPGA`, `Vulkan`, `Metal`, `CustomRNGKeyId`, `MkldnnCPU`)
//!      has a registration of its own (a fallthrough counts), the entry is *ambiguous*
//!      (even with a CEA kernel): calling it is an error;
//!    * CIA is not taken if the operator has a CEA kernel, or, at an autograd key, if one
//!      of the key's backends ([`DispatchKey::backends`]: `CPU` for `AutogradCPU`) has a
//!      registration of its own (a fallthrough counts): the autograd key then falls
//!      through to that kernel. A CEANF kernel does not count. c10 names no backend for
//!      `AutogradHIP`, `AutogradVE`, `AutogradMTIA` and `AutogradMAIA`.
//! 5. K is an autograd key: the kernel registered at the `Autograd` alias, if any (and at
//!    `FuncTorchBatched`, the `FuncTorchBatchedDecomposition` kernel).
//! 6. The backend fallback registered for K (or the dispatcher's default there), if any.
//! 7. Nothing: a call that lands on K is an error naming the keys that have kernels.
//!
//! The `Undefined` entry takes the CEANF kernel, else the CEA kernel, else the CIA kernel,
//! else nothing. A call whose key set has no functionality left uses it: an operator without
//! tensor arguments (no key but the included `BackendSelect`, which falls through), or a call
//! whose every key was skipped by fallthrough or redispatch. So
//! `no_tensor_args.int(int arg) -> int` with a catch-all kernel is callable, and a CPU tensor
//! reaches the CIA kernel of an operator with a fallthrough at `CPU`.
//!
//! The table is recomputed on every registration and is a pure function of the current
//! registrations: the same registrations in any order give the same table, and dropping a
//! registration gives back the table from before it. [`OperatorHandle::dispatch_table`]
//! shows which registration serves `Undefined` and each key.
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
//! its key set. It is resolved when the table is built, into one mask of the functionalities
//! that are not fallthroughs per backend component (c10's `nonFallthroughKeysPerBackend_`);
//! a call masks its key set with the mask of its highest backend, so skipping a key costs
//! nothing. A fallthrough at one per-backend key (`AutogradCPU`) leaves the functionality
//! for calls whose highest backend is that one only.
//!
//! # Default fallbacks
//!
//! Every dispatcher starts as c10's does once ATen is loaded, with fallthrough fallbacks at
//! the keys whose layer only does work for the operators that have a kernel there:
//!
//! | keys | default |
//! |---|---|
//! | `BackendSelect` | fallthrough (every thread includes the key: [`tls::DEFAULT_INCLUDED`]) |
//! | `ADInplaceOrView`, `Tracer` | fallthrough |
//! | `AutogradOther`, `AutogradCPU` ... `AutogradMeta`, `AutogradNestedTensor` | fallthrough (PyTorch's framework autograd fallback, which passes the call below autograd) |
//! | `AutocastCPU`, `AutocastCUDA`, ... (the ten `Autocast*` keys) | fallthrough |
//!
//! So a tensor type may carry these keys before any kernel for them exists. The other keys
//! have no default: a call that reaches one without a kernel or fallback there fails (c10's
//! `Conjugate`, `Negative`, `Named`, `ZeroTensor`, `Functionalize`, functorch and Python keys
//! get real fallbacks from PyTorch's libraries, which opgen does not have). A fallback
//! registered at one of these keys replaces the default while it lives and is the key's
//! only fallback (a second one is an error); dropping it brings the default back. A kernel
//! of an operator at the key serves that operator instead. Dumps mark the defaults
//! ([`ServedBy::is_default`]).

//! # Rust types of schema types
//!
//! Kernels and typed calls take the arguments in schema order, with defaults not filled
//! (the dispatcher signature). `T` is the tensor type; `X` stands for any of the value types
//! `ScalarType`, `Layout`, `Device`, `MemoryFormat`, `QScheme`, `Generator`, `Storage`,
//! `Stream` (the opgen-core types of those names), and `int`, `float`, `bool`, `Scalar`,
//! `DeviceIndex` where the table does not list them apart. The last column is the boxed
//! form ([`IValue`]) of an argument or return of that type.
//!
//! | schema type | Rust parameter type | Rust return type | `IValue` |
//! |---|---|---|---|
//! | `Tensor` | `&T` | `T` | `Tensor` |
//! | `Tensor(a!)` (written) | `&mut T` | `T` (a clone of the argument's handle) | `Tensor` |
//! | `Tensor?` / `Tensor(a!)?` | `Option<&T>` / `Option<&mut T>` | `Option<T>` | `None` or `Tensor` |
//! | `Tensor[]` / `Tensor(a!)[]` | `&[T]` / `&mut [T]` | `Vec<T>` (not written: R88) | `TensorList` |
//! | `Tensor?[]` | `&[Option<T>]` | `Vec<Option<T>>` | `OptionalTensorList` |
//! | `Tensor[]?`, `Tensor?[]?` | `Option<&[T]>`, `Option<&[Option<T>]>` | — (R87) | `None` or the list |
//! | `int`, `SymInt` | `i64` | `i64` | `Int` |
//! | `int[]`, `int[N]`, `SymInt[]`, `SymInt[N]` | `&[i64]` | `Vec<i64>` (`[]` only: R87) | `IntList` |
//! | `DimVector` | `&[i64]` | `Vec<i64>` | `IntList` |
//! | `float` / `float[]`, `float[N]` | `f64` / `&[f64]` | `f64` / `Vec<f64>` | `Float` / `FloatList` |
//! | `bool`, `SymBool` | `bool` | `bool` | `Bool` |
//! | `bool[N]` | `[bool; N]` | `[bool; N]` | `BoolList` |
//! | `SymBool[]` / `bool[]` | `&[bool]` / — (R85) | `Vec<bool>` | `BoolList` |
//! | `str` | `&str` | `String` | `Str` |
//! | `str[]` | `&[String]` | `Vec<String>` | `List(ValueList::Str)` |
//! | `Scalar` | [`Scalar`] | [`Scalar`] | `Int`, `Float`, `Bool` or `Complex` (c10's boxing) |
//! | `Scalar[]` | `&[Scalar]` | `Vec<Scalar>` | `ScalarList` |
//! | `DeviceIndex` | `i8` | `i8` | `Int` |
//! | `ScalarType`, `Layout`, `Device`, `MemoryFormat`, `QScheme`, `Generator`, `Storage`, `Stream` | [`ScalarType`], [`Layout`], [`Device`], [`MemoryFormat`], [`QScheme`], [`Generator`], [`Storage`], [`Stream`] | the same | the variant of that name |
//! | `X[]` for the types of the row above, `DeviceIndex[]` | `&[X]` | `Vec<X>` | `List(ValueList::X)` |
//! | `X?` (any value type, `str`, a list) | `Option<..>` of the above (`Option<i64>`, `Option<&str>`, `Option<&[i64]>`, `Option<[bool; N]>`, ...) | `Option<..>` of a value type, of `String` or of `[bool; N]` (not `Scalar?` nor lists: R87) | `None` or the value |
//! | `X?[]`, `str?[]` (a list of optional values) | `&[Option<X>]`, `&[Option<String>]` | `Vec<Option<X>>`, `Vec<Option<String>>` (not `Scalar?[]`: R87) | `List(ValueList::OptionalX)` (`OptionalInt`, ...) |
//! | several returns | | a tuple of the single returns, up to 10 | one value each |
//! | `()` | | `()` | nothing |
//!
//! A list whose element type has no variant of its own is an [`IValue::List`] holding a
//! [`ValueList`], c10's generic list; [`ListItem`] names the variant of each element type,
//! and `IValue::from(vec)` builds any list. The schema language has no dictionary type (its
//! 19 base types, optionals and lists are all there is), so `IValue` has no dictionary
//! either; [`IValue::Tuple`] and [`IValue::Dimname`] (and [`ValueList::Dimname`]) carry
//! values that no schema type names, for boxed kernels that need them.
//!
//! Nested optionals and lists (`int??`, `int[][]`), `GraphModule` and custom classes have no
//! Rust type: operators that use them take boxed kernels, as do operators with more than
//! [`MAX_ARITY`] arguments or more than 10 returns. The table is
//! [`crate::plan::argument_type`] and [`crate::plan::return_type`], which the code generator
//! follows too; a kernel fits when its parameter and return types are the ones they give.
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
//! atomic loads); nor does a call: the operator's table stays at one address once made
//! (on the operator's first lookup), handles point straight at it, and a call reads one key
//! mask and one kernel pointer there with atomic loads. A
//! registration computes the new table and writes it in place, in an order that makes
//! every call dispatch as the table before or the table after would, key by key.
//!
//! Memory is given back. A kernel that a dropped registration removes, and the table it
//! replaces, are freed once no call can still be running them: every call marks its thread
//! as inside a call (two stores to a counter of its own, no atomic read-modify-write), and
//! the registration that retires a table makes one process-wide memory barrier
//! (`membarrier` on Linux) before it frees what no thread inside a call at that moment can
//! hold. A thread that stays inside a call (a kernel that runs for minutes) delays what was
//! retired meanwhile until it returns. On systems without such a barrier, retired tables
//! are kept instead (memory then grows with registrations; nothing is freed early). What
//! is freed is dropped after the lock is released, so what a kernel
//! captured (other registrations, a library, values that use the dispatcher when dropped)
//! may use the dispatcher.
//!
//! Ownership, and the rule for cycles:
//!
//! * a [`Registration`] keeps its dispatcher alive; [`Registration::forget`] keeps the
//!   registration in force without keeping the dispatcher: when the last [`Dispatcher`],
//!   [`Library`] and [`Registration`] of a dispatcher are gone, it is freed with every
//!   kernel registered in it, forgotten or not;
//! * handles ([`OperatorHandle`], [`TypedOperator`]) keep their operator's entry alive, not
//!   the dispatcher. A kernel may hold a handle of its own operator (to redispatch, as
//!   generated Autograd kernels do): the entry's table holds the kernel, which holds the
//!   entry, but dropping the dispatcher empties every table, so the cycle ends with the
//!   dispatcher (a handle that outlives its dispatcher finds no `def`: its calls fail with
//!   "Could not find schema"). Dropping the kernel's registration ends it earlier;
//! * a kernel that holds its own dispatcher (a [`Dispatcher`], [`Library`] or
//!   [`Registration`] of it) keeps it alive until that registration is dropped: drop it, or
//!   hold a [`OperatorHandle`] instead.

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
pub(crate) mod cache;
pub(crate) mod device;
mod erased;
mod error;
mod handle;
mod ivalue;
pub(crate) mod kernel;
mod keys;
mod keyset;
mod library;
mod list;
pub(crate) mod operator;
mod reclaim;
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
pub use cache::{OpCache, OpTable, TypedOf};
pub use device::{DeviceChecks, DeviceGuard, compute_dispatch_key, current_device};
pub use error::{Error, ErrorKind, Site};
pub use handle::{OperatorHandle, TypedOperator};
pub use ivalue::{IValue, Stack, default_value};
pub use kernel::{
    ArgList, Boxed, BoxedKernel, Kernel, KernelArgs, MAX_ARITY, NoKeys, WithKeys, boxed,
};
pub use keys::{BackendComponent, DispatchKey};
pub use keyset::DispatchKeySet;
pub use library::{Library, LibraryKind, Variants};
pub use list::{ListItem, ValueList};
pub(crate) use operator::kernel_name;
pub use operator::{ArgTuple, Operator, OperatorName, TupleCall, TupleKernel, TupleMarker};
pub use registry::{Dispatcher, LinkErrors, Registration, RegistrationId, Warning, WarningHook};
pub use returns::{Fallible, Infallible, KernelOutput, RetElem, RetValue};
pub use table::{DispatchTableDump, ServedBy};
pub use tensor::{Sizes, Tensor, TensorOptions};
pub use tls::{ExcludeDispatchKeyGuard, IncludeDispatchKeyGuard};
pub use value::{
    Complex, Device, DeviceIndex, DeviceType, Dimname, Generator, Layout, MemoryFormat, QScheme,
    Scalar, ScalarType, Storage, Stream,
};
