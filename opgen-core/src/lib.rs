//! # opgen-core
//!
//! PyTorch's operator machinery for Rust: the schema language (`add.Tensor(Tensor self,
//! Tensor other, *, Scalar alpha=1) -> Tensor`) with torchgen's validation rules, the
//! native-function model of `native_functions.yaml` (entries, generated variants, groups),
//! the signature plans that code generation derives from a schema, and the runtime
//! dispatcher that picks a kernel per call from the arguments' dispatch keys.
//!
//! ```
//! use opgen_core::schema::parse_schema;
//! let schema = parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor").unwrap();
//! assert_eq!(schema.name.full_name(), "add.Tensor");
//! assert_eq!(schema.to_string(), "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
//! ```
#![warn(missing_docs)]
// `unsafe` lives in one audited module, `dispatch::erased`, which allows it.
#![deny(unsafe_code)]

pub mod autograd;
pub mod catalog;
pub mod cross;
pub mod dispatch;
#[cfg(test)]
mod doc_tables;
pub mod explain;
pub mod formula;
pub mod native;
pub mod plan;
pub mod schema;
pub mod structured;
pub mod testing;
pub mod validate;

#[cfg(feature = "codegen")]
pub mod codegen;

#[doc(hidden)]
pub mod __private;

/// `Result` with opgen's [`Error`]: what the generated `try_` functions return.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// The steps `Dispatcher::global` runs, in this order, once every link-time entry is
/// registered. Wired here, at the crate root, so that the dispatcher does not name the
/// modules that provide them.
pub(crate) const POST_LINK: &[dispatch::registry::link::PostLink] = &[structured::DERIVE_WRAPPERS];

/// The kernels that modules above the dispatcher build, on request, for the tensor type `T`
/// of a kernel registered at run time (structured's derived out and in-place wrappers): every
/// kernel the dispatcher stores carries this function for its `T`
/// (`dispatch::kernel::DeriveFn`). Wired here, for the same reason as [`POST_LINK`].
pub(crate) fn derive_kernel<T: Tensor>(
    request: Box<dyn std::any::Any>,
) -> Option<dispatch::kernel::ErasedKernel> {
    structured::derive_kernel::<T>(request)
}

// The dispatcher's main items, for `use opgen_core::{Dispatcher, Scalar, Tensor}`.
pub use dispatch::{
    Complex, Device, DispatchKey, DispatchKeySet, Dispatcher, Error, Generator, IValue, Layout,
    Library, MemoryFormat, OperatorHandle, QScheme, Registration, Scalar, ScalarType, Stack,
    Storage, Stream, Tensor, TensorOptions, TypedOperator,
};
