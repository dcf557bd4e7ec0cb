//! Schema defaults as typed values: the one model behind the arguments structs' `Default`
//! (code generation renders it as Rust) and the dispatcher's `fill_defaults` (which makes
//! boxed values of it), so the two cannot disagree.
//!
//! | schema | value |
//! |---|---|
//! | `Scalar alpha=1` | `Scalar(Int(1))` |
//! | `int[2] padding=0` | `IntList([0, 0])` (a scalar repeats to the list's size) |
//! | `int reduction=Mean` | `Int(1)` (`at::Reduction`: None 0, Mean 1, Sum 2) |
//! | `float eps=1e-05`, `float p=2`, `float x=inf` | `Float(1e-05)`, `Float(2.0)`, `Float(inf)` |
//! | `ScalarType? dtype=None` | `None` |
//! | `MemoryFormat memory_format=contiguous_format` | `MemoryFormat(Contiguous)` |
//! | `str mode="linear"`, `Device device="cpu"` | `Str("linear")`, `Device(cpu)` |
//! | `Tensor[] tensors=[]` | `EmptyTensorList` |
//!
//! A literal with no value of its argument's type (`int x=long`, `Tensor t=[1]`) has none:
//! such a default is rule R86's business.

use crate::dispatch::{Device, Layout, MemoryFormat, QScheme, ScalarType};
use crate::schema::{ArgType, BaseType, Literal};

/// The longest list a scalar default repeats into (`int[64] x=0`); a longer declared size
/// has no default value (no schema comes near it).
pub const MAX_REPEATED_DEFAULT: u32 = 64;

/// A schema default as a typed value.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgDefault {
    /// `None` of an optional argument.
    None,
    /// A value of an optional argument.
    Some(Box<ArgDefault>),
    /// `int`, `SymInt`, `DeviceIndex`.
    Int(i64),
    /// `float`.
    Float(f64),
    /// `bool`, `SymBool`.
    Bool(bool),
    /// `str`.
    Str(String),
    /// `Scalar`: one of `Int`, `Float`, `Bool`.
    Scalar(Box<ArgDefault>),
    /// `ScalarType`.
    ScalarType(ScalarType),
    /// `Layout`.
    Layout(Layout),
    /// `MemoryFormat`.
    MemoryFormat(MemoryFormat),
    /// `QScheme`.
    QScheme(QScheme),
    /// `Device`.
    Device(Device),
    /// `int[]`, `SymInt[]` (any size).
    IntList(Vec<i64>),
    /// `float[]`.
    FloatList(Vec<f64>),
    /// `bool[]` / `bool[N]`.
    BoolList(Vec<bool>),
    /// `Tensor[] x=[]`.
    EmptyTensorList,
    /// `Scalar[] x=[]`.
    EmptyScalarList,
}

/// The value of default `literal` for an argument of type `ty`, if it has one.
///
/// ```
/// use opgen_core::plan::{ArgDefault, arg_default};
/// use opgen_core::schema::parse_schema;
/// let s = parse_schema("f(Tensor self, *, Scalar alpha=1, int[2] padding=0, int? dim=None) -> Tensor").unwrap();
/// let of = |i: usize| arg_default(&s.arguments[i].ty, &s.arguments[i].default.as_ref().unwrap().value);
/// assert_eq!(of(1), Some(ArgDefault::Scalar(Box::new(ArgDefault::Int(1)))));
/// assert_eq!(of(2), Some(ArgDefault::IntList(vec![0, 0])));
/// assert_eq!(of(3), Some(ArgDefault::None));
/// ```
pub fn arg_default(ty: &ArgType, literal: &Literal) -> Option<ArgDefault> {
    match (ty, literal) {
        (ArgType::Optional(_), Literal::None) => Some(ArgDefault::None),
        (ArgType::Optional(inner), literal) => {
            Some(ArgDefault::Some(Box::new(arg_default(inner, literal)?)))
        }
        (ArgType::List { elem, size }, literal) => list(elem, *size, literal),
        (ArgType::Base(base), literal) => base_value(*base, literal),
        (ArgType::CustomClass(_), _) => None,
    }
}

fn list(elem: &ArgType, size: Option<u32>, literal: &Literal) -> Option<ArgDefault> {
    let items: Vec<&Literal> = match (literal, size) {
        (Literal::List(items), _) => items.iter().collect(),
        // `int[2] padding=0` repeats the value to the list's size.
        (scalar, Some(n)) if n <= MAX_REPEATED_DEFAULT => {
            std::iter::repeat_n(scalar, usize::try_from(n).ok()?).collect()
        }
        _ => return None,
    };
    let each = |f: &dyn Fn(&Literal) -> Option<ArgDefault>| -> Option<Vec<ArgDefault>> {
        items.iter().map(|l| f(l)).collect()
    };
    Some(match elem {
        ArgType::Base(b @ (BaseType::Int | BaseType::SymInt)) => ArgDefault::IntList(
            each(&|l| base_value(*b, l))?
                .into_iter()
                .map(|v| match v {
                    ArgDefault::Int(i) => Some(i),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        ArgType::Base(BaseType::Float) => ArgDefault::FloatList(
            each(&|l| base_value(BaseType::Float, l))?
                .into_iter()
                .map(|v| match v {
                    ArgDefault::Float(f) => Some(f),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        ArgType::Base(BaseType::Bool) => ArgDefault::BoolList(
            items
                .iter()
                .map(|l| match l {
                    Literal::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        // Lists of tensors and scalars can only default to empty.
        ArgType::Base(BaseType::Tensor) if items.is_empty() => ArgDefault::EmptyTensorList,
        ArgType::Base(BaseType::Scalar) if items.is_empty() => ArgDefault::EmptyScalarList,
        _ => return None,
    })
}

fn base_value(base: BaseType, literal: &Literal) -> Option<ArgDefault> {
    use ArgDefault as D;
    Some(match (base, literal) {
        (BaseType::Int | BaseType::SymInt | BaseType::DeviceIndex, Literal::Int(i)) => D::Int(*i),
        // at::Reduction: None = 0, Mean = 1, Sum = 2.
        (BaseType::Int, Literal::Ident(r)) => D::Int(match r.as_str() {
            "Mean" => 1,
            "Sum" => 2,
            _ => return None,
        }),
        (BaseType::Float, Literal::Int(i)) => D::Float(*i as f64),
        (BaseType::Float, Literal::Float(f)) => D::Float(f.0),
        (BaseType::Float, Literal::Ident(n)) => D::Float(match n.as_str() {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            _ => return None,
        }),
        (BaseType::Bool | BaseType::SymBool, Literal::Bool(b)) => D::Bool(*b),
        (BaseType::Str, Literal::Str(s)) => D::Str(s.to_string()),
        (BaseType::Scalar, Literal::Int(i)) => D::Scalar(Box::new(D::Int(*i))),
        (BaseType::Scalar, Literal::Float(f)) => D::Scalar(Box::new(D::Float(f.0))),
        (BaseType::Scalar, Literal::Bool(b)) => D::Scalar(Box::new(D::Bool(*b))),
        (BaseType::ScalarType, Literal::Ident(n)) => D::ScalarType(ScalarType::from_name(n)?),
        (BaseType::Layout, Literal::Ident(n)) => D::Layout(Layout::from_name(n)?),
        (BaseType::MemoryFormat, Literal::Ident(n)) => D::MemoryFormat(MemoryFormat::from_name(n)?),
        (BaseType::QScheme, Literal::Ident(n)) => D::QScheme(QScheme::from_name(n)?),
        (BaseType::Device, Literal::Str(s) | Literal::Ident(s)) => D::Device(s.parse().ok()?),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::parse_schema;

    fn default_of(schema: &str) -> Option<ArgDefault> {
        let s = parse_schema(schema).unwrap();
        let a = s.arguments.iter().find(|a| a.default.is_some()).unwrap();
        arg_default(&a.ty, &a.default.as_ref().unwrap().value)
    }

    #[test]
    fn defaults_become_typed_values() {
        use ArgDefault as D;
        let cases = [
            ("f(Tensor self, int dim=-1) -> Tensor", Some(D::Int(-1))),
            (
                "f(Tensor self, int reduction=Mean) -> Tensor",
                Some(D::Int(1)),
            ),
            ("f(Tensor self, float p=2) -> Tensor", Some(D::Float(2.0))),
            (
                "f(Tensor self, float eps=1e-05) -> Tensor",
                Some(D::Float(1e-05)),
            ),
            (
                "f(Tensor self, str mode=\"linear\") -> Tensor",
                Some(D::Str("linear".into())),
            ),
            (
                "f(Tensor self, bool[3] mask=[True,False,True]) -> Tensor",
                Some(D::BoolList(vec![true, false, true])),
            ),
            (
                "f(Tensor self, ScalarType dtype=long) -> Tensor",
                Some(D::ScalarType(ScalarType::Long)),
            ),
            (
                "f(Tensor self, *, MemoryFormat memory_format=contiguous_format) -> Tensor",
                Some(D::MemoryFormat(MemoryFormat::Contiguous)),
            ),
            (
                "f(Tensor self, Tensor[] t=[]) -> Tensor",
                Some(D::EmptyTensorList),
            ),
            ("f(Tensor self, int? dim=None) -> Tensor", Some(D::None)),
            (
                "f(Tensor self, int? dim=1) -> Tensor",
                Some(D::Some(Box::new(D::Int(1)))),
            ),
            ("f(Tensor self, int x=long) -> Tensor", None),
            ("f(Tensor self, int[100] x=0) -> Tensor", None),
        ];
        for (schema, expected) in cases {
            assert_eq!(default_of(schema), expected, "{schema}");
        }
        assert!(
            matches!(default_of("f(Tensor self, float x=inf) -> Tensor"), Some(D::Float(f)) if f.is_infinite())
        );
    }
}
