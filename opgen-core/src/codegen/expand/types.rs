//! Rust types of the mapping (`plan::RustType`) as tokens, with the user's tensor type.

use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};

use crate::plan::{RustType, ValueType};

/// How references in a type are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lifetimes {
    /// `&T`: parameters and returns.
    Elided,
    /// `&'a T`: fields of an arguments struct.
    Named,
    /// `&'static T`: the argument families of a typed handle.
    Static,
}

/// `ty` as tokens: `T` is `tensor` (the user's tokens, with their spans), value types are
/// primitives or `#rt::dispatch::` paths.
pub(crate) fn rust_type(
    ty: &RustType,
    tensor: &syn::Type,
    rt: &TokenStream2,
    lt: Lifetimes,
) -> TokenStream2 {
    let inner = |t: &RustType| rust_type(t, tensor, rt, lt);
    let amp = match lt {
        Lifetimes::Elided => quote!(&),
        Lifetimes::Named => quote!(&'a),
        Lifetimes::Static => quote!(&'static),
    };
    match ty {
        RustType::Tensor => quote!(#tensor),
        RustType::Value(v) => value(*v, rt),
        RustType::Str => quote!(#amp str),
        RustType::Ref(t) => {
            let t = inner(t);
            quote!(#amp #t)
        }
        RustType::Mut(t) => {
            let t = inner(t);
            quote!(#amp mut #t)
        }
        RustType::Slice(t) => {
            let t = inner(t);
            quote!([#t])
        }
        RustType::Array(t, n) => {
            let t = inner(t);
            let n = proc_macro2::Literal::usize_unsuffixed(*n as usize);
            quote!([#t; #n])
        }
        RustType::Option(t) => {
            let t = inner(t);
            quote!(::core::option::Option<#t>)
        }
        RustType::Vec(t) => {
            let t = inner(t);
            quote!(::std::vec::Vec<#t>)
        }
        RustType::Tuple(ts) => {
            let ts = ts.iter().map(inner);
            quote!((#(#ts,)*))
        }
    }
}

fn value(v: ValueType, rt: &TokenStream2) -> TokenStream2 {
    let name = format_ident!("{}", v.as_str());
    if v.is_primitive() {
        quote!(#name)
    } else {
        quote!(#rt::dispatch::#name)
    }
}
