//! Every formula parses (R109, R119) and names only variables in its scope (R110).

use super::info::{cpp_arguments, return_names};
use super::model::DifferentiabilityInfo;
use super::read::{RawFormula, Reader};
use crate::formula::{DerivativeRule, FormulaError, FormulaText, parse_formula};
use crate::native::NativeFunction;

/// Formulas that are keywords, not expressions.
const KEYWORDS: &[&str] = &["non_differentiable", "auto_element_wise", "auto_linear"];

/// The variables a backward formula may name: the arguments, the returns (`result`,
/// `resultN`, their names), the output gradients and `grad_input_mask`,
/// `retain_variables`; in `_foreach_` operators, the loop index `i`.
pub(crate) fn backward_scope(f: &NativeFunction, info: &DifferentiabilityInfo) -> Vec<String> {
    let mut names: Vec<String> = cpp_arguments(&f.func).into_iter().map(|a| a.name).collect();
    if f.func.name.name.base.starts_with("_foreach_") {
        names.push("i".into());
    }
    names.extend(
        return_names(&f.func)
            .into_iter()
            .map(|n| if n == "self" { "result".into() } else { n }),
    );
    names.extend(["grad", "grads", "grad_input_mask", "retain_variables"].map(String::from));
    names.extend(info.available_named_gradients.iter().cloned());
    names
}

/// The variables a forward formula may name: the arguments (the TensorOptions ones one by
/// one, as the forward code has them), `x_p` and `x_t` of tensor arguments (and
/// `original_self_p`/`_t` for in-place operators), the returns; in `_foreach_` operators, `i`.
fn forward_scope(f: &NativeFunction) -> Vec<String> {
    let mut names: Vec<String> = cpp_arguments(&f.func).into_iter().map(|a| a.name).collect();
    names.extend(f.func.arguments.iter().map(|a| a.name.to_string()));
    if f.func.name.name.base.starts_with("_foreach_") {
        names.push("i".into());
    }
    for a in &f.func.arguments {
        if a.ty.is_tensor_like() {
            names.push(format!("{}_p", a.name));
            names.push(format!("{}_t", a.name));
        }
    }
    if f.func.name.name.inplace {
        names.extend(["original_self_p", "original_self_t"].map(String::from));
    }
    names.extend(return_names(&f.func));
    names.push("result".into());
    for r in f.func.returns.iter().filter_map(|r| r.name.as_ref()) {
        names.push(format!("{r}_p"));
        names.push(format!("{r}_t"));
    }
    names
}

/// Parses every formula of an entry and checks the names it uses; formulas that do not
/// parse are reported once each.
pub(crate) fn check_formulas(
    f: &NativeFunction,
    info: &mut DifferentiabilityInfo,
    formulas: &[RawFormula],
    reader: &mut Reader,
) {
    let backward = backward_scope(f, info);
    let forward = forward_scope(f);
    let arg_names: Vec<String> = cpp_arguments(&f.func).into_iter().map(|a| a.name).collect();
    for raw in formulas {
        let text = raw.value.text.trim();
        if KEYWORDS.contains(&text) || matches!(FormulaText::of(text), FormulaText::Rust(_)) {
            continue;
        }
        let keys: Vec<&str> = raw.key.text.split(',').map(str::trim).collect();
        let scope = if arg_names.iter().any(|a| a == keys[0]) {
            &backward
        } else if super::forward::names_outputs(f, &keys) {
            &forward
        } else {
            // A key that names neither arguments nor outputs has its one error (R104);
            // checking its formula against either scope would only repeat it.
            continue;
        };
        let mut report = |e: FormulaError| {
            let msg = e.message.clone();
            reader.error(
                e.rule,
                raw.value.position,
                Some(&raw.value.text),
                e.range.clone(),
                msg,
                e.hint.clone(),
            );
        };
        match parse_formula(&raw.value.text) {
            Err(e) => report(e),
            Ok(expr) => {
                for (name, range) in expr.free_names() {
                    if !scope.iter().any(|s| s == name) && !is_constant(name) {
                        let candidates: Vec<&str> = scope.iter().map(String::as_str).collect();
                        let hint = match crate::schema::suggest::closest(
                            name,
                            candidates.into_iter(),
                        ) {
                            Some(c) => format!("did you mean `{c}`?"),
                            None => format!(
                                "the formula may use the arguments of `{}`, `result`, `grad` and `grad_input_mask`",
                                f.func.name
                            ),
                        };
                        report(
                            FormulaError::new(
                                DerivativeRule::UnknownVariable,
                                range,
                                format!(
                                    "unknown variable `{name}` in the formula of `{}`",
                                    raw.key.text
                                ),
                            )
                            .with_hint(hint),
                        );
                    }
                }
            }
        }
    }
}

/// Names that are C++ constants rather than variables: `nullptr`, the `<cmath>` constants
/// (`M_PI_4`, `M_LN10`) and ATen's `kName` constants (`kLong`, `kCudnnDoubleBackwardMsg`).
fn is_constant(name: &str) -> bool {
    let k_constant = name
        .strip_prefix('k')
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()));
    name == "nullptr" || name.starts_with("M_") || k_constant
}
