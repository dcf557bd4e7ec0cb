//! Boxed values: `IValue`, one variant per schema type (a `Scalar` is carried as the number
//! it holds, as in c10), and the `Stack` of boxed calls.
//!
//! An `IValue` is two words: the variant, and one word of payload (a number, a one-word
//! enum or handle, the tensor, or an `Arc` of anything larger). Two words move in registers
//! or as two stores, so pushing an argument and popping a result cost a few instructions
//! each. [`Stack::push`], [`Stack::pop`] and the dispatcher's in-place replacement of the
//! arguments by the returns (the helpers in `erased.rs`) avoid copying a value through
//! memory with one 16-byte load, which the two 8-byte stores that wrote it cannot forward
//! (a stall of several nanoseconds per value).

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use super::erased::{drop_values_from, pop_value, push_in_place, replace_values_from};
use super::keyset::DispatchKeySet;
use super::list::{ListItem, ValueList};
use super::tensor::Tensor;
use super::value::{
    Complex, Device, Dimname, Generator, Layout, MemoryFormat, QScheme, Scalar, ScalarType,
    Storage, Stream,
};
use crate::schema::{ArgType, BaseType, Literal};

/// A boxed value of any schema type, generic over the user's tensor type `T`.
///
/// An absent optional is [`IValue::None`]; `Tensor?` is `None` or `Tensor`. `SymInt` and
/// `DeviceIndex` are carried as `Int`, `SymBool` as `Bool`. As in c10, a `Scalar` is carried
/// as the value it holds: `Bool`, `Int`, `Float` or `Complex`. The common lists have a
/// variant each; every other list (`str[]`, `int?[]`, `ScalarType[]`, ...) is an
/// [`IValue::List`] of a [`ValueList`], as c10 keeps those in its generic list. The table in
/// the [module documentation](crate::dispatch) gives the form of every schema type.
///
/// An `IValue` is two words for a one-word tensor handle (such as an `Arc`): the variant and
/// one word of payload. As in c10, payloads that do not fit in a word (lists, strings,
/// complex numbers, streams, tuples) are reference-counted, so that moving values on and off
/// a [`Stack`] stays cheap and cloning one is an increment; mutating a shared list clones it
/// first (`Arc::make_mut`).
///
/// ```
/// use std::sync::Arc;
/// use opgen_core::dispatch::{IValue, Scalar};
/// let v: IValue<()> = IValue::from(vec![1i64, 2]);
/// assert_eq!(v, IValue::IntList(Arc::new(vec![1, 2])));
/// assert_eq!(v.kind(), "int[]");
/// assert_eq!(IValue::<()>::from(Scalar::Int(1)), IValue::Int(1));
/// assert_eq!(IValue::<()>::from(vec![Some("a".to_string()), None]).kind(), "str?[]");
/// assert_eq!(size_of::<IValue<Arc<()>>>(), 16);
/// ```
#[derive(Debug, Clone, PartialEq)]
// A one-word tag: a value is then copied word by word (a one-byte tag would be copied with
// loads straddling it and the payload, which stall behind the stores that wrote them).
#[repr(u64)]
pub enum IValue<T> {
    /// An absent optional.
    None,
    /// `bool`, `SymBool`, a boolean `Scalar`.
    Bool(bool),
    /// `int`, `SymInt`, `DeviceIndex`, an integer `Scalar`.
    Int(i64),
    /// `float`, a floating-point `Scalar`.
    Float(f64),
    /// A complex `Scalar`.
    Complex(Arc<Complex>),
    /// `str`.
    Str(Arc<String>),
    /// `Tensor`.
    Tensor(T),
    /// `int[]`, `int[N]`, `SymInt[]`, `SymInt[N]`, `DimVector`.
    IntList(Arc<Vec<i64>>),
    /// `float[]`, `float[N]`.
    FloatList(Arc<Vec<f64>>),
    /// `bool[N]`, `SymBool[]`.
    BoolList(Arc<Vec<bool>>),
    /// `Tensor[]`.
    TensorList(Arc<Vec<T>>),
    /// `Tensor?[]`.
    OptionalTensorList(Arc<Vec<Option<T>>>),
    /// `Scalar[]`.
    ScalarList(Arc<Vec<Scalar>>),
    /// Any other list (`str[]`, `int?[]`, `ScalarType[]`, ...; c10's generic list).
    List(Arc<ValueList>),
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
    Stream(Arc<Stream>),
    /// A dimension name.
    Dimname(Dimname),
    /// A tuple of values.
    Tuple(Arc<Vec<IValue<T>>>),
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
            IValue::Tensor(_) => "Tensor",
            IValue::IntList(_) => "int[]",
            IValue::FloatList(_) => "float[]",
            IValue::BoolList(_) => "bool[]",
            IValue::TensorList(_) => "Tensor[]",
            IValue::OptionalTensorList(_) => "Tensor?[]",
            IValue::ScalarList(_) => "Scalar[]",
            IValue::List(list) => list.kind(),
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
    ($($ty:ty => $variant:ident $(($wrap:path))?),* $(,)?) => {
        $(impl<T> From<$ty> for IValue<T> {
            fn from(v: $ty) -> IValue<T> {
                IValue::$variant($($wrap)?(v))
            }
        })*
    };
}

from_impls! {
    bool => Bool, i64 => Int, f64 => Float, Complex => Complex(Arc::new),
    String => Str(Arc::new), ScalarType => ScalarType, Layout => Layout, Device => Device, MemoryFormat => MemoryFormat,
    QScheme => QScheme, Generator => Generator, Storage => Storage, Stream => Stream(Arc::new),
    Dimname => Dimname,
}

impl<T> From<Scalar> for IValue<T> {
    /// The value the scalar holds, as c10 boxes it.
    #[inline]
    fn from(v: Scalar) -> IValue<T> {
        match v {
            Scalar::Bool(b) => IValue::Bool(b),
            Scalar::Int(i) => IValue::Int(i),
            Scalar::Float(f) => IValue::Float(f),
            Scalar::Complex(c) => IValue::Complex(Arc::new(c)),
        }
    }
}

impl<T, E: ListItem<T>> From<Vec<E>> for IValue<T> {
    /// The list, in the variant [`ListItem`] gives its element type.
    fn from(items: Vec<E>) -> IValue<T> {
        E::into_list(items)
    }
}

impl<T> From<&str> for IValue<T> {
    fn from(v: &str) -> IValue<T> {
        IValue::Str(Arc::new(v.to_string()))
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

    /// Removes the top value and returns it: what `Vec::pop` does, but a tensor is read word
    /// by word (see the module documentation).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<IValue<T>> {
        pop_value(&mut self.values)
    }

    /// Replaces the values from `base` up (a call's arguments) with `value` (its return).
    #[inline(always)]
    pub(crate) fn replace_from(&mut self, base: usize, value: IValue<T>) {
        replace_values_from(&mut self.values, base, value);
    }

    /// [`Stack::replace_from`] for a tensor: over a tensor argument, only the handle changes.
    #[inline(always)]
    pub(crate) fn replace_from_with_tensor(&mut self, base: usize, tensor: T) {
        match self.values.get_mut(base) {
            Some(IValue::Tensor(slot)) => {
                let first = std::mem::replace(slot, tensor);
                drop_values_from(&mut self.values, base + 1);
                drop(first);
            }
            _ => self.replace_from_cold(base, IValue::Tensor(tensor)),
        }
    }

    #[cold]
    #[inline(never)]
    fn replace_from_cold(&mut self, base: usize, value: IValue<T>) {
        replace_values_from(&mut self.values, base, value);
    }

    /// Drops the values from `base` up.
    #[inline(always)]
    pub(crate) fn drop_from(&mut self, base: usize) {
        drop_values_from(&mut self.values, base);
    }

    /// Pushes a value on top: what `Vec::push` does, but the value is always written straight
    /// into the buffer (see the module documentation).
    #[inline(always)]
    pub fn push(&mut self, value: IValue<T>) {
        push_in_place(&mut self.values, value);
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
/// `alpha=1` for `Scalar` is `Int(1)`, `int[2] padding=0` is `IntList([0, 0])`,
/// `reduction=Mean` is `Int(1)`, `memory_format=contiguous_format` is a `MemoryFormat`.
pub(crate) fn default_value<T: Tensor>(ty: &ArgType, literal: &Literal) -> Option<IValue<T>> {
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
        (BaseType::Float, _) => IValue::Float(float(literal)?),
        (BaseType::Bool | BaseType::SymBool, Literal::Bool(b)) => IValue::Bool(*b),
        (BaseType::Str, Literal::Str(s)) => IValue::from(s.as_str()),
        (BaseType::Scalar, _) => IValue::from(scalar(literal)?),
        (BaseType::ScalarType, Literal::Ident(n)) => IValue::ScalarType(ScalarType::from_name(n)?),
        (BaseType::Layout, Literal::Ident(n)) => IValue::Layout(Layout::from_name(n)?),
        (BaseType::MemoryFormat, Literal::Ident(n)) => {
            IValue::MemoryFormat(MemoryFormat::from_name(n)?)
        }
        (BaseType::QScheme, Literal::Ident(n)) => IValue::QScheme(QScheme::from_name(n)?),
        (BaseType::Device, _) => IValue::Device(device(literal)?),
        _ => return None,
    })
}

fn int(literal: &Literal) -> Option<i64> {
    match literal {
        Literal::Int(i) => Some(*i),
        _ => None,
    }
}

fn float(literal: &Literal) -> Option<f64> {
    match literal {
        Literal::Int(i) => Some(*i as f64),
        Literal::Float(f) => Some(f.0),
        _ => None,
    }
}

fn boolean(literal: &Literal) -> Option<bool> {
    match literal {
        Literal::Bool(b) => Some(*b),
        _ => None,
    }
}

fn string(literal: &Literal) -> Option<String> {
    match literal {
        Literal::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

fn scalar(literal: &Literal) -> Option<Scalar> {
    match literal {
        Literal::Int(i) => Some(Scalar::Int(*i)),
        Literal::Float(f) => Some(Scalar::Float(f.0)),
        Literal::Bool(b) => Some(Scalar::Bool(*b)),
        _ => None,
    }
}

fn named<V>(literal: &Literal, from_name: fn(&str) -> Option<V>) -> Option<V> {
    match literal {
        Literal::Ident(n) => from_name(n),
        _ => None,
    }
}

fn device(literal: &Literal) -> Option<Device> {
    match literal {
        Literal::Str(s) | Literal::Ident(s) => s.parse().ok(),
        _ => None,
    }
}

/// A list of the items `parse` reads; for an optional element type, `None` items too.
fn items_of<T, X>(
    items: &[Literal],
    optional: bool,
    parse: impl Fn(&Literal) -> Option<X>,
) -> Option<IValue<T>>
where
    X: ListItem<T>,
    Option<X>: ListItem<T>,
{
    if optional {
        let read = |l: &Literal| match l {
            Literal::None => Some(None),
            l => parse(l).map(Some),
        };
        items
            .iter()
            .map(read)
            .collect::<Option<Vec<_>>>()
            .map(IValue::from)
    } else {
        items
            .iter()
            .map(parse)
            .collect::<Option<Vec<_>>>()
            .map(IValue::from)
    }
}

fn default_list<T: Tensor>(
    elem: &ArgType,
    size: Option<u32>,
    literal: &Literal,
) -> Option<IValue<T>> {
    let items: Vec<Literal> = match (literal, size) {
        (Literal::List(items), _) => items.clone(),
        // `int[2] padding=0` repeats the scalar to the list's size.
        (scalar, Some(n)) => vec![scalar.clone(); n as usize],
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
    // Handles (tensors, generators, storages, streams) have no literal: only `[]`.
    fn none<X>(_: &Literal) -> Option<X> {
        None
    }
    match base {
        BaseType::Int | BaseType::SymInt => items_of::<T, i64>(&items, optional, int),
        BaseType::DeviceIndex => items_of::<T, i8>(&items, optional, |l| {
            int(l).and_then(|i| i8::try_from(i).ok())
        }),
        BaseType::Float => items_of::<T, f64>(&items, optional, float),
        BaseType::Bool | BaseType::SymBool => items_of::<T, bool>(&items, optional, boolean),
        BaseType::Str => items_of::<T, String>(&items, optional, string),
        BaseType::Scalar => items_of::<T, Scalar>(&items, optional, scalar),
        BaseType::ScalarType => {
            items_of::<T, ScalarType>(&items, optional, |l| named(l, ScalarType::from_name))
        }
        BaseType::Layout => {
            items_of::<T, Layout>(&items, optional, |l| named(l, Layout::from_name))
        }
        BaseType::MemoryFormat => {
            items_of::<T, MemoryFormat>(&items, optional, |l| named(l, MemoryFormat::from_name))
        }
        BaseType::QScheme => {
            items_of::<T, QScheme>(&items, optional, |l| named(l, QScheme::from_name))
        }
        BaseType::Device => items_of::<T, Device>(&items, optional, device),
        BaseType::Generator => items_of::<T, Generator>(&items, optional, none),
        BaseType::Storage => items_of::<T, Storage>(&items, optional, none),
        BaseType::Stream => items_of::<T, Stream>(&items, optional, none),
        BaseType::Tensor if optional => items
            .is_empty()
            .then(|| IValue::from(Vec::<Option<T>>::new())),
        BaseType::Tensor => items.is_empty().then(|| IValue::from(Vec::<T>::new())),
        BaseType::DimVector | BaseType::GraphModule => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::tests::TestTensor;
    use crate::schema::{Float, parse_type};

    fn default(ty: &str, literal: Literal) -> Option<IValue<TestTensor>> {
        default_value(&parse_type(ty).unwrap(), &literal)
    }

    #[test]
    fn values_are_two_words_for_a_one_word_tensor() {
        assert_eq!(size_of::<IValue<Arc<u64>>>(), 16);
        assert_eq!(size_of::<Option<IValue<Arc<u64>>>>(), 16);
        assert_eq!(size_of::<IValue<crate::dispatch::tests::TestTensor>>(), 16);
    }

    #[test]
    fn defaults_follow_the_schema_type() {
        assert_eq!(default("Scalar", Literal::Int(1)), Some(IValue::Int(1)));
        assert_eq!(
            default("Scalar", Literal::Float(Float(0.5))),
            Some(IValue::from(Scalar::Float(0.5)))
        );
        assert_eq!(default("float", Literal::Int(2)), Some(IValue::Float(2.0)));
        assert_eq!(
            default("int[2]", Literal::Int(0)),
            Some(IValue::from(vec![0i64, 0]))
        );
        assert_eq!(
            default(
                "int[1]",
                Literal::List(vec![Literal::Int(-2), Literal::Int(-1)])
            ),
            Some(IValue::from(vec![-2i64, -1]))
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
            Some(IValue::from(vec![true; 3]))
        );
        assert_eq!(
            default("MemoryFormat", Literal::Ident("contiguous_format".into())),
            Some(IValue::MemoryFormat(MemoryFormat::Contiguous))
        );
        let names = Literal::List(vec![Literal::Str("a".into()), Literal::Str("b".into())]);
        assert_eq!(
            default("str[]", names),
            Some(IValue::from(vec!["a".to_string(), "b".to_string()]))
        );
        let sizes = Literal::List(vec![Literal::Int(2), Literal::None]);
        assert_eq!(
            default("int?[]", sizes),
            Some(IValue::from(vec![Some(2i64), None]))
        );
        assert_eq!(
            default("ScalarType[]", Literal::List(vec![])),
            Some(IValue::from(Vec::<ScalarType>::new()))
        );
        assert_eq!(
            default("Tensor?[]", Literal::List(vec![])),
            Some(IValue::from(Vec::<Option<TestTensor>>::new()))
        );
        let dtypes = Literal::List(vec![Literal::Ident("long".into())]);
        assert_eq!(
            default("ScalarType?[]", dtypes),
            Some(IValue::from(vec![Some(ScalarType::Long)]))
        );
        assert_eq!(
            default("Generator[]", Literal::List(vec![Literal::Int(1)])),
            None
        );
        assert_eq!(default("int[]", Literal::Int(0)), None);
        assert_eq!(default("Tensor", Literal::Int(0)), None);
    }
}
