//! The Autograd kernel: the operator's arguments, the checks of arguments without formula,
//! then one call of the runtime function of its kind with the closures that save (before and
//! after the call), run the operator below autograd, and replay a view.

use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::{format_ident, quote};

use super::super::types::{Lifetimes, rust_type};
use super::super::{Cx, ident};
use crate::plan::{
    AutogradKind, AutogradPlan, OpPlan, RustType, SavedField, SavedValue, ValueSource,
};

/// What the kernel's pieces share.
pub(super) struct AutogradKernel<'a> {
    pub plan: &'a OpPlan,
    pub autograd: &'a AutogradPlan,
    pub cx: &'a Cx<'a>,
}

/// The kernel function `name`.
pub(super) fn expand_kernel(
    plan: &OpPlan,
    marker: &syn::Ident,
    autograd: &AutogradPlan,
    name: &syn::Ident,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let k = AutogradKernel { plan, autograd, cx };
    kernel_fn(plan, marker, name, cx, |forward| {
        let handles = handles(plan, cx);
        let op = k.op_static();
        let checks = k.checks();
        let call = k.call(marker, &forward);
        quote! {
            #op
            #(#handles)*
            #(#checks)*
            #call
        }
    })
}

/// The Autograd kernel function `name`: one parameter per schema argument, as the kernel it
/// wraps, and the body `body` makes from the closure that calls the operator below autograd.
pub(super) fn kernel_fn(
    plan: &OpPlan,
    marker: &syn::Ident,
    name: &syn::Ident,
    cx: &Cx<'_>,
    body: impl FnOnce(TokenStream2) -> TokenStream2,
) -> TokenStream2 {
    let rt = cx.rt;
    let ids: Vec<syn::Ident> = plan.args.iter().map(|a| ident(&a.ident)).collect();
    let params = plan.args.iter().zip(&ids).map(|(a, id)| {
        let ty = rust_type(&a.ty, cx, Lifetimes::Elided);
        quote!(#id: #ty)
    });
    let ret = rust_type(&plan.returns, cx, Lifetimes::Elided);
    let body = body(quote! {
        |__opgen_ks| <#marker as #rt::dispatch::Operator>::redispatch(__opgen_ks, (#(#ids,)*))
    });
    quote! {
        // One parameter per schema argument, as the kernel it wraps.
        #[allow(clippy::too_many_arguments)]
        fn #name(__opgen_ks: #rt::DispatchKeySet, #(#params),*) -> #rt::Result<#ret> {
            #body
        }
    }
}

impl AutogradKernel<'_> {
    /// The call of the runtime's `autograd::{out, functional, inplace, view}` for the
    /// operator's kind, with `forward` below autograd.
    fn call(&self, marker: &syn::Ident, forward: &TokenStream2) -> TokenStream2 {
        let (k, autograd, rt) = (self, self.autograd, self.cx.rt);
        let inputs = k.inputs(&autograd.inputs);
        match autograd.kind {
            AutogradKind::Out => {
                let outs = k.inputs(&autograd.outs);
                quote!(#rt::autograd::out(__opgen_ks, &__OPGEN_OP, &#inputs, &#outs, #forward))
            }
            AutogradKind::Functional => {
                let (save, after) = (k.save(), k.after());
                quote!(#rt::autograd::functional(__opgen_ks, &__OPGEN_OP, &#inputs, #save, #forward, #after))
            }
            AutogradKind::InPlace { self_arg } => {
                let (save, after, this) = (k.save(), k.after(), k.shared(self_arg));
                quote!(#rt::autograd::inplace(__opgen_ks, &__OPGEN_OP, #this, &#inputs, #save, #forward, #after))
            }
            AutogradKind::View { base, list } => {
                let (save, after, this) = (k.save(), k.after(), k.shared(base));
                let replay = k.replay(marker, base, list);
                quote!(#rt::autograd::view(__opgen_ks, &__OPGEN_OP, #this, &#inputs, #replay, #save, #forward, #after))
            }
        }
    }
}

/// `let __opgen_hI = clone(arg);` for each written argument: a handle shared with the
/// checks and saves made around the call that writes it.
pub(super) fn handles(plan: &OpPlan, cx: &Cx<'_>) -> Vec<TokenStream2> {
    let tensor = cx.tensor;
    (plan.args.iter().enumerate())
        .filter_map(|(i, a)| {
            let (h, id) = (handle(i), ident(&a.ident));
            match &a.ty {
                RustType::Mut(inner) if **inner == RustType::Tensor => {
                    Some(quote!(let #h = <#tensor as ::core::clone::Clone>::clone(#id);))
                }
                RustType::Mut(_) => Some(quote!(let #h = #id.to_vec();)),
                _ => None,
            }
        })
        .collect()
}

/// Argument `i` of `plan` as a shared reference (a written one through its handle).
pub(super) fn shared_arg(plan: &OpPlan, i: usize) -> TokenStream2 {
    let Some(a) = plan.args.get(i) else {
        return TokenStream2::new();
    };
    let id = ident(&a.ident);
    match &a.ty {
        RustType::Mut(inner) if **inner == RustType::Tensor => {
            let h = handle(i);
            quote!(&#h)
        }
        RustType::Mut(_) => {
            let h = handle(i);
            quote!(&#h[..])
        }
        _ => quote!(#id),
    }
}

/// The local holding a handle of written argument `i` (its tensor shared, not borrowed
/// mutably), for the checks and saves made around the call that writes it.
fn handle(i: usize) -> syn::Ident {
    format_ident!("__opgen_h{i}")
}

impl AutogradKernel<'_> {
    /// `static __OPGEN_OP: AutogradOp`: the name in messages and which returns are
    /// differentiable.
    pub(super) fn op_static(&self) -> TokenStream2 {
        let rt = self.cx.rt;
        let name = Literal::string(&self.autograd.op);
        let flags = &self.autograd.output_differentiability;
        quote! {
            static __OPGEN_OP: #rt::autograd::AutogradOp = #rt::autograd::AutogradOp {
                name: #name,
                output_differentiability: &[#(#flags),*],
            };
        }
    }

    /// The schema index of `self`, for an in-place operator.
    fn in_place_self(&self) -> Option<usize> {
        match self.autograd.kind {
            AutogradKind::InPlace { self_arg } => Some(self_arg),
            _ => None,
        }
    }

    /// Argument `i` as a shared reference (a written one through its handle).
    pub(super) fn shared(&self, i: usize) -> TokenStream2 {
        shared_arg(self.plan, i)
    }

    /// `check_no_requires_grad` of each tensor argument without formula that is not
    /// `non_differentiable`.
    pub(super) fn checks(&self) -> Vec<TokenStream2> {
        let rt = self.cx.rt;
        (self.autograd.unchecked.iter())
            .map(|&i| {
                let arg = Literal::string(&self.plan.schema.arguments[i].name);
                let shared = self.shared(i);
                quote!(#rt::autograd::check_no_requires_grad(&__OPGEN_OP, #arg, #rt::autograd::Input::from(#shared))?;)
            })
            .collect()
    }

    /// `[Input::from(a), ...]` of arguments `args`.
    pub(super) fn inputs(&self, args: &[usize]) -> TokenStream2 {
        let rt = self.cx.rt;
        let items = args.iter().map(|&i| {
            let shared = self.shared(i);
            quote!(#rt::autograd::Input::from(#shared))
        });
        quote!([#(#items),*])
    }

    /// Whether saved value `f` is needed, from `grad_input_mask`.
    fn needed(f: &SavedField) -> TokenStream2 {
        if f.needed_by.is_empty() {
            return quote!(false);
        }
        let items = f.needed_by.iter().map(|&i| {
            let i = Literal::usize_unsuffixed(i);
            quote!(__opgen_mask[#i])
        });
        quote!(#(#items)||*)
    }

    /// The closure that builds the node with what the formulas of the needed gradients use.
    pub(super) fn save(&self) -> TokenStream2 {
        let node = ident(&self.autograd.node);
        let fields = self.autograd.fields.iter().map(|f| {
            let id = ident(&f.name);
            let value = if f.after {
                self.empty(f)
            } else {
                let src = self.source(f.source);
                self.value(f, &Self::needed(f), &src)
            };
            quote!(#id: #value,)
        });
        let after: Vec<TokenStream2> = (self.autograd.fields.iter())
            .filter(|f| f.after)
            .map(Self::needed)
            .collect();
        let keep = (!after.is_empty()).then(|| quote!(__opgen_keep: [#(#after),*],));
        quote! {
            |__opgen_mask: &[bool]| ::core::result::Result::Ok(#node {
                #(#fields)*
                #keep
            })
        }
    }

    /// A field before the call writes it (a value of the outputs).
    fn empty(&self, f: &SavedField) -> TokenStream2 {
        let rt = self.cx.rt;
        match f.value {
            SavedValue::Tensor { .. } => quote!(#rt::autograd::SavedVariable::none()),
            SavedValue::TensorList { .. } => quote!(::std::vec::Vec::new()),
            _ => quote!(::core::option::Option::None),
        }
    }

    /// The closure that saves the values of the outputs the formulas use.
    pub(super) fn after(&self) -> TokenStream2 {
        let after: Vec<&SavedField> = self.autograd.fields.iter().filter(|f| f.after).collect();
        if after.is_empty() {
            return quote!(|_, _| ::core::result::Result::Ok(()));
        }
        let sets = after.iter().enumerate().map(|(k, f)| {
            let id = ident(&f.name);
            let k = Literal::usize_unsuffixed(k);
            let need = quote!(__opgen_node.__opgen_keep[#k]);
            let src = self.source(f.source);
            let value = self.value(f, &need, &src);
            quote!(__opgen_node.#id = #value;)
        });
        let node = ident(&self.autograd.node);
        // An in-place operator's `result` is read from `self` (`source`).
        let result = if matches!(self.autograd.kind, AutogradKind::InPlace { .. }) {
            quote!(_)
        } else {
            let ret = rust_type(&self.plan.returns, self.cx, Lifetimes::Elided);
            quote!(__opgen_result: &#ret)
        };
        quote! {
            |__opgen_node: &mut #node, #result| {
                #(#sets)*
                ::core::result::Result::Ok(())
            }
        }
    }

    /// The expression a saved value is computed from: an argument (shared), a return, or
    /// the gathered options.
    fn source(&self, source: ValueSource) -> TokenStream2 {
        // The tensor an in-place operator returns is `self`, after the call.
        if let (ValueSource::Return(_), Some(this)) = (source, self.in_place_self()) {
            return self.shared(this);
        }
        match source {
            ValueSource::Arg(i) => self.shared(i),
            ValueSource::Return(_) if self.plan.schema.returns.len() == 1 => {
                quote!(__opgen_result)
            }
            ValueSource::Return(i) => {
                let i = syn::Index::from(i);
                quote!(&__opgen_result.#i)
            }
            ValueSource::Options => self.gathered_options(),
        }
    }

    /// `TensorOptions::from_parts(dtype, layout, device, pin_memory)` of the arguments.
    fn gathered_options(&self) -> TokenStream2 {
        let rt = self.cx.rt;
        let start = self.plan.schema.tensor_options_start().unwrap_or(0);
        let parts = (start..start + 4)
            .filter_map(|i| self.plan.args.get(i))
            .map(|a| ident(&a.ident));
        quote!(#rt::TensorOptions::from_parts(#(#parts),*))
    }

    /// The saved value of `f` when `need` holds, from `src`.
    fn value(&self, f: &SavedField, need: &TokenStream2, src: &TokenStream2) -> TokenStream2 {
        let rt = self.cx.rt;
        let private = quote!(#rt::__private::autograd);
        let functions = quote!(#rt::autograd::functions);
        let computed = |expr: TokenStream2| quote!(#private::save_value(#need, || #expr)?);
        match &f.value {
            SavedValue::Tensor {
                original_self: true,
                ..
            } => {
                quote!(#private::save_original(#need, #src)?)
            }
            SavedValue::Tensor {
                optional: false, ..
            } if f.after => {
                let nr = Literal::u32_unsuffixed(self.output_nr(f.source));
                quote!(#private::save_output(#need, #src, #nr))
            }
            SavedValue::Tensor {
                optional: false, ..
            } => quote!(#private::save(#need, #src)),
            SavedValue::Tensor { optional: true, .. } => {
                quote!(#private::save_optional(#need, #src))
            }
            SavedValue::TensorList { optional: false } => quote!(#private::save_list(#need, #src)),
            SavedValue::TensorList { optional: true } => {
                quote!(#private::save_optional_list(#need, #src))
            }
            SavedValue::Copy { ty } => {
                let owned = owned_expr(ty, src);
                computed(quote!(::core::result::Result::Ok(#owned)))
            }
            SavedValue::Sizes { strides, optional } => {
                let f = if *strides {
                    quote!(strides)
                } else {
                    quote!(sizes)
                };
                if *optional {
                    computed(quote!(#src.map(#functions::#f).transpose()))
                } else {
                    computed(quote!(#functions::#f(#src)))
                }
            }
            SavedValue::Size(d) => {
                let d = Literal::i64_unsuffixed(*d);
                computed(quote!(#functions::size(#src, #d)))
            }
            SavedValue::Numel => computed(quote!(#functions::numel(#src))),
            SavedValue::Dim => computed(quote!(#functions::dim(#src))),
            SavedValue::Options => computed(quote!(#functions::options(#src))),
            SavedValue::TypeAndSize => computed(quote!(#functions::TypeAndSize::of(#src))),
            SavedValue::Geometry => computed(quote!(#functions::TensorGeometry::of(#src))),
            SavedValue::ArgsSizes => computed(quote!(#functions::to_args_sizes(#src))),
            SavedValue::ArgsScalarTypes => computed(quote!(#functions::to_args_scalartypes(#src))),
            SavedValue::ScalarType => computed(quote!(#functions::scalar_type(#src))),
            SavedValue::Layout => computed(quote!(#functions::layout(#src))),
            SavedValue::IsConj => computed(quote!(::core::result::Result::Ok(false))),
            SavedValue::GatheredOptions => computed(quote!(::core::result::Result::Ok(#src))),
        }
    }

    /// The number of return `source` among the differentiable outputs (what a saved output
    /// is unpacked as).
    fn output_nr(&self, source: ValueSource) -> u32 {
        let ValueSource::Return(i) = source else {
            return 0;
        };
        let flags = &self.autograd.output_differentiability;
        let before = if flags.is_empty() {
            i
        } else {
            flags.iter().take(i).filter(|d| **d).count()
        };
        u32::try_from(before).unwrap_or(0)
    }

    /// The replay of a view: the operator called on another base with copies of the other
    /// arguments; for a list of views, element `i` of its result.
    pub(super) fn replay(&self, marker: &syn::Ident, base: usize, list: bool) -> TokenStream2 {
        let (rt, tensor) = (self.cx.rt, self.cx.tensor);
        let mut copies = Vec::new();
        let args = self.plan.args.iter().enumerate().map(|(i, a)| {
            if i == base {
                return quote!(__opgen_base);
            }
            let c = format_ident!("__opgen_c{i}");
            let id = ident(&a.ident);
            let owned = owned_expr(&a.ty, &quote!(#id));
            copies.push(quote!(let #c = #owned;));
            borrow_expr(&a.ty, &quote!(#c))
        });
        let args: Vec<TokenStream2> = args.collect();
        let returns = self.plan.schema.returns.len();
        let pick = if list {
            quote!(#rt::autograd::functions::value(__opgen_r.into_iter().nth(__opgen_i)))
        } else if returns > 1 {
            // Several views: the one at the output's place.
            let arms = (0..returns).map(|i| {
                let (at, field) = (Literal::usize_unsuffixed(i), syn::Index::from(i));
                quote!(#at => ::core::result::Result::Ok(__opgen_r.#field),)
            });
            quote! {
                match __opgen_i {
                    #(#arms)*
                    _ => #rt::autograd::functions::value(::core::option::Option::None),
                }
            }
        } else {
            quote!(::core::result::Result::Ok(__opgen_r))
        };
        quote! {
            |__opgen_i: usize| -> #rt::autograd::ViewFn<#tensor> {
                #(#copies)*
                ::std::sync::Arc::new(move |__opgen_base: &#tensor| {
                    let __opgen_r = <#marker as #rt::dispatch::Operator>::call((#(#args,)*))?;
                    #pick
                })
            }
        }
    }
}

/// An owned copy of a parameter of type `ty` (what a node or a view's replay keeps).
fn owned_expr(ty: &RustType, src: &TokenStream2) -> TokenStream2 {
    match ty {
        RustType::Ref(inner) => match &**inner {
            RustType::Slice(_) => quote!(<[_]>::to_vec(#src)),
            _ => quote!(::core::clone::Clone::clone(#src)),
        },
        RustType::Str => quote!(::std::string::ToString::to_string(#src)),
        RustType::Option(inner) => match &**inner {
            RustType::Ref(r) if matches!(**r, RustType::Slice(_)) => {
                quote!(::core::option::Option::map(#src, <[_]>::to_vec))
            }
            RustType::Ref(_) => quote!(::core::option::Option::cloned(#src)),
            RustType::Str => {
                quote!(::core::option::Option::map(#src, ::std::string::ToString::to_string))
            }
            _ => quote!(::core::clone::Clone::clone(&#src)),
        },
        _ => quote!(::core::clone::Clone::clone(&#src)),
    }
}

/// A parameter of type `ty` from its owned copy `c`, inside a closure that may run again.
fn borrow_expr(ty: &RustType, c: &TokenStream2) -> TokenStream2 {
    match ty {
        RustType::Ref(inner) => match &**inner {
            RustType::Slice(_) => quote!(&#c[..]),
            _ => quote!(&#c),
        },
        RustType::Str => quote!(::std::string::String::as_str(&#c)),
        RustType::Option(inner) => match &**inner {
            RustType::Ref(r) if matches!(**r, RustType::Slice(_)) => {
                quote!(::core::option::Option::as_deref(&#c))
            }
            RustType::Str => quote!(::core::option::Option::as_deref(&#c)),
            RustType::Ref(_) => quote!(::core::option::Option::as_ref(&#c)),
            _ => quote!(::core::clone::Clone::clone(&#c)),
        },
        _ => quote!(::core::clone::Clone::clone(&#c)),
    }
}
