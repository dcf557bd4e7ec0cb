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

use proc_macro2::{Delimiter, TokenStream as TokenStream2};
use quote::{ToTokens, TokenStreamExt, quote};

use super::docs::string;
use super::frag::rt_path;
use super::frag::{group, ident, punct, punct_joint, root_path};
use super::plan::OpPlan;
use super::register::some;
use crate::codegen::kernel::Kernel;
use crate::plan::RustType;

/// The wrapper `__opgen_device_kernel`, calling `callee` (the kernel, or its alias adapter
/// with the kernel's parameters), if some key of the plan is device-guarded and the check
/// or the guard has something to do:
///
/// ```text
/// #[allow(clippy::too_many_arguments)]
/// fn __opgen_device_kernel<G>(
///     __opgen_keys: rt::dispatch::DispatchKeySet,
///     a: A, ...
/// ) -> ::core::result::Result<RET, rt::dispatch::Error> {
///     CHECK
///     let _guard = GUARD;
///     rt::__private::kernel_result::<T, _, _>(CALLEE(__opgen_keys, a, ...))
/// }
/// ```
pub(crate) fn expand_device_wrapper(
    plan: &OpPlan<'_>,
    kernel: &Kernel,
    callee: &syn::Ident,
) -> Option<TokenStream2> {
    if !plan.keys.iter().any(|k| k.is_device_guarded()) {
        return None;
    }
    let checked = checked(plan);
    let guard = plan.device_guard.then(|| guard(plan)).flatten();
    if checked.is_empty() && guard.is_none() {
        return None;
    }
    let kernel_name = plan.kernel.map(ToString::to_string).unwrap_or_default();
    let rt = &plan.rt;
    let tensor = &plan.tensor_tokens;
    let mut out = TokenStream2::new();
    if plan.upper_args {
        plan.attrs.snake.to_tokens(&mut out);
    }
    plan.attrs.many.to_tokens(&mut out);
    ident(&mut out, "fn");
    ident(&mut out, "__opgen_device_kernel");
    kernel.sig.generics.to_tokens(&mut out);
    group(&mut out, Delimiter::Parenthesis, |g| {
        ident(g, "__opgen_keys");
        punct(g, ':');
        rt_path(g, rt, &["dispatch", "DispatchKeySet"]);
        punct(g, ',');
        for (i, (a, p)) in plan.args.iter().zip(&kernel.params).enumerate() {
            if i > 0 {
                punct(g, ',');
            }
            a.ident.to_tokens(g);
            punct(g, ':');
            p.ty.to_tokens(g);
        }
    });
    punct_joint(&mut out, '-');
    punct(&mut out, '>');
    root_path(&mut out, &["core", "result", "Result"]);
    punct(&mut out, '<');
    plan.ret.to_tokens(&mut out);
    punct(&mut out, ',');
    rt_path(&mut out, rt, &["dispatch", "Error"]);
    punct(&mut out, '>');
    group(&mut out, Delimiter::Brace, |body| {
        check(
            plan,
            &checked,
            &kernel_name,
            |g| ident(g, "__opgen_keys"),
            body,
        );
        if let Some(guard) = &guard {
            // `let _guard = GUARD;`
            ident(body, "let");
            ident(body, "_guard");
            punct(body, '=');
            guard.write(plan, body);
            punct(body, ';');
        }
        // `rt::__private::kernel_result::<T, _, _>(CALLEE(__opgen_keys, a, ...))`
        rt_path(body, rt, &["__private", "kernel_result"]);
        turbofish(body, tensor);
        group(body, Delimiter::Parenthesis, |g| {
            callee.to_tokens(g);
            group(g, Delimiter::Parenthesis, |g| {
                if kernel.key_set.is_some() {
                    ident(g, "__opgen_keys");
                    punct(g, ',');
                }
                for (i, a) in plan.args.iter().enumerate() {
                    if i > 0 {
                        punct(g, ',');
                    }
                    a.ident.to_tokens(g);
                }
            });
        });
    });
    Some(out)
}

/// `::<T, _, _>`.
fn turbofish(out: &mut TokenStream2, tensor: &super::frag::Frag) {
    super::frag::colon2(out);
    punct(out, '<');
    tensor.to_tokens(out);
    punct(out, ',');
    ident(out, "_");
    punct(out, ',');
    ident(out, "_");
    punct(out, '>');
}

/// The schema indices of the tensors `check` compares: the out arguments' tensors, then
/// the positional ones; none unless `device_check` is ExactSame.
fn checked(plan: &OpPlan<'_>) -> Vec<usize> {
    if !plan.device_check {
        return Vec::new();
    }
    let schema = plan.schema;
    let is_tensor = |i: &usize| {
        schema
            .arguments
            .get(*i)
            .is_some_and(|a| a.ty.is_tensor_like())
    };
    let out_start = schema.out_start();
    let positional = schema.positional().map(|(i, _)| i);
    (out_start..schema.arguments.len())
        .chain(positional)
        .filter(is_tensor)
        .collect()
}

/// `rt::__private::check_same_device::<T>(OPERATOR, KERNEL, KEYS, &[("a", &a as &dyn
/// rt::__private::TensorArg<T>), ...],)?;` over the `checked` tensors, nothing when there
/// are none; `keys` writes the key set expression the error names the key from.
fn check(
    plan: &OpPlan<'_>,
    checked: &[usize],
    kernel_name: &str,
    keys: impl FnOnce(&mut TokenStream2),
    out: &mut TokenStream2,
) {
    if checked.is_empty() {
        return;
    }
    let schema = plan.schema;
    let rt = &plan.rt;
    let tensor = &plan.tensor_tokens;
    rt_path(out, rt, &["__private", "check_same_device"]);
    super::frag::colon2(out);
    punct(out, '<');
    tensor.to_tokens(out);
    punct(out, '>');
    group(out, Delimiter::Parenthesis, |g| {
        g.append(string(&format!("{}::{}", plan.namespace, plan.full_name)));
        punct(g, ',');
        g.append(string(kernel_name));
        punct(g, ',');
        keys(g);
        punct(g, ',');
        punct(g, '&');
        group(g, Delimiter::Bracket, |g| {
            let pairs = checked
                .iter()
                .filter_map(|&i| Some((schema.arguments.get(i)?, &plan.args.get(i)?.ident)));
            for (n, (a, id)) in pairs.enumerate() {
                if n > 0 {
                    punct(g, ',');
                }
                // `("a", &a as &dyn rt::__private::TensorArg<T>)`
                group(g, Delimiter::Parenthesis, |g| {
                    g.append(string(&a.name));
                    punct(g, ',');
                    punct(g, '&');
                    id.to_tokens(g);
                    ident(g, "as");
                    punct(g, '&');
                    ident(g, "dyn");
                    rt_path(g, rt, &["__private", "TensorArg"]);
                    punct(g, '<');
                    tensor.to_tokens(g);
                    punct(g, '>');
                });
            }
        });
        punct(g, ',');
    });
    punct(out, '?');
    punct(out, ';');
}

/// The device check and guard of a structured kernel (the out operator's, or a delegate's),
/// registered by one closure at every key of the out operator's impls, so decided at run
/// time: at a device-guarded `key` the check, then `_guard`, as `expand_device_wrapper`
/// does for an ordinary kernel (torchgen's structured `RegisterCUDA.cpp` classes); a guard
/// that does nothing elsewhere. Empty when neither part applies. `kernel_name` names the
/// structured operator in the error message:
///
/// ```text
/// let _guard = if rt::dispatch::DispatchKey::is_device_guarded(key) {
///     CHECK
///     GUARD
/// } else {
///     rt::__private::DeviceGuard::optional(::core::option::Option::None)
/// };
/// ```
pub(crate) fn structured_device_prelude(plan: &OpPlan<'_>, kernel_name: &str) -> TokenStream2 {
    let rt = &plan.rt;
    let checked = checked(plan);
    let guard = plan.device_guard.then(|| guard(plan)).flatten();
    let mut out = TokenStream2::new();
    if checked.is_empty() && guard.is_none() {
        return out;
    }
    ident(&mut out, "let");
    ident(&mut out, "_guard");
    punct(&mut out, '=');
    ident(&mut out, "if");
    rt_path(
        &mut out,
        rt,
        &["dispatch", "DispatchKey", "is_device_guarded"],
    );
    group(&mut out, Delimiter::Parenthesis, |g| ident(g, "key"));
    group(&mut out, Delimiter::Brace, |g| {
        // `rt::dispatch::DispatchKeySet::from_key(key)`
        let keys = |g: &mut TokenStream2| {
            rt_path(g, rt, &["dispatch", "DispatchKeySet", "from_key"]);
            group(g, Delimiter::Parenthesis, |g| ident(g, "key"));
        };
        check(plan, &checked, kernel_name, keys, g);
        match &guard {
            Some(guard) => guard.write(plan, g),
            None => no_guard(g, plan),
        }
    });
    ident(&mut out, "else");
    group(&mut out, Delimiter::Brace, |g| no_guard(g, plan));
    punct(&mut out, ';');
    out
}

/// `rt::__private::DeviceGuard::optional(::core::option::Option::None)`.
fn no_guard(out: &mut TokenStream2, plan: &OpPlan<'_>) {
    rt_path(out, &plan.rt, &["__private", "DeviceGuard", "optional"]);
    group(out, Delimiter::Parenthesis, super::register::none);
}

/// What the device guard is taken on.
enum Guard<'p> {
    /// The `device` argument (TensorOptions), `Option<Device>` or not.
    Device(&'p syn::Ident, bool),
    /// The first tensor-like argument among `self`, the outs and the positional arguments.
    First(&'p syn::Ident),
}

impl Guard<'_> {
    /// `rt::__private::DeviceGuard::optional(DEVICE)`, or
    /// `rt::__private::DeviceGuard::of(rt::__private::TensorArg::<T>::first(&a),)?`.
    fn write(&self, plan: &OpPlan<'_>, out: &mut TokenStream2) {
        let rt = &plan.rt;
        match *self {
            Guard::Device(id, optional) => {
                rt_path(out, rt, &["__private", "DeviceGuard", "optional"]);
                group(out, Delimiter::Parenthesis, |g| {
                    if optional {
                        id.to_tokens(g);
                    } else {
                        some(g, |g| id.to_tokens(g));
                    }
                });
            }
            Guard::First(id) => {
                rt_path(out, rt, &["__private", "DeviceGuard", "of"]);
                group(out, Delimiter::Parenthesis, |g| {
                    rt_path(g, rt, &["__private", "TensorArg"]);
                    super::frag::colon2(g);
                    punct(g, '<');
                    plan.tensor_tokens.to_tokens(g);
                    punct(g, '>');
                    root_path(g, &["first"]);
                    group(g, Delimiter::Parenthesis, |g| {
                        punct(g, '&');
                        id.to_tokens(g);
                    });
                    punct(g, ',');
                });
                punct(out, '?');
            }
        }
    }
}

/// The guard: on the `device` argument (TensorOptions), else on the first
/// tensor-like argument among `self`, the outs and the positional arguments; `None` when
/// there is none.
fn guard<'p>(plan: &'p OpPlan<'_>) -> Option<Guard<'p>> {
    let schema = plan.schema;
    if let Some(start) = schema.tensor_options_start() {
        let a = plan.args.get(start + 2)?;
        return Some(Guard::Device(&a.ident, matches!(a.ty, RustType::Option(_))));
    }
    let candidates = (schema.self_index().into_iter())
        .chain(schema.out_start()..schema.arguments.len())
        .chain(schema.positional().map(|(i, _)| i));
    let first = candidates.into_iter().find(|&i| {
        schema
            .arguments
            .get(i)
            .is_some_and(|a| a.ty.is_tensor_like())
    })?;
    Some(Guard::First(&plan.args.get(first)?.ident))
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
