//! The check stage of `derivatives(...)`: the formulas go through the `derivatives.yaml`
//! loader as the one entry of the attribute's schema (its rules R100–R119, each error at the
//! formula or key it concerns), R115 (every differentiable input has a formula or is
//! `non_differentiable`), then each backward formula is translated into Rust: C++ by
//! `formula::translate`, `rust:` formulas used as written.

use proc_macro2::{Span, TokenStream as TokenStream2, TokenTree};
use quote::ToTokens;
use syn::LitStr;

use super::corpus::corpus;
use super::{DerivativesAttr, FormulaValue};
use crate::codegen::diag::{Diagnostics, schema_span};
use crate::formula::translate::{ApiIndex, Blocker, Options, Scope, scope_for, translate};
use crate::formula::{DerivativeRule, FormulaText, parse_formula};
use crate::native::NativeFunction;
use crate::native::derivatives::{
    Derivative, DerivativeError, DifferentiabilityInfo, inputs_without_formula, load_for_function,
};
use crate::plan::TranslatedFormula;
use crate::schema::{SchemaKind, caret_excerpt};

/// The formulas of one operator, checked.
pub(crate) struct Formulas {
    /// torchgen's facts.
    pub info: DifferentiabilityInfo,
    /// The node's name: PyTorch's for an operator of ATen, else torchgen's rule.
    pub node: String,
    /// Each backward formula in Rust (none for out operators, whose kernel only refuses).
    pub translated: Vec<TranslatedFormula>,
    /// Where each backward formula is written.
    pub spans: Vec<Span>,
}

/// `derivatives(functional)`, checked: the kernel of an in-place or out operator made by
/// its functional operator's formulas.
pub(crate) struct Borrowed {
    /// The functional operator's marker (as written, or by the rule), spanned at
    /// `functional`.
    pub path: syn::Path,
    /// An out operator (else in-place).
    pub out: bool,
}

/// Checks `derivatives(functional)` on `f`: the operator is in-place or out, and the list
/// has no formulas besides.
pub(crate) fn check_functional(
    attr: &DerivativesAttr,
    f: &NativeFunction,
    diag: &mut Diagnostics,
) -> Option<Borrowed> {
    let functional = attr.functional.as_ref()?;
    let kind = f.func.kind();
    let name = &f.func.name;
    if !matches!(kind, SchemaKind::Inplace | SchemaKind::Out) {
        diag.at_span(
            functional.span,
            format!(
                "`derivatives(functional)` lends a functional operator's formulas to its in-place \
                 and out variants, but `{name}` is not one of those\nhelp: write the formulas of \
                 `{name}` itself: `derivatives(self = \"...\")`"
            ),
        );
        return None;
    }
    if let Some(e) = attr.entries.first() {
        diag.at_span(
            e.key_span,
            format!(
                "`derivatives(functional)` takes every formula of the functional operator; `{}` \
                 cannot be added to them\nhelp: write either `derivatives(functional)` or all of \
                 the formulas of `{name}`",
                e.key
            ),
        );
        return None;
    }
    let path = match &functional.path {
        Some(p) => p.clone(),
        None => {
            let marker = crate::plan::functional_marker_of(name);
            syn::Path::from(crate::codegen::expand::ident_at(&marker, functional.span))
        }
    };
    Some(Borrowed {
        path,
        out: kind == SchemaKind::Out,
    })
}

/// Checks and translates the formulas of `attr` for `f`. `rt` and `tensor` are how the
/// translated code names the runtime and the tensor type.
pub(crate) fn check_formulas(
    attr: &DerivativesAttr,
    f: &NativeFunction,
    rt: &syn::Path,
    tensor: &syn::Type,
    diag: &mut Diagnostics,
) -> Option<Formulas> {
    let schema = f.func.to_string();
    let scope_names = rename_map(f);
    // An out operator takes its functional operator's formulas (as torchgen matches them):
    // they are checked against that schema, whose returns they name.
    let target = match f.func.kind() {
        SchemaKind::Out => functional_of(f),
        _ => f.clone(),
    };
    let (yaml, at) = attr.to_yaml(&target.func.to_string(), |text| {
        loader_text(text, &scope_names)
    });
    let d = match load_for_function("derivatives", &yaml, &target) {
        Ok(d) => d,
        Err(errors) => {
            // A key that names nothing makes its formula's variables unknown too: its
            // error says it all.
            let bad_keys: Vec<usize> = (errors.iter())
                .filter(|e| e.rule == Some(DerivativeRule::UnknownKey))
                .map(|e| e.error.line)
                .collect();
            for e in &errors {
                if e.rule != Some(DerivativeRule::UnknownKey) && bad_keys.contains(&e.error.line) {
                    continue;
                }
                report(attr, &at, e, diag);
            }
            return None;
        }
    };
    let mut info = d.entries.into_iter().next()?.infos.into_iter().next()?.1;
    info.func = f.func.clone();
    let out_start = f.func.out_start();
    let missing: Vec<String> = inputs_without_formula(&info)
        .into_iter()
        .filter(|n| (f.func.arguments.iter()).position(|a| a.name == *n) < Some(out_start))
        .collect();
    if !missing.is_empty() {
        report_missing(attr, f, &missing, diag);
    }
    let spans: Vec<Span> = (info.derivatives.iter())
        .map(|d| entry_of(attr, d).map_or(attr.span, |e| e.value.span()))
        .collect();
    let node = corpus()
        .and_then(|c| c.nodes.get(&schema).cloned())
        .or_else(|| hand_written_node(&f.func).map(str::to_string))
        .or_else(|| info.op.clone())
        .unwrap_or_default();
    let mut translated = Vec::new();
    if f.func.kind() != SchemaKind::Out {
        let options = Options {
            runtime: rt.to_token_stream().to_string(),
            api_path: String::new(),
            tensor: tensor.to_token_stream().to_string(),
        };
        let scope = scope_for(&info, false);
        for (d, span) in info.derivatives.iter().zip(&spans) {
            let lit = entry_of(attr, d).and_then(|e| match &e.value {
                FormulaValue::Text(lit) => Some(lit),
                FormulaValue::Flags(..) => None,
            });
            match translate_one(d, &scope, &options, lit, *span, diag) {
                Some(t) => translated.push(t),
                None => return None,
            }
        }
    }
    Some(Formulas {
        info,
        node,
        translated,
        spans,
    })
}

/// The node PyTorch writes by hand (in `VariableTypeManual.cpp`, outside
/// `derivatives.yaml`) for an operator of ATen's: `copy_`'s is `CopyBackwards`.
fn hand_written_node(schema: &crate::schema::Schema) -> Option<&'static str> {
    let name = &schema.name;
    (name.name.to_string() == "copy_" && name.overload.is_none()).then_some("CopyBackwards")
}

/// The functional form of out operator `f`: its arguments before the outs, its returns
/// without alias annotations (their names kept), no overload.
fn functional_of(f: &NativeFunction) -> NativeFunction {
    let mut g = f.clone();
    g.func.arguments.truncate(f.func.out_start());
    for r in &mut g.func.returns {
        r.annotation = None;
    }
    g.func.name.overload = None;
    g
}

/// The entry of `attr` whose key lists `d`'s inputs.
fn entry_of<'a>(attr: &'a DerivativesAttr, d: &Derivative) -> Option<&'a super::FormulaEntry> {
    attr.entries.iter().find(|e| {
        let names: Vec<&str> = e.key.split(',').map(str::trim).collect();
        names == d.var_names.iter().map(String::as_str).collect::<Vec<_>>()
    })
}

/// (C++ name, Rust name) of every argument whose names differ (`self`, `self_`).
fn rename_map(f: &NativeFunction) -> Vec<(String, String)> {
    (f.func.arguments.iter())
        .map(|a| (a.name.to_string(), crate::plan::rust_ident(&a.name)))
        .filter(|(c, r)| c != r)
        .collect()
}

/// The text the loader reads for a formula: a `rust:` formula with the arguments' Rust names
/// (`self_`) back to their schema names, so that torchgen's analysis finds what it saves.
fn loader_text(text: &str, renames: &[(String, String)]) -> String {
    match FormulaText::of(text) {
        FormulaText::Rust(rust) => {
            let back: Vec<(String, String)> = renames
                .iter()
                .map(|(c, r)| (r.clone(), c.clone()))
                .collect();
            // The compiler prints long token streams on several lines: one line for yaml.
            match rust.parse::<TokenStream2>() {
                Ok(tokens) => {
                    let words: Vec<String> = (rename(tokens, &back).to_string())
                        .split_whitespace()
                        .map(str::to_string)
                        .collect();
                    format!("rust: {}", words.join(" "))
                }
                Err(_) => text.to_string(),
            }
        }
        FormulaText::Cpp(_) => text.to_string(),
    }
}

/// `tokens` with each identifier in `map` (from, to) renamed.
fn rename(tokens: TokenStream2, map: &[(String, String)]) -> TokenStream2 {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(id) => {
                let name = id.to_string();
                match map.iter().find(|(from, _)| *from == name) {
                    Some((_, to)) => match syn::parse_str::<syn::Ident>(to) {
                        Ok(mut new) => {
                            new.set_span(id.span());
                            TokenTree::Ident(new)
                        }
                        Err(_) => TokenTree::Ident(proc_macro2::Ident::new(to, id.span())),
                    },
                    None => TokenTree::Ident(id),
                }
            }
            TokenTree::Group(g) => {
                let mut new = proc_macro2::Group::new(g.delimiter(), rename(g.stream(), map));
                new.set_span(g.span());
                TokenTree::Group(new)
            }
            other => other,
        })
        .collect()
}

/// One backward formula in Rust, or its problems reported at `span`.
fn translate_one(
    d: &Derivative,
    scope: &Scope,
    options: &Options,
    lit: Option<&LitStr>,
    span: Span,
    diag: &mut Diagnostics,
) -> Option<TranslatedFormula> {
    let Some(corpus) = corpus() else {
        diag.push(super::super::diag::internal(
            "the vendored ATen operators failed to load",
        ));
        return None;
    };
    let shown = lit.map_or_else(|| d.original_formula.clone(), LitStr::value);
    match translate_formula(d, scope, options, &corpus.api, &shown) {
        Ok(t) => Some(t),
        Err(messages) => {
            for m in messages {
                diag.at_span(span, m);
            }
            None
        }
    }
}

/// One backward formula in Rust, against the operators of `api`: a C++ formula translated,
/// a `rust:` one with the variables' C++ names put back to Rust ones. Otherwise the
/// messages of what keeps it from translating (each shows `shown`, the formula as written).
pub(crate) fn translate_formula(
    d: &Derivative,
    scope: &Scope,
    options: &Options,
    api: &ApiIndex,
    shown: &str,
) -> Result<TranslatedFormula, Vec<String>> {
    let key = d.var_names.join(", ");
    if let FormulaText::Rust(rust) = FormulaText::of(&d.formula) {
        return rust_formula(rust, scope).map_err(|e| {
            vec![format!(
                "the Rust formula of `{key}` is not an expression: {e}"
            )]
        });
    }
    let expr = parse_formula(&d.formula).map_err(|e| {
        vec![format!(
            "the formula of `{key}` does not parse: {}",
            e.message
        )]
    })?;
    match translate(&expr, scope, api, options) {
        Ok(t) => {
            let mut uses: Vec<String> = Vec::new();
            for (name, _) in expr.free_names() {
                if !uses.iter().any(|u| u == name) {
                    uses.push(name.to_string());
                }
            }
            Ok(TranslatedFormula { rust: t.rust, uses })
        }
        Err(blockers) => Err(dedup(blockers)
            .iter()
            .map(|b| blocker_message(&key, shown, b))
            .collect()),
    }
}

/// A `rust:` formula over the variables' Rust names, and the variables it names.
fn rust_formula(rust: &str, scope: &Scope) -> syn::Result<TranslatedFormula> {
    let renames: Vec<(String, String)> = (scope.vars())
        .filter(|(c, r, _)| c != r)
        .map(|(c, r, _)| (c.to_string(), r.to_string()))
        .collect();
    let tokens = rename(rust.parse::<TokenStream2>()?, &renames);
    syn::parse2::<syn::Expr>(tokens.clone())?;
    let mut uses = Vec::new();
    idents(&tokens, &mut |name| {
        if let Some((c, _, _)) = scope.vars().find(|(_, r, _)| *r == name)
            && !uses.iter().any(|u| u == c)
        {
            uses.push(c.to_string());
        }
    });
    Ok(TranslatedFormula {
        rust: tokens.to_string(),
        uses,
    })
}

fn dedup(mut blockers: Vec<Blocker>) -> Vec<Blocker> {
    blockers.sort();
    blockers.dedup();
    blockers
}

/// Every identifier of `tokens`, in order.
fn idents(tokens: &TokenStream2, f: &mut impl FnMut(&str)) {
    for t in tokens.clone() {
        match t {
            TokenTree::Ident(id) => f(&id.to_string()),
            TokenTree::Group(g) => idents(&g.stream(), f),
            _ => {}
        }
    }
}

/// What keeps a formula from translating, with the way out.
fn blocker_message(key: &str, text: &str, b: &Blocker) -> String {
    let head = match b {
        Blocker::MissingFunction { name, arity } => format!(
            "the formula of `{key}` calls `{name}` ({arity} argument{}), which is neither an ATen \
             operator nor a helper of `opgen::autograd::functions`",
            if *arity == 1 { "" } else { "s" }
        ),
        Blocker::NoOverload { name, arity } => format!(
            "the formula of `{key}` calls `{name}` with {arity} argument{} that no overload of it takes",
            if *arity == 1 { "" } else { "s" }
        ),
        Blocker::UnknownName(name) => {
            format!("the formula of `{key}` names `{name}`, which is not in its scope")
        }
        Blocker::Unsupported(what) => {
            format!("the formula of `{key}` uses {what}, which opgen does not translate")
        }
    };
    format!(
        "{head}\n  {text}\nhelp: write the formula in Rust, `rust: EXPR` (over the Rust names of the \
         same variables: `self_`, `grad`, ...)"
    )
}

/// A loader error at the key or formula it concerns: its line in the generated entry is the
/// attribute entry's, and its column tells the key from the value.
fn report(
    attr: &DerivativesAttr,
    at: &[(usize, usize)],
    e: &DerivativeError,
    diag: &mut Diagnostics,
) {
    let err = &e.error;
    let message = err.message.replace(" in derivatives.yaml", "");
    let rule = e.rule;
    let entry = err
        .line
        .checked_sub(2)
        .and_then(|i| Some((attr.entries.get(i)?, at.get(i)?)));
    let Some((entry, &(_, value_column))) = entry else {
        diag.at_span(
            attr.span,
            with_rule(&message, None, err.hint.as_deref(), rule),
        );
        return;
    };
    match &entry.value {
        FormulaValue::Text(lit) if err.column > value_column => {
            let text = lit.value();
            // The value's first character follows the opening quote.
            let start = char_to_byte(&text, err.column - value_column - 1);
            let end = char_to_byte(&text, err.column - value_column - 1 + err.width);
            let range = if start >= text.len() {
                0..text.len()
            } else {
                start..end
            };
            let excerpt = caret_excerpt(&text, range.clone());
            diag.at_span(
                schema_span(lit, range),
                with_rule(&message, Some(&excerpt), err.hint.as_deref(), rule),
            );
        }
        FormulaValue::Text(_) | FormulaValue::Flags(..) if err.column >= value_column => {
            diag.at_span(
                entry.value.span(),
                with_rule(&message, None, err.hint.as_deref(), rule),
            );
        }
        _ => diag.at_span(
            entry.key_span,
            with_rule(&message, None, err.hint.as_deref(), rule),
        ),
    }
}

fn char_to_byte(text: &str, chars: usize) -> usize {
    text.char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i)
}

/// `message [R1xx]`, the excerpt, the hint and the pointer to `opgen explain`.
fn with_rule(
    message: &str,
    excerpt: Option<&str>,
    hint: Option<&str>,
    rule: Option<DerivativeRule>,
) -> String {
    let mut out = match rule {
        Some(r) => format!("{message} [{}]", r.id()),
        None => message.to_string(),
    };
    if let Some(x) = excerpt {
        out.push('\n');
        out.push_str(x.trim_end());
    }
    if let Some(h) = hint {
        out.push_str("\nhelp: ");
        out.push_str(&h.replace(" in derivatives.yaml", ""));
    }
    if let Some(r) = rule {
        out.push_str(&format!(
            "\nfor more information about this error, run `opgen explain {}`",
            r.id()
        ));
    }
    out
}

/// R115: inputs with neither a formula nor `non_differentiable`.
fn report_missing(
    attr: &DerivativesAttr,
    f: &NativeFunction,
    missing: &[String],
    diag: &mut Diagnostics,
) {
    for name in missing {
        let message = format!(
            "input `{name}` of `{}` has no derivative formula and is not marked non-differentiable",
            f.func.name
        );
        let hint = format!(
            "add `{name} = \"...\"` (its gradient), or `{name} = \"non_differentiable\"` if no gradient flows to it"
        );
        diag.at_span(
            attr.span,
            with_rule(
                &message,
                None,
                Some(&hint),
                Some(DerivativeRule::MissingFormula),
            ),
        );
    }
}
