//! The operators, defined with `#[native_function]` and PyTorch's exact schemas; the
//! attribute generates, next to each kernel, the free functions (`add`, `add_with`,
//! `try_add`, ...), the methods on [`MiniTensor`](crate::MiniTensor), an `…Args` struct
//! for defaulted arguments, redispatch functions, and the registration with the global
//! dispatcher. Everything is re-exported here.

pub mod factories;
pub mod misc;
pub mod pointwise;
pub mod structured;
pub mod views;
pub mod wiring;

pub use factories::*;
pub use misc::*;
pub use pointwise::*;
pub use structured::*;
pub use views::*;

#[cfg(test)]
mod tests;
