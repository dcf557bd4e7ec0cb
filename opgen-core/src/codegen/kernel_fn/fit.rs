//! Whether a Rust type written in the kernel is the type the mapping expects.
//!
//! The check is syntactic: a type alias or a re-export under another name cannot be judged
//! here, so a name the check does not know is accepted as [`Fit::Defer`] and left to rustc
//! through a type assertion spanned on the user's type.

use quote::ToTokens;

use crate::plan::{RustType, ValueType};

/// How a kernel's type compares to the expected one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fit {
    Yes,
    /// Probably an alias: rustc decides.
    Defer,
    /// The same but for `&` against `&mut`; `schema_writes` says which side the schema is on.
    Mutability {
        schema_writes: bool,
    },
    No,
}

impl Fit {
    fn and(self, other: Fit) -> Fit {
        use Fit::*;
        match (self, other) {
            (No, _) | (_, No) => No,
            (m @ Mutability { .. }, _) | (_, m @ Mutability { .. }) => m,
            (Defer, _) | (_, Defer) => Defer,
            (Yes, Yes) => Yes,
        }
    }
}

/// Names the check knows; none of them can be the tensor type, and a value type written as
/// another of them is wrong rather than an alias.
const KNOWN: &[&str] = &[
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "f32",
    "f64",
    "bool",
    "char",
    "str",
    "String",
    "Vec",
    "Option",
    "Result",
    "Box",
    "Scalar",
    "ScalarType",
    "Layout",
    "Device",
    "MemoryFormat",
    "QScheme",
    "Generator",
    "Storage",
    "Stream",
    "DispatchKeySet",
    "TensorOptions",
];

pub(crate) fn strip(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Group(g) => strip(&g.elem),
        syn::Type::Paren(p) => strip(&p.elem),
        t => t,
    }
}

/// The last identifier of a path type (`Scalar` in `opgen::Scalar`).
pub(crate) fn last_ident(ty: &syn::Type) -> Option<&syn::Ident> {
    match strip(ty) {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| &s.ident),
        _ => None,
    }
}

/// The type arguments of the last segment of a path type.
pub(crate) fn type_args(ty: &syn::Type) -> Vec<&syn::Type> {
    let syn::Type::Path(p) = strip(ty) else {
        return Vec::new();
    };
    let Some(syn::PathArguments::AngleBracketed(args)) =
        p.path.segments.last().map(|s| &s.arguments)
    else {
        return Vec::new();
    };
    args.args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// `R` in `Result<R, E>` or `Result<R>` (an alias such as `anyhow::Result`).
pub(crate) fn result_value(ty: &syn::Type) -> Option<&syn::Type> {
    if last_ident(ty)? != "Result" {
        return None;
    }
    match type_args(ty).as_slice() {
        [r] | [r, _] => Some(r),
        _ => None,
    }
}

/// A type as a user would write it, for messages (`&mut MyTensor`, `Option<&[i64]>`).
pub(crate) fn type_string(ty: &impl ToTokens) -> String {
    let mut out = String::new();
    push_tokens(ty.to_token_stream(), &mut out);
    out
}

fn push_tokens(tokens: proc_macro2::TokenStream, out: &mut String) {
    use proc_macro2::{Delimiter, TokenTree};
    let word_end = |out: &String| out.ends_with(|c: char| c.is_alphanumeric() || c == '_');
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                // `&mut [T]`, but `Option<[T; 2]>` and `Fn(i64)`.
                if open == "[" && word_end(out) {
                    out.push(' ');
                }
                out.push_str(open);
                push_tokens(g.stream(), out);
                out.truncate(out.trim_end().len());
                out.push_str(close);
            }
            TokenTree::Ident(i) => {
                if word_end(out) {
                    out.push(' ');
                }
                out.push_str(&i.to_string());
            }
            TokenTree::Literal(l) => {
                if word_end(out) {
                    out.push(' ');
                }
                out.push_str(&l.to_string());
            }
            TokenTree::Punct(p) => match p.as_char() {
                ',' | ';' => {
                    out.push(p.as_char());
                    out.push(' ');
                }
                '+' | '=' => {
                    out.truncate(out.trim_end().len());
                    out.push_str(if p.as_char() == '+' { " + " } else { " = " });
                }
                c => out.push(c),
            },
        }
    }
}

/// Whether `ty` may be the tensor type: a plain path the check does not know.
pub(crate) fn tensor_candidate(ty: &syn::Type) -> bool {
    match strip(ty) {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| !KNOWN.iter().any(|k| s.ident == k) && s.ident != "Self"),
        _ => false,
    }
}

fn same_tensor(a: &syn::Type, b: &syn::Type) -> Fit {
    // Equal syntax trees (spans aside) print the same; the printed comparison is kept for
    // the rest (invisible groups), and runs only when the trees differ.
    if a == b || a.to_token_stream().to_string() == b.to_token_stream().to_string() {
        Fit::Yes
    } else if last_ident(a).is_some() && last_ident(a) == last_ident(b) {
        Fit::Defer
    } else {
        Fit::No
    }
}

/// Compares `ty` with `expected`; `tensor` is the tensor type, bound on first sight.
pub(crate) fn fit(expected: &RustType, ty: &syn::Type, tensor: &mut Option<syn::Type>) -> Fit {
    let ty = strip(ty);
    match expected {
        RustType::Tensor => match tensor {
            Some(t) => same_tensor(t, ty),
            None if tensor_candidate(ty) => {
                *tensor = Some(ty.clone());
                Fit::Yes
            }
            None => Fit::No,
        },
        RustType::Value(v) => fit_value(*v, ty),
        RustType::Str => match ty {
            syn::Type::Reference(r) if r.mutability.is_none() => {
                if last_ident(&r.elem).is_some_and(|i| i == "str") {
                    Fit::Yes
                } else {
                    Fit::No
                }
            }
            _ => Fit::No,
        },
        RustType::Ref(inner) | RustType::Mut(inner) => {
            let schema_writes = matches!(expected, RustType::Mut(_));
            let syn::Type::Reference(r) = ty else {
                return Fit::No;
            };
            let inner_fit = fit(inner, &r.elem, tensor);
            if r.mutability.is_some() != schema_writes && inner_fit != Fit::No {
                Fit::Mutability { schema_writes }
            } else {
                inner_fit
            }
        }
        RustType::Slice(inner) => match ty {
            syn::Type::Slice(s) => fit(inner, &s.elem, tensor),
            _ => Fit::No,
        },
        RustType::Array(inner, n) => match ty {
            syn::Type::Array(a) => {
                let len = match &a.len {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => match i.base10_parse::<u32>() {
                        Ok(v) if v == *n => Fit::Yes,
                        _ => Fit::No,
                    },
                    _ => Fit::Defer,
                };
                len.and(fit(inner, &a.elem, tensor))
            }
            _ => Fit::No,
        },
        RustType::Option(inner) => generic1(ty, "Option", inner, tensor),
        RustType::Vec(inner) => generic1(ty, "Vec", inner, tensor),
        RustType::Tuple(elems) => match ty {
            syn::Type::Tuple(t) if t.elems.len() == elems.len() => elems
                .iter()
                .zip(&t.elems)
                .fold(Fit::Yes, |acc, (e, u)| acc.and(fit(e, u, tensor))),
            _ => Fit::No,
        },
    }
}

fn generic1(ty: &syn::Type, name: &str, inner: &RustType, tensor: &mut Option<syn::Type>) -> Fit {
    if last_ident(ty).is_none_or(|i| i != name) {
        return Fit::No;
    }
    match type_args(ty).as_slice() {
        [t] => fit(inner, t, tensor),
        _ => Fit::No,
    }
}

fn fit_value(v: ValueType, ty: &syn::Type) -> Fit {
    let Some(ident) = last_ident(ty) else {
        return Fit::No;
    };
    if !type_args(ty).is_empty() {
        return Fit::No;
    }
    if ident == v.as_str() {
        Fit::Yes
    } else if KNOWN.iter().any(|k| ident == k) {
        Fit::No
    } else {
        Fit::Defer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn binds_the_tensor_type_and_judges_the_rest() {
        let mut t = None;
        let tensor_ref = RustType::Ref(Box::new(RustType::Tensor));
        assert_eq!(fit(&tensor_ref, &parse_quote!(&MyTensor), &mut t), Fit::Yes);
        assert_eq!(fit(&tensor_ref, &parse_quote!(&Other), &mut t), Fit::No);
        assert_eq!(
            fit(&tensor_ref, &parse_quote!(&crate::MyTensor), &mut t),
            Fit::Defer
        );
        let written = RustType::Mut(Box::new(RustType::Tensor));
        assert_eq!(
            fit(&written, &parse_quote!(&MyTensor), &mut t),
            Fit::Mutability {
                schema_writes: true
            }
        );
        let int = RustType::Value(ValueType::I64);
        assert_eq!(fit(&int, &parse_quote!(i32), &mut t), Fit::No);
        assert_eq!(fit(&int, &parse_quote!(MyInt), &mut t), Fit::Defer);
        let bools = RustType::Array(Box::new(RustType::Value(ValueType::Bool)), 3);
        assert_eq!(fit(&bools, &parse_quote!([bool; 3]), &mut t), Fit::Yes);
        assert_eq!(fit(&bools, &parse_quote!([bool; 2]), &mut t), Fit::No);
        assert_eq!(
            result_value(&parse_quote!(anyhow::Result<MyTensor>))
                .map(type_string)
                .as_deref(),
            Some("MyTensor")
        );
    }

    #[test]
    fn types_print_as_written() {
        let ty: syn::Type = parse_quote!(Option<&'a mut [crate::MyTensor]>);
        assert_eq!(type_string(&ty), "Option<&'a mut [crate::MyTensor]>");
        let ty: syn::Type = parse_quote!([bool; 3]);
        assert_eq!(type_string(&ty), "[bool; 3]");
        let ty: syn::Type = parse_quote!((i64, &str));
        assert_eq!(type_string(&ty), "(i64, &str)");
    }
}
