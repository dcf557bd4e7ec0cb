//! Registration: a `static` in the runtime's link-time list (`__private::REGISTRATIONS`,
//! collected with linkme) describing the operator and a function that registers the kernel
//! for one key. `Dispatcher::global()` registers every entry on first access (all `def`s
//! first, then kernels), so registration takes effect before the first call through the
//! global dispatcher, in every crate linked into the binary. The boxed adapter is the
//! runtime's automatic one for the registered kernel, so every operator can be called by
//! name with dynamic values.

use proc_macro2::{Delimiter, Group, Span, TokenStream as TokenStream2};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use super::docs::string;
use super::frag::{Frag, punct, root_path};
use super::plan::OpPlan;
use super::types::Lifetimes;
use crate::codegen::kernel::{Assertion, Kernel, Output};
use crate::dispatch::DispatchKey;

/// What the registration entry says.
pub(crate) struct Entry<'a> {
    pub rt: &'a Frag,
    /// The kernel; `None` for a `def` without kernel (`include_native_functions!`).
    pub kernel: Option<&'a Kernel>,
    pub namespace: &'a str,
    /// The schema text (without namespace) for an operator defined here.
    pub schema: Option<&'a str>,
    /// `add.Tensor`.
    pub name: String,
    pub keys: &'a [DispatchKey],
    /// The tensor type, when the kernel's signature does not name it.
    pub tensor_hint: Option<&'a syn::Type>,
    /// The operator's variants, for an operator defined here.
    pub variants: Option<crate::native::Variants>,
    /// The operator's `device_check` (ExactSame) and `device_guard`, for an operator
    /// defined here.
    pub device: Option<(bool, bool)>,
    /// `fn __opgen_backend_select(..)`, for an operator that needs one.
    pub backend_select: Option<TokenStream2>,
    /// `fn __opgen_device_kernel(..)`: what is registered at the device-guarded keys.
    pub device_kernel: Option<TokenStream2>,
    /// `fn __opgen_device_register(lib, key, site)`: what registers the kernel at the
    /// device-guarded keys instead (a kernel attached with `op = `).
    pub device_register: Option<TokenStream2>,
}

/// The registration of an operator defined by the attribute.
pub(crate) fn expand_def_registration(
    plan: &OpPlan<'_>,
    kernel: &Kernel,
    assertions: &[Assertion],
) -> TokenStream2 {
    let mentions_tensor =
        plan.args.iter().any(|a| mentions_tensor(&a.ty)) || mentions_tensor(&plan.returns);
    let adapter = match plan.output {
        Output::Alias(indices) => Some(expand_alias_adapter(plan, kernel, indices)),
        Output::Value => None,
    };
    let adapted = syn::Ident::new("__opgen_kernel", Span::call_site());
    let callee = if adapter.is_some() {
        &adapted
    } else {
        kernel.ident()
    };
    let entry = Entry {
        rt: &plan.rt,
        kernel: Some(kernel),
        namespace: plan.namespace,
        schema: Some(&plan.text),
        name: plan.full_name.clone(),
        keys: &plan.keys,
        tensor_hint: (!mentions_tensor).then_some(plan.tensor),
        variants: Some(plan.variants),
        device: Some((plan.device_check, plan.device_guard)),
        backend_select: super::backend_select::expand_backend_select(plan),
        device_kernel: super::device::expand_device_wrapper(plan, kernel, callee),
        device_register: None,
    };
    let checks = expand_assertions(plan, kernel, assertions);
    expand_entry(&entry, adapter, checks)
}

/// The registration entry, with the adapter (registered instead of the kernel) and the
/// type assertions.
pub(crate) fn expand_entry(
    e: &Entry<'_>,
    adapter: Option<TokenStream2>,
    checks: Option<TokenStream2>,
) -> TokenStream2 {
    let rt = e.rt;
    let (namespace, name) = (string(e.namespace), string(&e.name));
    let schema = match e.schema {
        Some(s) => {
            let s = string(s);
            quote!(::core::option::Option::Some(#s))
        }
        None => quote!(::core::option::Option::None),
    };
    // `[#rt::dispatch::DispatchKey::CPU, ...]`
    let mut keys = TokenStream2::new();
    for (i, k) in e.keys.iter().enumerate() {
        if i > 0 {
            punct(&mut keys, ',');
        }
        rt.to_tokens(&mut keys);
        root_path(&mut keys, &["dispatch", "DispatchKey", k.name()]);
    }
    let keys = Group::new(Delimiter::Bracket, keys);
    let at = e.kernel.map_or_else(Span::call_site, |k| k.ident().span());
    let line = quote_spanned!(at=> ::core::line!());
    let file = quote_spanned!(at=> ::core::file!());
    let adapted;
    let kernel = match (&adapter, e.kernel) {
        (Some(_), _) => {
            adapted = syn::Ident::new("__opgen_kernel", Span::call_site());
            quote!(#adapted)
        }
        (None, Some(k)) => {
            let k = k.ident();
            quote!(#k)
        }
        (None, None) => quote!(),
    };
    let impl_fn = e.tensor_hint.map(|tensor| {
        // Nothing in the kernel's signature names the tensor type: say it.
        quote! {
            fn __opgen_impl<K: #rt::dispatch::Kernel<#tensor, M>, M>(
                lib: &#rt::dispatch::Library,
                name: &str,
                key: #rt::dispatch::DispatchKey,
                kernel: K,
                site: #rt::dispatch::Site,
            ) -> ::core::result::Result<#rt::dispatch::Registration, #rt::dispatch::Error> {
                lib.impl_at(name, key, kernel, site)
            }
        }
    });
    let call = |kernel: &TokenStream2| match e.tensor_hint {
        Some(_) => quote!(__opgen_impl(lib, #name, key, #kernel, site)),
        None => quote!(lib.impl_at(#name, key, #kernel, site)),
    };
    let wraps = e.device_kernel.is_some() || e.device_register.is_some();
    let guarded: Vec<_> = (e.keys.iter())
        .filter(|k| wraps && k.is_device_guarded())
        .map(|k| {
            let mut path = rt.to_token_stream();
            root_path(&mut path, &["dispatch", "DispatchKey", k.name()]);
            path
        })
        .collect();
    let register_call = if guarded.is_empty() {
        call(&kernel)
    } else {
        // The device-guarded keys get the wrapper with the device check and guard.
        let wrapped = match e.device_register {
            Some(_) => quote!(__opgen_device_register(lib, key, site)),
            None => call(&quote!(__opgen_device_kernel)),
        };
        let plain = call(&kernel);
        quote! {
            match key {
                #(#guarded)|* => #wrapped,
                _ => #plain,
            }
        }
    };
    let variants = match e.variants {
        Some(v) => {
            let (function, method) = (v.function, v.method);
            quote!(::core::option::Option::Some(#rt::native::Variants { function: #function, method: #method }))
        }
        None => quote!(::core::option::Option::None),
    };
    let device = device_checks(rt, e.device);
    let backend_select = match &e.backend_select {
        Some(_) => quote!(::core::option::Option::Some(__opgen_backend_select)),
        None => quote!(::core::option::Option::None),
    };
    let register = match e.kernel {
        Some(_) => quote!(|lib, key, site| #register_call),
        None => quote!(#rt::__private::no_kernel),
    };
    let mut block = quote! {
        // Only the runtime of the macro's own version has this constant.
        let _ = #rt::__private::VERSION_0_1_0;

        #[#rt::__private::linkme::distributed_slice(#rt::__private::REGISTRATIONS)]
        #[linkme(crate = #rt::__private::linkme)]
        static __OPGEN_REGISTRATION: #rt::__private::Registration = #rt::__private::Registration {
            namespace: #namespace,
            schema: #schema,
            name: #name,
            keys: &#keys,
            file: #file,
            line: #line,
            site: ::core::panic::Location::caller(),
            register: #register,
            variants: #variants,
            device: #device,
            backend_select: #backend_select,
        };
    };
    // Moved in, not copied token by token.
    block.extend(impl_fn);
    block.extend(adapter);
    block.extend(e.backend_select.clone());
    block.extend(e.device_kernel.clone());
    block.extend(e.device_register.clone());
    block.extend(checks);
    let block = Group::new(Delimiter::Brace, block);
    quote! {
        #[doc(hidden)]
        const _: () = #block;
    }
}

/// `Registration::device`: `None`, or the recorded `device_check`/`device_guard`.
pub(crate) fn device_checks(rt: &Frag, device: Option<(bool, bool)>) -> TokenStream2 {
    match device {
        None => quote!(::core::option::Option::None),
        Some((true, true)) => {
            quote!(::core::option::Option::Some(#rt::dispatch::DeviceChecks::DEFAULT))
        }
        Some((check, guard)) => quote!(::core::option::Option::Some(
            #rt::dispatch::DeviceChecks { check: #check, guard: #guard }
        )),
    }
}

/// A kernel that returns `()` for written-alias returns: the registered adapter calls it and
/// returns the written arguments (clones of their handles), as the schema says.
fn expand_alias_adapter(plan: &OpPlan<'_>, kernel: &Kernel, indices: &[usize]) -> TokenStream2 {
    let rt = &plan.rt;
    let tensor = &plan.tensor_tokens;
    let generics = &kernel.sig.generics;
    let k = kernel.ident();
    let key_set = kernel.key_set.as_ref().map(|p| {
        let ty = &p.ty;
        quote!(key_set: #ty,)
    });
    let key_arg = kernel.key_set.as_ref().map(|_| quote!(key_set,));
    let params = plan.args.iter().zip(&kernel.params).map(|(a, p)| {
        let (id, ty) = (&a.ident, &p.ty);
        quote!(#id: #ty)
    });
    let ids: Vec<&syn::Ident> = plan.args.iter().map(|a| &a.ident).collect();
    let clones: Vec<TokenStream2> = indices
        .iter()
        .filter_map(|&i| plan.args.get(i))
        .map(|a| {
            let id = &a.ident;
            quote!(<#tensor as ::core::clone::Clone>::clone(#id))
        })
        .collect();
    let value = match clones.as_slice() {
        [one] => one.clone(),
        many => quote!((#(#many),*)),
    };
    let ret = &plan.ret;
    let snake = ids
        .iter()
        .any(|i| i.to_string().chars().any(|c| c.is_ascii_uppercase()))
        .then(|| quote!(#[allow(non_snake_case)]));
    if kernel.output.fallible {
        quote! {
            #snake
            fn __opgen_kernel #generics (#key_set #(#params),*) -> ::core::result::Result<#ret, #rt::dispatch::Error> {
                match #k(#key_arg #(#ids),*) {
                    ::core::result::Result::Ok(()) => ::core::result::Result::Ok(#value),
                    ::core::result::Result::Err(e) => ::core::result::Result::Err(::core::convert::Into::into(e)),
                }
            }
        }
    } else {
        quote! {
            #snake
            fn __opgen_kernel #generics (#key_set #(#params),*) -> #ret {
                #k(#key_arg #(#ids),*);
                #value
            }
        }
    }
}

/// Types the signature check could not judge (aliases), compared by rustc on the user's
/// type, so that a mismatch is reported there.
fn expand_assertions(
    plan: &OpPlan<'_>,
    kernel: &Kernel,
    assertions: &[Assertion],
) -> Option<TokenStream2> {
    if assertions.is_empty() {
        return None;
    }
    let generics = &kernel.sig.generics;
    let lets = assertions.iter().map(|a| {
        let user = &a.user;
        let mut expected = TokenStream2::new();
        plan.ty(&a.expected, Lifetimes::Elided, &mut expected);
        let span: Span = user.span();
        quote_spanned! {span=>
            let _: ::core::marker::PhantomData<#user> = ::core::marker::PhantomData::<#expected>;
        }
    });
    Some(quote! {
        #[allow(dead_code)]
        fn __opgen_signature #generics () {
            #(#lets)*
        }
    })
}

fn mentions_tensor(ty: &crate::plan::RustType) -> bool {
    use crate::plan::RustType as R;
    match ty {
        R::Tensor => true,
        R::Ref(t) | R::Mut(t) | R::Slice(t) | R::Array(t, _) | R::Option(t) | R::Vec(t) => {
            mentions_tensor(t)
        }
        R::Tuple(ts) => ts.iter().any(mentions_tensor),
        R::Value(_) | R::Str => false,
    }
}
