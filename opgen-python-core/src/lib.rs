//! PyTorch's Python argument rules for opgen operators, in plain Rust (no Python needed):
//! the Python signature of every schema ([`PySignature`], torchgen's `PythonSignature`),
//! which operators become which functions and methods with their overloads in PyTorch's
//! order ([`Bindings`]), the argument parser that picks an overload and explains a mismatch
//! in PyTorch's words ([`parse`], [`ParseError`]), the conversion of the matched arguments
//! to a dispatcher stack ([`Plan`]), and `.pyi` stubs ([`stubs`]).
//!
//! The Python values themselves are described by [`Value`], which the binding crate
//! (`opgen-python`, PyO3) builds from Python objects; everything here is testable without
//! Python.
//!
//! ```
//! use opgen_core::schema::parse_schema;
//! use opgen_python_core::{Arg, CallArgs, Flavor, PySignature, SignatureOptions, Value, parse};
//! # #[derive(Clone)] struct T;
//! # impl opgen_core::dispatch::Tensor for T { fn key_set(&self) -> opgen_core::dispatch::DispatchKeySet { Default::default() } }
//! # impl opgen_python_core::TensorFacts for T { type Tensor = T; }
//! let schema = parse_schema("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor").unwrap();
//! let sig = PySignature::new(&schema, Flavor::Function, SignatureOptions::default()).unwrap();
//! let t = T;
//! let args = [Arg::new(Value::Tensor(&t)), Arg::new(Value::Str("x".into()))];
//! let err = parse::<T, _>(&[&sig], CallArgs { args: &args, kwargs: &[] }).unwrap_err();
//! assert_eq!(err.to_string(), "sum(): argument 'dim' (position 2) must be tuple of ints, not str");
//! ```

#![warn(missing_docs)]

mod convert;
mod defaults;
mod errors;
mod group;
mod parse;
mod pattern;
mod signature;
pub mod stubs;
mod types;
mod value;

#[cfg(test)]
mod tests;

pub use convert::Plan;
pub use defaults::{default_ivalue, py_float_repr, pyi_default, python_default};
pub use errors::{ParseError, format_invalid_args};
pub use group::{
    Binding, Bindings, DUNDERS, DunderKind, OpInfo, Overload, Packet, module_placement,
    should_generate_py_binding, sort_order,
};
pub use parse::{CallArgs, Parsed, Slot, Slots, check, parse, parse_signature};
pub use signature::{
    Flavor, Param, PySignature, SignatureOptions, Source, Unsupported, allows_numbers_as_tensors,
};
pub use types::{ParamType, param_type, parser_type_str, pyi_arg_type, pyi_return_type};
pub use value::{Arg, TensorFacts, Value, is_integral};
