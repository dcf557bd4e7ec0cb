//! Registration: a `static` in the runtime's link-time list (`__private::REGISTRATIONS`,
//! collected with linkme) describing the operator and a function that registers the kernel
//! for one key. `Dispatcher::global()` registers every entry on first access (all `def`s
//! first, then kernels), so registration takes effect before the first call through the
//! global dispatcher, in every crate linked into the binary. The boxed adapter is the
//! runtime's automatic one for the registered kernel, so every operator can be called by
//! name with dynamic values.
//!
//! Written token by token into the stream being built (see `frag`), as `quote!` would
//! write it: same trees, spacing and spans.

use proc_macro2::{Delimiter, Ident, Literal, Spacing, Span, TokenStream as TokenStream2};
use quote::{ToTokens, TokenStreamExt};
use syn::spanned::Spanned;

use super::docs::string;
use super::frag::{
    At, Frag, colon2, doc_hidden, group, ident, linkme_attrs, punct, punct_joint, root_path,
    rt_path,
};
use super::plan::OpPlan;
use super::types::Lifetimes;
use crate::codegen::kernel::{Assertion, Kernel, Output};
use crate::dispatch::DispatchKey;

/// What the registration entry says. The generated items it carries are moved into the
/// output.
pub(crate) struct Entry<'a> {
    pub rt: &'a Frag,
    /// The kernel; `None` for a `def` without kernel (`include_native_functions!`).
    pub kernel: Option<&'a Kernel>,
    pub namespace: &'a str,
    /// The schema text (without namespace) for an operator defined here.
    pub schema: Option<&'a str>,
    /// `add.Tensor`.
    pub name: &'a str,
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

/// The registration of an operator defined by the attribute, written to `out`.
pub(crate) fn expand_def_registration(
    plan: &OpPlan<'_>,
    kernel: &Kernel,
    assertions: &[Assertion],
    out: &mut TokenStream2,
) {
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
        name: &plan.full_name,
        keys: &plan.keys,
        tensor_hint: (!mentions_tensor).then_some(plan.tensor),
        variants: Some(plan.variants),
        device: Some((plan.device_check, plan.device_guard)),
        backend_select: super::backend_select::expand_backend_select(plan),
        device_kernel: super::device::expand_device_wrapper(plan, kernel, callee),
        device_register: None,
    };
    let checks = expand_assertions(plan, kernel, assertions);
    expand_entry(entry, adapter, checks, out);
}

/// The registration entry, with the adapter (registered instead of the kernel) and the
/// type assertions, written to `out`: the owned items (the adapter, the assertions, the
/// backend-select, device wrapper and device register functions) are moved in.
pub(crate) fn expand_entry(
    e: Entry<'_>,
    adapter: Option<TokenStream2>,
    checks: Option<TokenStream2>,
    out: &mut TokenStream2,
) {
    let rt = e.rt;
    let name = string(e.name);
    doc_hidden(out);
    // `const _: () = { ... };`
    ident(out, "const");
    ident(out, "_");
    punct(out, ':');
    group(out, Delimiter::Parenthesis, |_| {});
    punct(out, '=');
    group(out, Delimiter::Brace, |block| {
        // Only the runtime of the macro's own version has this constant.
        // `let _ = rt::__private::VERSION_0_1_0;`
        ident(block, "let");
        ident(block, "_");
        punct(block, '=');
        rt_path(block, rt, &["__private", "VERSION_0_1_0"]);
        punct(block, ';');
        linkme_attrs(block, rt, "REGISTRATIONS");
        // `static __OPGEN_REGISTRATION: rt::__private::Registration =
        // rt::__private::Registration { ... };`
        ident(block, "static");
        ident(block, "__OPGEN_REGISTRATION");
        punct(block, ':');
        rt_path(block, rt, &["__private", "Registration"]);
        punct(block, '=');
        rt_path(block, rt, &["__private", "Registration"]);
        group(block, Delimiter::Brace, |g| {
            registration_fields(g, &e, &name, adapter.is_some());
        });
        punct(block, ';');
        if let Some(tensor) = e.tensor_hint {
            // Nothing in the kernel's signature names the tensor type: say it.
            impl_fn(block, rt, tensor);
        }
        // Moved in, not copied token by token.
        block.extend(adapter);
        block.extend(e.backend_select);
        block.extend(e.device_kernel);
        block.extend(e.device_register);
        block.extend(checks);
    });
    punct(out, ';');
}

/// The fields of the `Registration` static, `namespace: "aten", ..., backend_select: ..,`.
fn registration_fields(out: &mut TokenStream2, e: &Entry<'_>, name: &Literal, adapted: bool) {
    let rt = e.rt;
    // `namespace: "aten",`
    field(out, "namespace");
    out.append(string(e.namespace));
    punct(out, ',');
    // `schema: Option::Some("..."),` or `Option::None`
    field(out, "schema");
    match e.schema {
        Some(s) => some(out, |g| g.append(string(s))),
        None => none(out),
    }
    punct(out, ',');
    // `name: "add.Tensor",`
    field(out, "name");
    out.append(name.clone());
    punct(out, ',');
    // `keys: &[rt::dispatch::DispatchKey::CPU, ...],`
    field(out, "keys");
    punct(out, '&');
    group(out, Delimiter::Bracket, |g| {
        for (i, k) in e.keys.iter().enumerate() {
            if i > 0 {
                punct(g, ',');
            }
            rt_path(g, rt, &["dispatch", "DispatchKey", k.name()]);
        }
    });
    punct(out, ',');
    // `file: ::core::file!(), line: ::core::line!(),` at the kernel, so that they name its
    // line.
    let at = e.kernel.map_or_else(Span::call_site, |k| k.ident().span());
    field(out, "file");
    At(at).core_macro(out, "file");
    punct(out, ',');
    field(out, "line");
    At(at).core_macro(out, "line");
    punct(out, ',');
    // `site: ::core::panic::Location::caller(),`
    field(out, "site");
    root_path(out, &["core", "panic", "Location", "caller"]);
    group(out, Delimiter::Parenthesis, |_| {});
    punct(out, ',');
    // `register: |lib, key, site| ...,` or `rt::__private::no_kernel`
    field(out, "register");
    match e.kernel {
        Some(k) => {
            let kernel = if adapted {
                Ident::new("__opgen_kernel", Span::call_site())
            } else {
                k.ident().clone()
            };
            register_closure(out, e, name, kernel);
        }
        None => rt_path(out, rt, &["__private", "no_kernel"]),
    }
    punct(out, ',');
    // `variants: Option::Some(rt::native::Variants { function: true, method: false }),`
    field(out, "variants");
    match e.variants {
        Some(v) => some(out, |g| {
            rt_path(g, rt, &["native", "Variants"]);
            group(g, Delimiter::Brace, |g| {
                field(g, "function");
                bool_ident(g, v.function);
                punct(g, ',');
                field(g, "method");
                bool_ident(g, v.method);
            });
        }),
        None => none(out),
    }
    punct(out, ',');
    // `device: ...,`
    field(out, "device");
    write_device_checks(rt, e.device, out);
    punct(out, ',');
    // `backend_select: Option::Some(__opgen_backend_select),` or `Option::None`
    field(out, "backend_select");
    match &e.backend_select {
        Some(_) => some(out, |g| ident(g, "__opgen_backend_select")),
        None => none(out),
    }
    punct(out, ',');
}

/// `|lib, key, site| CALL`, registering `kernel` at `key`; at the device-guarded keys, the
/// device wrapper (or the device register function) instead:
/// `|lib, key, site| match key { K1 | K2 => WRAPPED, _ => CALL, }`.
fn register_closure(out: &mut TokenStream2, e: &Entry<'_>, name: &Literal, kernel: Ident) {
    let rt = e.rt;
    punct(out, '|');
    ident(out, "lib");
    punct(out, ',');
    ident(out, "key");
    punct(out, ',');
    ident(out, "site");
    punct(out, '|');
    let wraps = e.device_kernel.is_some() || e.device_register.is_some();
    let mut guarded = (e.keys.iter())
        .filter(|k| wraps && k.is_device_guarded())
        .peekable();
    if guarded.peek().is_none() {
        impl_call(out, e, name, kernel);
        return;
    }
    // The device-guarded keys get the wrapper with the device check and guard.
    ident(out, "match");
    ident(out, "key");
    group(out, Delimiter::Brace, |g| {
        // `rt::dispatch::DispatchKey::CUDA | ... =>`
        for (i, k) in guarded.enumerate() {
            if i > 0 {
                punct(g, '|');
            }
            rt_path(g, rt, &["dispatch", "DispatchKey", k.name()]);
        }
        fat_arrow(g);
        match e.device_register {
            // `__opgen_device_register(lib, key, site)`
            Some(_) => {
                ident(g, "__opgen_device_register");
                group(g, Delimiter::Parenthesis, |g| {
                    ident(g, "lib");
                    punct(g, ',');
                    ident(g, "key");
                    punct(g, ',');
                    ident(g, "site");
                });
            }
            None => {
                let wrapper = Ident::new("__opgen_device_kernel", Span::call_site());
                impl_call(g, e, name, wrapper);
            }
        }
        punct(g, ',');
        // `_ => CALL,`
        ident(g, "_");
        fat_arrow(g);
        impl_call(g, e, name, kernel);
        punct(g, ',');
    });
}

/// `lib.impl_at(NAME, key, kernel, site)`, or `__opgen_impl(lib, NAME, key, kernel, site)`
/// with the tensor type hint.
fn impl_call(out: &mut TokenStream2, e: &Entry<'_>, name: &Literal, kernel: Ident) {
    let hinted = e.tensor_hint.is_some();
    if hinted {
        ident(out, "__opgen_impl");
    } else {
        ident(out, "lib");
        punct(out, '.');
        ident(out, "impl_at");
    }
    group(out, Delimiter::Parenthesis, |g| {
        if hinted {
            ident(g, "lib");
            punct(g, ',');
        }
        g.append(name.clone());
        punct(g, ',');
        ident(g, "key");
        punct(g, ',');
        g.append(kernel);
        punct(g, ',');
        ident(g, "site");
    });
}

/// `fn __opgen_impl`, registering a kernel whose signature does not name the tensor type:
///
/// ```text
/// fn __opgen_impl<K: rt::dispatch::Kernel<TENSOR, M>, M>(
///     lib: &rt::dispatch::Library,
///     name: &str,
///     key: rt::dispatch::DispatchKey,
///     kernel: K,
///     site: rt::dispatch::Site,
/// ) -> ::core::result::Result<rt::dispatch::Registration, rt::dispatch::Error> {
///     lib.impl_at(name, key, kernel, site)
/// }
/// ```
fn impl_fn(out: &mut TokenStream2, rt: &Frag, tensor: &syn::Type) {
    ident(out, "fn");
    ident(out, "__opgen_impl");
    punct(out, '<');
    ident(out, "K");
    punct(out, ':');
    rt_path(out, rt, &["dispatch", "Kernel"]);
    punct(out, '<');
    tensor.to_tokens(out);
    punct(out, ',');
    ident(out, "M");
    punct(out, '>');
    punct(out, ',');
    ident(out, "M");
    punct(out, '>');
    group(out, Delimiter::Parenthesis, |g| {
        field(g, "lib");
        punct(g, '&');
        rt_path(g, rt, &["dispatch", "Library"]);
        punct(g, ',');
        field(g, "name");
        punct(g, '&');
        ident(g, "str");
        punct(g, ',');
        field(g, "key");
        rt_path(g, rt, &["dispatch", "DispatchKey"]);
        punct(g, ',');
        field(g, "kernel");
        ident(g, "K");
        punct(g, ',');
        field(g, "site");
        rt_path(g, rt, &["dispatch", "Site"]);
        punct(g, ',');
    });
    registration_result(out, rt);
    group(out, Delimiter::Brace, |g| {
        ident(g, "lib");
        punct(g, '.');
        ident(g, "impl_at");
        group(g, Delimiter::Parenthesis, |g| {
            for (i, a) in ["name", "key", "kernel", "site"].into_iter().enumerate() {
                if i > 0 {
                    punct(g, ',');
                }
                ident(g, a);
            }
        });
    });
}

/// `name:`, a field or a parameter.
fn field(out: &mut TokenStream2, name: &str) {
    ident(out, name);
    punct(out, ':');
}

/// `true` or `false`, as `quote!` writes a `bool`.
fn bool_ident(out: &mut TokenStream2, value: bool) {
    ident(out, if value { "true" } else { "false" });
}

/// `=>`, as `quote!` writes it.
pub(super) fn fat_arrow(out: &mut TokenStream2) {
    punct_joint(out, '=');
    punct(out, '>');
}

/// `::core::option::Option::None`.
pub(super) fn none(out: &mut TokenStream2) {
    root_path(out, &["core", "option", "Option", "None"]);
}

/// `::core::option::Option::Some(..)` around what `f` writes.
pub(super) fn some(out: &mut TokenStream2, f: impl FnOnce(&mut TokenStream2)) {
    root_path(out, &["core", "option", "Option", "Some"]);
    group(out, Delimiter::Parenthesis, f);
}

/// `-> ::core::result::Result<rt::dispatch::Registration, rt::dispatch::Error>`.
pub(super) fn registration_result(out: &mut TokenStream2, rt: &Frag) {
    punct_joint(out, '-');
    punct(out, '>');
    root_path(out, &["core", "result", "Result"]);
    punct(out, '<');
    rt_path(out, rt, &["dispatch", "Registration"]);
    punct(out, ',');
    rt_path(out, rt, &["dispatch", "Error"]);
    punct(out, '>');
}

/// `Registration::device`: `None`, or the recorded `device_check`/`device_guard`.
pub(crate) fn device_checks(rt: &Frag, device: Option<(bool, bool)>) -> TokenStream2 {
    let mut out = TokenStream2::new();
    write_device_checks(rt, device, &mut out);
    out
}

/// [`device_checks`], written to `out`.
fn write_device_checks(rt: &Frag, device: Option<(bool, bool)>, out: &mut TokenStream2) {
    match device {
        // `::core::option::Option::None`
        None => none(out),
        // `::core::option::Option::Some(rt::dispatch::DeviceChecks::DEFAULT)`
        Some((true, true)) => some(out, |g| {
            rt_path(g, rt, &["dispatch", "DeviceChecks", "DEFAULT"]);
        }),
        // `::core::option::Option::Some(rt::dispatch::DeviceChecks { check: .., guard: .. })`
        Some((check, guard)) => some(out, |g| {
            rt_path(g, rt, &["dispatch", "DeviceChecks"]);
            group(g, Delimiter::Brace, |g| {
                field(g, "check");
                bool_ident(g, check);
                punct(g, ',');
                field(g, "guard");
                bool_ident(g, guard);
            });
        }),
    }
}

/// A kernel that returns `()` for written-alias returns: the registered adapter calls it and
/// returns the written arguments (clones of their handles), as the schema says:
///
/// ```text
/// fn __opgen_kernel<G>(key_set: KS, a: A, ...) -> ::core::result::Result<RET, rt::dispatch::Error> {
///     match KERNEL(key_set, a, ...) {
///         ::core::result::Result::Ok(()) => ::core::result::Result::Ok(VALUE),
///         ::core::result::Result::Err(e) => ::core::result::Result::Err(::core::convert::Into::into(e)),
///     }
/// }
/// ```
///
/// or, for an infallible kernel, `fn __opgen_kernel<G>(..) -> RET { KERNEL(..); VALUE }`,
/// VALUE being `<T as ::core::clone::Clone>::clone(a)` or a tuple of them.
fn expand_alias_adapter(plan: &OpPlan<'_>, kernel: &Kernel, indices: &[usize]) -> TokenStream2 {
    let rt = &plan.rt;
    let tensor = &plan.tensor_tokens;
    let mut out = TokenStream2::new();
    let out = &mut out;
    let upper = plan
        .args
        .iter()
        .any(|a| a.ident.to_string().chars().any(|c| c.is_ascii_uppercase()));
    if upper {
        plan.attrs.snake.to_tokens(out);
    }
    ident(out, "fn");
    ident(out, "__opgen_kernel");
    kernel.sig.generics.to_tokens(out);
    // `(key_set: KS, a: A, ...)`
    group(out, Delimiter::Parenthesis, |g| {
        if let Some(p) = &kernel.key_set {
            field(g, "key_set");
            p.ty.to_tokens(g);
            punct(g, ',');
        }
        for (i, (a, p)) in plan.args.iter().zip(&kernel.params).enumerate() {
            if i > 0 {
                punct(g, ',');
            }
            a.ident.to_tokens(g);
            punct(g, ':');
            p.ty.to_tokens(g);
        }
    });
    punct_joint(out, '-');
    punct(out, '>');
    // `KERNEL(key_set, a, ...)`
    let call = |out: &mut TokenStream2| {
        kernel.ident().to_tokens(out);
        group(out, Delimiter::Parenthesis, |g| {
            if kernel.key_set.is_some() {
                ident(g, "key_set");
                punct(g, ',');
            }
            for (i, a) in plan.args.iter().enumerate() {
                if i > 0 {
                    punct(g, ',');
                }
                a.ident.to_tokens(g);
            }
        });
    };
    // `<T as ::core::clone::Clone>::clone(a)`, or a tuple of them.
    let value = |out: &mut TokenStream2| {
        let clone = |out: &mut TokenStream2, id: &syn::Ident| {
            punct(out, '<');
            tensor.to_tokens(out);
            ident(out, "as");
            root_path(out, &["core", "clone", "Clone"]);
            punct(out, '>');
            colon2(out);
            ident(out, "clone");
            group(out, Delimiter::Parenthesis, |g| id.to_tokens(g));
        };
        let mut written = indices.iter().filter_map(|&i| plan.args.get(i));
        match (written.next(), written.next()) {
            (Some(one), None) => clone(out, &one.ident),
            (first, second) => group(out, Delimiter::Parenthesis, |g| {
                for (i, a) in first.into_iter().chain(second).chain(written).enumerate() {
                    if i > 0 {
                        punct(g, ',');
                    }
                    clone(g, &a.ident);
                }
            }),
        }
    };
    if kernel.output.fallible {
        root_path(out, &["core", "result", "Result"]);
        punct(out, '<');
        plan.ret.to_tokens(out);
        punct(out, ',');
        rt_path(out, rt, &["dispatch", "Error"]);
        punct(out, '>');
        group(out, Delimiter::Brace, |body| {
            ident(body, "match");
            call(body);
            group(body, Delimiter::Brace, |arms| {
                // `::core::result::Result::Ok(()) => ::core::result::Result::Ok(VALUE),`
                root_path(arms, &["core", "result", "Result", "Ok"]);
                group(arms, Delimiter::Parenthesis, |g| {
                    group(g, Delimiter::Parenthesis, |_| {});
                });
                fat_arrow(arms);
                root_path(arms, &["core", "result", "Result", "Ok"]);
                group(arms, Delimiter::Parenthesis, value);
                punct(arms, ',');
                // `::core::result::Result::Err(e) =>
                // ::core::result::Result::Err(::core::convert::Into::into(e)),`
                root_path(arms, &["core", "result", "Result", "Err"]);
                group(arms, Delimiter::Parenthesis, |g| ident(g, "e"));
                fat_arrow(arms);
                root_path(arms, &["core", "result", "Result", "Err"]);
                group(arms, Delimiter::Parenthesis, |g| {
                    root_path(g, &["core", "convert", "Into", "into"]);
                    group(g, Delimiter::Parenthesis, |g| ident(g, "e"));
                });
                punct(arms, ',');
            });
        });
    } else {
        plan.ret.to_tokens(out);
        group(out, Delimiter::Brace, |body| {
            call(body);
            punct(body, ';');
            value(body);
        });
    }
    std::mem::take(out)
}

/// Types the signature check could not judge (aliases), compared by rustc on the user's
/// type, so that a mismatch is reported there:
///
/// ```text
/// #[allow(dead_code)]
/// fn __opgen_signature<G>() {
///     let _: ::core::marker::PhantomData<USER> = ::core::marker::PhantomData::<EXPECTED>;
///     ...
/// }
/// ```
///
/// each `let` at the user's type.
fn expand_assertions(
    plan: &OpPlan<'_>,
    kernel: &Kernel,
    assertions: &[Assertion],
) -> Option<TokenStream2> {
    if assertions.is_empty() {
        return None;
    }
    let mut out = TokenStream2::new();
    // `#[allow(dead_code)]`
    punct(&mut out, '#');
    group(&mut out, Delimiter::Bracket, |g| {
        ident(g, "allow");
        group(g, Delimiter::Parenthesis, |g| ident(g, "dead_code"));
    });
    ident(&mut out, "fn");
    ident(&mut out, "__opgen_signature");
    kernel.sig.generics.to_tokens(&mut out);
    group(&mut out, Delimiter::Parenthesis, |_| {});
    group(&mut out, Delimiter::Brace, |body| {
        for a in assertions {
            let user = &a.user;
            let at = At(user.span());
            at.ident(body, "let");
            at.ident(body, "_");
            at.punct(body, ':', Spacing::Alone);
            at.root_path(body, &["core", "marker", "PhantomData"]);
            at.punct(body, '<', Spacing::Alone);
            user.to_tokens(body);
            at.punct(body, '>', Spacing::Alone);
            at.punct(body, '=', Spacing::Alone);
            at.root_path(body, &["core", "marker", "PhantomData"]);
            at.colon2(body);
            at.punct(body, '<', Spacing::Alone);
            plan.ty(&a.expected, Lifetimes::Elided, body);
            at.punct(body, '>', Spacing::Alone);
            at.punct(body, ';', Spacing::Alone);
        }
    });
    Some(out)
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
