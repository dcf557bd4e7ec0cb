//! torchgen's `create_differentiability_info` and `set_up_derivatives`: from one entry's
//! formulas to the facts of its backward node, with torchgen's checks (R104–R117).

use super::checks::{
    check_differentiable_inputs, check_grad_usage, check_int_sizes, check_outputs,
    check_requires_derivative, check_reserved,
};
use super::model::{
    Derivative, DerivativeEntry, DifferentiabilityInfo, OutputDifferentiability, SavedType,
};
use super::read::{RawEntry, RawFormula, RawOutputs, Reader};
use super::saved::{Named, dedup, saved_variables};
use super::text::{grads_indices, has_ident, title};
use super::{forward, scope};
use crate::formula::DerivativeRule;
use crate::native::{NativeFunction, NativeFunctions};
use crate::schema::Schema;

/// The autograd dispatch keys a `dispatch` entry may name besides `Default` (torchgen's
/// `AUTOGRAD_KEYS`).
pub const AUTOGRAD_KEYS: &[&str] = &[
    "AutogradNestedTensor",
    "AutogradCPU",
    "AutogradCUDA",
    "AutogradHIP",
    "AutogradXLA",
    "AutogradMTIA",
    "AutogradMPS",
    "AutogradIPU",
    "AutogradXPU",
    "AutogradHPU",
    "AutogradVE",
    "AutogradLazy",
    "AutogradMeta",
    "AutogradPrivateUse1",
    "AutogradPrivateUse2",
    "AutogradPrivateUse3",
];

/// The lookups every entry needs, built once per file.
pub(crate) struct Context<'n> {
    pub natives: &'n NativeFunctions,
    pub by_schema: rustc_hash::FxHashMap<String, usize>,
    pub by_signature: rustc_hash::FxHashMap<Schema, Vec<usize>>,
    pub op_counter: rustc_hash::FxHashMap<String, usize>,
}

impl<'n> Context<'n> {
    pub fn new(natives: &'n NativeFunctions) -> Context<'n> {
        let mut by_schema = rustc_hash::FxHashMap::default();
        let mut by_signature: rustc_hash::FxHashMap<Schema, Vec<usize>> = Default::default();
        for (i, f) in natives.functions().iter().enumerate() {
            by_schema.entry(f.func.to_string()).or_insert(i);
            by_signature.entry(f.func.signature()).or_default().push(i);
        }
        Context {
            natives,
            by_schema,
            by_signature,
            op_counter: Default::default(),
        }
    }
}

/// `name` without overload and arguments (torchgen's `split_name_params`).
fn defn_name(spec: &str) -> &str {
    let head = spec.split('(').next().unwrap_or(spec);
    head.split('.').next().unwrap_or(head)
}

/// torchgen's `cpp.name`: the base name with its in-place `_`, plus `_out` for out schemas.
pub(crate) fn cpp_name(schema: &Schema) -> String {
    let mut s = schema.name.name.to_string();
    if schema.is_out_fn() {
        s.push_str("_out");
    }
    s
}

/// The arguments of the C++ API (torchgen's `cpp_arguments`): out arguments first, the
/// TensorOptions group as one `options`.
pub(crate) fn cpp_arguments(schema: &Schema) -> Vec<Named> {
    let out_start = schema.out_start();
    let to = schema.tensor_options_start();
    let named = |i: usize| Named {
        name: schema.arguments[i].name.to_string(),
        ty: SavedType::Argument(schema.arguments[i].ty.clone()),
    };
    let mut args: Vec<Named> = (out_start..schema.arguments.len()).map(named).collect();
    for i in 0..out_start {
        match to {
            Some(t) if i == t => args.push(Named {
                name: "options".into(),
                ty: SavedType::Options,
            }),
            Some(t) if i > t && i < t + 4 => {}
            _ => args.push(named(i)),
        }
    }
    args
}

/// torchgen's `cpp.return_names`: `self` for in-place, the out argument for out schemas, the
/// return's name (`_return` added when an argument has it), else `result` / `resultN`.
pub fn return_names(schema: &Schema) -> Vec<String> {
    let n = schema.returns.len();
    (schema.returns.iter().enumerate())
        .map(|(i, r)| {
            if schema.name.name.inplace {
                "self".to_string()
            } else if schema.is_out_fn() {
                schema
                    .out_arguments()
                    .get(i)
                    .map_or_else(|| "result".into(), |a| a.name.to_string())
            } else if let Some(name) = &r.name {
                if schema.arguments.iter().any(|a| a.name == *name) {
                    format!("{name}_return")
                } else {
                    name.to_string()
                }
            } else if n == 1 {
                "result".into()
            } else {
                format!("result{i}")
            }
        })
        .collect()
}

/// torchgen's `canonical_function`: the first function of the signature group that is
/// neither out nor `functional` and has the entry's name; else the first (an operator that
/// only has an in-place variant).
fn canonical<'n>(natives: &'n NativeFunctions, group: &[usize], name: &str) -> &'n NativeFunction {
    let fs = natives.functions();
    group
        .iter()
        .map(|&i| &fs[i])
        .find(|f| {
            !f.func.is_functional_fn()
                && !f.func.is_out_fn()
                && f.func.name.name.to_string() == name
        })
        .unwrap_or(&fs[group[0]])
}

/// torchgen's `_create_op_prefix`: `add` → `AddBackward`, `_foo_forward` → `FooBackward`.
pub(crate) fn op_prefix(name: &str) -> String {
    let camel: String = name.split('_').map(title).collect();
    format!("{camel}Backward").replace("ForwardBackward", "Backward")
}

/// Builds one entry, reporting every problem found.
pub(crate) fn load_entry(
    ctx: &mut Context,
    raw: &RawEntry,
    reader: &mut Reader,
) -> Option<DerivativeEntry> {
    let spec = raw.name.text.as_str();
    let Some(&index) = ctx.by_schema.get(spec) else {
        unknown_schema(ctx, raw, reader);
        return None;
    };
    let natives = ctx.natives;
    let func = &natives.functions()[index];
    let name = defn_name(spec);
    let group = ctx
        .by_signature
        .get(&func.func.signature())
        .cloned()
        .unwrap_or_else(|| vec![index]);
    let canonical = canonical(natives, &group, name);
    let errors_before = reader.errors.len();
    check_reserved(canonical, raw, reader);
    let outputs = raw.output_differentiability.as_ref().map(|(o, _)| match o {
        RawOutputs::Flags(f) => OutputDifferentiability::Flags(f.clone()),
        RawOutputs::Condition(c) => OutputDifferentiability::Condition(c.clone()),
    });
    if let Some((o, at)) = &raw.output_differentiability {
        check_outputs(canonical, o, *at, reader);
    }
    let mut infos = Vec::new();
    for (key, formulas) in &raw.dispatch {
        if key.text != "Default" && !AUTOGRAD_KEYS.contains(&key.text.as_str()) {
            let msg = format!(
                "invalid dispatch key `{}` in derivatives.yaml for `{spec}`",
                key.text
            );
            let hint = format!("expected `Default` or one of {}", AUTOGRAD_KEYS.join(", "));
            reader.error(
                DerivativeRule::DispatchKey,
                key.position,
                Some(&key.text),
                0..0,
                msg,
                Some(hint),
            );
            continue;
        }
        let mut info = set_up(canonical, name, formulas, outputs.clone(), reader);
        if info.has_derivatives() {
            let mut prefix = op_prefix(name);
            if key.text != "Default" {
                prefix.push_str(&key.text);
            }
            let n = ctx.op_counter.entry(prefix.clone()).or_insert(0);
            info.op = Some(format!("{prefix}{n}"));
            *n += 1;
        }
        check_requires_derivative(&info, raw, reader);
        infos.push((key.text.clone(), info));
    }
    (reader.errors.len() == errors_before).then(|| DerivativeEntry {
        name: spec.to_string(),
        position: raw.name.position,
        function: index,
        infos,
    })
}

fn unknown_schema(ctx: &Context, raw: &RawEntry, reader: &mut Reader) {
    let spec = &raw.name.text;
    let name = defn_name(spec);
    let available: Vec<String> = (ctx.natives.functions().iter())
        .filter(|f| cpp_name(&f.func) == name)
        .map(|f| f.func.to_string())
        .collect();
    let hint = match crate::schema::canonicalize(spec) {
        Ok(s) if s != *spec && ctx.by_schema.contains_key(&s) => Some(format!(
            "write it exactly as in native_functions.yaml: `{s}`"
        )),
        _ if available.is_empty() => Some(format!("no native function is named `{name}`")),
        _ => Some(format!(
            "available signatures:\n  {}",
            available.join("\n  ")
        )),
    };
    let msg = format!("could not find ATen function for schema `{spec}`");
    reader.error(
        DerivativeRule::UnknownSchema,
        raw.name.position,
        Some(spec),
        0..0,
        msg,
        hint,
    );
}

/// torchgen's `set_up_derivatives` for one dispatch key.
fn set_up(
    f: &NativeFunction,
    defn_name: &str,
    formulas: &[RawFormula],
    output_differentiability: Option<OutputDifferentiability>,
    reader: &mut Reader,
) -> DifferentiabilityInfo {
    let args = cpp_arguments(&f.func);
    let arg_names: Vec<&str> = args.iter().map(|a| a.name.as_str()).collect();
    let flags = match &output_differentiability {
        Some(OutputDifferentiability::Flags(flags)) => flags.clone(),
        _ => vec![true; f.func.returns.len()],
    };
    let available_named_gradients: Vec<String> = (f.func.returns.iter().zip(&flags))
        .filter(|(r, d)| **d && r.ty.is_tensor_like())
        .filter_map(|(r, _)| r.name.as_ref().map(|n| format!("grad_{n}")))
        .collect();
    let mut sorted: Vec<&RawFormula> = formulas.iter().collect();
    sorted.sort_by(|a, b| a.key.text.cmp(&b.key.text));
    let mut derivatives = Vec::new();
    let mut forward_defs = Vec::new();
    let mut non_differentiable: Vec<String> = Vec::new();
    for raw in sorted {
        let names: Vec<String> = raw
            .key
            .text
            .split(',')
            .map(|s| s.trim().to_string())
            .collect();
        for name in &names {
            if arg_names.contains(&name.as_str())
                && f.func
                    .returns
                    .iter()
                    .any(|r| r.name.as_deref() == Some(name))
            {
                let msg = format!(
                    "`{name}` is both an input argument and a named return of `{}`",
                    f.func.name
                );
                reader.error(
                    DerivativeRule::ArgAndReturn,
                    raw.key.position,
                    Some(&raw.key.text),
                    0..0,
                    msg,
                    None,
                );
            }
        }
        let is_forward = names
            .first()
            .is_some_and(|n| !arg_names.contains(&n.as_str()));
        if is_forward {
            forward_defs.extend(forward::create(f, raw, &names, &arg_names, reader));
        } else if raw
            .value
            .text
            .trim()
            .eq_ignore_ascii_case("non_differentiable")
        {
            non_differentiable.extend(names);
        } else {
            let d = create_derivative(f, raw, names, &args, &available_named_gradients, reader);
            derivatives.push(d);
        }
    }
    let with_formula: Vec<&str> = derivatives
        .iter()
        .flat_map(|d| d.var_names.iter().map(String::as_str))
        .collect();
    for d in &derivatives {
        if let Some(name) = d.var_names.iter().find(|n| non_differentiable.contains(n)) {
            let msg = format!("`{name}` has a formula and is marked non_differentiable");
            reader.error(
                DerivativeRule::Overlap,
                d.position,
                None,
                0..0,
                msg,
                Some("keep one of the two".into()),
            );
        }
    }
    let args_with_derivatives: Vec<String> = (arg_names.iter())
        .filter(|n| with_formula.contains(n))
        .map(|n| n.to_string())
        .collect();
    check_differentiable_inputs(f, &derivatives, &non_differentiable, reader);
    check_grad_usage(f, defn_name, &derivatives, reader);
    let forward_derivatives = forward::postprocess(
        f,
        defn_name,
        &arg_names,
        &derivatives,
        forward_defs,
        &args_with_derivatives,
        reader,
    );
    let used_named_gradients =
        dedup_strings(derivatives.iter().flat_map(|d| d.named_gradients.clone()));
    let mut info = DifferentiabilityInfo {
        name: defn_name.to_string(),
        func: f.func.clone(),
        op: None,
        all_saved_inputs: dedup(derivatives.iter().flat_map(|d| d.saved_inputs.clone())),
        all_saved_outputs: dedup(derivatives.iter().flat_map(|d| d.saved_outputs.clone())),
        derivatives,
        forward_derivatives,
        available_named_gradients,
        used_named_gradients,
        args_with_derivatives,
        non_differentiable_arg_names: non_differentiable,
        output_differentiability,
    };
    scope::check_formulas(f, &mut info, formulas, reader);
    info
}

fn dedup_strings(all: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in all {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// torchgen's `create_derivative`.
fn create_derivative(
    f: &NativeFunction,
    raw: &RawFormula,
    var_names: Vec<String>,
    args: &[Named],
    available_named_gradients: &[String],
    reader: &mut Reader,
) -> Derivative {
    let original = raw.value.text.clone();
    check_int_sizes(raw, reader);
    let returns: Vec<Named> = (return_names(&f.func).into_iter().zip(&f.func.returns))
        .map(|(n, r)| Named {
            name: if n == "self" { "result".into() } else { n },
            ty: SavedType::Return(r.ty.clone()),
        })
        .collect();
    let inputs = saved_variables(&original, args, &var_names);
    let outputs = saved_variables(&inputs.formula, &returns, &var_names);
    for name in inputs.bad_strides.iter().chain(&outputs.bad_strides) {
        let msg = format!(
            "`{name}.sym_strides()` in the derivative of `{}`: the replacement of `.sym_strides()` is only supported in the derivative of that one tensor",
            var_names.join(", ")
        );
        reader.error(
            DerivativeRule::Strides,
            raw.value.position,
            Some(&raw.value.text),
            0..0,
            msg,
            None,
        );
    }
    let formula = outputs.formula;
    let named_gradients = (available_named_gradients.iter())
        .filter(|g| has_ident(&formula, g))
        .cloned()
        .collect();
    for i in grads_indices(&formula) {
        if i >= f.func.returns.len() {
            let msg = format!(
                "out of bounds grads access: derivative formula for `{}` used grads[{i}], but the forward only returns {} outputs",
                cpp_name(&f.func),
                f.func.returns.len()
            );
            reader.error(
                DerivativeRule::GradUsage,
                raw.value.position,
                Some(&raw.value.text),
                0..0,
                msg,
                None,
            );
        }
    }
    Derivative {
        formula,
        original_formula: original,
        var_names,
        saved_inputs: inputs.saved,
        saved_outputs: outputs.saved,
        named_gradients,
        position: raw.value.position,
    }
}
