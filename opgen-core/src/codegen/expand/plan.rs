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
//! | faithful (out and TensorOptions schemas) | `NAMEf` / `NAME_faithful`, `try_NAMEf` / `try_NAME_faithful` | `add_outf`, `zeros_faithful` |
//!
//! One rule makes every name (`form_name`): `prefix` + NAME + `suffix`, with NAME's leading
//! and trailing underscores kept outside. So a trailing `_` (in-place) stays last, and with
//! `manual_cpp_binding` (NAME `__dispatch_zeros`) the fallible forms are
//! `__try_dispatch_zeros`, `__try_dispatch_zeros_faithful`, `__try_dispatch_zeros_redispatch`.

use proc_macro2::{Delimiter, Span, TokenStream as TokenStream2};
use quote::ToTokens;

use super::frag::{Frag, colon2, group, ident as ident_token, punct, root_path};
use super::types::{Lifetimes, rust_type};
use crate::codegen::check::{Checked, Definition};
use crate::codegen::kernel::Output;
use crate::dispatch::DispatchKey;
use crate::native::NativeFunction;
use crate::plan::{
    RustType, args_struct_name, args_struct_name_for, argument_type, method_receiver, returns_type,
    rust_fn_name, rust_ident,
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
    pub rt: Frag,
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
    /// The index of `dtype` when the TensorOptions group is gathered into one `options:
    /// TensorOptions` in the convenient forms (a parameter of the plain forms, a field of
    /// the arguments struct when the four have defaults); `params` and `fields` name it by
    /// this index and leave out the other three.
    pub options: Option<usize>,
    pub args_struct: Option<syn::Ident>,
    pub returns: RustType,
    /// The schema index of `self` when the operator has methods.
    pub receiver: Option<usize>,
    pub function: bool,
    /// The `variants` field, recorded with the `def` for the runtime catalog.
    pub variants: crate::native::Variants,
    /// `device_check: ExactSame` (the default): wrappers at device-guarded keys check that
    /// the tensors share a device.
    pub device_check: bool,
    /// `device_guard: True` (the default): kernels at device-guarded keys run under a
    /// device guard.
    pub device_guard: bool,
    /// The suffix of the faithful forms' names (`f`, `_faithful`), for out and
    /// TensorOptions schemas.
    pub faithful: Option<&'static str>,
    pub keys: Vec<DispatchKey>,
    /// The schema was inferred from the kernel.
    pub inferred: bool,
    pub output: &'a Output,
    /// `#[doc = "..."]` with the text every item ends with (schema, variants, keys).
    pub facts: Frag,
    /// The user's doc attributes, then `#[doc = ""]` if there are any: what every item's
    /// docs start with.
    pub doc_head: Frag,
    /// Per argument, `ident: Type` as a parameter.
    pub decls: Vec<Frag>,
    /// `(ident: Type, ...)`: every argument in schema order, as parameters.
    pub decls_group: Frag,
    /// `(ident, ...)`: every argument in schema order, as call arguments.
    pub ids_group: Frag,
    /// The return type.
    pub ret: Frag,
    /// `Result<ret, Error>`.
    pub result: Frag,
    /// The tensor type's tokens.
    pub tensor_tokens: Frag,
    /// The names of the forms, by `[with][fallible]`: `add`, `try_add`, `add_with`,
    /// `try_add_with` (without an arguments struct, the `with` row repeats the first).
    pub names: [[syn::Ident; 2]; 2],
    /// The hidden static holding the operator's cached typed handle.
    pub handle: syn::Ident,
    /// The hidden function every form calls: the dispatcher signature, through the handle
    /// (or, with static dispatch, the kernel).
    pub call_fn: syn::Ident,
    /// Some argument's Rust name has an upper-case letter.
    pub upper_args: bool,
    /// Attributes the items share.
    pub attrs: Attrs,
    /// The `#[doc]` of the fallible forms, by `with`: the same for functions and methods.
    pub fallible_docs: [std::cell::OnceCell<Frag>; 2],
}

/// What an operator's plan is made from: an attribute with its kernel ([`OpPlan::new`]),
/// or a yaml entry without one (`include_native_functions!`).
pub(crate) struct PlanSource<'a> {
    pub rt: &'a syn::Path,
    pub vis: &'a syn::Visibility,
    /// The kernel defined with the operator, if any.
    pub kernel: Option<&'a syn::Ident>,
    pub function: &'a NativeFunction,
    /// The schema as printed, without namespace.
    pub text: &'a str,
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
        let mut plan = OpPlan::without_facts(checked, def);
        plan.facts = super::docs::attr(super::docs::facts(&plan));
        plan
    }

    /// [`OpPlan::new`] with `facts` left empty, for an expansion that writes its own
    /// (structured operators): the doc facts are not computed twice.
    pub fn without_facts(checked: &'a Checked<'a>, def: &'a Definition) -> OpPlan<'a> {
        let input = checked.input;
        let keys = if def.function.manual_kernel_registration {
            Vec::new()
        } else if input.keys.is_empty() {
            vec![DispatchKey::CompositeImplicitAutograd]
        } else {
            input.keys.iter().map(|k| k.key).collect()
        };
        let name = match (&input.options.name, input.lit.is_some()) {
            (Some(lit), true) => Some(lit.value()),
            _ => None,
        };
        OpPlan::from_source_without_facts(PlanSource {
            rt: &input.rt,
            vis: &input.kernel.vis,
            kernel: Some(input.kernel.ident()),
            function: &def.function,
            text: &def.text,
            namespace: &def.namespace,
            tensor: &def.signature.tensor,
            output: &def.signature.output,
            defaults: &def.defaults,
            name: name.clone(),
            // The struct follows a renamed function (`name = "empty"` → `EmptyArgs`), so
            // that two operators told apart by `name =` do not meet on their structs.
            args_struct: name.map(|n| args_struct_name_for(&def.function.func, &n)),
            keys,
            docs: (input.kernel.attrs.iter())
                .filter(|a| a.path().is_ident("doc"))
                .collect(),
            inferred: input.lit.is_none(),
        })
    }

    pub fn from_source(src: PlanSource<'a>) -> OpPlan<'a> {
        let mut plan = OpPlan::from_source_without_facts(src);
        plan.facts = super::docs::attr(super::docs::facts(&plan));
        plan
    }

    fn from_source_without_facts(src: PlanSource<'a>) -> OpPlan<'a> {
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
                ident: name_ident(&a.name),
                ty: argument_type(&a.ty, a.is_write()).unwrap_or(RustType::Tuple(Vec::new())),
                default: src.defaults.get(i).cloned().flatten(),
                text: a.to_string(),
            })
            .collect();
        // The TensorOptions group is one `options` value in the convenient forms, when its
        // four arguments are optional (the runtime's `TensorOptions` holds `Option`s); it
        // stands at the index of `dtype`, and the other three are left out.
        let options = schema.tensor_options_start().filter(|&s| {
            (s..s + 4).all(|i| matches!(args.get(i).map(|a| &a.ty), Some(RustType::Option(_))))
        });
        let in_group = |i: usize| options.is_some_and(|s| (s + 1..s + 4).contains(&i));
        let options_defaulted =
            options.is_some_and(|s| (s..s + 4).all(|i| args[i].default.is_some()));
        let mut params: Vec<usize> = (out_start..args.len()).collect();
        params.extend(
            (0..out_start)
                .filter(|&i| !in_group(i) && (args[i].default.is_none() || Some(i) == options)),
        );
        let fields: Vec<usize> = (0..out_start)
            .filter(|&i| {
                !in_group(i)
                    && args[i].default.is_some()
                    && (Some(i) != options || options_defaulted)
            })
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
            Some("f")
        } else if schema.has_tensor_options() {
            Some("_faithful")
        } else {
            None
        };
        let mut doc_head = TokenStream2::new();
        let mut has_docs = false;
        for a in &src.docs {
            a.to_tokens(&mut doc_head);
            has_docs = true;
        }
        if has_docs {
            super::docs::attr(proc_macro2::Literal::string("")).to_tokens(&mut doc_head);
        }
        let rt = Frag::new(src.rt.to_token_stream());
        let tensor: &syn::Type = src.tensor;
        let tensor_tokens = Frag::new(tensor.to_token_stream());
        let returns = returns_type(schema);
        let ty = |t: &RustType| {
            let mut out = TokenStream2::new();
            rust_type(t, &tensor_tokens, &rt, Lifetimes::Elided, &mut out);
            Frag::new(out)
        };
        let decls: Vec<Frag> = args
            .iter()
            .map(|a| {
                let mut out = TokenStream2::new();
                a.ident.to_tokens(&mut out);
                punct(&mut out, ':');
                rust_type(&a.ty, &tensor_tokens, &rt, Lifetimes::Elided, &mut out);
                Frag::new(out)
            })
            .collect();
        let ret = ty(&returns);
        let mut result = TokenStream2::new();
        root_path(&mut result, &["core", "result", "Result"]);
        punct(&mut result, '<');
        ret.to_tokens(&mut result);
        punct(&mut result, ',');
        rt.to_tokens(&mut result);
        colon2(&mut result);
        ident_token(&mut result, "dispatch");
        colon2(&mut result);
        ident_token(&mut result, "Error");
        punct(&mut result, '>');
        let mut decls_group = TokenStream2::new();
        let mut ids_group = TokenStream2::new();
        for (i, (d, a)) in decls.iter().zip(&args).enumerate() {
            if i > 0 {
                punct(&mut decls_group, ',');
                punct(&mut ids_group, ',');
            }
            d.to_tokens(&mut decls_group);
            a.ident.to_tokens(&mut ids_group);
        }
        // `rust_ident` keeps the ASCII letters of a name and adds none in upper case.
        let upper_args =
            (schema.arguments.iter()).any(|a| a.name.bytes().any(|c| c.is_ascii_uppercase()));
        let form_name = |prefix: &str, suffix: &str| name_ident(&form_name(&name, prefix, suffix));
        let plain = [form_name("", ""), form_name("try_", "")];
        // Without an arguments struct there are no `_with` forms.
        let with = if args_struct.is_some() {
            [form_name("", "_with"), form_name("try_", "_with")]
        } else {
            plain.clone()
        };
        let names = [plain, with];
        let handle = {
            let mut s = String::with_capacity(11 + name.len());
            s.push_str("__OPGEN_OP_");
            if name.is_ascii() {
                s.push_str(&name);
                s.make_ascii_uppercase();
            } else {
                for c in name.chars() {
                    s.extend(c.to_uppercase());
                }
            }
            syn::Ident::new(&s, Span::call_site())
        };
        let call_fn = {
            let mut s = String::with_capacity(13 + name.len());
            s.push_str("__opgen_call_");
            s.push_str(&name);
            syn::Ident::new(&s, Span::call_site())
        };
        let attrs = Attrs::new(src.vis);
        OpPlan {
            rt,
            vis: src.vis,
            kernel: src.kernel,
            schema,
            text: src.text.to_string(),
            namespace: src.namespace,
            full_name: schema.name.full_name(),
            tensor,
            name,
            args,
            params,
            fields,
            options,
            args_struct,
            returns,
            receiver,
            function: f.variants.function,
            variants: f.variants,
            device_check: f.device_check == crate::native::DeviceCheck::ExactSame,
            device_guard: f.device_guard,
            faithful,
            keys: src.keys,
            inferred: src.inferred,
            output: src.output,
            facts: Frag::default(),
            doc_head: Frag::new(doc_head),
            decls,
            decls_group: Frag::group(Delimiter::Parenthesis, decls_group),
            ids_group: Frag::group(Delimiter::Parenthesis, ids_group),
            ret,
            result: Frag::new(result),
            tensor_tokens,
            names,
            handle,
            call_fn,
            upper_args,
            attrs,
            fallible_docs: Default::default(),
        }
    }

    /// A form's name: `prefix` + name + `suffix`, a trailing in-place `_` kept last.
    pub fn form(&self, prefix: &str, suffix: &str) -> syn::Ident {
        name_ident(&form_name(&self.name, prefix, suffix))
    }

    /// The name of a form of the API.
    pub fn form_name(&self, with: bool, fallible: bool) -> &syn::Ident {
        &self.names[usize::from(with)][usize::from(fallible)]
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
    pub fn ty(&self, ty: &RustType, lifetimes: Lifetimes, out: &mut TokenStream2) {
        rust_type(ty, &self.tensor_tokens, &self.rt, lifetimes, out);
    }

    /// The parameters of the forms that take the arguments struct: `params` without
    /// `options` when it is a field.
    pub fn with_params(&self) -> impl Iterator<Item = usize> + '_ {
        let field = self.options.filter(|o| self.fields.contains(o));
        self.params
            .iter()
            .copied()
            .filter(move |&i| Some(i) != field)
    }

    /// The name of an argument of the convenient forms: `options` for the gathered
    /// TensorOptions group.
    pub fn api_ident(&self, i: usize) -> syn::Ident {
        if Some(i) == self.options {
            return ident("options");
        }
        self.args
            .get(i)
            .map_or_else(|| ident("__opgen_missing"), |a| a.ident.clone())
    }

    /// `ident: Type` of an argument of the convenient forms.
    pub fn api_decl(&self, i: usize, out: &mut TokenStream2) {
        if Some(i) == self.options {
            ident_token(out, "options");
            punct(out, ':');
            self.options_type(out);
        } else if let Some(d) = self.decls.get(i) {
            d.to_tokens(out);
        }
    }

    /// `#rt::dispatch::TensorOptions`.
    pub fn options_type(&self, out: &mut TokenStream2) {
        self.rt.to_tokens(out);
        root_path(out, &["dispatch", "TensorOptions"]);
    }

    /// `let (dtype, layout, device, pin_memory) = TensorOptions::into_parts(options);`
    /// when the options are gathered.
    pub fn scatter_options(&self, out: &mut TokenStream2) {
        let Some(start) = self.options else {
            return;
        };
        ident_token(out, "let");
        group(out, Delimiter::Parenthesis, |g| {
            for a in self.args.iter().skip(start).take(4) {
                a.ident.to_tokens(g);
                punct(g, ',');
            }
        });
        punct(out, '=');
        self.options_type(out);
        root_path(out, &["into_parts"]);
        group(out, Delimiter::Parenthesis, |g| ident_token(g, "options"));
        punct(out, ';');
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
}

/// `prefix` + name + `suffix`, a trailing in-place `_` kept last.
///
/// Leading and trailing underscores stay outside (`_foo` → `_try_foo`, `__and__` →
/// `__try_and_with__`), so that names stay snake case.
fn form_name(name: &str, prefix: &str, suffix: &str) -> String {
    let core = name.trim_matches('_');
    let lead = &name[..name.len() - name.trim_start_matches('_').len()];
    let trail = &name[name.trim_end_matches('_').len()..];
    let mut s = String::with_capacity(prefix.len() + name.len() + suffix.len());
    if core.is_empty() {
        s.push_str(prefix);
        s.push_str(name);
        s.push_str(suffix);
    } else {
        s.push_str(lead);
        s.push_str(prefix);
        s.push_str(core);
        s.push_str(suffix);
        s.push_str(trail);
    }
    s
}

/// `ident(&rust_ident(name))`, without remaking a name that `rust_ident` keeps as it is:
/// ASCII letters, digits and underscores, not starting with a digit, not `_`, and with an
/// underscore (no keyword, nor `self`, `super`, `crate`, `Self`, has one).
fn name_ident(name: &str) -> syn::Ident {
    let kept = name.len() > 1
        && name.contains('_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if kept {
        syn::Ident::new(name, Span::call_site())
    } else {
        ident(&rust_ident(name))
    }
}

/// Attributes of generated items, each made once and shared by the items.
pub(crate) struct Attrs {
    /// `#[inline]`.
    pub inline: Frag,
    /// `#[track_caller]`.
    pub track_caller: Frag,
    /// `#[allow(dead_code)]` unless the API is public: an operator's API has forms a crate
    /// may not call, and they are generated on purpose.
    pub dead: Option<Frag>,
    /// `#[allow(clippy::too_many_arguments)]`.
    pub many: Frag,
    /// `#[allow(non_snake_case)]`.
    pub snake: Frag,
}

impl Attrs {
    fn new(vis: &syn::Visibility) -> Attrs {
        let word = |w: &str| {
            let mut t = TokenStream2::new();
            ident_token(&mut t, w);
            Frag::attr(t)
        };
        let allow = |f: &dyn Fn(&mut TokenStream2)| {
            let mut t = TokenStream2::new();
            ident_token(&mut t, "allow");
            group(&mut t, Delimiter::Parenthesis, |g| f(g));
            Frag::attr(t)
        };
        Attrs {
            inline: word("inline"),
            track_caller: word("track_caller"),
            dead: (!matches!(vis, syn::Visibility::Public(_)))
                .then(|| allow(&|g| ident_token(g, "dead_code"))),
            many: allow(&|g| {
                ident_token(g, "clippy");
                colon2(g);
                ident_token(g, "too_many_arguments");
            }),
            snake: allow(&|g| ident_token(g, "non_snake_case")),
        }
    }

    /// `#[allow(...)]` for a function of `arity` parameters, named `upper` if its name or
    /// a parameter's has an upper-case letter.
    pub fn lints(&self, out: &mut TokenStream2, arity: usize, upper: bool) {
        self.dead.to_tokens(out);
        if arity > 7 {
            self.many.to_tokens(out);
        }
        if upper {
            self.snake.to_tokens(out);
        }
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
