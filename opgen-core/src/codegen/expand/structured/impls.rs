//! An impl of a structured operator (`#[native_function(op = "add.out", structured,
//! dispatch = "CPU")]`): the function unchanged, and its registration through the runtime's
//! out kernel, with the function coerced to the marker's impl type. The function also
//! coerces to the impl's exact signature, so a parameter of another type (even `&` for
//! `&mut`) is a type error at the function, also across crates.

use proc_macro2::TokenStream as TokenStream2;
use quote::{quote, quote_spanned};

use crate::codegen::check::{Checked, impl_marker};
use crate::codegen::expand::kernel::group_name;
use crate::codegen::expand::{ident, link};
use crate::plan::fresh_name;

/// The impl's expansion.
pub(crate) fn expand_impl(checked: &Checked<'_>) -> TokenStream2 {
    let input = checked.input;
    let kernel = &input.kernel;
    let Some(marker) = impl_marker(input) else {
        return kernel.tokens.clone();
    };
    let rt = &input.rt;
    let k = kernel.ident();
    let at = k.span();
    let reserved = crate::codegen::expand::reserved(input, None);
    let mut taken = reserved.clone();
    let params: Vec<syn::Ident> = (0..kernel.params.len())
        .map(|i| {
            let name = fresh_name(&format!("a{i}"), &taken);
            taken.insert(name.clone());
            ident(&name)
        })
        .collect();
    let written: syn::Type =
        (kernel.output.written.clone()).unwrap_or_else(|| syn::parse_quote!(()));
    let op = quote_spanned!(at=> <#marker as #rt::structured::StructuredOp>);
    let local = ident(&fresh_name("imp", &taken));
    let imp = quote_spanned! {at=>
        {
            let #local: #op::Impl = |#(#params),*| #rt::__private::impl_result(#k(#(#params),*));
            #local
        }
    };
    let lp = link::Params::avoiding(&taken);
    let link::Params { lib, key, site } = &lp;
    let register = quote!(#rt::structured::register_out::<#marker>(#lib, #key, ::core::option::Option::Some(#imp), #site));
    let keys = input.keys.iter().map(|k| k.key).collect::<Vec<_>>();
    let entry = link::kernel_of(rt, &marker, link::keys(&keys, rt), register, &lp, at);
    let exact = quote_spanned!(at=> const _: #op::ImplSignature<#written> = #k;);
    let group = link::group(
        rt,
        &group_name(&reserved),
        None,
        TokenStream2::new(),
        &[entry],
        exact,
    );
    let tokens = &kernel.tokens;
    quote! {
        #tokens
        #group
    }
}
