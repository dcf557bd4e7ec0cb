//! A Rust module of translated backward formulas, one function per formula, for compiling
//! against a generated API (the corpus crate's): what type-checks the translation.

use super::report::scope_for;
use super::types::Ty;
use super::{ApiIndex, Options, translate};
use crate::formula::parse_formula;
use crate::native::NativeFunctions;
use crate::native::derivatives::Derivatives;
use crate::plan::rust_fn_name;

/// The Rust parameter type of a scope variable of type `ty`.
fn param_type(ty: &Ty, tensor: &str, rt: &str) -> Option<String> {
    Some(match ty {
        Ty::Tensor => format!("&{tensor}"),
        Ty::OptTensor => format!("::core::option::Option<{tensor}>"),
        Ty::TensorList => format!("&[{tensor}]"),
        Ty::OptTensorList => format!("&[::core::option::Option<{tensor}>]"),
        Ty::Int => "i64".into(),
        Ty::OptInt => "::core::option::Option<i64>".into(),
        Ty::Float => "f64".into(),
        Ty::OptFloat => "::core::option::Option<f64>".into(),
        Ty::Bool => "bool".into(),
        Ty::OptBool => "::core::option::Option<bool>".into(),
        Ty::Scalar => format!("{rt}::Scalar"),
        Ty::OptScalar => format!("::core::option::Option<{rt}::Scalar>"),
        Ty::IntList => "&[i64]".into(),
        Ty::OptIntList => "::core::option::Option<&[i64]>".into(),
        Ty::IntListList => "&[::std::vec::Vec<i64>]".into(),
        Ty::FloatList => "&[f64]".into(),
        Ty::BoolList => "&[bool]".into(),
        Ty::ScalarType => format!("{rt}::ScalarType"),
        Ty::OptScalarType => format!("::core::option::Option<{rt}::ScalarType>"),
        Ty::ScalarTypeList => format!("&[{rt}::ScalarType]"),
        Ty::Layout => format!("{rt}::Layout"),
        Ty::Device => format!("{rt}::Device"),
        Ty::MemoryFormat => format!("{rt}::MemoryFormat"),
        Ty::Options => format!("{rt}::TensorOptions"),
        Ty::Str => "&str".into(),
        Ty::OptStr => "::core::option::Option<&str>".into(),
        Ty::OptLayout => format!("::core::option::Option<{rt}::Layout>"),
        Ty::OptDevice => format!("::core::option::Option<{rt}::Device>"),
        Ty::OptMemoryFormat => format!("::core::option::Option<{rt}::MemoryFormat>"),
        Ty::TypeAndSize => format!("&{rt}::autograd::functions::TypeAndSize"),
        Ty::Geometry => format!("&{rt}::autograd::functions::TensorGeometry"),
        _ => return None,
    })
}

fn return_type(ty: &Ty, tensor: &str) -> String {
    match ty {
        Ty::Tensor => tensor.to_string(),
        Ty::OptTensorList => format!("::std::vec::Vec<::core::option::Option<{tensor}>>"),
        Ty::Tuple(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|_| format!("::core::option::Option<{tensor}>"))
                .collect();
            format!("({})", items.join(", "))
        }
        _ => format!("::core::option::Option<{tensor}>"),
    }
}

/// The module: for each backward formula that translates, a function named after the
/// operator's Rust name and the inputs it differentiates (`mul__self`), taking the variables
/// the formula uses.
pub fn emit_module(d: &Derivatives, natives: &NativeFunctions, options: &Options) -> String {
    let api = ApiIndex::new(natives);
    let rt = &options.runtime;
    let mut out = String::from("// Translated backward formulas of derivatives.yaml.\n");
    for entry in &d.entries {
        let Some(info) = entry.default_info() else {
            continue;
        };
        let scope = scope_for(info, false);
        for derivative in &info.derivatives {
            let Ok(expr) = parse_formula(&derivative.formula) else {
                continue;
            };
            let Ok(t) = translate(&expr, &scope, &api, options) else {
                continue;
            };
            let mut params = Vec::new();
            let mut names: Vec<&str> = expr.free_names().into_iter().map(|(n, _)| n).collect();
            names.sort_unstable();
            names.dedup();
            for name in names {
                let Some((rust, ty)) = scope.get(name) else {
                    continue;
                };
                if let Some(p) = param_type(&ty, &options.tensor, rt) {
                    params.push(format!("{rust}: {p}"));
                }
            }
            let fname = format!(
                "{}__{}",
                rust_fn_name(&info.func),
                derivative.var_names.join("_")
            );
            out.push_str(&format!(
                "\n/// `{}`: `{}`\n#[allow(unused_variables, non_snake_case, clippy::all)]\npub fn {}({}) -> ::core::result::Result<{}, {rt}::Error> {{\n    ::core::result::Result::Ok({})\n}}\n",
                entry.name,
                derivative.original_formula,
                fname.trim_start_matches("r#"),
                params.join(", "),
                return_type(&t.ty, &options.tensor),
                t.rust
            ));
        }
    }
    out
}
