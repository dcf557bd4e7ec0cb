//! The translator's types: what a formula's sub-expression is, enough to pick C++
//! overloads and to convert values to the parameters of the Rust API.

use crate::native::derivatives::SavedType;
use crate::plan::{RustType, ValueType};
use crate::schema::{ArgType, BaseType};

/// The type of a translated expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// A tensor (`T`, or a `&T` variable).
    Tensor,
    /// A tensor that may be undefined (`Option<T>`).
    OptTensor,
    /// `Vec<T>` or `&[T]`.
    TensorList,
    /// `Vec<Option<T>>` (also `grads`).
    OptTensorList,
    /// `Scalar`.
    Scalar,
    /// `Option<Scalar>`.
    OptScalar,
    /// `Vec<Scalar>`.
    ScalarList,
    /// `i64` (also `SymInt`).
    Int,
    /// `Option<i64>`.
    OptInt,
    /// `f64`.
    Float,
    /// `Option<f64>`.
    OptFloat,
    /// `bool`.
    Bool,
    /// `Option<bool>`.
    OptBool,
    /// `Vec<i64>` or `&[i64]`.
    IntList,
    /// `Option<Vec<i64>>` or `Option<&[i64]>`.
    OptIntList,
    /// `Vec<Vec<i64>>`.
    IntListList,
    /// `Vec<f64>`.
    FloatList,
    /// `[bool; N]`, `grad_input_mask`.
    BoolList,
    /// A dtype.
    ScalarType,
    /// An optional dtype.
    OptScalarType,
    /// `Vec<ScalarType>`.
    ScalarTypeList,
    /// A layout.
    Layout,
    /// An optional layout.
    OptLayout,
    /// A device.
    Device,
    /// An optional device.
    OptDevice,
    /// A memory format.
    MemoryFormat,
    /// An optional memory format.
    OptMemoryFormat,
    /// `TensorOptions`.
    Options,
    /// A string.
    Str,
    /// An optional string (`str?`).
    OptStr,
    /// A random generator.
    Generator,
    /// `TypeAndSize`.
    TypeAndSize,
    /// `TensorGeometry`.
    Geometry,
    /// A tuple of returns.
    Tuple(Vec<Ty>),
    /// The untyped `None` (`std::nullopt`, `Tensor()`).
    None,
    /// `{}`: an empty initializer list (an empty list, or an optional's `nullopt`).
    EmptyInit,
    /// A value the translator cannot type.
    Unknown,
}

impl Ty {
    /// The type of a schema type.
    pub fn of_arg(t: &ArgType) -> Ty {
        match t {
            ArgType::Base(b) => base(*b),
            ArgType::Optional(inner) => match &**inner {
                ArgType::Base(b) => base(*b).optional(),
                ArgType::List { elem, .. }
                    if matches!(&**elem, ArgType::Base(BaseType::Int | BaseType::SymInt)) =>
                {
                    Ty::OptIntList
                }
                _ => Ty::Unknown,
            },
            ArgType::List { elem, .. } => match &**elem {
                ArgType::Base(BaseType::Tensor) => Ty::TensorList,
                ArgType::Optional(_) => Ty::OptTensorList,
                ArgType::Base(BaseType::Int | BaseType::SymInt) => Ty::IntList,
                ArgType::Base(BaseType::Float) => Ty::FloatList,
                ArgType::Base(BaseType::Bool) => Ty::BoolList,
                ArgType::Base(BaseType::Scalar) => Ty::ScalarList,
                _ => Ty::Unknown,
            },
            ArgType::CustomClass(_) => Ty::Unknown,
        }
    }

    /// The type of a saved value.
    pub fn of_saved(t: &SavedType) -> Ty {
        match t {
            SavedType::Argument(a) | SavedType::Return(a) => Ty::of_arg(a),
            SavedType::Options | SavedType::TensorOptions => Ty::Options,
            SavedType::SymIntArrayRef => Ty::IntList,
            SavedType::OptionalSymIntArrayRef => Ty::OptIntList,
            SavedType::SymInt | SavedType::Int => Ty::Int,
            SavedType::TypeAndSize => Ty::TypeAndSize,
            SavedType::ArgsSizes | SavedType::ArgsSizesSymInt => Ty::IntListList,
            SavedType::ArgsScalarTypes => Ty::ScalarTypeList,
            SavedType::TensorGeometry => Ty::Geometry,
            SavedType::ScalarType => Ty::ScalarType,
            SavedType::Layout => Ty::Layout,
            SavedType::Bool => Ty::Bool,
        }
    }

    /// The type of a Rust API parameter or return.
    pub fn of_rust(t: &RustType) -> Ty {
        match t {
            RustType::Tensor => Ty::Tensor,
            RustType::Ref(inner) | RustType::Mut(inner) => Ty::of_rust(inner),
            RustType::Slice(e) | RustType::Vec(e) | RustType::Array(e, _) => match &**e {
                RustType::Tensor => Ty::TensorList,
                RustType::Option(_) => Ty::OptTensorList,
                RustType::Value(ValueType::I64) => Ty::IntList,
                RustType::Value(ValueType::F64) => Ty::FloatList,
                RustType::Value(ValueType::Bool) => Ty::BoolList,
                RustType::Value(ValueType::Scalar) => Ty::ScalarList,
                _ => Ty::Unknown,
            },
            RustType::Option(inner) => Ty::of_rust(inner).optional(),
            RustType::Tuple(items) if items.is_empty() => Ty::Unknown,
            RustType::Tuple(items) => Ty::Tuple(items.iter().map(Ty::of_rust).collect()),
            RustType::Str => Ty::Str,
            RustType::Value(v) => match v {
                ValueType::I64 | ValueType::I8 => Ty::Int,
                ValueType::F64 => Ty::Float,
                ValueType::Bool => Ty::Bool,
                ValueType::Scalar => Ty::Scalar,
                ValueType::ScalarType => Ty::ScalarType,
                ValueType::Layout => Ty::Layout,
                ValueType::Device => Ty::Device,
                ValueType::MemoryFormat => Ty::MemoryFormat,
                ValueType::Generator => Ty::Generator,
                ValueType::TensorOptions => Ty::Options,
                _ => Ty::Unknown,
            },
        }
    }

    /// Whether a value of type `self` can be passed where `param` is expected, and how well
    /// (higher is better; `None`: it cannot). C++'s implicit conversions: a value into an
    /// optional of its type, an undefined tensor for a tensor, numbers into `Scalar` and
    /// wider numbers, an `int64_t` into an `IntArrayRef` of one element.
    pub fn fits(&self, param: &Ty) -> Option<u8> {
        use Ty::*;
        if self == param {
            return Some(3);
        }
        match (self, param) {
            (Unknown, _) => Some(1),
            (None, p) if p.is_optional() => Some(2),
            (EmptyInit, p) if p.is_optional() || p.is_list() => Some(2),
            (s, p) if s.optional() == *p => Some(2),
            (OptTensor, Tensor) | (OptIntList, IntList) => Some(2),
            (Int | Float | Bool, Scalar) | (Int | Float, OptScalar) => Some(2),
            (Int, Float | OptFloat) => Some(2),
            (Int, IntList | OptIntList) => Some(2),
            (Int, Bool) | (Bool, Int) => Some(1),
            (TensorList, OptTensorList) | (OptTensorList, TensorList) => Some(1),
            (Tuple(_), _) | (_, Unknown) => Some(1),
            _ => Option::None,
        }
    }

    /// The optional of this type (`Tensor` → `Tensor?`); itself if it has none or is one.
    pub fn optional(&self) -> Ty {
        match self {
            Ty::Tensor => Ty::OptTensor,
            Ty::Int => Ty::OptInt,
            Ty::IntList => Ty::OptIntList,
            Ty::Scalar => Ty::OptScalar,
            Ty::Float => Ty::OptFloat,
            Ty::Bool => Ty::OptBool,
            Ty::ScalarType => Ty::OptScalarType,
            Ty::Str => Ty::OptStr,
            Ty::Layout => Ty::OptLayout,
            Ty::Device => Ty::OptDevice,
            Ty::MemoryFormat => Ty::OptMemoryFormat,
            other => other.clone(),
        }
    }

    /// The type an optional holds (`Tensor?` → `Tensor`); itself if it is not an optional.
    pub fn unwrapped(&self) -> Ty {
        match self {
            Ty::OptTensor => Ty::Tensor,
            Ty::OptInt => Ty::Int,
            Ty::OptIntList => Ty::IntList,
            Ty::OptScalar => Ty::Scalar,
            Ty::OptFloat => Ty::Float,
            Ty::OptBool => Ty::Bool,
            Ty::OptScalarType => Ty::ScalarType,
            Ty::OptStr => Ty::Str,
            Ty::OptLayout => Ty::Layout,
            Ty::OptDevice => Ty::Device,
            Ty::OptMemoryFormat => Ty::MemoryFormat,
            other => other.clone(),
        }
    }

    /// Whether this is a list.
    pub fn is_list(&self) -> bool {
        matches!(
            self,
            Ty::TensorList
                | Ty::OptTensorList
                | Ty::ScalarList
                | Ty::IntList
                | Ty::OptIntList
                | Ty::IntListList
                | Ty::FloatList
                | Ty::BoolList
                | Ty::ScalarTypeList
        )
    }

    /// Whether this is an optional (`std::nullopt` included).
    pub fn is_optional(&self) -> bool {
        *self == Ty::None || self.unwrapped() != *self
    }
}

fn base(b: BaseType) -> Ty {
    match b {
        BaseType::Tensor => Ty::Tensor,
        BaseType::Scalar => Ty::Scalar,
        BaseType::Int | BaseType::SymInt | BaseType::DeviceIndex => Ty::Int,
        BaseType::Float => Ty::Float,
        BaseType::Bool | BaseType::SymBool => Ty::Bool,
        BaseType::Str => Ty::Str,
        BaseType::ScalarType => Ty::ScalarType,
        BaseType::Layout => Ty::Layout,
        BaseType::Device => Ty::Device,
        BaseType::MemoryFormat => Ty::MemoryFormat,
        BaseType::Generator => Ty::Generator,
        BaseType::DimVector => Ty::IntList,
        _ => Ty::Unknown,
    }
}
