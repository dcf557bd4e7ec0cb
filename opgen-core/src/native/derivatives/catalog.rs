//! The differentiability catalog: one JSON object per native function that has formulas,
//! with torchgen's facts (`opgen json --derivatives`).

use serde_json::{Value, json};

use super::Derivatives;
use super::checks::differentiable_outputs;
use super::info::{cpp_arguments, return_names};
use super::matching::{MatchKind, match_functions, node_name};
use super::model::{DifferentiabilityInfo, OutputDifferentiability, SavedAttribute, SavedType};
use crate::native::NativeFunctions;

fn saved(list: &[SavedAttribute]) -> Value {
    list.iter()
        .map(|s| json!({"name": s.name, "type": s.ty.cpp_type(), "expr": s.expr}))
        .collect()
}

/// The differentiable tensor inputs without a formula that are not `non_differentiable`:
/// the Autograd kernel refuses them when they require grad (torchgen's
/// `check_no_requires_grad`; `output` is exempt, as in torchgen).
pub fn inputs_without_formula(info: &DifferentiabilityInfo) -> Vec<String> {
    cpp_arguments(&info.func)
        .into_iter()
        .filter(|a| matches!(&a.ty, SavedType::Argument(t) if t.is_tensor_like()))
        .map(|a| a.name)
        .filter(|n| {
            n != "output"
                && !info.args_with_derivatives.contains(n)
                && !info.non_differentiable_arg_names.contains(n)
        })
        .collect()
}

fn gradients_used(info: &DifferentiabilityInfo) -> &'static str {
    if !info.used_named_gradients.is_empty() {
        "grad_<name>"
    } else if info
        .derivatives
        .iter()
        .any(|d| super::text::has_ident(&d.formula, "grads"))
    {
        "grads"
    } else if info.uses_single_grad() {
        "grad"
    } else {
        "none"
    }
}

fn info_json(info: &DifferentiabilityInfo, kind: MatchKind) -> Value {
    let outputs = return_names(&info.func);
    let differentiable: Vec<&String> = differentiable_outputs(info)
        .into_iter()
        .filter_map(|i| outputs.get(i))
        .collect();
    let written = match &info.output_differentiability {
        None => Value::Null,
        Some(OutputDifferentiability::Flags(f)) => json!(f),
        Some(OutputDifferentiability::Condition(c)) => json!(c),
    };
    let formulas: Vec<Value> = (info.derivatives.iter())
        .map(|d| {
            json!({
                "inputs": d.var_names,
                "formula": d.original_formula,
                "rewritten": d.formula,
                "saved_inputs": saved(&d.saved_inputs),
                "saved_outputs": saved(&d.saved_outputs),
            })
        })
        .collect();
    let forward: Vec<Value> = (info.forward_derivatives.iter())
        .map(|f| json!({"outputs": f.var_names, "formula": f.formula, "tangents": f.required_inputs_fw_grad, "primals": f.required_inputs_primal}))
        .collect();
    let saves_original_self =
        kind == MatchKind::Functional && info.all_saved_inputs.iter().any(|s| s.name == "self");
    json!({
        "node": node_name(info, kind),
        "differentiable_inputs": info.args_with_derivatives,
        "non_differentiable": info.non_differentiable_arg_names,
        "inputs_without_formula": inputs_without_formula(info),
        "output_differentiability": written,
        "differentiable_outputs": differentiable,
        "gradients": gradients_used(info),
        "saved_inputs": saved(&info.all_saved_inputs),
        "saved_outputs": saved(&info.all_saved_outputs),
        "saves_original_self": saves_original_self,
        "formulas": formulas,
        "forward": forward,
    })
}

/// The catalog: `{"entries": N, "functions": [...]}`, one object per native function served
/// by some entry (its own, or its functional, mutable or view operator's).
///
/// ```
/// use opgen_core::native::{derivatives::{catalog_json, load_derivatives}, load_native_functions};
/// let natives = load_native_functions("
/// - func: neg(Tensor self) -> Tensor
/// - func: neg_(Tensor(a!) self) -> Tensor(a!)
/// ", "").unwrap();
/// let d = load_derivatives("d.yaml", "- name: neg(Tensor self) -> Tensor\n  self: grad.neg()\n", &natives).unwrap();
/// let json = catalog_json(&d, &natives);
/// assert_eq!(json["functions"][1]["name"], "neg_");
/// assert_eq!(json["functions"][1]["match"], "functional");
/// assert_eq!(json["functions"][1]["dispatch"]["Default"]["node"], "NegBackward0");
/// ```
pub fn catalog_json(d: &Derivatives, natives: &NativeFunctions) -> Value {
    let functions: Vec<Value> = match_functions(d, natives)
        .into_iter()
        .map(|m| {
            let f = &natives.functions()[m.function];
            let dispatch: serde_json::Map<String, Value> = (m.entry.infos.iter())
                .map(|(k, info)| (k.clone(), info_json(info, m.kind)))
                .collect();
            json!({
                "name": f.func.name.to_string(),
                "schema": f.func.to_string(),
                "match": match m.kind {
                    MatchKind::Exact => "exact",
                    MatchKind::Functional => "functional",
                    MatchKind::Mutable => "mutable",
                    MatchKind::ViewCopy => "view_copy",
                },
                "entry": m.entry.name,
                "dispatch": dispatch,
            })
        })
        .collect();
    json!({"entries": d.entries.len(), "functions": functions})
}
