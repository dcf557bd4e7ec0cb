//! # opgen
//!
//! PyTorch's operator machinery for Rust. An operator is declared once, by its schema string
//! on its kernel; [`native_function`] checks the schema and the kernel's signature at compile
//! time and generates the typed API (free functions, methods, an arguments struct for the
//! defaulted arguments, redispatch functions) and the kernel's registration with the
//! [`Dispatcher`], which picks a kernel per call from the dispatch keys
//! of the arguments, as PyTorch's c10 dispatcher does.
//!
//! This crate is what users depend on: it re-exports `opgen-core` (the schema language,
//! the native-function model, the dispatcher) and the attribute from `opgen-macros`, locked
//! to the same version, plus a [`prelude`].
//!
//! ## Quickstart
//!
//! A tensor type implements [`Tensor`] (its dispatch keys); a kernel with
//! its schema makes an operator:
//!
//! ```
//! use std::sync::Arc;
//! use opgen::prelude::*;
//!
//! /// A CPU tensor of `f64` values.
//! #[derive(Clone, Debug)]
//! pub struct MyTensor(Arc<Vec<f64>>);
//!
//! impl Tensor for MyTensor {
//!     fn key_set(&self) -> DispatchKeySet {
//!         DispatchKey::CPU.into()
//!     }
//! }
//!
//! /// Adds `other`, scaled by `alpha`, to `self`.
//! #[native_function("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
//!                   variants = "function, method", dispatch = "CPU")]
//! pub fn add_cpu(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
//!     let alpha = alpha.to_f64();
//!     MyTensor(Arc::new(self_.0.iter().zip(other.0.iter()).map(|(a, b)| a + alpha * b).collect()))
//! }
//!
//! fn main() -> Result<(), Error> {
//!     let a = MyTensor(Arc::new(vec![1.0, 2.0]));
//!     let b = MyTensor(Arc::new(vec![10.0, 20.0]));
//!
//!     // The free function, with `alpha` defaulted, and with `alpha` given by name.
//!     assert_eq!(*add(&a, &b).0, [11.0, 22.0]);
//!     assert_eq!(*add_with(&a, &b, AddArgs { alpha: 2.into() }).0, [21.0, 42.0]);
//!     // The method, and the form that returns errors instead of panicking.
//!     assert_eq!(*a.add(&b).0, [11.0, 22.0]);
//!     assert_eq!(*try_add(&a, &b)?.0, [11.0, 22.0]);
//!
//!     // By name, with dynamic values, as an interpreter would call it.
//!     let op = Dispatcher::global().find("aten::add", "Tensor")?;
//!     let mut stack = Stack::from(vec![IValue::Tensor(a), IValue::Tensor(b)]);
//!     op.fill_defaults(&mut stack)?; // alpha=1
//!     op.call_boxed(&mut stack)?;
//!     assert_eq!(stack.pop().and_then(IValue::into_tensor).map(|t| t.0[1]), Some(22.0));
//!     Ok(())
//! }
//! ```
//!
//! The kernel's registration takes effect on the first use of [`Dispatcher::global`], for
//! every crate linked into the program; [`Dispatcher::global_errors`] lists the
//! registrations that failed. A kernel for another backend, in another module or crate, is
//! one more attribute: `#[native_function(op = "aten::add.Tensor", dispatch = "Meta")]`.
//!
//! ## Crates
//!
//! * `opgen` (this crate): the facade.
//! * `opgen-core`: everything at run time, and the code generation behind its `codegen`
//!   feature (parsing, checks and expansion of the attribute, as an ordinary library).
//! * `opgen-macros`: the procedural-macro shim over `opgen_core::codegen`.
#![deny(unsafe_code)]

pub use opgen_core::*;

/// Defines an operator from its schema on a kernel function, or registers a kernel for an
/// operator defined elsewhere, and generates its typed Rust API. The
/// [crate documentation](crate) has a complete example.
pub use opgen_macros::native_function;

/// Declares every operator of a `native_functions.yaml` file in one call: for each function
/// (the file's entries and the variants `autogen` generates), exactly what
/// [`native_function`] generates for the same entry without a kernel: the schema's
/// registration (a `def`, so the operator is callable by name), the free functions (`add`,
/// `add_with` and its `AddArgs` struct, `try_` forms, faithful forms), the methods where
/// `variants` has `method`, and the redispatch functions. Kernels attach later, from this
/// crate or any other, by name: `#[native_function(op = "aten::add.Tensor", dispatch =
/// "CPU")]`. Calling an operator that has no kernel for the arguments' keys fails with the
/// dispatcher's missing-kernel error, which names the operator, the key and the keys that
/// have kernels.
///
/// ```standalone_crate
/// use std::sync::Arc;
/// use opgen::prelude::*;
///
/// #[derive(Clone, Debug)]
/// pub struct MyTensor(Arc<Vec<f64>>);
///
/// impl Tensor for MyTensor {
///     fn key_set(&self) -> DispatchKeySet {
///         DispatchKey::CPU.into()
///     }
/// }
///
/// /// ATen's `add` and `relu` operators, from PyTorch's yaml.
/// pub mod aten {
///     use super::MyTensor;
///     opgen::include_native_functions!(
///         "../opgen-core/tests/data/native_functions.yaml",
///         tensor = "MyTensor",
///         include = "add, relu",
///     );
/// }
///
/// // A kernel for one of them, attached by name.
/// #[native_function(op = "aten::add.Tensor", dispatch = "CPU")]
/// fn add_cpu(a: &MyTensor, b: &MyTensor, alpha: Scalar) -> MyTensor {
///     let alpha = alpha.to_f64();
///     MyTensor(Arc::new(a.0.iter().zip(b.0.iter()).map(|(x, y)| x + alpha * y).collect()))
/// }
///
/// fn main() {
///     let a = MyTensor(Arc::new(vec![1.0, 2.0]));
///     assert_eq!(*aten::add(&a, &a).0, [2.0, 4.0]);
///     assert_eq!(*a.add(&a).0, [2.0, 4.0]);
///     assert_eq!(*aten::add_with(&a, &a, aten::AddArgs { alpha: 3.into() }).0, [4.0, 8.0]);
///     // `relu` is declared, without a kernel yet.
///     let err = aten::try_relu(&a).unwrap_err().to_string();
///     assert!(err.contains("aten::relu") && err.contains("CPU"), "{err}");
/// }
/// ```
///
/// # Options
///
/// * the path (first, required): relative to the crate's directory (`CARGO_MANIFEST_DIR`);
///   the crate is rebuilt when the file changes;
/// * `tensor = "MyTensor"` (required): the tensor type of the generated functions;
/// * `crate = "path"`: the runtime path, as for [`native_function`] (default `::opgen`);
/// * `methods = "inherent"` (default: one inherent `impl` of the tensor type, which must be
///   defined in this crate) or `"trait NAME"` (one extension trait with every method);
/// * `include = "add*, sub*"`: only the operators whose name matches one of the globs
///   (`*`, `?`; without a `.` the pattern matches the name without overload, with a `.`
///   it matches `name.overload`: `add.*`, `add.Tensor`);
/// * `skip = "name, name"`: the same patterns, left out;
/// * `tags = "pointwise, core"`: only operators with one of the tags;
/// * `namespace = "aten"`: only operators of these namespaces;
/// * `tags_yaml = "path"`: the tags file (default `tags.yaml` beside the yaml, else
///   PyTorch's tags).
///
/// A pattern, tag or namespace that selects nothing is an error. An unknown option is an
/// error with a suggestion.
///
/// # Names
///
/// Items are named as [`native_function`] names them (`plan::rust_fn_name`), `pub`, in the
/// module of the call. Where two functions of the file would define the same name
/// (`clamp` and `clamp.Tensor` are both `clamp`; `stack` and `_stack` both have
/// `StackArgs`), a function whose name starts with `_` keeps it in its struct
/// (`_StackArgs`), and otherwise the later function in file order spells its overload out
/// (`clamp_tensor`, `ClampTensorArgs`); the renamed items' docs say so.
///
/// Methods have PyTorch's names, and an inherent method wins over a trait method of the
/// same name: `t.clone()` is the `aten::clone` operator, as in PyTorch; write
/// `Clone::clone(&t)` for the handle's clone.
///
/// # Operators without a Rust mapping
///
/// A function whose schema has no Rust signature (a custom class or `GraphModule`, an
/// unsized `bool[]`, a default with no Rust value: rules R84–R89) does not break the
/// build: its schema is registered, so it is callable by name with dynamic values
/// (`Dispatcher::global().find(..)?.call_boxed(..)`), and it gets no typed functions.
///
/// # Errors
///
/// A file that cannot be read, and every problem the yaml loader finds (each with
/// `FILE:LINE:COL`, the rule id, the offending line and a hint), are compile errors on the
/// path, all reported at once.
pub use opgen_macros::include_native_functions;

/// The names most programs need: `use opgen::prelude::*;`.
pub mod prelude {
    pub use crate::{include_native_functions, native_function};
    pub use opgen_core::dispatch::{
        Device, DispatchKey, DispatchKeySet, Dispatcher, Error, IValue, Layout, Operator, Scalar,
        ScalarType, Stack, Tensor, TensorOptions, TypedOperator,
    };
    pub use opgen_core::structured::StructuredMeta;
}
