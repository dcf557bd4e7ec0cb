//! [`NativeFunction::from_fields`]: one entry's fields → a native function, checking the
//! entry rules R36–R67 (SCHEMA.md §2.5) in the order torchgen's `from_yaml` meets them.

use std::collections::BTreeSet;

use crate::schema::{Rule, Schema, SchemaKind, layout, parse_schema};

use super::dispatch_table::{check_ufunc, only_composite_implicit, read_dispatch};
use super::entry::{
    DeviceCheck, Dispatch, DispatchOrigin, EntryError, EntryFields, NativeFunction, Site, Variants,
};
use super::fields::{self, Diag, WHOLE};
use super::keys::Field;
use super::tags::Tags;
use crate::dispatch::DispatchKey;
use crate::schema::suggest::closest;

impl NativeFunction {
    /// Builds a native function from an entry's fields, checking every entry rule
    /// (R36–R67). `tags` are the declared tags (`tags.yaml`; [`Tags::pytorch`] without a
    /// file). Errors carry the [`Site`] their byte range refers to.
    ///
    /// ```
    /// use opgen_core::native::{EntryFields, NativeFunction, Tags};
    /// let fields = EntryFields {
    ///     func: "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)".into(),
    ///     dispatch: Some(vec![("CPU, CUDA".into(), "abs_out".into())]),
    ///     ..EntryFields::default()
    /// };
    /// let f = NativeFunction::from_fields(&fields, &Tags::pytorch()).unwrap();
    /// assert!(f.has_tag("out") && f.is_abstract);
    /// ```
    ///
    /// # Errors
    ///
    /// Every entry rule the fields break, each with the [`Site`] its range refers to.
    pub fn from_fields(
        fields: &EntryFields,
        tags: &Tags,
    ) -> Result<NativeFunction, Vec<EntryError>> {
        build(fields, tags).map(|(f, _)| f)
    }
}

/// [`NativeFunction::from_fields`], also returning where the schema starts in `func`.
pub(crate) fn build(
    fields: &EntryFields,
    tags: &Tags,
) -> Result<(NativeFunction, usize), Vec<EntryError>> {
    let mut diag = Diag::default();
    let parsed = parse_func(&fields.func, &mut diag);
    let variants = match &fields.variants {
        Some(v) => fields::parse_variants(v, &mut diag),
        None => Variants {
            function: true,
            method: false,
        },
    };
    let device_check = fields
        .device_check
        .as_deref()
        .map_or(DeviceCheck::ExactSame, |d| {
            fields::parse_device_check(d, &mut diag)
        });
    let structured = fields.structured.unwrap_or(false);
    let delegate = fields
        .structured_delegate
        .as_deref()
        .and_then(|d| fields::parse_delegate(d, &mut diag));
    if let Some(i) = &fields.structured_inherits {
        fields::check_inherits(i, &mut diag);
    }
    if fields.python_module.is_some() && variants.method {
        let at = fields
            .variants
            .as_deref()
            .and_then(|v| v.find("method"))
            .map_or(WHOLE, |i| i..i + 6);
        diag.err(
            Site::Value(Field::Variants),
            Rule::ModuleMethod,
            at,
            "an entry with `python_module` cannot have the `method` variant",
            "drop `method` from `variants`, or drop `python_module`",
        );
    }
    if fields.precomputed.is_some() && !structured {
        diag.err(
            Site::Value(Field::Precomputed),
            Rule::PrecomputedNeedsStructured,
            WHOLE,
            "`precomputed` requires `structured: True`",
            "add `structured: True`, or drop `precomputed`",
        );
    }
    let precomputed = fields
        .precomputed
        .as_deref()
        .and_then(|p| fields::parse_precomputed(p, &mut diag));
    let tag_set = check_tags(fields.tags.as_deref().unwrap_or(&[]), tags, &mut diag);
    let manual_kernel_registration = fields.manual_kernel_registration.unwrap_or(false);
    let dispatch = read_dispatch(
        fields,
        parsed.as_ref().map(|p| &p.1),
        structured,
        delegate.is_some(),
        &mut diag,
    );
    if fields.dispatch.is_some() && manual_kernel_registration {
        diag.err(
            Site::Value(Field::Dispatch),
            Rule::ManualRegistrationWithDispatch,
            WHOLE,
            "`dispatch` and `manual_kernel_registration: True` are exclusive",
            "with manual registration `dispatch` has no effect; remove one of them",
        );
    }
    let autogen = fields
        .autogen
        .as_deref()
        .map(|a| fields::parse_autogen(a, &mut diag))
        .unwrap_or_default();
    let ufunc = read_ufunc(fields, &mut diag);
    let Some((namespace, func, func_at)) = parsed else {
        return Err(diag.0);
    };
    let mut f = NativeFunction {
        namespace: namespace.unwrap_or_else(|| "aten".into()),
        func,
        variants,
        dispatch: dispatch.unwrap_or(Dispatch {
            entries: Vec::new(),
            origin: DispatchOrigin::Absent,
        }),
        structured,
        structured_delegate: delegate,
        structured_inherits: fields.structured_inherits.clone(),
        precomputed,
        device_guard: fields.device_guard.unwrap_or(true),
        device_check,
        manual_kernel_registration,
        manual_cpp_binding: fields.manual_cpp_binding.unwrap_or(false),
        python_module: fields.python_module.clone(),
        category_override: fields.category_override.clone(),
        tags: tag_set,
        cpp_no_default_args: fields
            .cpp_no_default_args
            .iter()
            .flatten()
            .cloned()
            .collect(),
        autogen,
        use_const_ref_for_mutable_tensors: fields
            .use_const_ref_for_mutable_tensors
            .unwrap_or(false),
        ufunc_inner_loop: ufunc,
        is_generated: false,
        is_abstract: false,
        source: None,
    };
    add_implicit_tags(&mut f, tags);
    check_with_schema(&mut f, fields, func_at, &mut diag);
    f.is_abstract = f.structured_delegate.is_some() || !only_composite_implicit(&f.dispatch);
    if diag.0.is_empty() {
        Ok((f, func_at))
    } else {
        Err(diag.0)
    }
}

/// R36 and the schema rules: the namespace prefix, the schema, and where the schema starts.
fn parse_func(text: &str, diag: &mut Diag) -> Option<(Option<String>, Schema, usize)> {
    let (namespace, at) = fields::split_namespace(text, diag)?;
    match parse_schema(&text[at..]) {
        Ok(schema) => Some((namespace, schema, at)),
        Err(errors) => {
            for mut e in errors {
                e.range = e.range.start + at..e.range.end + at;
                diag.0.push(EntryError::new(Site::Value(Field::Func), e));
            }
            None
        }
    }
}

fn check_tags(names: &[String], tags: &Tags, diag: &mut Diag) -> BTreeSet<String> {
    let mut set = BTreeSet::new();
    for (i, t) in names.iter().enumerate() {
        if tags.contains(t) {
            set.insert(t.clone());
            continue;
        }
        let e = diag.at(
            Site::Element(Field::Tags, i),
            Rule::UnknownTag,
            WHOLE,
            format!("unknown tag `{t}`"),
        );
        match closest(t, tags.iter()) {
            Some(c) => Diag::hint(
                e,
                format!("did you mean `{c}`? tags must be declared in tags.yaml"),
            ),
            None => Diag::hint(e, "declare the tag in tags.yaml, or remove it"),
        }
    }
    set
}

fn add_implicit_tags(f: &mut NativeFunction, tags: &Tags) {
    for tag in super::tags::implicit_tags(&f.namespace, &f.func) {
        if tags.contains(tag) {
            f.tags.insert(tag.to_string());
        }
    }
}

fn read_ufunc(fields: &EntryFields, diag: &mut Diag) -> Vec<super::entry::UfuncInnerLoop> {
    let pairs = fields.ufunc_inner_loop.as_deref().unwrap_or(&[]);
    pairs
        .iter()
        .enumerate()
        .filter_map(|(i, (k, v))| fields::parse_ufunc(k, v, i, diag))
        .collect()
}

/// The rules that need the parsed schema and the other fields together: R41, R56, R59–R67.
fn check_with_schema(
    f: &mut NativeFunction,
    fields: &EntryFields,
    func_at: usize,
    diag: &mut Diag,
) {
    if !f.ufunc_inner_loop.is_empty()
        || fields
            .ufunc_inner_loop
            .as_ref()
            .is_some_and(|u| !u.is_empty())
    {
        check_ufunc(f, fields, func_at, diag);
    }
    let schema = &f.func;
    let kind = schema.kind();
    let full = schema.name.to_string();
    let name_range = func_at..func_at + full.len();
    let func = Site::Value(Field::Func);
    if f.use_const_ref_for_mutable_tensors && schema.is_out_fn() {
        diag.err(
            Site::Value(Field::UseConstRefForMutableTensors),
            Rule::ConstRefWithOut,
            WHOLE,
            "`use_const_ref_for_mutable_tensors` is not allowed on a schema with out arguments",
            "remove the field (see pytorch/pytorch#145522)",
        );
    }
    if f.structured_delegate.is_some() {
        for (i, (keys, _)) in fields.dispatch.iter().flatten().enumerate() {
            for key in keys.split(',').map(str::trim) {
                if DispatchKey::from_yaml_name(key).is_some_and(DispatchKey::is_structured_backend)
                {
                    let start = keys.find(key).unwrap_or(0);
                    diag.err(
                        Site::Key(Field::Dispatch, i),
                        Rule::DelegateWithStructuredKey,
                        start..start + key.len(),
                        format!("`{key}` in `dispatch` of an entry with `structured_delegate`"),
                        format!("remove `{key}`; its kernel comes from the delegate"),
                    );
                }
            }
        }
    }
    if schema.is_out_fn() && (f.variants.method || !f.variants.function) {
        diag.err(
            Site::Value(Field::Variants),
            Rule::OutVariants,
            WHOLE,
            format!(
                "`{}` has out arguments, so it must have only the `function` variant",
                schema.name
            ),
            "write `variants: function` or drop the field",
        );
    }
    if f.structured && kind != SchemaKind::Out {
        diag.err(
            Site::Value(Field::Structured),
            Rule::StructuredNotOut,
            WHOLE,
            format!(
                "`structured: True` on `{}`, which is not an out variant",
                schema.name
            ),
            "put `structured` on the out variant; did you mean `structured_delegate`?",
        );
    }
    if f.structured_delegate.is_some() && kind == SchemaKind::Out {
        diag.err(
            Site::Value(Field::StructuredDelegate),
            Rule::DelegateOnOut,
            WHOLE,
            format!("`structured_delegate` on out variant `{}`", schema.name),
            "did you mean `structured: True`?",
        );
    }
    if (f.structured || f.structured_delegate.is_some()) && !f.device_guard {
        diag.err(
            Site::Value(Field::DeviceGuard),
            Rule::StructuredDeviceGuard,
            WHOLE,
            "`device_guard: False` is not respected by structured kernels",
            "remove `device_guard: False`",
        );
    }
    for (i, name) in fields.cpp_no_default_args.iter().flatten().enumerate() {
        if !schema
            .arguments
            .iter()
            .any(|a| a.default.is_some() && a.name == *name)
        {
            let what = if schema.arguments.iter().any(|a| a.name == *name) {
                "has no default"
            } else {
                "is not an argument"
            };
            diag.err(
                Site::Element(Field::CppNoDefaultArgs, i),
                Rule::CppNoDefaultArgs,
                WHOLE,
                format!("`{name}` in `cpp_no_default_args` {what}"),
                "list only arguments that have a default value",
            );
        }
    }
    if f.structured_inherits.is_some() && !f.structured {
        diag.err(
            Site::Value(Field::StructuredInherits),
            Rule::InheritsNeedsStructured,
            WHOLE,
            "`structured_inherits` requires `structured: True`",
            "add `structured: True`, or drop `structured_inherits`",
        );
    }
    if full.starts_with("_foreach") && f.device_check != DeviceCheck::NoCheck {
        let (site, range) = match fields.device_check {
            Some(_) => (Site::Value(Field::DeviceCheck), WHOLE),
            None => (func, name_range.clone()),
        };
        diag.err(
            site,
            Rule::ForeachDeviceCheck,
            range,
            format!("`_foreach` operator `{full}` must not check devices"),
            "add `device_check: NoCheck`",
        );
    }
    if looks_random(schema, &full) && !f.has_tag("nondeterministic_seeded") {
        let message = format!("`{full}` looks random but has no `nondeterministic_seeded` tag");
        let hint = "add `tags: nondeterministic_seeded` (names containing `rand` or `dropout`, \
                    and operators with a `Generator` argument, count as random)";
        diag.err(func, Rule::MissingSeededTag, name_range, message, hint);
    }
}

/// R67's test, including the quirk that `rand` is searched in the overload name too.
fn looks_random(schema: &Schema, full: &str) -> bool {
    let dropout = (full.contains("dropout")
        || schema.arguments.iter().any(|a| a.name.contains("dropout")))
        && !full.contains("backward")
        && schema.name.operator_name() != "_cudnn_init_dropout_state";
    let out = schema.out_start();
    let generator = schema.arguments[..out].iter().any(|a| {
        a.ty.strip_optional().base() == Some(crate::schema::BaseType::Generator) && !a.ty.is_list()
    });
    (full.contains("rand") && !full.contains("_philox_")) || dropout || generator
}

/// Where an argument's name sits in the `func` value (for R64, R70 errors).
pub(crate) fn argument_name_range(
    schema: &Schema,
    index: usize,
    func_at: usize,
) -> std::ops::Range<usize> {
    let l = layout(schema);
    l.arguments
        .get(index)
        .map_or(0..0, |a| a.name.start + func_at..a.name.end + func_at)
}
