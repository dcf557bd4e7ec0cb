//! The check stage: the entry rules (R36–R67, through `NativeFunction::from_fields`), the
//! Rust-mapping rules (R84–R89), the defaults (R86), the method receiver, and the kernel's
//! signature against the schema. Everything is reported at once.

use std::ops::Range;

mod clashes;
mod context;
mod scope;
mod structured;

use proc_macro2::Span;
use syn::LitStr;

use super::Input;
use super::diag::{Diagnostics, render, schema_span};
use super::kernel_fn::{KernelFn, Signature, check_signature};
use crate::native::{EntryError, EntryFields, Field, NativeFunction, Site, Tags};
use crate::plan::OpPlan;
use crate::schema::{Rule, SchemaError, SchemaLayout, layout};
use crate::validate::check_rust_mapping;
pub(crate) use clashes::check_include_names;
pub(crate) use context::check_include_methods_owner;
pub(crate) use structured::{delegate_marker, impl_marker};

/// A checked input: what the expansion needs beyond the input itself.
pub(crate) struct Checked<'a> {
    pub input: &'a Input,
    /// The operator this attribute defines (forms 1 and 3); `None` for `op =` kernels.
    pub def: Option<Definition>,
    /// `def`'s plan, made once: the kernel's name is checked against it, and the expansion
    /// renders it.
    pub plan: Option<OpPlan>,
}

/// An operator defined by the attribute, checked.
pub(crate) struct Definition {
    /// The native function (schema without namespace, variants, tags, ...).
    pub function: NativeFunction,
    /// The registration namespace.
    pub namespace: String,
    /// The kernel's fit with the schema (tensor type, output, types left to rustc).
    pub signature: Signature,
    /// The derivative formulas (`derivatives(...)`), checked and translated.
    pub formulas: Option<crate::codegen::derivatives::check::Formulas>,
    /// `derivatives(functional)`: the functional operator's formulas.
    pub borrowed: Option<crate::codegen::derivatives::check::Borrowed>,
}

impl Input {
    /// The check stage. Returns what the expansion needs, or every problem found.
    pub(crate) fn check(&self) -> syn::Result<Checked<'_>> {
        let mut diag = Diagnostics::default();
        context::check_context(self, &mut diag);
        self.check_structured_options(&mut diag);
        let (Some(schema), Some(text)) = (&self.schema, &self.text) else {
            if let Some(flag) = &self.options.structured
                && flag.value
            {
                structured::check_impl(self, flag, &mut diag);
            }
            return diag.finish(Checked {
                input: self,
                def: None,
                plan: None,
            });
        };
        let namespace = self.namespace(schema, &mut diag);
        let (fields, lists) = self.entry_fields(text);
        let function = match NativeFunction::from_fields(&fields, pytorch_tags()) {
            Ok(f) => Some(f),
            Err(errors) => {
                for e in errors.iter().filter(|e| !ignored(e)) {
                    self.report_entry(e, text, &lists, &mut diag);
                }
                // Only naming rules of yaml kernels failed: the function is fine for us.
                errors
                    .iter()
                    .all(ignored)
                    .then(|| without_naming_rules(&fields))
                    .flatten()
            }
        };
        let Some(function) = function else {
            return diag
                .finish(Checked {
                    input: self,
                    def: None,
                    plan: None,
                })
                .and(Err(super::diag::internal(
                    "entry rules failed without an error",
                )));
        };
        // The schema as printed (without namespace): the literal ends with it.
        let canonical = function.func.to_string();
        let at = layout(&function.func);
        // Without a Rust API (R84–R89), the kernel could only repeat the problem.
        if !self.check_rust_api(&function, text, &at, &mut diag) {
            return diag.finish(()).and(Err(super::diag::internal(
                "a schema without a Rust API passed the checks",
            )));
        }
        let signature = if function.structured {
            structured::check_meta(self, &function, &canonical, &at, &mut diag)
        } else if function.structured_delegate.is_some() {
            structured::check_delegate(self, &function, &self.rt, &mut diag)
        } else {
            check_signature(
                &function.func,
                &canonical,
                &at,
                &self.kernel,
                self.tensor.as_ref(),
                &mut diag,
            )
        };
        if let Some(sig) = &signature
            && function.variants.method
            && matches!(self.methods, super::attribute::Methods::Inherent)
        {
            context::check_methods_owner(self, &sig.tensor, &mut diag);
        }
        let borrowed = match (&self.options.derivatives, &signature) {
            (Some(attr), Some(_)) if diag.len() == 0 && attr.functional.is_some() => {
                crate::codegen::derivatives::check::check_functional(attr, &function, &mut diag)
            }
            _ => None,
        };
        let formulas = match (&self.options.derivatives, &signature) {
            (Some(attr), Some(sig)) if diag.len() == 0 && attr.functional.is_none() => {
                let tensor = &sig.tensor;
                crate::codegen::derivatives::check::check_formulas(
                    attr, &function, &self.rt, tensor, &mut diag,
                )
            }
            _ => None,
        };
        let def = signature.map(|signature| Definition {
            function,
            namespace,
            signature,
            formulas,
            borrowed,
        });
        match def {
            Some(def) => {
                let plan = super::expand::plan_of(self, &def);
                self.check_kernel_name(&plan, &mut diag);
                clashes::check_generated_names(self, &plan.claims(), &mut diag);
                diag.finish(Checked {
                    input: self,
                    def: Some(def),
                    plan: Some(plan),
                })
            }
            None => diag.finish(()).and(Err(super::diag::internal(
                "the signature check failed without an error",
            ))),
        }
    }

    /// The checks that `function` has a Rust API (R84–R89, defaults with a Rust value, a
    /// `Tensor` self for methods, the planner's blockers), on the schema literal (`text`
    /// ends with the canonical schema `at` lays out). Whether it has one.
    fn check_rust_api(
        &self,
        function: &NativeFunction,
        text: &str,
        at: &SchemaLayout,
        diag: &mut Diagnostics,
    ) -> bool {
        let func_at = text.len().saturating_sub(function.func.to_string().len());
        let mapping_errors = diag.len();
        // A default R86 reports already is not reported again as one without a Rust value.
        let mut bad_defaults = Vec::new();
        for mut e in check_rust_mapping(&function.func, function.variants.method) {
            if e.rule == Rule::ListDefault {
                bad_defaults.push(e.range.clone());
            }
            e.range = e.range.start + func_at..e.range.end + func_at;
            report_schema(&self.lit, &self.kernel, text, &e, diag);
        }
        if function.variants.method
            && let Some(s) = function.func.self_arg()
            && !s.ty.is_plain_tensor()
        {
            let message = format!(
                "the `method` variant needs `self` to be a `Tensor`, but it is `{}`; \
                 drop `method` from `variants`",
                s.ty
            );
            match &self.options.variants {
                Some(lit) => diag.at(lit, message),
                None => diag.at_span(Span::call_site(), message),
            }
        }
        for (i, a) in function.func.arguments.iter().enumerate() {
            let Some(d) = &a.default else { continue };
            if function.cpp_no_default_args.contains(a.name.as_str())
                || crate::plan::rust_default(&a.ty, &d.value).is_some()
            {
                continue;
            }
            let range = at
                .arguments
                .get(i)
                .and_then(|l| l.default.clone())
                .unwrap_or_default();
            if bad_defaults.contains(&range) {
                continue;
            }
            let e = SchemaError::new(
                Rule::ListDefault,
                range.start + func_at..range.end + func_at,
                format!(
                    "default `{}` of argument `{}` (`{}`) has no Rust value of that type",
                    d.text, a.name, a.ty
                ),
            )
            .with_hint(
                "the arguments struct needs a Rust value for every default; write a default of the \
                 argument's type, or remove it",
            );
            report_schema(&self.lit, &self.kernel, text, &e, diag);
        }
        if diag.len() == mapping_errors {
            self.check_blockers(function, text, diag);
        }
        diag.len() == mapping_errors
    }

    /// What else keeps the schema from a Rust API (nested optionals and lists, more
    /// arguments or returns than typed calls take): one error on the schema each, with the
    /// way out. `include_native_functions!` registers such operators without a typed API.
    fn check_blockers(&self, function: &NativeFunction, text: &str, diag: &mut Diagnostics) {
        use crate::plan::Blocker;
        for b in crate::plan::blockers(function) {
            let hint = match b {
                Blocker::MethodSelf | Blocker::Default(_) => continue,
                Blocker::ArgumentType(_) | Blocker::ReturnType(_) => {
                    "typed kernels and calls take the types of the mapping table of \
                     `opgen::dispatch`; register this operator with `Library::def` and a boxed \
                     kernel (`dispatch::boxed`) to call it with dynamic values"
                }
                Blocker::TooManyArguments(_) | Blocker::TooManyReturns(_) => {
                    "register this operator with `Library::def` and a boxed kernel \
                     (`dispatch::boxed`) to call it with dynamic values"
                }
            };
            let e = SchemaError::new(
                Rule::UnmappableType,
                0..text.len(),
                format!(
                    "`{}` has no Rust API: {}",
                    function.func.name.full_name(),
                    b.describe(&function.func)
                ),
            )
            .with_hint(hint);
            report_schema(&self.lit, &self.kernel, text, &e, diag);
        }
    }

    /// The kernel is not named as a function the attribute generates (`relu` for `relu`,
    /// `try_relu`, ...): both would be defined in the kernel's module. (A delegate's body-less
    /// kernel is not emitted: its name is free.)
    fn check_kernel_name(&self, plan: &OpPlan, diag: &mut Diagnostics) {
        if self.kernel.bodyless {
            return;
        }
        let kernel = self.kernel.ident();
        let name = kernel.to_string();
        let claims = plan.claims();
        if !claims
            .values
            .iter()
            .any(|v| v.trim_start_matches("r#") == name)
        {
            return;
        }
        let generated: Vec<String> = (claims.values.iter())
            .map(|v| format!("`{}`", v.trim_start_matches("r#")))
            .collect();
        let suffix = match self.keys.first() {
            Some(k) => k.key.name().to_lowercase(),
            None => "kernel".to_string(),
        };
        let renamed = format!(
            "{}_{suffix}",
            plan.api
                .as_ref()
                .map_or(name.as_str(), |a| a.name.trim_start_matches("r#"))
        );
        diag.at(
            kernel,
            format!(
                "kernel `{name}` has the name of a function the attribute generates for `{}` \
                 ({}); rename the kernel (`{renamed}`), or name the generated functions with \
                 `name = \"...\"`",
                plan.full_name,
                generated.join(", "),
            ),
        );
    }

    /// A body-less function is a delegate's; `composite_from_out` is a delegate's option.
    fn check_structured_options(&self, diag: &mut Diagnostics) {
        let delegate = self.options.structured_delegate.is_some();
        if self.kernel.bodyless && !delegate {
            diag.at(
                self.kernel.ident(),
                format!(
                    "kernel `{}` has no body; only a structured delegate \
                     (`structured_delegate = \"name.out\"`) is written without one",
                    self.kernel.ident()
                ),
            );
        }
        if let Some(flag) = &self.options.composite_from_out
            && !delegate
        {
            diag.at(
                flag,
                "`composite_from_out` derives composite kernels of a structured delegate from its \
                 out operator; add `structured_delegate = \"name.out\"`, or remove it",
            );
        }
    }

    fn namespace(&self, schema: &crate::schema::Schema, diag: &mut Diagnostics) -> String {
        let option = self.options.namespace.as_ref();
        match (&schema.name.namespace, option) {
            (Some(written), Some(lit)) if *written != lit.value() => {
                diag.at(
                    lit,
                    format!(
                        "`namespace = \"{}\"` contradicts the schema's `{written}::`; remove one of them",
                        lit.value()
                    ),
                );
                written.to_string()
            }
            (Some(written), _) => written.to_string(),
            (None, Some(lit)) => lit.value(),
            (None, None) => "aten".to_string(),
        }
    }

    /// The entry as `native_functions.yaml` would hold it, and where each list element sits
    /// in its literal.
    fn entry_fields(&self, text: &str) -> (EntryFields, Lists) {
        let o = &self.options;
        let s = |l: &Option<LitStr>| l.as_ref().map(LitStr::value);
        let b = |l: &Option<syn::LitBool>| l.as_ref().map(|l| l.value);
        let kernel = self.kernel.ident().to_string();
        let mut lists = Lists::default();
        let split = |lit: &Option<LitStr>, sep: char, ranges: &mut Vec<Range<usize>>| {
            lit.as_ref().map(|lit| {
                let value = lit.value();
                let mut items = Vec::new();
                for (item, range) in crate::native::split_trimmed(&value, sep) {
                    ranges.push(range);
                    items.push(item.to_string());
                }
                items
            })
        };
        let tags = split(&o.tags, ',', &mut lists.tags);
        let precomputed = split(&o.precomputed, ';', &mut lists.precomputed);
        let no_default = split(&o.cpp_no_default_args, ',', &mut lists.cpp_no_default_args);
        // yaml knows only its own keys; the runtime's others (`PrivateUse1`, `AutogradCPU`)
        // pass without entry rules.
        let dispatch = o.dispatch.as_ref().map(|_| {
            self.keys
                .iter()
                .filter(|k| k.key.is_yaml_dispatch_key())
                .map(|k| {
                    lists.dispatch.push(k.range.clone());
                    (k.key.name().to_string(), kernel.clone())
                })
                .collect()
        });
        let fields = EntryFields {
            func: text.to_string(),
            variants: s(&o.variants),
            dispatch,
            structured: b(&o.structured),
            structured_delegate: s(&o.structured_delegate),
            structured_inherits: s(&o.structured_inherits),
            precomputed,
            autogen: s(&o.autogen),
            tags,
            device_guard: b(&o.device_guard),
            device_check: s(&o.device_check),
            python_module: s(&o.python_module),
            category_override: s(&o.category_override),
            manual_kernel_registration: b(&o.manual_kernel_registration),
            manual_cpp_binding: b(&o.manual_cpp_binding),
            cpp_no_default_args: no_default,
            use_const_ref_for_mutable_tensors: b(&o.use_const_ref_for_mutable_tensors),
            ufunc_inner_loop: None,
        };
        (fields, lists)
    }

    fn report_entry(&self, e: &EntryError, text: &str, lists: &Lists, diag: &mut Diagnostics) {
        let mut error = e.error.clone();
        error.hint = error.hint.map(|h| attribute_syntax(&h));
        let (field, element) = match e.site {
            Site::Entry => {
                report_schema(&self.lit, &self.kernel, text, &error, diag);
                return;
            }
            Site::Value(Field::Func)
            | Site::Element(Field::Func, _)
            | Site::Key(Field::Func, _)
            | Site::PairValue(Field::Func, _) => {
                report_schema(&self.lit, &self.kernel, text, &error, diag);
                return;
            }
            Site::Value(f) => (f, None),
            Site::Element(f, i) | Site::Key(f, i) | Site::PairValue(f, i) => (f, Some(i)),
        };
        let element_range = element.and_then(|i| match field {
            Field::Tags => lists.tags.get(i),
            Field::Precomputed => lists.precomputed.get(i),
            Field::CppNoDefaultArgs => lists.cpp_no_default_args.get(i),
            Field::Dispatch => lists.dispatch.get(i),
            _ => None,
        });
        let o = &self.options;
        let lit = match field {
            Field::Variants => o.variants.as_ref(),
            Field::Dispatch => o.dispatch.as_ref(),
            Field::StructuredDelegate => o.structured_delegate.as_ref(),
            Field::StructuredInherits => o.structured_inherits.as_ref(),
            Field::Precomputed => o.precomputed.as_ref(),
            Field::Autogen => o.autogen.as_ref(),
            Field::Tags => o.tags.as_ref(),
            Field::DeviceCheck => o.device_check.as_ref(),
            Field::PythonModule => o.python_module.as_ref(),
            Field::CategoryOverride => o.category_override.as_ref(),
            Field::CppNoDefaultArgs => o.cpp_no_default_args.as_ref(),
            _ => None,
        };
        let Some(lit) = lit else {
            // A bool option (or a field the attribute spells differently): the message names it.
            let bool_lit = match field {
                Field::Structured => o.structured.as_ref(),
                Field::DeviceGuard => o.device_guard.as_ref(),
                Field::ManualKernelRegistration => o.manual_kernel_registration.as_ref(),
                Field::ManualCppBinding => o.manual_cpp_binding.as_ref(),
                Field::UseConstRefForMutableTensors => o.use_const_ref_for_mutable_tensors.as_ref(),
                _ => None,
            };
            let value = bool_lit.map_or_else(String::new, |l| l.value.to_string());
            let message = render(
                &value,
                &SchemaError {
                    range: 0..value.len(),
                    ..error
                },
            );
            match bool_lit {
                Some(l) => diag.at(l, message),
                None => diag.at_span(Span::call_site(), message),
            }
            return;
        };
        let value = lit.value();
        let base = element_range.cloned().unwrap_or(0..value.len());
        let range = if error.range == (0..0) {
            base
        } else {
            base.start + error.range.start..base.start + error.range.end
        };
        error.range = range;
        diag.at_span(
            schema_span(lit, error.range.clone()),
            render(&value, &error),
        );
    }
}

/// PyTorch's tags, made once.
fn pytorch_tags() -> &'static Tags {
    static TAGS: std::sync::OnceLock<Tags> = std::sync::OnceLock::new();
    TAGS.get_or_init(Tags::pytorch)
}

/// Where each element of a list option is written in its literal.
#[derive(Default)]
struct Lists {
    tags: Vec<Range<usize>>,
    precomputed: Vec<Range<usize>>,
    cpp_no_default_args: Vec<Range<usize>>,
    dispatch: Vec<Range<usize>>,
}

/// The yaml rules about kernel names (R50, R51) concern C++ kernels named in a dispatch
/// table; an attribute's kernel is the annotated function, so they do not apply.
fn ignored(e: &EntryError) -> bool {
    matches!(
        e.error.rule,
        Rule::RedundantDispatch | Rule::SingletonCompositeImplicit
    )
}

/// The entry without its explicit dispatch table, for when only the naming rules failed.
fn without_naming_rules(fields: &EntryFields) -> Option<NativeFunction> {
    let fields = EntryFields {
        dispatch: None,
        ..fields.clone()
    };
    NativeFunction::from_fields(&fields, pytorch_tags()).ok()
}

/// A schema problem: on the literal (form 1), or on the kernel's name with the inferred
/// schema shown (form 3). `text` is the schema as written or inferred.
pub(crate) fn report_schema(
    lit: &Option<LitStr>,
    kernel: &KernelFn,
    text: &str,
    error: &SchemaError,
    diag: &mut Diagnostics,
) {
    match lit {
        Some(lit) => diag.schema(lit, text, error),
        None => diag.at(
            kernel.ident(),
            format!(
                "in the schema inferred from kernel `{}`:\n{}",
                kernel.ident(),
                render(text, error)
            ),
        ),
    }
}

/// Rewrites yaml syntax in a hint (`tags: nondeterministic_seeded`, `structured: True`)
/// into the attribute's (`tags = "nondeterministic_seeded"`, `structured = true`).
fn attribute_syntax(hint: &str) -> String {
    let mut out = String::with_capacity(hint.len());
    for (i, part) in hint.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let rewritten = (i % 2 == 1)
            .then(|| part.split_once(": "))
            .flatten()
            .filter(|(key, _)| Field::from_name(key).is_some_and(|f| f != Field::Func));
        match rewritten {
            None if i % 2 == 0 => out.push_str(&part.replace("the field", "the option")),
            Some(("dispatch", value)) => {
                let key = value
                    .trim_start_matches('{')
                    .split(':')
                    .next()
                    .unwrap_or("")
                    .trim();
                out.push_str(&format!("dispatch = \"{key}\""));
            }
            Some((key, "True")) => out.push_str(&format!("{key} = true")),
            Some((key, "False")) => out.push_str(&format!("{key} = false")),
            Some((key, value)) => out.push_str(&format!("{key} = \"{value}\"")),
            None => out.push_str(part),
        }
    }
    out
}
