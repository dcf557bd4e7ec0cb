//! Types and default values of the plan as tokens: `plan::RustType` with the user's tensor
//! type, `plan::ArgDefault` as a Rust expression.

use proc_macro2::{Literal, TokenStream as TokenStream2};
use quote::{ToTokens, format_ident, quote};

use super::Cx;
use crate::plan::{ArgDefault, RustType, ValueType};

/// How references in a type are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lifetimes {
    /// `&T`: parameters and returns.
    Elided,
    /// `&'a T`: fields of an arguments struct.
    Named,
    /// `&'static T`: the argument families of a marker.
    Static,
}

/// `ty` as tokens: `T` is the user's tensor type (with its spans), value types are
/// primitives or runtime paths.
pub(crate) fn rust_type(ty: &RustType, cx: &Cx<'_>, lt: Lifetimes) -> TokenStream2 {
    let amp = match lt {
        Lifetimes::Elided => quote!(&),
        Lifetimes::Named => quote!(&'a),
        Lifetimes::Static => quote!(&'static),
    };
    let inner = |t: &RustType| rust_type(t, cx, lt);
    match ty {
        RustType::Tensor => cx.tensor.to_token_stream(),
        RustType::Value(v) => value_type(*v, cx),
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
            let (t, n) = (inner(t), Literal::u32_unsuffixed(*n));
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

/// A value type: a primitive, or the runtime's type (from the crate root, where the
/// dispatcher's value types are re-exported; others from `dispatch`).
fn value_type(v: ValueType, cx: &Cx<'_>) -> TokenStream2 {
    let (rt, name) = (cx.rt, format_ident!("{}", v.as_str()));
    if let Some(path) = v.std_path() {
        let path = path.iter().map(|p| format_ident!("{p}"));
        return quote!(#(::#path)*);
    }
    match v {
        v if v.is_primitive() => quote!(#name),
        ValueType::Scalar
        | ValueType::ScalarType
        | ValueType::Layout
        | ValueType::Device
        | ValueType::MemoryFormat
        | ValueType::QScheme
        | ValueType::Generator
        | ValueType::Storage
        | ValueType::Stream
        | ValueType::TensorOptions
        | ValueType::DispatchKeySet => quote!(#rt::#name),
        #[allow(unreachable_patterns)]
        _ => quote!(#rt::dispatch::#name),
    }
}

/// The default `d` of an argument of Rust type `ty`, as an expression of that type.
pub(crate) fn default_expr(d: &ArgDefault, ty: &RustType, cx: &Cx<'_>) -> TokenStream2 {
    let rt = cx.rt;
    let inner_ty = match ty {
        RustType::Option(t) => t.as_ref(),
        t => t,
    };
    match d {
        ArgDefault::None => quote!(::core::option::Option::None),
        ArgDefault::Some(v) => {
            let v = default_expr(v, inner_ty, cx);
            quote!(::core::option::Option::Some(#v))
        }
        ArgDefault::Int(i) => int(*i),
        ArgDefault::Float(f) => float(*f),
        ArgDefault::Bool(b) => quote!(#b),
        ArgDefault::Str(s) => Literal::string(s).into_token_stream(),
        ArgDefault::Scalar(v) => {
            let (variant, value) = match v.as_ref() {
                ArgDefault::Int(i) => (quote!(Int), int(*i)),
                ArgDefault::Float(f) => (quote!(Float), float(*f)),
                ArgDefault::Bool(b) => (quote!(Bool), quote!(#b)),
                other => return default_expr(other, ty, cx),
            };
            quote!(#rt::Scalar::#variant(#value))
        }
        ArgDefault::ScalarType(v) => enum_value("ScalarType", v.name(), cx),
        ArgDefault::Layout(v) => enum_value("Layout", v.name(), cx),
        ArgDefault::MemoryFormat(v) => enum_value("MemoryFormat", v.name(), cx),
        ArgDefault::QScheme(v) => enum_value("QScheme", v.name(), cx),
        ArgDefault::Device(d) => {
            let kind = format_ident!("{}", d.kind.name());
            let index = match d.index {
                Some(i) => {
                    let i = int(i64::from(i));
                    quote!(::core::option::Option::Some(#i))
                }
                None => quote!(::core::option::Option::None),
            };
            quote!(#rt::Device { kind: #rt::dispatch::DeviceType::#kind, index: #index })
        }
        // `bool[N]` is an array by value; other lists are slices.
        ArgDefault::List(items) => {
            let elem = match inner_ty {
                RustType::Array(t, _) | RustType::Ref(t) => match t.as_ref() {
                    RustType::Slice(t) => t.as_ref(),
                    t => t,
                },
                t => t,
            };
            let items = items.iter().map(|d| default_expr(d, elem, cx));
            match inner_ty {
                RustType::Array(..) => quote!([#(#items),*]),
                _ => quote!(&[#(#items),*]),
            }
        }
    }
}

fn enum_value(ty: &str, variant: &str, cx: &Cx<'_>) -> TokenStream2 {
    let (rt, ty, variant) = (cx.rt, format_ident!("{ty}"), format_ident!("{variant}"));
    quote!(#rt::#ty::#variant)
}

fn int(i: i64) -> TokenStream2 {
    let abs = Literal::u64_unsuffixed(i.unsigned_abs());
    if i < 0 { quote!(-#abs) } else { quote!(#abs) }
}

fn float(f: f64) -> TokenStream2 {
    if f.is_nan() {
        return quote!(::core::f64::NAN);
    }
    if f.is_infinite() {
        return if f > 0.0 {
            quote!(::core::f64::INFINITY)
        } else {
            quote!(::core::f64::NEG_INFINITY)
        };
    }
    let abs = Literal::f64_unsuffixed(f.abs());
    if f.is_sign_negative() {
        quote!(-#abs)
    } else {
        quote!(#abs)
    }
}
