//! The expand stage: a checked input → tokens. Never fails: everything that could go wrong
//! was checked before (STYLE.md §1).
//!
//! For an operator defined here (forms 1 and 3), in this order: the kernel unchanged, the
//! arguments struct, the free functions, the methods, the redispatch functions, the hidden
//! typed handle, the registration. For a kernel of an operator defined elsewhere (form 2):
//! the kernel and its registration.

pub(crate) mod backend_select;
mod device;
pub(crate) mod docs;
pub(crate) mod frag;
pub(crate) mod free_fn;
pub(crate) mod method;
mod plan;
pub(crate) mod redispatch;
pub(crate) mod register;
mod structured;
mod types;

use proc_macro2::TokenStream as TokenStream2;
use quote::quote;

use super::check::Checked;
use crate::dispatch::DispatchKey;

pub(crate) use plan::{OpPlan, PlanSource};

/// The whole expansion.
pub(crate) fn all(checked: &Checked<'_>) -> TokenStream2 {
    let input = checked.input;
    let kernel = &input.kernel.tokens;
    let Some(def) = &checked.def else {
        if input.options.structured.as_ref().is_some_and(|s| s.value) {
            return structured::expand_impl(checked);
        }
        return expand_kernel_only(checked);
    };
    if def.function.structured {
        return structured::expand_meta(checked, def);
    }
    if def.function.structured_delegate.is_some() {
        return structured::expand_delegate(checked, def);
    }
    let plan = OpPlan::new(checked, def);
    // Every item is written to one stream, in order.
    let mut out = kernel.clone();
    free_fn::expand_args_struct(&plan, &mut out);
    if plan.function {
        free_fn::expand_free_fns(&plan, &mut out);
    }
    method::expand_methods(&plan, &input.methods, &mut out);
    redispatch::expand_redispatch(&plan, &mut out);
    redispatch::expand_handle(&plan, &mut out);
    register::expand_def_registration(&plan, &input.kernel, &def.signature.assertions, &mut out);
    out
}

/// Form 2 (`op = "..."`): the kernel and its registration; the operator's schema is
/// checked against the kernel when it registers.
fn expand_kernel_only(checked: &Checked<'_>) -> TokenStream2 {
    let input = checked.input;
    let kernel = &input.kernel.tokens;
    let Some((namespace, name)) = &input.op else {
        return quote!(#kernel);
    };
    let keys: Vec<DispatchKey> = if input.keys.is_empty() {
        vec![DispatchKey::CompositeImplicitAutograd]
    } else {
        input.keys.iter().map(|k| k.key).collect()
    };
    let rt = frag::Frag::new(quote::ToTokens::to_token_stream(&input.rt));
    let full_name = name.full_name();
    let device_register = keys
        .iter()
        .any(|k| k.is_device_guarded())
        .then(|| {
            device::expand_op_device_register(&rt, &input.kernel, &full_name, input.tensor.as_ref())
        })
        .flatten();
    let entry = register::Entry {
        rt: &rt,
        kernel: Some(&input.kernel),
        namespace,
        schema: None,
        name: &full_name,
        keys: &keys,
        tensor_hint: input.tensor.as_ref(),
        variants: None,
        device: None,
        backend_select: None,
        device_kernel: None,
        device_register,
    };
    let mut out = kernel.clone();
    register::expand_entry(entry, None, None, &mut out);
    out
}
