//! Collecting `syn::Error`s, and placing errors about the schema string.

use std::fmt::Display;
use std::ops::Range;

use proc_macro2::Span;
use quote::ToTokens;
use syn::LitStr;

use crate::schema::{MAX_ERRORS, SchemaError, more_errors};

/// Every problem a stage found; [`Diagnostics::finish`] turns them into one error.
#[derive(Default)]
pub(crate) struct Diagnostics(Vec<syn::Error>);

impl Diagnostics {
    /// An error on the tokens of `at` (all of them are underlined).
    pub fn at(&mut self, at: impl ToTokens, msg: impl Display) {
        self.0.push(syn::Error::new_spanned(at, msg));
    }

    /// An error at one span.
    pub fn at_span(&mut self, span: Span, msg: impl Display) {
        self.0.push(syn::Error::new(span, msg));
    }

    /// Keeps an error made elsewhere (darling's, a nested stage's).
    pub fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    /// A schema rule broken inside `lit`: the rendered message (rule id, caret excerpt of
    /// `text`, hint) on the literal, or on the offending bytes where the compiler can say.
    pub fn schema(&mut self, lit: &LitStr, text: &str, error: &SchemaError) {
        let span = schema_span(lit, error.range.clone());
        self.at_span(span, render(text, error));
    }

    /// How many problems were reported.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `value` if nothing was reported, else the errors combined: at most
    /// `schema::MAX_ERRORS` of them, then one that says how many more there are.
    pub fn finish<T>(self, value: T) -> syn::Result<T> {
        let total = self.0.len();
        let mut all = self.0.into_iter().take(MAX_ERRORS);
        let Some(mut first) = all.next() else {
            return Ok(value);
        };
        all.for_each(|e| first.combine(e));
        if total > MAX_ERRORS {
            first.combine(syn::Error::new(
                Span::call_site(),
                more_errors(total - MAX_ERRORS),
            ));
        }
        Err(first)
    }
}

/// `SchemaError::render_for_compiler` (bounded, and without the word "error", which rustc
/// prints) without its trailing newline (rustc adds its own).
pub(crate) fn render(text: &str, error: &SchemaError) -> String {
    let mut s = error.render_for_compiler(text);
    while s.ends_with('\n') {
        s.pop();
    }
    s
}

/// The span of `range` (bytes of the literal's value) inside `lit`. `Literal::subspan`
/// answers only on nightly; on stable it returns `None` and the whole literal is used.
pub(crate) fn schema_span(lit: &LitStr, range: Range<usize>) -> Span {
    let (token, text) = (lit.token(), lit.token().to_string());
    let start = text.find('"').map_or(0, |i| i + 1); // skips `"` or `r#"`
    let escaped = !text.starts_with('r') && text.contains('\\'); // offsets would drift
    let inner = (!escaped).then(|| token.subspan(start + range.start..start + range.end));
    inner.flatten().unwrap_or_else(|| lit.span())
}

/// Our own bug, reported rather than panicking.
pub(crate) fn internal(what: impl Display) -> syn::Error {
    syn::Error::new(
        Span::call_site(),
        format!("opgen internal error: {what}; please report it"),
    )
}
