//! The signature families of one schema (SCHEMA.md §4): which arguments each generated
//! function takes, in which order, with which Rust types and defaults.
//!
//! | family | order | TensorOptions | defaults | used by |
//! |---|---|---|---|---|
//! | dispatcher | schema order | scattered | none | kernels, typed handles, boxed adapters |
//! | redispatch | a `DispatchKeySet`, then schema order | scattered | none | redispatch functions |
//! | native | schema order | scattered | for non-out schemas | in-tree kernel functions |
//! | Rust API (convenience) | out arguments first, then schema order | gathered into `options` | kept | free functions and methods |
//! | faithful | schema order | scattered | none | `*_outf` / `*_faithful` functions (only for out or TensorOptions schemas) |

use crate::schema::{DefaultValue, Schema, SchemaKind};

use super::names::{cpp_api_name, rust_fn_name};
use super::types::{RustType, ValueType, argument_type, return_type};

/// Which family a [`Signature`] belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// The unboxed calling convention of the dispatcher.
    Dispatcher,
    /// The dispatcher signature with a leading key set.
    Redispatch,
    /// The signature of an in-tree kernel.
    Native,
    /// The public Rust API: outs first, TensorOptions gathered, defaults kept.
    RustApi,
    /// Schema order, TensorOptions scattered, no defaults.
    Faithful,
}

/// Where an argument of a signature comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgRole {
    /// A positional schema argument.
    Positional,
    /// A keyword-only schema argument (not out).
    KwargOnly,
    /// An out argument.
    Out,
    /// One of `dtype`, `layout`, `device`, `pin_memory`, scattered.
    TensorOptionsPart,
    /// The gathered `options: TensorOptions` argument of the Rust API.
    TensorOptions,
    /// The leading `DispatchKeySet` of a redispatch signature.
    KeySet,
}

/// One argument of a signature.
#[derive(Debug, Clone, PartialEq)]
pub struct SignatureArgument {
    /// The Rust identifier (`self_`, `r#type`, `options`).
    pub name: String,
    /// The schema argument's index, or `None` for the gathered `options` and the key set.
    pub index: Option<usize>,
    /// Its Rust type.
    pub ty: RustType,
    /// Its default, in families that keep defaults.
    pub default: Option<DefaultValue>,
    /// Where it comes from.
    pub role: ArgRole,
}

/// One signature of one family.
#[derive(Debug, Clone, PartialEq)]
pub struct Signature {
    /// The family.
    pub family: Family,
    /// The function name in that family (torchgen's for dispatcher/native, Rust's otherwise).
    pub name: String,
    /// The arguments, in order.
    pub arguments: Vec<SignatureArgument>,
    /// The return type (`()` as an empty tuple).
    pub returns: RustType,
}

/// The Rust type used where a schema type has no mapping; `validate` rejects such schemas
/// before anything is generated, so this only shows up in plans of unchecked schemas.
fn unsupported() -> RustType {
    RustType::Tuple(Vec::new())
}

fn role(schema: &Schema, i: usize, out_start: usize, to: Option<usize>) -> ArgRole {
    let a = &schema.arguments[i];
    if i >= out_start {
        ArgRole::Out
    } else if to.is_some_and(|t| i >= t && i < t + 4) {
        ArgRole::TensorOptionsPart
    } else if a.kwarg_only {
        ArgRole::KwargOnly
    } else {
        ArgRole::Positional
    }
}

/// The returns as one Rust type: `()`, the single return, or a tuple.
pub fn returns_type(schema: &Schema) -> RustType {
    let mut all: Vec<RustType> = schema
        .returns
        .iter()
        .map(|r| return_type(&r.ty).unwrap_or_else(unsupported))
        .collect();
    if all.len() == 1 {
        all.remove(0)
    } else {
        RustType::Tuple(all)
    }
}

fn scattered(schema: &Schema, with_defaults: bool) -> Vec<SignatureArgument> {
    let out_start = schema.out_start();
    let to = schema.tensor_options_start();
    schema
        .arguments
        .iter()
        .enumerate()
        .map(|(i, a)| SignatureArgument {
            name: super::names::arg_ident(&a.name),
            index: Some(i),
            ty: argument_type(&a.ty, a.is_write()).unwrap_or_else(unsupported),
            default: if with_defaults {
                a.default.clone()
            } else {
                None
            },
            role: role(schema, i, out_start, to),
        })
        .collect()
}

/// The dispatcher signature: schema order, TensorOptions scattered, no defaults.
///
/// ```
/// use opgen_core::plan::dispatcher_signature;
/// use opgen_core::schema::parse_schema;
/// let s = parse_schema("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)").unwrap();
/// let sig = dispatcher_signature(&s);
/// assert_eq!(sig.to_string(), "fn add_out(self_: &T, other: &T, alpha: Scalar, out: &mut T) -> T");
/// ```
pub fn dispatcher_signature(schema: &Schema) -> Signature {
    Signature {
        family: Family::Dispatcher,
        name: cpp_api_name(schema),
        arguments: scattered(schema, false),
        returns: returns_type(schema),
    }
}

/// The redispatch signature: a `DispatchKeySet` first, then the dispatcher signature.
pub fn redispatch_signature(schema: &Schema) -> Signature {
    let mut sig = dispatcher_signature(schema);
    sig.family = Family::Redispatch;
    sig.arguments.insert(
        0,
        SignatureArgument {
            name: "key_set".into(),
            index: None,
            ty: RustType::Value(ValueType::DispatchKeySet),
            default: None,
            role: ArgRole::KeySet,
        },
    );
    sig
}

/// The native (in-tree kernel) signature: schema order, with defaults for non-out schemas.
pub fn native_signature(schema: &Schema) -> Signature {
    Signature {
        family: Family::Native,
        name: super::names::native_name(schema),
        arguments: scattered(schema, !schema.is_out_fn()),
        returns: returns_type(schema),
    }
}

/// The public Rust API (torchgen's convenience C++ signature): out arguments first, the
/// TensorOptions group gathered into one `options: TensorOptions` argument in its place,
/// defaults kept except for the names in `no_default` (`cpp_no_default_args`). The gathered
/// `options` has a default when every part of the group has one.
pub fn rust_api_signature(schema: &Schema, no_default: &[String]) -> Signature {
    let parts = scattered(schema, true);
    let to = schema.tensor_options_start();
    let mut outs = Vec::new();
    let mut rest = Vec::new();
    for mut arg in parts {
        let name = &schema.arguments[arg.index.unwrap_or(0)].name;
        if no_default.iter().any(|n| n == name) {
            arg.default = None;
        }
        match arg.role {
            ArgRole::Out => outs.push(arg),
            ArgRole::TensorOptionsPart => {
                if arg.index == to {
                    let all_defaulted = to.is_some_and(|t| {
                        schema.arguments[t..t + 4]
                            .iter()
                            .all(|a| a.default.is_some())
                    });
                    rest.push(SignatureArgument {
                        name: "options".into(),
                        index: None,
                        ty: RustType::Value(ValueType::TensorOptions),
                        default: all_defaulted.then(|| DefaultValue {
                            text: "{}".into(),
                            value: crate::schema::Literal::Other("{}".into()),
                        }),
                        role: ArgRole::TensorOptions,
                    });
                }
            }
            _ => rest.push(arg),
        }
    }
    outs.extend(rest);
    Signature {
        family: Family::RustApi,
        name: rust_fn_name(schema),
        arguments: outs,
        returns: returns_type(schema),
    }
}

/// The faithful signature, only for schemas with out arguments or TensorOptions: schema
/// order, TensorOptions scattered, no defaults; named `<name>f` for out schemas
/// (`add_outf`) and `<name>_faithful` otherwise.
pub fn faithful_signature(schema: &Schema) -> Option<Signature> {
    let name = rust_fn_name(schema);
    let name = if schema.is_out_fn() {
        format!("{name}f")
    } else if schema.has_tensor_options() {
        format!("{name}_faithful")
    } else {
        return None;
    };
    Some(Signature {
        family: Family::Faithful,
        name,
        arguments: scattered(schema, false),
        returns: returns_type(schema),
    })
}

/// Whether the schema gets a method variant's receiver: the Rust API minus `self`.
pub fn method_receiver(schema: &Schema) -> Option<usize> {
    (schema.kind() != SchemaKind::Out)
        .then(|| schema.self_index())
        .flatten()
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "fn {}(", self.name)?;
        for (i, a) in self.arguments.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{}: {}", a.name, a.ty)?;
            if let Some(d) = &a.default {
                write!(f, " = {}", d.text)?;
            }
        }
        write!(f, ") -> {}", self.returns)
    }
}
