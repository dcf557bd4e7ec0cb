//! Formulas lent and borrowed (torchgen's rule: an in-place or out operator without formulas
//! of its own takes its functional operator's). A functional operator with formulas
//! implements `__private::formulas::{InplaceFormulas, OutFormulas}` on its marker for the
//! tuple of its arguments: the in-place variant's Autograd kernel (the functional
//! operator's node, `self` saved as a clone before the call where a formula reads it) and
//! the out variant's, each given the variant's own call below autograd. An in-place or out
//! operator with `derivatives(functional)` has an Autograd kernel that calls them.
//!
//! ```text
//! impl<'a> InplaceFormulas<(&'a T, &'a T)> for mul {
//!     fn inplace<R>(ks, (self_, other): (&'a T, &'a T), forward) -> Result<R> {
//!         static __OPGEN_OP: AutogradOp = AutogradOp { name: "mul_", .. };
//!         autograd::inplace(ks, &__OPGEN_OP, self_, &[..], |mask| Ok(MulBackward0 { .. }), forward, ..)
//!     }
//! }
//! fn __opgen_autograd(ks, self_: &mut T, other: &T) -> Result<&mut T> {   // mul_'s
//!     let h0 = self_.clone();
//!     <mul as InplaceFormulas<_>>::inplace(ks, (&h0, other), |ks| <mul_ as Operator>::redispatch(ks, (self_, other)))
//! }
//! ```

use proc_macro2::TokenStream as TokenStream2;
use quote::{ToTokens, quote};

use super::super::types::{Lifetimes, rust_type};
use super::super::{Cx, ident, respan};
use super::kernel::AutogradKernel;
use crate::codegen::derivatives::check::Borrowed;
use crate::plan::{AutogradKind, AutogradPlan, OpPlan, RustType};

/// The impls a functional operator's marker gets: `OutFormulas` always, `InplaceFormulas`
/// when an in-place variant can exist.
pub(super) fn expand_lent(
    plan: &OpPlan,
    marker: &syn::Ident,
    autograd: &AutogradPlan,
    cx: &Cx<'_>,
) -> TokenStream2 {
    if matches!(
        autograd.kind,
        AutogradKind::InPlace { .. } | AutogradKind::Out
    ) {
        return TokenStream2::new();
    }
    let (rt, tensor) = (cx.rt, cx.tensor);
    let formulas = quote!(#rt::__private::formulas);
    let ids: Vec<syn::Ident> = plan.args.iter().map(|a| ident(&a.ident)).collect();
    let types = plan
        .args
        .iter()
        .map(|a| rust_type(&a.ty, cx, Lifetimes::Named));
    let tuple = quote!((#(#types,)*));
    let lifetime = (plan.args.iter())
        .any(|a| has_reference(&a.ty))
        .then(|| quote!(<'a>));
    let pattern = quote!((#(#ids,)*): #tuple);
    let r = quote!(__OpgenR);
    let forward = quote! {
        __opgen_forward: impl ::core::ops::FnOnce(#rt::DispatchKeySet) -> #rt::Result<#r>
    };
    let out = {
        let k = AutogradKernel { plan, autograd, cx };
        let (op, checks, inputs) = (k.op_static(), k.checks(), k.inputs(&autograd.inputs));
        quote! {
            #[automatically_derived]
            impl #lifetime #formulas::OutFormulas<#tuple> for #marker {
                #[allow(unused_variables)]
                fn out<#r>(
                    __opgen_ks: #rt::DispatchKeySet,
                    #pattern,
                    __opgen_outs: &[#rt::autograd::Input<'_, #tensor>],
                    #forward,
                ) -> #rt::Result<#r> {
                    #op
                    #(#checks)*
                    #rt::autograd::out(__opgen_ks, &__OPGEN_OP, &#inputs, __opgen_outs, __opgen_forward)
                }
            }
        }
    };
    let Some(variant) = autograd.inplace_variant(&plan.schema) else {
        return out;
    };
    let AutogradKind::InPlace { self_arg } = variant.kind else {
        return out;
    };
    let k = AutogradKernel {
        plan,
        autograd: &variant,
        cx,
    };
    let (op, checks, inputs) = (k.op_static(), k.checks(), k.inputs(&variant.inputs));
    let (save, after, this) = (k.save(), k.after(), k.shared(self_arg));
    quote! {
        #out
        #[automatically_derived]
        impl #lifetime #formulas::InplaceFormulas<#tuple> for #marker {
            #[allow(unused_variables)]
            fn inplace<#r>(
                __opgen_ks: #rt::DispatchKeySet,
                #pattern,
                #forward,
            ) -> #rt::Result<#r> {
                #op
                #(#checks)*
                #rt::autograd::inplace(__opgen_ks, &__OPGEN_OP, #this, &#inputs, #save, __opgen_forward, #after)
            }
        }
    }
}

/// Whether a parameter of type `ty` borrows (its tuple needs the impl's lifetime).
fn has_reference(ty: &RustType) -> bool {
    match ty {
        RustType::Ref(_) | RustType::Mut(_) | RustType::Str => true,
        RustType::Option(inner) => has_reference(inner),
        _ => false,
    }
}

/// The Autograd kernel of an in-place or out operator with `derivatives(functional)`:
/// the functional operator's `inplace` or `out` with this operator's call below autograd.
pub(super) fn expand_borrowed(
    plan: &OpPlan,
    marker: &syn::Ident,
    borrowed: &Borrowed,
    name: &syn::Ident,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let rt = cx.rt;
    let handles = super::kernel::handles(plan, cx);
    let shared = |i: usize| super::kernel::shared_arg(plan, i);
    let functional = &borrowed.path;
    let formulas = quote!(#rt::__private::formulas);
    // The functional operator's arguments: this operator's, shared, before its outs. The
    // trait is named with them, so that a functional operator without formulas, or with
    // other arguments, is the trait's message.
    let end = if borrowed.out {
        plan.schema.out_start()
    } else {
        plan.args.len()
    };
    let types = plan.args[..end.min(plan.args.len())].iter().map(|a| {
        let ty = match &a.ty {
            RustType::Mut(inner) => RustType::Ref(inner.clone()),
            ty => ty.clone(),
        };
        rust_type(&ty, cx, Lifetimes::Elided).into_token_stream()
    });
    let tuple = quote!((#(#types,)*));
    let args = (0..end).map(shared);
    let call = |forward: TokenStream2| {
        if borrowed.out {
            let outs = (end..plan.args.len()).map(|i| {
                let s = shared(i);
                quote!(#rt::autograd::Input::from(#s))
            });
            let head = respan(
                quote!(<#functional as #formulas::OutFormulas<#tuple>>::out),
                borrowed_span(borrowed),
            );
            quote!(#head(__opgen_ks, (#(#args,)*), &[#(#outs),*], #forward))
        } else {
            let head = respan(
                quote!(<#functional as #formulas::InplaceFormulas<#tuple>>::inplace),
                borrowed_span(borrowed),
            );
            quote!(#head(__opgen_ks, (#(#args,)*), #forward))
        }
    };
    super::kernel::kernel_fn(plan, marker, name, cx, |forward| {
        let call = call(forward);
        quote! {
            #(#handles)*
            #call
        }
    })
}

/// Where errors about the functional operator go: `functional` (or the path written).
fn borrowed_span(b: &Borrowed) -> proc_macro2::Span {
    syn::spanned::Spanned::span(&b.path)
}
