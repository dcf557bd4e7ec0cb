//! The `BackendSelect` kernel of an operator with TensorOptions (torchgen's
//! `RegisterBackendSelect.cpp`, SCHEMA.md §5.9): it computes the backend key from `dtype`,
//! `layout` and `device` (with the keys of any tensor arguments, below `BackendSelect`) and
//! redispatches. It is registered with the operator's `def`, through the `backend_select`
//! function of its link-time `Registration`, before any kernel, so that a kernel registered
//! at `BackendSelect` by hand shadows it.

use proc_macro2::{Delimiter, TokenStream as TokenStream2};
use quote::{ToTokens, TokenStreamExt};

use super::docs::string;
use super::frag::rt_path;
use super::frag::{colon2, group, ident, punct, punct_joint};
use super::plan::OpPlan;
use super::register::{registration_result, some};
use super::types::Lifetimes;
use crate::plan::RustType;

/// `fn __opgen_backend_select(lib, site) -> Result<Registration, Error>`, for a schema that
/// needs one (`Schema::needs_backend_select`); `None` otherwise:
///
/// ```text
/// fn __opgen_backend_select(
///     lib: &rt::dispatch::Library,
///     site: rt::dispatch::Site,
/// ) -> ::core::result::Result<rt::dispatch::Registration, rt::dispatch::Error> {
///     let op: rt::__private::Redispatch<T, (A, ...,), RET> =
///         rt::__private::Redispatch::new(lib, NAME, OVERLOAD)?;
///     let kernel = move |key_set: rt::dispatch::DispatchKeySet, a: A, ...| -> RESULT {
///         let key_set = rt::__private::backend_select_keys(
///             OPERATOR, key_set, HAS_TENSORS, DTYPE, LAYOUT, DEVICE,
///         )?;
///         op.get()?.try_redispatch(key_set, a, ...)
///     };
///     rt::__private::register_kernel::<T, _, _>(
///         lib, FULL_NAME, rt::dispatch::DispatchKey::BackendSelect, kernel, site,
///     )
/// }
/// ```
///
/// (`#[allow(non_snake_case)]` on the closure when an argument's name has an upper-case
/// letter), DTYPE, LAYOUT and DEVICE being the arguments as the `Option`s the runtime takes.
pub(crate) fn expand_backend_select(plan: &OpPlan<'_>) -> Option<TokenStream2> {
    let start = plan.schema.tensor_options_start()?;
    if !plan.schema.needs_backend_select() {
        return None;
    }
    let rt = &plan.rt;
    let tensor = &plan.tensor_tokens;
    // `dtype`, `layout`, `device`, and whether each is an `Option` already.
    let option = |i: usize| {
        let a = plan.args.get(i)?;
        Some((&a.ident, matches!(a.ty, RustType::Option(_))))
    };
    let options = [option(start)?, option(start + 1)?, option(start + 2)?];
    let has_tensors = plan.schema.arguments.iter().any(|a| a.ty.is_tensor_like());
    let mut out = TokenStream2::new();
    ident(&mut out, "fn");
    ident(&mut out, "__opgen_backend_select");
    group(&mut out, Delimiter::Parenthesis, |g| {
        ident(g, "lib");
        punct(g, ':');
        punct(g, '&');
        rt_path(g, rt, &["dispatch", "Library"]);
        punct(g, ',');
        ident(g, "site");
        punct(g, ':');
        rt_path(g, rt, &["dispatch", "Site"]);
        punct(g, ',');
    });
    registration_result(&mut out, rt);
    group(&mut out, Delimiter::Brace, |body| {
        // `let op: rt::__private::Redispatch<T, (A, ...,), RET> =
        // rt::__private::Redispatch::new(lib, NAME, OVERLOAD)?;`
        ident(body, "let");
        ident(body, "op");
        punct(body, ':');
        rt_path(body, rt, &["__private", "Redispatch"]);
        punct(body, '<');
        tensor.to_tokens(body);
        punct(body, ',');
        group(body, Delimiter::Parenthesis, |g| {
            for a in &plan.args {
                plan.ty(&a.ty, Lifetimes::Static, g);
                punct(g, ',');
            }
        });
        punct(body, ',');
        plan.ret.to_tokens(body);
        punct(body, '>');
        punct(body, '=');
        rt_path(body, rt, &["__private", "Redispatch", "new"]);
        group(body, Delimiter::Parenthesis, |g| {
            ident(g, "lib");
            punct(g, ',');
            g.append(string(&plan.qualified()));
            punct(g, ',');
            g.append(string(plan.overload()));
        });
        punct(body, '?');
        punct(body, ';');
        if plan.upper_args {
            plan.attrs.snake.to_tokens(body);
        }
        // `let kernel = move |key_set: rt::dispatch::DispatchKeySet, a: A, ...| -> RESULT {..};`
        ident(body, "let");
        ident(body, "kernel");
        punct(body, '=');
        ident(body, "move");
        punct(body, '|');
        ident(body, "key_set");
        punct(body, ':');
        rt_path(body, rt, &["dispatch", "DispatchKeySet"]);
        punct(body, ',');
        for (i, d) in plan.decls.iter().enumerate() {
            if i > 0 {
                punct(body, ',');
            }
            d.to_tokens(body);
        }
        punct(body, '|');
        punct_joint(body, '-');
        punct(body, '>');
        plan.result.to_tokens(body);
        group(body, Delimiter::Brace, |k| {
            // `let key_set = rt::__private::backend_select_keys(..)?;`
            ident(k, "let");
            ident(k, "key_set");
            punct(k, '=');
            rt_path(k, rt, &["__private", "backend_select_keys"]);
            group(k, Delimiter::Parenthesis, |g| {
                g.append(string(&format!("{}::{}", plan.namespace, plan.full_name)));
                punct(g, ',');
                ident(g, "key_set");
                punct(g, ',');
                ident(g, if has_tensors { "true" } else { "false" });
                punct(g, ',');
                for (id, optional) in options {
                    if optional {
                        id.to_tokens(g);
                    } else {
                        some(g, |g| id.to_tokens(g));
                    }
                    punct(g, ',');
                }
            });
            punct(k, '?');
            punct(k, ';');
            // `op.get()?.try_redispatch(key_set, a, ...)`
            ident(k, "op");
            punct(k, '.');
            ident(k, "get");
            group(k, Delimiter::Parenthesis, |_| {});
            punct(k, '?');
            punct(k, '.');
            ident(k, "try_redispatch");
            group(k, Delimiter::Parenthesis, |g| {
                ident(g, "key_set");
                punct(g, ',');
                for (i, a) in plan.args.iter().enumerate() {
                    if i > 0 {
                        punct(g, ',');
                    }
                    a.ident.to_tokens(g);
                }
            });
        });
        punct(body, ';');
        // `rt::__private::register_kernel::<T, _, _>(lib, FULL_NAME,
        // rt::dispatch::DispatchKey::BackendSelect, kernel, site,)`
        rt_path(body, rt, &["__private", "register_kernel"]);
        colon2(body);
        punct(body, '<');
        tensor.to_tokens(body);
        punct(body, ',');
        ident(body, "_");
        punct(body, ',');
        ident(body, "_");
        punct(body, '>');
        group(body, Delimiter::Parenthesis, |g| {
            ident(g, "lib");
            punct(g, ',');
            g.append(string(&plan.full_name));
            punct(g, ',');
            rt_path(g, rt, &["dispatch", "DispatchKey", "BackendSelect"]);
            punct(g, ',');
            ident(g, "kernel");
            punct(g, ',');
            ident(g, "site");
            punct(g, ',');
        });
    });
    Some(out)
}
