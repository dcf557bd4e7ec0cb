//! A structured delegate (`structured_delegate = "add.out"`): its API, and a deferred
//! registration of its kernels at every key where the out operator has one (its impls' keys
//! and `Meta`), by the runtime's `register_functional` / `register_in_place`; an in-place
//! delegate also gets the glue that runs the operator with `self` as the output.

use std::collections::BTreeSet;

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned};

use crate::codegen::check::{Checked, Definition, delegate_marker};
use crate::codegen::expand::kernel::defining_group;
use crate::codegen::expand::types::{Lifetimes, rust_type};
use crate::codegen::expand::{Cx, Origin, api, ident, link};
use crate::plan::{Api, OpPlan, fresh_name};

/// The delegate's expansion.
pub(crate) fn expand_delegate(
    checked: &Checked<'_>,
    def: &Definition,
    plan: &OpPlan,
) -> TokenStream2 {
    let input = checked.input;
    let kernel = &input.kernel;
    let (Ok(api), Some(out_marker)) = (&plan.api, delegate_marker(input, &def.function)) else {
        return TokenStream2::new();
    };
    let out =
        (def.function.structured_delegate.as_ref()).map_or_else(String::new, |d| d.full_name());
    let cx = Cx {
        rt: &input.rt,
        tensor: &def.signature.tensor,
        vis: &kernel.vis,
        docs: crate::codegen::expand::user_docs(input),
        origin: Origin::Delegate { out },
        methods_span: crate::codegen::expand::methods_span(input),
    };
    let rt = cx.rt;
    let api_items = api::expand_api(plan, api, &cx, true);
    let marker = ident(&api.marker);
    let composite = (input.options.composite_from_out.as_ref()).is_some_and(|b| b.value);
    let reserved = crate::codegen::expand::reserved(input, Some(&def.signature.tensor));
    let in_place = plan.schema.arguments.iter().any(|a| a.is_write());
    let lit =
        (input.options.structured_delegate.as_ref()).map_or_else(Span::call_site, |l| l.span());
    let lp = link::Params::avoiding(&reserved);
    let link::Params { lib, site, .. } = &lp;
    // Spanned on the `structured_delegate` literal: an operator there that is missing or not
    // structured is reported on it.
    let register = if in_place {
        quote_spanned!(lit=> #rt::structured::register_in_place::<#out_marker, #marker>(#lib, #site, #composite))
    } else {
        quote_spanned!(lit=> #rt::structured::register_functional::<#out_marker, #marker>(#lib, #site, #composite))
    };
    let register = quote!(|#lib, #site| #register);
    let deferred_name = ident(&fresh_name("__OPGEN_DEFERRED", &reserved));
    let at = kernel.ident().span();
    let mut extra = link::deferred(rt, &deferred_name, &marker, register, at);
    let mut entries = vec![link::declare(plan, api, rt, at)];
    if let Some(a) = crate::codegen::expand::autograd::expand_definition(def, plan, api, &lp, &cx) {
        entries.push(a.entry);
        extra.extend(a.items);
    }
    let group = defining_group(plan, api, &cx, &reserved, &entries, extra);
    let glue = in_place.then(|| in_place_glue(plan, api, &out_marker, &reserved, &cx));
    // A body-less item is consumed by the last attribute on it: one stacked above another
    // re-emits it for the next.
    let stacked = kernel
        .attrs
        .iter()
        .any(|a| (a.path().segments.last()).is_some_and(|s| s.ident == "native_function"));
    let item = (!kernel.bodyless || stacked).then(|| kernel.tokens.clone());
    quote! {
        #item
        #api_items
        #glue
        #group
    }
}

/// `impl InPlace<out> for delegate`: runs the out operator with clones of the written
/// arguments' handles as the outputs and the arguments (written ones read-only) as its
/// inputs, writes the outputs back, and returns the written arguments the schema returns.
fn in_place_glue(
    plan: &OpPlan,
    api: &Api,
    out_marker: &syn::Path,
    reserved: &BTreeSet<String>,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let rt = cx.rt;
    let tensor = cx.tensor;
    let marker = ident(&api.marker);
    let mut taken: BTreeSet<String> = reserved.clone();
    taken.extend(plan.args.iter().map(|a| a.ident.clone()));
    let mut fresh = |base: &str| {
        let name = fresh_name(base, &taken);
        taken.insert(name.clone());
        ident(&name)
    };
    let (args, run, given) = (fresh("args"), fresh("run"), fresh("given"));
    let ids: Vec<syn::Ident> = plan.args.iter().map(|a| ident(&a.ident)).collect();
    let written: Vec<&syn::Ident> = (plan.schema.arguments.iter().zip(&ids))
        .filter(|(a, _)| a.is_write())
        .map(|(_, id)| id)
        .collect();
    let locals: Vec<syn::Ident> = (0..written.len())
        .map(|i| fresh(&format!("out{i}")))
        .collect();
    let inputs = plan.schema.arguments.iter().zip(&ids).map(|(a, id)| {
        if a.is_write() {
            quote!(&*#id)
        } else {
            quote!(#id)
        }
    });
    let returned = &written[..written.len().min(plan.schema.returns.len())];
    let clones = returned
        .iter()
        .map(|w| quote!(<#tensor as ::core::clone::Clone>::clone(#w)));
    let value = if returned.len() == 1 {
        quote!(#(#clones)*)
    } else {
        quote!((#(#clones),*))
    };
    let ret = rust_type(&plan.returns, cx, Lifetimes::Elided);
    let operator = format!("{}::{}", plan.namespace, plan.full_name);
    quote! {
        #[automatically_derived]
        impl #rt::structured::InPlace<#out_marker> for #marker {
            fn in_place(
                #args: #rt::structured::Args<'_, Self>,
                #run: &#rt::structured::Run<'_, #out_marker>,
            ) -> #rt::Result<#ret> {
                let (#(#ids,)*) = #args;
                let #given = ::std::vec![#(<#tensor as ::core::clone::Clone>::clone(#written)),*];
                let [#(#locals),*] = #rt::structured::outputs_owned(#operator, #run(#given, (#(#inputs,)*))?)?;
                #(*#written = #locals;)*
                ::core::result::Result::Ok(#value)
            }
        }
    }
}
