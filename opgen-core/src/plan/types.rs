//! The Rust type every schema type maps to (the counterpart of torchgen's C++ types, SCHEMA.md
//! §4.1). `T` stands for the user's tensor type.
//!
//! | schema type | read | written (`Tensor(a!)`) |
//! |---|---|---|
//! | `Tensor` | `&T` | `&mut T` |
//! | `Tensor?` | `Option<&T>` | `Option<&mut T>` |
//! | `Tensor[]` | `&[T]` | `&mut [T]` |
//! | `Tensor?[]` | `&[Option<T>]` | — |
//! | `int`, `SymInt` | `i64` | |
//! | `int[]`, `int[N]`, `SymInt[]`, `SymInt[N]`, `DimVector` | `&[i64]` | |
//! | `float` / `float[]` | `f64` / `&[f64]` | |
//! | `bool` / `bool[N]` | `bool` / `[bool; N]` | |
//! | `SymBool` | `bool` | |
//! | `str` | `&str` | |
//! | `Scalar` / `Scalar[]` | `Scalar` / `&[Scalar]` | |
//! | `ScalarType`, `Layout`, `Device`, `MemoryFormat`, `QScheme`, `Generator`, `Storage`, `Stream` | the opgen-core type of that name, by value | |
//! | `DeviceIndex` | `i8` | |
//! | `X?` for any of the value types above | `Option<X>` (`Option<&[i64]>`, `Option<&str>`, …) | |
//!
//! Returns are owned: `Tensor` → `T` (a written alias returns a clone of the argument's
//! handle), `Tensor[]` → `Vec<T>`, `Tensor?` → `Option<T>`, value types by value, several
//! returns → a tuple, `()` → `()`.

use std::fmt;

use crate::schema::{ArgType, BaseType};

/// A Rust type in the dispatcher calling convention.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RustType {
    /// The user's tensor type `T`, by value (returns and list elements).
    Tensor,
    /// A value type named in opgen-core or a primitive: `i64`, `f64`, `bool`, `Scalar`, ...
    Value(ValueType),
    /// `&str`.
    Str,
    /// `&X`.
    Ref(Box<RustType>),
    /// `&mut X`.
    Mut(Box<RustType>),
    /// `[X]` (appears behind `Ref`/`Mut`).
    Slice(Box<RustType>),
    /// `[X; N]`.
    Array(Box<RustType>, u32),
    /// `Option<X>`.
    Option(Box<RustType>),
    /// `Vec<X>`.
    Vec(Box<RustType>),
    /// `(A, B, ...)`; empty for `()`.
    Tuple(Vec<RustType>),
}

/// Value types passed by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ValueType {
    I64,
    F64,
    Bool,
    I8,
    Scalar,
    ScalarType,
    Layout,
    Device,
    MemoryFormat,
    QScheme,
    Generator,
    Storage,
    Stream,
    TensorOptions,
    DispatchKeySet,
}

impl ValueType {
    /// The Rust spelling: `i64`, `Scalar`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            ValueType::I64 => "i64",
            ValueType::F64 => "f64",
            ValueType::Bool => "bool",
            ValueType::I8 => "i8",
            ValueType::Scalar => "Scalar",
            ValueType::ScalarType => "ScalarType",
            ValueType::Layout => "Layout",
            ValueType::Device => "Device",
            ValueType::MemoryFormat => "MemoryFormat",
            ValueType::QScheme => "QScheme",
            ValueType::Generator => "Generator",
            ValueType::Storage => "Storage",
            ValueType::Stream => "Stream",
            ValueType::TensorOptions => "TensorOptions",
            ValueType::DispatchKeySet => "DispatchKeySet",
        }
    }

    /// Whether the type is a Rust primitive (spelled without a path).
    pub fn is_primitive(self) -> bool {
        matches!(
            self,
            ValueType::I64 | ValueType::F64 | ValueType::Bool | ValueType::I8
        )
    }
}

fn value_type(b: BaseType) -> Option<ValueType> {
    Some(match b {
        BaseType::Int | BaseType::SymInt => ValueType::I64,
        BaseType::Float => ValueType::F64,
        BaseType::Bool | BaseType::SymBool => ValueType::Bool,
        BaseType::DeviceIndex => ValueType::I8,
        BaseType::Scalar => ValueType::Scalar,
        BaseType::ScalarType => ValueType::ScalarType,
        BaseType::Layout => ValueType::Layout,
        BaseType::Device => ValueType::Device,
        BaseType::MemoryFormat => ValueType::MemoryFormat,
        BaseType::QScheme => ValueType::QScheme,
        BaseType::Generator => ValueType::Generator,
        BaseType::Storage => ValueType::Storage,
        BaseType::Stream => ValueType::Stream,
        BaseType::Tensor | BaseType::Str | BaseType::DimVector | BaseType::GraphModule => {
            return None;
        }
    })
}

fn boxed(t: RustType) -> Box<RustType> {
    Box::new(t)
}

/// The parameter type for an argument of schema type `ty` (written when `is_write`).
/// `None` for the forms that have no Rust mapping (R85, R89, nested optionals and lists);
/// `validate::check_rust_mapping` reports those.
///
/// ```
/// use opgen_core::plan::argument_type;
/// use opgen_core::schema::parse_type;
/// let t = argument_type(&parse_type("int[1]?").unwrap(), false).unwrap();
/// assert_eq!(t.to_string(), "Option<&[i64]>");
/// let t = argument_type(&parse_type("Tensor").unwrap(), true).unwrap();
/// assert_eq!(t.to_string(), "&mut T");
/// ```
pub fn argument_type(ty: &ArgType, is_write: bool) -> Option<RustType> {
    let by_ref = |inner: RustType| {
        if is_write {
            RustType::Mut(boxed(inner))
        } else {
            RustType::Ref(boxed(inner))
        }
    };
    Some(match ty {
        ArgType::Base(BaseType::Tensor) => by_ref(RustType::Tensor),
        ArgType::Base(BaseType::Str) => RustType::Str,
        ArgType::Base(BaseType::DimVector) => RustType::Ref(boxed(RustType::Slice(boxed(
            RustType::Value(ValueType::I64),
        )))),
        ArgType::Base(b) => RustType::Value(value_type(*b)?),
        ArgType::Optional(inner) => {
            if inner.is_optional() {
                return None;
            }
            RustType::Option(boxed(argument_type(inner, is_write)?))
        }
        ArgType::List { elem, size } => match elem.as_ref() {
            ArgType::Base(BaseType::Tensor) => by_ref(RustType::Slice(boxed(RustType::Tensor))),
            ArgType::Optional(t) if t.is_plain_tensor() && !is_write => RustType::Ref(boxed(
                RustType::Slice(boxed(RustType::Option(boxed(RustType::Tensor)))),
            )),
            ArgType::Base(BaseType::Bool) => {
                RustType::Array(boxed(RustType::Value(ValueType::Bool)), (*size)?)
            }
            ArgType::Base(b) => RustType::Ref(boxed(RustType::Slice(boxed(RustType::Value(
                value_type(*b)?,
            ))))),
            _ => return None,
        },
        ArgType::CustomClass(_) => return None,
    })
}

/// The owned Rust type of one return of schema type `ty`. `None` for return types that have
/// no mapping (R87–R89).
///
/// ```
/// use opgen_core::plan::return_type;
/// use opgen_core::schema::parse_type;
/// assert_eq!(return_type(&parse_type("Tensor[]").unwrap()).unwrap().to_string(), "Vec<T>");
/// ```
pub fn return_type(ty: &ArgType) -> Option<RustType> {
    Some(match ty {
        ArgType::Base(BaseType::Tensor) => RustType::Tensor,
        ArgType::Base(BaseType::Str) => return None,
        ArgType::Base(b) => RustType::Value(value_type(*b)?),
        ArgType::Optional(inner) => match inner.as_ref() {
            ArgType::Base(BaseType::Tensor) => RustType::Option(boxed(RustType::Tensor)),
            ArgType::Base(BaseType::Scalar) => return None,
            ArgType::Base(b) => RustType::Option(boxed(RustType::Value(value_type(*b)?))),
            _ => return None,
        },
        ArgType::List { elem, size: None } => match elem.as_ref() {
            ArgType::Base(BaseType::Tensor) => RustType::Vec(boxed(RustType::Tensor)),
            ArgType::Base(b) => RustType::Vec(boxed(RustType::Value(value_type(*b)?))),
            _ => return None,
        },
        _ => return None,
    })
}

impl RustType {
    /// The type as written, with `tensor` as the name of the tensor type (`Display` writes
    /// `T`).
    ///
    /// ```
    /// use opgen_core::plan::argument_type;
    /// use opgen_core::schema::parse_type;
    /// let t = argument_type(&parse_type("Tensor?[]").unwrap(), false).unwrap();
    /// assert_eq!(t.display_with("MyTensor").to_string(), "&[Option<MyTensor>]");
    /// ```
    pub fn display_with<'a>(&'a self, tensor: &'a str) -> impl fmt::Display + 'a {
        struct With<'a>(&'a RustType, &'a str);
        impl fmt::Display for With<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.write(f, self.1)
            }
        }
        With(self, tensor)
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, tensor: &str) -> fmt::Result {
        match self {
            RustType::Tensor => f.write_str(tensor),
            RustType::Value(v) => f.write_str(v.as_str()),
            RustType::Str => f.write_str("&str"),
            RustType::Ref(t) => write!(f, "&{}", t.display_with(tensor)),
            RustType::Mut(t) => write!(f, "&mut {}", t.display_with(tensor)),
            RustType::Slice(t) => write!(f, "[{}]", t.display_with(tensor)),
            RustType::Array(t, n) => write!(f, "[{}; {n}]", t.display_with(tensor)),
            RustType::Option(t) => write!(f, "Option<{}>", t.display_with(tensor)),
            RustType::Vec(t) => write!(f, "Vec<{}>", t.display_with(tensor)),
            RustType::Tuple(ts) => {
                f.write_str("(")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", t.display_with(tensor))?;
                }
                if ts.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Display for RustType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, "T")
    }
}
