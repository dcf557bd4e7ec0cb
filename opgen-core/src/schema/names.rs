//! R91 and R92: the names in a schema. PyTorch's schema parser reads every name as an
//! identifier (`[A-Za-z_][A-Za-z0-9_]*`) and the dispatcher finds operators by
//! `ns::name.overload`; the generated Rust spells each name as an item or a parameter. So
//! names are ASCII identifiers, the overload is not one of the words PyTorch reserves for the
//! operator itself, and no two arguments (or returns) share a name. torchgen checks none of
//! this (SCHEMA.md §6.1 lists the deviation).

use std::ops::Range;

use super::error::{Rule, SchemaError};
use super::model::Schema;
use super::parser::Layout;

/// Overload names that PyTorch reserves: `torch.ops.aten.add.default` is the operator
/// without overload, and `__name__` is the Python attribute of the overload packet.
const RESERVED_OVERLOADS: [&str; 2] = ["default", "__name__"];

/// Whether `name` is an ASCII identifier: letters, digits and `_`, not starting with a digit.
///
/// ```
/// use opgen_core::schema::is_identifier;
/// assert!(is_identifier("add_") && is_identifier("__and__") && is_identifier("_foo2"));
/// assert!(!is_identifier("ädd") && !is_identifier("x-y") && !is_identifier("2d") && !is_identifier(""));
/// ```
pub fn is_identifier(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.first().is_some_and(|b| !b.is_ascii_digit())
        && bytes
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether every name of `schema` is well formed and unique: the fast path's check, which
/// needs no ranges.
pub(crate) fn names_ok(schema: &Schema) -> bool {
    check_names("", schema, &Layout::default()).is_empty()
}

/// The R91 and R92 errors of `schema`, parsed from `text` with `layout` (ranges fall back to
/// empty ones at the start when the layout is not known).
pub(crate) fn check_names(text: &str, schema: &Schema, layout: &Layout) -> Vec<SchemaError> {
    let mut errors = Vec::new();
    check_operator_name(text, schema, layout, &mut errors);
    for (i, arg) in schema.arguments.iter().enumerate() {
        let at = || {
            name_range(
                text,
                layout.arguments.get(i),
                &arg.name,
                arg.default.is_some(),
            )
        };
        if !is_identifier(&arg.name) {
            errors.push(bad_name(at(), "argument", &arg.name));
        } else if schema.arguments[..i].iter().any(|a| a.name == arg.name) {
            errors.push(duplicate(at(), "argument", &arg.name));
        }
    }
    for (i, ret) in schema.returns.iter().enumerate() {
        let Some(name) = &ret.name else { continue };
        let at = || name_range(text, layout.returns.get(i), name, false);
        if !is_identifier(name) {
            errors.push(bad_name(at(), "return", name));
        } else if (schema.returns[..i].iter()).any(|r| r.name.as_ref() == Some(name)) {
            errors.push(duplicate(at(), "return", name));
        }
    }
    errors
}

fn check_operator_name(
    text: &str,
    schema: &Schema,
    layout: &Layout,
    errors: &mut Vec<SchemaError>,
) {
    let name = &schema.name;
    // The name is written `[ns::]op[.overload]` from the layout's start.
    let start = layout.name.start;
    let ns_len = name.namespace.as_ref().map_or(0, |ns| ns.len() + 2);
    let op = name.name.to_string();
    let within = |from: usize, len: usize| {
        let r = start + from..start + from + len;
        if text.get(r.clone()).is_some() {
            r
        } else {
            0..0
        }
    };
    if let Some(ns) = &name.namespace
        && !is_identifier(ns)
    {
        errors.push(bad_name(within(0, ns.len()), "namespace", ns));
    }
    if !is_identifier(&op) {
        errors.push(bad_name(within(ns_len, op.len()), "operator name", &op));
    }
    let Some(overload) = &name.overload else {
        return;
    };
    let at = within(ns_len + op.len() + 1, overload.len());
    if RESERVED_OVERLOADS.contains(&overload.as_str()) {
        errors.push(
            SchemaError::new(
                Rule::BadName,
                at,
                format!("overload name `{overload}` is reserved"),
            )
            .with_hint(
                "choose another overload name (PyTorch names the operator without overload \
                 `default`), or write none",
            ),
        );
    } else if !is_identifier(overload) {
        errors.push(bad_name(at, "overload name", overload));
    }
}

/// Where `name` is written in the argument or return at `range`: at the end (before the `=`
/// of a default).
fn name_range(
    text: &str,
    range: Option<&Range<usize>>,
    name: &str,
    has_default: bool,
) -> Range<usize> {
    let Some(range) = range else { return 0..0 };
    let Some(piece) = text.get(range.clone()) else {
        return 0..0;
    };
    let decl = match piece.split_once('=') {
        Some((decl, _)) if has_default => decl,
        _ => piece,
    };
    match decl.strip_suffix(name) {
        Some(before) => range.start + before.len()..range.start + decl.len(),
        None => range.clone(),
    }
}

fn bad_name(at: Range<usize>, what: &str, name: &str) -> SchemaError {
    SchemaError::new(
        Rule::BadName,
        at,
        format!("{what} `{name}` is not an ASCII identifier"),
    )
    .with_hint(
        "write letters, digits and `_`, not starting with a digit, as PyTorch's schema parser \
         reads names",
    )
}

fn duplicate(at: Range<usize>, what: &str, name: &str) -> SchemaError {
    SchemaError::new(
        Rule::DuplicateName,
        at,
        format!("{what} `{name}` is declared twice"),
    )
    .with_hint(format!("rename one of the {what}s named `{name}`"))
}
