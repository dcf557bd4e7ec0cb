//! The Rust type of each schema argument type, and the conversions to and from `IValue`.
//!
//! [`rust_type_of`] is the mapping table in code: a kernel parameter fits a schema argument
//! exactly when its [`ArgFamily::rust_type`] equals `rust_type_of` the argument, so the
//! check and its error message cannot disagree.

use super::ivalue::{IValue, kind_of};
use super::keyset::DispatchKeySet;
use super::tensor::Tensor;
use super::value::{
    Device, Generator, Layout, MemoryFormat, QScheme, Scalar, ScalarType, Storage, Stream,
};
use crate::schema::{ArgType, BaseType};

pub(crate) mod sealed {
    /// Keeps the argument traits closed: the mapping table is opgen's, not the user's.
    pub trait Sealed {}
}
use sealed::Sealed;

/// A parameter type of kernels and typed calls, with its lifetimes erased: `&'static T`
/// stands for `&'a T`, `i64` for itself. Implemented for the types of the mapping table in
/// the [module documentation](crate::dispatch); it cannot be implemented elsewhere.
pub trait ArgFamily<T: Tensor>: Sealed + 'static {
    /// The parameter type, borrowing for `'a`.
    type Arg<'a>;

    /// The type as written in a signature, with `tensor` as the tensor type's name.
    fn rust_type(tensor: &str) -> String;

    /// The union of the key sets of the tensors the argument holds.
    #[inline(always)]
    fn key_set(_arg: &Self::Arg<'_>) -> DispatchKeySet {
        DispatchKeySet::EMPTY
    }

    /// Boxes the argument (tensors are cloned, which is a reference-count increment).
    fn to_ivalue(arg: Self::Arg<'_>) -> IValue<T>;

    /// Borrows the argument from a boxed value; on a mismatch, the value's kind.
    fn from_ivalue(value: &mut IValue<T>) -> Result<Self::Arg<'_>, &'static str>;
}

/// A Rust type a kernel may take as a parameter, such as `&T`, `Option<&[i64]>` or
/// `Scalar`; see the mapping table in the [module documentation](crate::dispatch).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an operator argument",
    note = "the table in the docs of `opgen_core::dispatch` lists the Rust type each schema type expects"
)]
pub trait KernelArg<T: Tensor>: Sealed {
    /// The type with its lifetimes erased.
    type Family: ArgFamily<T>;
}

/// The Rust type a kernel takes for an argument of schema type `ty` (written: annotated with
/// `!`), with `tensor` as the tensor type's name; `None` for types without a mapping.
///
/// ```
/// use opgen_core::dispatch::rust_type_of;
/// use opgen_core::schema::parse_type;
/// let ty = |s| rust_type_of(&parse_type(s).unwrap(), false, "T").unwrap();
/// assert_eq!(ty("Tensor?[]"), "&[Option<T>]");
/// assert_eq!(ty("SymInt[2]"), "&[i64]");
/// assert_eq!(ty("bool[3]"), "[bool; 3]");
/// assert_eq!(rust_type_of(&parse_type("Tensor").unwrap(), true, "T").unwrap(), "&mut T");
/// ```
pub fn rust_type_of(ty: &ArgType, written: bool, tensor: &str) -> Option<String> {
    let r = if written { "&mut " } else { "&" };
    Some(match ty {
        ArgType::Base(BaseType::Tensor) => format!("{r}{tensor}"),
        ArgType::Base(b) => value_type(*b)?.to_string(),
        ArgType::Optional(inner) => match &**inner {
            ArgType::Base(BaseType::Tensor) => format!("Option<{r}{tensor}>"),
            inner => format!("Option<{}>", rust_type_of(inner, false, tensor)?),
        },
        ArgType::List { elem, size } => match (&**elem, size) {
            (ArgType::Base(BaseType::Tensor), _) => format!("{r}[{tensor}]"),
            (ArgType::Optional(t), _) if **t == ArgType::Base(BaseType::Tensor) => {
                format!("&[Option<{tensor}>]")
            }
            (ArgType::Base(BaseType::Int | BaseType::SymInt), _) => "&[i64]".to_string(),
            (ArgType::Base(BaseType::Float), _) => "&[f64]".to_string(),
            (ArgType::Base(BaseType::Scalar), _) => "&[Scalar]".to_string(),
            (ArgType::Base(BaseType::Bool), Some(n)) => format!("[bool; {n}]"),
            _ => return None,
        },
        ArgType::CustomClass(_) => return None,
    })
}

/// The Rust type of a value base type (by value, in arguments and returns).
pub(crate) fn value_type(base: BaseType) -> Option<&'static str> {
    Some(match base {
        BaseType::Int | BaseType::SymInt => "i64",
        BaseType::Float => "f64",
        BaseType::Bool | BaseType::SymBool => "bool",
        BaseType::Str => "&str",
        BaseType::Scalar => "Scalar",
        BaseType::ScalarType => "ScalarType",
        BaseType::Layout => "Layout",
        BaseType::Device => "Device",
        BaseType::DeviceIndex => "i8",
        BaseType::MemoryFormat => "MemoryFormat",
        BaseType::Generator => "Generator",
        BaseType::Storage => "Storage",
        BaseType::Stream => "Stream",
        BaseType::QScheme => "QScheme",
        BaseType::Tensor | BaseType::DimVector | BaseType::GraphModule => return None,
    })
}

/// Implements the traits for a type by value and for its `Option`.
macro_rules! by_value {
    ($ty:ty, $name:literal, |$v:ident| $to:expr, $($pat:pat => $from:expr),+ $(,)?) => {
        impl Sealed for $ty {}
        impl<T: Tensor> KernelArg<T> for $ty {
            type Family = $ty;
        }
        impl<T: Tensor> ArgFamily<T> for $ty {
            type Arg<'a> = $ty;
            fn rust_type(_: &str) -> String {
                $name.to_string()
            }
            fn to_ivalue($v: $ty) -> IValue<T> {
                $to
            }
            fn from_ivalue(value: &mut IValue<T>) -> Result<$ty, &'static str> {
                match value {
                    $($pat => $from,)+
                    other => Err(kind_of(other)),
                }
            }
        }
        impl Sealed for Option<$ty> {}
        impl<T: Tensor> KernelArg<T> for Option<$ty> {
            type Family = Option<$ty>;
        }
        impl<T: Tensor> ArgFamily<T> for Option<$ty> {
            type Arg<'a> = Option<$ty>;
            fn rust_type(_: &str) -> String {
                concat!("Option<", $name, ">").to_string()
            }
            fn to_ivalue(v: Option<$ty>) -> IValue<T> {
                v.map_or(IValue::None, |$v| $to)
            }
            fn from_ivalue(value: &mut IValue<T>) -> Result<Option<$ty>, &'static str> {
                match value {
                    IValue::None => Ok(None),
                    value => <$ty as ArgFamily<T>>::from_ivalue(value).map(Some),
                }
            }
        }
    };
}

by_value!(i64, "i64", |v| IValue::Int(v), IValue::Int(i) => Ok(*i));
by_value!(f64, "f64", |v| IValue::Float(v), IValue::Float(f) => Ok(*f));
by_value!(bool, "bool", |v| IValue::Bool(v), IValue::Bool(b) => Ok(*b));
by_value!(i8, "i8", |v| IValue::Int(v.into()),
    IValue::Int(i) => i8::try_from(*i).map_err(|_| "int (out of range for i8)"));
by_value!(Scalar, "Scalar", |v| IValue::Scalar(v),
    IValue::Scalar(s) => Ok(*s),
    IValue::Int(i) => Ok(Scalar::Int(*i)),
    IValue::Float(f) => Ok(Scalar::Float(*f)),
    IValue::Bool(b) => Ok(Scalar::Bool(*b)),
    IValue::Complex(c) => Ok(Scalar::Complex(*c)),
);
by_value!(ScalarType, "ScalarType", |v| IValue::ScalarType(v), IValue::ScalarType(x) => Ok(*x));
by_value!(Layout, "Layout", |v| IValue::Layout(v), IValue::Layout(x) => Ok(*x));
by_value!(Device, "Device", |v| IValue::Device(v), IValue::Device(x) => Ok(*x));
by_value!(MemoryFormat, "MemoryFormat", |v| IValue::MemoryFormat(v), IValue::MemoryFormat(x) => Ok(*x));
by_value!(QScheme, "QScheme", |v| IValue::QScheme(v), IValue::QScheme(x) => Ok(*x));
by_value!(Stream, "Stream", |v| IValue::Stream(v), IValue::Stream(x) => Ok(*x));
// The boxed argument is consumed by the call, so it is moved out rather than cloned.
by_value!(Generator, "Generator", |v| IValue::Generator(v),
value @ IValue::Generator(_) => match std::mem::replace(value, IValue::None) {
    IValue::Generator(g) => Ok(g),
    _ => Err("None"),
});
by_value!(Storage, "Storage", |v| IValue::Storage(v),
value @ IValue::Storage(_) => match std::mem::replace(value, IValue::None) {
    IValue::Storage(s) => Ok(s),
    _ => Err("None"),
});

/// Implements the traits for a borrowed type: the kernel's form (with lifetime `$x`), the
/// `'static` form, and the parameter type (with the GAT's lifetime `$a`).
macro_rules! borrowed {
    ($x:lifetime, $a:lifetime; $kernel:ty => $fam:ty, $arg:ty, |$tensor:ident| $name:expr,
     key_set: |$k:ident| $ks:expr, to: |$v:ident| $to:expr, from: $($pat:pat => $from:expr),+ $(,)?) => {
        impl<$x, T: Tensor> KernelArg<T> for $kernel {
            type Family = $fam;
        }
        impl<T: Tensor> ArgFamily<T> for $fam {
            type Arg<$a> = $arg;
            fn rust_type($tensor: &str) -> String {
                $name
            }
            #[inline(always)]
            fn key_set($k: &Self::Arg<'_>) -> DispatchKeySet {
                $ks
            }
            fn to_ivalue($v: Self::Arg<'_>) -> IValue<T> {
                $to
            }
            fn from_ivalue(value: &mut IValue<T>) -> Result<Self::Arg<'_>, &'static str> {
                match value {
                    $($pat => $from,)+
                    other => Err(kind_of(other)),
                }
            }
        }
    };
}

fn keys_of<'t, T: Tensor + 't>(tensors: impl Iterator<Item = &'t T>) -> DispatchKeySet {
    tensors.fold(DispatchKeySet::EMPTY, |ks, t| ks | t.key_set())
}

impl<T: Tensor> Sealed for &T {}
impl<T: Tensor> Sealed for &mut T {}
impl<T: Tensor> Sealed for Option<&T> {}
impl<T: Tensor> Sealed for Option<&mut T> {}
impl<const N: usize> Sealed for [bool; N] {}
impl<T: Tensor> Sealed for &[T] {}
impl<T: Tensor> Sealed for &mut [T] {}
impl<T: Tensor> Sealed for &[Option<T>] {}
impl Sealed for &[i64] {}
impl Sealed for Option<&[i64]> {}
impl Sealed for &[f64] {}
impl Sealed for Option<&[f64]> {}
impl Sealed for &str {}
impl Sealed for Option<&str> {}
impl Sealed for &[Scalar] {}

impl<T: Tensor> KernelArg<T> for &T {
    type Family = &'static T;
}
impl<T: Tensor> ArgFamily<T> for &'static T {
    type Arg<'a> = &'a T;
    fn rust_type(tensor: &str) -> String {
        format!("&{tensor}")
    }
    #[inline(always)]
    fn key_set(arg: &&T) -> DispatchKeySet {
        arg.key_set()
    }
    fn to_ivalue(arg: &T) -> IValue<T> {
        IValue::Tensor(arg.clone())
    }
    #[inline]
    fn from_ivalue(value: &mut IValue<T>) -> Result<&T, &'static str> {
        match value {
            IValue::Tensor(t) => Ok(t),
            other => Err(kind_of(other)),
        }
    }
}

impl<T: Tensor> KernelArg<T> for &mut T {
    type Family = &'static mut T;
}
impl<T: Tensor> ArgFamily<T> for &'static mut T {
    type Arg<'a> = &'a mut T;
    fn rust_type(tensor: &str) -> String {
        format!("&mut {tensor}")
    }
    #[inline(always)]
    fn key_set(arg: &&mut T) -> DispatchKeySet {
        arg.key_set()
    }
    fn to_ivalue(arg: &mut T) -> IValue<T> {
        IValue::Tensor(arg.clone())
    }
    fn from_ivalue(value: &mut IValue<T>) -> Result<&mut T, &'static str> {
        match value {
            IValue::Tensor(t) => Ok(t),
            other => Err(kind_of(other)),
        }
    }
}

impl<T: Tensor> KernelArg<T> for Option<&T> {
    type Family = Option<&'static T>;
}
impl<T: Tensor> ArgFamily<T> for Option<&'static T> {
    type Arg<'a> = Option<&'a T>;
    fn rust_type(tensor: &str) -> String {
        format!("Option<&{tensor}>")
    }
    #[inline(always)]
    fn key_set(arg: &Option<&T>) -> DispatchKeySet {
        arg.map_or(DispatchKeySet::EMPTY, Tensor::key_set)
    }
    fn to_ivalue(arg: Option<&T>) -> IValue<T> {
        arg.map_or(IValue::None, |t| IValue::Tensor(t.clone()))
    }
    fn from_ivalue(value: &mut IValue<T>) -> Result<Option<&T>, &'static str> {
        match value {
            IValue::None => Ok(None),
            IValue::Tensor(t) => Ok(Some(t)),
            other => Err(kind_of(other)),
        }
    }
}

impl<T: Tensor> KernelArg<T> for Option<&mut T> {
    type Family = Option<&'static mut T>;
}
impl<T: Tensor> ArgFamily<T> for Option<&'static mut T> {
    type Arg<'a> = Option<&'a mut T>;
    fn rust_type(tensor: &str) -> String {
        format!("Option<&mut {tensor}>")
    }
    #[inline(always)]
    fn key_set(arg: &Option<&mut T>) -> DispatchKeySet {
        arg.as_ref().map_or(DispatchKeySet::EMPTY, |t| t.key_set())
    }
    fn to_ivalue(arg: Option<&mut T>) -> IValue<T> {
        arg.map_or(IValue::None, |t| IValue::Tensor(t.clone()))
    }
    fn from_ivalue(value: &mut IValue<T>) -> Result<Option<&mut T>, &'static str> {
        match value {
            IValue::None => Ok(None),
            IValue::Tensor(t) => Ok(Some(t)),
            other => Err(kind_of(other)),
        }
    }
}

borrowed!('x, 'a; &'x [T] => &'static [T], &'a [T], |t| format!("&[{t}]"),
    key_set: |a| keys_of(a.iter()), to: |a| IValue::TensorList(a.to_vec()),
    from: IValue::TensorList(v) => Ok(v));
borrowed!('x, 'a; &'x mut [T] => &'static mut [T], &'a mut [T], |t| format!("&mut [{t}]"),
    key_set: |a| keys_of(a.iter()), to: |a| IValue::TensorList(a.to_vec()),
    from: IValue::TensorList(v) => Ok(v));
borrowed!('x, 'a; &'x [Option<T>] => &'static [Option<T>], &'a [Option<T>], |t| format!("&[Option<{t}>]"),
    key_set: |a| keys_of(a.iter().flatten()), to: |a| IValue::OptionalTensorList(a.to_vec()),
    from: IValue::OptionalTensorList(v) => Ok(v));
borrowed!('x, 'a; &'x [i64] => &'static [i64], &'a [i64], |_t| "&[i64]".to_string(),
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| IValue::IntList(a.to_vec()),
    from: IValue::IntList(v) => Ok(v));
borrowed!('x, 'a; Option<&'x [i64]> => Option<&'static [i64]>, Option<&'a [i64]>, |_t| "Option<&[i64]>".to_string(),
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| a.map_or(IValue::None, |a| IValue::IntList(a.to_vec())),
    from: IValue::None => Ok(None), IValue::IntList(v) => Ok(Some(v)));
borrowed!('x, 'a; &'x [f64] => &'static [f64], &'a [f64], |_t| "&[f64]".to_string(),
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| IValue::FloatList(a.to_vec()),
    from: IValue::FloatList(v) => Ok(v));
borrowed!('x, 'a; Option<&'x [f64]> => Option<&'static [f64]>, Option<&'a [f64]>, |_t| "Option<&[f64]>".to_string(),
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| a.map_or(IValue::None, |a| IValue::FloatList(a.to_vec())),
    from: IValue::None => Ok(None), IValue::FloatList(v) => Ok(Some(v)));
borrowed!('x, 'a; &'x str => &'static str, &'a str, |_t| "&str".to_string(),
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| IValue::Str(a.to_string()),
    from: IValue::Str(s) => Ok(s));
borrowed!('x, 'a; Option<&'x str> => Option<&'static str>, Option<&'a str>, |_t| "Option<&str>".to_string(),
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| a.map_or(IValue::None, |a| IValue::Str(a.to_string())),
    from: IValue::None => Ok(None), IValue::Str(s) => Ok(Some(s)));
borrowed!('x, 'a; &'x [Scalar] => &'static [Scalar], &'a [Scalar], |_t| "&[Scalar]".to_string(),
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| IValue::ScalarList(a.to_vec()),
    from: IValue::ScalarList(v) => Ok(v));

impl<T: Tensor, const N: usize> KernelArg<T> for [bool; N] {
    type Family = [bool; N];
}
impl<T: Tensor, const N: usize> ArgFamily<T> for [bool; N] {
    type Arg<'a> = [bool; N];
    fn rust_type(_: &str) -> String {
        format!("[bool; {N}]")
    }
    fn to_ivalue(arg: [bool; N]) -> IValue<T> {
        IValue::BoolList(arg.to_vec())
    }
    fn from_ivalue(value: &mut IValue<T>) -> Result<[bool; N], &'static str> {
        match value {
            IValue::BoolList(v) => {
                <[bool; N]>::try_from(v.as_slice()).map_err(|_| "bool[] (of another length)")
            }
            other => Err(kind_of(other)),
        }
    }
}

/// A type's name without module paths: `Arc<my::Tensor>` → `Arc<Tensor>`.
pub(crate) fn short_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    for token in full.split_inclusive(|c: char| "<>,()[]&; ".contains(c)) {
        let (word, delim) = match token.char_indices().last() {
            Some((i, c)) if "<>,()[]&; ".contains(c) => (&token[..i], &token[i..]),
            _ => (token, ""),
        };
        out.push_str(word.rsplit("::").next().unwrap_or(word));
        out.push_str(delim);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::parse_type;

    #[test]
    fn short_names_drop_paths() {
        assert_eq!(
            short_type_name("alloc::sync::Arc<my::Tensor>"),
            "Arc<Tensor>"
        );
        assert_eq!(
            short_type_name("&[core::option::Option<a::T>]"),
            "&[Option<T>]"
        );
        assert_eq!(short_type_name("(a::B, c::D)"), "(B, D)");
    }

    #[test]
    fn every_corpus_type_has_a_rust_type() {
        let corpus = [
            ("Tensor", "&T"),
            ("bool", "bool"),
            ("int", "i64"),
            ("Scalar", "Scalar"),
            ("Tensor[]", "&[T]"),
            ("Tensor?", "Option<&T>"),
            ("float", "f64"),
            ("SymInt", "i64"),
            ("SymInt[]", "&[i64]"),
            ("ScalarType?", "Option<ScalarType>"),
            ("float?", "Option<f64>"),
            ("bool?", "Option<bool>"),
            ("int[]", "&[i64]"),
            ("Device?", "Option<Device>"),
            ("Layout?", "Option<Layout>"),
            ("SymInt[2]", "&[i64]"),
            ("int[2]", "&[i64]"),
            ("int?", "Option<i64>"),
            ("SymInt[3]", "&[i64]"),
            ("str", "&str"),
            ("str?", "Option<&str>"),
            ("int[3]", "&[i64]"),
            ("int[1]", "&[i64]"),
            ("Generator?", "Option<Generator>"),
            ("int[1]?", "Option<&[i64]>"),
            ("SymInt?", "Option<i64>"),
            ("ScalarType", "ScalarType"),
            ("Scalar?", "Option<Scalar>"),
            ("MemoryFormat?", "Option<MemoryFormat>"),
            ("Scalar[]", "&[Scalar]"),
            ("SymInt[1]?", "Option<&[i64]>"),
            ("SymInt[1]", "&[i64]"),
            ("SymInt[4]", "&[i64]"),
            ("float[]?", "Option<&[f64]>"),
            ("SymInt[]?", "Option<&[i64]>"),
            ("bool[3]", "[bool; 3]"),
            ("Tensor?[]", "&[Option<T>]"),
            ("int[]?", "Option<&[i64]>"),
            ("SymInt[6]", "&[i64]"),
            ("SymInt[5]", "&[i64]"),
            ("bool[2]", "[bool; 2]"),
            ("DeviceIndex", "i8"),
            ("bool[4]", "[bool; 4]"),
            ("MemoryFormat", "MemoryFormat"),
            ("int[2]?", "Option<&[i64]>"),
            ("Device", "Device"),
            ("Storage", "Storage"),
            ("Layout", "Layout"),
            ("QScheme", "QScheme"),
            ("Stream", "Stream"),
            ("SymBool", "bool"),
            ("float[]", "&[f64]"),
        ];
        for (schema, rust) in corpus {
            assert_eq!(
                rust_type_of(&parse_type(schema).unwrap(), false, "T").as_deref(),
                Some(rust),
                "{schema}"
            );
        }
        assert_eq!(
            rust_type_of(&parse_type("GraphModule").unwrap(), false, "T"),
            None
        );
        assert_eq!(
            rust_type_of(&parse_type("Tensor[]").unwrap(), true, "T").as_deref(),
            Some("&mut [T]")
        );
    }
}
