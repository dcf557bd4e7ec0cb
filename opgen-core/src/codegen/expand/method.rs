//! Method variants: the API's forms without `self`, as an inherent `impl` of the tensor type
//! (in the crate that defines it) or as an extension trait implemented for it.

use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

use super::docs;
use super::free_fn::{Scope, expand_forms, function};
use super::plan::OpPlan;
use crate::codegen::args::Methods;

/// The methods, if the operator has the `method` variant.
pub(crate) fn expand_methods(plan: &OpPlan<'_>, methods: &Methods) -> Option<TokenStream2> {
    plan.receiver?;
    let tensor = plan.tensor;
    Some(match methods {
        Methods::Inherent => {
            let forms: TokenStream2 = expand_forms(plan, Scope::Inherent)
                .into_iter()
                .map(|f| f.item)
                .collect();
            let tensor = &plan.tensor_tokens;
            function(TokenStream2::new(), quote!(impl #tensor), forms)
        }
        Methods::Trait(name) => {
            let forms = expand_forms(plan, Scope::Trait(name));
            let mut decls = TokenStream2::new();
            // Docs stay on the declarations.
            let mut bodies = TokenStream2::new();
            for f in forms {
                decls.extend(f.decl);
                bodies.extend([f.item]);
            }
            let vis = plan.vis;
            let doc = docs::item(
                plan,
                &[format!(
                    "Methods of `{}::{}` on [`{}`], for a tensor type defined in another crate.",
                    plan.namespace,
                    plan.full_name,
                    crate::codegen::kernel::type_string(tensor)
                )],
            );
            let dead = &plan.attrs.dead;
            let mut out = function(doc, quote!(#dead #vis trait #name), decls);
            let tensor = &plan.tensor_tokens;
            out.extend(function(
                quote!(#[automatically_derived]),
                quote!(impl #name for #tensor),
                bodies,
            ));
            out
        }
    })
}
