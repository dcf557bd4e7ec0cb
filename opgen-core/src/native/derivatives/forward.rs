//! Forward-mode formulas: torchgen's `create_forward_derivative` and
//! `postprocess_forward_derivatives` (R104, R112).

use super::info::return_names;
use super::model::{Derivative, ForwardDerivative};
use super::read::{RawFormula, Reader};
use super::text::{has_ident, sub_ident};
use crate::formula::DerivativeRule;
use crate::native::NativeFunction;
use crate::schema::SchemaKind;

/// A forward formula before post-processing.
pub(crate) struct ForwardDef {
    pub formula: String,
    pub var_names: Vec<String>,
    pub raw: RawFormula,
}

/// Whether a forward formula's key names outputs of `f`: every name a return's name, or
/// every one `resultN` of an existing return, or `result` of the only return.
pub(crate) fn names_outputs<S: AsRef<str>>(f: &NativeFunction, names: &[S]) -> bool {
    let returns = &f.func.returns;
    let named = (names.iter()).all(|n| {
        returns
            .iter()
            .any(|r| r.name.as_deref() == Some(n.as_ref()))
    });
    let numbered = names.iter().all(|n| {
        (n.as_ref().strip_prefix("result"))
            .and_then(|i| i.parse::<usize>().ok())
            .is_some_and(|i| i < returns.len())
    });
    let single = names.len() == 1 && names[0].as_ref() == "result" && returns.len() == 1;
    named || numbered || single
}

/// torchgen's `create_forward_derivative`: the key must name outputs (`result`, `resultN`,
/// or a return's name); anything else is an unknown key.
pub(crate) fn create(
    f: &NativeFunction,
    raw: &RawFormula,
    names: &[String],
    arg_names: &[&str],
    reader: &mut Reader,
) -> Option<ForwardDef> {
    let returns = &f.func.returns;
    if names_outputs(f, names) {
        return Some(ForwardDef {
            formula: raw.value.text.clone(),
            var_names: names.to_vec(),
            raw: raw.clone(),
        });
    }
    let key = &raw.key.text;
    let mut outputs: Vec<String> = returns
        .iter()
        .filter_map(|r| r.name.as_ref().map(|n| n.to_string()))
        .collect();
    if outputs.is_empty() {
        outputs = return_names(&f.func);
    }
    let candidates: Vec<&str> = arg_names
        .iter()
        .copied()
        .chain(outputs.iter().map(String::as_str))
        .collect();
    let hint = match crate::schema::suggest::closest(&names[0], candidates.into_iter()) {
        Some(c) => format!("did you mean `{c}`?"),
        None => format!(
            "a key names arguments of `{}` ({}) or, for a forward formula, outputs ({})",
            f.func.name,
            arg_names.join(", "),
            outputs.join(", ")
        ),
    };
    let msg = format!(
        "`{key}` is neither an argument nor an output of `{}`: no matching output for forward derivative definition",
        f.func.name
    );
    reader.error(
        DerivativeRule::UnknownKey,
        raw.key.position,
        Some(key),
        0..0,
        msg,
        Some(hint),
    );
    None
}

/// The tensor inputs `formula` names with `postfix` (`_t`, `_p`); the base name alone is
/// ambiguous (torchgen's `find_required_inputs`).
fn required_inputs(
    f: &NativeFunction,
    defn_name: &str,
    formula: &str,
    postfix: &str,
    args_with_derivatives: &[String],
    def: &ForwardDef,
    reader: &mut Reader,
) -> Vec<String> {
    let is_foreach = f.func.name.name.base.starts_with("_foreach_");
    let mut required = Vec::new();
    for name in args_with_derivatives {
        let is_list = f
            .func
            .arguments
            .iter()
            .any(|a| a.name == *name && a.ty.is_list());
        if is_list && !is_foreach {
            continue;
        }
        if has_ident(formula, name) {
            let msg = format!(
                "the forward formula for `{defn_name}` is using the base name of the `{name}` argument which is ambiguous"
            );
            let hint = format!(
                "use `{name}_p` to access the primal value and `{name}_t` to access the tangent"
            );
            reader.error(
                DerivativeRule::ForwardFormula,
                def.raw.value.position,
                Some(&def.raw.value.text),
                0..0,
                msg,
                Some(hint),
            );
        }
        if has_ident(formula, &format!("{name}{postfix}")) && !required.contains(name) {
            required.push(name.clone());
        }
    }
    required
}

/// torchgen's `postprocess_forward_derivatives`: expands `auto_element_wise` and
/// `auto_linear`, and records which tangents and primals each formula uses.
pub(crate) fn postprocess(
    f: &NativeFunction,
    defn_name: &str,
    all_arg_names: &[&str],
    derivatives: &[Derivative],
    defs: Vec<ForwardDef>,
    args_with_derivatives: &[String],
    reader: &mut Reader,
) -> Vec<ForwardDerivative> {
    let count = defs.len();
    let mut out = Vec::with_capacity(count);
    for def in &defs {
        let mut formula = def.formula.clone();
        let mut tangents = required_inputs(
            f,
            defn_name,
            &formula,
            "_t",
            args_with_derivatives,
            def,
            reader,
        );
        let fail = |reader: &mut Reader, msg: String| {
            reader.error(
                DerivativeRule::ForwardFormula,
                def.raw.value.position,
                Some(&def.raw.value.text),
                0..0,
                msg,
                None,
            );
        };
        if formula == "auto_element_wise" {
            if f.func.kind() == SchemaKind::Inplace {
                fail(
                    reader,
                    format!(
                        "cannot use auto_element_wise with `{}` because it is an in-place variant",
                        f.func.name
                    ),
                );
            } else if args_with_derivatives.len() != 1 || count > 1 || def.var_names.len() > 1 {
                fail(
                    reader,
                    format!(
                        "derivative definition of `{defn_name}` in derivatives.yaml defines the forward definition of gradient as element_wise but this only works for functions with a single differentiable input and a single differentiable output"
                    ),
                );
            } else if derivatives.len() != 1 {
                fail(
                    reader,
                    format!(
                        "derivative definition of `{defn_name}` in derivatives.yaml defines the forward definition of gradient as element_wise but it does not defines the gradient formula for its argument which is required"
                    ),
                );
            } else {
                let input = &args_with_derivatives[0];
                let mut fw = sub_ident(
                    &derivatives[0].original_formula,
                    "grad",
                    &format!("{input}_t.conj()"),
                );
                for arg in args_with_derivatives {
                    fw = sub_ident(&fw, arg, &format!("{arg}_p"));
                }
                formula = format!("({fw}).conj()");
                tangents = all_arg_names.iter().map(|s| s.to_string()).collect();
            }
        } else if formula == "auto_linear" {
            if count > 1 || def.var_names.len() > 1 {
                fail(
                    reader,
                    format!(
                        "derivative definition of `{defn_name}` in derivatives.yaml defines the forward definition of gradient as linear but this only works for functions with a single differentiable output"
                    ),
                );
            } else if !args_with_derivatives.is_empty() {
                formula = linear_formula(f, defn_name, all_arg_names, args_with_derivatives);
                tangents = args_with_derivatives.to_vec();
            }
        }
        let primals = required_inputs(
            f,
            defn_name,
            &formula,
            "_p",
            args_with_derivatives,
            def,
            reader,
        );
        out.push(ForwardDerivative {
            formula,
            var_names: def.var_names.clone(),
            required_inputs_fw_grad: tangents,
            required_inputs_primal: primals,
            position: def.raw.value.position,
        });
    }
    out
}

/// `auto_linear`: the operator called again on the tangents.
fn linear_formula(
    f: &NativeFunction,
    defn_name: &str,
    all_arg_names: &[&str],
    diff: &[String],
) -> String {
    let args: Vec<String> = (all_arg_names.iter())
        .map(|n| {
            if diff.iter().any(|d| d == n) {
                format!("{n}_t")
            } else {
                n.to_string()
            }
        })
        .collect();
    let name = if f.func.has_symint() {
        format!("{defn_name}_symint")
    } else {
        defn_name.to_string()
    };
    if f.variants.function {
        format!("at::{name}({})", args.join(", "))
    } else {
        format!("{}.{name}({})", args[0], args[1..].join(", "))
    }
}
