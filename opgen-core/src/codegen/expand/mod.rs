//! The expand stage: a checked input and its plan → tokens. Never fails: everything that
//! could go wrong was checked before (STYLE.md §1).
//!
//! | what the attribute says | what it expands to | file |
//! |---|---|---|
//! | a schema (or none: inferred) and a kernel | the kernel, the operator's API (`api.rs`), its link entry with the kernel (`kernel.rs`, `link.rs`) | here |
//! | `op = ...` and a kernel | the kernel, a link entry with it (checked at compile time when `op` is a path) | `kernel.rs` |
//! | `structured` on an out schema (the meta function) | the API, the marker's `StructuredOp` impl, the `Meta` kernel | `structured/meta.rs` |
//! | `op = ..., structured` (an impl) | the kernel, its registration through the marker | `structured/impls.rs` |
//! | `structured_delegate` | the API, a deferred registration of its kernels | `structured/delegate.rs` |

pub(crate) mod api;
pub(crate) mod autograd;
pub(crate) mod docs;
mod kernel;
pub(crate) mod link;
mod structured;
pub(crate) mod types;

use std::collections::BTreeSet;

pub(crate) use kernel::{group_name, table_name};

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{ToTokens, quote};

use super::check::{Checked, Definition};
use crate::dispatch::DispatchKey;
use crate::plan::{MethodsKind, OpPlan, PlanInput};

/// What the rendering of one operator needs beyond its plan.
pub(crate) struct Cx<'a> {
    /// The runtime path (`::opgen`, or the `crate = ` option).
    pub rt: &'a syn::Path,
    /// The user's tensor type, with its spans.
    pub tensor: &'a syn::Type,
    /// The visibility of the generated items (the kernel's; `pub` for yaml operators).
    pub vis: &'a syn::Visibility,
    /// The user's doc attributes, which the main item's docs start with.
    pub docs: Vec<&'a syn::Attribute>,
    /// Where the operator's kernels come from, for the docs.
    pub origin: Origin<'a>,
    /// Where the `methods = "trait NAME"` value is written (the trait's name is spanned there).
    pub methods_span: Span,
}

/// Where an operator's kernels come from, as its docs say.
pub(crate) enum Origin<'a> {
    /// The annotated kernel, at these keys; `inferred` when the schema is read off it.
    Kernel {
        name: &'a syn::Ident,
        keys: &'a [DispatchKey],
        inferred: bool,
    },
    /// A structured out operator with this meta function.
    Structured { meta: &'a syn::Ident },
    /// A structured delegate of this out operator.
    Delegate { out: String },
    /// A yaml entry (`include_native_functions!`); `note` says why its names differ.
    Yaml { note: Option<String> },
}

impl Cx<'_> {
    /// `#[allow(dead_code)]` unless the API is public: an operator's API has forms a crate
    /// may not call, and they are generated on purpose.
    pub fn dead_code(&self) -> Option<TokenStream2> {
        self.dead_code_word().map(|w| quote!(#[allow(#w)]))
    }

    /// `dead_code`, to join other lints in one `allow`.
    pub fn dead_code_word(&self) -> Option<TokenStream2> {
        (!matches!(self.vis, syn::Visibility::Public(_))).then(|| quote!(dead_code))
    }
}

/// An identifier from a name the plan made (raw when it starts with `r#`).
pub(crate) fn ident(name: &str) -> syn::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => syn::Ident::new_raw(raw, Span::call_site()),
        None => syn::Ident::new(name, Span::call_site()),
    }
}

/// An identifier at `span` (raw when the name starts with `r#`).
pub(crate) fn ident_at(name: &str, span: Span) -> syn::Ident {
    let mut id = ident(name);
    id.set_span(span);
    id
}

/// The whole expansion of one attribute.
pub(crate) fn all(checked: &Checked<'_>) -> TokenStream2 {
    let input = checked.input;
    let (Some(def), Some(plan)) = (&checked.def, &checked.plan) else {
        if input.options.structured.as_ref().is_some_and(|s| s.value) {
            return structured::expand_impl(checked);
        }
        return kernel::expand_attached(checked);
    };
    if def.function.structured {
        return structured::expand_meta(checked, def, plan);
    }
    if def.function.structured_delegate.is_some() {
        return structured::expand_delegate(checked, def, plan);
    }
    kernel::expand_defined(checked, def, plan)
}

/// The plan of the operator an attribute defines.
pub(crate) fn plan_of(input: &super::Input, def: &Definition) -> OpPlan {
    let name = match (&input.options.name, input.lit.is_some()) {
        (Some(lit), true) => Some(lit.value()),
        _ => None,
    };
    OpPlan::new(&PlanInput {
        function: &def.function,
        namespace: &def.namespace,
        name,
        args_struct: None,
        methods: match &input.methods {
            super::attribute::Methods::Inherent => MethodsKind::Inherent,
            super::attribute::Methods::Trait(t) => MethodsKind::Trait(t.to_string()),
        },
        reserved: reserved(input, Some(&def.signature.tensor)),
    })
}

/// The user's identifiers an expansion's bodies refer to: the kernel, and those of the
/// tensor type (`tensor`, else the `tensor` option's).
pub(crate) fn reserved(input: &super::Input, tensor: Option<&syn::Type>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    out.insert(input.kernel.ident().to_string());
    if let Some(t) = tensor.or(input.tensor.as_ref()) {
        idents_into(t.to_token_stream(), &mut out);
    }
    out
}

/// Every identifier in `tokens` (groups included) into `out`: the names a hidden item of
/// the expansion must not take where those tokens are written.
pub(crate) fn idents_into(tokens: TokenStream2, out: &mut BTreeSet<String>) {
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            proc_macro2::TokenTree::Group(g) => idents_into(g.stream(), out),
            _ => {}
        }
    }
}

/// The doc attributes of the annotated function.
pub(crate) fn user_docs(input: &super::Input) -> Vec<&syn::Attribute> {
    (input.kernel.attrs.iter())
        .filter(|a| a.path().is_ident("doc"))
        .collect()
}

/// The keys a kernel registers at: the `dispatch` option, `CompositeImplicitAutograd`
/// without it (as a yaml entry without `dispatch`), none with `manual_kernel_registration`.
pub(crate) fn kernel_keys(input: &super::Input, manual: bool) -> Vec<DispatchKey> {
    if manual {
        Vec::new()
    } else if input.keys.is_empty() {
        vec![DispatchKey::CompositeImplicitAutograd]
    } else {
        input.keys.iter().map(|k| k.key).collect()
    }
}

/// The span of the `methods` option's value, else of `variants` (which asks for methods),
/// else the call site: where a problem of the methods' `impl` (a tensor type of another
/// crate) is reported.
pub(crate) fn methods_span(input: &super::Input) -> Span {
    let options = &input.options;
    (options.methods.as_ref())
        .or(options.variants.as_ref())
        .map_or_else(Span::call_site, syn::LitStr::span)
}

/// `tokens` with every token placed at `span` (its hygiene kept).
pub(crate) fn respan(tokens: TokenStream2, span: Span) -> TokenStream2 {
    tokens
        .into_iter()
        .map(|mut tree| {
            if let proc_macro2::TokenTree::Group(g) = &tree {
                let mut group = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(g.span().located_at(span));
                tree = group.into();
            } else {
                tree.set_span(tree.span().located_at(span));
            }
            tree
        })
        .collect()
}
