//! Rust types of the mapping (`plan::RustType`) as tokens, with the user's tensor type.

use proc_macro2::{Delimiter, Ident, Span, TokenStream as TokenStream2};
use quote::{ToTokens, TokenStreamExt};

use super::frag::{Frag, colon2, group, ident, lifetime, punct, root_path};
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

/// Writes `ty` to `out`: `T` is `tensor` (the user's tokens, with their spans), value types
/// are primitives or `#rt::dispatch::` paths.
pub(crate) fn rust_type(
    ty: &RustType,
    tensor: &Frag,
    rt: &Frag,
    lt: Lifetimes,
    out: &mut TokenStream2,
) {
    let amp = |out: &mut TokenStream2| {
        punct(out, '&');
        match lt {
            Lifetimes::Elided => {}
            Lifetimes::Named => lifetime(out, "a"),
            Lifetimes::Static => lifetime(out, "static"),
        }
    };
    let generic = |out: &mut TokenStream2, path: &[&str], t: &RustType| {
        root_path(out, path);
        punct(out, '<');
        rust_type(t, tensor, rt, lt, out);
        punct(out, '>');
    };
    match ty {
        RustType::Tensor => tensor.to_tokens(out),
        RustType::Value(v) => value(*v, rt, out),
        RustType::Str => {
            amp(out);
            ident(out, "str");
        }
        RustType::Ref(t) => {
            amp(out);
            rust_type(t, tensor, rt, lt, out);
        }
        RustType::Mut(t) => {
            amp(out);
            ident(out, "mut");
            rust_type(t, tensor, rt, lt, out);
        }
        RustType::Slice(t) => group(out, Delimiter::Bracket, |g| {
            rust_type(t, tensor, rt, lt, g);
        }),
        RustType::Array(t, n) => group(out, Delimiter::Bracket, |g| {
            rust_type(t, tensor, rt, lt, g);
            punct(g, ';');
            g.append(proc_macro2::Literal::usize_unsuffixed(*n as usize));
        }),
        RustType::Option(t) => generic(out, &["core", "option", "Option"], t),
        RustType::Vec(t) => generic(out, &["std", "vec", "Vec"], t),
        RustType::Tuple(ts) => group(out, Delimiter::Parenthesis, |g| {
            for t in ts {
                rust_type(t, tensor, rt, lt, g);
                punct(g, ',');
            }
        }),
    }
}

fn value(v: ValueType, rt: &Frag, out: &mut TokenStream2) {
    if let Some(path) = v.std_path() {
        root_path(out, path);
        return;
    }
    if !v.is_primitive() {
        rt.to_tokens(out);
        colon2(out);
        ident(out, "dispatch");
        colon2(out);
    }
    out.append(Ident::new(v.as_str(), Span::call_site()));
}
