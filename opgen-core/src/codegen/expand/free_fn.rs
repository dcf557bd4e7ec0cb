//! The public API's forms (plain and `try_`, with and without the arguments struct), as
//! free functions or methods, and the arguments struct with its `Default`.

use proc_macro2::{Delimiter, Group, TokenStream as TokenStream2, TokenTree};
use quote::quote;

use super::docs;
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
    fn sibling(self, name: &syn::Ident) -> TokenStream2 {
        match self {
            Scope::Free => quote!(#name),
            Scope::Inherent => quote!(Self::#name),
            Scope::Trait(t) => quote!(<Self as #t>::#name),
        }
    }
}

/// The four forms of the API in `scope`: `NAME`, `try_NAME`, and, with defaulted arguments,
/// `NAME_with`, `try_NAME_with`. Each item is a full function (with its docs); in a trait
/// scope the caller splits declarations from bodies.
pub(crate) fn expand_forms(plan: &OpPlan<'_>, scope: Scope<'_>) -> Vec<Form> {
    let mut forms = Vec::new();
    let has_with = plan.args_struct.is_some();
    for fallible in [false, true] {
        forms.push(form(plan, scope, false, fallible));
        if has_with {
            forms.push(form(plan, scope, true, fallible));
        }
    }
    forms
}

/// One generated function: the whole item, and for a trait, its declaration.
pub(crate) struct Form {
    /// The function (in a trait scope: the method of the `impl`, without docs).
    pub item: TokenStream2,
    /// In a trait scope: the declaration in the trait, with the docs.
    pub decl: Option<TokenStream2>,
}

fn form(plan: &OpPlan<'_>, scope: Scope<'_>, with: bool, fallible: bool) -> Form {
    let rt = &plan.rt;
    let with_suffix = if with { "_with" } else { "" };
    let name = plan.form(if fallible { "try_" } else { "" }, with_suffix);
    let try_name = plan.form("try_", with_suffix);
    let params: Vec<usize> = plan
        .params
        .iter()
        .copied()
        .filter(|&i| !(scope.is_method() && Some(i) == plan.receiver))
        .collect();
    let receiver = scope.is_method().then(|| {
        if plan.receiver_is_mut() {
            quote!(&mut self,)
        } else {
            quote!(&self,)
        }
    });
    let decls = params.iter().map(|&i| &plan.decls[i]);
    let args_param = with.then(|| {
        let s = &plan.args_struct;
        let lt = plan.struct_has_lifetime().then(|| quote!(<'_>));
        quote!(args: #s #lt)
    });
    let ret = if fallible { &plan.result } else { &plan.ret };
    let self_arg = scope.is_method().then(|| quote!(self,));
    let forwarded = params.iter().map(|&i| &plan.args[i].ident);
    let body = if !fallible {
        let callee = scope.sibling(&try_name);
        let args = with.then(|| quote!(args));
        quote!(#rt::__private::panic_on_error(#callee(#self_arg #(#forwarded,)* #args)))
    } else if !with && plan.args_struct.is_some() {
        let callee = scope.sibling(&plan.form("try_", "_with"));
        quote!(#callee(#self_arg #(#forwarded,)* ::core::default::Default::default()))
    } else {
        let destructure = with.then(|| {
            let s = &plan.args_struct;
            let fields = plan.fields.iter().map(|&i| &plan.args[i].ident);
            quote!(let #s { #(#fields),* } = args;)
        });
        let call_fn = plan.call_fn();
        let call = (0..plan.args.len()).map(|i| {
            if scope.is_method() && Some(i) == plan.receiver {
                quote!(self)
            } else {
                let id = &plan.args[i].ident;
                quote!(#id)
            }
        });
        quote! {
            #destructure
            #call_fn(#(#call),*)
        }
    };
    let doc = form_doc(plan, scope, with, fallible);
    let track = (!fallible).then(|| quote!(#[track_caller]));
    let lints = form_lints(plan, &name, params.len() + usize::from(with));
    match scope {
        Scope::Trait(_) => {
            let decls2 = params.iter().map(|&i| &plan.decls[i]);
            let mut decl = doc;
            decl.extend(quote! {
                #lints
                fn #name(#receiver #(#decls2,)* #args_param) -> #ret;
            });
            let head = quote! {
                #[inline]
                #track
                #lints
                fn #name(#receiver #(#decls,)* #args_param) -> #ret
            };
            Form {
                decl: Some(decl),
                item: function(TokenStream2::new(), head, body),
            }
        }
        _ => {
            let vis = plan.vis;
            let head = quote! {
                #[inline]
                #track
                #lints
                #vis fn #name(#receiver #(#decls,)* #args_param) -> #ret
            };
            Form {
                decl: None,
                item: function(doc, head, body),
            }
        }
    }
}

/// `attrs head { body }`, the pieces moved rather than copied token by token (as
/// interpolating them in `quote!` would).
pub(crate) fn function(
    mut attrs: TokenStream2,
    head: TokenStream2,
    body: TokenStream2,
) -> TokenStream2 {
    attrs.extend(head);
    attrs.extend([TokenTree::Group(Group::new(Delimiter::Brace, body))]);
    attrs
}

fn form_doc(plan: &OpPlan<'_>, scope: Scope<'_>, with: bool, fallible: bool) -> TokenStream2 {
    let defaulted: Vec<String> = plan
        .fields
        .iter()
        .map(|&i| format!("`{}`", plan.args[i].ident))
        .collect();
    let mut what = vec![if with {
        let s = plan
            .args_struct
            .as_ref()
            .map(|s| s.to_string())
            .unwrap_or_default();
        format!("Calls the operator, with the defaulted arguments given in [`{s}`].")
    } else if defaulted.is_empty() {
        "Calls the operator.".to_string()
    } else {
        format!(
            "Calls the operator, with the schema's defaults for {}.",
            defaulted.join(", ")
        )
    }];
    if fallible {
        what.push("Errors are returned.".to_string());
    } else {
        let try_name = plan.form("try_", if with { "_with" } else { "" });
        let link = match scope {
            Scope::Free => try_name.to_string(),
            _ => format!("Self::{try_name}"),
        };
        what.extend(docs::panics(&link));
    }
    docs::item(plan, &what)
}

fn form_lints(plan: &OpPlan<'_>, name: &syn::Ident, arity: usize) -> TokenStream2 {
    let many = (arity > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let snake = (name.to_string().chars().any(|c| c.is_ascii_uppercase())
        || plan
            .args
            .iter()
            .any(|a| a.ident.to_string().chars().any(|c| c.is_ascii_uppercase())))
    .then(|| quote!(#[allow(non_snake_case)]));
    let dead = plan.allow_dead_code();
    quote!(#dead #many #snake)
}

/// The free functions: the forms, then the faithful forms.
pub(crate) fn expand_free_fns(plan: &OpPlan<'_>) -> TokenStream2 {
    let forms = expand_forms(plan, Scope::Free).into_iter().map(|f| f.item);
    forms.chain(expand_faithful(plan)).collect()
}

/// `add_outf` / `empty_faithful` (and `try_`): every argument in schema order, no defaults.
fn expand_faithful(plan: &OpPlan<'_>) -> Option<TokenStream2> {
    let name = plan.faithful.as_ref()?;
    let rt = &plan.rt;
    let vis = plan.vis;
    let plain = super::plan::ident(&crate::plan::rust_ident(name));
    let fallible = super::plan::ident(&crate::plan::rust_ident(&format!("try_{name}")));
    let decls = &plan.decls;
    let ids: Vec<&syn::Ident> = plan.args.iter().map(|a| &a.ident).collect();
    let (ret, result) = (&plan.ret, &plan.result);
    let call_fn = plan.call_fn();
    let order = "Calls the operator with every argument in schema order, without defaults.";
    let plain_doc = docs::item(plan, &{
        let mut v = vec![order.to_string()];
        v.extend(docs::panics(&fallible.to_string()));
        v
    });
    let try_doc = docs::item(plan, &[order, "Errors are returned."]);
    let many = (decls.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let snake = ids
        .iter()
        .any(|i| i.to_string().chars().any(|c| c.is_ascii_uppercase()))
        .then(|| quote!(#[allow(non_snake_case)]));
    let dead = plan.allow_dead_code();
    let mut out = function(
        plain_doc,
        quote! {
            #[inline]
            #[track_caller]
            #dead
            #many
            #snake
            #vis fn #plain(#(#decls),*) -> #ret
        },
        quote!(#rt::__private::panic_on_error(#fallible(#(#ids),*))),
    );
    out.extend(function(
        try_doc,
        quote! {
            #[inline]
            #dead
            #many
            #snake
            #vis fn #fallible(#(#decls),*) -> #result
        },
        quote!(#call_fn(#(#ids),*)),
    ));
    Some(out)
}

/// The arguments struct: one public field per defaulted argument, and `Default` from the
/// schema's defaults.
pub(crate) fn expand_args_struct(plan: &OpPlan<'_>) -> Option<TokenStream2> {
    let name = plan.args_struct.as_ref()?;
    let vis = plan.vis;
    let lt = plan.struct_has_lifetime().then(|| quote!(<'a>));
    let fields = plan.fields.iter().map(|&i| {
        let a = &plan.args[i];
        let (id, ty) = (&a.ident, plan.ty(&a.ty, Lifetimes::Named));
        let doc = docs::literal(&[format!("`{}`", a.text)]);
        quote! {
            #[doc = #doc]
            pub #id: #ty
        }
    });
    let values = plan.fields.iter().map(|&i| {
        let a = &plan.args[i];
        let (id, value) = (&a.ident, &a.default);
        quote!(#id: #value)
    });
    let plain = plan.form("", "_with");
    let first = plan
        .fields
        .first()
        .map(|&i| plan.args[i].ident.to_string())
        .unwrap_or_default();
    let what = [
        if plan.function {
            format!(
                "The defaulted arguments of [`{plain}`]; `Default` gives the schema's defaults."
            )
        } else {
            format!(
                "The defaulted arguments of the `{plain}` method; `Default` gives the schema's defaults."
            )
        },
        format!("Name only what changes: `{name} {{ {first}: ..., ..Default::default() }}`."),
    ];
    let doc = docs::item(plan, &what);
    let clone = (!plan.fields.iter().any(|&i| has_mut(&plan.args[i].ty)))
        .then(|| quote!(#[derive(::core::clone::Clone)]));
    let snake = plan
        .fields
        .iter()
        .any(|&i| {
            plan.args[i]
                .ident
                .to_string()
                .chars()
                .any(|c| c.is_ascii_uppercase())
        })
        .then(|| quote!(#[allow(non_snake_case)]));
    let impl_lt = lt.clone();
    let dead = plan.allow_dead_code();
    Some(quote! {
        #doc
        #clone
        #dead
        #snake
        #vis struct #name #lt {
            #(#fields,)*
        }

        #[automatically_derived]
        impl #impl_lt ::core::default::Default for #name #lt {
            fn default() -> Self {
                #name {
                    #(#values,)*
                }
            }
        }
    })
}
