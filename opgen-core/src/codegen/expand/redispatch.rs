//! The redispatch functions (a key set first, then the dispatcher signature) and the hidden
//! function that holds the operator's cached typed handle.

use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

use super::docs;
use super::free_fn::function;
use super::plan::OpPlan;
use super::types::Lifetimes;

/// `NAME_redispatch` and `try_NAME_redispatch`: continue dispatch below a kernel's key.
pub(crate) fn expand_redispatch(plan: &OpPlan<'_>) -> TokenStream2 {
    let rt = &plan.rt;
    let vis = plan.vis;
    let plain = plan.form("", "_redispatch");
    let fallible = plan.form("try_", "_redispatch");
    let decls = &plan.decls;
    let ids: Vec<&syn::Ident> = plan.args.iter().map(|a| &a.ident).collect();
    let (ret, result) = (&plan.ret, &plan.result);
    let handle = plan.handle();
    let what = "Calls the operator with the key set given (in a kernel, typically its own key set \
                below its key), every argument in schema order; the thread-local key sets are not \
                applied again.";
    let plain_doc = docs::item(plan, &{
        let mut v = vec![what.to_string()];
        v.extend(docs::panics(&fallible.to_string()));
        v
    });
    let try_doc = docs::item(plan, &[what, "Errors are returned."]);
    let many = (decls.len() + 1 > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let snake = ids
        .iter()
        .any(|i| i.to_string().chars().any(|c| c.is_ascii_uppercase()))
        .then(|| quote!(#[allow(non_snake_case)]));
    let dead = plan.allow_dead_code();
    let mut out = function(
        plain_doc,
        quote! {
            #[inline]
            #[track_caller]
            #dead
            #many
            #snake
            #vis fn #plain(key_set: #rt::dispatch::DispatchKeySet, #(#decls),*) -> #ret
        },
        quote!(#rt::__private::panic_on_error(#fallible(key_set, #(#ids),*))),
    );
    out.extend(function(
        try_doc,
        quote! {
            #[inline]
            #dead
            #many
            #snake
            #vis fn #fallible(
                key_set: #rt::dispatch::DispatchKeySet,
                #(#decls),*
            ) -> #result
        },
        quote!(#handle.try_redispatch(key_set, #(#ids),*)),
    ));
    out
}

/// The hidden static holding the operator's typed handles (`__private::Op`: looked up once
/// for the life of the program), and the hidden function every public form calls. With the
/// user crate's feature `opgen-static-dispatch`, the function calls the kernel linked for
/// the arguments' backend instead (`Op::try_call`'s flag); redispatch always goes through
/// the dispatcher.
/// The feature is tested with `cfg!` in the body: a `#[cfg]` attribute would warn
/// (`unexpected_cfgs`) in every crate that does not declare the feature.
pub(crate) fn expand_handle(plan: &OpPlan<'_>) -> TokenStream2 {
    let rt = &plan.rt;
    let tensor = plan.tensor;
    let (handle, call_fn) = (plan.handle(), plan.call_fn());
    let families = plan.args.iter().map(|a| plan.ty(&a.ty, Lifetimes::Static));
    let families = quote!((#(#families,)*));
    let (ret, result, decls) = (&plan.ret, &plan.result, &plan.decls);
    let ids = plan.args.iter().map(|a| &a.ident);
    let (name, overload) = (
        docs::string(&plan.qualified()),
        docs::string(plan.overload()),
    );
    quote! {
        #[doc(hidden)]
        #[allow(dead_code)]
        static #handle: #rt::__private::Op<#tensor, #families, #ret> =
            #rt::__private::Op::new(#name, #overload);

        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, non_snake_case, unexpected_cfgs, clippy::too_many_arguments)]
        fn #call_fn(#(#decls),*) -> #result {
            #handle.try_call(::core::cfg!(feature = "opgen-static-dispatch"), #(#ids),*)
        }
    }
}
