//! The redispatch functions (a key set first, then the dispatcher signature) and the hidden
//! function that holds the operator's cached typed handle.

use proc_macro2::{Delimiter, TokenStream as TokenStream2};
use quote::{ToTokens, quote};

use super::docs;
use super::frag::{Frag, group, ident, punct, punct_joint, root_path};
use super::plan::OpPlan;
use super::types::Lifetimes;

/// `NAME_redispatch` and `try_NAME_redispatch`: continue dispatch below a kernel's key.
pub(crate) fn expand_redispatch(plan: &OpPlan<'_>, out: &mut TokenStream2) {
    let rt = &plan.rt;
    let plain = plan.form("", "_redispatch");
    let fallible = plan.form("try_", "_redispatch");
    let what = "Calls the operator with the key set given (in a kernel, typically its own key set \
                below its key), every argument in schema order; the thread-local key sets are not \
                applied again.";
    // `(key_set: DispatchKeySet, a: &T, ...)`, shared by both.
    let mut params = TokenStream2::new();
    ident(&mut params, "key_set");
    punct(&mut params, ':');
    rt.to_tokens(&mut params);
    root_path(&mut params, &["dispatch", "DispatchKeySet"]);
    punct(&mut params, ',');
    for (i, d) in plan.decls.iter().enumerate() {
        if i > 0 {
            punct(&mut params, ',');
        }
        d.to_tokens(&mut params);
    }
    let params = Frag::group(Delimiter::Parenthesis, params);
    let head = |out: &mut TokenStream2, name: &syn::Ident, ret: &Frag, track: bool| {
        plan.attrs.inline.to_tokens(out);
        if track {
            plan.attrs.track_caller.to_tokens(out);
        }
        plan.attrs.lints(out, plan.decls.len() + 1, plan.upper_args);
        plan.vis.to_tokens(out);
        ident(out, "fn");
        name.to_tokens(out);
        params.to_tokens(out);
        punct_joint(out, '-');
        punct(out, '>');
        ret.to_tokens(out);
    };
    // `(key_set, a, ...)`
    let mut args = TokenStream2::new();
    ident(&mut args, "key_set");
    punct(&mut args, ',');
    for (i, a) in plan.args.iter().enumerate() {
        if i > 0 {
            punct(&mut args, ',');
        }
        a.ident.to_tokens(&mut args);
    }
    let mut doc = docs::Doc::with_capacity(what.len() + 120);
    doc.raw(what).panics(&fallible);
    docs::item_with(plan, &docs::attr(doc.finish()), out);
    head(out, &plain, &plan.ret, true);
    group(out, Delimiter::Brace, |body| {
        rt.to_tokens(body);
        root_path(body, &["__private", "panic_on_error"]);
        group(body, Delimiter::Parenthesis, |g| {
            fallible.to_tokens(g);
            group(g, Delimiter::Parenthesis, |g| g.extend(args.clone()));
        });
    });
    docs::item(plan, &[what, "Errors are returned."], out);
    head(out, &fallible, &plan.result, false);
    let handle = &plan.handle;
    group(out, Delimiter::Brace, |body| {
        body.extend(quote!(#handle.try_redispatch(#args)));
    });
}

/// The hidden static holding the operator's typed handles (`__private::Op`: looked up once
/// for the life of the program), and the hidden function every public form calls. With the
/// user crate's feature `opgen-static-dispatch`, the function calls the kernel linked for
/// the arguments' backend instead (`Op::try_call`'s flag), and for an operator with
/// TensorOptions, the backend of its dtype, layout and device too
/// (`Op::try_call_with_options`); redispatch always goes through the dispatcher.
/// The feature is tested with `cfg!` in the body: a `#[cfg]` attribute would warn
/// (`unexpected_cfgs`) in every crate that does not declare the feature.
pub(crate) fn expand_handle(plan: &OpPlan<'_>, out: &mut TokenStream2) {
    let rt = &plan.rt;
    let tensor = &plan.tensor_tokens;
    let (handle, call_fn) = (&plan.handle, &plan.call_fn);
    let mut families = TokenStream2::new();
    group(&mut families, Delimiter::Parenthesis, |g| {
        for a in &plan.args {
            plan.ty(&a.ty, Lifetimes::Static, g);
            punct(g, ',');
        }
    });
    let (ret, result, decls) = (&plan.ret, &plan.result, &plan.decls_group);
    let ids = plan.args.iter().map(|a| &a.ident);
    let (name, overload) = (
        docs::string(&plan.qualified()),
        docs::string(plan.overload()),
    );
    // An operator with TensorOptions: static dispatch takes the backend from them too.
    let call = match plan.options {
        Some(s) => {
            let [dtype, layout, device] = [s, s + 1, s + 2].map(|i| &plan.args[i].ident);
            quote!(try_call_with_options(
                ::core::cfg!(feature = "opgen-static-dispatch"),
                (#dtype, #layout, #device),
                #(#ids),*
            ))
        }
        None => quote!(try_call(::core::cfg!(feature = "opgen-static-dispatch"), #(#ids),*)),
    };
    out.extend(quote! {
        #[doc(hidden)]
        #[allow(dead_code)]
        static #handle: #rt::__private::Op<#tensor, #families, #ret> =
            #rt::__private::Op::new(#name, #overload);

        #[doc(hidden)]
        #[inline]
        #[allow(dead_code, non_snake_case, unexpected_cfgs, clippy::too_many_arguments)]
        fn #call_fn #decls -> #result {
            #handle.#call
        }
    });
}
