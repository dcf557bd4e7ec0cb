//! The example operator library of opgen's integration tests: a small tensor type
//! ([`TestTensor`]: `f64` values with a shape, on the `CPU`, `Meta` or `PrivateUse1`
//! device) and operators defined on it with `#[native_function]` ([`ops`]).
//!
//! The integration tests (`tests/integration/`) call what the attribute generated, through
//! every route; `opgen-tests-ext` adds kernels and operators from another crate, and
//! `opgen-tests-static` defines operators in static-dispatch mode.

// Generated code keeps these lints quiet: every public item it makes is documented or
// hidden, and its impls sit in anonymous consts.
#![deny(missing_docs, non_local_definitions)]

mod dense;
pub mod ops;
pub mod structured;
mod tensor;

pub use dense::{DenseTensor, contiguous_strides, is_integral};
pub use tensor::{TestTensor, broadcast_shapes, numel, zip_with};
