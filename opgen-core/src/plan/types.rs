//! The Rust type every schema type maps to (the counterpart of torchgen's C++ types, SCHEMA.md
//! §4.1). `T` stands for the user's tensor type; `X` for a value type, and `E` for a list
//! element (see below).
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
//! | `bool`, `SymBool` / `bool[N]` | `bool` / `[bool; N]` | |
//! | `SymBool[]` | `&[bool]` | |
//! | `str` / `str[]` | `&str` / `&[String]` | |
//! | `Scalar` / `Scalar[]` | `Scalar` / `&[Scalar]` | |
//! | `ScalarType`, `Layout`, `Device`, `MemoryFormat`, `QScheme`, `Generator`, `Storage`, `Stream` | the opgen-core type of that name, by value | |
//! | `DeviceIndex` | `i8` | |
//! | `X[]` for the value types above | `&[X]` | |
//! | `X?[]` for the value types above and `str` | `&[Option<X>]` (`&[Option<i64>]`, `&[Option<String>]`, …) | |
//! | `X?` for any of the above | `Option<X>` (`Option<&[i64]>`, `Option<&str>`, `Option<[bool; 3]>`, …) | |
//!
//! Returns are owned: `Tensor` → `T` (a written alias returns a clone of the argument's
//! handle), `Tensor?` → `Option<T>`, value types by value, `str` → `String`, `DimVector` →
//! `Vec<i64>`, `bool[N]` → `[bool; N]`, an unsized list `E[]` → `Vec<E>` with the element
//! types of lists above (`Tensor[]` → `Vec<T>`, `Tensor?[]` → `Vec<Option<T>>`, `str[]` →
//! `Vec<String>`, `int?[]` → `Vec<Option<i64>>`), `X?` → `Option<X>` for a value type or
//! `bool[N]` (not `Scalar?`: R87), several returns → a tuple, `()` → `()`.
//!
//! Nested optionals (`int??`) and nested lists (`int[][]`) have no mapping here, nor do
//! `GraphModule` and custom classes (R89); operators with such types take boxed kernels.

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
    /// An owned `String`: a `str` return, an element of `str[]` and `str?[]`.
    String,
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
            ValueType::String => "String",
        }
    }

    /// The path of a type that std defines (`std::string::String`); `None` for primitives
    /// and for the types opgen-core defines, which generated code spells from its runtime
    /// path.
    ///
    /// ```
    /// use opgen_core::plan::ValueType;
    /// assert_eq!(ValueType::String.std_path(), Some(&["std", "string", "String"][..]));
    /// assert_eq!(ValueType::Scalar.std_path(), None);
    /// ```
    pub fn std_path(self) -> Option<&'static [&'static str]> {
        match self {
            ValueType::String => Some(&["std", "string", "String"]),
            _ => None,
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
/// let t = argument_type(&parse_type("str?[]").unwrap(), false).unwrap();
/// assert_eq!(t.to_string(), "&[Option<String>]");
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
        ArgType::Base(BaseType::DimVector) => slice_of(RustType::Value(ValueType::I64)),
        ArgType::Base(b) => RustType::Value(value_type(*b)?),
        ArgType::Optional(inner) => {
            if inner.is_optional() {
                return None;
            }
            RustType::Option(boxed(argument_type(inner, is_write)?))
        }
        ArgType::List { elem, size } => match elem.as_ref() {
            ArgType::Base(BaseType::Tensor) => by_ref(RustType::Slice(boxed(RustType::Tensor))),
            ArgType::Base(BaseType::Bool) => {
                RustType::Array(boxed(RustType::Value(ValueType::Bool)), (*size)?)
            }
            // No written list other than `Tensor(a!)[]` parses; R18 rejects `Tensor(a!)?[]`.
            elem if !is_write => slice_of(list_item(elem)?),
            _ => return None,
        },
        ArgType::CustomClass(_) => return None,
    })
}

/// `&[X]`.
fn slice_of(item: RustType) -> RustType {
    RustType::Ref(boxed(RustType::Slice(boxed(item))))
}

/// The Rust type of an element of an unsized list other than `bool[]` (an element of the
/// `&[E]` parameter and of the `Vec<E>` return): `T` for `Tensor`, the value type, `String`
/// for `str`, and `Option<E>` for an optional element (`Tensor?`, `int?`, `str?`).
fn list_item(elem: &ArgType) -> Option<RustType> {
    Some(match elem {
        ArgType::Base(BaseType::Tensor) => RustType::Tensor,
        ArgType::Base(BaseType::Str) => RustType::Value(ValueType::String),
        ArgType::Base(b) => RustType::Value(value_type(*b)?),
        ArgType::Optional(inner) if matches!(inner.as_ref(), ArgType::Base(_)) => {
            RustType::Option(boxed(list_item(inner)?))
        }
        _ => return None,
    })
}

/// The owned Rust type of one return of schema type `ty`. `None` for return types that have
/// no mapping (R87–R89, nested optionals and lists).
///
/// ```
/// use opgen_core::plan::return_type;
/// use opgen_core::schema::parse_type;
/// assert_eq!(return_type(&parse_type("Tensor[]").unwrap()).unwrap().to_string(), "Vec<T>");
/// assert_eq!(return_type(&parse_type("str?").unwrap()).unwrap().to_string(), "Option<String>");
/// assert_eq!(return_type(&parse_type("int?[]").unwrap()).unwrap().to_string(), "Vec<Option<i64>>");
/// assert_eq!(return_type(&parse_type("Scalar?").unwrap()), None); // R87
/// ```
pub fn return_type(ty: &ArgType) -> Option<RustType> {
    Some(match ty {
        ArgType::Base(BaseType::Tensor) => RustType::Tensor,
        ArgType::Base(BaseType::Str) => RustType::Value(ValueType::String),
        ArgType::Base(BaseType::DimVector) => RustType::Vec(boxed(RustType::Value(ValueType::I64))),
        ArgType::Base(b) => RustType::Value(value_type(*b)?),
        // torchgen: an optional return is `Tensor?` or an optional value type (R87), and
        // `Scalar` is not a value type there.
        ArgType::Optional(inner) => match inner.as_ref() {
            ArgType::Base(BaseType::Scalar) => return None,
            ArgType::Base(_) => RustType::Option(boxed(return_type(inner)?)),
            ArgType::List {
                elem,
                size: Some(_),
            } if elem.as_ref() == &ArgType::Base(BaseType::Bool) => {
                RustType::Option(boxed(return_type(inner)?))
            }
            _ => return None,
        },
        ArgType::List { elem, size: None } => match elem.as_ref() {
            ArgType::Optional(inner) if inner.as_ref() == &ArgType::Base(BaseType::Scalar) => {
                return None;
            }
            elem => RustType::Vec(boxed(list_item(elem)?)),
        },
        ArgType::List {
            elem,
            size: Some(n),
        } if elem.as_ref() == &ArgType::Base(BaseType::Bool) => {
            RustType::Array(boxed(RustType::Value(ValueType::Bool)), *n)
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Schema, parse_schema, parse_type};
    use crate::validate::check_rust_mapping;

    fn arg(ty: &str) -> Option<String> {
        argument_type(&parse_type(ty).unwrap(), false).map(|t| t.to_string())
    }

    fn ret(ty: &str) -> Option<String> {
        return_type(&parse_type(ty).unwrap()).map(|t| t.to_string())
    }

    #[test]
    fn lists_and_optionals_of_every_element_type() {
        for (ty, rust) in [
            ("str[]", "&[String]"),
            ("str?[]", "&[Option<String>]"),
            ("str[]?", "Option<&[String]>"),
            ("int?[]", "&[Option<i64>]"),
            ("SymInt?[]", "&[Option<i64>]"),
            ("float?[]", "&[Option<f64>]"),
            ("bool?[]", "&[Option<bool>]"),
            ("Scalar?[]", "&[Option<Scalar>]"),
            ("Scalar[]?", "Option<&[Scalar]>"),
            ("SymBool[]", "&[bool]"),
            ("DeviceIndex[]", "&[i8]"),
            ("ScalarType[]", "&[ScalarType]"),
            ("Layout?[]", "&[Option<Layout>]"),
            ("Device[]", "&[Device]"),
            ("Generator?[]", "&[Option<Generator>]"),
            ("Storage[]", "&[Storage]"),
            ("Stream[]", "&[Stream]"),
            ("bool[3]?", "Option<[bool; 3]>"),
            ("Tensor[]?", "Option<&[T]>"),
            ("Tensor?[]?", "Option<&[Option<T>]>"),
            ("float[2]", "&[f64]"),
            ("DimVector?", "Option<&[i64]>"),
        ] {
            assert_eq!(arg(ty).as_deref(), Some(rust), "{ty}");
        }
        let written = argument_type(&parse_type("Tensor[]?").unwrap(), true);
        assert_eq!(written.unwrap().to_string(), "Option<&mut [T]>");
        for ty in [
            "int?[][]",
            "str[][]",
            "DimVector[]",
            "Tensor??",
            "GraphModule[]",
        ] {
            assert_eq!(arg(ty), None, "{ty}");
        }
    }

    #[test]
    fn every_return_form_torchgen_accepts() {
        for (ty, rust) in [
            ("str", "String"),
            ("str?", "Option<String>"),
            ("str[]", "Vec<String>"),
            ("str?[]", "Vec<Option<String>>"),
            ("int?", "Option<i64>"),
            ("float?", "Option<f64>"),
            ("bool?", "Option<bool>"),
            ("ScalarType?", "Option<ScalarType>"),
            ("DeviceIndex", "i8"),
            ("DeviceIndex?", "Option<i8>"),
            ("int[]", "Vec<i64>"),
            ("SymInt[]", "Vec<i64>"),
            ("float[]", "Vec<f64>"),
            ("bool[]", "Vec<bool>"),
            ("bool[3]", "[bool; 3]"),
            ("bool[3]?", "Option<[bool; 3]>"),
            ("Scalar[]", "Vec<Scalar>"),
            ("Tensor?[]", "Vec<Option<T>>"),
            ("int?[]", "Vec<Option<i64>>"),
            ("Layout[]", "Vec<Layout>"),
            ("Generator?[]", "Vec<Option<Generator>>"),
            ("Storage", "Storage"),
            ("Storage?", "Option<Storage>"),
            ("Stream", "Stream"),
            ("Generator", "Generator"),
            ("Device", "Device"),
            ("Layout", "Layout"),
            ("MemoryFormat", "MemoryFormat"),
            ("DimVector", "Vec<i64>"),
            ("DimVector?", "Option<Vec<i64>>"),
        ] {
            assert_eq!(ret(ty).as_deref(), Some(rust), "{ty}");
        }
        // R87: fixed-size lists other than `bool[N]`, optionals of lists and of `Scalar`.
        for ty in [
            "int[2]",
            "Scalar?",
            "Scalar?[]",
            "Tensor[]?",
            "int[]?",
            "Tensor??",
        ] {
            assert_eq!(ret(ty), None, "{ty}");
        }
    }

    /// Every type form up to two levels deep over every base type: whatever torchgen's
    /// rules (`validate::check_rust_mapping`) accept as an argument or a return, the plan
    /// maps, except the forms documented as unmapped (a list of lists, `T??`).
    #[test]
    fn what_validation_accepts_the_plan_maps() {
        let forms = [
            "{}", "{}?", "{}[]", "{}[2]", "{}[]?", "{}[2]?", "{}?[]", "{}??",
        ];
        fn listish(ty: &ArgType) -> bool {
            match ty {
                ArgType::List { .. } | ArgType::Base(BaseType::DimVector) => true,
                ArgType::Optional(inner) => listish(inner),
                _ => false,
            }
        }
        fn nested(ty: &ArgType) -> bool {
            match ty {
                ArgType::Optional(inner) => inner.is_optional() || nested(inner),
                ArgType::List { elem, .. } => listish(elem) || nested(elem),
                _ => false,
            }
        }
        let mut checked = 0;
        for base in BaseType::ALL {
            for form in forms {
                let text = form.replace("{}", base.as_str());
                let ty = parse_type(&text).unwrap();
                let accepted = |schema: Schema| check_rust_mapping(&schema, false).is_empty();
                let as_arg = parse_schema(&format!("f(Tensor self, {text} x) -> ()")).unwrap();
                if accepted(as_arg) && !nested(&ty) {
                    assert!(argument_type(&ty, false).is_some(), "argument `{text}`");
                    checked += 1;
                }
                let as_ret = parse_schema(&format!("f(Tensor self) -> {text}")).unwrap();
                if accepted(as_ret) && !nested(&ty) {
                    assert!(return_type(&ty).is_some(), "return `{text}`");
                    checked += 1;
                }
            }
        }
        assert!(checked > 150, "{checked}");
    }
}
