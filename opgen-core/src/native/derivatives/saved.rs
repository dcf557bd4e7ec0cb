//! torchgen's `saved_variables`: which values a formula makes its node save, with the
//! expressions it can evaluate at save time replaced by saved names (`self.sym_sizes()` →
//! `self_sym_sizes`, so that the node keeps the sizes instead of the tensor).

use super::model::{SavedAttribute, SavedType};
use super::text::{Piece, has_ident, sub_pattern};

/// A value in scope of a formula: an argument (`self`, `dim`), the gathered `options`, or a
/// return (`result`).
#[derive(Debug, Clone)]
pub(crate) struct Named {
    pub name: String,
    pub ty: SavedType,
}

/// The suffix of a saved name: fixed, or made from the captured argument
/// (`self.sym_size(-1)` → `self_sym_argsize_minus_1`).
#[derive(Clone, Copy)]
enum Suffix {
    Fixed(&'static str),
    ArgSize,
}

/// A replacement: the pattern, the suffix of the saved name, its type, and the
/// save-time expression and the formula text that replace the match.
struct Replacement {
    pattern: &'static [Piece],
    suffix: Suffix,
    ty: SavedType,
    expr: Option<fn(&str) -> String>,
    result: Option<fn(&str) -> String>,
}

use Piece::{Any, Lit, Name, Word};

/// torchgen's `REPLACEMENTS`, in its order.
fn replacements() -> Vec<Replacement> {
    let r = |pattern, suffix, ty| Replacement {
        pattern,
        suffix: Suffix::Fixed(suffix),
        ty,
        expr: None,
        result: None,
    };
    vec![
        r(
            &[Name, Any, Lit("sym_sizes()")],
            "_sym_sizes",
            SavedType::SymIntArrayRef,
        ),
        Replacement {
            expr: Some(|n| {
                format!(
                    "{n}.has_value() ? std::optional<c10::SymIntArrayRef>({n}->sym_sizes()) : std::nullopt"
                )
            }),
            ..r(
                &[Name, Lit("->sym_sizes()")],
                "_sym_sizes_opt",
                SavedType::OptionalSymIntArrayRef,
            )
        },
        Replacement {
            expr: Some(|n| format!("at::sparse_csr::getSymIntBlockSize({n})")),
            ..r(
                &[Name, Any, Lit("sym_blocksize()")],
                "_self_sym_blocksize_opt",
                SavedType::OptionalSymIntArrayRef,
            )
        },
        r(
            &[Name, Any, Lit("options()")],
            "_options",
            SavedType::TensorOptions,
        ),
        Replacement {
            expr: Some(|n| n.to_string()),
            result: Some(|n| format!("{n}_info.zeros()")),
            ..r(
                &[Lit("zeros_like("), Name, Lit(")")],
                "_info",
                SavedType::TypeAndSize,
            )
        },
        Replacement {
            suffix: Suffix::ArgSize,
            ..r(
                &[Name, Any, Lit("sym_size("), Word, Lit(")")],
                "",
                SavedType::SymInt,
            )
        },
        r(&[Name, Any, Lit("numel()")], "_numel", SavedType::Int),
        r(
            &[Name, Any, Lit("sym_numel()")],
            "_sym_numel",
            SavedType::SymInt,
        ),
        r(
            &[Lit("to_args_sizes("), Name, Lit(")")],
            "_args_sizes",
            SavedType::ArgsSizes,
        ),
        r(
            &[Lit("to_args_sizes_symint("), Name, Lit(")")],
            "_args_sizes_symint",
            SavedType::ArgsSizesSymInt,
        ),
        r(
            &[Lit("to_args_scalartypes("), Name, Lit(")")],
            "_args_scalartypes",
            SavedType::ArgsScalarTypes,
        ),
        r(
            &[Lit("TensorGeometry("), Name, Lit(")")],
            "_geometry",
            SavedType::TensorGeometry,
        ),
        r(
            &[Name, Any, Lit("scalar_type()")],
            "_scalar_type",
            SavedType::ScalarType,
        ),
        r(&[Name, Any, Lit("dim()")], "_dim", SavedType::Int),
        Replacement {
            expr: Some(|n| format!("strides_or_error({n}, \"{n}\")")),
            ..r(
                &[Name, Any, Lit("sym_strides()")],
                "_sym_strides",
                SavedType::SymIntArrayRef,
            )
        },
        r(&[Name, Any, Lit("layout()")], "_layout", SavedType::Layout),
        r(
            &[Name, Any, Lit("is_conj()")],
            "_conjugate",
            SavedType::Bool,
        ),
    ]
}

/// The result of [`saved_variables`]: the rewritten formula, what it saves, and whether a
/// `.sym_strides()` replacement was used on another tensor than the formula's own.
pub(crate) struct Saved {
    pub formula: String,
    pub saved: Vec<SavedAttribute>,
    /// The names whose `.sym_strides()` was replaced although the formula is not the
    /// derivative of that one tensor (torchgen asserts against it).
    pub bad_strides: Vec<String>,
}

/// Which of `values` the formula saves, replacing save-time expressions as torchgen does.
pub(crate) fn saved_variables(formula: &str, values: &[Named], var_names: &[String]) -> Saved {
    let mut formula = formula.to_string();
    let mut saved = Vec::new();
    let mut bad_strides = Vec::new();
    for value in values {
        let name = value.name.as_str();
        for rep in replacements() {
            formula = sub_pattern(&formula, name, rep.pattern, |whole, word| {
                let suffix = match rep.suffix {
                    Suffix::Fixed(s) => s.to_string(),
                    Suffix::ArgSize => {
                        format!("_sym_argsize_{}", word.unwrap_or("").replace('-', "minus_"))
                    }
                };
                let saved_name = format!("{name}{suffix}");
                let expr = rep.expr.map_or_else(|| whole.to_string(), |f| f(name));
                if suffix == "_sym_strides" && var_names != [name.to_string()] {
                    bad_strides.push(name.to_string());
                }
                saved.push(SavedAttribute {
                    name: saved_name.clone(),
                    ty: rep.ty.clone(),
                    expr,
                });
                rep.result.map_or(saved_name, |f| f(name))
            });
        }
        if has_ident(&formula, name) {
            saved.push(SavedAttribute {
                name: name.to_string(),
                ty: value.ty.clone(),
                expr: name.to_string(),
            });
        }
    }
    Saved {
        formula,
        saved,
        bad_strides,
    }
}

/// The first of each name (torchgen's `dedup_vars`).
pub(crate) fn dedup(all: impl IntoIterator<Item = SavedAttribute>) -> Vec<SavedAttribute> {
    let mut seen = std::collections::HashSet::new();
    all.into_iter()
        .filter(|s| seen.insert(s.name.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::parse_type;

    fn arg(name: &str, ty: &str) -> Named {
        Named {
            name: name.into(),
            ty: SavedType::Argument(parse_type(ty).expect("type")),
        }
    }

    #[test]
    fn sizes_are_saved_instead_of_the_tensor() {
        let s = saved_variables(
            "grad.expand_symint(self.sym_sizes())",
            &[arg("self", "Tensor")],
            &["self".into()],
        );
        assert_eq!(s.formula, "grad.expand_symint(self_sym_sizes)");
        assert_eq!(s.saved.len(), 1);
        assert_eq!(
            (s.saved[0].name.as_str(), s.saved[0].expr.as_str()),
            ("self_sym_sizes", "self.sym_sizes()")
        );
    }

    #[test]
    fn zeros_like_saves_type_and_size() {
        let s = saved_variables(
            "zeros_like(self)",
            &[arg("self", "Tensor")],
            &["self".into()],
        );
        assert_eq!(s.formula, "self_info.zeros()");
        assert_eq!(
            (s.saved[0].name.as_str(), &s.saved[0].ty),
            ("self_info", &SavedType::TypeAndSize)
        );
    }

    #[test]
    fn a_tensor_used_as_is_is_saved() {
        let values = [
            arg("self", "Tensor"),
            arg("other", "Tensor"),
            arg("alpha", "Scalar"),
        ];
        let s = saved_variables(
            "handle_r_to_c(other.scalar_type(), maybe_multiply(grad, alpha.conj()))",
            &values,
            &["other".into()],
        );
        let names: Vec<&str> = s.saved.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["other_scalar_type", "alpha"]);
        assert_eq!(
            s.formula,
            "handle_r_to_c(other_scalar_type, maybe_multiply(grad, alpha.conj()))"
        );
    }

    #[test]
    fn optional_sizes_and_argsize() {
        let values = [arg("bias", "Tensor?"), arg("self", "Tensor")];
        let s = saved_variables(
            "f(bias->sym_sizes(), self.sym_size(-1))",
            &values,
            &["self".into()],
        );
        assert_eq!(s.formula, "f(bias_sym_sizes_opt, self_sym_argsize_minus_1)");
        assert_eq!(s.saved[0].ty, SavedType::OptionalSymIntArrayRef);
        assert!(s.saved[0].expr.starts_with("bias.has_value() ?"));
    }

    #[test]
    fn strides_of_another_tensor_are_reported() {
        let values = [arg("mat1", "Tensor"), arg("mat2", "Tensor")];
        let s = saved_variables("f(mat2.sym_strides())", &values, &["mat1".into()]);
        assert_eq!(s.bad_strides, ["mat2"]);
    }
}
