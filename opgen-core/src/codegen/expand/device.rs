//! The device check and device guard of registration wrappers (torchgen's
//! `RegisterCUDA.cpp` wrappers, SCHEMA.md §5.5), for kernels registered at device-guarded
//! keys (`DispatchKey::is_device_guarded`: the CUDA-like and XPU-like keys):
//!
//! 1. with `device_check: ExactSame` (the default), every tensor of the out arguments, then
//!    of the positional ones (keyword-only non-out arguments are not checked), must be on
//!    one device, else an error value naming the operator, the kernel and each device;
//! 2. with `device_guard: True` (the default), the kernel runs under a
//!    `DeviceGuard`: on the `device` argument for TensorOptions schemas, else on the device
//!    of the first tensor-like argument among `self`, the out arguments and the positional
//!    ones.
//!
//! The wrapper is registered instead of the kernel at those keys only; at the others
//! (`CPU`, `Meta`, composites), or when neither part applies, nothing extra is generated.
//! A structured operator's kernels (the out operator's and its delegates') are one closure
//! for every key of its impls, so they carry both parts behind a run-time test of the key
//! (`structured_device_prelude`).

use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

use super::docs::string;
use super::plan::OpPlan;
use crate::codegen::kernel::Kernel;
use crate::plan::RustType;

/// The wrapper `__opgen_device_kernel`, calling `callee` (the kernel, or its alias adapter
/// with the kernel's parameters), if some key of the plan is device-guarded and the check
/// or the guard has something to do.
pub(crate) fn expand_device_wrapper(
    plan: &OpPlan<'_>,
    kernel: &Kernel,
    callee: &syn::Ident,
) -> Option<TokenStream2> {
    if !plan.keys.iter().any(|k| k.is_device_guarded()) {
        return None;
    }
    let kernel_name = plan.kernel.map(ToString::to_string).unwrap_or_default();
    let keys = quote!(__opgen_keys);
    let check = check(plan, &kernel_name, &keys);
    let guard = plan
        .device_guard
        .then(|| guard(plan))
        .flatten()
        .map(|g| quote!(let _guard = #g;));
    if check.is_none() && guard.is_none() {
        return None;
    }
    let rt = &plan.rt;
    let tensor = &plan.tensor_tokens;
    let generics = &kernel.sig.generics;
    let params = plan.args.iter().zip(&kernel.params).map(|(a, p)| {
        let (id, ty) = (&a.ident, &p.ty);
        quote!(#id: #ty)
    });
    let key_arg = kernel.key_set.as_ref().map(|_| quote!(__opgen_keys,));
    let ids = plan.args.iter().map(|a| &a.ident);
    let ret = &plan.ret;
    let snake = plan.upper_args.then(|| quote!(#[allow(non_snake_case)]));
    Some(quote! {
        #snake
        #[allow(clippy::too_many_arguments)]
        fn __opgen_device_kernel #generics (
            __opgen_keys: #rt::dispatch::DispatchKeySet,
            #(#params),*
        ) -> ::core::result::Result<#ret, #rt::dispatch::Error> {
            #check
            #guard
            #rt::__private::kernel_result::<#tensor, _, _>(#callee(#key_arg #(#ids),*))
        }
    })
}

/// `check_same_device(..)?;` over the out arguments' tensors, then the positional ones,
/// when `device_check` is ExactSame and there is a tensor to check; `keys` is the key set
/// expression the error names the key from.
fn check(plan: &OpPlan<'_>, kernel_name: &str, keys: &TokenStream2) -> Option<TokenStream2> {
    let schema = plan.schema;
    let rt = &plan.rt;
    let tensor = &plan.tensor_tokens;
    let is_tensor = |i: &usize| {
        schema
            .arguments
            .get(*i)
            .is_some_and(|a| a.ty.is_tensor_like())
    };
    let out_start = schema.out_start();
    let positional = schema.positional().map(|(i, _)| i);
    let checked: Vec<usize> = (out_start..schema.arguments.len())
        .chain(positional)
        .filter(is_tensor)
        .collect();
    (plan.device_check && !checked.is_empty()).then(|| {
        let pairs = checked.iter().filter_map(|&i| {
            let (a, id) = (schema.arguments.get(i)?, &plan.args.get(i)?.ident);
            let name = string(&a.name);
            Some(quote!((#name, &#id as &dyn #rt::__private::TensorArg<#tensor>)))
        });
        let (operator, name) = (
            string(&format!("{}::{}", plan.namespace, plan.full_name)),
            string(kernel_name),
        );
        quote! {
            #rt::__private::check_same_device::<#tensor>(
                #operator, #name, #keys, &[#(#pairs),*],
            )?;
        }
    })
}

/// The device check and guard of a structured kernel (the out operator's, or a delegate's),
/// registered by one closure at every key of the out operator's impls, so decided at run
/// time: at a device-guarded `key` the check, then `_guard`, as `expand_device_wrapper`
/// does for an ordinary kernel (torchgen's structured `RegisterCUDA.cpp` classes); a guard
/// that does nothing elsewhere. Empty when neither part applies. `kernel_name` names the
/// structured operator in the error message.
pub(crate) fn structured_device_prelude(plan: &OpPlan<'_>, kernel_name: &str) -> TokenStream2 {
    let rt = &plan.rt;
    let keys = quote!(#rt::dispatch::DispatchKeySet::from_key(key));
    let check = check(plan, kernel_name, &keys);
    let guard = plan.device_guard.then(|| guard(plan)).flatten();
    if check.is_none() && guard.is_none() {
        return TokenStream2::new();
    }
    let none = quote!(#rt::__private::DeviceGuard::optional(::core::option::Option::None));
    let guard = guard.unwrap_or_else(|| none.clone());
    quote! {
        let _guard = if #rt::dispatch::DispatchKey::is_device_guarded(key) {
            #check
            #guard
        } else {
            #none
        };
    }
}

/// The guard: on the `device` argument (TensorOptions), else on the first
/// tensor-like argument among `self`, the outs and the positional arguments; `None` when
/// there is none.
fn guard(plan: &OpPlan<'_>) -> Option<TokenStream2> {
    let schema = plan.schema;
    let rt = &plan.rt;
    if let Some(start) = schema.tensor_options_start() {
        let a = plan.args.get(start + 2)?;
        let id = &a.ident;
        let device = match a.ty {
            RustType::Option(_) => quote!(#id),
            _ => quote!(::core::option::Option::Some(#id)),
        };
        return Some(quote!(#rt::__private::DeviceGuard::optional(#device)));
    }
    let tensor = &plan.tensor_tokens;
    let candidates = (schema.self_index().into_iter())
        .chain(schema.out_start()..schema.arguments.len())
        .chain(schema.positional().map(|(i, _)| i));
    let first = candidates.into_iter().find(|&i| {
        schema
            .arguments
            .get(i)
            .is_some_and(|a| a.ty.is_tensor_like())
    })?;
    let id = &plan.args.get(first)?.ident;
    Some(quote! {
        #rt::__private::DeviceGuard::of(
            #rt::__private::TensorArg::<#tensor>::first(&#id),
        )?
    })
}

/// `fn __opgen_device_register(lib, key, site)`: what registers a kernel attached with
/// `op = ` at a device-guarded key. Its schema is not known here, so the kernel is
/// registered inside a closure holding a `__private::DevicePlan`, which the runtime computes
/// from the operator's schema and recorded `device_check`/`device_guard` when the kernel
/// registers; each parameter is passed to it as a tensor, a device or neither, read off its
/// Rust type. `None` for a generic kernel, or when no parameter, return or `tensor = `
/// names the tensor type.
pub(crate) fn expand_op_device_register(
    rt: &super::frag::Frag,
    kernel: &Kernel,
    name: &str,
    tensor_hint: Option<&syn::Type>,
) -> Option<TokenStream2> {
    use crate::codegen::kernel::fit::{last_ident, strip, tensor_candidate, type_args};
    if !kernel.sig.generics.params.is_empty() {
        return None;
    }
    /// The tensor type of a list element type (`T`, `Option<T>`).
    fn element(e: &syn::Type) -> Option<&syn::Type> {
        if tensor_candidate(e) {
            return Some(e);
        }
        match (last_ident(e), type_args(e).as_slice()) {
            (Some(o), [t]) if o == "Option" && tensor_candidate(t) => Some(*t),
            _ => None,
        }
    }
    /// The tensor type of a tensor-like parameter type.
    fn tensor_of(ty: &syn::Type) -> Option<&syn::Type> {
        match strip(ty) {
            syn::Type::Reference(r) => match strip(&r.elem) {
                syn::Type::Slice(s) => element(&s.elem),
                t => tensor_candidate(t).then_some(t),
            },
            t => match (last_ident(t), type_args(t).as_slice()) {
                (Some(o), [syn::Type::Reference(r)]) if o == "Option" => {
                    tensor_candidate(&r.elem).then_some(&*r.elem)
                }
                _ => None,
            },
        }
    }
    /// `Some(optional)` for a `Device` (`false`) or `Option<Device>` (`true`) parameter.
    fn device_kind(ty: &syn::Type) -> Option<bool> {
        match (
            last_ident(ty)?.to_string().as_str(),
            type_args(ty).as_slice(),
        ) {
            ("Device", []) => Some(false),
            ("Option", [d]) if last_ident(d).is_some_and(|i| i == "Device") => Some(true),
            _ => None,
        }
    }
    let tensor = tensor_hint
        .or_else(|| kernel.params.iter().find_map(|p| tensor_of(&p.ty)))
        .or_else(|| (kernel.output.value.as_ref()).filter(|t| tensor_candidate(t)))?;
    let ids: Vec<syn::Ident> = (0..kernel.params.len())
        .map(|i| quote::format_ident!("__opgen_a{i}"))
        .collect();
    let tys = kernel.params.iter().map(|p| &p.ty);
    let names = kernel.params.iter().enumerate().map(|(i, p)| {
        let n = p.name.as_ref().map_or_else(
            || format!("arg{i}"),
            |n| {
                let n = n.to_string();
                n.strip_suffix('_')
                    .filter(|s| !s.is_empty())
                    .unwrap_or(&n)
                    .to_string()
            },
        );
        string(&n)
    });
    let device_args = kernel.params.iter().zip(&ids).map(|(p, id)| {
        if tensor_of(&p.ty).is_some() {
            quote!(#rt::__private::DeviceArg::Tensor(&#id))
        } else {
            match device_kind(&p.ty) {
                Some(true) => quote!(#rt::__private::DeviceArg::Device(#id)),
                Some(false) => {
                    quote!(#rt::__private::DeviceArg::Device(::core::option::Option::Some(#id)))
                }
                None => quote!(#rt::__private::DeviceArg::Other),
            }
        }
    });
    let key_arg = kernel.key_set.as_ref().map(|_| quote!(__opgen_keys,));
    let (name, kernel_name) = (string(name), string(&kernel.ident().to_string()));
    let k = kernel.ident();
    Some(quote! {
        fn __opgen_device_register(
            lib: &#rt::dispatch::Library,
            key: #rt::dispatch::DispatchKey,
            site: #rt::dispatch::Site,
        ) -> ::core::result::Result<#rt::dispatch::Registration, #rt::dispatch::Error> {
            let __opgen_plan = #rt::__private::DevicePlan::new(lib, #name, #kernel_name, &[#(#names),*]);
            #rt::__private::register_kernel::<#tensor, _, _>(
                lib,
                #name,
                key,
                move |__opgen_keys: #rt::dispatch::DispatchKeySet, #(#ids: #tys),*| {
                    let _guard = match __opgen_plan.enter::<#tensor>(__opgen_keys, &[#(#device_args),*]) {
                        ::core::result::Result::Ok(guard) => guard,
                        ::core::result::Result::Err(e) => return ::core::result::Result::Err(e),
                    };
                    #rt::__private::kernel_result::<#tensor, _, _>(#k(#key_arg #(#ids),*))
                },
                site,
            )
        }
    })
}
