//! The example operator library of opgen: a real strided tensor type, [`MiniTensor`], and
//! about forty of ATen's operators defined on it with `#[native_function]`, with PyTorch's
//! exact schemas, broadcasting and type promotion.
//!
//! * [`MiniTensor`]: `Float`, `Double`, `Long` and `Bool` tensors on the `cpu`, `meta` and
//!   `privateuseone` devices, with strides, storage offsets, views that share storage and a
//!   version counter, and every hook of opgen's [`Tensor`](opgen::dispatch::Tensor) trait.
//! * [`ops`]: the operators, registered for the `CPU` and `Meta` keys (composites for
//!   `CompositeImplicitAutograd`, views also for `PrivateUse1`; the attribute adds a
//!   `BackendSelect` kernel to every factory), and the functions and methods it generates
//!   for them. The groups PyTorch makes structured are opgen structured kernels
//!   ([`ops::structured`]): one meta function and one CPU impl per group, Meta kernels
//!   derived.
//! * [`kernels`]: the operators' logic as plain Rust: one *meta* function (shapes, dtypes,
//!   checks) and one *impl* function (compute) per operator, in the form of PyTorch's
//!   structured kernels.
//! * [`promote`] and [`shape`]: PyTorch's type promotion and shape rules.
//! * [`install`]: one call that enables, on the global dispatcher, the kernels PyTorch
//!   generates per operator for version counters and views (`ADInplaceOrView`), tracing
//!   (`Tracer`) and the CPU fallback of an external backend (`PrivateUse1`).
//! * [`tour`]: the text of `cargo run -p opgen-example --example tour`.
//!
//! ```
//! use opgen::prelude::*;
//! use opgen_example::{MiniTensor, ops};
//! # fn main() -> Result<(), Error> {
//! opgen_example::install()?;
//! let x = MiniTensor::from_vec(vec![1.0f32, -2.0, 3.0, -4.0], &[2, 2])?;
//! let y = x.relu().sum_dim_int_list(Some(&[1]));
//! assert_eq!(y.to_vec::<f32>()?, [1.0, 3.0]);
//! let (values, indices) = x.max_dim(0);
//! assert_eq!((values.to_vec::<f32>()?, indices.to_vec::<i64>()?), (vec![3.0, -2.0], vec![1, 0]));
//! let z = ops::try_zeros(&[2, 3], TensorOptions::new().dtype(ScalarType::Long))?;
//! assert_eq!(z.to_vec::<i64>()?, [0; 6]);
//! # Ok(()) }
//! ```

pub mod autograd;
mod install;
pub mod kernels;
pub mod learn;
pub mod ops;
pub mod promote;
pub mod shape;
mod storage;
mod tensor;
pub mod tour;

#[cfg(test)]
mod tests;

pub use install::{CrossKernels, install, is_installed};
pub use storage::Element;
pub use tensor::{META, MiniTensor, PRIVATE_USE1, backend_key, check_options};
