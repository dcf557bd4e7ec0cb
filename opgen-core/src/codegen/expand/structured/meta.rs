//! The meta function of a structured out operator (`#[native_function("add.out(...)",
//! structured)]`): the function unchanged, the out operator's API, the glue of its marker
//! (`impl StructuredOp for add_out`: the impl's types, the calls of the meta function and
//! of an impl, the out kernel's arguments split into inputs and outputs), the precompute
//! struct, and its link entry with the meta-only kernel at `Meta`.
//!
//! ```text
//! impl ::opgen::structured::StructuredOp for add_out {
//!     type Base = ();
//!     type Impl = fn(&T, &T, ::opgen::Scalar, &mut T) -> ::opgen::Result<()>;
//!     type ImplSignature<R> = fn(&T, &T, ::opgen::Scalar, &mut T) -> R;
//!     type Inputs = (&'static T, &'static T, ::opgen::Scalar);
//!     type Precompute = ();
//!     const OUTPUTS: &'static [&'static str] = &["out"];
//!     fn meta(meta: &mut StructuredMeta<'_, T, ()>, inputs: &Inputs<'_, Self>) -> Result<()> {
//!         ::core::result::Result::Ok(add_meta(meta, Clone::clone(&inputs.0), ...))
//!     }
//!     fn imp(imp: Self::Impl, base: &(), pre: (), inputs: Inputs<'_, Self>, outs: &mut [T]) -> Result<()> {
//!         let [out0] = ::opgen::structured::outputs("aten::add.out", outs)?;
//!         imp(inputs.0, inputs.1, inputs.2, out0)
//!     }
//!     fn split(args: Args<'_, Self>) -> (Inputs<'_, Self>, Vec<&mut T>) { ((args.0, args.1, args.2), vec![args.3]) }
//!     fn call_out(inputs: Inputs<'_, Self>, outs: &mut [T]) -> Result<()> { ... add_out through the dispatcher ... }
//! }
//! ```

use std::collections::BTreeSet;

use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::{ToTokens, format_ident, quote};

use crate::codegen::check::{Checked, Definition};
use crate::codegen::expand::kernel::defining_group;
use crate::codegen::expand::types::{Lifetimes, rust_type};
use crate::codegen::expand::{Cx, Origin, api, docs, ident, link};
use crate::dispatch::DispatchKey;
use crate::plan::{
    Api, OpPlan, RustType, argument_type, fresh_name, precompute_struct_name, rust_ident,
};
use crate::schema::Argument;

/// The meta function's expansion.
pub(crate) fn expand_meta(checked: &Checked<'_>, def: &Definition, plan: &OpPlan) -> TokenStream2 {
    let input = checked.input;
    let kernel = &input.kernel;
    let Ok(api) = &plan.api else {
        return kernel.tokens.clone();
    };
    let cx = Cx {
        rt: &input.rt,
        tensor: &def.signature.tensor,
        vis: &kernel.vis,
        docs: super::super::user_docs(input),
        origin: Origin::Structured {
            meta: kernel.ident(),
        },
        methods_span: super::super::methods_span(input),
    };
    let reserved = super::super::reserved(input, Some(&def.signature.tensor));
    let api_items = api::expand_api(plan, api, &cx, true);
    let glue = glue(
        plan,
        api,
        def,
        kernel.ident(),
        kernel.output.fallible,
        &reserved,
        &cx,
    );
    let precompute = precompute_struct(plan, def, &cx);
    let rt = cx.rt;
    let marker = ident(&api.marker);
    let params = link::Params::avoiding(&reserved);
    let link::Params { lib, key, site } = &params;
    let register = quote!(#rt::structured::register_out::<#marker>(#lib, #key, ::core::option::Option::None, #site));
    let mut entry = link::declare(plan, api, rt, kernel.ident().span());
    entry.extend(link::with_kernel(
        link::keys(&[DispatchKey::Meta], rt),
        register,
        &params,
    ));
    let mut extra = TokenStream2::new();
    let mut entries = vec![entry];
    if let Some(a) =
        crate::codegen::expand::autograd::expand_definition(def, plan, api, &params, &cx)
    {
        entries.push(a.entry);
        extra.extend(a.items);
    }
    let group = defining_group(plan, api, &cx, &reserved, &entries, extra);
    let kernel = &kernel.tokens;
    quote! {
        #kernel
        #api_items
        #glue
        #precompute
        #group
    }
}

/// How an impl receives one of its parameters.
struct ImplParam {
    /// Its type in the impl's signature.
    ty: TokenStream2,
    /// The value passed, in the glue's `imp`.
    value: TokenStream2,
}

/// The `StructuredOp` impl of the marker.
fn glue(
    plan: &OpPlan,
    api: &Api,
    def: &Definition,
    meta_fn: &syn::Ident,
    fallible: bool,
    reserved: &BTreeSet<String>,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let rt = cx.rt;
    let tensor = cx.tensor;
    let f = &def.function;
    let marker = ident(&api.marker);
    let out_start = plan.schema.out_start();
    let n_outs = plan.args.len() - out_start;
    let base: syn::Type = f
        .structured_inherits
        .as_deref()
        .and_then(|b| syn::parse_str(b).ok())
        .unwrap_or_else(|| syn::parse_quote!(()));
    // The glue's parameters and locals, none of them a name of the user's it refers to.
    let mut taken = reserved.clone();
    let mut fresh = |base: &str| {
        let name = fresh_name(base, &taken);
        taken.insert(name.clone());
        ident(&name)
    };
    let r = fresh("R");
    let (meta, inputs, imp, base_param, pre, outs, args) = (
        fresh("meta"),
        fresh("inputs"),
        fresh("imp"),
        fresh("base"),
        fresh("pre"),
        fresh("outs"),
        fresh("args"),
    );
    let out_locals: Vec<syn::Ident> = (0..n_outs).map(|i| fresh(&format!("out{i}"))).collect();
    let field = |i: usize| Literal::usize_unsuffixed(i);
    let has_pre = f.precomputed.is_some();
    let pre_ty = if has_pre {
        let name = ident(&precompute_struct_name(&plan.schema.name));
        quote!(#name)
    } else {
        quote!(())
    };
    let names = GlueNames {
        base_param: &base_param,
        inputs: &inputs,
        pre: &pre,
        out_locals: &out_locals,
    };
    let params = impl_params(plan, f, &base, &names, cx);
    let impl_types: Vec<&TokenStream2> = params.iter().map(|p| &p.ty).collect();
    let impl_values = params.iter().map(|p| &p.value);
    let input_families = plan.args[..out_start]
        .iter()
        .map(|a| rust_type(&a.ty, cx, Lifetimes::Static));
    let meta_args = (0..out_start).map(|i| {
        let i = field(i);
        quote!(::core::clone::Clone::clone(&#inputs.#i))
    });
    let meta_call = quote!(#meta_fn(#meta, #(#meta_args),*));
    let meta_result = if fallible {
        quote!(::core::result::Result::map_err(#meta_call, ::core::convert::Into::into))
    } else {
        quote!(::core::result::Result::Ok(#meta_call))
    };
    let operator = format!("{}::{}", plan.namespace, plan.full_name);
    let out_names = plan.args[out_start..].iter().map(|a| a.name.as_str());
    let input_fields = (0..out_start).map(field);
    let input_fields2 = (0..out_start).map(field);
    let out_fields = (out_start..plan.args.len()).map(field);
    let base_ref = if f.structured_inherits.is_some() {
        quote!(#base_param)
    } else {
        quote!(_)
    };
    let pre_param = if has_pre { quote!(#pre) } else { quote!(_) };
    let out_call = api::operator_call(
        &marker,
        quote!((#(#inputs.#input_fields2,)* #(#out_locals,)*)),
        Some(rust_type(&plan.returns, cx, Lifetimes::Elided).into_token_stream()),
        cx,
    );
    quote! {
        #[automatically_derived]
        #[allow(clippy::too_many_arguments, clippy::type_complexity)]
        impl #rt::structured::StructuredOp for #marker {
            type Base = #base;
            type Impl = fn(#(#impl_types),*) -> #rt::Result<()>;
            type ImplSignature<#r> = fn(#(#impl_types),*) -> #r;
            type Inputs = (#(#input_families,)*);
            type Precompute = #pre_ty;
            const OUTPUTS: &'static [&'static str] = &[#(#out_names),*];
            fn meta(
                #meta: &mut #rt::structured::StructuredMeta<'_, #tensor, #base>,
                #inputs: &#rt::structured::Inputs<'_, Self>,
            ) -> #rt::Result<#pre_ty> {
                #meta_result
            }
            fn imp(
                #imp: Self::Impl,
                #base_ref: &#base,
                #pre_param: #pre_ty,
                #inputs: #rt::structured::Inputs<'_, Self>,
                #outs: &mut [#tensor],
            ) -> #rt::Result<()> {
                let [#(#out_locals),*] = #rt::structured::outputs(#operator, #outs)?;
                #imp(#(#impl_values),*)
            }
            fn split(
                #args: #rt::structured::Args<'_, Self>,
            ) -> (#rt::structured::Inputs<'_, Self>, ::std::vec::Vec<&mut #tensor>) {
                ((#(#args.#input_fields,)*), ::std::vec![#(#args.#out_fields),*])
            }
            fn call_out(
                #inputs: #rt::structured::Inputs<'_, Self>,
                #outs: &mut [#tensor],
            ) -> #rt::Result<()> {
                let [#(#out_locals),*] = #rt::structured::outputs(#operator, #outs)?;
                #out_call?;
                ::core::result::Result::Ok(())
            }
        }
    }
}

/// A precomputed value `d` as an impl parameter: its type, and the value from the
/// precompute struct `pre`'s field (owned there: a slice is a `Vec`, a `str` a `String`).
fn precomputed_param(d: &Argument, pre: &syn::Ident, cx: &Cx<'_>) -> ImplParam {
    let ty = argument_type(&d.ty, false).unwrap_or(RustType::Tuple(Vec::new()));
    let field = ident(&rust_ident(&d.name));
    let value = match &ty {
        RustType::Str | RustType::Ref(_) => quote!(&#pre.#field),
        RustType::Option(inner) => match inner.as_ref() {
            RustType::Str => quote!(#pre.#field.as_deref()),
            RustType::Ref(r) if matches!(r.as_ref(), RustType::Slice(_)) => {
                quote!(#pre.#field.as_deref())
            }
            RustType::Ref(_) => quote!(#pre.#field.as_ref()),
            _ => quote!(#pre.#field),
        },
        _ => quote!(#pre.#field),
    };
    ImplParam {
        ty: rust_type(&ty, cx, Lifetimes::Elided).into_token_stream(),
        value,
    }
}

/// The owned type of a precomputed value's field.
fn owned(ty: &RustType) -> RustType {
    match ty {
        RustType::Ref(inner) => match inner.as_ref() {
            RustType::Slice(e) => RustType::Vec(e.clone()),
            other => other.clone(),
        },
        RustType::Option(inner) => RustType::Option(Box::new(owned(inner))),
        other => other.clone(),
    }
}

/// The struct of the precomputed values (`precomputed`), which the meta function returns.
fn precompute_struct(plan: &OpPlan, def: &Definition, cx: &Cx<'_>) -> Option<TokenStream2> {
    let p = def.function.precomputed.as_ref()?;
    let decls: Vec<&Argument> = (p.replace.iter().flat_map(|(_, d)| d.iter()))
        .chain(&p.add)
        .collect();
    let fields = decls.iter().map(|d| {
        let ty = argument_type(&d.ty, false).unwrap_or(RustType::Tuple(Vec::new()));
        let ty = match owned(&ty) {
            RustType::Str => quote!(::std::string::String),
            RustType::Option(inner) if matches!(inner.as_ref(), RustType::Str) => {
                quote!(::core::option::Option<::std::string::String>)
            }
            t => rust_type(&t, cx, Lifetimes::Elided).into_token_stream(),
        };
        let name = format_ident!("{}", rust_ident(&d.name).trim_start_matches("r#"));
        let name = if rust_ident(&d.name).starts_with("r#") {
            ident(&rust_ident(&d.name))
        } else {
            name
        };
        // Documented as the arguments struct's fields: the declaration as written.
        let doc = docs::lines(&[format!("`{d}`")]);
        quote!(#doc pub #name: #ty)
    });
    let name = ident(&precompute_struct_name(&plan.schema.name));
    let lines: Vec<String> = (p.replace.iter())
        .map(|(from, to)| {
            let to: Vec<String> = to.iter().map(ToString::to_string).collect();
            format!("{from} -> {}", to.join(", "))
        })
        .chain(p.add.iter().map(ToString::to_string))
        .collect();
    let doc = docs::lines(&[format!(
        "The values the meta function of `{}` computes for its impls: `{}`. The meta function \
         returns it, so a value it forgets does not compile.",
        plan.full_name,
        lines.join("; ")
    )]);
    let vis = cx.vis;
    Some(quote! {
        #doc
        #[allow(dead_code)]
        #vis struct #name { #(#fields,)* }
    })
}

/// The names of the glue's parameters and locals the impl's arguments are made of.
struct GlueNames<'a> {
    base_param: &'a syn::Ident,
    inputs: &'a syn::Ident,
    pre: &'a syn::Ident,
    out_locals: &'a [syn::Ident],
}

/// The impl's parameters (type and the value the glue passes): `&Base`, the inputs with
/// their precomputed replacements, the extra precomputed values, the outputs.
fn impl_params(
    plan: &OpPlan,
    f: &crate::native::NativeFunction,
    base: &syn::Type,
    names: &GlueNames<'_>,
    cx: &Cx<'_>,
) -> Vec<ImplParam> {
    let out_start = plan.schema.out_start();
    let (base_param, inputs, pre) = (names.base_param, names.inputs, names.pre);
    let mut params: Vec<ImplParam> = Vec::new();
    if f.structured_inherits.is_some() {
        params.push(ImplParam {
            ty: quote!(&#base),
            value: quote!(#base_param),
        });
    }
    let precomputed_value = |d: &Argument| precomputed_param(d, pre, cx);
    for (i, a) in plan.args[..out_start].iter().enumerate() {
        let replaced = f.precomputed.as_ref().and_then(|p| {
            p.replace
                .iter()
                .find(|(name, _)| rust_ident(name) == rust_ident(&a.name))
        });
        match replaced {
            Some((_, decls)) => params.extend(decls.iter().map(precomputed_value)),
            None => {
                let i = Literal::usize_unsuffixed(i);
                params.push(ImplParam {
                    ty: rust_type(&a.ty, cx, Lifetimes::Elided).into_token_stream(),
                    value: quote!(#inputs.#i),
                });
            }
        }
    }
    if let Some(p) = &f.precomputed {
        params.extend(p.add.iter().map(precomputed_value));
    }
    for (a, local) in plan.args[out_start..].iter().zip(names.out_locals) {
        params.push(ImplParam {
            ty: rust_type(&a.ty, cx, Lifetimes::Elided).into_token_stream(),
            value: quote!(#local),
        });
    }
    params
}
