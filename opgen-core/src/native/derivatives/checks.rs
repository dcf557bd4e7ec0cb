//! The checks torchgen makes on an entry besides building it (R105, R107, R108, R111,
//! R113, R114), and `gen_differentiable_outputs`.

use super::info::return_names;
use super::model::{Derivative, DifferentiabilityInfo, OutputDifferentiability};
use super::read::{RawEntry, RawFormula, RawOutputs, Reader};
use super::text::{count_ident, grads_indices, has_ident};
use crate::formula::DerivativeRule;
use crate::native::{NativeFunction, Position};
use crate::schema::SchemaKind;

pub(crate) fn check_reserved(f: &NativeFunction, raw: &RawEntry, reader: &mut Reader) {
    for reserved in ["grad_input_mask", "result"] {
        if f.func.arguments.iter().any(|a| a.name == reserved) {
            let msg = format!(
                "schema for `{}` has an argument named `{reserved}`, which the derivative formulas reserve",
                f.func.name
            );
            let hint = "use a different name in native_functions.yaml".to_string();
            reader.error(
                DerivativeRule::ReservedName,
                raw.name.position,
                Some(&raw.name.text),
                0..0,
                msg,
                Some(hint),
            );
        }
    }
}

pub(crate) fn check_outputs(
    f: &NativeFunction,
    outputs: &RawOutputs,
    at: Position,
    reader: &mut Reader,
) {
    let RawOutputs::Flags(flags) = outputs else {
        return;
    };
    let n = f.func.returns.len();
    if flags.len() != n {
        let msg = format!(
            "the length of output_differentiability ({}) does not match the number of outputs ({n})",
            flags.len()
        );
        reader.error(
            DerivativeRule::OutputDifferentiability,
            at,
            None,
            0..0,
            msg,
            Some(format!("give {n} booleans")),
        );
    } else if f.func.kind() == SchemaKind::Inplace && flags.contains(&false) {
        let msg = "output_differentiability=False for inplace operation (version_counter won't get updated)".to_string();
        reader.error(
            DerivativeRule::OutputDifferentiability,
            at,
            None,
            0..0,
            msg,
            None,
        );
    }
}

/// R108: the `int` forms of sizes and strides are refused (torchgen's messages).
pub(crate) fn check_int_sizes(raw: &RawFormula, reader: &mut Reader) {
    let text = &raw.value.text;
    let size_int = |sep: &str| {
        text.match_indices(&format!("{sep}size(")).any(|(i, m)| {
            let rest = &text[i + m.len()..];
            let rest = rest.strip_prefix('-').unwrap_or(rest);
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            digits > 0 && rest[digits..].starts_with(')')
        })
    };
    let found = if text.contains(".sizes()") || text.contains("->sizes()") {
        Some((
            ".sizes()",
            ".sym_sizes(), which returns a c10::SymIntArrayRef",
        ))
    } else if size_int(".") || size_int("->") {
        Some((".size(int)", ".sym_size(int), which returns a c10::SymInt"))
    } else if text.contains(".strides()") || text.contains("->strides()") {
        Some((
            ".strides()",
            ".sym_strides(), which returns a c10::SymIntArrayRef",
        ))
    } else {
        None
    };
    if let Some((what, instead)) = found {
        let msg = format!("`{what}` is not supported in derivative formulas");
        let hint = format!("use the SymInt version, {instead}");
        reader.error(
            DerivativeRule::SymSizes,
            raw.value.position,
            Some(text),
            0..0,
            msg,
            Some(hint),
        );
    }
}

/// R111 (gen_variable_type's `find_args_with_derivatives`): formula keys name tensor
/// arguments that are not `non_differentiable`.
pub(crate) fn check_differentiable_inputs(
    f: &NativeFunction,
    derivatives: &[Derivative],
    non_differentiable: &[String],
    reader: &mut Reader,
) {
    for d in derivatives {
        for name in &d.var_names {
            let arg = f.func.arguments.iter().find(|a| a.name == *name);
            let ok =
                arg.is_some_and(|a| a.ty.is_tensor_like()) && !non_differentiable.contains(name);
            if !ok {
                let ty = arg.map_or_else(String::new, |a| format!(" (of type `{}`)", a.ty));
                let msg = format!(
                    "missing arguments for derivatives: `{name}`{ty} is not a differentiable input of `{}`",
                    f.func.name
                );
                let hint =
                    "only `Tensor`, `Tensor?` and `Tensor[]` arguments have gradients".to_string();
                reader.error(
                    DerivativeRule::NotDifferentiableInput,
                    d.position,
                    None,
                    0..0,
                    msg,
                    Some(hint),
                );
            }
        }
    }
}

/// torchgen's `check_grad_usage` (R107).
pub(crate) fn check_grad_usage(
    f: &NativeFunction,
    defn_name: &str,
    derivatives: &[Derivative],
    reader: &mut Reader,
) {
    let (mut uses_grad, mut uses_named) = (false, false);
    let mut num_grads_uses = 0;
    let mut indices = Vec::new();
    for d in derivatives {
        uses_grad |= has_ident(&d.formula, "grad");
        num_grads_uses += count_ident(&d.formula, "grads");
        uses_named |= !d.named_gradients.is_empty();
        indices.extend(grads_indices(&d.formula));
    }
    let only_indices = num_grads_uses == indices.len();
    let at = derivatives.first().map(|d| d.position);
    let mut report = |msg: String, hint: &str| {
        if let Some(at) = at {
            reader.error(
                DerivativeRule::GradUsage,
                at,
                None,
                0..0,
                msg,
                Some(hint.to_string()),
            );
        }
    };
    if uses_grad && num_grads_uses > 0 {
        report(
            format!(
                "derivative definition of `{defn_name}` in derivatives.yaml illegally mixes use of `grad` and `grads`"
            ),
            "consider replacing occurrences of `grad` with `grads[0]`",
        );
    }
    if only_indices && !indices.is_empty() && indices.iter().all(|&i| i == 0) {
        report(
            format!(
                "derivative definition of `{defn_name}` in derivatives.yaml solely refers to `grads[0]`"
            ),
            "if the first output is indeed the only differentiable output, replace `grads[0]` with `grad`",
        );
    }
    if uses_named && (uses_grad || num_grads_uses > 0) {
        report(
            format!(
                "derivative definition of `{defn_name}` in derivatives.yaml illegally mixes use of `grad_RETURN_NAME` and `grad` or `grads[x]`"
            ),
            "use only one method for identifying gradients",
        );
    }
    let _ = f;
}

/// R113 (gen_variable_type): an entry with formulas must have a differentiable input and a
/// differentiable output, or its formulas are ignored.
pub(crate) fn check_requires_derivative(
    info: &DifferentiabilityInfo,
    raw: &RawEntry,
    reader: &mut Reader,
) {
    if !info.has_derivatives() || info.func.returns.is_empty() {
        return;
    }
    let inputs = (info.func.arguments.iter()).any(|a| {
        a.ty.is_tensor_like()
            && !info
                .non_differentiable_arg_names
                .iter()
                .any(|n| *n == a.name)
    });
    let outputs = !differentiable_outputs(info).is_empty();
    if !inputs || !outputs {
        let msg = format!(
            "derivative ignored for `{}`: it specifies an autograd function without derivative",
            info.name
        );
        let hint = if outputs {
            "no input is differentiable"
        } else {
            "no output is differentiable"
        };
        reader.error(
            DerivativeRule::IgnoredDerivative,
            raw.name.position,
            Some(&raw.name.text),
            0..0,
            msg,
            Some(hint.into()),
        );
    }
}

/// torchgen's `gen_differentiable_outputs`: the positions of the differentiable returns.
pub fn differentiable_outputs(info: &DifferentiabilityInfo) -> Vec<usize> {
    let names = return_names(&info.func);
    if let Some(OutputDifferentiability::Flags(flags)) = &info.output_differentiability {
        return (0..flags.len()).filter(|&i| flags[i]).collect();
    }
    let candidates: Vec<usize> = (info.func.returns.iter().enumerate())
        .filter(|(i, r)| {
            r.ty.is_tensor_like() && !info.non_differentiable_arg_names.contains(&names[*i])
        })
        .map(|(i, _)| i)
        .collect();
    if info.uses_single_grad() {
        candidates.into_iter().take(1).collect()
    } else {
        candidates
    }
}
