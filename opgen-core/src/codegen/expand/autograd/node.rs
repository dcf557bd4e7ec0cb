//! The backward node: a struct of the saved values and its `Backward` impl.

use proc_macro2::{Literal, Span, TokenStream as TokenStream2};
use quote::{ToTokens, quote};

use super::super::types::{Lifetimes, rust_type};
use super::super::{Cx, ident};
use super::code_at;
use crate::plan::{AutogradPlan, Binding, DerivativeStep, SavedField, SavedValue, owned_type};

/// The struct and its impl.
pub(super) fn expand_node(plan: &AutogradPlan, spans: &[Span], cx: &Cx<'_>) -> TokenStream2 {
    let (rt, tensor) = (cx.rt, cx.tensor);
    let name = ident(&plan.node);
    let node_name = Literal::string(&plan.node);
    let fields = plan.fields.iter().map(|f| {
        let (id, ty) = (ident(&f.name), field_type(f, cx));
        quote!(#id: #ty,)
    });
    let keep = keep_field(plan);
    let steps = (plan.steps.iter().zip(spans)).map(|(s, span)| expand_step(plan, s, *span, cx));
    let releases = plan.fields.iter().filter_map(|f| release(f, cx));
    quote! {
        #[allow(non_camel_case_types)]
        struct #name {
            #(#fields)*
            #keep
        }
        #[automatically_derived]
        impl #rt::autograd::Backward<#tensor> for #name {
            fn name(&self) -> &'static str {
                #node_name
            }
            fn apply(
                &mut self,
                __opgen_ctx: &mut #rt::autograd::BackwardContext<'_, #tensor>,
            ) -> #rt::Result<()> {
                if !__opgen_ctx.any_grad_defined() {
                    return ::core::result::Result::Ok(());
                }
                let __opgen_node = ::std::sync::Arc::clone(__opgen_ctx.node());
                #(#steps)*
                ::core::result::Result::Ok(())
            }
            fn release_saved(&mut self) {
                #(#releases)*
            }
        }
    }
}

/// `__opgen_keep: [bool; N]`: which values of the outputs the kernel saves after the call
/// (decided, like the others, from `grad_input_mask` before it).
fn keep_field(plan: &AutogradPlan) -> Option<TokenStream2> {
    let n = plan.fields.iter().filter(|f| f.after).count();
    (n > 0).then(|| {
        let n = Literal::usize_unsuffixed(n);
        quote!(__opgen_keep: [bool; #n],)
    })
}

/// The type a saved value is kept as.
fn field_type(f: &SavedField, cx: &Cx<'_>) -> TokenStream2 {
    let (rt, tensor) = (cx.rt, cx.tensor);
    let saved = quote!(#rt::autograd::SavedVariable<#tensor>);
    let functions = quote!(#rt::autograd::functions);
    let value = match &f.value {
        SavedValue::Tensor { .. } => return saved,
        SavedValue::TensorList { .. } => return quote!(::std::vec::Vec<#saved>),
        SavedValue::Copy { ty } => {
            rust_type(&owned_type(ty), cx, Lifetimes::Elided).into_token_stream()
        }
        SavedValue::Sizes { optional, .. } => {
            let v = quote!(::std::vec::Vec<i64>);
            if *optional {
                quote!(::core::option::Option<#v>)
            } else {
                v
            }
        }
        SavedValue::Size(_) | SavedValue::Numel | SavedValue::Dim => quote!(i64),
        SavedValue::Options | SavedValue::GatheredOptions => quote!(#rt::TensorOptions),
        SavedValue::TypeAndSize => quote!(#functions::TypeAndSize),
        SavedValue::Geometry => quote!(#functions::TensorGeometry),
        SavedValue::ArgsSizes => quote!(::std::vec::Vec<::std::vec::Vec<i64>>),
        SavedValue::ArgsScalarTypes => quote!(::std::vec::Vec<#rt::ScalarType>),
        SavedValue::ScalarType => quote!(#rt::ScalarType),
        SavedValue::Layout => quote!(#rt::Layout),
        SavedValue::IsConj => quote!(bool),
    };
    quote!(::core::option::Option<#value>)
}

/// Frees a saved tensor (or list) after the node ran without `retain_graph`.
fn release(f: &SavedField, cx: &Cx<'_>) -> Option<TokenStream2> {
    let id = ident(&f.name);
    let rt = cx.rt;
    match f.value {
        SavedValue::Tensor { .. } => Some(quote!(self.#id.reset();)),
        SavedValue::TensorList { .. } => {
            Some(quote!(#rt::__private::autograd::reset_list(&mut self.#id);))
        }
        _ => None,
    }
}

/// One formula: run when one of its inputs' gradients is needed; its variables bound,
/// its value given to those inputs.
fn expand_step(
    plan: &AutogradPlan,
    step: &DerivativeStep,
    span: Span,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let rt = cx.rt;
    let needs = step.inputs.iter().map(|&i| {
        let i = Literal::usize_unsuffixed(i);
        quote!(__opgen_ctx.needs(#i))
    });
    let needed = quote!(#(#needs)||*);
    let label = syn::Lifetime::new("'__opgen_step", Span::call_site());
    let uses_grad = step.bindings.iter().any(|(_, b)| *b == Binding::Grad);
    let bindings = step
        .bindings
        .iter()
        .map(|(name, b)| binding(plan, step, name, b, &label, cx));
    let value = code_at(&step.rust, span);
    let set = set_grads(plan, step, rt);
    let body = quote! {
        #(#bindings)*
        let __opgen_value = #value;
        #set
    };
    let body = if uses_grad {
        quote!({ #label: { #body } })
    } else {
        quote!({ #body })
    };
    quote! {
        if #needed #body
    }
}

/// `let name = ...;` for one variable of a formula.
fn binding(
    plan: &AutogradPlan,
    step: &DerivativeStep,
    name: &str,
    b: &Binding,
    label: &syn::Lifetime,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let rt = cx.rt;
    let id = ident(name);
    let private = quote!(#rt::__private::autograd);
    match b {
        Binding::Grad => quote! {
            let #id = match __opgen_ctx.grad(0) {
                ::core::option::Option::Some(g) => ::core::clone::Clone::clone(g),
                ::core::option::Option::None => break #label,
            };
        },
        Binding::NamedGrad(k) => {
            let k = Literal::usize_unsuffixed(*k);
            quote!(let #id = __opgen_ctx.grad(#k).cloned();)
        }
        Binding::Grads => quote!(let #id = __opgen_ctx.grads().to_vec();),
        Binding::Mask => {
            let needs = step.inputs.iter().map(|&i| {
                let i = Literal::usize_unsuffixed(i);
                quote!(__opgen_ctx.needs(#i))
            });
            quote!(let #id = [#(#needs),*];)
        }
        Binding::RetainVariables => quote!(let #id = true;),
        Binding::Field(i) => {
            let Some(f) = plan.fields.get(*i) else {
                return TokenStream2::new();
            };
            let field = ident(&f.name);
            let node = quote!(&__opgen_node);
            match &f.value {
                SavedValue::Tensor {
                    optional: false, ..
                } => {
                    quote!(let #id = self.#field.get(#node)?;)
                }
                SavedValue::Tensor { optional: true, .. } => {
                    quote!(let #id = self.#field.unpack(#node)?;)
                }
                SavedValue::TensorList { optional: false } => {
                    quote!(let #id = #private::unpack_list(&self.#field, #node)?;)
                }
                SavedValue::TensorList { optional: true } => {
                    quote!(let #id = #private::unpack_optional_list(&self.#field, #node)?;)
                }
                value => {
                    let get = quote!(#private::saved(&self.#field, #node)?);
                    match value {
                        SavedValue::Copy { ty } if borrows_str(ty) => quote! {
                            let #id = #get;
                            let #id = #id.as_deref();
                        },
                        SavedValue::Copy { ty } if *ty == crate::plan::RustType::Str => quote! {
                            let #id = #get;
                            let #id = #id.as_str();
                        },
                        _ => quote!(let #id = #get;),
                    }
                }
            }
        }
    }
}

/// `Option<&str>`: bound as one, from the `Option<String>` kept.
fn borrows_str(ty: &crate::plan::RustType) -> bool {
    matches!(ty, crate::plan::RustType::Option(inner) if **inner == crate::plan::RustType::Str)
}

/// Gives the formula's value to its inputs: one input (a tensor or a list), or a tuple,
/// one element per input, each given only if needed.
fn set_grads(plan: &AutogradPlan, step: &DerivativeStep, rt: &syn::Path) -> TokenStream2 {
    let private = quote!(#rt::__private::autograd);
    let set = |input: usize, value: TokenStream2| {
        let i = Literal::usize_unsuffixed(input);
        if plan.list_inputs.get(input).copied().unwrap_or(false) {
            quote!(#private::set_grad_list(__opgen_ctx, #i, #value);)
        } else {
            quote!(#private::set_grad(__opgen_ctx, #i, #value);)
        }
    };
    if let [one] = step.inputs.as_slice() {
        return set(*one, quote!(__opgen_value));
    }
    let parts: Vec<syn::Ident> = (0..step.inputs.len())
        .map(|k| ident(&format!("__opgen_g{k}")))
        .collect();
    let sets = step.inputs.iter().zip(&parts).map(|(&input, part)| {
        let i = Literal::usize_unsuffixed(input);
        let s = set(input, quote!(#part));
        quote!(if __opgen_ctx.needs(#i) { #s })
    });
    quote! {
        let (#(#parts,)*) = __opgen_value;
        #(#sets)*
    }
}
