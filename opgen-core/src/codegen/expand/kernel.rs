//! The annotated kernel's registration: with the operator the attribute defines (form 1 and
//! the inferred form), or attached to an operator defined elsewhere (`op =`, form 2).
//!
//! ```text
//! const _: () = {
//!     ::opgen::__private::op_table!(__OPGEN_TABLE, __OPGEN_LINK, 1);
//!     impl ::opgen::dispatch::Operator for add { ... }   // api::expand_operator
//!     #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
//!     #[linkme(crate = ::opgen::__private::linkme)]
//!     static __OPGEN_LINK: &[::opgen::__private::LinkEntry] = &[
//!         ::opgen::__private::LinkEntry::def("aten::add.Tensor(..) -> Tensor")
//!             .with_kernel(&[::opgen::DispatchKey::CPU], |lib, key, site| {
//!                 lib.impl_of::<add, _>(key, add_cpu, site)
//!             }),
//!     ];
//! };
//! ```

use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::link::{self, Params};
use super::types::{Lifetimes, rust_type};
use super::{Cx, Origin, api, ident};
use crate::codegen::attribute::OpRef;
use crate::codegen::check::{Checked, Definition};
use crate::codegen::kernel_fn::{KernelFn, Output};
use crate::plan::{Api, OpPlan, fresh_name};

/// The name of an expansion's link group in its hidden block, unless the user's code the
/// block refers to has it.
pub(crate) fn group_name(reserved: &std::collections::BTreeSet<String>) -> syn::Ident {
    ident(&fresh_name("__OPGEN_LINK", reserved))
}

/// The name of an expansion's table (`op_table!`) in its hidden block, unless the user's
/// code the block refers to has it.
pub(crate) fn table_name(reserved: &std::collections::BTreeSet<String>) -> syn::Ident {
    ident(&fresh_name("__OPGEN_TABLE", reserved))
}

/// The hidden block of an attribute that defines its operator: the table, the marker's
/// `impl Operator` naming it, and the link group `entries`, whose first is the operator's
/// `def` (index 0), with `extra` items.
pub(crate) fn defining_group(
    plan: &OpPlan,
    api: &Api,
    cx: &Cx<'_>,
    reserved: &std::collections::BTreeSet<String>,
    entries: &[TokenStream2],
    extra: TokenStream2,
) -> TokenStream2 {
    let table = table_name(reserved);
    link::group(
        cx.rt,
        &group_name(reserved),
        Some(&table),
        api::expand_operator(plan, api, cx, &table, 0),
        entries,
        extra,
    )
}

/// An operator defined by the attribute, with its kernel: the kernel, the API, the link
/// entry declaring the operator with the kernel at its keys.
pub(crate) fn expand_defined(
    checked: &Checked<'_>,
    def: &Definition,
    plan: &OpPlan,
) -> TokenStream2 {
    let input = checked.input;
    let kernel = &input.kernel;
    let Ok(api) = &plan.api else {
        return internal(kernel, "an operator without a Rust API passed the checks");
    };
    let keys = super::kernel_keys(input, def.function.manual_kernel_registration);
    let cx = Cx {
        rt: &input.rt,
        tensor: &def.signature.tensor,
        vis: &kernel.vis,
        docs: super::user_docs(input),
        origin: Origin::Kernel {
            name: kernel.ident(),
            keys: &keys,
            inferred: input.lit.is_none(),
        },
        methods_span: super::methods_span(input),
    };
    let api_items = api::expand_api(plan, api, &cx, true);
    let reserved = super::reserved(input, Some(&def.signature.tensor));
    let params = Params::avoiding(&reserved);
    let mut entry = link::declare(plan, api, cx.rt, kernel.ident().span());
    if !keys.is_empty() {
        let register = register_defined(plan, api, def, kernel, &params, &cx);
        entry.extend(link::with_kernel(
            link::keys(&keys, cx.rt),
            register,
            &params,
        ));
    }
    let autograd = super::autograd::expand_definition(def, plan, api, &params, &cx);
    let mut entries = vec![entry];
    let autograd_items = autograd.map(|a| {
        entries.push(a.entry);
        a.items
    });
    let group = defining_group(
        plan,
        api,
        &cx,
        &reserved,
        &entries,
        autograd_items.unwrap_or_default(),
    );
    let kernel = &kernel.tokens;
    quote! {
        #kernel
        #api_items
        #group
    }
}

/// The registration of the kernel: `lib.impl_of::<marker, _>(key, kernel, site)`, or of an
/// adapter (`impl_named_of`, named as the kernel in dumps): for a kernel that returns `()`
/// where the schema returns its written arguments, and for a kernel whose types the
/// attribute could not judge (aliases), so that rustc compares them at the user's types.
fn register_defined(
    plan: &OpPlan,
    api: &Api,
    def: &Definition,
    kernel: &KernelFn,
    params: &Params,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let rt = cx.rt;
    let marker = ident(&api.marker);
    let Params { lib, key, site } = params;
    let k = kernel.ident();
    let returned = match &def.signature.output {
        Output::Value if !def.signature.deferred => {
            return quote!(#lib.impl_of::<#marker, _>(#key, #k, #site));
        }
        Output::Value => None,
        Output::Alias(indices) => Some(indices.as_slice()),
    };
    let adapter = adapter(plan, kernel, returned, cx);
    let name = Literal::string(&format!("::{k}"));
    let name = quote!(::core::concat!(::core::module_path!(), #name));
    quote!(#rt::__private::impl_named_of::<#marker, _, _>(#lib, #key, #adapter, #name, #site))
}

/// A closure over the operator's Rust types calling `kernel`, each argument spanned on the
/// kernel's parameter type (so that a parameter of an alias to the wrong type is a
/// mismatch there, in plain types): it returns the kernel's value (spanned on its return
/// type), or, when `returned` lists the written arguments the schema returns, clones of
/// them after the kernel (which returns `()` or `Result<(), E>`).
fn adapter(
    plan: &OpPlan,
    kernel: &KernelFn,
    returned: Option<&[usize]>,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let rt = cx.rt;
    let k = kernel.ident();
    let names: std::collections::BTreeSet<String> =
        plan.args.iter().map(|a| a.ident.clone()).collect();
    let ids: Vec<syn::Ident> = plan.args.iter().map(|a| ident(&a.ident)).collect();
    let tys = plan
        .args
        .iter()
        .map(|a| rust_type(&a.ty, cx, Lifetimes::Elided));
    // The argument's name with the place of the kernel's parameter type.
    let args = (ids.iter().zip(&kernel.params))
        .map(|(id, p)| syn::Ident::new(&id.to_string(), id.span().located_at(p.ty.span())));
    let (ks_param, ks_arg): (Option<TokenStream2>, Option<TokenStream2>) = kernel
        .key_set
        .as_ref()
        .map(|p| {
            let ks = ident(&fresh_name("key_set", &names));
            let ty = &p.ty;
            (quote!(#ks: #ty,), quote!(#ks,))
        })
        .unzip();
    let call = quote!(#k(#ks_arg #(#args),*));
    let ret = rust_type(&plan.returns, cx, Lifetimes::Elided);
    let error = ident(&fresh_name("error", &names));
    let err = quote!(::core::result::Result::Err(#error) => ::core::result::Result::Err(::core::convert::Into::into(#error)));
    let Some(indices) = returned else {
        let at_ret = kernel.output.span;
        if !kernel.output.fallible {
            let call = quote_spanned!(at_ret=> { #call });
            return quote!(|#ks_param #(#ids: #tys),*| -> #ret #call);
        }
        let value = ident(&fresh_name("value", &names));
        let ok = quote_spanned!(at_ret=> ::core::result::Result::Ok(#value));
        return quote! {
            |#ks_param #(#ids: #tys),*| -> #rt::Result<#ret> {
                match #call {
                    ::core::result::Result::Ok(#value) => #ok,
                    #err,
                }
            }
        };
    };
    let tensor = cx.tensor;
    let clones = (indices.iter().filter_map(|&i| ids.get(i)))
        .map(|id| quote!(<#tensor as ::core::clone::Clone>::clone(#id)));
    let value = if indices.len() == 1 {
        quote!(#(#clones)*)
    } else {
        quote!((#(#clones),*))
    };
    if kernel.output.fallible {
        quote! {
            |#ks_param #(#ids: #tys),*| -> #rt::Result<#ret> {
                match #call {
                    ::core::result::Result::Ok(()) => ::core::result::Result::Ok(#value),
                    #err,
                }
            }
        }
    } else {
        quote! {
            |#ks_param #(#ids: #tys),*| -> #ret {
                #call;
                #value
            }
        }
    }
}

/// Form 2: a kernel of an operator defined elsewhere. By string (`op = "aten::add.Tensor"`)
/// its signature is checked when it registers; by path (`op = aten::add`, the operator's
/// marker) also at compile time, at each parameter.
pub(crate) fn expand_attached(checked: &Checked<'_>) -> TokenStream2 {
    let input = checked.input;
    let kernel = &input.kernel;
    let rt = &input.rt;
    let Some(op) = &input.op else {
        return kernel.tokens.clone();
    };
    let keys = super::kernel_keys(input, false);
    let reserved = super::reserved(input, None);
    let params = Params::avoiding(&reserved);
    let Params { lib, key, site } = &params;
    let k = kernel.ident();
    let at = k.span();
    let keys = link::keys(&keys, rt);
    let (entry, checks) = match op {
        OpRef::Name {
            namespace, name, ..
        } => {
            let full = name.full_name();
            let hint = input.tensor.as_ref().map(|t| quote!(::<#t, _, _>));
            let register = quote!(#rt::__private::impl_kernel #hint (#lib, #full, #key, #k, #site));
            let operator = format!("{namespace}::{full}");
            let entry = link::kernel_by_name(rt, &operator, keys, register, &params, at);
            (entry, TokenStream2::new())
        }
        OpRef::Path(path) => {
            // A kernel that does not fit is reported by the checks, at its parameter; the
            // registration then resolves to `RegisterUnfit` and adds no error.
            let register = quote!({
                use #rt::__private::{RegisterByPath as _, RegisterUnfit as _};
                (&&#rt::__private::ByPath::<#path, _>::new(#k)).register(#lib, #key, #site)
            });
            let entry = link::kernel_of(rt, path, keys, register, &params, at);
            (entry, path_checks(kernel, path, rt, &reserved))
        }
    };
    let group = link::group(
        rt,
        &group_name(&reserved),
        None,
        TokenStream2::new(),
        &[entry],
        checks,
    );
    let kernel = &kernel.tokens;
    quote! {
        #kernel
        #group
    }
}

/// The compile-time check of a kernel attached by path: each parameter's type (reported on
/// it), the number of parameters (on the parameter list), the return type (on it).
fn path_checks(
    kernel: &KernelFn,
    path: &syn::Path,
    rt: &syn::Path,
    reserved: &std::collections::BTreeSet<String>,
) -> TokenStream2 {
    let params = kernel.params.iter().enumerate().map(|(i, p)| {
        let (ty, i) = (&p.ty, Literal::usize_unsuffixed(i));
        // The marker too is placed at the parameter: a parameter past the operator's
        // arguments is reported there, not at `op =`.
        let marker = super::respan(quote!(#path), ty.span());
        quote_spanned!(ty.span()=> #rt::__private::check_param::<#marker, #ty, #i>();)
    });
    let n = Literal::usize_unsuffixed(kernel.params.len());
    let parens = kernel.sig.paren_token.span.join();
    let arity = quote_spanned!(parens=> #rt::__private::check_arity::<#path, #n>(););
    let ret = match &kernel.output.written {
        Some(ty) => quote_spanned!(ty.span()=> #rt::__private::check_return::<#path, #ty>();),
        None => {
            let at = kernel.output.span;
            quote_spanned!(at=> #rt::__private::check_return::<#path, ()>();)
        }
    };
    // A function, so that the kernel's lifetimes are in scope of its types.
    let name = ident(&fresh_name("__opgen_check", reserved));
    let generics = &kernel.sig.generics;
    quote! {
        #[allow(dead_code)]
        fn #name #generics() {
            #arity
            #(#params)*
            #ret
        }
    }
}

/// The kernel re-emitted with an internal error: our bug, reported rather than panicking.
fn internal(kernel: &KernelFn, what: &str) -> TokenStream2 {
    let error = crate::codegen::diag::internal(what).into_compile_error();
    let kernel = &kernel.tokens;
    quote!(#kernel #error)
}
