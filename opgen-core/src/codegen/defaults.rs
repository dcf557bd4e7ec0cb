//! Schema defaults as Rust expressions, for the `Default` impl of an arguments struct
//! (`Scalar alpha=1` → `Scalar::Int(1)`, `int[2] stride=1` → `&[1, 1]`). A default that has
//! no value of its argument's Rust type is a rule R86 error, reported in the check stage.

use proc_macro2::{Literal as Lit, TokenStream as TokenStream2};
use quote::{format_ident, quote};

use crate::dispatch::{Device, Layout, MemoryFormat, QScheme, ScalarType};
use crate::schema::{ArgType, BaseType, Literal};

/// The Rust expression for default `lit` of an argument of type `ty`, if it has one.
pub(crate) fn default_expr(ty: &ArgType, lit: &Literal, rt: &syn::Path) -> Option<TokenStream2> {
    match (ty, lit) {
        (ArgType::Optional(_), Literal::None) => Some(quote!(::core::option::Option::None)),
        (ArgType::Optional(inner), lit) => {
            let inner = default_expr(inner, lit, rt)?;
            Some(quote!(::core::option::Option::Some(#inner)))
        }
        (ArgType::List { elem, size }, lit) => list(elem, *size, lit, rt),
        (ArgType::Base(base), lit) => base_value(*base, lit, rt),
        (ArgType::CustomClass(_), _) => None,
    }
}

fn list(elem: &ArgType, size: Option<u32>, lit: &Literal, rt: &syn::Path) -> Option<TokenStream2> {
    let items: Vec<&Literal> = match (lit, size) {
        (Literal::List(items), _) => items.iter().collect(),
        // `int[2] padding=0` repeats the value to the list's size (a sane one).
        (scalar, Some(n)) if n <= 64 => {
            std::iter::repeat_n(scalar, usize::try_from(n).ok()?).collect()
        }
        _ => return None,
    };
    let values: Vec<TokenStream2> = match elem {
        ArgType::Base(
            b @ (BaseType::Int | BaseType::SymInt | BaseType::Float | BaseType::Bool),
        ) => items
            .iter()
            .map(|l| base_value(*b, l, rt))
            .collect::<Option<_>>()?,
        // Lists of tensors and scalars can only default to empty.
        _ if items.is_empty() => Vec::new(),
        _ => return None,
    };
    // `bool[N]` is an array by value; every other list is a slice.
    if *elem == ArgType::Base(BaseType::Bool) {
        Some(quote!([#(#values),*]))
    } else {
        Some(quote!(&[#(#values),*]))
    }
}

fn base_value(base: BaseType, lit: &Literal, rt: &syn::Path) -> Option<TokenStream2> {
    let value = quote!(#rt::dispatch);
    Some(match (base, lit) {
        (BaseType::Int | BaseType::SymInt | BaseType::DeviceIndex, Literal::Int(i)) => int(*i),
        // at::Reduction: None = 0, Mean = 1, Sum = 2.
        (BaseType::Int, Literal::Ident(r)) => match r.as_str() {
            "Mean" => int(1),
            "Sum" => int(2),
            _ => return None,
        },
        (BaseType::Float, Literal::Int(i)) => float(*i as f64)?,
        (BaseType::Float, Literal::Float(f)) => float(f.0)?,
        (BaseType::Float, Literal::Ident(n)) => special_float(n)?,
        (BaseType::Bool | BaseType::SymBool, Literal::Bool(b)) => quote!(#b),
        (BaseType::Str, Literal::Str(s)) => {
            let s = Lit::string(s);
            quote!(#s)
        }
        (BaseType::Scalar, Literal::Int(i)) => {
            let i = int(*i);
            quote!(#value::Scalar::Int(#i))
        }
        (BaseType::Scalar, Literal::Float(f)) => {
            let f = float(f.0)?;
            quote!(#value::Scalar::Float(#f))
        }
        (BaseType::Scalar, Literal::Bool(b)) => quote!(#value::Scalar::Bool(#b)),
        (BaseType::ScalarType, Literal::Ident(n)) => {
            let v = format_ident!("{}", ScalarType::from_name(n)?.name());
            quote!(#value::ScalarType::#v)
        }
        (BaseType::Layout, Literal::Ident(n)) => {
            let v = format_ident!("{}", Layout::from_name(n)?.name());
            quote!(#value::Layout::#v)
        }
        (BaseType::MemoryFormat, Literal::Ident(n)) => {
            let v = format_ident!("{}", MemoryFormat::from_name(n)?.name());
            quote!(#value::MemoryFormat::#v)
        }
        (BaseType::QScheme, Literal::Ident(n)) => {
            let v = format_ident!("{}", QScheme::from_name(n)?.name());
            quote!(#value::QScheme::#v)
        }
        (BaseType::Device, Literal::Str(s) | Literal::Ident(s)) => {
            let device: Device = s.parse().ok()?;
            let kind = format_ident!("{}", device.kind.name());
            let index = match device.index {
                Some(i) => {
                    let i = int(i64::from(i));
                    quote!(::core::option::Option::Some(#i))
                }
                None => quote!(::core::option::Option::None),
            };
            quote!(#value::Device { kind: #value::DeviceType::#kind, index: #index })
        }
        _ => return None,
    })
}

fn int(i: i64) -> TokenStream2 {
    let abs = Lit::u64_unsuffixed(i.unsigned_abs());
    if i < 0 { quote!(-#abs) } else { quote!(#abs) }
}

fn float(f: f64) -> Option<TokenStream2> {
    if !f.is_finite() {
        return special_float(if f.is_nan() {
            "nan"
        } else if f > 0.0 {
            "inf"
        } else {
            "-inf"
        });
    }
    let abs = Lit::f64_unsuffixed(f.abs());
    Some(if f.is_sign_negative() {
        quote!(-#abs)
    } else {
        quote!(#abs)
    })
}

fn special_float(name: &str) -> Option<TokenStream2> {
    Some(match name {
        "inf" => quote!(::core::f64::INFINITY),
        "-inf" => quote!(::core::f64::NEG_INFINITY),
        "nan" => quote!(::core::f64::NAN),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::parse_schema;

    fn expr(schema: &str) -> Option<String> {
        let s = parse_schema(schema).unwrap();
        let a = s.arguments.iter().find(|a| a.default.is_some()).unwrap();
        let d = a.default.as_ref().unwrap();
        default_expr(&a.ty, &d.value, &syn::parse_quote!(::opgen)).map(|t| t.to_string())
    }

    #[test]
    fn defaults_become_rust_values() {
        assert_eq!(
            expr("f(Tensor self, *, Scalar alpha=1) -> Tensor").unwrap(),
            ":: opgen :: dispatch :: Scalar :: Int (1)"
        );
        assert_eq!(
            expr("f(Tensor self, int[2] padding=0) -> Tensor").unwrap(),
            "& [0 , 0]"
        );
        assert_eq!(expr("f(Tensor self, int dim=-1) -> Tensor").unwrap(), "- 1");
        assert_eq!(
            expr("f(Tensor self, int reduction=Mean) -> Tensor").unwrap(),
            "1"
        );
        assert_eq!(
            expr("f(Tensor self, float eps=1e-05) -> Tensor").unwrap(),
            "0.00001"
        );
        assert_eq!(expr("f(Tensor self, float p=2) -> Tensor").unwrap(), "2.0");
        assert_eq!(
            expr("f(Tensor self, str mode=\"linear\") -> Tensor").unwrap(),
            "\"linear\""
        );
        assert_eq!(
            expr("f(Tensor self, bool[3] mask=[True,False,True]) -> Tensor").unwrap(),
            "[true , false , true]"
        );
        assert_eq!(
            expr("f(Tensor self, ScalarType dtype=long) -> Tensor").unwrap(),
            ":: opgen :: dispatch :: ScalarType :: Long"
        );
        assert_eq!(
            expr("f(Tensor self, *, MemoryFormat memory_format=contiguous_format) -> Tensor")
                .unwrap(),
            ":: opgen :: dispatch :: MemoryFormat :: Contiguous"
        );
        assert_eq!(
            expr("f(Tensor self, int? dim=None) -> Tensor").unwrap(),
            ":: core :: option :: Option :: None"
        );
        assert_eq!(expr("f(Tensor self, int x=long) -> Tensor"), None);
    }
}
