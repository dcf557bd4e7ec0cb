//! Structured kernels (docs/STRUCTURED.md), by what each attribute makes: the meta
//! function (`meta.rs`: the out operator's API, its marker's `StructuredOp` glue, the
//! precompute struct, the `Meta` kernel), an impl (`impls.rs`: its registration through the
//! marker, coerced to the impl type) and a delegate (`delegate.rs`: its API and a deferred
//! registration of its kernels). The kernels themselves are the runtime's
//! (`opgen_core::structured::{register_out, register_functional, register_in_place}`), the
//! same for every operator; an expansion holds only declarations and the glue that calls
//! the user's functions.

mod delegate;
mod impls;
mod meta;

pub(crate) use delegate::expand_delegate;
pub(crate) use impls::expand_impl;
pub(crate) use meta::expand_meta;
