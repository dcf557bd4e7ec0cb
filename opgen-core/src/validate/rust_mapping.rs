//! R84–R89: schemas that parse but have no Rust (or C++) signature.

use std::cell::OnceCell;
use std::ops::Range;

use crate::plan::{MAX_REPEATED_DEFAULT, repeats_too_far};
use crate::schema::{ArgType, Argument, BaseType, Rule, Schema, SchemaError, SchemaLayout, layout};

/// Checks that `schema` maps onto a Rust API (SCHEMA.md §2.8, R84–R89), returning every
/// problem found, each with its rule id, a hint, and the byte range of the smallest
/// offending text in `schema.to_string()`.
///
/// `method_variant` says whether the entry asks for a method (`variants: method`), which
/// needs a positional `self` argument (R84). The errors come in the order torchgen would
/// meet them while deriving signatures: R84 first, then each argument's type (R85, R89)
/// and default (R86), then each return (R85, R87–R89). An empty vector means the schema
/// can be planned. R86 sees the schema only: torchgen does not read the defaults of
/// arguments an entry lists in `cpp_no_default_args`, so a caller holding the entry may
/// drop R86 errors for those.
///
/// ```
/// use opgen_core::schema::{parse_schema, Rule};
/// use opgen_core::validate::check_rust_mapping;
/// let text = "foo(Tensor self, bool[] mask) -> Tensor";
/// let schema = parse_schema(text).unwrap();
/// let errors = check_rust_mapping(&schema, false);
/// assert_eq!(errors[0].rule, Rule::UnsizedBoolList);
/// assert_eq!(&text[errors[0].range.clone()], "bool[]");
/// assert!(check_rust_mapping(&parse_schema("relu(Tensor self) -> Tensor").unwrap(), true).is_empty());
/// ```
pub fn check_rust_mapping(schema: &Schema, method_variant: bool) -> Vec<SchemaError> {
    // The layout is only needed to report a problem, and most schemas have none.
    let at = OnceCell::new();
    let at = || at.get_or_init(|| layout(schema));
    let mut errors = Vec::new();
    if method_variant && schema.self_index().is_none() {
        errors.push(method_without_self(schema, at()));
    }
    for (i, arg) in schema.arguments.iter().enumerate() {
        if let Some((rule, sub)) = argument_type_problem(&arg.ty) {
            let range = sub_type_range(at().arguments[i].ty.clone(), &arg.ty, sub);
            let what = format!("argument `{}`", arg.name);
            errors.push(type_error(rule, range, sub, &what));
        }
        if let Some(default) = &arg.default
            && let Some(range) = at().arguments[i].default.clone()
        {
            if !list_default_ok(&default.text, &arg.ty) {
                errors.push(list_default_error(arg, &default.text, range));
            } else if repeats_too_far(&arg.ty, &default.value) {
                errors.push(repeated_default_error(arg, &default.text, range));
            }
        }
    }
    for (i, ret) in schema.returns.iter().enumerate() {
        if let Some((rule, sub)) = return_type_problem(&ret.ty, ret.is_write()) {
            let range = sub_type_range(at().returns[i].ty.clone(), &ret.ty, sub);
            let what = match &ret.name {
                Some(n) => format!("return `{n}`"),
                None => format!("return {i}"),
            };
            errors.push(type_error(rule, range, sub, &what));
        }
    }
    errors
}

fn method_without_self(schema: &Schema, at: &SchemaLayout) -> SchemaError {
    let op = schema.name.full_name();
    // A keyword-only `self` is the likely slip: point at it rather than at the whole list.
    let kwarg_self = schema
        .arguments
        .iter()
        .position(|a| a.kwarg_only && a.name == "self");
    match kwarg_self.and_then(|i| at.arguments.get(i)) {
        Some(place) => SchemaError::new(
            Rule::MethodWithoutSelf,
            place.whole.clone(),
            format!("`{op}` has a method variant, but its `self` argument is keyword-only"),
        )
        .with_hint("move `self` before `*`, or drop `method` from `variants`"),
        None => SchemaError::new(
            Rule::MethodWithoutSelf,
            at.argument_list.clone(),
            format!("`{op}` has a method variant but no `self` argument"),
        )
        .with_hint("add a positional `Tensor self` argument, or drop `method` from `variants`"),
    }
}

fn type_error(rule: Rule, range: Range<usize>, sub: &ArgType, what: &str) -> SchemaError {
    let (message, hint) = match rule {
        Rule::UnsizedBoolList => (
            format!("`{sub}` in {what} is a `bool` list without a fixed size"),
            "write a fixed size such as `bool[3]`; only fixed-size `bool` lists have a Rust type".to_string(),
        ),
        Rule::UnmappableType => (
            format!("type `{sub}` of {what} has no Rust mapping"),
            match sub {
                ArgType::CustomClass(_) => "custom classes cannot be passed through the generated API; use a `Tensor` or a value type".to_string(),
                _ => "`GraphModule` is known to the parser only; use a `Tensor` or a value type".to_string(),
            },
        ),
        Rule::MutableListReturn => (
            format!("{what} is a written tensor list `{sub}`"),
            "return nothing (`-> ()`); the caller already holds the list".to_string(),
        ),
        _ if sub.is_list() => (
            format!("{what} has the fixed-size list type `{sub}`"),
            format!("return an unsized list such as `{}`", ArgType::list(list_elem(sub).clone(), None)),
        ),
        _ => (
            format!("{what} has the optional type `{sub}`, which has no Rust return type"),
            "optional returns are `Tensor?` or an optional value type such as `int?` or `bool?`".to_string(),
        ),
    };
    SchemaError::new(rule, range, message).with_hint(hint)
}

fn list_default_error(arg: &Argument, text: &str, range: Range<usize>) -> SchemaError {
    SchemaError::new(
        Rule::ListDefault,
        range,
        format!(
            "default `{text}` of list argument `{}` (`{}`) is not written in brackets",
            arg.name, arg.ty
        ),
    )
    .with_hint(format!(
        "write `[{text}]` (or `[]`); only fixed-size lists such as `int[2]` take a single value"
    ))
}

fn repeated_default_error(arg: &Argument, text: &str, range: Range<usize>) -> SchemaError {
    SchemaError::new(
        Rule::ListDefault,
        range,
        format!(
            "default `{text}` of list argument `{}` (`{}`) repeats into more than \
             {MAX_REPEATED_DEFAULT} items",
            arg.name, arg.ty
        ),
    )
    .with_hint(format!(
        "write the default in brackets, or declare a size of at most {MAX_REPEATED_DEFAULT}; \
         a single value repeats to the list's size, and opgen does not build longer lists \
         from one value"
    ))
}

fn list_elem(t: &ArgType) -> &ArgType {
    match t {
        ArgType::List { elem, .. } => elem,
        t => t,
    }
}

/// The range of `sub`, a part of `whole` printed at `ty`. Types print inside out (`int[2]?`
/// is `int[2]` then `?`), so a nested type is a prefix of the text; only `Tensor` carries an
/// annotation, and its sub-types (`Tensor` in `Tensor(a)[]`) are prefixes too.
fn sub_type_range(ty: Range<usize>, whole: &ArgType, sub: &ArgType) -> Range<usize> {
    if std::ptr::eq(whole, sub) {
        ty
    } else {
        ty.start..ty.start + sub.to_string().len()
    }
}

/// An argument type's first part, outermost first, that torchgen's C++ argument types cannot
/// express: a custom class or `GraphModule` (R89), or an unsized `bool` list (R85).
fn argument_type_problem(t: &ArgType) -> Option<(Rule, &ArgType)> {
    match t {
        ArgType::CustomClass(_) | ArgType::Base(BaseType::GraphModule) => {
            Some((Rule::UnmappableType, t))
        }
        ArgType::Base(_) => None,
        ArgType::List { elem, size: None } if **elem == ArgType::Base(BaseType::Bool) => {
            Some((Rule::UnsizedBoolList, t))
        }
        ArgType::List { elem, .. } | ArgType::Optional(elem) => argument_type_problem(elem),
    }
}

/// What torchgen's C++ return type mapping rejects, in its order: value types first (R85,
/// R89), then a written list (R88), the element of a list, fixed-size lists and optionals
/// other than `Tensor?` and optional value types (R87).
fn return_type_problem(t: &ArgType, written: bool) -> Option<(Rule, &ArgType)> {
    match value_type(t) {
        Ok(true) => return None,
        Err(problem) => return Some(problem),
        Ok(false) => {}
    }
    match t {
        ArgType::Base(BaseType::Tensor | BaseType::Scalar) => None,
        ArgType::List { elem, size } => {
            if written {
                return Some((Rule::MutableListReturn, t));
            }
            if let Some(problem) = return_type_problem(elem, false) {
                return Some(problem);
            }
            size.is_some().then_some((Rule::ReturnType, t))
        }
        ArgType::Optional(elem) => {
            if let Some(problem) = return_type_problem(elem, written) {
                return Some(problem);
            }
            (!elem.is_plain_tensor()).then_some((Rule::ReturnType, t))
        }
        // `value_type` has classified every other type.
        _ => Some((Rule::ReturnType, t)),
    }
}

/// Whether `t` is a value type (one C++/Rust value, passed by value): every base type but
/// `Tensor` and `Scalar`, optionals of value types, and fixed-size `bool` lists. Types that
/// have no mapping at all are errors (R85, R89).
fn value_type(t: &ArgType) -> Result<bool, (Rule, &ArgType)> {
    match t {
        ArgType::Base(BaseType::Tensor | BaseType::Scalar) => Ok(false),
        ArgType::Base(BaseType::GraphModule) | ArgType::CustomClass(_) => {
            Err((Rule::UnmappableType, t))
        }
        ArgType::Base(_) => Ok(true),
        ArgType::Optional(elem) => value_type(elem),
        ArgType::List { elem, size } if **elem == ArgType::Base(BaseType::Bool) => match size {
            Some(_) => Ok(true),
            None => Err((Rule::UnsizedBoolList, t)),
        },
        ArgType::List { .. } => Ok(false),
    }
}

/// torchgen's `default_expr` for lists: `None` is fine for an optional, and an unsized list
/// needs a bracketed default; a fixed-size list may repeat one value (`int[2] padding=0`).
fn list_default_ok(text: &str, t: &ArgType) -> bool {
    match t {
        ArgType::Optional(elem) => text == "None" || list_default_ok(text, elem),
        ArgType::List { size: None, .. } => text.starts_with('[') && text.ends_with(']'),
        _ => true,
    }
}
