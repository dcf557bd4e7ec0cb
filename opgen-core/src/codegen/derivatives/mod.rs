//! Derivative formulas on the attribute: `derivatives(self = "grad * other", ...)`, with the
//! keys and meanings of a `derivatives.yaml` entry (docs/AUTOGRAD.md). Parsed here; checked
//! with the `derivatives.yaml` loader's rules and translated in `check.rs`.
//!
//! ```text
//! derivatives(
//!     self = "mul_tensor_backward(grad, other, self.scalar_type())",
//!     "self, other" = "my_backward(grad, self, other, grad_input_mask)",
//!     indices = "non_differentiable",
//!     result = "self_t * other_p",                 // a forward formula (checked, not run)
//!     output_differentiability = [true, false],
//! )
//! ```

pub(crate) mod check;
mod corpus;

use darling::FromMeta;
use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::{Parse as _, ParseStream, Parser};
use syn::{LitBool, LitStr, Token};

/// `derivatives(...)` as written: its entries in order.
#[derive(Debug, Clone)]
pub struct DerivativesAttr {
    /// The entries.
    pub entries: Vec<FormulaEntry>,
    /// `functional` (or `functional = path`): the formulas of the functional operator.
    pub functional: Option<Functional>,
    /// The `derivatives` word, where errors about the whole list go.
    pub span: Span,
}

/// `derivatives(functional)`: an in-place or out operator takes its functional operator's
/// formulas, as torchgen serves such an operator without an entry of its own.
#[derive(Debug, Clone)]
pub struct Functional {
    /// Where `functional` is written.
    pub span: Span,
    /// `functional = path::to::op`: the functional operator's marker, when it is not the
    /// one named by the rule (`mul` for `mul_.Tensor` and `mul.out`) in scope.
    pub path: Option<syn::Path>,
}

/// One `key = value` of `derivatives(...)`.
#[derive(Debug, Clone)]
pub struct FormulaEntry {
    /// The key as `derivatives.yaml` writes it: `self`, `self, other`,
    /// `output_differentiability`.
    pub key: String,
    /// Where the key is written.
    pub key_span: Span,
    /// The value.
    pub value: FormulaValue,
}

/// The value of an entry.
#[derive(Debug, Clone)]
pub enum FormulaValue {
    /// A formula (C++ or `rust: ...`), `non_differentiable`, or a condition.
    Text(LitStr),
    /// `[true, false]`: `output_differentiability`'s flags.
    Flags(Vec<LitBool>, Span),
}

impl FormulaValue {
    /// Where the value is written.
    pub fn span(&self) -> Span {
        match self {
            FormulaValue::Text(lit) => lit.span(),
            FormulaValue::Flags(_, span) => *span,
        }
    }
}

const FORM: &str = "write `derivatives(self = \"grad * other\", other = \"grad * self\")`: one \
     `argument = \"formula\"` per differentiable input (`\"self, other\" = \"...\"` for one formula of \
     several), as in derivatives.yaml";

impl FromMeta for DerivativesAttr {
    fn from_meta(item: &syn::Meta) -> darling::Result<Self> {
        let syn::Meta::List(list) = item else {
            return Err(darling::Error::custom(FORM).with_span(item));
        };
        let span = list
            .path
            .segments
            .last()
            .map_or_else(Span::call_site, |s| s.ident.span());
        let (entries, functional) = parse_entries
            .parse2(list.tokens.clone())
            .map_err(darling::Error::from)?;
        Ok(DerivativesAttr {
            entries,
            functional,
            span,
        })
    }
}

/// `functional`, `functional = path` (not a string: `functional = "..."` is the formula of
/// an argument named `functional`), if the input starts with it.
fn parse_functional(input: ParseStream<'_>) -> syn::Result<Option<Functional>> {
    let fork = input.fork();
    let Ok(word) = fork.call(syn::Ident::parse_any) else {
        return Ok(None);
    };
    if word != "functional" || !(fork.is_empty() || fork.peek(Token![,]) || fork.peek(Token![=])) {
        return Ok(None);
    }
    if fork.peek(Token![=]) && (fork.peek2(LitStr) || fork.peek2(syn::token::Bracket)) {
        return Ok(None);
    }
    input.call(syn::Ident::parse_any)?;
    let path = if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        Some(input.parse::<syn::Path>().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the functional operator's marker after `functional =` (its path, as \
                 `crate::ops::mul`)",
            )
        })?)
    } else {
        None
    };
    Ok(Some(Functional {
        span: word.span(),
        path,
    }))
}

/// `key = value, ...`: a key is an identifier (keywords such as `self` included) or a
/// string (`"self, other"`); a value a string or a list of booleans.
fn parse_entries(input: ParseStream<'_>) -> syn::Result<(Vec<FormulaEntry>, Option<Functional>)> {
    let mut entries = Vec::new();
    let mut functional = None;
    while !input.is_empty() {
        if let Some(f) = parse_functional(input)? {
            functional = Some(f);
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
            continue;
        }
        let (key, key_span) = if input.peek(LitStr) {
            let lit: LitStr = input.parse()?;
            (lit.value(), lit.span())
        } else if input.peek(syn::Ident::peek_any) {
            let ident = input.call(syn::Ident::parse_any)?;
            (ident.unraw().to_string(), ident.span())
        } else {
            return Err(input.error(FORM));
        };
        input.parse::<Token![=]>().map_err(|e| {
            syn::Error::new(e.span(), format!("expected `=` after `{key}`; {FORM}"))
        })?;
        let value = if input.peek(syn::token::Bracket) {
            let content;
            let bracket = syn::bracketed!(content in input);
            let flags = content.parse_terminated(LitBool::parse, Token![,])?;
            FormulaValue::Flags(flags.into_iter().collect(), bracket.span.join())
        } else if input.peek(LitStr) {
            FormulaValue::Text(input.parse()?)
        } else {
            return Err(input.error(format!(
                "expected a formula string after `{key} =` (or `[true, false]` for \
                 `output_differentiability`)"
            )));
        };
        entries.push(FormulaEntry {
            key,
            key_span,
            value,
        });
        if input.is_empty() {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    Ok((entries, functional))
}

impl DerivativesAttr {
    /// The entries as the text of one `derivatives.yaml` entry for `schema` (each formula
    /// passed through `text`), and for each entry the line (1-based) and column (in
    /// characters, 1-based) where its value starts. A formula is single-quoted (its text
    /// verbatim unless it holds a `'`), so the loader's positions map back into the literal.
    pub(crate) fn to_yaml(
        &self,
        schema: &str,
        text: impl Fn(&str) -> String,
    ) -> (String, Vec<(usize, usize)>) {
        let mut yaml = format!("- name: {}\n", yaml_quote(schema));
        let mut at = Vec::with_capacity(self.entries.len());
        for (i, e) in self.entries.iter().enumerate() {
            let key = yaml_quote(&e.key);
            let value = match &e.value {
                FormulaValue::Text(lit) => yaml_quote(&text(&lit.value())),
                FormulaValue::Flags(flags, _) => {
                    let items: Vec<&str> = flags
                        .iter()
                        .map(|b| if b.value { "True" } else { "False" })
                        .collect();
                    format!("[{}]", items.join(", "))
                }
            };
            let prefix = format!("  {key}: ");
            at.push((i + 2, prefix.chars().count() + 1));
            yaml.push_str(&prefix);
            yaml.push_str(&value);
            yaml.push('\n');
        }
        (yaml, at)
    }
}

/// A single-quoted YAML scalar (`'` doubled).
fn yaml_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(tokens: proc_macro2::TokenStream) -> syn::Result<Vec<FormulaEntry>> {
        parse_entries.parse2(tokens).map(|(entries, _)| entries)
    }

    #[test]
    fn functional_names_the_functional_operators_formulas() {
        let f = |tokens| parse_entries.parse2(tokens).unwrap();
        let (entries, functional) = f(quote!(functional));
        assert!(entries.is_empty() && functional.unwrap().path.is_none());
        let (_, functional) = f(quote!(functional = crate::ops::mul,));
        let path = functional.unwrap().path.unwrap();
        assert_eq!(quote!(#path).to_string(), "crate :: ops :: mul");
        // A string is the formula of an argument named `functional`.
        let (entries, functional) = f(quote!(functional = "grad"));
        assert!(functional.is_none());
        assert_eq!(entries[0].key, "functional");
        let err = parse_entries.parse2(quote!(functional = 3)).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("expected the functional operator's marker")
        );
    }

    #[test]
    fn keys_are_words_keywords_or_strings() {
        let e = parse(quote!(
            self = "grad",
            "self, other" = "f(grad)",
            output_differentiability = [true, false],
        ))
        .unwrap();
        let keys: Vec<&str> = e.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["self", "self, other", "output_differentiability"]);
        assert!(matches!(&e[2].value, FormulaValue::Flags(f, _) if f.len() == 2 && !f[1].value));
    }

    #[test]
    fn a_value_must_be_a_string_or_flags() {
        let err = parse(quote!(self = grad)).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("expected a formula string after `self =`")
        );
        let err = parse(quote!(self "grad")).unwrap_err();
        assert!(err.to_string().starts_with("expected `=` after `self`"));
    }

    #[test]
    fn yaml_keeps_formulas_verbatim() {
        let e = parse(quote!(self = "grad * other", other = "a 'quote'")).unwrap();
        let attr = DerivativesAttr {
            entries: e,
            functional: None,
            span: Span::call_site(),
        };
        let (yaml, at) = attr.to_yaml(
            "mul.Tensor(Tensor self, Tensor other) -> Tensor",
            str::to_string,
        );
        assert_eq!(
            yaml,
            "- name: 'mul.Tensor(Tensor self, Tensor other) -> Tensor'\n  'self': 'grad * other'\n  'other': 'a ''quote'''\n"
        );
        assert_eq!(at, [(2, 11), (3, 12)]);
    }
}
