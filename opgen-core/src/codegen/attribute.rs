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
    /// `structured` (or `structured = true`): on the meta function of a structured out
    /// operator (with its schema), or on an impl (with `op`).
    #[darling(default, with = flag)]
    pub structured: Option<LitBool>,
    /// `composite_from_out` on a structured delegate: also register
    /// `CompositeExplicitAutograd` kernels that call the out operator through the
    /// dispatcher (docs/STRUCTURED.md).
    #[darling(default, with = flag)]
    pub composite_from_out: Option<LitBool>,
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
    /// The operator, defined elsewhere, that this function is a kernel of: its name
    /// (`"aten::add.Tensor"`, checked when the kernel registers) or its marker's path
    /// (`aten::add`, checked at compile time).
    pub op: Option<OpValue>,
    /// The tensor type, when no parameter or return names it.
    pub tensor: Option<LitStr>,
    /// Derivative formulas, as in `derivatives.yaml`: `derivatives(self = "grad * other",
    /// other = "grad * self")`; the operator gets an Autograd kernel and a backward node.
    pub derivatives: Option<super::derivatives::DerivativesAttr>,
}

/// The value of `op`, as written: a string literal or a path (darling would parse a
/// string's contents as an expression).
#[derive(Debug, Clone)]
pub struct OpValue(pub syn::Expr);

impl FromMeta for OpValue {
    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        Ok(OpValue(expr.clone()))
    }
}

impl quote::ToTokens for OpValue {
    fn to_tokens(&self, tokens: &mut TokenStream2) {
        self.0.to_tokens(tokens);
    }
}

/// A boolean option written as a bare word (`structured`) or with a value
/// (`structured = true`); the bare word's span stands for the value's.
fn flag(meta: &syn::Meta) -> darling::Result<Option<LitBool>> {
    match meta {
        syn::Meta::Path(path) => Ok(Some(LitBool::new(true, syn::spanned::Spanned::span(path)))),
        other => LitBool::from_meta(other).map(Some),
    }
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
    /// `op = ...`, parsed.
    pub op: Option<OpRef>,
    pub rt: syn::Path,
}

const SCHEMA_FIRST: &str = "expected the schema string first, e.g. \
     #[native_function(\"relu(Tensor self) -> Tensor\")]";

/// Parses the attribute's arguments, reporting every problem found.
pub(crate) fn parse_attribute(args: TokenStream2) -> syn::Result<Attribute> {
    let tokens: Vec<TokenTree> = args.into_iter().collect();
    check_schema_is_literal(&tokens)?;
    let (lit, options, mut diag) = match fast_options(&tokens) {
        Some((lit, options)) => (lit, options, Diagnostics::default()),
        None => darling_options(tokens)?,
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
    let op = options.op.as_ref().and_then(|v| parse_op(&v.0, &mut diag));
    let rt = super::paths::runtime_path_or_report(options.krate.as_ref(), &mut diag);
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

/// The schema literal and the options, read by darling (with syn's parser for an unusual
/// shape); problems with them are reported.
fn darling_options(tokens: Vec<TokenTree>) -> syn::Result<(Option<LitStr>, Options, Diagnostics)> {
    let mut metas = match fast_shape(&tokens) {
        Some(entries) => fast_meta_list(tokens, entries)
            .ok_or_else(|| super::diag::internal("the attribute changed shape"))?,
        None => NestedMeta::parse_meta_list(tokens.into_iter().collect())?,
    };
    let lit = match metas.first() {
        Some(NestedMeta::Lit(syn::Lit::Str(_))) => match metas.remove(0) {
            NestedMeta::Lit(syn::Lit::Str(lit)) => Some(lit),
            _ => None,
        },
        Some(NestedMeta::Lit(other)) => {
            return Err(syn::Error::new_spanned(other, SCHEMA_FIRST));
        }
        _ => None,
    };
    let rest = metas.as_slice();
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
    match Options::from_list(&options) {
        Ok(options) => Ok((lit, options, diag)),
        Err(err) => {
            diag.push(err.into());
            Err(match diag.finish(()) {
                Err(e) => e,
                Ok(()) => internal_unreachable(),
            })
        }
    }
}

/// The common case without darling: `"schema", key = literal, ...` where every key is an
/// option, written once, with a literal of its kind (a string, or `true`/`false` for the
/// flags). `None` for anything else: darling then reads the attribute and reports what is
/// wrong with it, as it always did.
fn fast_options(tokens: &[TokenTree]) -> Option<(Option<LitStr>, Options)> {
    let mut options = Options::default();
    let mut schema = None;
    let mut rest = tokens;
    let mut first = true;
    loop {
        rest = match rest {
            [] => break,
            [TokenTree::Literal(lit), more @ ..] if first => {
                let syn::Lit::Str(lit) = syn::Lit::new(lit.clone()) else {
                    return None;
                };
                schema = Some(lit);
                more
            }
            [
                TokenTree::Ident(key),
                TokenTree::Punct(eq),
                value,
                more @ ..,
            ] if eq.as_char() == '=' && eq.spacing() == proc_macro2::Spacing::Alone => {
                let value = match value {
                    TokenTree::Literal(lit) => syn::Lit::new(lit.clone()),
                    TokenTree::Ident(b) if b == "true" || b == "false" => {
                        syn::Lit::Bool(LitBool::new(b == "true", b.span()))
                    }
                    _ => return None,
                };
                options.set(&key.to_string(), value)?;
                more
            }
            _ => return None,
        };
        first = false;
        rest = match rest {
            [] => break,
            [TokenTree::Punct(p), more @ ..] if p.as_char() == ',' => more,
            _ => return None,
        };
    }
    Some((schema, options))
}

impl Options {
    /// Sets option `key` to `value`, as darling would; `None` if the key is not an option,
    /// is set already, or the literal is not of the option's kind.
    fn set(&mut self, key: &str, value: syn::Lit) -> Option<()> {
        fn put<T>(slot: &mut Option<T>, value: Option<T>) -> Option<()> {
            if slot.is_some() {
                return None;
            }
            *slot = Some(value?);
            Some(())
        }
        let s = |l: syn::Lit| match l {
            syn::Lit::Str(s) => Some(s),
            _ => None,
        };
        let b = |l: syn::Lit| match l {
            syn::Lit::Bool(b) => Some(b),
            _ => None,
        };
        match key {
            "variants" => put(&mut self.variants, s(value)),
            "dispatch" => put(&mut self.dispatch, s(value)),
            "structured" => put(&mut self.structured, b(value)),
            "structured_delegate" => put(&mut self.structured_delegate, s(value)),
            "structured_inherits" => put(&mut self.structured_inherits, s(value)),
            "precomputed" => put(&mut self.precomputed, s(value)),
            "device_guard" => put(&mut self.device_guard, b(value)),
            "device_check" => put(&mut self.device_check, s(value)),
            "manual_kernel_registration" => put(&mut self.manual_kernel_registration, b(value)),
            "manual_cpp_binding" => put(&mut self.manual_cpp_binding, b(value)),
            "python_module" => put(&mut self.python_module, s(value)),
            "category_override" => put(&mut self.category_override, s(value)),
            "tags" => put(&mut self.tags, s(value)),
            "cpp_no_default_args" => put(&mut self.cpp_no_default_args, s(value)),
            "autogen" => put(&mut self.autogen, s(value)),
            "use_const_ref_for_mutable_tensors" => {
                put(&mut self.use_const_ref_for_mutable_tensors, b(value))
            }
            "name" => put(&mut self.name, s(value)),
            "namespace" => put(&mut self.namespace, s(value)),
            "crate" => put(&mut self.krate, s(value)),
            "methods" => put(&mut self.methods, s(value)),
            "op" => put(
                &mut self.op,
                s(value).map(|lit| {
                    OpValue(syn::Expr::Lit(syn::ExprLit {
                        attrs: Vec::new(),
                        lit: syn::Lit::Str(lit),
                    }))
                }),
            ),
            "tensor" => put(&mut self.tensor, s(value)),
            _ => None,
        }
    }
}

/// darling reports a non-literal first argument (`#[native_function(SCHEMA)]`) as an
/// unknown key; the schema must be a literal the macro can read, so say that instead.
/// The schema literal, when the attribute's first argument is one: read on its own, so
/// that its errors are reported with the options' when those fail.
pub(crate) fn schema_literal(args: TokenStream2) -> Option<LitStr> {
    let first = args.into_iter().next()?;
    syn::parse2::<LitStr>(first.into()).ok()
}

fn check_schema_is_literal(tokens: &[TokenTree]) -> syn::Result<()> {
    let end = tokens
        .iter()
        .position(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
        .unwrap_or(tokens.len());
    let first = tokens.get(..end).unwrap_or_default();
    let is_option =
        matches!(first, [TokenTree::Ident(_), TokenTree::Punct(p), ..] if p.as_char() == '=');
    let is_literal = matches!(first, [TokenTree::Literal(_)]);
    let is_word = matches!(first, [TokenTree::Ident(_)]);
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
    let tokens: TokenStream2 = first.iter().cloned().collect();
    Err(syn::Error::new_spanned(
        tokens,
        "the schema must be a string literal: the macro reads and checks it at compile time, \
         so constants and macros such as `concat!` cannot stand for it",
    ))
}

/// Whether the attribute has the common shape, `"schema", key = literal, ...`, which
/// [`fast_meta_list`] reads without syn's parser (which took a tenth of the expansion time),
/// and how many entries it has; `None` for anything else, which `parse_meta_list` reads.
fn fast_shape(tokens: &[TokenTree]) -> Option<usize> {
    let mut entries = 0;
    let mut rest = tokens;
    loop {
        rest = match rest {
            [] => return Some(entries),
            [TokenTree::Literal(_), more @ ..] => more,
            [TokenTree::Ident(_), TokenTree::Punct(eq), value, more @ ..]
                if eq.as_char() == '=' && eq.spacing() == proc_macro2::Spacing::Alone =>
            {
                match value {
                    TokenTree::Literal(_) => {}
                    TokenTree::Ident(b) if b == "true" || b == "false" => {}
                    _ => return None,
                }
                more
            }
            _ => return None,
        };
        entries += 1;
        rest = match rest {
            [] => return Some(entries),
            [TokenTree::Punct(p), more @ ..] if p.as_char() == ',' => more,
            _ => return None,
        };
    }
}

/// The entries of an attribute of the shape [`fast_shape`] accepted, the tokens moved into
/// them (`None` if the shape is not that one after all).
fn fast_meta_list(tokens: Vec<TokenTree>, entries: usize) -> Option<Vec<NestedMeta>> {
    let mut out = Vec::with_capacity(entries);
    let mut tokens = tokens.into_iter();
    while let Some(token) = tokens.next() {
        match token {
            TokenTree::Literal(lit) => out.push(NestedMeta::Lit(syn::Lit::new(lit))),
            TokenTree::Ident(key) => {
                let Some(TokenTree::Punct(eq)) = tokens.next() else {
                    return None;
                };
                let lit = match tokens.next()? {
                    TokenTree::Literal(lit) => syn::Lit::new(lit),
                    TokenTree::Ident(b) => syn::Lit::Bool(LitBool::new(b == "true", b.span())),
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
            _ => return None,
        }
        // The comma between entries.
        tokens.next();
    }
    Some(out)
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

/// The operator a kernel of form 2 attaches to.
#[derive(Debug, Clone)]
pub(crate) enum OpRef {
    /// By name (`"aten::add.Tensor"`; namespace `aten` when not written): the kernel's
    /// signature is checked when it registers.
    Name {
        namespace: String,
        name: OperatorName,
        lit: LitStr,
    },
    /// By the path of its marker (`aten::add`): checked at compile time.
    Path(syn::Path),
}

fn parse_op(expr: &syn::Expr, diag: &mut Diagnostics) -> Option<OpRef> {
    let expr = match expr {
        syn::Expr::Group(g) => &*g.expr,
        e => e,
    };
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => {
            let text = lit.value();
            match parse_operator_name(&text) {
                Ok(mut name) => {
                    let namespace = name
                        .namespace
                        .take()
                        .map_or_else(|| "aten".to_string(), |ns| ns.to_string());
                    Some(OpRef::Name {
                        namespace,
                        name,
                        lit: lit.clone(),
                    })
                }
                Err(errors) => {
                    for e in &errors {
                        diag.push(value_error(lit, e));
                    }
                    None
                }
            }
        }
        syn::Expr::Path(p) if p.qself.is_none() => Some(OpRef::Path(p.path.clone())),
        other => {
            diag.at(
                other,
                "`op` names the operator this function is a kernel of: its path (`aten::add`, the \
                 operator's free function, checked at compile time) or its name as a string \
                 (`\"aten::add.Tensor\"`)",
            );
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
    let definition: [(&str, Option<Span>); 19] = [
        ("variants", o.variants.as_ref().map(LitStr::span)),
        (
            "composite_from_out",
            o.composite_from_out.as_ref().map(LitBool::span),
        ),
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
        ("derivatives", o.derivatives.as_ref().map(|d| d.span)),
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
