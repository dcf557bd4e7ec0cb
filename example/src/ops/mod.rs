//! The operators.
