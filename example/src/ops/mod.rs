//! The operators, defined with `#[native_function]` and PyTorch's exact schemas; the
//! attribute generates, next to each kernel, the free functions (`add`, `add_with`,
//! `try_add`, ...), the methods on [`MiniTensor`](crate::MiniTensor), an `…Args` struct
//! for defaulted arguments, redispatch functions, and the registration with the global
//! dispatcher. Everything is re-exported here.

pub mod factories;
pub mod indexing;
pub mod misc;
pub mod pointwise;
pub mod structured;
pub mod views;
pub mod wiring;

pub use factories::*;
pub use indexing::*;
pub use misc::*;
pub use pointwise::*;
pub use structured::*;
pub use views::*;

// What derivative formulas call the operators the library names otherwise: their
// canonical Rust names (`transpose.int` is `transpose_int`).
#[doc(hidden)]
pub use views::{try_select as try_select_int, try_transpose as try_transpose_int};

#[cfg(test)]
mod tests;
