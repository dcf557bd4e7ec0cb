//! Method variants: the API's forms without `self`, as an inherent `impl` of the tensor type
//! (in the crate that defines it) or as an extension trait implemented for it.

use proc_macro2::{Delimiter, TokenStream as TokenStream2};
use quote::{ToTokens, TokenStreamExt, quote};

use super::docs::{self, Doc};
use super::frag::{group, ident};
use super::free_fn::{Scope, expand_forms};
use super::plan::OpPlan;
use crate::codegen::args::Methods;

/// Writes the methods, if the operator has the `method` variant.
pub(crate) fn expand_methods(plan: &OpPlan<'_>, methods: &Methods, out: &mut TokenStream2) {
    if plan.receiver.is_none() {
        return;
    }
    let tensor = &plan.tensor_tokens;
    match methods {
        Methods::Inherent => {
            ident(out, "impl");
            tensor.to_tokens(out);
            group(out, Delimiter::Brace, |body| {
                expand_forms(plan, Scope::Inherent, body, None);
            });
        }
        Methods::Trait(name) => {
            // Docs stay on the declarations.
            let mut decls = TokenStream2::new();
            let mut bodies = TokenStream2::new();
            expand_forms(plan, Scope::Trait(name), &mut bodies, Some(&mut decls));
            let vis = plan.vis;
            let mut doc = Doc::with_capacity(120);
            doc.raw("Methods of `")
                .text(plan.namespace)
                .raw("::")
                .text(&plan.full_name)
                .raw("` on [`")
                .text(&crate::codegen::kernel::type_string(plan.tensor))
                .raw("`], for a tensor type defined in another crate.");
            docs::item_with(plan, &docs::attr(doc.finish()), out);
            let dead = &plan.attrs.dead;
            out.extend(quote!(#dead #vis trait #name));
            out.append(proc_macro2::Group::new(Delimiter::Brace, decls));
            out.extend(quote!(#[automatically_derived] impl #name for #tensor));
            out.append(proc_macro2::Group::new(Delimiter::Brace, bodies));
        }
    }
}
