//! Structured kernels (docs/STRUCTURED.md): the meta function's expansion (the out
//! operator's API, the marker `Structured<Name>` implementing `StructuredOp`, the
//! precompute struct, the `Meta` kernel), an impl's (its registration, coerced to the
//! marker's impl type) and a delegate's (its API and the kernels registered at every key
//! with an impl, after all link-time registrations).

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{format_ident, quote, quote_spanned};

use super::docs::{literal, string};
use super::plan::{OpPlan, ident};
use super::types::Lifetimes;
use super::{free_fn, method, redispatch};
use crate::codegen::check::{Checked, Definition};
use crate::codegen::kernel::Kernel;
use crate::codegen::structured::{delegate_marker, impl_marker};
use crate::dispatch::DispatchKey;
use crate::plan::{
    RustType, argument_type, precompute_struct_name, rust_ident, structured_marker_name,
};
use crate::schema::Argument;

/// A Rust type as tokens.
fn ty_tokens(plan: &OpPlan<'_>, ty: &RustType, lifetimes: Lifetimes) -> TokenStream2 {
    let mut out = TokenStream2::new();
    plan.ty(ty, lifetimes, &mut out);
    out
}

/// The operator's API, as for any operator defined by the attribute.
fn expand_api(plan: &OpPlan<'_>, checked: &Checked<'_>) -> TokenStream2 {
    let mut out = TokenStream2::new();
    free_fn::expand_args_struct(plan, &mut out);
    if plan.function {
        free_fn::expand_free_fns(plan, &mut out);
    }
    method::expand_methods(plan, &checked.input.methods, &mut out);
    redispatch::expand_redispatch(plan, &mut out);
    redispatch::expand_handle(plan, &mut out);
    out
}

/// The doc facts of a structured operator: schema, variants, where its kernels come from.
fn facts(plan: &OpPlan<'_>, kernels: String) -> proc_macro2::Literal {
    let variants = match (plan.function, plan.receiver.is_some()) {
        (true, true) => "function, method",
        (false, true) => "method",
        _ => "function",
    };
    literal(&[
        String::new(),
        "# Schema".to_string(),
        "```text".to_string(),
        format!("{}::{}", plan.namespace, plan.text),
        "```".to_string(),
        format!("Variants: `{variants}`. {kernels}"),
    ])
}

/// A `def` without kernels in the link-time list.
fn expand_def(
    plan: &OpPlan<'_>,
    kernel: &Kernel,
    keys: &[DispatchKey],
    register: TokenStream2,
) -> TokenStream2 {
    let rt = &plan.rt;
    let (namespace, name, schema) = (
        string(plan.namespace),
        string(&plan.full_name),
        string(&plan.text),
    );
    let keys = keys.iter().map(|k| {
        let k = format_ident!("{}", k.name());
        quote!(#rt::dispatch::DispatchKey::#k)
    });
    let at = kernel.ident().span();
    let (file, line) = (
        quote_spanned!(at=> ::core::file!()),
        quote_spanned!(at=> ::core::line!()),
    );
    let (function, method) = (plan.variants.function, plan.variants.method);
    let device = super::register::device_checks(rt, Some((plan.device_check, plan.device_guard)));
    quote! {
        #[#rt::__private::linkme::distributed_slice(#rt::__private::REGISTRATIONS)]
        #[linkme(crate = #rt::__private::linkme)]
        static __OPGEN_REGISTRATION: #rt::__private::Registration = #rt::__private::Registration {
            namespace: #namespace,
            schema: ::core::option::Option::Some(#schema),
            name: #name,
            keys: &[#(#keys),*],
            file: #file,
            line: #line,
            site: ::core::panic::Location::caller(),
            register: #register,
            variants: ::core::option::Option::Some(#rt::native::Variants { function: #function, method: #method }),
            device: #device,
            backend_select: ::core::option::Option::None,
        };
    }
}

/// The Rust type of a precomputed value as an owned field, and how the impl receives it
/// from a local of that type.
fn precomputed_field(
    decl: &Argument,
    plan: &OpPlan<'_>,
    local: &syn::Ident,
) -> (TokenStream2, TokenStream2) {
    let ty = argument_type(&decl.ty, false).unwrap_or(RustType::Tuple(Vec::new()));
    let owned = |t: &RustType| match t {
        RustType::Ref(inner) => match inner.as_ref() {
            RustType::Slice(e) => RustType::Vec(e.clone()),
            other => other.clone(),
        },
        other => other.clone(),
    };
    let string = quote!(::std::string::String);
    match &ty {
        RustType::Str => (string, quote!(&#local)),
        RustType::Ref(_) => (
            ty_tokens(plan, &owned(&ty), Lifetimes::Elided),
            quote!(&#local),
        ),
        RustType::Option(inner) => match inner.as_ref() {
            RustType::Str => (
                quote!(::core::option::Option<#string>),
                quote!(#local.as_deref()),
            ),
            RustType::Ref(r) if matches!(r.as_ref(), RustType::Slice(_)) => {
                let t = ty_tokens(
                    plan,
                    &RustType::Option(Box::new(owned(inner))),
                    Lifetimes::Elided,
                );
                (t, quote!(#local.as_deref()))
            }
            RustType::Ref(_) => {
                let t = ty_tokens(
                    plan,
                    &RustType::Option(Box::new(owned(inner))),
                    Lifetimes::Elided,
                );
                (t, quote!(#local.as_ref()))
            }
            _ => (ty_tokens(plan, &ty, Lifetimes::Elided), quote!(#local)),
        },
        _ => (ty_tokens(plan, &ty, Lifetimes::Elided), quote!(#local)),
    }
}

/// How an argument is passed to the meta function when the impl receives it too.
fn pass_twice(ty: &RustType, id: &syn::Ident) -> TokenStream2 {
    match ty {
        RustType::Ref(_) | RustType::Str => quote!(#id),
        RustType::Mut(_) => quote!(&mut *#id),
        RustType::Option(inner) => match inner.as_ref() {
            RustType::Ref(_) | RustType::Str => quote!(#id),
            RustType::Mut(_) => quote!(#id.as_deref_mut()),
            _ => quote!(::core::clone::Clone::clone(&#id)),
        },
        _ => quote!(::core::clone::Clone::clone(&#id)),
    }
}

/// The meta function of a structured out operator: the kernel unchanged, the operator's
/// API, the marker and its `StructuredOp` impl, the precompute struct, and the `def` with
/// the `Meta` kernel.
pub(crate) fn expand_meta(checked: &Checked<'_>, def: &Definition) -> TokenStream2 {
    let input = checked.input;
    let f = &def.function;
    let mut plan = OpPlan::new(checked, def);
    let meta_fn = input.kernel.ident();
    plan.facts = super::docs::attr(facts(
        &plan,
        format!(
            "Structured: the meta function is `{meta_fn}`; kernels at the keys of its impls \
             (`op = \"{}\", structured`) and at `Meta`.",
            plan.full_name
        ),
    ));
    let api = expand_api(&plan, checked);
    let rt = plan.rt.clone();
    let tensor = plan.tensor;
    let vis = plan.vis;
    let marker = ident(&structured_marker_name(&f.func.name));
    let out_start = f.func.out_start();
    let (inputs, outs) = plan.args.split_at(out_start);
    let base: syn::Type = f
        .structured_inherits
        .as_deref()
        .and_then(|b| syn::parse_str(b).ok())
        .unwrap_or_else(|| syn::parse_quote!(()));
    let has_base = f.structured_inherits.is_some();
    // The impl's parameters: the inputs with precomputed replacements, the extra values,
    // the outputs.
    let pre_name = precompute_struct_name(&f.func.name);
    let pre_ident = ident(&pre_name);
    let mut fields = Vec::new(); // (field, local, type, pass)
    let mut impl_types = Vec::new();
    let mut impl_args = Vec::new();
    if has_base {
        impl_types.push(quote!(&#base));
        impl_args.push(quote!(&__opgen_base));
    }
    let mut push_decl =
        |decl: &Argument, types: &mut Vec<TokenStream2>, args: &mut Vec<TokenStream2>| {
            // Schema names need not be identifiers (torchgen does not check them): both
            // names go through the identifier rule (`reduc@d` → `reduc_d`).
            let name = rust_ident(&decl.name);
            let field = ident(&name);
            let local = format_ident!("__opgen_pre_{}", name.trim_start_matches("r#"));
            let (ty, pass) = precomputed_field(decl, &plan, &local);
            let param = ty_tokens(
                &plan,
                &argument_type(&decl.ty, false).unwrap_or(RustType::Tuple(Vec::new())),
                Lifetimes::Elided,
            );
            types.push(param);
            args.push(pass);
            fields.push((field, local, ty));
        };
    for a in inputs {
        let replaced = f.precomputed.as_ref().and_then(|p| {
            p.replace
                .iter()
                .find(|(name, _)| a.ident == rust_ident(name))
        });
        match replaced {
            Some((_, decls)) => {
                for d in decls {
                    push_decl(d, &mut impl_types, &mut impl_args);
                }
            }
            None => {
                impl_types.push(ty_tokens(&plan, &a.ty, Lifetimes::Elided));
                let id = &a.ident;
                impl_args.push(quote!(#id));
            }
        }
    }
    if let Some(p) = &f.precomputed {
        for d in &p.add {
            push_decl(d, &mut impl_types, &mut impl_args);
        }
    }
    let out_locals: Vec<syn::Ident> = (0..outs.len())
        .map(|i| format_ident!("__opgen_out{i}"))
        .collect();
    for (o, local) in outs.iter().zip(&out_locals) {
        impl_types.push(ty_tokens(&plan, &o.ty, Lifetimes::Elided));
        impl_args.push(quote!(&mut #local));
    }
    let n = proc_macro2::Literal::usize_unsuffixed(outs.len());
    let operator = string(&format!("{}::{}", plan.namespace, plan.full_name));
    let names = outs
        .iter()
        .map(|o| string(o.text.rsplit(' ').next().unwrap_or("")));
    let input_decls: Vec<&super::frag::Frag> = plan.decls[..out_start].iter().collect();
    let input_ids: Vec<&syn::Ident> = inputs.iter().map(|a| &a.ident).collect();
    let meta_args = inputs.iter().map(|a| pass_twice(&a.ty, &a.ident));
    let meta_args2: Vec<TokenStream2> =
        inputs.iter().map(|a| pass_twice(&a.ty, &a.ident)).collect();
    let call_fn = plan.call_fn.clone();
    let at_meta = meta_fn.span();
    let meta_call = quote_spanned!(at_meta=> #meta_fn(&mut __opgen_meta, #(#meta_args),*));
    let meta_call = if input.kernel.output.fallible {
        quote! {
            match #meta_call {
                ::core::result::Result::Ok(v) => v,
                ::core::result::Result::Err(e) => return ::core::result::Result::Err(::core::convert::Into::into(e)),
            }
        }
    } else {
        meta_call
    };
    let destructure = f.precomputed.as_ref().map(|_| {
        let binds = fields
            .iter()
            .map(|(field, local, _)| quote!(#field: #local));
        quote!(let #pre_ident { #(#binds),* } = __opgen_pre;)
    });
    let unused_pre = if f.precomputed.is_some() {
        quote!(let _ = __opgen_pre;)
    } else {
        quote!(let () = __opgen_pre;)
    };
    let pre_struct = f.precomputed.as_ref().map(|p| {
        let lines: Vec<String> = p
            .replace
            .iter()
            .map(|(name, decls)| {
                let d: Vec<String> = decls.iter().map(|d| d.to_string()).collect();
                format!("`{name} -> {}`", d.join(", "))
            })
            .chain((!p.add.is_empty()).then(|| {
                let d: Vec<String> = p.add.iter().map(|d| d.to_string()).collect();
                format!("`{}`", d.join(", "))
            }))
            .collect();
        let doc = literal(&[
            format!(
                "The values the meta function `{meta_fn}` of `{}` computes for its impls: {}.",
                plan.full_name,
                lines.join("; ")
            ),
            String::new(),
            "The meta function returns it, so a value it forgets does not compile.".to_string(),
        ]);
        let decls = fields.iter().map(|(field, _, ty)| quote!(pub #field: #ty));
        quote! {
            #[doc = #doc]
            #[allow(dead_code)]
            #vis struct #pre_ident {
                #(#decls),*
            }
        }
    });
    let out_ids: Vec<&syn::Ident> = outs.iter().map(|o| &o.ident).collect();
    let clones = out_ids
        .iter()
        .map(|o| quote!(::core::clone::Clone::clone(&*#o)));
    let returned: Vec<TokenStream2> = out_ids
        .iter()
        .take(plan.schema.returns.len())
        .map(|o| quote!(::core::clone::Clone::clone(&*#o)))
        .collect();
    let ret_value = match returned.as_slice() {
        [] => quote!(()),
        [one] => one.clone(),
        many => quote!((#(#many),*)),
    };
    let ret = &plan.ret;
    let all_decls = &plan.decls;
    let marker_doc = literal(&[format!(
        "The structured operator `{}`: its meta function is `{meta_fn}`; impls \
             (`#[native_function(op = \"{}\", structured, dispatch = \"CPU\")]`) and delegates \
             (`structured_delegate = \"{}\"`) name it.",
        plan.full_name, plan.full_name, plan.full_name
    )]);
    let register = quote! {
        |lib, key, site| <#marker as #rt::structured::StructuredOp>::register_out(lib, key, ::core::option::Option::None, site)
    };
    let def = expand_def(&plan, &input.kernel, &[DispatchKey::Meta], register);
    let device =
        super::device::structured_device_prelude(&plan, &format!("structured {}", plan.full_name));
    let kernel = &input.kernel.tokens;
    quote! {
        #kernel
        #api
        #[doc = #marker_doc]
        #vis struct #marker;

        #[automatically_derived]
        impl #rt::structured::StructuredOp for #marker {
            type Tensor = #tensor;
            type Base = #base;
            type Impl = fn(#(#impl_types),*) -> ::core::result::Result<(), #rt::dispatch::Error>;
            type ImplSignature<R> = fn(#(#impl_types),*) -> R;
            const OPERATOR: &'static str = #operator;
            const OUTPUTS: &'static [&'static str] = &[#(#names),*];

            fn register_out(
                lib: &#rt::dispatch::Library,
                key: #rt::dispatch::DispatchKey,
                imp: ::core::option::Option<Self::Impl>,
                site: #rt::dispatch::Site,
            ) -> ::core::result::Result<#rt::dispatch::Registration, #rt::dispatch::Error> {
                #rt::structured::register_structured_out::<Self, _>(
                    lib,
                    key,
                    move |#(#all_decls),*| -> ::core::result::Result<#ret, #rt::dispatch::Error> {
                        #device
                        let [#(#out_locals),*] = Self::__run(
                            #rt::structured::Mode::Out, key, imp, ::std::vec![#(#clones),*], #(#input_ids),*
                        )?;
                        #(*#out_ids = #out_locals;)*
                        ::core::result::Result::Ok(#ret_value)
                    },
                    imp,
                    site,
                )
            }
        }

        impl #marker {
            /// Runs the meta function in `mode`, then the impl (if any) into the outputs.
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments, non_snake_case)]
            #vis fn __run(
                mode: #rt::structured::Mode,
                key: #rt::dispatch::DispatchKey,
                imp: ::core::option::Option<<Self as #rt::structured::StructuredOp>::Impl>,
                given: ::std::vec::Vec<#tensor>,
                #(#input_decls),*
            ) -> ::core::result::Result<[#tensor; #n], #rt::dispatch::Error> {
                let mut __opgen_meta = #rt::structured::StructuredMeta::<#tensor, #base>::new(
                    <Self as #rt::structured::StructuredOp>::OPERATOR,
                    key,
                    mode,
                    <Self as #rt::structured::StructuredOp>::OUTPUTS,
                    given,
                )?;
                let __opgen_pre = #meta_call;
                let (__opgen_base, __opgen_outs) = __opgen_meta.finish()?;
                let [#(mut #out_locals),*] = #rt::structured::outputs_array::<#tensor, #n>(
                    <Self as #rt::structured::StructuredOp>::OPERATOR, key, __opgen_outs,
                )?;
                match imp {
                    ::core::option::Option::Some(__opgen_impl) => {
                        #destructure
                        __opgen_impl(#(#impl_args),*)?;
                    }
                    ::core::option::Option::None => {
                        #unused_pre
                        let _ = __opgen_base;
                    }
                }
                ::core::result::Result::Ok([#(#out_locals),*])
            }

            /// Runs the meta function in `mode`, then the out operator through the
            /// dispatcher into the outputs (`composite_from_out` delegates).
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments, non_snake_case, dead_code)]
            #vis fn __run_composite(
                mode: #rt::structured::Mode,
                key: #rt::dispatch::DispatchKey,
                given: ::std::vec::Vec<#tensor>,
                #(#input_decls),*
            ) -> ::core::result::Result<[#tensor; #n], #rt::dispatch::Error> {
                let [#(mut #out_locals),*] = Self::__run(mode, key, ::core::option::Option::None, given, #(#meta_args2),*)?;
                let _ = #call_fn(#(#input_ids,)* #(&mut #out_locals),*)?;
                ::core::result::Result::Ok([#(#out_locals),*])
            }
        }

        #pre_struct

        #[doc(hidden)]
        const _: () = {
            let _ = #rt::__private::VERSION_0_1_0;
            #def
        };
    }
}

/// A structured delegate: its API, its `def`, and a deferred registration of its kernels
/// at every key where the out operator has an impl (and `Meta`).
pub(crate) fn expand_delegate(checked: &Checked<'_>, def: &Definition) -> TokenStream2 {
    let input = checked.input;
    let f = &def.function;
    let mut plan = OpPlan::new(checked, def);
    let Some(marker) = delegate_marker(input, f) else {
        return TokenStream2::new();
    };
    let delegate = f
        .structured_delegate
        .as_ref()
        .map(|d| d.full_name())
        .unwrap_or_default();
    let composite = input
        .options
        .composite_from_out
        .as_ref()
        .is_some_and(|b| b.value);
    plan.facts = super::docs::attr(facts(
        &plan,
        format!(
            "Structured delegate of `{delegate}`: kernels at every key where `{delegate}` has an impl, \
             and at `Meta`{}.",
            if composite {
                ", and a `CompositeExplicitAutograd` kernel that calls `{delegate}`"
            } else {
                ""
            }
        ),
    ));
    let api = expand_api(&plan, checked);
    let rt = plan.rt.clone();
    let lit_span = input
        .options
        .structured_delegate
        .as_ref()
        .map_or_else(Span::call_site, |l| l.span());
    let written: Vec<&syn::Ident> = plan
        .schema
        .arguments
        .iter()
        .zip(&plan.args)
        .filter(|(a, _)| a.is_write())
        .map(|(_, p)| &p.ident)
        .collect();
    let inplace = !written.is_empty();
    let args = plan.args.iter().map(|a| {
        let id = &a.ident;
        if written.contains(&id) {
            quote!(&*#id)
        } else {
            quote!(#id)
        }
    });
    let args: Vec<TokenStream2> = args.collect();
    let n = if inplace {
        written.len()
    } else {
        plan.schema.returns.len()
    };
    let locals: Vec<syn::Ident> = (0..n).map(|i| format_ident!("__opgen_out{i}")).collect();
    let (mode, given, write_back, value) = if inplace {
        let clones = written
            .iter()
            .map(|w| quote!(::core::clone::Clone::clone(&*#w)));
        let returned: Vec<TokenStream2> = written
            .iter()
            .take(plan.schema.returns.len())
            .map(|w| quote!(::core::clone::Clone::clone(&*#w)))
            .collect();
        let value = match returned.as_slice() {
            [] => quote!(()),
            [one] => one.clone(),
            many => quote!((#(#many),*)),
        };
        (
            quote!(InPlace),
            quote!(::std::vec![#(#clones),*]),
            quote!(#(*#written = #locals;)*),
            value,
        )
    } else {
        let value = match locals.as_slice() {
            [one] => quote!(#one),
            many => quote!((#(#many),*)),
        };
        (
            quote!(Functional),
            quote!(::std::vec::Vec::new()),
            quote!(),
            value,
        )
    };
    let (ret, decls) = (&plan.ret, &plan.decls);
    let name = string(&plan.full_name);
    let kernel_body = |callee: TokenStream2, leading: TokenStream2, device: TokenStream2| {
        quote! {
            move |#(#decls),*| -> ::core::result::Result<#ret, #rt::dispatch::Error> {
                #device
                let [#(#locals),*] = #callee(
                    #rt::structured::Mode::#mode, #leading #given, #(#args),*
                )?;
                #write_back
                ::core::result::Result::Ok(#value)
            }
        }
    };
    let device = super::device::structured_device_prelude(&plan, &format!("structured {delegate}"));
    let backend = kernel_body(quote!(#marker::__run), quote!(key, imp,), device);
    let composite_reg = composite.then(|| {
        let cea = quote!(#rt::dispatch::DispatchKey::CompositeExplicitAutograd);
        let k = kernel_body(
            quote!(#marker::__run_composite),
            quote!(#cea,),
            TokenStream2::new(),
        );
        quote! {
            registrations.push(lib.impl_at(#name, #cea, #k, site)?);
        }
    });
    let assert = quote_spanned!(lit_span=> #rt::__private::assert_structured::<#marker>());
    let at = input.kernel.ident().span();
    let (file, line) = (
        quote_spanned!(at=> ::core::file!()),
        quote_spanned!(at=> ::core::line!()),
    );
    let namespace = string(plan.namespace);
    let register_def = quote! {
        |_, _, _| ::core::result::Result::Err(#rt::dispatch::Error::from("a definition without kernels"))
    };
    let def = expand_def(&plan, &input.kernel, &[], register_def);
    // A body-less item is consumed by the last attribute on it: one stacked above another
    // re-emits it for the next.
    let stacked = input.kernel.attrs.iter().any(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "native_function")
    });
    let kernel = (!input.kernel.bodyless || stacked).then(|| input.kernel.tokens.clone());
    quote! {
        #kernel
        #api
        #[doc(hidden)]
        const _: () = {
            let _ = #rt::__private::VERSION_0_1_0;
            const _: () = #assert;
            #def

            #[#rt::__private::linkme::distributed_slice(#rt::__private::DEFERRED)]
            #[linkme(crate = #rt::__private::linkme)]
            static __OPGEN_DEFERRED: #rt::__private::Deferred = #rt::__private::Deferred {
                namespace: #namespace,
                name: #name,
                file: #file,
                line: #line,
                site: ::core::panic::Location::caller(),
                register: __opgen_register_delegate,
            };

            fn __opgen_register_delegate(
                lib: &#rt::dispatch::Library,
                site: #rt::dispatch::Site,
            ) -> ::core::result::Result<::std::vec::Vec<#rt::dispatch::Registration>, #rt::dispatch::Error> {
                let mut registrations = ::std::vec::Vec::new();
                for (key, imp) in #rt::structured::structured_impls::<#marker>(lib) {
                    registrations.push(lib.impl_at(#name, key, #backend, site)?);
                }
                #composite_reg
                ::core::result::Result::Ok(registrations)
            }
        };
    }
}

/// An impl of a structured operator (`op = "add.out", structured`): the kernel unchanged,
/// and its registration through the marker, with the kernel coerced to the marker's impl
/// type (a signature that does not fit is a type error at the kernel).
pub(crate) fn expand_impl(checked: &Checked<'_>) -> TokenStream2 {
    let input = checked.input;
    let kernel = &input.kernel;
    let tokens = &kernel.tokens;
    let (Some(marker), Some((namespace, name))) = (impl_marker(input), &input.op) else {
        return tokens.clone();
    };
    let rt = quote::ToTokens::to_token_stream(&input.rt);
    let k = kernel.ident();
    let params: Vec<syn::Ident> = (0..kernel.params.len())
        .map(|i| format_ident!("__opgen_p{i}"))
        .collect();
    let at = k.span();
    let call = quote_spanned!(at=> #rt::__private::ImplResult::into_impl_result(#k(#(#params),*)));
    let keys = input.keys.iter().map(|key| {
        let key = format_ident!("{}", key.key.name());
        quote!(#rt::dispatch::DispatchKey::#key)
    });
    let (file, line) = (
        quote_spanned!(at=> ::core::file!()),
        quote_spanned!(at=> ::core::line!()),
    );
    let (namespace, name) = (string(namespace), string(&name.full_name()));
    let impl_ty = quote_spanned!(at=> <#marker as #rt::structured::StructuredOp>::Impl);
    let written: syn::Type = kernel
        .output
        .written
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(()));
    let exact =
        quote_spanned!(at=> <#marker as #rt::structured::StructuredOp>::ImplSignature<#written>);
    quote! {
        #tokens
        #[doc(hidden)]
        const _: () = {
            let _ = #rt::__private::VERSION_0_1_0;

            // The kernel coerces to the impl's exact signature, so a parameter of another
            // type (even `&` for `&mut`) is a type error at the kernel.
            const _: #exact = #k;
            const __OPGEN_IMPL: #impl_ty = |#(#params),*| #call;

            #[#rt::__private::linkme::distributed_slice(#rt::__private::REGISTRATIONS)]
            #[linkme(crate = #rt::__private::linkme)]
            static __OPGEN_REGISTRATION: #rt::__private::Registration = #rt::__private::Registration {
                namespace: #namespace,
                schema: ::core::option::Option::None,
                name: #name,
                keys: &[#(#keys),*],
                file: #file,
                line: #line,
                site: ::core::panic::Location::caller(),
                register: |lib, key, site| <#marker as #rt::structured::StructuredOp>::register_out(
                    lib, key, ::core::option::Option::Some(__OPGEN_IMPL), site,
                ),
                variants: ::core::option::Option::None,
                device: ::core::option::Option::None,
                backend_select: ::core::option::Option::None,
            };
        };
    }
}
