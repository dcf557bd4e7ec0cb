//! Lists in boxed values: which [`IValue`] variant holds a list of each element type, and
//! [`ValueList`], the lists of the element types that have no variant of their own.
//!
//! As in c10, the common lists have a variant each (`int[]`, `float[]`, `bool[]`,
//! `Tensor[]`, `Tensor?[]`, `Scalar[]`), and every other list is one variant,
//! [`IValue::List`] (c10's generic list), which holds a [`ValueList`]: the elements stay in a
//! `Vec` of their Rust type, so that a kernel parameter `&[String]` or `&[Option<i64>]`
//! borrows them without a copy.

use std::fmt;
use std::sync::Arc;

use super::device::DeviceArg;
use super::ivalue::IValue;
use super::keyset::DispatchKeySet;
use super::tensor::Tensor;
use super::value::{
    Device, Dimname, Generator, Layout, MemoryFormat, QScheme, Scalar, ScalarType, Storage, Stream,
};
use crate::plan::{RustType, ValueType};

pub(crate) mod sealed {
    /// Keeps [`super::ListItem`] closed: the element types are the mapping's.
    pub trait Item {}
}

/// A list of a schema element type that has no [`IValue`] variant of its own: the payload
/// of [`IValue::List`]. Each variant names the schema type of the list it holds.
///
/// ```
/// use std::sync::Arc;
/// use opgen_core::dispatch::{IValue, ValueList};
/// let names: IValue<()> = IValue::from(vec!["a".to_string(), "b".to_string()]);
/// assert_eq!(names, IValue::List(Arc::new(ValueList::Str(vec!["a".into(), "b".into()]))));
/// assert_eq!(names.kind(), "str[]");
/// let sizes: IValue<()> = IValue::from(vec![Some(2i64), None]);
/// assert_eq!(sizes.kind(), "int?[]");
/// let IValue::List(list) = sizes else { unreachable!() };
/// assert_eq!(list.to_string(), "[2, None]");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ValueList {
    /// `str[]`.
    Str(Vec<String>),
    /// `DeviceIndex[]`.
    DeviceIndex(Vec<i8>),
    /// `ScalarType[]`.
    ScalarType(Vec<ScalarType>),
    /// `Layout[]`.
    Layout(Vec<Layout>),
    /// `Device[]`.
    Device(Vec<Device>),
    /// `MemoryFormat[]`.
    MemoryFormat(Vec<MemoryFormat>),
    /// `QScheme[]`.
    QScheme(Vec<QScheme>),
    /// `Generator[]`.
    Generator(Vec<Generator>),
    /// `Storage[]`.
    Storage(Vec<Storage>),
    /// `Stream[]`.
    Stream(Vec<Stream>),
    /// A list of dimension names (PyTorch's `Dimname[]`; no schema type of opgen names it).
    Dimname(Vec<Dimname>),
    /// `int?[]`, `SymInt?[]`.
    OptionalInt(Vec<Option<i64>>),
    /// `float?[]`.
    OptionalFloat(Vec<Option<f64>>),
    /// `bool?[]`, `SymBool?[]`.
    OptionalBool(Vec<Option<bool>>),
    /// `DeviceIndex?[]`.
    OptionalDeviceIndex(Vec<Option<i8>>),
    /// `Scalar?[]`.
    OptionalScalar(Vec<Option<Scalar>>),
    /// `str?[]`.
    OptionalStr(Vec<Option<String>>),
    /// `ScalarType?[]`.
    OptionalScalarType(Vec<Option<ScalarType>>),
    /// `Layout?[]`.
    OptionalLayout(Vec<Option<Layout>>),
    /// `Device?[]`.
    OptionalDevice(Vec<Option<Device>>),
    /// `MemoryFormat?[]`.
    OptionalMemoryFormat(Vec<Option<MemoryFormat>>),
    /// `QScheme?[]`.
    OptionalQScheme(Vec<Option<QScheme>>),
    /// `Generator?[]`.
    OptionalGenerator(Vec<Option<Generator>>),
    /// `Storage?[]`.
    OptionalStorage(Vec<Option<Storage>>),
    /// `Stream?[]`.
    OptionalStream(Vec<Option<Stream>>),
}

/// An element type of the lists kernels take (`&[E]`) and return (`Vec<E>`): the tensor type
/// `T`, `Option<T>`, `i64`, `f64`, `bool`, `i8`, `Scalar`, `String`, the other value types
/// (`ScalarType`, `Layout`, `Device`, `MemoryFormat`, `QScheme`, `Generator`, `Storage`,
/// `Stream`), and `Option` of each value type and of `String`. Implemented by opgen only.
pub trait ListItem<T>: sealed::Item + Clone + Sized + 'static {
    /// The element's Rust type, as [`crate::plan::argument_type`] writes it in `&[E]`.
    fn item_type() -> RustType;

    /// Boxes a list.
    fn into_list(items: Vec<Self>) -> IValue<T>;

    /// The list `value` holds, if it is a list of `Self`.
    fn as_list(value: &IValue<T>) -> Option<&Vec<Self>>;

    /// The list `value` holds (moved out when the value holds the only reference, cloned
    /// otherwise), or `value` back if it is not a list of `Self`.
    fn take_list(value: IValue<T>) -> Result<Vec<Self>, IValue<T>>;

    /// The union of the key sets of the tensors among the elements.
    #[inline(always)]
    fn key_set(items: &[Self]) -> DispatchKeySet
    where
        T: Tensor,
    {
        let _ = items;
        DispatchKeySet::EMPTY
    }

    /// A list argument `&[Self]` as device checks and guards see it: its tensors, if the
    /// elements are tensors.
    #[inline(always)]
    fn device_arg<'b>(list: &'b &[Self]) -> DeviceArg<'b, T>
    where
        T: Tensor,
    {
        let _ = list;
        DeviceArg::Other
    }
}

fn unwrap_or_clone<V: Clone>(shared: Arc<V>) -> V {
    Arc::try_unwrap(shared).unwrap_or_else(|shared| (*shared).clone())
}

/// Implements `ListItem` for element types with an `IValue` variant of their own.
macro_rules! own_variant {
    ($($item:ty => $variant:ident, $rust:expr;)*) => {$(
        impl sealed::Item for $item {}
        impl<T> ListItem<T> for $item {
            fn item_type() -> RustType {
                $rust
            }
            #[inline]
            fn into_list(items: Vec<Self>) -> IValue<T> {
                IValue::$variant(Arc::new(items))
            }
            #[inline]
            fn as_list(value: &IValue<T>) -> Option<&Vec<Self>> {
                match value {
                    IValue::$variant(items) => Some(items),
                    _ => None,
                }
            }
            fn take_list(value: IValue<T>) -> Result<Vec<Self>, IValue<T>> {
                match value {
                    IValue::$variant(items) => Ok(unwrap_or_clone(items)),
                    other => Err(other),
                }
            }
        }
    )*};
}

fn value(v: ValueType) -> RustType {
    RustType::Value(v)
}

own_variant! {
    i64 => IntList, value(ValueType::I64);
    f64 => FloatList, value(ValueType::F64);
    bool => BoolList, value(ValueType::Bool);
    Scalar => ScalarList, value(ValueType::Scalar);
}

impl<T: Tensor> sealed::Item for T {}
impl<T: Tensor> ListItem<T> for T {
    fn item_type() -> RustType {
        RustType::Tensor
    }
    #[inline]
    fn into_list(items: Vec<T>) -> IValue<T> {
        IValue::TensorList(Arc::new(items))
    }
    #[inline]
    fn as_list(value: &IValue<T>) -> Option<&Vec<T>> {
        match value {
            IValue::TensorList(items) => Some(items),
            _ => None,
        }
    }
    fn take_list(value: IValue<T>) -> Result<Vec<T>, IValue<T>> {
        match value {
            IValue::TensorList(items) => Ok(unwrap_or_clone(items)),
            other => Err(other),
        }
    }
    #[inline(always)]
    fn key_set(items: &[T]) -> DispatchKeySet {
        (items.iter()).fold(DispatchKeySet::EMPTY, |ks, t| ks | t.key_set())
    }
    #[inline(always)]
    fn device_arg<'b>(list: &'b &[T]) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(list)
    }
}

impl<T: Tensor> sealed::Item for Option<T> {}
impl<T: Tensor> ListItem<T> for Option<T> {
    fn item_type() -> RustType {
        RustType::Option(Box::new(RustType::Tensor))
    }
    #[inline]
    fn into_list(items: Vec<Option<T>>) -> IValue<T> {
        IValue::OptionalTensorList(Arc::new(items))
    }
    #[inline]
    fn as_list(value: &IValue<T>) -> Option<&Vec<Option<T>>> {
        match value {
            IValue::OptionalTensorList(items) => Some(items),
            _ => None,
        }
    }
    fn take_list(value: IValue<T>) -> Result<Vec<Option<T>>, IValue<T>> {
        match value {
            IValue::OptionalTensorList(items) => Ok(unwrap_or_clone(items)),
            other => Err(other),
        }
    }
    #[inline(always)]
    fn key_set(items: &[Option<T>]) -> DispatchKeySet {
        (items.iter().flatten()).fold(DispatchKeySet::EMPTY, |ks, t| ks | t.key_set())
    }
    #[inline(always)]
    fn device_arg<'b>(list: &'b &[Option<T>]) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(list)
    }
}

/// Implements `ListItem` for the element types held in a `ValueList`, with the list's
/// schema spelling.
macro_rules! in_value_list {
    ($($item:ty => $variant:ident, $rust:expr, $kind:literal;)*) => {
        $(
            impl sealed::Item for $item {}
            impl<T> ListItem<T> for $item {
                fn item_type() -> RustType {
                    $rust
                }
                fn into_list(items: Vec<Self>) -> IValue<T> {
                    IValue::List(Arc::new(ValueList::$variant(items)))
                }
                fn as_list(value: &IValue<T>) -> Option<&Vec<Self>> {
                    match value {
                        IValue::List(list) => match list.as_ref() {
                            ValueList::$variant(items) => Some(items),
                            _ => None,
                        },
                        _ => None,
                    }
                }
                fn take_list(value: IValue<T>) -> Result<Vec<Self>, IValue<T>> {
                    match value {
                        IValue::List(list) if matches!(*list, ValueList::$variant(_)) => {
                            match unwrap_or_clone(list) {
                                ValueList::$variant(items) => Ok(items),
                                other => Err(IValue::List(Arc::new(other))),
                            }
                        }
                        other => Err(other),
                    }
                }
            }
        )*

        impl ValueList {
            /// The schema spelling of the list's type: `str[]`, `int?[]`.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(ValueList::$variant(_) => $kind,)*
                    ValueList::Dimname(_) => "Dimname[]",
                }
            }

            /// The number of elements.
            pub fn len(&self) -> usize {
                match self {
                    $(ValueList::$variant(items) => items.len(),)*
                    ValueList::Dimname(items) => items.len(),
                }
            }

            /// Whether the list is empty.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
        }
    };
}

fn optional(v: ValueType) -> RustType {
    RustType::Option(Box::new(RustType::Value(v)))
}

in_value_list! {
    String => Str, value(ValueType::String), "str[]";
    i8 => DeviceIndex, value(ValueType::I8), "DeviceIndex[]";
    ScalarType => ScalarType, value(ValueType::ScalarType), "ScalarType[]";
    Layout => Layout, value(ValueType::Layout), "Layout[]";
    Device => Device, value(ValueType::Device), "Device[]";
    MemoryFormat => MemoryFormat, value(ValueType::MemoryFormat), "MemoryFormat[]";
    QScheme => QScheme, value(ValueType::QScheme), "QScheme[]";
    Generator => Generator, value(ValueType::Generator), "Generator[]";
    Storage => Storage, value(ValueType::Storage), "Storage[]";
    Stream => Stream, value(ValueType::Stream), "Stream[]";
    Option<i64> => OptionalInt, optional(ValueType::I64), "int?[]";
    Option<f64> => OptionalFloat, optional(ValueType::F64), "float?[]";
    Option<bool> => OptionalBool, optional(ValueType::Bool), "bool?[]";
    Option<i8> => OptionalDeviceIndex, optional(ValueType::I8), "DeviceIndex?[]";
    Option<Scalar> => OptionalScalar, optional(ValueType::Scalar), "Scalar?[]";
    Option<String> => OptionalStr, optional(ValueType::String), "str?[]";
    Option<ScalarType> => OptionalScalarType, optional(ValueType::ScalarType), "ScalarType?[]";
    Option<Layout> => OptionalLayout, optional(ValueType::Layout), "Layout?[]";
    Option<Device> => OptionalDevice, optional(ValueType::Device), "Device?[]";
    Option<MemoryFormat> => OptionalMemoryFormat, optional(ValueType::MemoryFormat), "MemoryFormat?[]";
    Option<QScheme> => OptionalQScheme, optional(ValueType::QScheme), "QScheme?[]";
    Option<Generator> => OptionalGenerator, optional(ValueType::Generator), "Generator?[]";
    Option<Storage> => OptionalStorage, optional(ValueType::Storage), "Storage?[]";
    Option<Stream> => OptionalStream, optional(ValueType::Stream), "Stream?[]";
}

/// One element in schema syntax, as the tracer prints constants.
trait ItemText {
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

macro_rules! item_text {
    ($($ty:ty => |$v:ident, $f:ident| $body:expr;)*) => {$(
        impl ItemText for $ty {
            fn write(&self, $f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let $v = self;
                $body
            }
        }
    )*};
}

item_text! {
    String => |v, f| write!(f, "{v:?}");
    i8 => |v, f| write!(f, "{v}");
    i64 => |v, f| write!(f, "{v}");
    f64 => |v, f| write!(f, "{v:?}");
    bool => |v, f| write!(f, "{}", Scalar::Bool(*v));
    Scalar => |v, f| write!(f, "{v}");
    ScalarType => |v, f| write!(f, "{v}");
    Layout => |v, f| write!(f, "{v}");
    Device => |v, f| write!(f, "\"{v}\"");
    MemoryFormat => |v, f| write!(f, "{v}");
    QScheme => |v, f| write!(f, "{v}");
    Dimname => |v, f| write!(f, "{:?}", v.as_str());
    Generator => |_v, f| f.write_str("Generator");
    Storage => |_v, f| f.write_str("Storage");
    Stream => |v, f| write!(f, "Stream({}, {})", v.device, v.id);
}

impl<V: ItemText> ItemText for Option<V> {
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Some(v) => v.write(f),
            None => f.write_str("None"),
        }
    }
}

fn write_items<V: ItemText>(items: &[V], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    f.write_str("[")?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        item.write(f)?;
    }
    f.write_str("]")
}

impl fmt::Display for ValueList {
    /// The list in schema syntax: `["a", "b"]`, `[2, None]`, `[Long, Half]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueList::Str(v) => write_items(v, f),
            ValueList::DeviceIndex(v) => write_items(v, f),
            ValueList::ScalarType(v) => write_items(v, f),
            ValueList::Layout(v) => write_items(v, f),
            ValueList::Device(v) => write_items(v, f),
            ValueList::MemoryFormat(v) => write_items(v, f),
            ValueList::QScheme(v) => write_items(v, f),
            ValueList::Generator(v) => write_items(v, f),
            ValueList::Storage(v) => write_items(v, f),
            ValueList::Stream(v) => write_items(v, f),
            ValueList::Dimname(v) => write_items(v, f),
            ValueList::OptionalInt(v) => write_items(v, f),
            ValueList::OptionalFloat(v) => write_items(v, f),
            ValueList::OptionalBool(v) => write_items(v, f),
            ValueList::OptionalDeviceIndex(v) => write_items(v, f),
            ValueList::OptionalScalar(v) => write_items(v, f),
            ValueList::OptionalStr(v) => write_items(v, f),
            ValueList::OptionalScalarType(v) => write_items(v, f),
            ValueList::OptionalLayout(v) => write_items(v, f),
            ValueList::OptionalDevice(v) => write_items(v, f),
            ValueList::OptionalMemoryFormat(v) => write_items(v, f),
            ValueList::OptionalQScheme(v) => write_items(v, f),
            ValueList::OptionalGenerator(v) => write_items(v, f),
            ValueList::OptionalStorage(v) => write_items(v, f),
            ValueList::OptionalStream(v) => write_items(v, f),
        }
    }
}

impl<T> From<Vec<Dimname>> for IValue<T> {
    fn from(names: Vec<Dimname>) -> IValue<T> {
        IValue::List(Arc::new(ValueList::Dimname(names)))
    }
}
