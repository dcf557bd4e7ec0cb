//! Rules checked on a parsed [`Schema`](crate::schema::Schema), after the parse stage.
//!
//! torchgen accepts some schemas that it cannot turn into C++ signatures; it only notices
//! while generating code (SCHEMA.md §2.8, R84–R89). opgen checks them here, before it plans
//! the Rust API, so that every problem is reported with its rule id and the byte range of
//! the offending argument, type, default or return. The ranges are computed on the schema's
//! canonical printing ([`layout`](crate::schema::layout)), which for a parsed schema is the
//! text the user wrote.

mod rust_mapping;
#[cfg(test)]
mod tests;

pub use rust_mapping::check_rust_mapping;
