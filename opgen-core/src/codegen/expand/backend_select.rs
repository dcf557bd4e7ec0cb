//! The `BackendSelect` kernel of an operator with TensorOptions (torchgen's
//! `RegisterBackendSelect.cpp`, SCHEMA.md §5.9): it computes the backend key from `dtype`,
//! `layout` and `device` (with the keys of any tensor arguments, below `BackendSelect`) and
//! redispatches. It is registered with the operator's `def`, through the `backend_select`
//! function of its link-time `Registration`, before any kernel, so that a kernel registered
//! at `BackendSelect` by hand shadows it.

use proc_macro2::{Delimiter, TokenStream as TokenStream2};
use quote::{ToTokens, quote};

use super::docs::string;
use super::frag::{group, punct};
use super::plan::OpPlan;
use super::types::Lifetimes;
use crate::plan::RustType;

/// `fn __opgen_backend_select(lib, site) -> Result<Registration, Error>`, for a schema that
/// needs one (`Schema::needs_backend_select`); `None` otherwise.
pub(crate) fn expand_backend_select(plan: &OpPlan<'_>) -> Option<TokenStream2> {
    let start = plan.schema.tensor_options_start()?;
    if !plan.schema.needs_backend_select() {
        return None;
    }
    let rt = &plan.rt;
    let tensor = &plan.tensor_tokens;
    // `dtype`, `layout`, `device` as the `Option`s the runtime takes.
    let option = |i: usize| {
        let a = plan.args.get(i)?;
        let id = &a.ident;
        Some(match a.ty {
            RustType::Option(_) => quote!(#id),
            _ => quote!(::core::option::Option::Some(#id)),
        })
    };
    let (dtype, layout, device) = (option(start)?, option(start + 1)?, option(start + 2)?);
    let mut families = TokenStream2::new();
    group(&mut families, Delimiter::Parenthesis, |g| {
        for a in &plan.args {
            plan.ty(&a.ty, Lifetimes::Static, g);
            punct(g, ',');
        }
    });
    let has_tensors = plan.schema.arguments.iter().any(|a| a.ty.is_tensor_like());
    let (ret, result) = (&plan.ret, &plan.result);
    let decls = plan.decls.iter();
    let ids = plan.args.iter().map(|a| &a.ident);
    let (name, overload, full_name) = (
        string(&plan.qualified()),
        string(plan.overload()),
        string(&plan.full_name),
    );
    let operator = string(&format!("{}::{}", plan.namespace, plan.full_name));
    let mut snake = TokenStream2::new();
    if plan.upper_args {
        plan.attrs.snake.to_tokens(&mut snake);
    }
    Some(quote! {
        fn __opgen_backend_select(
            lib: &#rt::dispatch::Library,
            site: #rt::dispatch::Site,
        ) -> ::core::result::Result<#rt::dispatch::Registration, #rt::dispatch::Error> {
            let op: #rt::__private::Redispatch<#tensor, #families, #ret> =
                #rt::__private::Redispatch::new(lib, #name, #overload)?;
            #snake
            let kernel = move |key_set: #rt::dispatch::DispatchKeySet, #(#decls),*| -> #result {
                let key_set = #rt::__private::backend_select_keys(
                    #operator, key_set, #has_tensors, #dtype, #layout, #device,
                )?;
                op.get()?.try_redispatch(key_set, #(#ids),*)
            };
            #rt::__private::register_kernel::<#tensor, _, _>(
                lib, #full_name, #rt::dispatch::DispatchKey::BackendSelect, kernel, site,
            )
        }
    })
}
