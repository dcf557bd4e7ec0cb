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

mod defaults;
pub use defaults::default_value;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_two_words_for_a_one_word_tensor() {
        assert_eq!(size_of::<IValue<Arc<u64>>>(), 16);
        assert_eq!(size_of::<Option<IValue<Arc<u64>>>>(), 16);
        assert_eq!(size_of::<IValue<crate::dispatch::tests::TestTensor>>(), 16);
    }
}
