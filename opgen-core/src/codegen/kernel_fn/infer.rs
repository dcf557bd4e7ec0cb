//! Form 3: the schema read off the kernel's Rust signature, by inverting the type mapping
//! (as `torch.library` infers a schema from Python type hints).
//!
//! `&T` → `Tensor`, `&mut T` → `Tensor(a!)` (letters in order), `i64` → `int`, `f64` →
//! `float`, `bool`, `i8` → `DeviceIndex`, `&str` → `str`, `Scalar` and the other value types
//! by name, `Option<X>` → `X?`, `&[i64]` → `int[]`, `&[f64]` → `float[]`, `&[Scalar]` →
//! `Scalar[]`, `&[T]` → `Tensor[]`, `&mut [T]` → `Tensor(a!)[]`, `&[Option<T>]` →
//! `Tensor?[]`, `[bool; N]` → `bool[N]`; returns: `T` → `Tensor`, `Vec<T>` → `Tensor[]`,
//! `Option<T>` → `Tensor?`, value types, tuples, `()`; `Result<R, E>` → `R`.

use quote::ToTokens;

use super::KernelFn;
use super::fit::{last_ident, result_value, tensor_candidate, type_args, type_string};
use crate::codegen::diag::Diagnostics;
use crate::dispatch::DispatchKey;

/// Value types written by name in both languages.
const BY_NAME: &[&str] = &[
    "Scalar",
    "ScalarType",
    "Layout",
    "Device",
    "MemoryFormat",
    "QScheme",
    "Generator",
    "Storage",
    "Stream",
];

const EXPECTED: &str = "the schema is inferred from these types: `&T` (Tensor), `&mut T` (Tensor(a!)), \
    `i64` (int), `f64` (float), `bool`, `&str` (str), `Scalar`, `ScalarType`, `Option<X>` (X?), \
    `&[i64]` (int[]), `&[T]` (Tensor[]), `[bool; N]` (bool[N]); write the schema to use other types";

struct Infer<'a> {
    tensor: Option<syn::Type>,
    letters: std::ops::RangeInclusive<char>,
    diag: &'a mut Diagnostics,
}

/// The schema text for `kernel`: named `name` if given, else after the kernel without a
/// `_kernel`, `_impl` or `_<key>` suffix (`scale_cpu` → `scale`), so that the generated
/// function does not clash with the kernel.
pub(crate) fn infer_schema(
    kernel: &KernelFn,
    name: Option<&syn::LitStr>,
    keys: &[DispatchKey],
    tensor: Option<&syn::Type>,
    diag: &mut Diagnostics,
) -> Option<String> {
    let before = diag.len();
    let op = match name {
        Some(lit) => lit.value(),
        None => operator_name(kernel, keys, diag)?,
    };
    let mut infer = Infer {
        tensor: tensor.cloned(),
        letters: 'a'..='z',
        diag,
    };
    let mut args = Vec::new();
    for p in &kernel.params {
        let Some(ident) = &p.name else {
            infer.diag.at(
                &p.pat,
                "cannot name the schema argument of a parameter bound by a pattern; \
                 use an identifier, or write the schema",
            );
            continue;
        };
        let ident = ident.to_string();
        let ident = ident.strip_prefix("r#").unwrap_or(&ident);
        let arg = ident
            .strip_suffix('_')
            .filter(|s| !s.is_empty())
            .unwrap_or(ident);
        if let Some(ty) = infer.argument(&p.ty) {
            args.push(format!("{ty} {arg}"));
        }
    }
    let returns = match &kernel.output.value {
        None => Some("()".to_string()),
        Some(ty) => infer.returns(ty),
    };
    if infer.diag.len() > before {
        return None;
    }
    Some(format!("{op}({}) -> {}", args.join(", "), returns?))
}

fn operator_name(
    kernel: &KernelFn,
    keys: &[DispatchKey],
    diag: &mut Diagnostics,
) -> Option<String> {
    let kernel_name = kernel.ident().to_string();
    let mut suffixes = vec!["_kernel".to_string(), "_impl".to_string()];
    suffixes.extend(keys.iter().map(|k| format!("_{}", k.name().to_lowercase())));
    let stripped = suffixes
        .iter()
        .find_map(|s| kernel_name.strip_suffix(s.as_str()))
        .filter(|s| !s.is_empty());
    match stripped {
        Some(op) => Some(op.to_string()),
        None => {
            diag.at(
                kernel.ident(),
                format!(
                    "cannot name the inferred operator: it would be `{kernel_name}`, like its kernel, \
                     and the generated `{kernel_name}` would clash with it; give the operator's name \
                     with `name = \"...\"`, or name the kernel `{kernel_name}_kernel` or \
                     `{kernel_name}_<key>` (e.g. `{kernel_name}_cpu`)"
                ),
            );
            None
        }
    }
}

impl Infer<'_> {
    fn error(&mut self, ty: &syn::Type, what: &str) {
        self.diag
            .at(ty, format!("`{}` {what}; {EXPECTED}", type_string(ty)));
    }

    fn is_tensor(&mut self, ty: &syn::Type) -> bool {
        match &self.tensor {
            Some(t) => t.to_token_stream().to_string() == ty.to_token_stream().to_string(),
            None if tensor_candidate(ty) => {
                self.tensor = Some(ty.clone());
                true
            }
            None => false,
        }
    }

    fn letter(&mut self, ty: &syn::Type) -> Option<char> {
        let next = self.letters.next();
        if next.is_none() {
            self.error(
                ty,
                "is the 27th written tensor, more than alias letters can name",
            );
        }
        next
    }

    fn argument(&mut self, ty: &syn::Type) -> Option<String> {
        match ty {
            syn::Type::Reference(r) => self.reference(ty, r),
            syn::Type::Array(a) => {
                let n = match &a.len {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<u32>().ok(),
                    _ => None,
                };
                match (last_ident(&a.elem).is_some_and(|i| i == "bool"), n) {
                    (true, Some(n)) => Some(format!("bool[{n}]")),
                    _ => {
                        self.error(ty, "has no schema type (only `[bool; N]` arrays do)");
                        None
                    }
                }
            }
            _ if last_ident(ty).is_some_and(|i| i == "Option") => match type_args(ty).as_slice() {
                [inner] => self.argument(inner).map(|t| format!("{t}?")),
                _ => {
                    self.error(ty, "has no schema type");
                    None
                }
            },
            _ => match value_name(ty) {
                Some(v) => Some(v.to_string()),
                None => {
                    self.error(ty, "has no schema type");
                    None
                }
            },
        }
    }

    fn reference(&mut self, ty: &syn::Type, r: &syn::TypeReference) -> Option<String> {
        let written = r.mutability.is_some();
        let elem = &*r.elem;
        if !written && last_ident(elem).is_some_and(|i| i == "str") {
            return Some("str".to_string());
        }
        if let syn::Type::Slice(s) = elem {
            let item = &*s.elem;
            if !written {
                if let Some(v @ ("int" | "float" | "Scalar")) = value_name(item) {
                    return Some(format!("{v}[]"));
                }
                if last_ident(item).is_some_and(|i| i == "Option")
                    && let [inner] = type_args(item).as_slice()
                    && self.is_tensor(inner)
                {
                    return Some("Tensor?[]".to_string());
                }
            }
            if self.is_tensor(item) {
                return Some(match written {
                    true => format!("Tensor({}!)[]", self.letter(ty)?),
                    false => "Tensor[]".to_string(),
                });
            }
            self.error(ty, "has no schema type");
            return None;
        }
        if self.is_tensor(elem) {
            return Some(match written {
                true => format!("Tensor({}!)", self.letter(ty)?),
                false => "Tensor".to_string(),
            });
        }
        let what = match &self.tensor {
            Some(t) => format!("is not a reference to the tensor type `{}`", type_string(t)),
            None => "has no schema type".to_string(),
        };
        self.error(ty, &what);
        None
    }

    fn returns(&mut self, ty: &syn::Type) -> Option<String> {
        let ty = result_value(ty).unwrap_or(ty);
        match ty {
            syn::Type::Tuple(t) if t.elems.is_empty() => Some("()".to_string()),
            syn::Type::Tuple(t) => {
                let parts: Option<Vec<String>> =
                    t.elems.iter().map(|e| self.one_return(e)).collect();
                Some(format!("({})", parts?.join(", ")))
            }
            _ => self.one_return(ty),
        }
    }

    fn one_return(&mut self, ty: &syn::Type) -> Option<String> {
        if let Some(v) = value_name(ty) {
            return Some(v.to_string());
        }
        let wrapper = last_ident(ty).map(|i| i.to_string());
        match (wrapper.as_deref(), type_args(ty).as_slice()) {
            (Some("Vec"), [inner]) if self.is_tensor(inner) => return Some("Tensor[]".to_string()),
            (Some("Vec"), [inner]) if value_name(inner).is_some() => {
                return value_name(inner).map(|v| format!("{v}[]"));
            }
            (Some("Option"), [inner]) if self.is_tensor(inner) => {
                return Some("Tensor?".to_string());
            }
            (Some("Option"), [inner]) if value_name(inner).is_some() => {
                return value_name(inner).map(|v| format!("{v}?"));
            }
            _ => {}
        }
        if self.is_tensor(ty) {
            return Some("Tensor".to_string());
        }
        self.error(ty, "has no schema return type");
        None
    }
}

/// The schema name of a value type written in Rust (`i64` → `int`).
fn value_name(ty: &syn::Type) -> Option<&'static str> {
    let ident = last_ident(ty)?;
    if !type_args(ty).is_empty() {
        return None;
    }
    let name = ident.to_string();
    Some(match name.as_str() {
        "i64" => "int",
        "f64" => "float",
        "bool" => "bool",
        "i8" => "DeviceIndex",
        other => BY_NAME.iter().copied().find(|n| *n == other)?,
    })
}
