//! Structured kernels (docs/STRUCTURED.md): the meta function's expansion (the out
//! operator's API, the marker `Structured<Name>` implementing `StructuredOp`, the
//! precompute struct, the `Meta` kernel), an impl's (its registration, coerced to the
//! marker's impl type) and a delegate's (its API and the kernels registered at every key
//! with an impl, after all link-time registrations).
//!
//! The meta function's and the delegate's items are written straight into one stream, in
//! the style of `free_fn` (see `frag`): the same tokens, spacing and spans as `quote!` and
//! `quote_spanned!` would write.

use proc_macro2::{Delimiter, Group, Literal, Spacing, Span, TokenStream as TokenStream2};
use quote::{ToTokens, TokenStreamExt, format_ident, quote, quote_spanned};

use super::docs::{literal, string};
use super::frag::{
    At, colon2, doc_hidden, group, ident, lifetime, linkme_attrs, punct, punct_joint, root_path,
    rt_path,
};
use super::plan::{OpPlan, ident as make_ident};
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

/// `<Self as #rt::structured::StructuredOp>::item`.
fn self_as_op(plan: &OpPlan<'_>, out: &mut TokenStream2, item: &str) {
    punct(out, '<');
    ident(out, "Self");
    ident(out, "as");
    rt_path(out, &plan.rt, &["structured", "StructuredOp"]);
    punct(out, '>');
    colon2(out);
    ident(out, item);
}

/// `::core::result::Result<ok, #rt::dispatch::Error>`.
fn result_of(plan: &OpPlan<'_>, out: &mut TokenStream2, ok: impl FnOnce(&mut TokenStream2)) {
    root_path(out, &["core", "result", "Result"]);
    punct(out, '<');
    ok(out);
    punct(out, ',');
    rt_path(out, &plan.rt, &["dispatch", "Error"]);
    punct(out, '>');
}

/// What `f` writes for each item, comma separated.
fn commas<T>(
    out: &mut TokenStream2,
    items: impl IntoIterator<Item = T>,
    mut f: impl FnMut(&mut TokenStream2, T),
) {
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            punct(out, ',');
        }
        f(out, item);
    }
}

/// `ident: value,` (a field of a struct expression, and its comma).
fn field(out: &mut TokenStream2, name: &str, value: impl FnOnce(&mut TokenStream2)) {
    ident(out, name);
    punct(out, ':');
    value(out);
    punct(out, ',');
}

/// `::core::clone::Clone::clone(&*id)`.
fn clone_of(out: &mut TokenStream2, id: &syn::Ident) {
    root_path(out, &["core", "clone", "Clone", "clone"]);
    group(out, Delimiter::Parenthesis, |g| {
        punct(g, '&');
        punct(g, '*');
        id.to_tokens(g);
    });
}

/// The value of written arguments a kernel returns: `()`, one clone, or a tuple of clones.
fn returned_clones(out: &mut TokenStream2, ids: &[&syn::Ident]) {
    match ids {
        [one] => clone_of(out, one),
        many => group(out, Delimiter::Parenthesis, |g| {
            commas(g, many.iter(), |g, id| clone_of(g, id))
        }),
    }
}

/// `#[doc = lit]` of a `///` line in a `quote!` template: the literal is raw (`r" text"`).
fn doc_comment(out: &mut TokenStream2, repr: &str) {
    punct(out, '#');
    group(out, Delimiter::Bracket, |g| {
        ident(g, "doc");
        punct(g, '=');
        g.append(
            repr.parse::<Literal>()
                .unwrap_or_else(|_| Literal::string(repr)),
        );
    });
}

/// `file: ::core::file!(), line: ::core::line!(), site: ::core::panic::Location::caller(),`
/// with the two macros at the kernel's span.
fn file_line_site(out: &mut TokenStream2, kernel: &Kernel) {
    let at = At(kernel.ident().span());
    field(out, "file", |v| at.core_macro(v, "file"));
    field(out, "line", |v| at.core_macro(v, "line"));
    field(out, "site", |v| {
        root_path(v, &["core", "panic", "Location", "caller"]);
        group(v, Delimiter::Parenthesis, |_| {});
    });
}

/// The operator's API, as for any operator defined by the attribute.
fn expand_api(plan: &OpPlan<'_>, checked: &Checked<'_>, out: &mut TokenStream2) {
    free_fn::expand_args_struct(plan, out);
    if plan.function {
        free_fn::expand_free_fns(plan, out);
    }
    method::expand_methods(plan, &checked.input.methods, out);
    redispatch::expand_redispatch(plan, out);
    redispatch::expand_handle(plan, out);
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

/// A `def` without kernels in the link-time list; `register` writes the `register` closure.
fn expand_def(
    plan: &OpPlan<'_>,
    kernel: &Kernel,
    keys: &[DispatchKey],
    register: impl FnOnce(&mut TokenStream2),
    out: &mut TokenStream2,
) {
    // #[#rt::__private::linkme::distributed_slice(#rt::__private::REGISTRATIONS)]
    // #[linkme(crate = #rt::__private::linkme)]
    // static __OPGEN_REGISTRATION: #rt::__private::Registration = #rt::__private::Registration {
    //     namespace: "aten",
    //     schema: ::core::option::Option::Some("add.out(...) -> ..."),
    //     name: "add.out",
    //     keys: &[#rt::dispatch::DispatchKey::Meta],
    //     file: ::core::file!(),   // at the kernel
    //     line: ::core::line!(),   // at the kernel
    //     site: ::core::panic::Location::caller(),
    //     register: #register,
    //     variants: ::core::option::Option::Some(#rt::native::Variants { function: true, method: false }),
    //     device: #device,
    //     backend_select: ::core::option::Option::None,
    // };
    linkme_attrs(out, &plan.rt, "REGISTRATIONS");
    ident(out, "static");
    ident(out, "__OPGEN_REGISTRATION");
    punct(out, ':');
    rt_path(out, &plan.rt, &["__private", "Registration"]);
    punct(out, '=');
    rt_path(out, &plan.rt, &["__private", "Registration"]);
    group(out, Delimiter::Brace, |s| {
        field(s, "namespace", |v| v.append(string(plan.namespace)));
        field(s, "schema", |v| {
            root_path(v, &["core", "option", "Option", "Some"]);
            group(v, Delimiter::Parenthesis, |g| g.append(string(&plan.text)));
        });
        field(s, "name", |v| v.append(string(&plan.full_name)));
        field(s, "keys", |v| {
            punct(v, '&');
            group(v, Delimiter::Bracket, |g| {
                commas(g, keys, |g, k| {
                    rt_path(g, &plan.rt, &["dispatch", "DispatchKey", k.name()]);
                });
            });
        });
        file_line_site(s, kernel);
        field(s, "register", register);
        field(s, "variants", |v| {
            root_path(v, &["core", "option", "Option", "Some"]);
            group(v, Delimiter::Parenthesis, |g| {
                rt_path(g, &plan.rt, &["native", "Variants"]);
                group(g, Delimiter::Brace, |b| {
                    ident(b, "function");
                    punct(b, ':');
                    plan.variants.function.to_tokens(b);
                    punct(b, ',');
                    ident(b, "method");
                    punct(b, ':');
                    plan.variants.method.to_tokens(b);
                });
            });
        });
        field(s, "device", |v| {
            v.extend(super::register::device_checks(
                &plan.rt,
                Some((plan.device_check, plan.device_guard)),
            ));
        });
        field(s, "backend_select", |v| {
            root_path(v, &["core", "option", "Option", "None"]);
        });
    });
    punct(out, ';');
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
fn pass_twice(out: &mut TokenStream2, ty: &RustType, id: &syn::Ident) {
    let clone = |out: &mut TokenStream2| {
        // `::core::clone::Clone::clone(&id)`
        root_path(out, &["core", "clone", "Clone", "clone"]);
        group(out, Delimiter::Parenthesis, |g| {
            punct(g, '&');
            id.to_tokens(g);
        });
    };
    match ty {
        RustType::Ref(_) | RustType::Str => id.to_tokens(out),
        RustType::Mut(_) => {
            // `&mut *id`
            punct(out, '&');
            ident(out, "mut");
            punct(out, '*');
            id.to_tokens(out);
        }
        RustType::Option(inner) => match inner.as_ref() {
            RustType::Ref(_) | RustType::Str => id.to_tokens(out),
            RustType::Mut(_) => {
                // `id.as_deref_mut()`
                id.to_tokens(out);
                punct(out, '.');
                ident(out, "as_deref_mut");
                group(out, Delimiter::Parenthesis, |_| {});
            }
            _ => clone(out),
        },
        _ => clone(out),
    }
}

/// The meta function of a structured out operator: the kernel unchanged, the operator's
/// API, the marker and its `StructuredOp` impl, the precompute struct, and the `def` with
/// the `Meta` kernel.
pub(crate) fn expand_meta(checked: &Checked<'_>, def: &Definition) -> TokenStream2 {
    let input = checked.input;
    let f = &def.function;
    let mut plan = OpPlan::without_facts(checked, def);
    let meta_fn = input.kernel.ident();
    plan.facts = super::docs::attr(facts(
        &plan,
        format!(
            "Structured: the meta function is `{meta_fn}`; kernels at the keys of its impls \
             (`op = \"{}\", structured`) and at `Meta`.",
            plan.full_name
        ),
    ));
    let vis = plan.vis;
    let marker = make_ident(&structured_marker_name(&f.func.name));
    let out_start = f.func.out_start();
    let (inputs, outs) = plan.args.split_at(out_start);
    let base: syn::Type = f
        .structured_inherits
        .as_deref()
        .and_then(|b| syn::parse_str(b).ok())
        .unwrap_or_else(|| syn::parse_quote!(()));
    let has_base = f.structured_inherits.is_some();
    // The impl's parameters: the inputs with precomputed replacements, the extra values,
    // the outputs; their types (`impl_types`) and what `__run` passes (`impl_args`), comma
    // separated.
    let pre_name = precompute_struct_name(&f.func.name);
    let pre_ident = make_ident(&pre_name);
    let mut fields = Vec::new(); // (field, local, type)
    let mut impl_types = TokenStream2::new();
    let mut impl_args = TokenStream2::new();
    let mut first = true;
    let mut next = |types: &mut TokenStream2, args: &mut TokenStream2| {
        if !std::mem::take(&mut first) {
            punct(types, ',');
            punct(args, ',');
        }
    };
    if has_base {
        // `&Base` / `&__opgen_base`
        next(&mut impl_types, &mut impl_args);
        punct(&mut impl_types, '&');
        base.to_tokens(&mut impl_types);
        punct(&mut impl_args, '&');
        ident(&mut impl_args, "__opgen_base");
    }
    let mut push_decl = |decl: &Argument, types: &mut TokenStream2, args: &mut TokenStream2| {
        // Schema names need not be identifiers (torchgen does not check them): both
        // names go through the identifier rule (`reduc@d` → `reduc_d`).
        let name = rust_ident(&decl.name);
        let field = make_ident(&name);
        let local = format_ident!("__opgen_pre_{}", name.trim_start_matches("r#"));
        let (ty, pass) = precomputed_field(decl, &plan, &local);
        plan.ty(
            &argument_type(&decl.ty, false).unwrap_or(RustType::Tuple(Vec::new())),
            Lifetimes::Elided,
            types,
        );
        args.extend(pass);
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
                    next(&mut impl_types, &mut impl_args);
                    push_decl(d, &mut impl_types, &mut impl_args);
                }
            }
            None => {
                next(&mut impl_types, &mut impl_args);
                plan.ty(&a.ty, Lifetimes::Elided, &mut impl_types);
                a.ident.to_tokens(&mut impl_args);
            }
        }
    }
    if let Some(p) = &f.precomputed {
        for d in &p.add {
            next(&mut impl_types, &mut impl_args);
            push_decl(d, &mut impl_types, &mut impl_args);
        }
    }
    let out_locals: Vec<syn::Ident> = (0..outs.len())
        .map(|i| format_ident!("__opgen_out{i}"))
        .collect();
    for (o, local) in outs.iter().zip(&out_locals) {
        // `&mut T` / `&mut __opgen_outN`
        next(&mut impl_types, &mut impl_args);
        plan.ty(&o.ty, Lifetimes::Elided, &mut impl_types);
        punct(&mut impl_args, '&');
        ident(&mut impl_args, "mut");
        local.to_tokens(&mut impl_args);
    }
    // `(&Base, &T, &mut T)`: the impl's parameter types, shared by `Impl` and
    // `ImplSignature`.
    let impl_params = Group::new(Delimiter::Parenthesis, impl_types);
    let n = Literal::usize_unsuffixed(outs.len());
    let out_ids: Vec<&syn::Ident> = outs.iter().map(|o| &o.ident).collect();
    let at_meta = At(meta_fn.span());

    // The kernel unchanged, then the API.
    let mut out = input.kernel.tokens.clone();
    expand_api(&plan, checked, &mut out);

    // #[doc = "The structured operator ..."]
    // vis struct StructuredAddOut;
    super::docs::attr(literal(&[format!(
        "The structured operator `{}`: its meta function is `{meta_fn}`; impls \
             (`#[native_function(op = \"{}\", structured, dispatch = \"CPU\")]`) and delegates \
             (`structured_delegate = \"{}\"`) name it.",
        plan.full_name, plan.full_name, plan.full_name
    )]))
    .to_tokens(&mut out);
    vis.to_tokens(&mut out);
    ident(&mut out, "struct");
    marker.to_tokens(&mut out);
    punct(&mut out, ';');

    // #[automatically_derived]
    // impl #rt::structured::StructuredOp for StructuredAddOut { ... }
    punct(&mut out, '#');
    group(&mut out, Delimiter::Bracket, |g| {
        ident(g, "automatically_derived")
    });
    ident(&mut out, "impl");
    rt_path(&mut out, &plan.rt, &["structured", "StructuredOp"]);
    ident(&mut out, "for");
    marker.to_tokens(&mut out);
    group(&mut out, Delimiter::Brace, |body| {
        // type Tensor = T;
        // type Base = Base;
        // type Impl = fn(...) -> ::core::result::Result<(), #rt::dispatch::Error>;
        // type ImplSignature<R> = fn(...) -> R;
        ident(body, "type");
        ident(body, "Tensor");
        punct(body, '=');
        plan.tensor_tokens.to_tokens(body);
        punct(body, ';');
        ident(body, "type");
        ident(body, "Base");
        punct(body, '=');
        base.to_tokens(body);
        punct(body, ';');
        ident(body, "type");
        ident(body, "Impl");
        punct(body, '=');
        ident(body, "fn");
        body.append(impl_params.clone());
        punct_joint(body, '-');
        punct(body, '>');
        result_of(&plan, body, |t| group(t, Delimiter::Parenthesis, |_| {}));
        punct(body, ';');
        ident(body, "type");
        ident(body, "ImplSignature");
        punct(body, '<');
        ident(body, "R");
        punct(body, '>');
        punct(body, '=');
        ident(body, "fn");
        body.append(impl_params);
        punct_joint(body, '-');
        punct(body, '>');
        ident(body, "R");
        punct(body, ';');
        // const OPERATOR: &'static str = "aten::add.out";
        // const OUTPUTS: &'static [&'static str] = &["out"];
        ident(body, "const");
        ident(body, "OPERATOR");
        punct(body, ':');
        punct(body, '&');
        lifetime(body, "static");
        ident(body, "str");
        punct(body, '=');
        body.append(string(&format!("{}::{}", plan.namespace, plan.full_name)));
        punct(body, ';');
        ident(body, "const");
        ident(body, "OUTPUTS");
        punct(body, ':');
        punct(body, '&');
        lifetime(body, "static");
        group(body, Delimiter::Bracket, |g| {
            punct(g, '&');
            lifetime(g, "static");
            ident(g, "str");
        });
        punct(body, '=');
        punct(body, '&');
        group(body, Delimiter::Bracket, |g| {
            commas(g, outs, |g, o| {
                g.append(string(o.text.rsplit(' ').next().unwrap_or("")));
            });
        });
        punct(body, ';');
        // fn register_out(
        //     lib: &#rt::dispatch::Library,
        //     key: #rt::dispatch::DispatchKey,
        //     imp: ::core::option::Option<Self::Impl>,
        //     site: #rt::dispatch::Site,
        // ) -> ::core::result::Result<#rt::dispatch::Registration, #rt::dispatch::Error> {
        ident(body, "fn");
        ident(body, "register_out");
        group(body, Delimiter::Parenthesis, |p| {
            field(p, "lib", |t| {
                punct(t, '&');
                rt_path(t, &plan.rt, &["dispatch", "Library"]);
            });
            field(p, "key", |t| {
                rt_path(t, &plan.rt, &["dispatch", "DispatchKey"])
            });
            field(p, "imp", |t| {
                root_path(t, &["core", "option", "Option"]);
                punct(t, '<');
                ident(t, "Self");
                colon2(t);
                ident(t, "Impl");
                punct(t, '>');
            });
            field(p, "site", |t| rt_path(t, &plan.rt, &["dispatch", "Site"]));
        });
        punct_joint(body, '-');
        punct(body, '>');
        result_of(&plan, body, |t| {
            rt_path(t, &plan.rt, &["dispatch", "Registration"])
        });
        group(body, Delimiter::Brace, |body| {
            // #rt::structured::register_structured_out::<Self, _>(
            //     lib,
            //     key,
            //     move |a: &T, out: &mut T| -> ::core::result::Result<ret, #rt::dispatch::Error> {
            //         #device
            //         let [__opgen_out0] = Self::__run(
            //             #rt::structured::Mode::Out, key, imp, ::std::vec![clone(&*out)], a
            //         )?;
            //         *out = __opgen_out0;
            //         ::core::result::Result::Ok(clone(&*out))
            //     },
            //     imp,
            //     site,
            // )
            rt_path(body, &plan.rt, &["structured", "register_structured_out"]);
            colon2(body);
            punct(body, '<');
            ident(body, "Self");
            punct(body, ',');
            ident(body, "_");
            punct(body, '>');
            group(body, Delimiter::Parenthesis, |a| {
                ident(a, "lib");
                punct(a, ',');
                ident(a, "key");
                punct(a, ',');
                ident(a, "move");
                punct(a, '|');
                commas(a, &plan.decls, |a, d| d.to_tokens(a));
                punct(a, '|');
                punct_joint(a, '-');
                punct(a, '>');
                plan.result.to_tokens(a);
                group(a, Delimiter::Brace, |k| {
                    k.extend(super::device::structured_device_prelude(
                        &plan,
                        &format!("structured {}", plan.full_name),
                    ));
                    ident(k, "let");
                    group(k, Delimiter::Bracket, |g| {
                        commas(g, &out_locals, |g, l| l.to_tokens(g))
                    });
                    punct(k, '=');
                    ident(k, "Self");
                    colon2(k);
                    ident(k, "__run");
                    group(k, Delimiter::Parenthesis, |c| {
                        rt_path(c, &plan.rt, &["structured", "Mode", "Out"]);
                        punct(c, ',');
                        ident(c, "key");
                        punct(c, ',');
                        ident(c, "imp");
                        punct(c, ',');
                        root_path(c, &["std", "vec"]);
                        punct(c, '!');
                        group(c, Delimiter::Bracket, |g| {
                            commas(g, &out_ids, |g, o| clone_of(g, o))
                        });
                        punct(c, ',');
                        commas(c, inputs, |c, a| a.ident.to_tokens(c));
                    });
                    punct(k, '?');
                    punct(k, ';');
                    for (o, l) in out_ids.iter().zip(&out_locals) {
                        punct(k, '*');
                        o.to_tokens(k);
                        punct(k, '=');
                        l.to_tokens(k);
                        punct(k, ';');
                    }
                    root_path(k, &["core", "result", "Result", "Ok"]);
                    group(k, Delimiter::Parenthesis, |g| {
                        let returned = out_ids.len().min(plan.schema.returns.len());
                        returned_clones(g, &out_ids[..returned]);
                    });
                });
                punct(a, ',');
                ident(a, "imp");
                punct(a, ',');
                ident(a, "site");
                punct(a, ',');
            });
        });
    });

    // impl StructuredAddOut { fn __run(...) fn __run_composite(...) }
    ident(&mut out, "impl");
    marker.to_tokens(&mut out);
    group(&mut out, Delimiter::Brace, |body| {
        // `mode: #rt::structured::Mode, key: #rt::dispatch::DispatchKey,`
        let mode_key = |p: &mut TokenStream2| {
            field(p, "mode", |t| rt_path(t, &plan.rt, &["structured", "Mode"]));
            field(p, "key", |t| {
                rt_path(t, &plan.rt, &["dispatch", "DispatchKey"])
            });
        };
        // `given: ::std::vec::Vec<T>, a: &T, ...`
        let given_inputs = |p: &mut TokenStream2| {
            field(p, "given", |t| {
                root_path(t, &["std", "vec", "Vec"]);
                punct(t, '<');
                plan.tensor_tokens.to_tokens(t);
                punct(t, '>');
            });
            commas(p, &plan.decls[..out_start], |p, d| d.to_tokens(p));
        };
        // `-> ::core::result::Result<[T; N], #rt::dispatch::Error>`
        let returns = |t: &mut TokenStream2| {
            punct_joint(t, '-');
            punct(t, '>');
            result_of(&plan, t, |t| {
                group(t, Delimiter::Bracket, |g| {
                    plan.tensor_tokens.to_tokens(g);
                    punct(g, ';');
                    g.append(n.clone());
                });
            });
        };
        // `let [mut __opgen_out0, ...] =`
        let let_outs = |t: &mut TokenStream2| {
            ident(t, "let");
            group(t, Delimiter::Bracket, |g| {
                commas(g, &out_locals, |g, l| {
                    ident(g, "mut");
                    l.to_tokens(g);
                })
            });
            punct(t, '=');
        };
        // `::core::result::Result::Ok([__opgen_out0, ...])`
        let ok_outs = |t: &mut TokenStream2| {
            root_path(t, &["core", "result", "Result", "Ok"]);
            group(t, Delimiter::Parenthesis, |g| {
                group(g, Delimiter::Bracket, |g| {
                    commas(g, &out_locals, |g, l| l.to_tokens(g))
                });
            });
        };
        // `(a, b, ...)`: the meta function's arguments after the meta.
        let meta_args = |t: &mut TokenStream2| {
            commas(t, inputs, |t, a| pass_twice(t, &a.ty, &a.ident));
        };

        // /// Runs the meta function in `mode`, then the impl (if any) into the outputs.
        // #[doc(hidden)]
        // #[allow(clippy::too_many_arguments, non_snake_case)]
        // vis fn __run(
        //     mode: #rt::structured::Mode,
        //     key: #rt::dispatch::DispatchKey,
        //     imp: ::core::option::Option<<Self as #rt::structured::StructuredOp>::Impl>,
        //     given: ::std::vec::Vec<T>,
        //     a: &T, ...
        // ) -> ::core::result::Result<[T; N], #rt::dispatch::Error> {
        doc_comment(
            body,
            "r\" Runs the meta function in `mode`, then the impl (if any) into the outputs.\"",
        );
        doc_hidden(body);
        punct(body, '#');
        group(body, Delimiter::Bracket, |g| {
            ident(g, "allow");
            group(g, Delimiter::Parenthesis, |g| {
                ident(g, "clippy");
                colon2(g);
                ident(g, "too_many_arguments");
                punct(g, ',');
                ident(g, "non_snake_case");
            });
        });
        vis.to_tokens(body);
        ident(body, "fn");
        ident(body, "__run");
        group(body, Delimiter::Parenthesis, |p| {
            mode_key(p);
            field(p, "imp", |t| {
                root_path(t, &["core", "option", "Option"]);
                punct_joint(t, '<');
                self_as_op(&plan, t, "Impl");
                punct(t, '>');
            });
            given_inputs(p);
        });
        returns(body);
        group(body, Delimiter::Brace, |b| {
            // let mut __opgen_meta = #rt::structured::StructuredMeta::<T, Base>::new(
            //     <Self as #rt::structured::StructuredOp>::OPERATOR,
            //     key,
            //     mode,
            //     <Self as #rt::structured::StructuredOp>::OUTPUTS,
            //     given,
            // )?;
            ident(b, "let");
            ident(b, "mut");
            ident(b, "__opgen_meta");
            punct(b, '=');
            rt_path(b, &plan.rt, &["structured", "StructuredMeta"]);
            colon2(b);
            punct(b, '<');
            plan.tensor_tokens.to_tokens(b);
            punct(b, ',');
            base.to_tokens(b);
            punct(b, '>');
            colon2(b);
            ident(b, "new");
            group(b, Delimiter::Parenthesis, |c| {
                self_as_op(&plan, c, "OPERATOR");
                punct(c, ',');
                ident(c, "key");
                punct(c, ',');
                ident(c, "mode");
                punct(c, ',');
                self_as_op(&plan, c, "OUTPUTS");
                punct(c, ',');
                ident(c, "given");
                punct(c, ',');
            });
            punct(b, '?');
            punct(b, ';');
            // let __opgen_pre = meta_fn(&mut __opgen_meta, a, ...);   // at the meta function
            // (fallible: `match meta_fn(...) { Ok(v) => v, Err(e) => return Err(Into::into(e)), }`)
            ident(b, "let");
            ident(b, "__opgen_pre");
            punct(b, '=');
            let meta_call = |t: &mut TokenStream2| {
                meta_fn.to_tokens(t);
                at_meta.group(t, Delimiter::Parenthesis, |c| {
                    at_meta.punct(c, '&', Spacing::Alone);
                    at_meta.ident(c, "mut");
                    at_meta.ident(c, "__opgen_meta");
                    at_meta.punct(c, ',', Spacing::Alone);
                    for (i, a) in inputs.iter().enumerate() {
                        if i > 0 {
                            at_meta.punct(c, ',', Spacing::Alone);
                        }
                        pass_twice(c, &a.ty, &a.ident);
                    }
                });
            };
            if input.kernel.output.fallible {
                ident(b, "match");
                meta_call(b);
                group(b, Delimiter::Brace, |m| {
                    root_path(m, &["core", "result", "Result", "Ok"]);
                    group(m, Delimiter::Parenthesis, |g| ident(g, "v"));
                    punct_joint(m, '=');
                    punct(m, '>');
                    ident(m, "v");
                    punct(m, ',');
                    root_path(m, &["core", "result", "Result", "Err"]);
                    group(m, Delimiter::Parenthesis, |g| ident(g, "e"));
                    punct_joint(m, '=');
                    punct(m, '>');
                    ident(m, "return");
                    root_path(m, &["core", "result", "Result", "Err"]);
                    group(m, Delimiter::Parenthesis, |g| {
                        root_path(g, &["core", "convert", "Into", "into"]);
                        group(g, Delimiter::Parenthesis, |g| ident(g, "e"));
                    });
                    punct(m, ',');
                });
            } else {
                meta_call(b);
            }
            punct(b, ';');
            // let (__opgen_base, __opgen_outs) = __opgen_meta.finish()?;
            ident(b, "let");
            group(b, Delimiter::Parenthesis, |g| {
                ident(g, "__opgen_base");
                punct(g, ',');
                ident(g, "__opgen_outs");
            });
            punct(b, '=');
            ident(b, "__opgen_meta");
            punct(b, '.');
            ident(b, "finish");
            group(b, Delimiter::Parenthesis, |_| {});
            punct(b, '?');
            punct(b, ';');
            // let [mut __opgen_out0] = #rt::structured::outputs_array::<T, N>(
            //     <Self as #rt::structured::StructuredOp>::OPERATOR, key, __opgen_outs,
            // )?;
            let_outs(b);
            rt_path(b, &plan.rt, &["structured", "outputs_array"]);
            colon2(b);
            punct(b, '<');
            plan.tensor_tokens.to_tokens(b);
            punct(b, ',');
            b.append(n.clone());
            punct(b, '>');
            group(b, Delimiter::Parenthesis, |c| {
                self_as_op(&plan, c, "OPERATOR");
                punct(c, ',');
                ident(c, "key");
                punct(c, ',');
                ident(c, "__opgen_outs");
                punct(c, ',');
            });
            punct(b, '?');
            punct(b, ';');
            // match imp {
            //     ::core::option::Option::Some(__opgen_impl) => {
            //         let AddOutPrecompute { field: __opgen_pre_field, ... } = __opgen_pre;
            //         __opgen_impl(&__opgen_base, a, &mut __opgen_out0)?;
            //     }
            //     ::core::option::Option::None => {
            //         let _ = __opgen_pre;    // `let () = __opgen_pre;` without precompute
            //         let _ = __opgen_base;
            //     }
            // }
            ident(b, "match");
            ident(b, "imp");
            group(b, Delimiter::Brace, |m| {
                root_path(m, &["core", "option", "Option", "Some"]);
                group(m, Delimiter::Parenthesis, |g| ident(g, "__opgen_impl"));
                punct_joint(m, '=');
                punct(m, '>');
                group(m, Delimiter::Brace, |s| {
                    if f.precomputed.is_some() {
                        ident(s, "let");
                        pre_ident.to_tokens(s);
                        group(s, Delimiter::Brace, |g| {
                            commas(g, &fields, |g, (field, local, _)| {
                                field.to_tokens(g);
                                punct(g, ':');
                                local.to_tokens(g);
                            });
                        });
                        punct(s, '=');
                        ident(s, "__opgen_pre");
                        punct(s, ';');
                    }
                    ident(s, "__opgen_impl");
                    s.append(Group::new(Delimiter::Parenthesis, impl_args));
                    punct(s, '?');
                    punct(s, ';');
                });
                root_path(m, &["core", "option", "Option", "None"]);
                punct_joint(m, '=');
                punct(m, '>');
                group(m, Delimiter::Brace, |s| {
                    ident(s, "let");
                    if f.precomputed.is_some() {
                        ident(s, "_");
                    } else {
                        group(s, Delimiter::Parenthesis, |_| {});
                    }
                    punct(s, '=');
                    ident(s, "__opgen_pre");
                    punct(s, ';');
                    ident(s, "let");
                    ident(s, "_");
                    punct(s, '=');
                    ident(s, "__opgen_base");
                    punct(s, ';');
                });
            });
            ok_outs(b);
        });

        // /// Runs the meta function in `mode`, then the out operator through the
        // /// dispatcher into the outputs (`composite_from_out` delegates).
        // #[doc(hidden)]
        // #[allow(clippy::too_many_arguments, non_snake_case, dead_code)]
        // vis fn __run_composite(
        //     mode: #rt::structured::Mode,
        //     key: #rt::dispatch::DispatchKey,
        //     given: ::std::vec::Vec<T>,
        //     a: &T, ...
        // ) -> ::core::result::Result<[T; N], #rt::dispatch::Error> {
        //     let [mut __opgen_out0] = Self::__run(mode, key, ::core::option::Option::None, given, a)?;
        //     let _ = call_fn(a, &mut __opgen_out0)?;
        //     ::core::result::Result::Ok([__opgen_out0])
        // }
        doc_comment(
            body,
            "r\" Runs the meta function in `mode`, then the out operator through the\"",
        );
        doc_comment(
            body,
            "r\" dispatcher into the outputs (`composite_from_out` delegates).\"",
        );
        doc_hidden(body);
        punct(body, '#');
        group(body, Delimiter::Bracket, |g| {
            ident(g, "allow");
            group(g, Delimiter::Parenthesis, |g| {
                ident(g, "clippy");
                colon2(g);
                ident(g, "too_many_arguments");
                punct(g, ',');
                ident(g, "non_snake_case");
                punct(g, ',');
                ident(g, "dead_code");
            });
        });
        vis.to_tokens(body);
        ident(body, "fn");
        ident(body, "__run_composite");
        group(body, Delimiter::Parenthesis, |p| {
            mode_key(p);
            given_inputs(p);
        });
        returns(body);
        group(body, Delimiter::Brace, |b| {
            let_outs(b);
            ident(b, "Self");
            colon2(b);
            ident(b, "__run");
            group(b, Delimiter::Parenthesis, |c| {
                ident(c, "mode");
                punct(c, ',');
                ident(c, "key");
                punct(c, ',');
                root_path(c, &["core", "option", "Option", "None"]);
                punct(c, ',');
                ident(c, "given");
                punct(c, ',');
                meta_args(c);
            });
            punct(b, '?');
            punct(b, ';');
            ident(b, "let");
            ident(b, "_");
            punct(b, '=');
            plan.call_fn.to_tokens(b);
            group(b, Delimiter::Parenthesis, |c| {
                for a in inputs {
                    a.ident.to_tokens(c);
                    punct(c, ',');
                }
                commas(c, &out_locals, |c, l| {
                    punct(c, '&');
                    ident(c, "mut");
                    l.to_tokens(c);
                });
            });
            punct(b, '?');
            punct(b, ';');
            ok_outs(b);
        });
    });

    // The precompute struct:
    // #[doc = "The values the meta function ..."]
    // #[allow(dead_code)]
    // vis struct AddOutPrecompute { pub field: Type, ... }
    if let Some(p) = &f.precomputed {
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
        super::docs::attr(literal(&[
            format!(
                "The values the meta function `{meta_fn}` of `{}` computes for its impls: {}.",
                plan.full_name,
                lines.join("; ")
            ),
            String::new(),
            "The meta function returns it, so a value it forgets does not compile.".to_string(),
        ]))
        .to_tokens(&mut out);
        punct(&mut out, '#');
        group(&mut out, Delimiter::Bracket, |g| {
            ident(g, "allow");
            group(g, Delimiter::Parenthesis, |g| ident(g, "dead_code"));
        });
        vis.to_tokens(&mut out);
        ident(&mut out, "struct");
        pre_ident.to_tokens(&mut out);
        group(&mut out, Delimiter::Brace, |g| {
            commas(g, fields, |g, (field, _, ty)| {
                ident(g, "pub");
                field.to_tokens(g);
                punct(g, ':');
                g.extend(ty);
            });
        });
    }

    // #[doc(hidden)]
    // const _: () = {
    //     let _ = #rt::__private::VERSION_0_1_0;
    //     #def    // at `Meta`, registering through the marker
    // };
    doc_hidden(&mut out);
    ident(&mut out, "const");
    ident(&mut out, "_");
    punct(&mut out, ':');
    group(&mut out, Delimiter::Parenthesis, |_| {});
    punct(&mut out, '=');
    group(&mut out, Delimiter::Brace, |c| {
        ident(c, "let");
        ident(c, "_");
        punct(c, '=');
        rt_path(c, &plan.rt, &["__private", "VERSION_0_1_0"]);
        punct(c, ';');
        // register: |lib, key, site| <Marker as #rt::structured::StructuredOp>::register_out(
        //     lib, key, ::core::option::Option::None, site)
        expand_def(
            &plan,
            &input.kernel,
            &[DispatchKey::Meta],
            |r| {
                punct(r, '|');
                ident(r, "lib");
                punct(r, ',');
                ident(r, "key");
                punct(r, ',');
                ident(r, "site");
                punct(r, '|');
                punct(r, '<');
                marker.to_tokens(r);
                ident(r, "as");
                rt_path(r, &plan.rt, &["structured", "StructuredOp"]);
                punct(r, '>');
                colon2(r);
                ident(r, "register_out");
                group(r, Delimiter::Parenthesis, |a| {
                    ident(a, "lib");
                    punct(a, ',');
                    ident(a, "key");
                    punct(a, ',');
                    root_path(a, &["core", "option", "Option", "None"]);
                    punct(a, ',');
                    ident(a, "site");
                });
            },
            c,
        );
    });
    punct(&mut out, ';');
    out
}

/// A structured delegate: its API, its `def`, and a deferred registration of its kernels
/// at every key where the out operator has an impl (and `Meta`).
pub(crate) fn expand_delegate(checked: &Checked<'_>, def: &Definition) -> TokenStream2 {
    let input = checked.input;
    let f = &def.function;
    let mut plan = OpPlan::without_facts(checked, def);
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
    let lit_span = At(input
        .options
        .structured_delegate
        .as_ref()
        .map_or_else(Span::call_site, |l| l.span()));
    let written: Vec<&syn::Ident> = plan
        .schema
        .arguments
        .iter()
        .zip(&plan.args)
        .filter(|(a, _)| a.is_write())
        .map(|(_, p)| &p.ident)
        .collect();
    let inplace = !written.is_empty();
    let n = if inplace {
        written.len()
    } else {
        plan.schema.returns.len()
    };
    let locals: Vec<syn::Ident> = (0..n).map(|i| format_ident!("__opgen_out{i}")).collect();
    let name = string(&plan.full_name);
    // A kernel:
    // move |a: &T, ...| -> ::core::result::Result<ret, #rt::dispatch::Error> {
    //     #device
    //     let [__opgen_out0] = callee(
    //         #rt::structured::Mode::InPlace, leading ::std::vec![clone(&*a)], &*a, ...
    //     )?;                    // `Functional`, `::std::vec::Vec::new()` when not in place
    //     *a = __opgen_out0;     // in place
    //     ::core::result::Result::Ok(clone(&*a))   // `Ok(__opgen_out0)` when not in place
    // }
    let kernel_body = |out: &mut TokenStream2,
                       callee: &str,
                       leading: &dyn Fn(&mut TokenStream2),
                       device: TokenStream2| {
        ident(out, "move");
        punct(out, '|');
        commas(out, &plan.decls, |o, d| d.to_tokens(o));
        punct(out, '|');
        punct_joint(out, '-');
        punct(out, '>');
        plan.result.to_tokens(out);
        group(out, Delimiter::Brace, |k| {
            k.extend(device);
            ident(k, "let");
            group(k, Delimiter::Bracket, |g| {
                commas(g, &locals, |g, l| l.to_tokens(g))
            });
            punct(k, '=');
            marker.to_tokens(k);
            colon2(k);
            ident(k, callee);
            group(k, Delimiter::Parenthesis, |c| {
                rt_path(
                    c,
                    &plan.rt,
                    &[
                        "structured",
                        "Mode",
                        if inplace { "InPlace" } else { "Functional" },
                    ],
                );
                punct(c, ',');
                leading(c);
                if inplace {
                    root_path(c, &["std", "vec"]);
                    punct(c, '!');
                    group(c, Delimiter::Bracket, |g| {
                        commas(g, &written, |g, w| clone_of(g, w))
                    });
                } else {
                    root_path(c, &["std", "vec", "Vec", "new"]);
                    group(c, Delimiter::Parenthesis, |_| {});
                }
                punct(c, ',');
                commas(c, &plan.args, |c, a| {
                    if written.contains(&&a.ident) {
                        punct(c, '&');
                        punct(c, '*');
                    }
                    a.ident.to_tokens(c);
                });
            });
            punct(k, '?');
            punct(k, ';');
            if inplace {
                for (w, l) in written.iter().zip(&locals) {
                    punct(k, '*');
                    w.to_tokens(k);
                    punct(k, '=');
                    l.to_tokens(k);
                    punct(k, ';');
                }
            }
            root_path(k, &["core", "result", "Result", "Ok"]);
            group(k, Delimiter::Parenthesis, |g| {
                if inplace {
                    let returned = written.len().min(plan.schema.returns.len());
                    returned_clones(g, &written[..returned]);
                } else {
                    match locals.as_slice() {
                        [one] => one.to_tokens(g),
                        many => group(g, Delimiter::Parenthesis, |g| {
                            commas(g, many, |g, l| l.to_tokens(g))
                        }),
                    }
                }
            });
        });
    };
    // A body-less item is consumed by the last attribute on it: one stacked above another
    // re-emits it for the next.
    let stacked = input.kernel.attrs.iter().any(|a| {
        a.path()
            .segments
            .last()
            .is_some_and(|s| s.ident == "native_function")
    });

    // The kernel (unless consumed), then the API.
    let mut out = if !input.kernel.bodyless || stacked {
        input.kernel.tokens.clone()
    } else {
        TokenStream2::new()
    };
    expand_api(&plan, checked, &mut out);

    // #[doc(hidden)]
    // const _: () = { ... };
    doc_hidden(&mut out);
    ident(&mut out, "const");
    ident(&mut out, "_");
    punct(&mut out, ':');
    group(&mut out, Delimiter::Parenthesis, |_| {});
    punct(&mut out, '=');
    group(&mut out, Delimiter::Brace, |c| {
        // let _ = #rt::__private::VERSION_0_1_0;
        // const _: () = #rt::__private::assert_structured::<Marker>();   // at the literal
        ident(c, "let");
        ident(c, "_");
        punct(c, '=');
        rt_path(c, &plan.rt, &["__private", "VERSION_0_1_0"]);
        punct(c, ';');
        ident(c, "const");
        ident(c, "_");
        punct(c, ':');
        group(c, Delimiter::Parenthesis, |_| {});
        punct(c, '=');
        plan.rt.to_tokens(c);
        lit_span.colon2(c);
        lit_span.ident(c, "__private");
        lit_span.colon2(c);
        lit_span.ident(c, "assert_structured");
        lit_span.colon2(c);
        lit_span.punct(c, '<', Spacing::Alone);
        marker.to_tokens(c);
        lit_span.punct(c, '>', Spacing::Alone);
        lit_span.group(c, Delimiter::Parenthesis, |_| {});
        punct(c, ';');

        // The def, without kernels:
        // register: |_, _, _| ::core::result::Result::Err(
        //     #rt::dispatch::Error::from("a definition without kernels"))
        expand_def(
            &plan,
            &input.kernel,
            &[],
            |r| {
                punct(r, '|');
                commas(r, 0..3, |r, _| ident(r, "_"));
                punct(r, '|');
                root_path(r, &["core", "result", "Result", "Err"]);
                group(r, Delimiter::Parenthesis, |g| {
                    rt_path(g, &plan.rt, &["dispatch", "Error", "from"]);
                    group(g, Delimiter::Parenthesis, |g| {
                        g.append(string("a definition without kernels"));
                    });
                });
            },
            c,
        );

        // #[#rt::__private::linkme::distributed_slice(#rt::__private::DEFERRED)]
        // #[linkme(crate = #rt::__private::linkme)]
        // static __OPGEN_DEFERRED: #rt::__private::Deferred = #rt::__private::Deferred {
        //     namespace: "aten",
        //     name: "add.Tensor",
        //     file: ::core::file!(),
        //     line: ::core::line!(),
        //     site: ::core::panic::Location::caller(),
        //     register: __opgen_register_delegate,
        // };
        linkme_attrs(c, &plan.rt, "DEFERRED");
        ident(c, "static");
        ident(c, "__OPGEN_DEFERRED");
        punct(c, ':');
        rt_path(c, &plan.rt, &["__private", "Deferred"]);
        punct(c, '=');
        rt_path(c, &plan.rt, &["__private", "Deferred"]);
        group(c, Delimiter::Brace, |s| {
            field(s, "namespace", |v| v.append(string(plan.namespace)));
            field(s, "name", |v| v.append(name.clone()));
            file_line_site(s, &input.kernel);
            field(s, "register", |v| ident(v, "__opgen_register_delegate"));
        });
        punct(c, ';');

        // fn __opgen_register_delegate(
        //     lib: &#rt::dispatch::Library,
        //     site: #rt::dispatch::Site,
        // ) -> ::core::result::Result<::std::vec::Vec<#rt::dispatch::Registration>, #rt::dispatch::Error> {
        //     let mut registrations = ::std::vec::Vec::new();
        //     for (key, imp) in #rt::structured::structured_impls::<Marker>(lib) {
        //         registrations.push(lib.impl_at("add.Tensor", key, #kernel, site)?);
        //     }
        //     registrations.push(lib.impl_at(
        //         "add.Tensor", #rt::dispatch::DispatchKey::CompositeExplicitAutograd, #kernel, site)?);
        //                                         // with `composite_from_out`
        //     ::core::result::Result::Ok(registrations)
        // }
        ident(c, "fn");
        ident(c, "__opgen_register_delegate");
        group(c, Delimiter::Parenthesis, |p| {
            field(p, "lib", |t| {
                punct(t, '&');
                rt_path(t, &plan.rt, &["dispatch", "Library"]);
            });
            field(p, "site", |t| rt_path(t, &plan.rt, &["dispatch", "Site"]));
        });
        punct_joint(c, '-');
        punct(c, '>');
        result_of(&plan, c, |t| {
            root_path(t, &["std", "vec", "Vec"]);
            punct(t, '<');
            rt_path(t, &plan.rt, &["dispatch", "Registration"]);
            punct(t, '>');
        });
        group(c, Delimiter::Brace, |b| {
            ident(b, "let");
            ident(b, "mut");
            ident(b, "registrations");
            punct(b, '=');
            root_path(b, &["std", "vec", "Vec", "new"]);
            group(b, Delimiter::Parenthesis, |_| {});
            punct(b, ';');
            ident(b, "for");
            group(b, Delimiter::Parenthesis, |g| {
                ident(g, "key");
                punct(g, ',');
                ident(g, "imp");
            });
            ident(b, "in");
            rt_path(b, &plan.rt, &["structured", "structured_impls"]);
            colon2(b);
            punct(b, '<');
            marker.to_tokens(b);
            punct(b, '>');
            group(b, Delimiter::Parenthesis, |g| ident(g, "lib"));
            group(b, Delimiter::Brace, |l| {
                let device = super::device::structured_device_prelude(
                    &plan,
                    &format!("structured {delegate}"),
                );
                push_impl_at(
                    l,
                    &name,
                    |a| ident(a, "key"),
                    |a| {
                        let leading = |c: &mut TokenStream2| {
                            ident(c, "key");
                            punct(c, ',');
                            ident(c, "imp");
                            punct(c, ',');
                        };
                        kernel_body(a, "__run", &leading, device);
                    },
                );
            });
            if composite {
                // `#rt::dispatch::DispatchKey::CompositeExplicitAutograd`
                let cea = |t: &mut TokenStream2| {
                    rt_path(
                        t,
                        &plan.rt,
                        &["dispatch", "DispatchKey", "CompositeExplicitAutograd"],
                    );
                };
                push_impl_at(b, &name, cea, |a| {
                    let leading = |c: &mut TokenStream2| {
                        cea(c);
                        punct(c, ',');
                    };
                    kernel_body(a, "__run_composite", &leading, TokenStream2::new());
                });
            }
            root_path(b, &["core", "result", "Result", "Ok"]);
            group(b, Delimiter::Parenthesis, |g| ident(g, "registrations"));
        });
    });
    punct(&mut out, ';');
    out
}

/// `registrations.push(lib.impl_at("name", key, kernel, site)?);`
fn push_impl_at(
    out: &mut TokenStream2,
    name: &Literal,
    key: impl FnOnce(&mut TokenStream2),
    kernel: impl FnOnce(&mut TokenStream2),
) {
    ident(out, "registrations");
    punct(out, '.');
    ident(out, "push");
    group(out, Delimiter::Parenthesis, |g| {
        ident(g, "lib");
        punct(g, '.');
        ident(g, "impl_at");
        group(g, Delimiter::Parenthesis, |a| {
            a.append(name.clone());
            punct(a, ',');
            key(a);
            punct(a, ',');
            kernel(a);
            punct(a, ',');
            ident(a, "site");
        });
        punct(g, '?');
    });
    punct(out, ';');
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
