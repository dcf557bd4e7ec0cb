//! The redispatch functions (a key set first, then the dispatcher signature) and the hidden
//! function that holds the operator's cached typed handle.

use proc_macro2::{Delimiter, Group, TokenStream as TokenStream2};
use quote::{ToTokens, TokenStreamExt};

use super::docs;
use super::frag::{Frag, colon2, group, ident, punct, punct_joint, root_path};
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
            g.append(Group::new(Delimiter::Parenthesis, args.clone()));
        });
    });
    docs::item(plan, &[what, "Errors are returned."], out);
    head(out, &fallible, &plan.result, false);
    let handle = &plan.handle;
    group(out, Delimiter::Brace, |body| {
        handle.to_tokens(body);
        punct(body, '.');
        ident(body, "try_redispatch");
        body.append(Group::new(Delimiter::Parenthesis, args));
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
    let (ret, result, decls) = (&plan.ret, &plan.result, &plan.decls_group);
    // `#[doc(hidden)]`, made once for both items.
    let doc_hidden = {
        let mut a = TokenStream2::new();
        ident(&mut a, "doc");
        group(&mut a, Delimiter::Parenthesis, |g| ident(g, "hidden"));
        Frag::attr(a)
    };
    // `#rt::__private::Op`
    let op = |out: &mut TokenStream2| {
        rt.to_tokens(out);
        root_path(out, &["__private", "Op"]);
    };
    // static #handle: #rt::__private::Op<#tensor, #families, #ret> =
    //     #rt::__private::Op::new(#name, #overload);
    doc_hidden.to_tokens(out);
    punct(out, '#');
    group(out, Delimiter::Bracket, |a| {
        ident(a, "allow");
        group(a, Delimiter::Parenthesis, |g| ident(g, "dead_code"));
    });
    ident(out, "static");
    handle.to_tokens(out);
    punct(out, ':');
    op(out);
    punct(out, '<');
    tensor.to_tokens(out);
    punct(out, ',');
    group(out, Delimiter::Parenthesis, |g| {
        for a in &plan.args {
            plan.ty(&a.ty, Lifetimes::Static, g);
            punct(g, ',');
        }
    });
    punct(out, ',');
    ret.to_tokens(out);
    punct(out, '>');
    punct(out, '=');
    op(out);
    root_path(out, &["new"]);
    group(out, Delimiter::Parenthesis, |g| {
        g.append(docs::string(&plan.qualified()));
        punct(g, ',');
        g.append(docs::string(plan.overload()));
    });
    punct(out, ';');
    // fn #call_fn #decls -> #result { #handle.#call }
    doc_hidden.to_tokens(out);
    plan.attrs.inline.to_tokens(out);
    punct(out, '#');
    group(out, Delimiter::Bracket, |a| {
        ident(a, "allow");
        group(a, Delimiter::Parenthesis, |g| {
            ident(g, "dead_code");
            punct(g, ',');
            ident(g, "non_snake_case");
            punct(g, ',');
            ident(g, "unexpected_cfgs");
            punct(g, ',');
            ident(g, "clippy");
            colon2(g);
            ident(g, "too_many_arguments");
        });
    });
    ident(out, "fn");
    call_fn.to_tokens(out);
    decls.to_tokens(out);
    punct_joint(out, '-');
    punct(out, '>');
    result.to_tokens(out);
    group(out, Delimiter::Brace, |body| {
        handle.to_tokens(body);
        punct(body, '.');
        // An operator with TensorOptions: static dispatch takes the backend from them too.
        ident(
            body,
            if plan.options.is_some() {
                "try_call_with_options"
            } else {
                "try_call"
            },
        );
        group(body, Delimiter::Parenthesis, |g| {
            // ::core::cfg!(feature = "opgen-static-dispatch"),
            root_path(g, &["core", "cfg"]);
            punct(g, '!');
            group(g, Delimiter::Parenthesis, |c| {
                ident(c, "feature");
                punct(c, '=');
                c.append(docs::string("opgen-static-dispatch"));
            });
            punct(g, ',');
            if let Some(s) = plan.options {
                // (#dtype, #layout, #device),
                group(g, Delimiter::Parenthesis, |t| {
                    for (k, a) in plan.args[s..s + 3].iter().enumerate() {
                        if k > 0 {
                            punct(t, ',');
                        }
                        a.ident.to_tokens(t);
                    }
                });
                punct(g, ',');
            }
            for (k, a) in plan.args.iter().enumerate() {
                if k > 0 {
                    punct(g, ',');
                }
                a.ident.to_tokens(g);
            }
        });
    });
}
