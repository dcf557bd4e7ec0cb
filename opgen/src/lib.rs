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

pub use opgen_core::*;

/// Defines an operator from its schema on a kernel function, or registers a kernel for an
/// operator defined elsewhere, and generates its typed Rust API. The
/// [crate documentation](crate) has a complete example.
pub use opgen_macros::native_function;

/// The names most programs need: `use opgen::prelude::*;`.
pub mod prelude {
    pub use crate::native_function;
    pub use opgen_core::dispatch::{
        Device, DispatchKey, DispatchKeySet, Dispatcher, Error, IValue, Layout, Scalar, ScalarType,
        Stack, Tensor, TensorOptions, TypedOperator,
    };
    pub use opgen_core::structured::StructuredMeta;
}
