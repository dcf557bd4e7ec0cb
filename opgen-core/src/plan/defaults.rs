//! Schema defaults as typed values: the one model behind the arguments structs' `Default`
//! (code generation renders it as Rust), the dispatcher's `fill_defaults` and the Python
//! layer's left-out arguments (both make boxed values of it), so none can disagree.
//!
//! | schema | value |
//! |---|---|
//! | `Scalar alpha=1` | `Scalar(Int(1))` |
//! | `int[2] padding=0` | `List([Int(0), Int(0)])` (a scalar repeats to the list's size) |
//! | `int reduction=Mean` | `Int(1)` (`at::Reduction`: None 0, Mean 1, Sum 2) |
//! | `float eps=1e-05`, `float p=2`, `float x=inf` | `Float(1e-05)`, `Float(2.0)`, `Float(inf)` |
//! | `ScalarType? dtype=None` | `None` |
//! | `MemoryFormat memory_format=contiguous_format` | `MemoryFormat(Contiguous)` |
//! | `str mode="linear"`, `Device device="cpu"` | `Str("linear")`, `Device(cpu)` |
//! | `Tensor[] tensors=[]`, `int?[] sizes=[2, None]` | `List([])`, `List([Some(Int(2)), None])` |
//!
//! A literal with no value of its argument's type (`int x=long`, `Tensor t=[1]`,
//! `DeviceIndex i=300`) has none. A scalar repeated into a fixed-size list longer than
//! [`MAX_REPEATED_DEFAULT`] has none either: `int[4294967295] x=0` must not make the
//! compiler, the dispatcher or a Python call allocate billions of elements (R86 reports it
//! where the schema is checked for a Rust API).

use crate::dispatch::{Device, Layout, MemoryFormat, QScheme, ScalarType};
use crate::schema::{ArgType, BaseType, Literal};

/// The longest list a scalar default repeats into (`int[64] x=0`); a longer declared size
/// has no default value (the corpus repeats into at most 3 elements).
pub const MAX_REPEATED_DEFAULT: u32 = 64;

/// A schema default as a typed value.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgDefault {
    /// `None` of an optional argument (or of an optional list element).
    None,
    /// A value of an optional argument.
    Some(Box<ArgDefault>),
    /// `int`, `SymInt`, `DeviceIndex` (in `i8`'s range).
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
    /// A list of any element type, each item a value of the element type (`None` or
    /// `Some` for an optional element type). Lists of handles (tensors, generators, storages,
    /// streams) have no literal items: only `[]`.
    List(Vec<ArgDefault>),
}

impl ArgDefault {
    /// Whether the value is written as a constant Rust expression of its parameter type:
    /// everything but a non-empty list of strings (`&[String]` has no literal).
    ///
    /// ```
    /// use opgen_core::plan::ArgDefault;
    /// assert!(ArgDefault::List(vec![ArgDefault::Int(0)]).is_rust_constant());
    /// assert!(!ArgDefault::List(vec![ArgDefault::Str("a".into())]).is_rust_constant());
    /// ```
    pub fn is_rust_constant(&self) -> bool {
        match self {
            ArgDefault::Some(inner) => inner.is_rust_constant(),
            ArgDefault::List(items) => items.iter().all(|item| match item {
                ArgDefault::Str(_) => false,
                ArgDefault::Some(inner) => !matches!(**inner, ArgDefault::Str(_)),
                _ => true,
            }),
            _ => true,
        }
    }
}

/// The value of default `literal` for an argument of type `ty`, if it has one.
///
/// ```
/// use opgen_core::plan::{ArgDefault, arg_default};
/// use opgen_core::schema::parse_schema;
/// let s = parse_schema("f(Tensor self, *, Scalar alpha=1, int[2] padding=0, int? dim=None) -> Tensor").unwrap();
/// let of = |i: usize| arg_default(&s.arguments[i].ty, &s.arguments[i].default.as_ref().unwrap().value);
/// assert_eq!(of(1), Some(ArgDefault::Scalar(Box::new(ArgDefault::Int(1)))));
/// assert_eq!(of(2), Some(ArgDefault::List(vec![ArgDefault::Int(0), ArgDefault::Int(0)])));
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

/// The default of an argument of type `ty` as the Rust API writes it: a value that is a
/// constant expression of the parameter's type ([`ArgDefault::is_rust_constant`]); an
/// argument whose default has none blocks the operator's typed API.
pub fn rust_default(ty: &ArgType, literal: &Literal) -> Option<ArgDefault> {
    arg_default(ty, literal).filter(ArgDefault::is_rust_constant)
}

/// Whether a scalar default of a list of declared `size` repeats into more items than
/// [`MAX_REPEATED_DEFAULT`]: such a default has no value.
///
/// ```
/// use opgen_core::plan::repeats_too_far;
/// use opgen_core::schema::{Literal, parse_type};
/// assert!(repeats_too_far(&parse_type("int[4294967295]").unwrap(), &Literal::Int(0)));
/// assert!(!repeats_too_far(&parse_type("int[2]").unwrap(), &Literal::Int(0)));
/// assert!(!repeats_too_far(&parse_type("int[100]").unwrap(), &Literal::List(vec![])));
/// ```
pub fn repeats_too_far(ty: &ArgType, literal: &Literal) -> bool {
    match (ty.strip_optional(), literal) {
        (_, Literal::List(_) | Literal::None) => false,
        (ArgType::List { size: Some(n), .. }, _) => *n > MAX_REPEATED_DEFAULT,
        _ => false,
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
    let (base, optional) = match elem {
        ArgType::Base(b) => (*b, false),
        ArgType::Optional(inner) => match inner.as_ref() {
            ArgType::Base(b) => (*b, true),
            _ => return None,
        },
        _ => return None,
    };
    let item = |l: &Literal| match l {
        Literal::None if optional => Some(ArgDefault::None),
        // Handles have no literal; only `[]` is a default of their lists.
        _ if is_handle(base) => None,
        l if optional => Some(ArgDefault::Some(Box::new(base_value(base, l)?))),
        l => base_value(base, l),
    };
    items
        .into_iter()
        .map(item)
        .collect::<Option<_>>()
        .map(ArgDefault::List)
}

/// Tensors, generators, storages and streams: values without a literal.
fn is_handle(base: BaseType) -> bool {
    matches!(
        base,
        BaseType::Tensor | BaseType::Generator | BaseType::Storage | BaseType::Stream
    )
}

fn base_value(base: BaseType, literal: &Literal) -> Option<ArgDefault> {
    use ArgDefault as D;
    Some(match (base, literal) {
        (BaseType::Int | BaseType::SymInt, Literal::Int(i)) => D::Int(*i),
        (BaseType::DeviceIndex, Literal::Int(i)) => D::Int(i8::try_from(*i).ok()?.into()),
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
                Some(D::List(vec![D::Bool(true), D::Bool(false), D::Bool(true)])),
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
                Some(D::List(vec![])),
            ),
            ("f(Tensor self, int? dim=None) -> Tensor", Some(D::None)),
            (
                "f(Tensor self, int? dim=1) -> Tensor",
                Some(D::Some(Box::new(D::Int(1)))),
            ),
            (
                "f(Tensor self, int?[] sizes=[2,None]) -> Tensor",
                Some(D::List(vec![D::Some(Box::new(D::Int(2))), D::None])),
            ),
            (
                "f(Tensor self, str[] names=['a']) -> Tensor",
                Some(D::List(vec![D::Str("a".into())])),
            ),
            ("f(Tensor self, DeviceIndex i=3) -> Tensor", Some(D::Int(3))),
            ("f(Tensor self, DeviceIndex i=300) -> Tensor", None),
            (
                "f(Tensor self, Generator[] g=[]) -> Tensor",
                Some(D::List(vec![])),
            ),
            ("f(Tensor self, Tensor[] t=[1]) -> Tensor", None),
            ("f(Tensor self, int x=long) -> Tensor", None),
            ("f(Tensor self, int[] x=0) -> Tensor", None),
            ("f(Tensor self, int[100] x=0) -> Tensor", None),
            ("f(Tensor self, int[4294967295] x=0) -> Tensor", None),
        ];
        for (schema, expected) in cases {
            assert_eq!(default_of(schema), expected, "{schema}");
        }
        assert!(
            matches!(default_of("f(Tensor self, float x=inf) -> Tensor"), Some(D::Float(f)) if f.is_infinite())
        );
        let at_the_limit = format!("f(Tensor self, int[{MAX_REPEATED_DEFAULT}] x=7) -> Tensor");
        assert_eq!(
            default_of(&at_the_limit),
            Some(D::List(vec![D::Int(7); MAX_REPEATED_DEFAULT as usize]))
        );
    }
}
