//! The kernel's Rust signature against the schema: parameter count, each parameter's type
//! (with `&`/`&mut` agreeing with the schema's writes), the return type, the tensor type.

use super::fit::{Fit, fit, type_string};
use super::{KernelFn, Param};
use crate::codegen::diag::Diagnostics;
use crate::plan::{RustType, argument_type, return_type, returns_type};
use crate::schema::{Schema, SchemaLayout};

/// What the checks learnt about a kernel that fits its schema.
pub(crate) struct Signature {
    /// The user's tensor type (`T` of the mapping), as written.
    pub tensor: syn::Type,
    /// How the kernel's output becomes the operator's returns.
    pub output: Output,
    /// Some user type the check could not judge (an alias): the kernel registers through an
    /// adapter over the operator's Rust types, so that rustc compares them at the user's.
    pub deferred: bool,
}

/// How the kernel's output becomes the operator's returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Output {
    /// The kernel returns the returns.
    Value,
    /// The kernel returns `()` (or `Result<(), E>`) and every return is a written argument:
    /// the adapter returns clones of these arguments (schema indices), in order.
    Alias(Vec<usize>),
}

/// Checks `kernel` against `schema` (whose canonical text and layout are `text`, `at`),
/// with the tensor type from the `tensor` option if given. Reports every mismatch.
pub(crate) fn check_signature(
    schema: &Schema,
    text: &str,
    at: &SchemaLayout,
    kernel: &KernelFn,
    tensor_option: Option<&syn::Type>,
    diag: &mut Diagnostics,
) -> Option<Signature> {
    let expected: Vec<Option<RustType>> = schema
        .arguments
        .iter()
        .map(|a| argument_type(&a.ty, a.is_write()))
        .collect();
    let returns_ok = schema.returns.iter().all(|r| return_type(&r.ty).is_some());
    let expected_ret = returns_type(schema);
    // First pass: find the tensor type, from the option or the first place that names it.
    let mut tensor = tensor_option.cloned();
    for (e, p) in expected.iter().zip(&kernel.params) {
        if let Some(e) = e {
            fit(e, &p.ty, &mut tensor);
        }
    }
    if let (true, Some(value)) = (returns_ok, &kernel.output.value) {
        fit(&expected_ret, value, &mut tensor);
    }
    let before = diag.len();
    let name = kernel.ident();
    let op = schema.name.full_name();
    let (have, want) = (kernel.params.len(), schema.arguments.len());
    if have < want {
        let missing: Vec<String> = schema.arguments[have..]
            .iter()
            .map(|a| format!("`{}`", a.name))
            .collect();
        let (one, many) = ("add one for", "add parameters for");
        diag.at_span(
            kernel.sig.paren_token.span.join(),
            format!(
                "kernel `{name}` has {have} parameter{} but `{op}` declares {want}; {} {}",
                plural(have),
                if missing.len() == 1 { one } else { many },
                missing.join(", ")
            ),
        );
    } else if have > want {
        for p in &kernel.params[want..] {
            diag.at(
                &p.pat,
                format!(
                    "kernel `{name}` has {have} parameters but `{op}` declares {want}; remove `{}`, \
                     or add its argument to the schema",
                    p.label()
                ),
            );
        }
    }
    let mut deferred = false;
    if have == want {
        for (i, (e, p)) in expected.iter().zip(&kernel.params).enumerate() {
            let Some(e) = e else { continue };
            let schema_ty = at
                .arguments
                .get(i)
                .and_then(|l| text.get(l.ty.clone()))
                .unwrap_or_default();
            check_param(
                p,
                e,
                schema_ty,
                &schema.arguments[i].name,
                &mut tensor,
                &mut deferred,
                diag,
            );
        }
    }
    let output = if returns_ok {
        check_output(
            schema,
            text,
            at,
            kernel,
            &expected_ret,
            &mut tensor,
            &mut deferred,
            diag,
        )
    } else {
        Output::Value
    };
    let Some(tensor) = tensor else {
        diag.at_span(
            name.span(),
            format!(
                "no parameter or return of kernel `{name}` has the tensor type, so it is unknown; \
                 name it with `tensor = \"MyTensor\"`"
            ),
        );
        return None;
    };
    (diag.len() == before).then_some(Signature {
        tensor,
        output,
        deferred,
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The expected type with `T` spelled as the user's tensor type (or `T` while unknown).
pub(crate) fn expected_string(e: &RustType, tensor: Option<&syn::Type>) -> String {
    let t = tensor.map_or_else(|| "T".to_string(), type_string);
    match e {
        RustType::Tensor => t,
        RustType::Value(v) => v.as_str().to_string(),
        RustType::Str => "&str".to_string(),
        RustType::Ref(inner) => format!("&{}", expected_string(inner, tensor)),
        RustType::Mut(inner) => format!("&mut {}", expected_string(inner, tensor)),
        RustType::Slice(inner) => format!("[{}]", expected_string(inner, tensor)),
        RustType::Array(inner, n) => format!("[{}; {n}]", expected_string(inner, tensor)),
        RustType::Option(inner) => format!("Option<{}>", expected_string(inner, tensor)),
        RustType::Vec(inner) => format!("Vec<{}>", expected_string(inner, tensor)),
        RustType::Tuple(elems) => {
            let parts: Vec<String> = elems.iter().map(|x| expected_string(x, tensor)).collect();
            if parts.len() == 1 {
                format!("({},)", parts.join(""))
            } else {
                format!("({})", parts.join(", "))
            }
        }
    }
}

fn check_param(
    p: &Param,
    e: &RustType,
    schema_ty: &str,
    arg: &str,
    tensor: &mut Option<syn::Type>,
    deferred: &mut bool,
    diag: &mut Diagnostics,
) {
    let label = || p.label();
    let have = || type_string(&p.ty);
    let fit = fit(e, &p.ty, tensor);
    let want = || expected_string(e, tensor.as_ref());
    match fit {
        Fit::Yes => {}
        Fit::Defer => *deferred = true,
        Fit::Mutability {
            schema_writes: true,
        } => diag.at(
            &p.ty,
            format!(
                "parameter `{}` is `{}`, but the schema writes `{arg}` (`{schema_ty} {arg}`); \
                 take it as `{}`, or drop the `!` from the schema if the kernel does not write it",
                label(),
                have(),
                want()
            ),
        ),
        Fit::Mutability {
            schema_writes: false,
        } => diag.at(
            &p.ty,
            format!(
                "parameter `{}` is `{}`, but the schema does not write `{arg}` \
                 (`{schema_ty} {arg}`); mark it written in the schema (`Tensor(a!) {arg}`), \
                 or take it as `{}`",
                label(),
                have(),
                want()
            ),
        ),
        Fit::No => diag.at(
            &p.ty,
            format!(
                "parameter `{}` is `{}` but `{schema_ty}` needs `{}`",
                label(),
                have(),
                want()
            ),
        ),
    }
}

#[allow(clippy::too_many_arguments)]
fn check_output(
    schema: &Schema,
    text: &str,
    at: &SchemaLayout,
    kernel: &KernelFn,
    e: &RustType,
    tensor: &mut Option<syn::Type>,
    deferred: &mut bool,
    diag: &mut Diagnostics,
) -> Output {
    let out = &kernel.output;
    let returns_text = text.get(at.returns_all.clone()).unwrap_or_default();
    let aliases = written_aliases(schema);
    let is_unit = out
        .value
        .as_ref()
        .is_none_or(|v| matches!(v, syn::Type::Tuple(t) if t.elems.is_empty()));
    if is_unit && let Some(aliases) = &aliases {
        return Output::Alias(aliases.clone());
    }
    let want = |tensor: &Option<syn::Type>| expected_string(e, tensor.as_ref());
    let also_unit = if aliases.is_some() {
        ", or `()` (the written arguments are returned)"
    } else {
        ""
    };
    let name = kernel.ident();
    let Some(value) = &out.value else {
        if *e != RustType::Tuple(Vec::new()) {
            let want = want(tensor);
            diag.at_span(
                out.span,
                format!(
                    "kernel `{name}` returns nothing but `-> {returns_text}` needs `{want}` \
                     (or a `Result` of it{also_unit}); add `-> {want}`"
                ),
            );
        }
        return Output::Value;
    };
    match fit(e, value, tensor) {
        Fit::Yes => {}
        Fit::Defer => *deferred = true,
        Fit::No | Fit::Mutability { .. } => {
            let want = want(tensor);
            let shown = out.written.as_ref().unwrap_or(value);
            diag.at(
                shown,
                format!(
                    "kernel `{name}` returns `{}` but `-> {returns_text}` needs `{want}` \
                     (or a `Result` of it{also_unit})",
                    type_string(value)
                ),
            );
        }
    }
    Output::Value
}

/// For schemas whose returns are all written aliases (`-> Tensor(a!)`), the argument each
/// return aliases, if every one is a written `Tensor` argument.
fn written_aliases(schema: &Schema) -> Option<Vec<usize>> {
    if schema.returns.is_empty() || !schema.returns.iter().all(|r| r.is_write()) {
        return None;
    }
    schema
        .returns
        .iter()
        .map(|r| {
            schema.arguments.iter().position(|a| {
                a.is_write() && a.ty.is_plain_tensor() && a.annotation == r.annotation
            })
        })
        .collect()
}
