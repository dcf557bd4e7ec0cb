//! The typed API of an operator, rendered from its plan: the marker (implementing
//! `dispatch::Operator`), the free functions, the arguments struct and the methods.
//!
//! ```text
//! pub fn add(self_: &MyTensor, other: &MyTensor) -> MyTensor {
//!     ::opgen::__private::unwrap(try_add(self_, other))
//! }
//! pub fn try_add_with(self_: &MyTensor, other: &MyTensor, args: AddArgs) -> ::opgen::Result<MyTensor> {
//!     ::opgen::__private::call::<add, MyTensor, _, _>((self_, other, args.alpha))
//! }
//! ```

use proc_macro2::TokenStream as TokenStream2;
use quote::{ToTokens, format_ident, quote};

use super::types::{Lifetimes, default_expr, rust_type};
use super::{Cx, docs, ident};
use crate::plan::{Api, Body, Form, MethodsKind, OpPlan, Param, Source};

/// Where a form is generated.
#[derive(Clone, Copy)]
enum Scope<'a> {
    Free,
    Inherent,
    Trait(&'a syn::Ident),
}

/// The marker, the free functions, the arguments struct, and (unless `methods` is `false`:
/// `include_native_functions!` gathers them itself) the methods: the items of the user's
/// module. The marker's `impl Operator` goes in the expansion's hidden block
/// ([`expand_operator`]).
pub(crate) fn expand_api(plan: &OpPlan, api: &Api, cx: &Cx<'_>, methods: bool) -> TokenStream2 {
    let marker = expand_marker(api, cx);
    let functions = (api.functions.iter())
        .map(|f| expand_form(plan, api, f, Scope::Free, cx))
        .collect::<TokenStream2>();
    let args_struct = expand_args_struct(plan, api, cx);
    let methods = methods.then(|| expand_methods(plan, api, cx));
    quote! {
        #functions
        #args_struct
        #methods
        #marker
    }
}

/// The main form: the plain free function, else the plain method.
fn main_form(api: &Api) -> Option<&Form> {
    api.functions.first().or(api.methods.first())
}

/// The methods: an inherent `impl` of the tensor type, or an extension trait with its impl.
pub(crate) fn expand_methods(plan: &OpPlan, api: &Api, cx: &Cx<'_>) -> Option<TokenStream2> {
    if api.methods.is_empty() {
        return None;
    }
    let tensor = cx.tensor;
    Some(match &api.methods_kind {
        MethodsKind::Inherent => {
            let forms = inherent_methods(plan, api, cx);
            // Placed at the option asking for methods: an `impl` of a tensor type of another
            // crate is refused there (the fix, `methods = "trait NAME"`, goes there too).
            let head = super::respan(quote!(impl #tensor), cx.methods_span);
            quote!(#head { #forms })
        }
        MethodsKind::Trait(name) => {
            let name = format_ident!("{name}", span = cx.methods_span);
            let (decls, bodies) = trait_items(plan, api, &name, cx);
            let vis = cx.vis;
            let doc = docs::lines(&[format!(
                "The methods of `{}::{}`, for a tensor type of another crate.",
                plan.namespace, plan.full_name
            )]);
            let dead = cx.dead_code();
            quote! {
                #doc
                #dead
                #vis trait #name { #decls }
                #[automatically_derived]
                impl #name for #tensor { #bodies }
            }
        }
    })
}

/// Every method form, for an inherent `impl` of the tensor type.
pub(crate) fn inherent_methods(plan: &OpPlan, api: &Api, cx: &Cx<'_>) -> TokenStream2 {
    (api.methods.iter())
        .map(|f| expand_form(plan, api, f, Scope::Inherent, cx))
        .collect()
}

/// The method forms of an extension trait `name`: the declarations (with the docs) and the
/// bodies (for its `impl`).
pub(crate) fn trait_items(
    plan: &OpPlan,
    api: &Api,
    name: &syn::Ident,
    cx: &Cx<'_>,
) -> (TokenStream2, TokenStream2) {
    let mut decls = TokenStream2::new();
    let mut bodies = TokenStream2::new();
    for f in &api.methods {
        let head = signature(plan, api, f, cx);
        let doc = form_docs(plan, api, f, cx);
        let lints = lints(plan, f, cx, false);
        decls.extend(quote!(#doc #lints #head;));
        bodies.extend(expand_form(plan, api, f, Scope::Trait(name), cx));
    }
    (decls, bodies)
}

/// The docs of a form: the main item's, or one line.
fn form_docs(plan: &OpPlan, api: &Api, f: &Form, cx: &Cx<'_>) -> TokenStream2 {
    match main_form(api) {
        Some(main) if std::ptr::eq(main, f) => docs::main(plan, api, cx),
        Some(main) => docs::form(f, main, api),
        None => TokenStream2::new(),
    }
}

/// `fn name(&self, a: &T, args: AddArgs) -> Ret`.
fn signature(plan: &OpPlan, api: &Api, f: &Form, cx: &Cx<'_>) -> TokenStream2 {
    let name = ident(&f.name);
    let receiver = f.receiver.map(|m| {
        if m {
            quote!(&mut self,)
        } else {
            quote!(&self,)
        }
    });
    // Each type is written in place (`rust_type`): no stream per parameter.
    let ids = f.params.iter().map(|&p| ident(plan.param_ident(p)));
    let tys = f.params.iter().map(|&p| -> Box<dyn ToTokens + '_> {
        match p {
            Param::Arg(i) => Box::new(rust_type(&plan.args[i].ty, cx, Lifetimes::Elided)),
            Param::Options => {
                let rt = cx.rt;
                Box::new(quote!(#rt::TensorOptions))
            }
            Param::Struct => Box::new(struct_type(api, true)),
        }
    });
    let ret = rust_type(&plan.returns, cx, Lifetimes::Elided);
    if f.fallible {
        let rt = cx.rt;
        quote!(fn #name(#receiver #(#ids: #tys),*) -> #rt::Result<#ret>)
    } else {
        quote!(fn #name(#receiver #(#ids: #tys),*) -> #ret)
    }
}

/// The arguments struct's type: `AddArgs`, or `AddArgs<'_>` in a parameter.
fn struct_type(api: &Api, elided: bool) -> TokenStream2 {
    let Some(s) = &api.args_struct else {
        return quote!(());
    };
    let name = ident(&s.name);
    match (s.lifetime, elided) {
        (true, true) => quote!(#name<'_>),
        (true, false) => quote!(#name<'a>),
        (false, _) => quote!(#name),
    }
}

/// `#[allow(..)]` for what a form trips on purpose: many parameters, a name that is not
/// snake case (dunders, upper-case letters), a non-public API a crate may not call.
fn lints(plan: &OpPlan, f: &Form, cx: &Cx<'_>, dead: bool) -> TokenStream2 {
    let mut allow = Vec::new();
    if dead && cx.dead_code().is_some() {
        allow.push(quote!(dead_code));
    }
    if f.params.len() + usize::from(f.receiver.is_some()) > 7 {
        allow.push(quote!(clippy::too_many_arguments));
    }
    let names =
        std::iter::once(f.name.as_str()).chain(f.params.iter().map(|&p| plan.param_ident(p)));
    if names.into_iter().any(|n| !is_snake_case(n)) {
        allow.push(quote!(non_snake_case));
    }
    if allow.is_empty() {
        TokenStream2::new()
    } else {
        quote!(#[allow(#(#allow),*)])
    }
}

/// rustc's `non_snake_case` rule: lower case, no `__` once the leading and trailing
/// underscores are set aside.
fn is_snake_case(name: &str) -> bool {
    let core = name.trim_start_matches("r#").trim_matches('_');
    !core.contains("__") && !core.chars().any(char::is_uppercase)
}

/// One form: a free function, or a method of the inherent `impl` or of the trait's `impl`.
fn expand_form(plan: &OpPlan, api: &Api, f: &Form, scope: Scope<'_>, cx: &Cx<'_>) -> TokenStream2 {
    let rt = cx.rt;
    let head = signature(plan, api, f, cx);
    let forwarded = f.params.iter().map(|&p| ident(plan.param_ident(p)));
    let receiver = f.receiver.map(|_| quote!(self,));
    let sibling = |name: &str| {
        let name = ident(name);
        match scope {
            Scope::Free => quote!(#name),
            Scope::Inherent => quote!(Self::#name),
            Scope::Trait(t) => quote!(<Self as #t>::#name),
        }
    };
    let body = match (&f.body, scope) {
        (Body::Function { name }, _) => forward(plan, api, name),
        // Inherent methods do not call each other: if the `impl` is refused (a tensor type
        // of another crate), rustc reports that alone, not a missing sibling in each body.
        (_, Scope::Inherent) => inlined_body(plan, api, f, true, cx),
        (Body::Unwrap { sibling: s }, _) => {
            let s = sibling(s);
            quote!(#rt::__private::unwrap(#s(#receiver #(#forwarded),*)))
        }
        (Body::Defaults { sibling: s }, _) => {
            // The `_with` form takes `options` in the struct when the struct has it.
            let forwarded = (f.params.iter())
                .filter(|p| !(**p == Param::Options && api.options_in_struct))
                .map(|&p| ident(plan.param_ident(p)));
            let s = sibling(s);
            let defaults = defaults_arg(plan, api);
            quote!(#s(#receiver #(#forwarded,)* #defaults))
        }
        (Body::Call(sources), _) => call(plan, api, sources, cx),
    };
    let (docs, vis) = match scope {
        Scope::Trait(_) => (TokenStream2::new(), None),
        _ => (form_docs(plan, api, f, cx), Some(cx.vis)),
    };
    let track = (!f.fallible).then(|| quote!(#[track_caller]));
    let lints = lints(plan, f, cx, matches!(scope, Scope::Free));
    quote! {
        #docs
        #[inline]
        #track
        #lints
        #vis #head {
            #body
        }
    }
}

/// A method's call of the free function `function` (of the same form), `self` in the
/// receiver's place.
fn forward(plan: &OpPlan, api: &Api, function: &str) -> TokenStream2 {
    let Some(g) = api.functions.iter().find(|g| g.name == function) else {
        return missing_form(function);
    };
    let name = ident(&g.name);
    let args = g.params.iter().map(|&p| match p {
        Param::Arg(i) if Some(i) == api.receiver => quote!(self),
        p => {
            let id = ident(plan.param_ident(p));
            quote!(#id)
        }
    });
    quote!(#name(#(#args),*))
}

/// The call of the operator with the values `sources`.
fn call(plan: &OpPlan, api: &Api, sources: &[Source], cx: &Cx<'_>) -> TokenStream2 {
    let marker = ident(&api.marker);
    let values = sources.iter().map(|s| source(plan, api, *s));
    operator_call(&marker, quote!((#(#values,)*)), None, cx)
}

/// The call of the operator with marker `marker` and the argument tuple `args`, returning
/// `returns` (`None`: the caller's return type, inferred): every call of an operator that
/// generated code makes.
///
/// The tensor type is named and the rest inferred, so that rustc normalises no associated
/// type of the marker's `impl Operator` at the call (`__private::call`'s signature names
/// none): `call::<add, MyTensor, _, _>((self_, other, args.alpha))`.
pub(crate) fn operator_call(
    marker: &syn::Ident,
    args: TokenStream2,
    returns: Option<TokenStream2>,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let (rt, tensor) = (cx.rt, cx.tensor);
    let returns = returns.unwrap_or_else(|| quote!(_));
    quote!(#rt::__private::call::<#marker, #tensor, _, #returns>(#args))
}

/// The body of method `f` with the bodies of the forms it would call written in place:
/// `unwrap(call(..))`, the defaults in a local arguments struct (in a block unless `top`,
/// the function's own body).
fn inlined_body(plan: &OpPlan, api: &Api, f: &Form, top: bool, cx: &Cx<'_>) -> TokenStream2 {
    let rt = cx.rt;
    let sibling = |name: &str| api.methods.iter().find(|g| g.name == name);
    match &f.body {
        Body::Call(sources) => call(plan, api, sources, cx),
        Body::Function { name } => forward(plan, api, name),
        Body::Unwrap { sibling: s } => match sibling(s) {
            Some(g) => {
                let inner = inlined_body(plan, api, g, false, cx);
                quote!(#rt::__private::unwrap(#inner))
            }
            None => missing_form(s),
        },
        Body::Defaults { sibling: s } => match sibling(s) {
            Some(g) => {
                let args = ident(&api.struct_param);
                let ty = struct_type(api, true);
                let defaults = defaults_arg(plan, api);
                let inner = inlined_body(plan, api, g, false, cx);
                let body = quote!(let #args: #ty = #defaults; #inner);
                if top { body } else { quote!({ #body }) }
            }
            None => missing_form(s),
        },
    }
}

/// Our bug: a form whose sibling the plan does not have.
fn missing_form(name: &str) -> TokenStream2 {
    super::super::diag::internal(format!(
        "a method calls the form `{name}`, which is not planned"
    ))
    .into_compile_error()
}

/// The arguments struct with the schema's defaults, given to the `_with` form by the forms
/// without it: `Default::default()`, or with the `options` parameter in it.
fn defaults_arg(plan: &OpPlan, api: &Api) -> TokenStream2 {
    let default = quote!(::core::default::Default::default());
    let Some(s) = api.args_struct.as_ref().filter(|_| api.options_in_struct) else {
        return default;
    };
    let name = ident(&s.name);
    let options = ident(plan.param_ident(Param::Options));
    if s.fields.len() > 1 {
        quote!(#name { options: #options, ..#default })
    } else {
        quote!(#name { options: #options })
    }
}

/// The value a form passes for one schema argument.
fn source(plan: &OpPlan, api: &Api, s: Source) -> TokenStream2 {
    match s {
        Source::Param(i) => {
            let id = ident(plan.param_ident(Param::Arg(i)));
            quote!(#id)
        }
        Source::Receiver => quote!(self),
        Source::Field(i) => {
            let (args, field) = (ident(&api.struct_param), ident(&plan.args[i].ident));
            quote!(#args.#field)
        }
        Source::OptionsPart { part, in_struct } => {
            let part = format_ident!(
                "{}",
                ["dtype", "layout", "device", "pin_memory"][part.min(3)]
            );
            if in_struct {
                let args = ident(&api.struct_param);
                quote!(#args.options.#part)
            } else {
                let options = ident(&api.options_param);
                quote!(#options.#part)
            }
        }
    }
}

/// The arguments struct: one public field per defaulted argument, `Default` from the
/// schema's defaults.
fn expand_args_struct(plan: &OpPlan, api: &Api, cx: &Cx<'_>) -> Option<TokenStream2> {
    let s = api.args_struct.as_ref()?;
    let rt = cx.rt;
    let name = ident(&s.name);
    let lt = s.lifetime.then(|| quote!(<'a>));
    // One template for every field: each field's tokens are written in place.
    let mut ids = Vec::new();
    let mut field_docs = Vec::new();
    let mut tys: Vec<Box<dyn ToTokens>> = Vec::new();
    let mut values = Vec::new();
    for &i in &s.fields {
        let a = &plan.args[i];
        if Some(i) == api.options {
            let parts = (i..i + 4).map(|j| {
                let a = &plan.args[j];
                a.default.as_ref().map_or_else(
                    || quote!(::core::option::Option::None),
                    |d| default_expr(d, &a.ty, cx),
                )
            });
            let text = plan.args[i..i + 4]
                .iter()
                .map(|a| a.text.as_str())
                .collect::<Vec<_>>();
            ids.push(ident("options"));
            field_docs.push(docs::line(&format!("`{}`, as one value.", text.join(", "))));
            tys.push(Box::new(quote!(#rt::TensorOptions)));
            values.push(quote!(#rt::TensorOptions::from_parts(#(#parts),*)));
            continue;
        }
        ids.push(ident(&a.ident));
        field_docs.push(docs::line(&format!("`{}`", a.text)));
        tys.push(Box::new(rust_type(&a.ty, cx, Lifetimes::Named)));
        values.push(a.default.as_ref().map_or_else(
            || quote!(::core::default::Default::default()),
            |d| default_expr(d, &a.ty, cx),
        ));
    }
    let with = api
        .functions
        .iter()
        .chain(&api.methods)
        .find(|f| f.with && !f.fallible);
    let doc = docs::lines(&[format!(
        "The defaulted arguments of [`{}`]; `Default` gives the schema's.",
        with.map_or_else(String::new, |f| match f.receiver {
            Some(_) => format!(
                "{}::{}",
                crate::codegen::kernel_fn::type_string(cx.tensor),
                f.name.trim_start_matches("r#")
            ),
            None => f.name.trim_start_matches("r#").to_string(),
        })
    )]);
    let derive = s.clone.then(|| quote!(#[derive(::core::clone::Clone)]));
    let vis = cx.vis;
    let upper = s
        .fields
        .iter()
        .any(|&i| !is_snake_case(&plan.args[i].ident));
    let mut allow = Vec::new();
    if let Some(dead) = cx.dead_code_word() {
        allow.push(dead);
    }
    if upper {
        allow.push(quote!(non_snake_case));
    }
    let allow = (!allow.is_empty()).then(|| quote!(#[allow(#(#allow),*)]));
    Some(quote! {
        #doc
        #derive
        #allow
        #vis struct #name #lt { #(#[doc = #field_docs] pub #ids: #tys,)* }
        #[automatically_derived]
        impl #lt ::core::default::Default for #name #lt {
            fn default() -> Self {
                #name { #(#ids: #values,)* }
            }
        }
    })
}

/// The marker: a braced struct named as the free function (the type namespace is free),
/// hidden from the docs, which the main item carries. It stays in the user's module, where
/// the functions name it and other crates find it (`op = aten::add`).
fn expand_marker(api: &Api, cx: &Cx<'_>) -> TokenStream2 {
    let marker = ident(&api.marker);
    let vis = cx.vis;
    let dead = cx.dead_code_word().map(|w| quote!(, #w));
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types #dead)]
        #vis struct #marker {}
    }
}

/// The marker's `impl Operator`: its Rust types, and its place in the expansion's table
/// (`table`, `index`), which holds its schema (the `def` entry at `index`), its cache and the
/// crate's static-dispatch setting.
pub(crate) fn expand_operator(
    plan: &OpPlan,
    api: &Api,
    cx: &Cx<'_>,
    table: &syn::Ident,
    index: usize,
) -> TokenStream2 {
    let rt = cx.rt;
    let marker = ident(&api.marker);
    let tensor = cx.tensor;
    let families = plan
        .args
        .iter()
        .map(|a| rust_type(&a.ty, cx, Lifetimes::Static));
    let returns = rust_type(&plan.returns, cx, Lifetimes::Elided);
    let index = proc_macro2::Literal::usize_unsuffixed(index);
    // Not `#[automatically_derived]`: that is for derives' impls, whose lints it quiets;
    // this impl holds no code for a lint to see.
    quote! {
        impl #rt::dispatch::Operator for #marker {
            type Tensor = #tensor;
            type Args = (#(#families,)*);
            type Returns = #returns;
            type Table = #table;
            const INDEX: usize = #index;
        }
    }
}
