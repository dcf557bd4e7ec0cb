//! The helper functions PyTorch's derivative formulas call (`FunctionsManual.cpp`:
//! `maybe_multiply`, `handle_r_to_c`, `sum_backward`, `norm_backward`, ...), in Rust,
//! generic over the tensor type: they call ATen operators (`aten::mul.Tensor`, ...) of the
//! tensor type through the global dispatcher, so they work for any library that defines
//! those operators (each helper's documentation gives the formula it computes; the operators
//! it calls are those of that formula). Translated formulas call them, and so can
//! hand-written backward functions.
//!
//! By family: [`accessors`](self#accessors) (what a formula reads from a tensor, a scalar or
//! a list), pointwise and activation derivatives, reductions and vector norms, shape
//! operations (cat, split, as_strided, ...), linear algebra, LU-based and spectral
//! decompositions,
//! losses, normalization layers, and indexing, pooling, convolution and FFT.
//!
//! Where C++ returns an undefined tensor, the Rust helper returns `None`; where C++ takes
//! a tensor that may be undefined (`grads[1]`), the Rust helper takes an `Option<&T>`.
//! C++'s in-place steps on temporaries are written with the out-of-place operators (same
//! values).

mod accessors;
mod activations;
mod decompositions;
mod householder;
mod indexing;
mod jvps;
mod linalg;
mod losses;
mod nested;
mod norm_jvps;
mod normalization;
mod norms;
mod ops;
mod pointwise;
mod reductions;
mod rnn;
mod shape;
mod solves;
mod sparse;
mod spectral;
mod table;
#[cfg(test)]
mod tests;

use std::any::{Any, TypeId};
use std::cell::RefCell;

use crate::dispatch::{ArgList, Dispatcher, Error, RetValue, Tensor, TypedOperator};

pub use accessors::*;
pub use activations::*;
pub use decompositions::*;
pub use householder::*;
pub use indexing::*;
pub use jvps::*;
pub use linalg::*;
pub use losses::*;
pub use nested::*;
pub use norm_jvps::*;
pub use normalization::*;
pub use norms::*;
pub use pointwise::*;
pub use reductions::*;
pub use rnn::*;
pub use shape::*;
pub use solves::*;
pub use sparse::*;
pub use spectral::*;
pub use table::{HELPERS, Helper, HelperParam, HelperReturn};

pub(crate) use ops::clone as clone_tensor;

/// The gradients of three inputs, each possibly undefined (C++'s
/// `std::tuple<Tensor, Tensor, Tensor>` of a derivative).
pub type Gradients3<T> = (Option<T>, Option<T>, Option<T>);

/// Typed handles by (type of the signature, name, overload).
type OpCache = rustc_hash::FxHashMap<(TypeId, &'static str, &'static str), Box<dyn Any>>;

thread_local! {
    static OPS: RefCell<OpCache> = RefCell::new(Default::default());
}

/// The typed handle of `aten::name.overload` for tensor type `T` with argument families `L`
/// and returns `R`, looked up in [`Dispatcher::global`] once per thread.
///
/// # Errors
/// The operator does not exist or has another signature.
pub fn aten<T: Tensor, L: ArgList<T>, R: RetValue<T>>(
    name: &'static str,
    overload: &'static str,
) -> Result<TypedOperator<T, L, R>, Error> {
    let key = (TypeId::of::<(T, L, R)>(), name, overload);
    let cached = OPS.with(|ops| {
        (ops.borrow().get(&key))
            .and_then(|op| op.downcast_ref::<TypedOperator<T, L, R>>())
            .cloned()
    });
    if let Some(op) = cached {
        return Ok(op);
    }
    let op = Dispatcher::global()
        .find(&format!("aten::{name}"), overload)?
        .typed_families::<T, L, R>()?;
    OPS.with(|ops| ops.borrow_mut().insert(key, Box::new(op.clone())));
    Ok(op)
}
