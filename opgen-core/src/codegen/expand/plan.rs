//! What one operator's expansion generates, decided before any tokens are written: names,
//! parameter lists, the arguments struct, the method receiver.
//!
//! Function names (all derived from `plan::rust_fn_name`, or the `name` option):
//!
//! | form | name | example (`add.Tensor`, `add_.Tensor`) |
//! |---|---|---|
//! | plain, defaults filled | `NAME` | `add`, `add_` |
//! | plain, defaults given | `NAME_with` | `add_with`, `add_with_` |
//! | fallible | `try_NAME`, `try_NAME_with` | `try_add`, `try_add_with_` |
//! | redispatch | `NAME_redispatch`, `try_NAME_redispatch` | `add_redispatch` |
//! | faithful (out and TensorOptions schemas) | `NAMEf` / `NAME_faithful`, and `try_` | `add_outf` |
//!
//! A trailing `_` (in-place) stays last: suffixes go before it.

use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::format_ident;

use super::types::{Lifetimes, rust_type};
use crate::codegen::check::{Checked, Definition};
use crate::codegen::kernel::Output;
use crate::dispatch::DispatchKey;
use crate::native::NativeFunction;
use crate::plan::{
    RustType, args_struct_name, argument_type, method_receiver, returns_type, rust_fn_name,
    rust_ident,
};
use crate::schema::Schema;

/// One schema argument as the generated API sees it.
pub(crate) struct ArgPlan {
    /// The Rust parameter (and field) name: `self_`, `r#type`.
    pub ident: syn::Ident,
    /// The Rust type in the mapping (`T` for the tensor type).
    pub ty: RustType,
    /// The default as a Rust expression, when the Rust API keeps it.
    pub default: Option<TokenStream2>,
    /// The argument as written in the schema: `Scalar alpha=1`.
    pub text: String,
}

/// The plan of one operator defined by the attribute.
pub(crate) struct OpPlan<'a> {
    /// The runtime path, as tokens once.
    pub rt: TokenStream2,
    pub vis: &'a syn::Visibility,
    /// The kernel defined with the operator (`None` for `include_native_functions!`).
    pub kernel: Option<&'a syn::Ident>,
    pub schema: &'a Schema,
    /// The schema as printed, without namespace.
    pub text: String,
    pub namespace: &'a str,
    /// The operator's full name without namespace: `add.Tensor`.
    pub full_name: String,
    pub tensor: &'a syn::Type,
    /// The Rust name of the plain form, without `r#`.
    pub name: String,
    pub args: Vec<ArgPlan>,
    /// The parameters of the plain form (schema indices): out arguments first, then the
    /// others without a default, in schema order.
    pub params: Vec<usize>,
    /// The fields of the arguments struct (schema indices), in schema order.
    pub fields: Vec<usize>,
    pub args_struct: Option<syn::Ident>,
    pub returns: RustType,
    /// The schema index of `self` when the operator has methods.
    pub receiver: Option<usize>,
    pub function: bool,
    /// The faithful form's name, for out and TensorOptions schemas.
    pub faithful: Option<String>,
    /// The user's `#[doc]` attributes on the kernel.
    pub docs: TokenStream2,
    /// Whether the kernel has doc lines.
    pub has_docs: bool,
    pub keys: Vec<DispatchKey>,
    /// The schema was inferred from the kernel.
    pub inferred: bool,
    pub output: &'a Output,
    /// The doc text every item ends with (schema, variants, keys).
    pub facts: proc_macro2::Literal,
    /// Per argument, `ident: Type` as a parameter.
    pub decls: Vec<TokenStream2>,
    /// The return type.
    pub ret: TokenStream2,
    /// `Result<ret, Error>`.
    pub result: TokenStream2,
}

/// What an operator's plan is made from: an attribute with its kernel ([`OpPlan::new`]),
/// or a yaml entry without one (`include_native_functions!`).
pub(crate) struct PlanSource<'a> {
    pub rt: &'a syn::Path,
    pub vis: &'a syn::Visibility,
    /// The kernel defined with the operator, if any.
    pub kernel: Option<&'a syn::Ident>,
    pub function: &'a NativeFunction,
    pub namespace: &'a str,
    pub tensor: &'a syn::Type,
    pub output: &'a Output,
    pub defaults: &'a [Option<TokenStream2>],
    /// The Rust name (default: `plan::rust_fn_name`), without `r#`.
    pub name: Option<String>,
    /// The arguments struct's name (default: `plan::args_struct_name`).
    pub args_struct: Option<String>,
    /// The keys with a kernel in this crate.
    pub keys: Vec<DispatchKey>,
    /// The user's `#[doc]` attributes.
    pub docs: Vec<&'a syn::Attribute>,
    pub inferred: bool,
}

impl<'a> OpPlan<'a> {
    pub fn new(checked: &'a Checked<'a>, def: &'a Definition) -> OpPlan<'a> {
        let input = checked.input;
        let keys = if def.function.manual_kernel_registration {
            Vec::new()
        } else if input.keys.is_empty() {
            vec![DispatchKey::CompositeImplicitAutograd]
        } else {
            input.keys.iter().map(|k| k.key).collect()
        };
        OpPlan::from_source(PlanSource {
            rt: &input.rt,
            vis: &input.kernel.vis,
            kernel: Some(input.kernel.ident()),
            function: &def.function,
            namespace: &def.namespace,
            tensor: &def.signature.tensor,
            output: &def.signature.output,
            defaults: &def.defaults,
            name: match (&input.options.name, input.lit.is_some()) {
                (Some(lit), true) => Some(lit.value()),
                _ => None,
            },
            args_struct: None,
            keys,
            docs: (input.kernel.attrs.iter())
                .filter(|a| a.path().is_ident("doc"))
                .collect(),
            inferred: input.lit.is_none(),
        })
    }

    pub fn from_source(src: PlanSource<'a>) -> OpPlan<'a> {
        let f = src.function;
        let schema = &f.func;
        let mut name = src.name.unwrap_or_else(|| rust_fn_name(schema));
        if let Some(raw) = name.strip_prefix("r#") {
            name = raw.to_string();
        }
        let manual_binding = f.manual_cpp_binding;
        if manual_binding {
            name = format!("__dispatch_{name}");
        }
        let out_start = schema.out_start();
        let args: Vec<ArgPlan> = schema
            .arguments
            .iter()
            .enumerate()
            .map(|(i, a)| ArgPlan {
                ident: ident(&rust_ident(&a.name)),
                ty: argument_type(&a.ty, a.is_write()).unwrap_or(RustType::Tuple(Vec::new())),
                default: src.defaults.get(i).cloned().flatten(),
                text: a.to_string(),
            })
            .collect();
        let mut params: Vec<usize> = (out_start..args.len()).collect();
        params.extend((0..out_start).filter(|&i| args[i].default.is_none()));
        let fields: Vec<usize> = (0..out_start)
            .filter(|&i| args[i].default.is_some())
            .collect();
        let wants_api = f.variants.function || f.variants.method;
        let args_struct = (!fields.is_empty() && wants_api).then(|| {
            let mut s = src.args_struct.unwrap_or_else(|| args_struct_name(schema));
            if manual_binding {
                s = format!("__Dispatch{s}");
            }
            ident(&s)
        });
        let receiver = f.variants.method.then(|| method_receiver(schema)).flatten();
        // `plan::faithful_signature`'s names, without building the signature.
        let faithful = if !f.variants.function {
            None
        } else if schema.is_out_fn() {
            Some(format!("{name}f"))
        } else if schema.has_tensor_options() {
            Some(format!("{name}_faithful"))
        } else {
            None
        };
        let mut plan = OpPlan {
            rt: quote::ToTokens::to_token_stream(src.rt),
            vis: src.vis,
            kernel: src.kernel,
            schema,
            text: schema.to_string(),
            namespace: src.namespace,
            full_name: schema.name.full_name(),
            tensor: src.tensor,
            name,
            args,
            params,
            fields,
            args_struct,
            returns: returns_type(schema),
            receiver,
            function: f.variants.function,
            faithful,
            docs: src.docs.iter().map(|a| quote::quote!(#a)).collect(),
            has_docs: !src.docs.is_empty(),
            keys: src.keys,
            inferred: src.inferred,
            output: src.output,
            facts: proc_macro2::Literal::string(""),
            decls: Vec::new(),
            ret: TokenStream2::new(),
            result: TokenStream2::new(),
        };
        plan.facts = super::docs::facts(&plan);
        plan.decls = plan
            .args
            .iter()
            .map(|a| {
                let (id, ty) = (&a.ident, plan.ty(&a.ty, Lifetimes::Elided));
                quote::quote!(#id: #ty)
            })
            .collect();
        plan.ret = plan.ty(&plan.returns, Lifetimes::Elided);
        let (ret, rt) = (&plan.ret, &plan.rt);
        plan.result = quote::quote!(::core::result::Result<#ret, #rt::dispatch::Error>);
        plan
    }

    /// A form's name: `prefix` + name + `suffix`, a trailing in-place `_` kept last.
    ///
    /// Leading and trailing underscores stay outside (`_foo` → `_try_foo`, `__and__` →
    /// `__try_and_with__`), so that names stay snake case.
    pub fn form(&self, prefix: &str, suffix: &str) -> syn::Ident {
        let name = &self.name;
        let core = name.trim_matches('_');
        let lead = &name[..name.len() - name.trim_start_matches('_').len()];
        let trail = &name[name.trim_end_matches('_').len()..];
        let s = if core.is_empty() {
            format!("{prefix}{name}{suffix}")
        } else {
            format!("{lead}{prefix}{core}{suffix}{trail}")
        };
        ident(&rust_ident(&s))
    }

    /// The hidden static holding the operator's cached typed handle.
    pub fn handle(&self) -> syn::Ident {
        format_ident!("__OPGEN_OP_{}", self.name.to_uppercase())
    }

    /// The hidden function every form calls: the dispatcher signature, through the handle
    /// (or, with static dispatch, the kernel).
    pub fn call_fn(&self) -> syn::Ident {
        format_ident!("__opgen_call_{}", self.name)
    }

    /// The operator's qualified name without overload, as the dispatcher looks it up.
    pub fn qualified(&self) -> String {
        format!("{}::{}", self.namespace, self.schema.name.operator_name())
    }

    /// The overload name (`""` for none).
    pub fn overload(&self) -> &str {
        self.schema.name.overload.as_deref().unwrap_or("")
    }

    /// A Rust type of the mapping with the user's tensor type.
    pub fn ty(&self, ty: &RustType, lifetimes: Lifetimes) -> TokenStream2 {
        rust_type(ty, self.tensor, &self.rt, lifetimes)
    }

    /// Whether a written `self` makes methods take `&mut self`.
    pub fn receiver_is_mut(&self) -> bool {
        self.receiver
            .and_then(|i| self.schema.arguments.get(i))
            .is_some_and(|a| a.is_write())
    }

    /// The arguments struct needs a lifetime (it holds references).
    pub fn struct_has_lifetime(&self) -> bool {
        self.fields.iter().any(|&i| has_reference(&self.args[i].ty))
    }

    /// `#[allow(dead_code)]` unless the API is public: an operator's API has forms a crate
    /// may not call, and they are generated on purpose.
    pub fn allow_dead_code(&self) -> Option<TokenStream2> {
        (!matches!(self.vis, syn::Visibility::Public(_)))
            .then(|| quote::quote!(#[allow(dead_code)]))
    }
}

/// An identifier from a name `rust_ident` made (raw when it is a keyword).
pub(crate) fn ident(name: &str) -> syn::Ident {
    match name.strip_prefix("r#") {
        Some(raw) => syn::Ident::new_raw(raw, Span::call_site()),
        None => syn::Ident::new(name, Span::call_site()),
    }
}

pub(crate) fn has_reference(ty: &RustType) -> bool {
    match ty {
        RustType::Ref(_) | RustType::Mut(_) | RustType::Str => true,
        RustType::Option(t) | RustType::Vec(t) | RustType::Slice(t) | RustType::Array(t, _) => {
            has_reference(t)
        }
        RustType::Tuple(ts) => ts.iter().any(has_reference),
        RustType::Tensor | RustType::Value(_) => false,
    }
}

pub(crate) fn has_mut(ty: &RustType) -> bool {
    match ty {
        RustType::Mut(_) => true,
        RustType::Ref(t)
        | RustType::Option(t)
        | RustType::Vec(t)
        | RustType::Slice(t)
        | RustType::Array(t, _) => has_mut(t),
        RustType::Tuple(ts) => ts.iter().any(has_mut),
        RustType::Tensor | RustType::Value(_) | RustType::Str => false,
    }
}
