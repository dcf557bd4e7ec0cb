//! Types and default values of the plan as tokens: `plan::RustType` with the user's tensor
//! type, `plan::ArgDefault` as a Rust expression.

use proc_macro2::{
    Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream as TokenStream2,
};
use quote::{ToTokens, TokenStreamExt, format_ident, quote};

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
///
/// The type is written in place, straight into the template it is interpolated in, rather
/// than as a `quote!` stream of its own: inside rustc every interpolated `TokenStream` is a
/// round trip through the proc_macro bridge (about 7k instructions each; interpolations were
/// 29% of `include_native_functions!` on the corpus under `cargo check`), and a type is
/// interpolated in every signature, field and `impl Operator`.
pub(crate) fn rust_type<'a>(ty: &'a RustType, cx: &'a Cx<'a>, lt: Lifetimes) -> TypeTokens<'a> {
    TypeTokens { ty, cx, lt }
}

/// A type of the plan, rendered where it is interpolated ([`rust_type`]).
#[derive(Clone, Copy)]
pub(crate) struct TypeTokens<'a> {
    ty: &'a RustType,
    cx: &'a Cx<'a>,
    lt: Lifetimes,
}

impl ToTokens for TypeTokens<'_> {
    fn to_tokens(&self, out: &mut TokenStream2) {
        let inner = |ty| TypeTokens { ty, ..*self };
        match self.ty {
            RustType::Tensor => self.cx.tensor.to_tokens(out),
            RustType::Value(v) => value_type(*v, self.cx, out),
            RustType::Str => {
                self.reference(out);
                out.append(word("str"));
            }
            RustType::Ref(t) => {
                self.reference(out);
                inner(t).to_tokens(out);
            }
            RustType::Mut(t) => {
                self.reference(out);
                out.append(word("mut"));
                inner(t).to_tokens(out);
            }
            RustType::Slice(t) => {
                let t = inner(t);
                out.append(Group::new(Delimiter::Bracket, quote!(#t)));
            }
            RustType::Array(t, n) => {
                let (t, n) = (inner(t), Literal::u32_unsuffixed(*n));
                out.append(Group::new(Delimiter::Bracket, quote!(#t; #n)));
            }
            RustType::Option(t) => generic(out, &["core", "option", "Option"], inner(t)),
            RustType::Vec(t) => generic(out, &["std", "vec", "Vec"], inner(t)),
            RustType::Tuple(ts) => {
                let ts = ts.iter().map(inner);
                out.append(Group::new(Delimiter::Parenthesis, quote!(#(#ts,)*)));
            }
        }
    }
}

impl TypeTokens<'_> {
    /// `&`, `&'a` or `&'static`.
    fn reference(&self, out: &mut TokenStream2) {
        out.append(Punct::new('&', Spacing::Alone));
        let name = match self.lt {
            Lifetimes::Elided => return,
            Lifetimes::Named => "a",
            Lifetimes::Static => "static",
        };
        out.append(Punct::new('\'', Spacing::Joint));
        out.append(word(name));
    }
}

/// An identifier of the template (at the call site, as `quote!` writes them).
fn word(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// `::`.
fn colon2(out: &mut TokenStream2) {
    out.append(Punct::new(':', Spacing::Joint));
    out.append(Punct::new(':', Spacing::Alone));
}

/// `::a::b::c`.
fn absolute(out: &mut TokenStream2, path: &[&str]) {
    for segment in path {
        colon2(out);
        out.append(word(segment));
    }
}

/// `::a::b::C<t>`.
fn generic(out: &mut TokenStream2, path: &[&str], t: TypeTokens<'_>) {
    absolute(out, path);
    out.append(Punct::new('<', Spacing::Alone));
    t.to_tokens(out);
    out.append(Punct::new('>', Spacing::Alone));
}

/// A value type: a primitive, or the runtime's type (`#rt::Name` from the crate root, where
/// the dispatcher's value types are re-exported; others `#rt::dispatch::Name`).
fn value_type(v: ValueType, cx: &Cx<'_>, out: &mut TokenStream2) {
    if let Some(path) = v.std_path() {
        return absolute(out, path);
    }
    if !v.is_primitive() {
        let at_root = matches!(
            v,
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
                | ValueType::DispatchKeySet
        );
        cx.rt.to_tokens(out);
        if !at_root {
            absolute(out, &["dispatch"]);
        }
        colon2(out);
    }
    out.append(word(v.as_str()));
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
