//! Boxed values: `IValue`, one variant per schema type, and the `Stack` of boxed calls.

use std::ops::{Deref, DerefMut};

use super::keyset::DispatchKeySet;
use super::tensor::Tensor;
use super::value::{
    Complex, Device, Dimname, Generator, Layout, MemoryFormat, QScheme, Scalar, ScalarType,
    Storage, Stream,
};
use crate::schema::{ArgType, BaseType, Literal};

/// A boxed value of any schema type, generic over the user's tensor type `T`.
///
/// An absent optional is [`IValue::None`]; `Tensor?` is `None` or `Tensor`. `SymInt` and
/// `DeviceIndex` are carried as `Int`, `SymBool` as `Bool`.
///
/// ```
/// use opgen_core::dispatch::{IValue, Scalar};
/// let v: IValue<()> = IValue::from(vec![1i64, 2]);
/// assert_eq!(v, IValue::IntList(vec![1, 2]));
/// assert_eq!(v.kind(), "int[]");
/// assert_eq!(IValue::<()>::from(Scalar::Int(1)).kind(), "Scalar");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum IValue<T> {
    /// An absent optional.
    None,
    /// `bool`, `SymBool`.
    Bool(bool),
    /// `int`, `SymInt`, `DeviceIndex`.
    Int(i64),
    /// `float`.
    Float(f64),
    /// A complex number (a `Scalar` may also hold one).
    Complex(Complex),
    /// `str`.
    Str(String),
    /// `Scalar`.
    Scalar(Scalar),
    /// `Tensor`.
    Tensor(T),
    /// `int[]`, `int[N]`, `SymInt[]`, `SymInt[N]`.
    IntList(Vec<i64>),
    /// `float[]`.
    FloatList(Vec<f64>),
    /// `bool[N]`.
    BoolList(Vec<bool>),
    /// `Tensor[]`.
    TensorList(Vec<T>),
    /// `Tensor?[]`.
    OptionalTensorList(Vec<Option<T>>),
    /// `Scalar[]`.
    ScalarList(Vec<Scalar>),
    /// `ScalarType`.
    ScalarType(ScalarType),
    /// `Layout`.
    Layout(Layout),
    /// `Device`.
    Device(Device),
    /// `MemoryFormat`.
    MemoryFormat(MemoryFormat),
    /// `QScheme`.
    QScheme(QScheme),
    /// `Generator`.
    Generator(Generator),
    /// `Storage`.
    Storage(Storage),
    /// `Stream`.
    Stream(Stream),
    /// A dimension name.
    Dimname(Dimname),
    /// A tuple of values.
    Tuple(Vec<IValue<T>>),
}

impl<T> IValue<T> {
    /// The schema spelling of the value's type, for messages: `int[]`, `Tensor?[]`, `None`.
    pub fn kind(&self) -> &'static str {
        match self {
            IValue::None => "None",
            IValue::Bool(_) => "bool",
            IValue::Int(_) => "int",
            IValue::Float(_) => "float",
            IValue::Complex(_) => "complex",
            IValue::Str(_) => "str",
            IValue::Scalar(_) => "Scalar",
            IValue::Tensor(_) => "Tensor",
            IValue::IntList(_) => "int[]",
            IValue::FloatList(_) => "float[]",
            IValue::BoolList(_) => "bool[]",
            IValue::TensorList(_) => "Tensor[]",
            IValue::OptionalTensorList(_) => "Tensor?[]",
            IValue::ScalarList(_) => "Scalar[]",
            IValue::ScalarType(_) => "ScalarType",
            IValue::Layout(_) => "Layout",
            IValue::Device(_) => "Device",
            IValue::MemoryFormat(_) => "MemoryFormat",
            IValue::QScheme(_) => "QScheme",
            IValue::Generator(_) => "Generator",
            IValue::Storage(_) => "Storage",
            IValue::Stream(_) => "Stream",
            IValue::Dimname(_) => "Dimname",
            IValue::Tuple(_) => "tuple",
        }
    }

    /// Whether the value is `None`.
    pub fn is_none(&self) -> bool {
        matches!(self, IValue::None)
    }

    /// The tensor, if the value is one.
    pub fn as_tensor(&self) -> Option<&T> {
        match self {
            IValue::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// The tensor, if the value is one.
    pub fn into_tensor(self) -> Option<T> {
        match self {
            IValue::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// The integer, if the value is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            IValue::Int(i) => Some(*i),
            _ => None,
        }
    }
}

/// The kind of a value that did not match, out of line so that unboxing stays one compare.
#[cold]
#[inline(never)]
pub(crate) fn kind_of<T>(value: &IValue<T>) -> &'static str {
    value.kind()
}

impl<T: Tensor> IValue<T> {
    /// The union of the key sets of the tensors the value holds (empty if it holds none).
    #[inline]
    pub fn key_set(&self) -> DispatchKeySet {
        match self {
            IValue::Tensor(t) => t.key_set(),
            IValue::TensorList(ts) => ts
                .iter()
                .fold(DispatchKeySet::EMPTY, |ks, t| ks | t.key_set()),
            IValue::OptionalTensorList(ts) => ts
                .iter()
                .flatten()
                .fold(DispatchKeySet::EMPTY, |ks, t| ks | t.key_set()),
            IValue::Tuple(vs) => vs
                .iter()
                .fold(DispatchKeySet::EMPTY, |ks, v| ks | v.key_set()),
            _ => DispatchKeySet::EMPTY,
        }
    }
}

macro_rules! from_impls {
    ($($ty:ty => $variant:ident),* $(,)?) => {
        $(impl<T> From<$ty> for IValue<T> {
            fn from(v: $ty) -> IValue<T> {
                IValue::$variant(v)
            }
        })*
    };
}

from_impls! {
    bool => Bool, i64 => Int, f64 => Float, Complex => Complex, String => Str, Scalar => Scalar,
    Vec<i64> => IntList, Vec<f64> => FloatList, Vec<bool> => BoolList, Vec<Scalar> => ScalarList,
    ScalarType => ScalarType, Layout => Layout, Device => Device, MemoryFormat => MemoryFormat,
    QScheme => QScheme, Generator => Generator, Storage => Storage, Stream => Stream,
    Dimname => Dimname,
}

impl<T> From<&str> for IValue<T> {
    fn from(v: &str) -> IValue<T> {
        IValue::Str(v.to_string())
    }
}

impl<T, V: Into<IValue<T>>> From<Option<V>> for IValue<T> {
    fn from(v: Option<V>) -> IValue<T> {
        v.map_or(IValue::None, Into::into)
    }
}

/// The stack of a boxed call: the caller pushes the arguments in schema order, the kernel
/// pops them and pushes the returns. It dereferences to the `Vec` of values.
///
/// ```
/// use opgen_core::dispatch::{IValue, Stack};
/// let mut stack: Stack<()> = Stack::new();
/// stack.push(IValue::Int(1));
/// stack.push(2i64.into());
/// assert_eq!(stack.len(), 2);
/// assert_eq!(stack.pop(), Some(IValue::Int(2)));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Stack<T> {
    values: Vec<IValue<T>>,
}

impl<T> Stack<T> {
    /// An empty stack.
    pub fn new() -> Stack<T> {
        Stack { values: Vec::new() }
    }

    /// An empty stack with room for `n` values.
    pub fn with_capacity(n: usize) -> Stack<T> {
        Stack {
            values: Vec::with_capacity(n),
        }
    }

    /// The values, bottom first.
    pub fn into_vec(self) -> Vec<IValue<T>> {
        self.values
    }
}

impl<T> Default for Stack<T> {
    fn default() -> Stack<T> {
        Stack::new()
    }
}

impl<T> Deref for Stack<T> {
    type Target = Vec<IValue<T>>;
    fn deref(&self) -> &Vec<IValue<T>> {
        &self.values
    }
}

impl<T> DerefMut for Stack<T> {
    fn deref_mut(&mut self) -> &mut Vec<IValue<T>> {
        &mut self.values
    }
}

impl<T> From<Vec<IValue<T>>> for Stack<T> {
    fn from(values: Vec<IValue<T>>) -> Stack<T> {
        Stack { values }
    }
}

impl<T> FromIterator<IValue<T>> for Stack<T> {
    fn from_iter<I: IntoIterator<Item = IValue<T>>>(iter: I) -> Stack<T> {
        Stack {
            values: iter.into_iter().collect(),
        }
    }
}

/// The value of a schema default literal for an argument of type `ty`, if it has one:
/// `alpha=1` for `Scalar` is `Scalar(Int(1))`, `int[2] padding=0` is `IntList([0, 0])`,
/// `reduction=Mean` is `Int(1)`, `memory_format=contiguous_format` is a `MemoryFormat`.
pub(crate) fn default_value<T>(ty: &ArgType, literal: &Literal) -> Option<IValue<T>> {
    if let (Literal::None, ArgType::Optional(_)) = (literal, ty) {
        return Some(IValue::None);
    }
    let ty = ty.strip_optional();
    if let ArgType::List { elem, size } = ty {
        return default_list(elem, *size, literal);
    }
    let ArgType::Base(base) = ty else { return None };
    Some(match (base, literal) {
        (BaseType::Int | BaseType::SymInt | BaseType::DeviceIndex, Literal::Int(i)) => {
            IValue::Int(*i)
        }
        // at::Reduction: None = 0, Mean = 1, Sum = 2.
        (BaseType::Int, Literal::Ident(r)) => IValue::Int(match r.as_str() {
            "Mean" => 1,
            "Sum" => 2,
            _ => return None,
        }),
        (BaseType::Float, Literal::Int(i)) => IValue::Float(*i as f64),
        (BaseType::Float, Literal::Float(f)) => IValue::Float(f.0),
        (BaseType::Bool | BaseType::SymBool, Literal::Bool(b)) => IValue::Bool(*b),
        (BaseType::Str, Literal::Str(s)) => IValue::Str(s.to_string()),
        (BaseType::Scalar, Literal::Int(i)) => IValue::Scalar(Scalar::Int(*i)),
        (BaseType::Scalar, Literal::Float(f)) => IValue::Scalar(Scalar::Float(f.0)),
        (BaseType::Scalar, Literal::Bool(b)) => IValue::Scalar(Scalar::Bool(*b)),
        (BaseType::ScalarType, Literal::Ident(n)) => IValue::ScalarType(ScalarType::from_name(n)?),
        (BaseType::Layout, Literal::Ident(n)) => IValue::Layout(Layout::from_name(n)?),
        (BaseType::MemoryFormat, Literal::Ident(n)) => {
            IValue::MemoryFormat(MemoryFormat::from_name(n)?)
        }
        (BaseType::Device, Literal::Str(s) | Literal::Ident(s)) => IValue::Device(s.parse().ok()?),
        _ => return None,
    })
}

fn default_list<T>(elem: &ArgType, size: Option<u32>, literal: &Literal) -> Option<IValue<T>> {
    let items: Vec<Literal> = match (literal, size) {
        (Literal::List(items), _) => items.clone(),
        // `int[2] padding=0` repeats the scalar to the list's size.
        (scalar, Some(n)) => vec![scalar.clone(); n as usize],
        _ => return None,
    };
    Some(match elem {
        ArgType::Base(BaseType::Int | BaseType::SymInt) => IValue::IntList(
            items
                .iter()
                .map(|l| match l {
                    Literal::Int(i) => Some(*i),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        ArgType::Base(BaseType::Float) => IValue::FloatList(
            items
                .iter()
                .map(|l| match l {
                    Literal::Int(i) => Some(*i as f64),
                    Literal::Float(f) => Some(f.0),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        ArgType::Base(BaseType::Bool) => IValue::BoolList(
            items
                .iter()
                .map(|l| match l {
                    Literal::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        ArgType::Base(BaseType::Tensor) if items.is_empty() => IValue::TensorList(Vec::new()),
        ArgType::Base(BaseType::Scalar) if items.is_empty() => IValue::ScalarList(Vec::new()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Float, parse_type};

    fn default(ty: &str, literal: Literal) -> Option<IValue<()>> {
        default_value(&parse_type(ty).unwrap(), &literal)
    }

    #[test]
    fn defaults_follow_the_schema_type() {
        assert_eq!(
            default("Scalar", Literal::Int(1)),
            Some(IValue::Scalar(Scalar::Int(1)))
        );
        assert_eq!(default("float", Literal::Int(2)), Some(IValue::Float(2.0)));
        assert_eq!(
            default("int[2]", Literal::Int(0)),
            Some(IValue::IntList(vec![0, 0]))
        );
        assert_eq!(
            default(
                "int[1]",
                Literal::List(vec![Literal::Int(-2), Literal::Int(-1)])
            ),
            Some(IValue::IntList(vec![-2, -1]))
        );
        assert_eq!(
            default("int", Literal::Ident("Mean".into())),
            Some(IValue::Int(1))
        );
        assert_eq!(
            default("ScalarType?", Literal::Ident("long".into())),
            Some(IValue::ScalarType(ScalarType::Long))
        );
        assert_eq!(default("Tensor?", Literal::None), Some(IValue::None));
        assert_eq!(default("float[]?", Literal::None), Some(IValue::None));
        assert_eq!(
            default("float", Literal::Float(Float(1e-5))),
            Some(IValue::Float(1e-5))
        );
        assert_eq!(
            default("bool[3]", Literal::Bool(true)),
            Some(IValue::BoolList(vec![true; 3]))
        );
        assert_eq!(
            default("MemoryFormat", Literal::Ident("contiguous_format".into())),
            Some(IValue::MemoryFormat(MemoryFormat::Contiguous))
        );
        assert_eq!(default("int[]", Literal::Int(0)), None);
        assert_eq!(default("Tensor", Literal::Int(0)), None);
    }
}
