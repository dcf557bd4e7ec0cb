//! The public API's forms (plain and `try_`, with and without the arguments struct), as
//! free functions or methods, and the arguments struct with its `Default`.

use proc_macro2::{Delimiter, Group, TokenStream as TokenStream2};
use quote::{ToTokens, TokenStreamExt, quote};

use super::docs::{self, Doc};
use super::frag::{Frag, colon2, group, ident, lifetime, punct, punct_joint, root_path};
use super::plan::{OpPlan, has_mut};
use super::types::Lifetimes;

/// Where a form is generated.
#[derive(Clone, Copy)]
pub(crate) enum Scope<'a> {
    /// A free function in the kernel's module.
    Free,
    /// A method in an inherent `impl` of the tensor type.
    Inherent,
    /// A method of the extension trait of this name.
    Trait(&'a syn::Ident),
}

impl Scope<'_> {
    fn is_method(self) -> bool {
        !matches!(self, Scope::Free)
    }

    /// How a form calls its sibling: `try_add`, `Self::try_add`, `<Self as AddExt>::try_add`.
    fn sibling(self, name: &syn::Ident, out: &mut TokenStream2) {
        match self {
            Scope::Free => {}
            Scope::Inherent => {
                ident(out, "Self");
                colon2(out);
            }
            Scope::Trait(t) => {
                punct(out, '<');
                ident(out, "Self");
                ident(out, "as");
                t.to_tokens(out);
                punct(out, '>');
                colon2(out);
            }
        }
        name.to_tokens(out);
    }
}

/// The four forms of the API in `scope`: `NAME`, `try_NAME`, and, with defaulted arguments,
/// `NAME_with`, `try_NAME_with`, each a full function written to `out`; in a trait scope
/// the functions go to `out` without docs, and their declarations, with the docs, to
/// `decls`.
pub(crate) fn expand_forms(
    plan: &OpPlan<'_>,
    scope: Scope<'_>,
    out: &mut TokenStream2,
    mut decls: Option<&mut TokenStream2>,
) {
    let has_with = plan.args_struct.is_some();
    let not_receiver = |&i: &usize| !(scope.is_method() && Some(i) == plan.receiver);
    let params: Vec<usize> = plan.params.iter().copied().filter(not_receiver).collect();
    let with_params: Vec<usize> = plan.with_params().filter(not_receiver).collect();
    // The parameter list, shared by the plain and the fallible form.
    let lists = [false, true].map(|with| {
        let list = if with { &with_params } else { &params };
        (!with || has_with).then(|| param_list(plan, scope, list, with))
    });
    let form = Form {
        plan,
        scope,
        params: [&params, &with_params],
    };
    for fallible in [false, true] {
        for with in [false, true] {
            if let Some(list) = &lists[usize::from(with)] {
                form.write(list, with, fallible, out, decls.as_deref_mut());
            }
        }
    }
}

/// What the forms of one scope share.
struct Form<'a> {
    plan: &'a OpPlan<'a>,
    scope: Scope<'a>,
    /// The parameters (schema indices), without a method's receiver, by `with`.
    params: [&'a [usize]; 2],
}

/// `(&self, a: &T, ..., args: AddArgs<'_>)`.
fn param_list(plan: &OpPlan<'_>, scope: Scope<'_>, params: &[usize], with: bool) -> Frag {
    let mut list = TokenStream2::new();
    if scope.is_method() {
        punct(&mut list, '&');
        if plan.receiver_is_mut() {
            ident(&mut list, "mut");
        }
        ident(&mut list, "self");
        punct(&mut list, ',');
    }
    for &i in params {
        plan.api_decl(i, &mut list);
        punct(&mut list, ',');
    }
    if with {
        ident(&mut list, "args");
        punct(&mut list, ':');
        plan.args_struct.to_tokens(&mut list);
        if plan.struct_has_lifetime() {
            punct(&mut list, '<');
            lifetime(&mut list, "_");
            punct(&mut list, '>');
        }
    }
    Frag::group(Delimiter::Parenthesis, list)
}

impl Form<'_> {
    fn write(
        &self,
        list: &Frag,
        with: bool,
        fallible: bool,
        out: &mut TokenStream2,
        decls: Option<&mut TokenStream2>,
    ) {
        let Form {
            plan,
            scope,
            params: by_with,
        } = *self;
        let params = by_with[usize::from(with)];
        let name = plan.form_name(with, fallible);
        let try_name = plan.form_name(with, true);
        let ret = if fallible { &plan.result } else { &plan.ret };
        let mut body = TokenStream2::new();
        // `callee(self, a, ...` : the arguments after `self` are the forwarded parameters.
        let forward = |g: &mut TokenStream2, params: &[usize]| {
            if scope.is_method() {
                ident(g, "self");
                punct(g, ',');
            }
            for &i in params {
                plan.api_ident(i).to_tokens(g);
                punct(g, ',');
            }
        };
        if !fallible {
            plan.rt.to_tokens(&mut body);
            colon2(&mut body);
            ident(&mut body, "__private");
            colon2(&mut body);
            ident(&mut body, "panic_on_error");
            group(&mut body, Delimiter::Parenthesis, |g| {
                scope.sibling(try_name, g);
                group(g, Delimiter::Parenthesis, |g| {
                    forward(g, params);
                    if with {
                        ident(g, "args");
                    }
                });
            });
        } else if !with && plan.args_struct.is_some() {
            scope.sibling(plan.form_name(true, true), &mut body);
            group(&mut body, Delimiter::Parenthesis, |g| {
                forward(g, by_with[1]);
                match plan.options.filter(|o| plan.fields.contains(o)) {
                    // The plain forms take the options: `Args { options, ..Default::default() }`.
                    Some(_) => {
                        plan.args_struct.to_tokens(g);
                        group(g, Delimiter::Brace, |f| {
                            ident(f, "options");
                            if plan.fields.len() > 1 {
                                punct(f, ',');
                                punct_joint(f, '.');
                                punct(f, '.');
                                root_path(f, &["core", "default", "Default", "default"]);
                                group(f, Delimiter::Parenthesis, |_| {});
                            }
                        });
                    }
                    None => {
                        root_path(g, &["core", "default", "Default", "default"]);
                        group(g, Delimiter::Parenthesis, |_| {});
                    }
                }
            });
        } else {
            if with {
                // `let AddArgs { alpha, beta } = args;`
                ident(&mut body, "let");
                plan.args_struct.to_tokens(&mut body);
                group(&mut body, Delimiter::Brace, |g| {
                    for (n, &i) in plan.fields.iter().enumerate() {
                        if n > 0 {
                            punct(g, ',');
                        }
                        plan.api_ident(i).to_tokens(g);
                    }
                });
                punct(&mut body, '=');
                ident(&mut body, "args");
                punct(&mut body, ';');
            }
            plan.scatter_options(&mut body);
            plan.call_fn.to_tokens(&mut body);
            if scope.is_method() && plan.receiver.is_some() {
                group(&mut body, Delimiter::Parenthesis, |g| {
                    for (i, a) in plan.args.iter().enumerate() {
                        if i > 0 {
                            punct(g, ',');
                        }
                        if Some(i) == plan.receiver {
                            ident(g, "self");
                        } else {
                            a.ident.to_tokens(g);
                        }
                    }
                });
            } else {
                plan.ids_group.to_tokens(&mut body);
            }
        }
        let upper = plan.upper_args || has_upper(name);
        let arity = params.len() + usize::from(with);
        // `fn name(params) -> ret`
        let signature = |out: &mut TokenStream2| {
            ident(out, "fn");
            name.to_tokens(out);
            list.to_tokens(out);
            punct_joint(out, '-');
            punct(out, '>');
            ret.to_tokens(out);
        };
        match decls {
            Some(decls) => {
                form_doc(plan, scope, with, fallible, decls);
                plan.attrs.lints(decls, arity, upper);
                signature(decls);
                punct(decls, ';');
            }
            None => form_doc(plan, scope, with, fallible, out),
        }
        plan.attrs.inline.to_tokens(out);
        if !fallible {
            plan.attrs.track_caller.to_tokens(out);
        }
        plan.attrs.lints(out, arity, upper);
        if !matches!(scope, Scope::Trait(_)) {
            plan.vis.to_tokens(out);
        }
        signature(out);
        out.append(Group::new(Delimiter::Brace, body));
    }
}

fn has_upper(name: &syn::Ident) -> bool {
    name.to_string().chars().any(|c| c.is_ascii_uppercase())
}

fn form_doc(
    plan: &OpPlan<'_>,
    scope: Scope<'_>,
    with: bool,
    fallible: bool,
    out: &mut TokenStream2,
) {
    let what = |len: usize| {
        let mut doc = Doc::with_capacity(len + 160);
        doc.raw("Calls the operator");
        if with {
            doc.raw(", with the defaulted arguments given in [`");
            if let Some(s) = &plan.args_struct {
                doc.plain(s);
            }
            doc.raw("`].");
        } else {
            let mut defaulted = (plan.fields.iter())
                .filter(|&&i| Some(i) != plan.options)
                .peekable();
            if defaulted.peek().is_some() {
                doc.raw(", with the schema's defaults for ");
                for (n, &i) in defaulted.enumerate() {
                    if n > 0 {
                        doc.raw(", ");
                    }
                    doc.code(plan.api_ident(i));
                }
            }
            doc.raw(".");
        }
        if let Some(start) = plan.options {
            doc.newline()
                .newline()
                .raw("`options` gathers the schema's ");
            for (n, a) in plan.args.iter().skip(start).take(4).enumerate() {
                if n > 0 {
                    doc.raw(", ");
                }
                doc.code(&a.ident);
            }
            doc.raw(
                " (unset fields are passed as `None`); the faithful form takes them separately.",
            );
        }
        doc
    };
    if fallible {
        // The same in every scope: made once.
        let attr = plan.fallible_docs[usize::from(with)].get_or_init(|| {
            let mut doc = what(24);
            doc.newline().raw("Errors are returned.");
            docs::attr(doc.finish())
        });
        docs::item_with(plan, attr, out);
    } else {
        let try_name = plan.form_name(with, true);
        let mut doc = what(80);
        match scope {
            Scope::Free => doc.panics(try_name),
            _ => doc.panics(format_args!("Self::{try_name}")),
        };
        docs::item_with(plan, &docs::attr(doc.finish()), out);
    }
}

/// The free functions: the forms, then the faithful forms.
pub(crate) fn expand_free_fns(plan: &OpPlan<'_>, out: &mut TokenStream2) {
    expand_forms(plan, Scope::Free, out, None);
    expand_faithful(plan, out);
}

/// `add_outf` / `empty_faithful` (and `try_`): every argument in schema order, no defaults.
fn expand_faithful(plan: &OpPlan<'_>, out: &mut TokenStream2) {
    let Some(suffix) = plan.faithful else {
        return;
    };
    let (plain, fallible) = (plan.form("", suffix), plan.form("try_", suffix));
    let order = "Calls the operator with every argument in schema order, without defaults.";
    let head = |out: &mut TokenStream2, name: &syn::Ident, ret: &Frag, track: bool| {
        plan.attrs.inline.to_tokens(out);
        if track {
            plan.attrs.track_caller.to_tokens(out);
        }
        plan.attrs.lints(out, plan.decls.len(), plan.upper_args);
        plan.vis.to_tokens(out);
        ident(out, "fn");
        name.to_tokens(out);
        plan.decls_group.to_tokens(out);
        punct_joint(out, '-');
        punct(out, '>');
        ret.to_tokens(out);
    };
    let mut doc = Doc::with_capacity(order.len() + 120);
    doc.raw(order).panics(&fallible);
    docs::item_with(plan, &docs::attr(doc.finish()), out);
    head(out, &plain, &plan.ret, true);
    group(out, Delimiter::Brace, |body| {
        plan.rt.to_tokens(body);
        root_path(body, &["__private", "panic_on_error"]);
        group(body, Delimiter::Parenthesis, |g| {
            fallible.to_tokens(g);
            plan.ids_group.to_tokens(g);
        });
    });
    docs::item(plan, &[order, "Errors are returned."], out);
    head(out, &fallible, &plan.result, false);
    group(out, Delimiter::Brace, |body| {
        plan.call_fn.to_tokens(body);
        plan.ids_group.to_tokens(body);
    });
}

/// The arguments struct: one public field per defaulted argument, and `Default` from the
/// schema's defaults.
pub(crate) fn expand_args_struct(plan: &OpPlan<'_>, out: &mut TokenStream2) {
    let Some(name) = plan.args_struct.as_ref() else {
        return;
    };
    let vis = plan.vis;
    let lt = plan.struct_has_lifetime().then(|| quote!(<'a>));
    let mut fields = TokenStream2::new();
    let mut values = TokenStream2::new();
    for &i in &plan.fields {
        let a = &plan.args[i];
        if Some(i) == plan.options {
            expand_options_field(plan, i, &mut fields, &mut values);
            continue;
        }
        let mut doc = Doc::with_capacity(a.text.len() + 2);
        doc.raw("`").text(&a.text).raw("`");
        docs::attr(doc.finish()).to_tokens(&mut fields);
        ident(&mut fields, "pub");
        a.ident.to_tokens(&mut fields);
        punct(&mut fields, ':');
        plan.ty(&a.ty, Lifetimes::Named, &mut fields);
        punct(&mut fields, ',');
        a.ident.to_tokens(&mut values);
        punct(&mut values, ':');
        a.default.to_tokens(&mut values);
        punct(&mut values, ',');
    }
    let plain = plan.form_name(true, false);
    let mut doc = Doc::with_capacity(160);
    if plan.function {
        doc.raw("The defaulted arguments of [`")
            .plain(plain)
            .raw("`]; `Default` gives the schema's defaults.");
    } else {
        doc.raw("The defaulted arguments of the `")
            .plain(plain)
            .raw("` method; `Default` gives the schema's defaults.");
    }
    doc.newline()
        .raw("Name only what changes: `")
        .plain(name)
        .raw(" { ");
    if let Some(&i) = plan.fields.first() {
        doc.plain(plan.api_ident(i));
    }
    doc.raw(": ..., ..Default::default() }`.");
    docs::item_with(plan, &docs::attr(doc.finish()), out);
    let clone = (!plan.fields.iter().any(|&i| has_mut(&plan.args[i].ty)))
        .then(|| quote!(#[derive(::core::clone::Clone)]));
    let upper = plan.fields.iter().any(|&i| has_upper(&plan.args[i].ident));
    clone.to_tokens(out);
    plan.attrs.lints(out, 0, upper);
    // The lists are moved into their groups, not copied token by token.
    let fields = Group::new(Delimiter::Brace, fields);
    let values = Group::new(Delimiter::Brace, values);
    out.extend(quote! {
        #vis struct #name #lt #fields

        #[automatically_derived]
        impl #lt ::core::default::Default for #name #lt {
            fn default() -> Self {
                #name #values
            }
        }
    });
}

/// The `options` field of the arguments struct: the TensorOptions group as one value, its
/// default the schema's four defaults.
fn expand_options_field(
    plan: &OpPlan<'_>,
    start: usize,
    fields: &mut TokenStream2,
    values: &mut TokenStream2,
) {
    let group_args = || plan.args.iter().skip(start).take(4);
    let mut doc = Doc::with_capacity(120);
    doc.raw("`");
    for (n, a) in group_args().enumerate() {
        if n > 0 {
            doc.raw(", ");
        }
        doc.text(&a.text);
    }
    doc.raw("`, as one value.")
        .newline()
        .raw("`Default` gives the schema's defaults; an unset field is passed as `None`.");
    docs::attr(doc.finish()).to_tokens(fields);
    ident(fields, "pub");
    ident(fields, "options");
    punct(fields, ':');
    plan.options_type(fields);
    punct(fields, ',');
    ident(values, "options");
    punct(values, ':');
    plan.options_type(values);
    root_path(values, &["from_parts"]);
    group(values, Delimiter::Parenthesis, |g| {
        for a in group_args() {
            a.default.to_tokens(g);
            punct(g, ',');
        }
    });
    punct(values, ',');
}
