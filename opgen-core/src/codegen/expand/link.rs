//! The link-time entries of an expansion: `const` constructor calls of the runtime's
//! `LinkEntry` in one group of `LINK_ENTRIES` per expansion (one per `#[native_function]`,
//! one per `include_native_functions!`), and `Deferred` registrations of structured
//! delegates. The runtime's names for them are written here only.

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned};

use super::ident;
use crate::dispatch::DispatchKey;
use crate::plan::{Api, OpPlan};

/// `#rt::__private::LinkEntry`.
pub(crate) fn entry_type(rt: &syn::Path) -> TokenStream2 {
    quote!(#rt::__private::LinkEntry)
}

/// The hidden block (an anonymous `const`, never documented) holding `items` (the markers'
/// `impl Operator`), the group `entries` in `LINK_ENTRIES`, the expansion's table `table`
/// when markers name one (`op_table!`: the group as its entries, one cache per entry, the
/// crate's static-dispatch setting) and `extra` items.
/// The group's type is the version check (`require_version!("X.Y.Z")`, `&[LinkEntry]` for
/// the runtime of the macros' version, else one clear error), and the slice is named
/// `LINK_ENTRIES_0_1_0`, the hard lock: only the runtime of the macro's own version has that
/// name. `name` names the group's static (not a name the
/// block's code uses otherwise).
pub(crate) fn group(
    rt: &syn::Path,
    name: &syn::Ident,
    table: Option<&syn::Ident>,
    items: TokenStream2,
    entries: &[TokenStream2],
    extra: TokenStream2,
) -> TokenStream2 {
    // The macros are this crate's code: its version is theirs.
    let version = env!("CARGO_PKG_VERSION");
    let table = table.map(|table| {
        let n = proc_macro2::Literal::usize_unsuffixed(entries.len());
        quote!(#rt::__private::op_table!(#table, #name, #n);)
    });
    quote! {
        const _: () = {
            #table
            #items
            #[#rt::__private::distributed_slice(#rt::__private::LINK_ENTRIES_0_1_0)]
            #[linkme(crate = #rt::__private::linkme)]
            static #name: #rt::__private::require_version!(#version) = &[#(#entries),*];
            #extra
        };
    }
}

/// The entry declaring the planned operator (its `def`, whose schema its marker reads from
/// the table): variants, device settings and the generated `BackendSelect` kernel where
/// they are not the defaults. `at` is where the entry's site points (the kernel, or the
/// macro call).
pub(crate) fn declare(plan: &OpPlan, api: &Api, rt: &syn::Path, at: Span) -> TokenStream2 {
    let marker = ident(&api.marker);
    let mut out = def_only(plan, rt, at);
    if plan.backend_select {
        out.extend(quote!(.backend_select(#rt::__private::backend_select::<#marker>)));
    }
    out
}

/// The `def` entry of the planned operator, with its variants and device settings where
/// they are not the defaults: alone, an operator without a Rust API (callable by name only).
pub(crate) fn def_only(plan: &OpPlan, rt: &syn::Path, at: Span) -> TokenStream2 {
    let entry = entry_type(rt);
    let schema = plan.qualified_schema();
    let mut out = quote_spanned!(at=> #entry::def(#schema));
    out.extend(settings(plan, rt));
    out
}

/// `.variants(..)` and `.device(..)` where they differ from the defaults (function only;
/// check and guard).
fn settings(plan: &OpPlan, _rt: &syn::Path) -> TokenStream2 {
    let v = plan.variants;
    let mut out = TokenStream2::new();
    if (v.function, v.method) != (true, false) {
        let (f, m) = (v.function, v.method);
        out.extend(quote!(.variants(#f, #m)));
    }
    if (plan.device_check, plan.device_guard) != (true, true) {
        let (c, g) = (plan.device_check, plan.device_guard);
        out.extend(quote!(.device(#c, #g)));
    }
    out
}

/// `&[#rt::DispatchKey::CPU, ...]`.
pub(crate) fn keys(keys: &[DispatchKey], rt: &syn::Path) -> TokenStream2 {
    let keys = keys.iter().map(|k| {
        let k = syn::Ident::new(k.name(), Span::call_site());
        quote!(#rt::DispatchKey::#k)
    });
    quote!(&[#(#keys),*])
}

/// An entry's kernel: `.with_kernel(&[keys], |lib, key, site| REGISTER)`, `register`
/// naming the closure's parameters `params`.
pub(crate) fn with_kernel(
    keys_tokens: TokenStream2,
    register: TokenStream2,
    params: &Params,
) -> TokenStream2 {
    let Params { lib, key, site } = params;
    quote!(.with_kernel(#keys_tokens, |#lib, #key, #site| #register))
}

/// A kernel of an operator defined elsewhere, named by string (`aten::add.Tensor`).
pub(crate) fn kernel_by_name(
    rt: &syn::Path,
    operator: &str,
    keys_tokens: TokenStream2,
    register: TokenStream2,
    params: &Params,
    at: Span,
) -> TokenStream2 {
    let entry = entry_type(rt);
    let Params { lib, key, site } = params;
    quote_spanned!(at=> #entry::kernel(#operator, #keys_tokens, |#lib, #key, #site| #register))
}

/// A kernel of the operator with marker `marker` (a path), defined elsewhere.
pub(crate) fn kernel_of(
    rt: &syn::Path,
    marker: &syn::Path,
    keys_tokens: TokenStream2,
    register: TokenStream2,
    params: &Params,
    at: Span,
) -> TokenStream2 {
    let entry = entry_type(rt);
    let Params { lib, key, site } = params;
    quote_spanned!(at=> #entry::kernel_of::<#marker>(#keys_tokens, |#lib, #key, #site| #register))
}

/// The deferred registration of a structured delegate (marker `marker`): `register` is a
/// path to a `fn(&Library, Site) -> Result<Vec<Registration>, Error>`.
pub(crate) fn deferred(
    rt: &syn::Path,
    name: &syn::Ident,
    marker: &syn::Ident,
    register: TokenStream2,
    at: Span,
) -> TokenStream2 {
    let call = quote_spanned!(at=> #rt::__private::Deferred::of::<#marker>(#register));
    quote! {
        #[#rt::__private::distributed_slice(#rt::__private::DEFERRED)]
        #[linkme(crate = #rt::__private::linkme)]
        static #name: #rt::__private::Deferred = #call;
    }
}

/// The names of a registration closure's parameters, chosen so that none is a name of the
/// user's that the closure's body refers to (the kernel's).
pub(crate) struct Params {
    pub lib: syn::Ident,
    pub key: syn::Ident,
    pub site: syn::Ident,
}

impl Params {
    /// `lib`, `key`, `site`, each with `_` appended while it is in `reserved`.
    pub fn avoiding(reserved: &std::collections::BTreeSet<String>) -> Params {
        let name = |base: &str| ident(&crate::plan::fresh_name(base, reserved));
        Params {
            lib: name("lib"),
            key: name("key"),
            site: name("site"),
        }
    }
}
