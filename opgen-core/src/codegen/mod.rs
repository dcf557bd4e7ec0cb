//! Code generation for `#[native_function]` (feature `codegen`): an ordinary library over
//! `proc_macro2`, so it is unit tested and benchmarked in process. `opgen-macros` is a shim
//! that calls [`native_function`]. The design is in `docs/MACROS.md`.
//!
//! Stages (STYLE.md §1): parse (`attribute.rs`: the attribute; `kernel_fn.rs`: the
//! annotated function, and the schema inferred from it), check (`check/`: schema rules,
//! entry rules, defaults, the kernel's signature against the schema, structured options),
//! plan (`crate::plan::OpPlan`: every item, as data), expand (`expand/`: the plan as
//! `quote!` templates). Within a stage every problem is reported; between stages we stop if
//! anything was reported.

use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

pub(crate) mod attribute;
pub(crate) mod check;
pub(crate) mod derivatives;
pub(crate) mod diag;
pub(crate) mod expand;
pub(crate) mod include;
pub(crate) mod kernel_fn;
pub(crate) mod paths;

#[cfg(test)]
mod tests;

pub use attribute::Options;
pub use include::{
    IncludeOptions, include_native_functions, include_native_functions_in, included_names,
};
pub use kernel_fn::KernelFn;

use attribute::{KeyAt, Methods};
use diag::Diagnostics;

/// What one `#[native_function]` says, parsed.
pub struct Input {
    /// The schema literal, when written (form 1).
    pub lit: Option<syn::LitStr>,
    /// The schema: parsed from `lit`, or inferred from the kernel (form 3); `None` for a
    /// kernel of an operator defined elsewhere (`op = `, form 2).
    pub schema: Option<crate::schema::Schema>,
    /// The schema's text: as written in `lit`, or as inferred.
    pub text: Option<String>,
    /// The attribute's options.
    pub options: Options,
    /// The annotated kernel function.
    pub kernel: KernelFn,
    /// The runtime path (`::opgen` or the `crate = ` override).
    pub rt: syn::Path,
    pub(crate) keys: Vec<KeyAt>,
    pub(crate) methods: Methods,
    pub(crate) tensor: Option<syn::Type>,
    pub(crate) op: Option<attribute::OpRef>,
}

/// Expands `#[native_function(args)] item`. Never panics: every problem becomes a compile
/// error, and the kernel is re-emitted so that its callers do not fail a second time.
///
/// ```
/// use quote::quote;
/// let out = opgen_core::codegen::native_function(
///     quote!("relu(Tensor self) -> Tensor", dispatch = "CPU"),
///     quote!(pub fn relu_cpu(self_: &MyTensor) -> MyTensor { self_.clone() }),
/// );
/// let out = out.to_string();
/// assert!(out.contains("pub fn relu (self_ : & MyTensor"));
/// assert!(out.contains("pub fn try_relu"));
/// // A problem is a compile error, next to the unchanged kernel.
/// let out = opgen_core::codegen::native_function(
///     quote!("relu(Tensr self) -> Tensor"),
///     quote!(pub fn relu_cpu(self_: &MyTensor) -> MyTensor { self_.clone() }),
/// );
/// // rustc prints `error: ` before the message, which ends with the rule id.
/// assert!(out.to_string().contains("unknown type `Tensr` [R16]"));
/// ```
pub fn native_function(args: TokenStream2, item: TokenStream2) -> TokenStream2 {
    match run(args, item.clone()) {
        Ok(tokens) => tokens,
        Err(err) => {
            let errors = err.into_compile_error();
            // Re-emitted so that its callers do not fail a second time; but not a delegate's
            // bodyless `fn relu();`, which only the macro may consume.
            let bodyless = matches!(item.clone().into_iter().last(),
                Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ';');
            let item = (!bodyless).then_some(item);
            quote! { #item #errors }
        }
    }
}

fn run(args: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    let input = Input::parse(args, item)?;
    let checked = input.check()?;
    Ok(expand::all(&checked))
}

impl Input {
    /// The parse stage: the attribute, the kernel, and the schema (parsed from the literal
    /// with rules R1–R35, or inferred from the kernel). Every problem is reported.
    pub fn parse(args: TokenStream2, item: TokenStream2) -> syn::Result<Input> {
        let (attr, kernel) = match (
            attribute::parse_attribute(args.clone()),
            kernel_fn::parse_kernel(item),
        ) {
            (Ok(a), Ok(k)) => (a, k),
            (attr, kernel) => {
                let mut diag = Diagnostics::default();
                // The schema's own problems are independent of the options' and the
                // kernel's: all are reported at once, the schema's first.
                if let Some(lit) = attribute::schema_literal(args)
                    && let Err(errors) = crate::schema::parse_schema(&lit.value())
                {
                    for e in &errors {
                        diag.schema(&lit, &lit.value(), e);
                    }
                }
                attr.err().into_iter().for_each(|e| diag.push(e));
                kernel.err().into_iter().for_each(|e| diag.push(e));
                return diag
                    .finish(())
                    .and(Err(diag::internal("an input failed without an error")));
            }
        };
        let mut diag = Diagnostics::default();
        let text = match (&attr.lit, &attr.op) {
            (Some(lit), _) => Some(lit.value()),
            (None, Some(_)) => None,
            (None, None) => {
                let keys: Vec<_> = attr.keys.iter().map(|k| k.key).collect();
                let name = attr.options.name.as_ref();
                kernel_fn::infer_schema(&kernel, name, &keys, attr.tensor.as_ref(), &mut diag)
            }
        };
        let schema = match &text {
            Some(text) => match crate::schema::parse_schema(text) {
                Ok(schema) => Some(schema),
                Err(errors) => {
                    for e in &errors {
                        check::report_schema(&attr.lit, &kernel, text, e, &mut diag);
                    }
                    None
                }
            },
            None => None,
        };
        diag.finish(Input {
            lit: attr.lit,
            schema,
            text,
            options: attr.options,
            kernel,
            rt: attr.rt,
            keys: attr.keys,
            methods: attr.methods,
            tensor: attr.tensor,
            op: attr.op,
        })
    }
}
