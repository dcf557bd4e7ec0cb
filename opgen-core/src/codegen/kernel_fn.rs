//! The annotated kernel function: parsed into its parameters and output, checked against
//! the schema under the documented type mapping (`plan::argument_type`,
//! `plan::return_type`), and read backwards to infer a schema when none is written.

pub(crate) mod fit;
mod infer;
mod signature;

use proc_macro2::{Delimiter, Group, Span, TokenStream as TokenStream2, TokenTree};
use quote::{ToTokens, TokenStreamExt};
use syn::spanned::Spanned;

use super::diag::Diagnostics;

pub(crate) use fit::{last_ident, type_args, type_string};
pub(crate) use infer::infer_schema;
pub(crate) use signature::{Output, Signature, check_signature};

/// The annotated function, as the checks need it. The item itself is re-emitted unchanged.
pub struct KernelFn {
    /// The function's attributes (its docs are forwarded to the generated items).
    pub attrs: Vec<syn::Attribute>,
    /// Its visibility, which the generated API takes.
    pub vis: syn::Visibility,
    /// Its signature.
    pub sig: syn::Signature,
    /// The function as written (the body is not parsed: it is re-emitted unchanged).
    pub tokens: TokenStream2,
    /// A leading `DispatchKeySet` parameter (the kernel wants the call's key set).
    pub(crate) key_set: Option<Param>,
    /// The parameters that stand for schema arguments, in order.
    pub(crate) params: Vec<Param>,
    /// The return type: `value` is the type of the returns (`None` for a missing `-> …`),
    /// inside a `Result` when `fallible`.
    pub(crate) output: KernelReturn,
    /// Written without a body (`fn add();`): only structured delegates, which the macro
    /// consumes.
    pub(crate) bodyless: bool,
}

/// One parameter of the kernel.
#[derive(Clone)]
pub(crate) struct Param {
    /// The parameter's name when its pattern is an identifier (`self_`).
    pub name: Option<syn::Ident>,
    /// The pattern as written, for messages.
    pub pat: Box<syn::Pat>,
    pub ty: syn::Type,
}

/// What the kernel returns.
#[derive(Clone)]
pub(crate) struct KernelReturn {
    /// The type inside `Result<…>`, or the type returned; `None` for no `-> …`.
    pub value: Option<syn::Type>,
    /// The return type is a `Result`.
    pub fallible: bool,
    /// Where to report a return type problem: the user's type, or the closing parenthesis.
    pub span: Span,
    /// The whole return type as written, if any.
    pub written: Option<syn::Type>,
}

impl Param {
    /// The parameter as named in messages: its identifier, or the pattern's text.
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) => n.to_string(),
            None => self.pat.to_token_stream().to_string(),
        }
    }
}

impl KernelFn {
    /// The kernel's name.
    pub fn ident(&self) -> &syn::Ident {
        &self.sig.ident
    }
}

/// Parses the annotated item, reporting everything that keeps it from being a kernel.
pub(crate) fn parse_kernel(item: TokenStream2) -> syn::Result<KernelFn> {
    // Only the signature matters: the body is replaced by `{}` before syn sees the tokens.
    let not_a_function = || {
        syn::Error::new_spanned(
            first_tokens(item.clone()),
            "`#[native_function]` goes on a function: the kernel of the operator",
        )
    };
    // The tokens but the last, straight into the stream syn reads.
    let mut trees = AllButLast {
        trees: item.clone().into_iter(),
        last: None,
    };
    let mut head: TokenStream2 = trees.by_ref().collect();
    let bodyless = match trees.last {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => false,
        Some(TokenTree::Punct(p)) if p.as_char() == ';' => true,
        _ => return Err(not_a_function()),
    };
    head.append(Group::new(Delimiter::Brace, TokenStream2::new()));
    let parser = |input: syn::parse::ParseStream<'_>| {
        let attrs = input.call(syn::Attribute::parse_outer)?;
        let vis: syn::Visibility = input.parse()?;
        let sig: syn::Signature = input.parse()?;
        let _body: Group = input.parse()?;
        Ok((attrs, vis, sig))
    };
    let (attrs, vis, sig) =
        syn::parse::Parser::parse2(parser, head).map_err(|_| not_a_function())?;
    let mut diag = Diagnostics::default();
    if let Some(t) = &sig.asyncness {
        diag.at(
            t,
            "a kernel cannot be `async`; the dispatcher calls it synchronously",
        );
    }
    if let syn::Safety::Unsafe(t) = &sig.safety {
        diag.at(
            t,
            "a kernel cannot be `unsafe`: the dispatcher calls it as a safe function",
        );
    }
    if let Some(abi) = &sig.abi {
        diag.at(abi, "a kernel uses the Rust ABI; remove the `extern`");
    }
    if let Some(v) = &sig.variadic {
        diag.at(v, "a kernel cannot be variadic");
    }
    if sig
        .generics
        .params
        .iter()
        .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
    {
        diag.at(
            &sig.generics,
            format!(
                "kernel `{}` is generic; a kernel has concrete types, so that it can be registered \
                 (write one kernel per tensor type)",
                sig.ident
            ),
        );
    }
    check_lifetime_bounds(&sig, &mut diag);
    let mut params = Vec::with_capacity(sig.inputs.len());
    for arg in &sig.inputs {
        match arg {
            syn::FnArg::Receiver(r) => diag.at(
                r,
                "a kernel is a free function, not a method; take the tensor as a parameter \
                 such as `self_: &MyTensor`",
            ),
            syn::FnArg::Typed(p) => params.push(Param {
                name: match &*p.pat {
                    syn::Pat::Ident(i) if i.subpat.is_none() => Some(i.ident.clone()),
                    _ => None,
                },
                pat: p.pat.clone(),
                ty: (*p.ty).clone(),
            }),
        }
    }
    let key_set = match params.first() {
        Some(first) if is_key_set(&first.ty) => Some(params.remove(0)),
        _ => None,
    };
    let output = parse_output(&sig);
    diag.finish(KernelFn {
        attrs,
        vis,
        sig,
        tokens: item,
        key_set,
        params,
        output,
        bodyless,
    })
}

/// A kernel's lifetimes are unbounded: the dispatcher calls it with the borrows of each call
/// (`for<'a> Fn(&'a T)`), which a lifetime bounded in its generics or `where` clause
/// (`'a: 'b`, `T: 'a`) is not: one error at each bound.
fn check_lifetime_bounds(sig: &syn::Signature, diag: &mut Diagnostics) {
    let lifetimes: Vec<&syn::LifetimeParam> = (sig.generics.params.iter())
        .filter_map(|p| match p {
            syn::GenericParam::Lifetime(l) => Some(l),
            _ => None,
        })
        .collect();
    let message = |what: &str| {
        format!(
            "kernel `{}` bounds {what}; a kernel takes its references for any lifetime (the \
             dispatcher calls it with each call's borrows): remove the bound",
            sig.ident
        )
    };
    for l in &lifetimes {
        if !l.bounds.is_empty() {
            diag.at(
                &l.bounds,
                message(&format!("its lifetime `{}`", l.lifetime)),
            );
        }
    }
    let Some(clause) = &sig.generics.where_clause else {
        return;
    };
    for predicate in &clause.predicates {
        let named = (lifetimes.iter()).find(|l| {
            mentions(
                quote::ToTokens::to_token_stream(predicate),
                &l.lifetime.ident,
            )
        });
        if let Some(l) = named {
            diag.at(
                predicate,
                message(&format!("its lifetime `{}`", l.lifetime)),
            );
        }
    }
}

/// Whether `tokens` name the lifetime `'ident`.
fn mentions(tokens: TokenStream2, ident: &proc_macro2::Ident) -> bool {
    let mut quote_before = false;
    tokens.into_iter().any(|tree| {
        let found = match &tree {
            TokenTree::Group(g) => mentions(g.stream(), ident),
            TokenTree::Ident(i) => quote_before && i == ident,
            _ => false,
        };
        quote_before = matches!(&tree, TokenTree::Punct(p) if p.as_char() == '\'');
        found
    })
}

impl KernelFn {
    /// The same function seen with other parameters and output (the meta function without
    /// its `StructuredMeta` parameter, checked like a kernel of the out operator's inputs).
    pub(crate) fn with_params(&self, params: Vec<Param>, output: KernelReturn) -> KernelFn {
        KernelFn {
            attrs: self.attrs.clone(),
            vis: self.vis.clone(),
            sig: self.sig.clone(),
            tokens: TokenStream2::new(),
            key_set: None,
            params,
            output,
            bodyless: self.bodyless,
        }
    }
}

/// A stream's tokens but the last, which is kept in `last`.
struct AllButLast {
    trees: proc_macro2::token_stream::IntoIter,
    last: Option<TokenTree>,
}

impl Iterator for AllButLast {
    type Item = TokenTree;

    fn next(&mut self) -> Option<TokenTree> {
        if self.last.is_none() {
            self.last = Some(self.trees.next()?);
        }
        let next = self.trees.next()?;
        self.last.replace(next)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.trees.size_hint();
        match self.last {
            Some(_) => (low, high),
            None => (low.saturating_sub(1), high.map(|h| h.saturating_sub(1))),
        }
    }
}

fn first_tokens(item: TokenStream2) -> TokenStream2 {
    item.into_iter().take(3).collect()
}

/// `DispatchKeySet`, however qualified.
fn is_key_set(ty: &syn::Type) -> bool {
    fit::last_ident(ty).is_some_and(|i| i == "DispatchKeySet")
}

fn parse_output(sig: &syn::Signature) -> KernelReturn {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return KernelReturn {
            value: None,
            fallible: false,
            span: sig.paren_token.span.close(),
            written: None,
        };
    };
    let span = ty.span();
    match fit::result_value(ty) {
        Some(value) => KernelReturn {
            value: Some(value.clone()),
            fallible: true,
            span,
            written: Some((**ty).clone()),
        },
        None => KernelReturn {
            value: Some((**ty).clone()),
            fallible: false,
            span,
            written: Some((**ty).clone()),
        },
    }
}
