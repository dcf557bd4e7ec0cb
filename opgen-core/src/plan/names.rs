//! Names derived from a schema (SCHEMA.md §4.6), torchgen's and the Rust API's.
//!
//! The Rust name of an operator's free function and method is built from its name and
//! overload, so that it is unique per schema and reads like hand-written Rust:
//!
//! 1. start from the base name (`add`), or the dunder as written (`__and__`), or
//!    `normal_functional`;
//! 2. append `_` and the overload in snake case (`add.Scalar` → `add_scalar`,
//!    `sum.dim_IntList` → `sum_dim_int_list`), except the overload `Tensor`, which is the
//!    primary overload of most operators and is dropped (`add.Tensor` → `add`);
//! 3. schemas with out arguments end in `_out` (`add.out` → `add_out`,
//!    `max.dim_max` → `max_dim_max_out`);
//! 4. in-place operators end in `_` (`add_.Tensor` → `add_`, `add_.Scalar` → `add_scalar_`);
//! 5. characters that cannot appear in an identifier become `_`; Rust keywords become raw
//!    identifiers (`where` → `r#where`), and `self`, `super`, `crate`, `Self` get a trailing `_`.
//!
//! Two schemas can still meet on one name (`foo` and `foo.Tensor`); the macro's `name =`
//! option overrides the rule for such a case.

use crate::schema::{OperatorName, Schema};

/// torchgen's C++ API (and dispatcher) name: operator name, plus `_out` for out schemas.
pub fn cpp_api_name(schema: &Schema) -> String {
    let op = schema.name.operator_name();
    if schema.is_out_fn() {
        format!("{op}_out")
    } else {
        op
    }
}

/// torchgen's native name: operator name, `_out` for out schemas, `_overload` if any.
pub fn native_name(schema: &Schema) -> String {
    let mut s = cpp_api_name(schema);
    if let Some(o) = &schema.name.overload {
        s.push('_');
        s.push_str(o);
    }
    s
}

/// The Rust name of the free function and method (see the module docs).
///
/// ```
/// use opgen_core::plan::rust_fn_name;
/// use opgen_core::schema::parse_schema;
/// let name = |s| rust_fn_name(&parse_schema(s).unwrap());
/// assert_eq!(name("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"), "add");
/// assert_eq!(name("add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)"), "add_scalar_");
/// assert_eq!(name("sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"), "sum_dim_int_list");
/// assert_eq!(name("where(Tensor condition) -> Tensor[]"), "r#where");
/// ```
pub fn rust_fn_name(schema: &Schema) -> String {
    let words = rust_words(&schema.name, schema.is_out_fn());
    rust_ident(&words)
}

/// The name of the arguments struct that holds an operator's defaulted arguments:
/// the Rust function name in UpperCamelCase, `Inplace` for in-place operators, then `Args`
/// (`add` → `AddArgs`, `add_` → `AddInplaceArgs`, `sum_dim_int_list` → `SumDimIntListArgs`).
pub fn args_struct_name(schema: &Schema) -> String {
    let words = rust_words(&schema.name, schema.is_out_fn());
    let mut s = upper_camel(&words);
    if schema.name.name.inplace {
        s.push_str("Inplace");
    }
    s.push_str("Args");
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// The arguments struct of an operator whose Rust function is named `rust_name` (the
/// macro's `name =`, or a name `include_native_functions!` gave to tell two operators
/// apart): `rust_name` in UpperCamelCase with its leading underscores kept, `Inplace` for
/// in-place operators, then `Args`. For the usual name it is `args_struct_name` but for the
/// underscores: `_stack` → `_StackArgs`, so that a private operator's struct does not take
/// the public one's name.
///
/// ```
/// use opgen_core::plan::args_struct_name_for;
/// use opgen_core::schema::parse_schema;
/// let fill = parse_schema("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)").unwrap();
/// assert_eq!(args_struct_name_for(&fill, "fill_"), "FillInplaceArgs");
/// let stack = parse_schema("_stack(Tensor[] tensors, int dim=0) -> Tensor").unwrap();
/// assert_eq!(args_struct_name_for(&stack, "_stack"), "_StackArgs");
/// assert_eq!(args_struct_name_for(&stack, "stack_private"), "StackPrivateArgs");
/// ```
pub fn args_struct_name_for(schema: &Schema, rust_name: &str) -> String {
    let inplace = schema.name.name.inplace && !schema.name.name.dunder;
    let rust_name = rust_name.strip_prefix("r#").unwrap_or(rust_name);
    let lead = &rust_name[..rust_name.len() - rust_name.trim_start_matches('_').len()];
    let mut s = lead.to_string();
    for word in rust_name.split('_').filter(|w| !w.is_empty()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            s.extend(first.to_uppercase());
            s.push_str(chars.as_str());
        }
    }
    if inplace {
        s.push_str("Inplace");
    }
    s.push_str("Args");
    s
}

/// The marker type of a structured out operator (`Structured` + its Rust name in
/// UpperCamelCase): `add.out` → `StructuredAddOut`, `sum.IntList_out` →
/// `StructuredSumIntListOut`. Delegates and impls name the operator by its name only, so
/// the name is derived from the operator name, as for an out schema.
///
/// ```
/// use opgen_core::plan::structured_marker_name;
/// use opgen_core::schema::parse_operator_name;
/// let name = parse_operator_name("add.out").unwrap();
/// assert_eq!(structured_marker_name(&name), "StructuredAddOut");
/// ```
pub fn structured_marker_name(name: &OperatorName) -> String {
    format!("Structured{}", upper_camel(&rust_words(name, true)))
}

/// The marker of the operator named `name` (as [`marker_name`] of its free function's
/// name): what a structured impl or delegate naming the operator by string refers to.
/// The schema is not at hand, so the operator is taken for an out operator when its name
/// says so (an overload `out` or ending in `_out`), as structured operators are.
///
/// ```
/// use opgen_core::plan::marker_of;
/// use opgen_core::schema::parse_operator_name;
/// assert_eq!(marker_of(&parse_operator_name("add.out").unwrap()), "add_out");
/// assert_eq!(marker_of(&parse_operator_name("sum.IntList_out").unwrap()), "sum_int_list_out");
/// ```
pub fn marker_of(name: &OperatorName) -> String {
    marker_name(&rust_words(name, true))
}

/// The marker of the functional operator of the in-place or out operator named `name`, by
/// the naming of PyTorch's operator groups: the in-place operator's name without its `_`,
/// the out operator's overload without `out` (`derivatives(functional)` takes that
/// operator's formulas).
///
/// ```
/// use opgen_core::plan::functional_marker_of;
/// use opgen_core::schema::parse_operator_name;
/// let marker = |s| functional_marker_of(&parse_operator_name(s).unwrap());
/// assert_eq!(marker("mul_.Tensor"), "mul");
/// assert_eq!(marker("mul.out"), "mul");
/// assert_eq!(marker("add_.Scalar"), "add_scalar");
/// assert_eq!(marker("sum.IntList_out"), "sum_int_list");
/// ```
pub fn functional_marker_of(name: &OperatorName) -> String {
    let mut f = name.clone();
    f.name.inplace = false;
    f.overload = (name.overload.as_deref())
        .map(|o| o.strip_suffix("out").unwrap_or(o).trim_end_matches('_'))
        .filter(|o| !o.is_empty())
        .map(Into::into);
    marker_name(&rust_words(&f, false))
}

/// The struct of a structured operator's precomputed values: `sum.IntList_out` →
/// `SumIntListOutPrecompute`.
///
/// ```
/// use opgen_core::plan::precompute_struct_name;
/// use opgen_core::schema::parse_operator_name;
/// let name = parse_operator_name("add.out").unwrap();
/// assert_eq!(precompute_struct_name(&name), "AddOutPrecompute");
/// ```
pub fn precompute_struct_name(name: &OperatorName) -> String {
    format!("{}Precompute", upper_camel(&rust_words(name, true)))
}

fn rust_words(name: &OperatorName, is_out: bool) -> String {
    let n = &name.name;
    let mut s = if n.dunder {
        n.to_string()
    } else if n.functional_overload {
        format!("{}_functional", n.base)
    } else {
        n.base.to_string()
    };
    if let Some(o) = name.overload.as_deref().filter(|o| *o != "Tensor") {
        s.push('_');
        s.push_str(&snake_case(o));
    }
    if is_out && !s.ends_with("out") {
        s.push_str("_out");
    }
    if n.inplace && !n.dunder {
        s.push('_');
    }
    s
}

/// `dim_IntList` → `dim_int_list`, `SymInt` → `sym_int`, `Tensor_Scalar` → `tensor_scalar`.
pub fn snake_case(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn upper_camel(s: &str) -> String {
    let mut out = String::new();
    for word in s.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut cs = word.chars();
        if let Some(first) = cs.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(cs);
        }
    }
    if out.is_empty() {
        out.push_str("Op");
    }
    out
}

const STRICT_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// A Rust identifier for `name`: invalid characters become `_`, keywords become raw
/// identifiers, and `self`/`super`/`crate`/`Self` (which cannot be raw) get a trailing `_`.
///
/// ```
/// use opgen_core::plan::rust_ident;
/// assert_eq!(rust_ident("self"), "self_");
/// assert_eq!(rust_ident("type"), "r#type");
/// assert_eq!(rust_ident("x-y"), "x_y");
/// ```
pub fn rust_ident(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if s == "_" {
        return "_op".to_string();
    }
    if matches!(s.as_str(), "self" | "super" | "crate" | "Self") {
        s.push('_');
    } else if STRICT_KEYWORDS.contains(&s.as_str()) {
        s.insert_str(0, "r#");
    }
    s
}

/// The Rust identifier of the argument `name` (its parameter, field and binding): the name
/// lower-cased, then [`rust_ident`]. Lower case keeps parameters, which are patterns, clear of
/// the constants and unit structs of the user's module (`A`, `LD`, `U` in ATen's schemas).
///
/// ```
/// use opgen_core::plan::arg_ident;
/// assert_eq!(arg_ident("LU_data"), "lu_data");
/// assert_eq!(arg_ident("Type"), "r#type");
/// assert_eq!(arg_ident("self"), "self_");
/// ```
pub fn arg_ident(name: &str) -> String {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        rust_ident(&name.to_ascii_lowercase())
    } else {
        rust_ident(name)
    }
}

/// A form's name: `prefix` + NAME + `suffix`, with NAME's leading and trailing underscores
/// kept outside (`add_` → `try_add_`, `add_with_`; `__and__` → `__try_and__`), so that the
/// in-place `_` stays last and names stay snake case.
///
/// ```
/// use opgen_core::plan::form_name;
/// assert_eq!(form_name("add", "try_", "_with"), "try_add_with");
/// assert_eq!(form_name("add_", "", "_with"), "add_with_");
/// assert_eq!(form_name("__dispatch_zeros", "try_", ""), "__try_dispatch_zeros");
/// ```
pub fn form_name(name: &str, prefix: &str, suffix: &str) -> String {
    let core = name.trim_matches('_');
    if core.is_empty() {
        return format!("{prefix}{name}{suffix}");
    }
    let lead = &name[..name.len() - name.trim_start_matches('_').len()];
    let trail = &name[name.trim_end_matches('_').len()..];
    format!("{lead}{prefix}{core}{suffix}{trail}")
}

/// `base`, or `base` with underscores appended until no name in `taken` has it.
///
/// ```
/// use std::collections::BTreeSet;
/// use opgen_core::plan::fresh_name;
/// let taken: BTreeSet<String> = ["args".to_string(), "args_".to_string()].into();
/// assert_eq!(fresh_name("args", &taken), "args__");
/// assert_eq!(fresh_name("alpha", &taken), "alpha");
/// ```
pub fn fresh_name(base: &str, taken: &std::collections::BTreeSet<String>) -> String {
    let mut name = base.to_string();
    while taken.contains(&name) {
        // `r#type` becomes `type_`, which is no keyword.
        if let Some(raw) = name.strip_prefix("r#") {
            name = raw.to_string();
        }
        name.push('_');
    }
    name
}

/// Rust's primitive types: a marker may not take their names (it would shadow them in its
/// module).
const PRIMITIVES: &[&str] = &[
    "bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
    "u128", "usize", "f16", "f32", "f64", "f128",
];

/// The marker type of the operator whose Rust name is `name` (without `r#`): the same name,
/// in the type namespace (`aten::add` is the function and the marker), raw when a keyword;
/// a primitive type's name gets `_op` appended.
///
/// ```
/// use opgen_core::plan::marker_name;
/// assert_eq!(marker_name("add"), "add");
/// assert_eq!(marker_name("where"), "r#where");
/// assert_eq!(marker_name("bool"), "bool_op");
/// ```
pub fn marker_name(name: &str) -> String {
    if PRIMITIVES.contains(&name) {
        format!("{name}_op")
    } else {
        rust_ident(name)
    }
}

/// The methods of the traits of Rust's prelude (2024 edition, stable): a method of an
/// extension trait with one of these names would make a call ambiguous on a type that
/// implements the std trait too.
pub const PRELUDE_METHODS: &[&str] = &[
    // Clone, PartialEq, PartialOrd, Ord
    "clone",
    "clone_from",
    "eq",
    "ne",
    "partial_cmp",
    "lt",
    "le",
    "gt",
    "ge",
    "cmp",
    "max",
    "min",
    "clamp",
    // ToOwned, ToString, AsRef, AsMut, Into, TryInto, Extend, IntoIterator, Drop
    "to_owned",
    "clone_into",
    "to_string",
    "as_ref",
    "as_mut",
    "into",
    "try_into",
    "extend",
    "into_iter",
    "drop",
    // Future, IntoFuture
    "poll",
    "into_future",
    // Iterator, DoubleEndedIterator, ExactSizeIterator
    "next",
    "size_hint",
    "count",
    "last",
    "nth",
    "step_by",
    "chain",
    "zip",
    "map",
    "for_each",
    "filter",
    "filter_map",
    "enumerate",
    "peekable",
    "skip_while",
    "take_while",
    "map_while",
    "skip",
    "take",
    "scan",
    "flat_map",
    "flatten",
    "fuse",
    "inspect",
    "by_ref",
    "collect",
    "partition",
    "try_fold",
    "try_for_each",
    "fold",
    "reduce",
    "all",
    "any",
    "find",
    "find_map",
    "position",
    "rposition",
    "max_by_key",
    "max_by",
    "min_by_key",
    "min_by",
    "rev",
    "unzip",
    "copied",
    "cloned",
    "cycle",
    "sum",
    "product",
    "is_sorted",
    "is_sorted_by",
    "is_sorted_by_key",
    "next_back",
    "nth_back",
    "rfold",
    "rfind",
    "try_rfold",
    "len",
];

/// The name of a method form named `form` (`clone`, `try_clone`): in an extension trait, a
/// name of [`PRELUDE_METHODS`] gets `_op` appended (before a trailing in-place `_`), so that
/// importing the trait never makes a call of the std method ambiguous; `t.clone()` stays
/// `Clone::clone` and the operator is `t.clone_op()`. Inherent methods keep their names:
/// they win over trait methods.
///
/// ```
/// use opgen_core::plan::method_name;
/// assert_eq!(method_name("clone", true), "clone_op");
/// assert_eq!(method_name("try_clone", true), "try_clone");
/// assert_eq!(method_name("clone", false), "clone");
/// ```
pub fn method_name(form: &str, in_trait: bool) -> String {
    let bare = form.strip_prefix("r#").unwrap_or(form);
    if in_trait && PRELUDE_METHODS.contains(&bare) {
        form_name(bare, "", "_op")
    } else {
        form.to_string()
    }
}

/// The names an operator of a yaml file takes when its usual ones clash with another
/// operator's (`include_native_functions!`): at `level` 1 its overload spelled out where
/// the usual name drops it (`clamp.Tensor` → `clamp_tensor`), from `level` 2 also a number
/// (`clamp_tensor_2`); the arguments struct follows the name. Returns (function name,
/// arguments struct name).
///
/// ```
/// use opgen_core::plan::rename_candidate;
/// use opgen_core::schema::parse_schema;
/// let clamp = parse_schema("clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)").unwrap();
/// assert_eq!(rename_candidate(&clamp, 1), ("clamp_tensor_".into(), "ClampTensorInplaceArgs".into()));
/// assert_eq!(rename_candidate(&clamp, 2), ("clamp_tensor_2_".into(), "ClampTensor2InplaceArgs".into()));
/// ```
pub fn rename_candidate(schema: &Schema, level: usize) -> (String, String) {
    let usual = rust_fn_name(schema);
    let usual = usual.strip_prefix("r#").unwrap_or(&usual);
    let mut suffix = String::new();
    if schema.name.overload.as_deref() == Some("Tensor") {
        suffix.push_str("_tensor");
    }
    if level > 1 {
        suffix.push_str(&format!("_{level}"));
    }
    let core_end = usual.trim_end_matches('_').len();
    let name = if core_end == 0 {
        format!("{usual}{suffix}")
    } else {
        format!("{}{suffix}{}", &usual[..core_end], &usual[core_end..])
    };
    let args = args_struct_name_for(schema, &name);
    (name, args)
}
