//! A Rust module of translated backward formulas, one function per formula, for compiling
//! against a generated API (the corpus crate's): what type-checks the translation.

use super::report::scope_for;
use super::types::Ty;
use super::{ApiIndex, Options, translate};
use crate::formula::parse_formula;
use crate::native::NativeFunctions;
use crate::native::derivatives::Derivatives;
use crate::plan::rust_fn_name;

/// The Rust parameter type of a scope variable of type `ty`: what a generated backward node
/// binds it to (tensors owned, as unpacked from saved variables; lists as `Vec`s; strings
/// borrowed).
fn param_type(ty: &Ty, tensor: &str, rt: &str) -> Option<String> {
    let opt = |t: String| format!("::core::option::Option<{t}>");
    let vec = |t: String| format!("::std::vec::Vec<{t}>");
    Some(match ty {
        Ty::Tensor => tensor.to_string(),
        Ty::OptTensor => opt(tensor.to_string()),
        Ty::TensorList => vec(tensor.to_string()),
        Ty::OptTensorList => vec(opt(tensor.to_string())),
        Ty::Int => "i64".into(),
        Ty::OptInt => opt("i64".into()),
        Ty::Float => "f64".into(),
        Ty::OptFloat => opt("f64".into()),
        Ty::Bool => "bool".into(),
        Ty::OptBool => opt("bool".into()),
        Ty::Scalar => format!("{rt}::Scalar"),
        Ty::OptScalar => opt(format!("{rt}::Scalar")),
        Ty::IntList => vec("i64".into()),
        Ty::OptIntList => opt(vec("i64".into())),
        Ty::IntListList => vec(vec("i64".into())),
        Ty::ScalarList => vec(format!("{rt}::Scalar")),
        Ty::FloatList => vec("f64".into()),
        Ty::BoolList => "&[bool]".into(),
        Ty::ScalarType => format!("{rt}::ScalarType"),
        Ty::OptScalarType => opt(format!("{rt}::ScalarType")),
        Ty::ScalarTypeList => vec(format!("{rt}::ScalarType")),
        Ty::Layout => format!("{rt}::Layout"),
        Ty::Device => format!("{rt}::Device"),
        Ty::MemoryFormat => format!("{rt}::MemoryFormat"),
        Ty::Options => format!("{rt}::TensorOptions"),
        Ty::Str => "&str".into(),
        Ty::OptStr => opt("&str".into()),
        Ty::OptLayout => opt(format!("{rt}::Layout")),
        Ty::OptDevice => opt(format!("{rt}::Device")),
        Ty::OptMemoryFormat => opt(format!("{rt}::MemoryFormat")),
        Ty::TypeAndSize => format!("{rt}::autograd::functions::TypeAndSize"),
        Ty::Geometry => format!("{rt}::autograd::functions::TensorGeometry"),
        _ => return None,
    })
}

/// The Rust type of a formula's value: a tensor, an optional one, a list, or a tuple of
/// them (each element as the operator or helper returns it).
fn return_type(ty: &Ty, tensor: &str) -> String {
    match ty {
        Ty::Tensor => tensor.to_string(),
        Ty::TensorList => format!("::std::vec::Vec<{tensor}>"),
        Ty::OptTensorList => format!("::std::vec::Vec<::core::option::Option<{tensor}>>"),
        Ty::Tuple(items) => {
            let items: Vec<String> = items.iter().map(|t| return_type(t, tensor)).collect();
            format!("({})", items.join(", "))
        }
        _ => format!("::core::option::Option<{tensor}>"),
    }
}

/// The module: for each backward formula that translates, a function named after the
/// operator's Rust name and the inputs it differentiates (`mul__self`), taking the variables
/// the formula uses; the operators of `natives` by their usual names.
pub fn emit_module(d: &Derivatives, natives: &NativeFunctions, options: &Options) -> String {
    emit_module_for(d, &ApiIndex::new(natives), options)
}

/// [`emit_module`] against the API `api` (`ApiIndex::with_names`: the names
/// `include_native_functions!` gives a whole file's operators). The code is hygienic: it
/// names everything by its full path and uses no trait method of the prelude, so it
/// compiles in a `#![no_implicit_prelude]` module where the generated API, the tensor type
/// and the runtime crate are in scope.
pub fn emit_module_for(d: &Derivatives, api: &ApiIndex, options: &Options) -> String {
    let rt = &options.runtime;
    let mut out = String::from("// Translated backward formulas of derivatives.yaml.\n");
    let mut defined = std::collections::HashSet::new();
    for entry in &d.entries {
        let Some(info) = entry.default_info() else {
            continue;
        };
        let scope = scope_for(info, false);
        for derivative in &info.derivatives {
            let Ok(expr) = parse_formula(&derivative.formula) else {
                continue;
            };
            let Ok(t) = translate(&expr, &scope, api, options) else {
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
                // `grad_input_mask` has one flag per input of the formula.
                let p = match name {
                    "grad_input_mask" => Some(format!("[bool; {}]", derivative.var_names.len())),
                    _ => param_type(&ty, &options.tensor, rt),
                };
                if let Some(p) = p {
                    params.push(format!("{rust}: {p}"));
                }
            }
            let base = format!(
                "{}__{}",
                rust_fn_name(&info.func),
                derivative.var_names.join("_")
            );
            // Two operators may share a Rust name (`clamp`, `clamp.Tensor`): number the later.
            let mut fname = base.clone();
            let mut n = 1;
            while !defined.insert(fname.clone()) {
                n += 1;
                fname = format!("{base}_{n}");
            }
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
