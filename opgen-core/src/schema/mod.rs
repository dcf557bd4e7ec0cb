//! The schema language: model, parser, canonical printer, and the rules checked while parsing.
//!
//! [`parse_schema`] turns a schema string into a [`Schema`] or a list of [`SchemaError`]s,
//! each with a [`Rule`] id, a byte range and a hint. The printer is [`std::fmt::Display`] on
//! the model; for every schema the parser accepts, printing gives the input back.

mod error;
mod facts;
mod fast;
mod invariants;
mod layout;
mod literal;
mod model;
mod names;
mod parser;
mod render;
mod roundtrip;
pub(crate) mod suggest;
#[cfg(test)]
pub(crate) mod tests;

pub(crate) use error::write_help;
pub use error::{Rule, SchemaError};
pub use facts::{SchemaKind, TENSOR_OPTIONS};
pub(crate) use fast::ident_len;
pub use layout::{ArgumentLayout, ReturnLayout, SchemaLayout, layout};
pub use model::{
    AliasAnnotation, AliasSet, ArgType, Argument, BaseOperatorName, BaseType, DefaultValue, Float,
    Literal, OperatorName, Return, Schema, TypeBox,
};
pub use names::is_identifier;
pub use parser::{MAX_NESTING, canonicalize, parse_operator_name, parse_schema, parse_type};
pub(crate) use render::Window;
pub use render::{
    EXCERPT_WIDTH, MAX_ERRORS, MAX_ERRORS_PER_LINE, MAX_FRAGMENT, MAX_MESSAGE, bounded_text,
    caret_excerpt, more_errors, shown_errors,
};
/// The string type of the model's names, overloads, default texts and literals (re-exported
/// so that users need not depend on `smol_str` themselves).
pub use smol_str::SmolStr;
