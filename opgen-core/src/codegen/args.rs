//! Parsing the attribute: the positional schema literal, then the `key = value` options
//! (darling), then the option values that have a closed syntax (`dispatch`, `methods`,
//! `tensor`, `crate`, `op`).

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::{Span, TokenStream as TokenStream2, TokenTree};
use syn::{LitBool, LitStr};

use super::diag::{Diagnostics, render};
use crate::dispatch::DispatchKey;
use crate::schema::{OperatorName, Rule, SchemaError, parse_operator_name};

/// The `key = value` options of `#[native_function]` (docs/MACROS.md lists them). Every
/// value is kept as its literal, so that a problem with it is reported on it.
#[derive(Debug, Default, FromMeta)]
pub struct Options {
    /// `"function"`, `"method"` or `"function, method"` (default `function`).
    pub variants: Option<LitStr>,
    /// The keys this kernel is registered for, comma-separated (default
    /// `CompositeImplicitAutograd`).
    pub dispatch: Option<LitStr>,
    /// `structured = true` on a structured out kernel.
    pub structured: Option<LitBool>,
    /// The structured out operator this one delegates to.
    pub structured_delegate: Option<LitStr>,
    /// The meta struct's base.
    pub structured_inherits: Option<LitStr>,
    /// Precomputed values, one yaml line each, separated by `;`.
    pub precomputed: Option<LitStr>,
    /// Whether wrappers install a device guard.
    pub device_guard: Option<LitBool>,
    /// `NoCheck` or `ExactSame`.
    pub device_check: Option<LitStr>,
    /// Kernels are registered by hand: only the operator is defined.
    pub manual_kernel_registration: Option<LitBool>,
    /// The public functions are written by hand: the generated ones are named `__dispatch_*`.
    pub manual_cpp_binding: Option<LitBool>,
    /// The Python module of the binding.
    pub python_module: Option<LitStr>,
    /// `factory` or `dummy`.
    pub category_override: Option<LitStr>,
    /// Tags, comma-separated.
    pub tags: Option<LitStr>,
    /// Arguments whose defaults the Rust API drops, comma-separated.
    pub cpp_no_default_args: Option<LitStr>,
    /// Operators generated for this one's group, `", "`-separated.
    pub autogen: Option<LitStr>,
    /// Written tensors passed by shared reference.
    pub use_const_ref_for_mutable_tensors: Option<LitBool>,
    /// The Rust name of the free function and method; with an inferred schema, the
    /// operator's name.
    pub name: Option<LitStr>,
    /// The namespace when the schema has no `ns::` prefix (default `aten`).
    pub namespace: Option<LitStr>,
    /// The runtime path (default `::opgen`).
    #[darling(rename = "crate")]
    pub krate: Option<LitStr>,
    /// `"inherent"` (default) or `"trait NAME"`.
    pub methods: Option<LitStr>,
    /// The operator, defined elsewhere, that this function is a kernel of.
    pub op: Option<LitStr>,
    /// The tensor type, when no parameter or return names it.
    pub tensor: Option<LitStr>,
}

/// How methods are attached.
#[derive(Debug, Clone)]
pub(crate) enum Methods {
    /// An inherent `impl` on the tensor type (in the crate that defines it).
    Inherent,
    /// An extension trait of this name, implemented for the tensor type.
    Trait(syn::Ident),
}

/// One key of `dispatch`, with where it is written in the literal's value.
#[derive(Debug, Clone)]
pub(crate) struct KeyAt {
    pub key: DispatchKey,
    pub range: std::ops::Range<usize>,
}

/// The attribute, parsed.
pub(crate) struct Attribute {
    /// The schema literal, when written first.
    pub lit: Option<LitStr>,
    pub options: Options,
    /// The `dispatch` keys; empty when the option is absent.
    pub keys: Vec<KeyAt>,
    pub methods: Methods,
    /// `tensor = "..."`, parsed.
    pub tensor: Option<syn::Type>,
    /// `op = "..."`, parsed: namespace (default `aten`) and name.
    pub op: Option<(String, OperatorName)>,
    pub rt: syn::Path,
}

const SCHEMA_FIRST: &str = "expected the schema string first, e.g. \
     #[native_function(\"relu(Tensor self) -> Tensor\")]";

/// Parses the attribute's arguments, reporting every problem found.
pub(crate) fn parse_attribute(args: TokenStream2) -> syn::Result<Attribute> {
    check_schema_is_literal(&args)?;
    let metas = match fast_meta_list(&args) {
        Some(metas) => metas,
        None => NestedMeta::parse_meta_list(args)?,
    };
    let (lit, rest) = match metas.split_first() {
        Some((NestedMeta::Lit(syn::Lit::Str(lit)), rest)) => (Some(lit.clone()), rest),
        Some((NestedMeta::Lit(other), _)) => {
            return Err(syn::Error::new_spanned(other, SCHEMA_FIRST));
        }
        _ => (None, metas.as_slice()),
    };
    let mut diag = Diagnostics::default();
    for meta in rest {
        if let NestedMeta::Lit(lit) = meta {
            diag.at(
                lit,
                "unexpected literal; only the schema comes without a key, and it comes first",
            );
        }
    }
    let options: Vec<NestedMeta> = rest
        .iter()
        .filter(|m| matches!(m, NestedMeta::Meta(_)))
        .cloned()
        .collect();
    let options = match Options::from_list(&options) {
        Ok(options) => options,
        Err(err) => {
            diag.push(err.into());
            return diag.finish(()).and(Err(internal_unreachable()));
        }
    };
    let keys = options
        .dispatch
        .as_ref()
        .map(|lit| parse_dispatch(lit, &mut diag))
        .unwrap_or_default();
    let methods = options
        .methods
        .as_ref()
        .map_or(Methods::Inherent, |lit| parse_methods(lit, &mut diag));
    let tensor = options.tensor.as_ref().and_then(|lit| {
        parse_or_report(lit, "`tensor` must be a type such as `MyTensor`", &mut diag)
    });
    let op = options.op.as_ref().and_then(|lit| parse_op(lit, &mut diag));
    let rt = match super::paths::runtime_path(options.krate.as_ref()) {
        Ok(rt) => rt,
        Err(_) => {
            if let Some(lit) = &options.krate {
                diag.at(
                    lit,
                    format!(
                        "`crate` must be a path such as `::my_framework::opgen`, not `{}`",
                        lit.value()
                    ),
                );
            }
            syn::parse_quote!(::opgen)
        }
    };
    if let Some(name) = &options.name {
        check_name(name, &mut diag);
    }
    if let (Some(lit), Some(op)) = (&lit, &options.op) {
        diag.at(
            op,
            format!(
                "`op` names an operator defined elsewhere, but this attribute defines `{}`; \
                 remove `op`, or remove the schema",
                lit.value()
            ),
        );
    }
    if options.op.is_some() {
        check_kernel_only_options(&options, &mut diag);
    }
    diag.finish(Attribute {
        lit,
        options,
        keys,
        methods,
        tensor,
        op,
        rt,
    })
}

/// darling reports a non-literal first argument (`#[native_function(SCHEMA)]`) as an
/// unknown key; the schema must be a literal the macro can read, so say that instead.
fn check_schema_is_literal(args: &TokenStream2) -> syn::Result<()> {
    let first: Vec<TokenTree> = args
        .clone()
        .into_iter()
        .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .collect();
    let is_option = matches!(first.as_slice(), [TokenTree::Ident(_), TokenTree::Punct(p), ..] if p.as_char() == '=');
    let is_literal = matches!(first.as_slice(), [TokenTree::Literal(_)]);
    let is_word = matches!(first.as_slice(), [TokenTree::Ident(_)]);
    if first.is_empty() || is_option || is_literal {
        return Ok(());
    }
    // A lone word is an option without a value (`structured`) or a constant: only the
    // constant has an upper-case name.
    if is_word
        && !first.iter().any(|t| {
            t.to_string()
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '_')
        })
    {
        return Ok(());
    }
    let tokens: TokenStream2 = first.into_iter().collect();
    Err(syn::Error::new_spanned(
        tokens,
        "the schema must be a string literal: the macro reads and checks it at compile time, \
         so constants and macros such as `concat!` cannot stand for it",
    ))
}

/// The common shape, `"schema", key = literal, ...`, read without syn's parser (which took a
/// tenth of the expansion time); `None` for anything else, which `parse_meta_list` reads.
fn fast_meta_list(args: &TokenStream2) -> Option<Vec<NestedMeta>> {
    let mut out = Vec::new();
    let mut tokens = args.clone().into_iter();
    loop {
        match tokens.next() {
            None => return Some(out),
            Some(TokenTree::Literal(lit)) => out.push(NestedMeta::Lit(syn::Lit::new(lit))),
            Some(TokenTree::Ident(key)) => {
                let eq = match tokens.next() {
                    Some(TokenTree::Punct(p))
                        if p.as_char() == '=' && p.spacing() == proc_macro2::Spacing::Alone =>
                    {
                        p
                    }
                    _ => return None,
                };
                let lit = match tokens.next() {
                    Some(TokenTree::Literal(lit)) => syn::Lit::new(lit),
                    Some(TokenTree::Ident(b)) if b == "true" || b == "false" => {
                        syn::Lit::Bool(LitBool::new(b == "true", b.span()))
                    }
                    _ => return None,
                };
                out.push(NestedMeta::Meta(syn::Meta::NameValue(syn::MetaNameValue {
                    path: syn::Path::from(key),
                    eq_token: syn::token::Eq(eq.span()),
                    value: syn::Expr::Lit(syn::ExprLit {
                        attrs: Vec::new(),
                        lit,
                    }),
                })));
            }
            Some(_) => return None,
        }
        match tokens.next() {
            None => return Some(out),
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => {}
            Some(_) => return None,
        }
    }
}

fn internal_unreachable() -> syn::Error {
    super::diag::internal("darling failed without an error")
}

/// An option value's problem as a rule error with a caret excerpt of the value.
fn value_error(lit: &LitStr, error: &SchemaError) -> syn::Error {
    let text = lit.value();
    syn::Error::new(
        super::diag::schema_span(lit, error.range.clone()),
        render(&text, error),
    )
}

fn parse_dispatch(lit: &LitStr, diag: &mut Diagnostics) -> Vec<KeyAt> {
    let text = lit.value();
    let mut keys = Vec::new();
    for (name, range) in crate::native::split_trimmed(&text, ',') {
        match DispatchKey::from_name(name) {
            Some(key) if !keys.iter().any(|k: &KeyAt| k.key == key) => {
                keys.push(KeyAt { key, range })
            }
            Some(key) => diag.push(value_error(
                lit,
                &SchemaError::new(
                    Rule::UnknownDispatchKey,
                    range,
                    format!("`{key}` appears twice in `dispatch`"),
                )
                .with_hint("list each key once"),
            )),
            None => {
                let names = DispatchKey::ALL.iter().map(|k| k.name());
                let hint = match crate::schema::suggest::closest(name, names) {
                    Some(c) => format!("did you mean `{c}`?"),
                    None => {
                        "write backend keys such as `CPU`, `CUDA`, `Meta`, or alias keys such as \
                             `CompositeExplicitAutograd`, separated by commas"
                            .to_string()
                    }
                };
                let message = if name.is_empty() {
                    "empty dispatch key in `dispatch`".to_string()
                } else {
                    format!("unknown dispatch key `{name}` in `dispatch`")
                };
                diag.push(value_error(
                    lit,
                    &SchemaError::new(Rule::UnknownDispatchKey, range, message).with_hint(hint),
                ));
            }
        }
    }
    keys
}

pub(crate) fn parse_methods(lit: &LitStr, diag: &mut Diagnostics) -> Methods {
    let text = lit.value();
    let text = text.trim();
    if text == "inherent" {
        return Methods::Inherent;
    }
    if let Some(name) = text.strip_prefix("trait ")
        && let Ok(mut ident) = syn::parse_str::<syn::Ident>(name.trim())
    {
        ident.set_span(lit.span());
        return Methods::Trait(ident);
    }
    diag.at(
        lit,
        format!("unknown `methods` value `{text}`; expected `inherent` or `trait NAME` (e.g. `trait AddExt`)"),
    );
    Methods::Inherent
}

fn parse_or_report<T: syn::parse::Parse>(
    lit: &LitStr,
    message: &str,
    diag: &mut Diagnostics,
) -> Option<T> {
    match lit.parse::<T>() {
        Ok(value) => Some(value),
        Err(_) => {
            diag.at(lit, format!("{message}, not `{}`", lit.value()));
            None
        }
    }
}

fn parse_op(lit: &LitStr, diag: &mut Diagnostics) -> Option<(String, OperatorName)> {
    let text = lit.value();
    match parse_operator_name(&text) {
        Ok(mut name) => {
            let ns = name
                .namespace
                .take()
                .map_or_else(|| "aten".to_string(), |ns| ns.to_string());
            Some((ns, name))
        }
        Err(errors) => {
            for e in &errors {
                diag.push(value_error(lit, e));
            }
            None
        }
    }
}

fn check_name(lit: &LitStr, diag: &mut Diagnostics) {
    let text = lit.value();
    let ok = !text.is_empty()
        && !text.starts_with(|c: char| c.is_ascii_digit())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        diag.at(
            lit,
            format!("`name` must be a Rust identifier such as `my_add`, not `{text}`"),
        );
    }
}

/// With `op =`, the operator is defined elsewhere: options that describe the definition
/// belong there.
fn check_kernel_only_options(o: &Options, diag: &mut Diagnostics) {
    let definition: [(&str, Option<Span>); 18] = [
        ("variants", o.variants.as_ref().map(LitStr::span)),
        ("structured", o.structured.as_ref().map(LitBool::span)),
        (
            "structured_delegate",
            o.structured_delegate.as_ref().map(LitStr::span),
        ),
        (
            "structured_inherits",
            o.structured_inherits.as_ref().map(LitStr::span),
        ),
        ("precomputed", o.precomputed.as_ref().map(LitStr::span)),
        ("device_guard", o.device_guard.as_ref().map(LitBool::span)),
        ("device_check", o.device_check.as_ref().map(LitStr::span)),
        (
            "manual_kernel_registration",
            o.manual_kernel_registration.as_ref().map(LitBool::span),
        ),
        (
            "manual_cpp_binding",
            o.manual_cpp_binding.as_ref().map(LitBool::span),
        ),
        ("python_module", o.python_module.as_ref().map(LitStr::span)),
        (
            "category_override",
            o.category_override.as_ref().map(LitStr::span),
        ),
        ("tags", o.tags.as_ref().map(LitStr::span)),
        (
            "cpp_no_default_args",
            o.cpp_no_default_args.as_ref().map(LitStr::span),
        ),
        ("autogen", o.autogen.as_ref().map(LitStr::span)),
        (
            "use_const_ref_for_mutable_tensors",
            o.use_const_ref_for_mutable_tensors
                .as_ref()
                .map(LitBool::span),
        ),
        ("name", o.name.as_ref().map(LitStr::span)),
        ("namespace", o.namespace.as_ref().map(LitStr::span)),
        ("methods", o.methods.as_ref().map(LitStr::span)),
    ];
    for (key, span) in definition {
        if let Some(span) = span {
            diag.at_span(
                span,
                format!(
                    "`{key}` describes the operator, which `op` says is defined elsewhere; \
                     set it where the schema is written"
                ),
            );
        }
    }
}
