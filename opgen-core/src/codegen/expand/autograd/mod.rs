//! The Autograd kernel and backward node of an operator with derivative formulas (an
//! [`AutogradPlan`]): the node's struct with the saved values, its `Backward` impl (one
//! block per formula, run when a gradient it gives is needed), and the kernel calling the
//! runtime's `functional` / `inplace` / `out` / `view`, registered at the `Autograd` key.
//!
//! ```text
//! struct MulBackward0 { other: SavedVariable<T>, self_: SavedVariable<T>, .. }
//! impl Backward<T> for MulBackward0 { fn name(..) -> "MulBackward0"; fn apply(..) { .. } }
//! fn __opgen_autograd(ks: DispatchKeySet, self_: &T, other: &T) -> Result<T, Error> {
//!     static OP: AutogradOp = AutogradOp { name: "mul", output_differentiability: &[] };
//!     autograd::functional(ks, &OP, &[Input::from(self_), Input::from(other)],
//!         |mask| Ok(MulBackward0 { other: save(mask[0], other), .. }),
//!         |ks| <mul as Operator>::redispatch(ks, (self_, other)),
//!         |node, result| Ok(()))
//! }
//! ```

mod kernel;
mod lend;
mod node;

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;

use super::link::Params;
use super::{Cx, ident};
use crate::codegen::check::Definition;
use crate::plan::{Api, AutogradInput, AutogradPlan, OpPlan};

/// What the autograd expansion of one operator gives: items for the hidden block, and the
/// link entry registering the kernel at `Autograd`.
pub(crate) struct Expanded {
    pub items: TokenStream2,
    pub entry: TokenStream2,
}

/// The node, the kernel and its registration. `spans[i]` is where formula `i` is written
/// (its Rust tokens carry it, so that rustc reports type errors there).
pub(crate) fn expand_autograd(
    plan: &OpPlan,
    marker: &syn::Ident,
    autograd: &AutogradPlan,
    spans: &[Span],
    params: &Params,
    cx: &Cx<'_>,
) -> Expanded {
    let kernel_name = kernel_ident();
    let node = (!matches!(autograd.kind, crate::plan::AutogradKind::Out))
        .then(|| node::expand_node(autograd, spans, cx));
    let kernel = kernel::expand_kernel(plan, marker, autograd, &kernel_name, cx);
    Expanded {
        items: quote! { #node #kernel },
        entry: registration(plan, marker, &kernel_name, params, cx),
    }
}

/// The name of the generated Autograd kernel function (in the hidden block).
fn kernel_ident() -> syn::Ident {
    syn::Ident::new("__opgen_autograd", Span::call_site())
}

/// The link entry registering `kernel` at `Autograd`, named as torchgen names the
/// operator's `VariableType` kernel (`VariableType::mul_Tensor`), which dumps show. The
/// entry names the operator by string: it may sit in the group of the expansion that
/// declares the operator, whose marker reads its schema from that group (a `const`
/// reading of it there would be a cycle).
fn registration(
    plan: &OpPlan,
    marker: &syn::Ident,
    kernel: &syn::Ident,
    params: &Params,
    cx: &Cx<'_>,
) -> TokenStream2 {
    let rt = cx.rt;
    let Params { lib, key, site } = params;
    let keys = super::link::keys(&[crate::dispatch::DispatchKey::Autograd], rt);
    let name = proc_macro2::Literal::string(&format!(
        "VariableType::{}",
        crate::plan::native_name(&plan.schema)
    ));
    let register = quote! {
        #rt::__private::impl_named_of::<#marker, _, _>(#lib, #key, #kernel, #name, #site)
    };
    let operator = format!("{}::{}", plan.namespace, plan.schema.name.full_name());
    super::link::kernel_by_name(rt, &operator, keys, register, params, Span::call_site())
}

/// The autograd expansion of an operator the attribute defines, if it has formulas.
pub(crate) fn expand_definition(
    def: &Definition,
    plan: &OpPlan,
    api: &Api,
    params: &Params,
    cx: &Cx<'_>,
) -> Option<Expanded> {
    let marker = ident(&api.marker);
    if let Some(borrowed) = &def.borrowed {
        let kernel_name = kernel_ident();
        return Some(Expanded {
            items: lend::expand_borrowed(plan, &marker, borrowed, &kernel_name, cx),
            entry: registration(plan, &marker, &kernel_name, params, cx),
        });
    }
    let f = def.formulas.as_ref()?;
    let autograd = AutogradPlan::new(&AutogradInput {
        info: &f.info,
        node: f.node.clone(),
        formulas: &f.translated,
    });
    let mut expanded = expand_autograd(plan, &marker, &autograd, &f.spans, params, cx);
    // What the formulas lend the operator's in-place and out variants.
    expanded
        .items
        .extend(lend::expand_lent(plan, &marker, &autograd, cx));
    Some(expanded)
}

/// The tokens of Rust source made by the plan (a formula), located at `span`.
pub(crate) fn code_at(code: &str, span: Span) -> TokenStream2 {
    match code.parse::<TokenStream2>() {
        Ok(tokens) => respan(tokens, Span::call_site().located_at(span)),
        Err(_) => crate::codegen::diag::internal(format!(
            "a formula translated into invalid Rust: {code}"
        ))
        .into_compile_error(),
    }
}

fn respan(tokens: TokenStream2, span: Span) -> TokenStream2 {
    use proc_macro2::TokenTree;
    tokens
        .into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut new = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                new.set_span(span);
                return TokenTree::Group(new);
            }
            t.set_span(span);
            t
        })
        .collect()
}
