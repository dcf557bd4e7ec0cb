//! The Rust type of each schema argument type, and the conversions to and from `IValue`.
//!
//! The mapping from schema types to Rust types is [`crate::plan::argument_type`], the one the
//! code generator uses too: a kernel parameter fits a schema argument exactly when its
//! [`ArgFamily::rust_type`] equals `argument_type` of the argument, so the check and its
//! error message cannot disagree.

use std::sync::Arc;

use super::device::DeviceArg;
use super::ivalue::{IValue, kind_of};
use super::keyset::DispatchKeySet;
use super::tensor::Tensor;
use super::value::{
    Device, Generator, Layout, MemoryFormat, QScheme, Scalar, ScalarType, Storage, Stream,
};
use crate::plan::{RustType, ValueType};

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

    /// The type, as [`crate::plan::argument_type`] gives it for the schema types it fits.
    fn rust_type() -> RustType;

    /// The union of the key sets of the tensors the argument holds.
    #[inline(always)]
    fn key_set(_arg: &Self::Arg<'_>) -> DispatchKeySet {
        DispatchKeySet::EMPTY
    }

    /// Boxes the argument (tensors are cloned, which is a reference-count increment).
    fn to_ivalue(arg: Self::Arg<'_>) -> IValue<T>;

    /// Borrows the argument from a boxed value; on a mismatch, the value's kind.
    fn from_ivalue(value: &mut IValue<T>) -> Result<Self::Arg<'_>, &'static str>;

    /// The argument as device checks, device guards and `BackendSelect` see it: its tensors,
    /// or the device, dtype or layout it names; [`DeviceArg::Other`] for the rest.
    #[inline(always)]
    fn device_arg<'b>(_arg: &'b Self::Arg<'_>) -> DeviceArg<'b, T> {
        DeviceArg::Other
    }
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

fn boxed(t: RustType) -> Box<RustType> {
    Box::new(t)
}

/// `&[X]` for a value type `X`.
fn slice_of(v: ValueType) -> RustType {
    RustType::Ref(boxed(RustType::Slice(boxed(RustType::Value(v)))))
}

/// Implements the traits for a type by value and for its `Option`.
macro_rules! by_value {
    ($ty:ty, $value:ident, |$v:ident| $to:expr, $($pat:pat => $from:expr),+ $(,)?) => {
        by_value!(@impl $ty, $value, |$v| $to, device: Other, $($pat => $from),+);
    };
    ($ty:ty, $value:ident, device: $dev:ident, |$v:ident| $to:expr, $($pat:pat => $from:expr),+ $(,)?) => {
        by_value!(@impl $ty, $value, |$v| $to, device: $dev, $($pat => $from),+);
    };
    (@impl $ty:ty, $value:ident, |$v:ident| $to:expr, device: $dev:ident, $($pat:pat => $from:expr),+) => {
        impl Sealed for $ty {}
        impl<T: Tensor> KernelArg<T> for $ty {
            type Family = $ty;
        }
        impl<T: Tensor> ArgFamily<T> for $ty {
            type Arg<'a> = $ty;
            fn rust_type() -> RustType {
                RustType::Value(ValueType::$value)
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
            by_value!(@device $dev, $ty, |arg| Some(*arg));
        }
        impl Sealed for Option<$ty> {}
        impl<T: Tensor> KernelArg<T> for Option<$ty> {
            type Family = Option<$ty>;
        }
        impl<T: Tensor> ArgFamily<T> for Option<$ty> {
            type Arg<'a> = Option<$ty>;
            fn rust_type() -> RustType {
                RustType::Option(boxed(RustType::Value(ValueType::$value)))
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
            by_value!(@device $dev, Option<$ty>, |arg| *arg);
        }
    };
    (@device Other, $arg_ty:ty, |$arg:ident| $x:expr) => {};
    (@device $dev:ident, $arg_ty:ty, |$arg:ident| $x:expr) => {
        #[inline(always)]
        fn device_arg<'b>($arg: &'b $arg_ty) -> DeviceArg<'b, T> {
            DeviceArg::$dev($x)
        }
    };
}

by_value!(i64, I64, |v| IValue::Int(v), IValue::Int(i) => Ok(*i));
by_value!(f64, F64, |v| IValue::Float(v), IValue::Float(f) => Ok(*f));
by_value!(bool, Bool, |v| IValue::Bool(v), IValue::Bool(b) => Ok(*b));
by_value!(i8, I8, |v| IValue::Int(v.into()),
    IValue::Int(i) => i8::try_from(*i).map_err(|_| "int (out of range for i8)"));
by_value!(Scalar, Scalar, |v| IValue::from(v),
    IValue::Int(i) => Ok(Scalar::Int(*i)),
    IValue::Float(f) => Ok(Scalar::Float(*f)),
    IValue::Bool(b) => Ok(Scalar::Bool(*b)),
    IValue::Complex(c) => Ok(Scalar::Complex(**c)),
);
by_value!(ScalarType, ScalarType, device: ScalarType, |v| IValue::ScalarType(v), IValue::ScalarType(x) => Ok(*x));
by_value!(Layout, Layout, device: Layout, |v| IValue::Layout(v), IValue::Layout(x) => Ok(*x));
by_value!(Device, Device, device: Device, |v| IValue::Device(v), IValue::Device(x) => Ok(*x));
by_value!(MemoryFormat, MemoryFormat, |v| IValue::MemoryFormat(v), IValue::MemoryFormat(x) => Ok(*x));
by_value!(QScheme, QScheme, |v| IValue::QScheme(v), IValue::QScheme(x) => Ok(*x));
by_value!(Stream, Stream, |v| IValue::from(v), IValue::Stream(x) => Ok(**x));
// The boxed argument is consumed by the call, so it is moved out rather than cloned.
by_value!(Generator, Generator, |v| IValue::Generator(v),
value @ IValue::Generator(_) => match std::mem::replace(value, IValue::None) {
    IValue::Generator(g) => Ok(g),
    _ => Err("None"),
});
by_value!(Storage, Storage, |v| IValue::Storage(v),
value @ IValue::Storage(_) => match std::mem::replace(value, IValue::None) {
    IValue::Storage(s) => Ok(s),
    _ => Err("None"),
});

/// Implements the traits for a borrowed type: the kernel's form (with lifetime `$x`), the
/// `'static` form, and the parameter type (with the GAT's lifetime `$a`).
macro_rules! borrowed {
    ($x:lifetime, $a:lifetime; $kernel:ty => $fam:ty, $arg:ty, $name:expr, tensors: $tensors:tt,
     key_set: |$k:ident| $ks:expr, to: |$v:ident| $to:expr, from: $($pat:pat => $from:expr),+ $(,)?) => {
        impl<$x, T: Tensor> KernelArg<T> for $kernel {
            type Family = $fam;
        }
        impl<T: Tensor> ArgFamily<T> for $fam {
            type Arg<$a> = $arg;
            fn rust_type() -> RustType {
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
            borrowed!(@device $tensors);
        }
    };
    (@device true) => {
        #[inline(always)]
        fn device_arg<'b>(arg: &'b Self::Arg<'_>) -> DeviceArg<'b, T> {
            DeviceArg::Tensor(arg)
        }
    };
    (@device false) => {};
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
    fn rust_type() -> RustType {
        RustType::Ref(boxed(RustType::Tensor))
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
    #[inline(always)]
    fn device_arg<'b>(arg: &'b Self::Arg<'_>) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(arg)
    }
}

impl<T: Tensor> KernelArg<T> for &mut T {
    type Family = &'static mut T;
}
impl<T: Tensor> ArgFamily<T> for &'static mut T {
    type Arg<'a> = &'a mut T;
    fn rust_type() -> RustType {
        RustType::Mut(boxed(RustType::Tensor))
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
    #[inline(always)]
    fn device_arg<'b>(arg: &'b Self::Arg<'_>) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(arg)
    }
}

impl<T: Tensor> KernelArg<T> for Option<&T> {
    type Family = Option<&'static T>;
}
impl<T: Tensor> ArgFamily<T> for Option<&'static T> {
    type Arg<'a> = Option<&'a T>;
    fn rust_type() -> RustType {
        RustType::Option(boxed(RustType::Ref(boxed(RustType::Tensor))))
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
    #[inline(always)]
    fn device_arg<'b>(arg: &'b Self::Arg<'_>) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(arg)
    }
}

impl<T: Tensor> KernelArg<T> for Option<&mut T> {
    type Family = Option<&'static mut T>;
}
impl<T: Tensor> ArgFamily<T> for Option<&'static mut T> {
    type Arg<'a> = Option<&'a mut T>;
    fn rust_type() -> RustType {
        RustType::Option(boxed(RustType::Mut(boxed(RustType::Tensor))))
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
    #[inline(always)]
    fn device_arg<'b>(arg: &'b Self::Arg<'_>) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(arg)
    }
}

borrowed!('x, 'a; &'x [T] => &'static [T], &'a [T], RustType::Ref(boxed(RustType::Slice(boxed(RustType::Tensor)))), tensors: true,
    key_set: |a| keys_of(a.iter()), to: |a| IValue::TensorList(Arc::new(a.to_vec())),
    from: IValue::TensorList(v) => Ok(v.as_slice()));
borrowed!('x, 'a; &'x mut [T] => &'static mut [T], &'a mut [T], RustType::Mut(boxed(RustType::Slice(boxed(RustType::Tensor)))), tensors: true,
    key_set: |a| keys_of(a.iter()), to: |a| IValue::TensorList(Arc::new(a.to_vec())),
    from: IValue::TensorList(v) => Ok(Arc::make_mut(v).as_mut_slice()));
borrowed!('x, 'a; &'x [Option<T>] => &'static [Option<T>], &'a [Option<T>], RustType::Ref(boxed(RustType::Slice(boxed(RustType::Option(boxed(RustType::Tensor)))))), tensors: true,
    key_set: |a| keys_of(a.iter().flatten()), to: |a| IValue::OptionalTensorList(Arc::new(a.to_vec())),
    from: IValue::OptionalTensorList(v) => Ok(v.as_slice()));
borrowed!('x, 'a; &'x [i64] => &'static [i64], &'a [i64], slice_of(ValueType::I64), tensors: false,
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| IValue::from(a.to_vec()),
    from: IValue::IntList(v) => Ok(v.as_slice()));
borrowed!('x, 'a; Option<&'x [i64]> => Option<&'static [i64]>, Option<&'a [i64]>, RustType::Option(boxed(slice_of(ValueType::I64))), tensors: false,
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| a.map_or(IValue::None, |a| IValue::from(a.to_vec())),
    from: IValue::None => Ok(None), IValue::IntList(v) => Ok(Some(v.as_slice())));
borrowed!('x, 'a; &'x [f64] => &'static [f64], &'a [f64], slice_of(ValueType::F64), tensors: false,
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| IValue::from(a.to_vec()),
    from: IValue::FloatList(v) => Ok(v.as_slice()));
borrowed!('x, 'a; Option<&'x [f64]> => Option<&'static [f64]>, Option<&'a [f64]>, RustType::Option(boxed(slice_of(ValueType::F64))), tensors: false,
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| a.map_or(IValue::None, |a| IValue::from(a.to_vec())),
    from: IValue::None => Ok(None), IValue::FloatList(v) => Ok(Some(v.as_slice())));
borrowed!('x, 'a; &'x str => &'static str, &'a str, RustType::Str, tensors: false,
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| IValue::from(a),
    from: IValue::Str(s) => Ok(s.as_str()));
borrowed!('x, 'a; Option<&'x str> => Option<&'static str>, Option<&'a str>, RustType::Option(boxed(RustType::Str)), tensors: false,
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| a.map_or(IValue::None, IValue::from),
    from: IValue::None => Ok(None), IValue::Str(s) => Ok(Some(s.as_str())));
borrowed!('x, 'a; &'x [Scalar] => &'static [Scalar], &'a [Scalar], slice_of(ValueType::Scalar), tensors: false,
    key_set: |_a| DispatchKeySet::EMPTY, to: |a| IValue::from(a.to_vec()),
    from: IValue::ScalarList(v) => Ok(v.as_slice()));

impl<T: Tensor, const N: usize> KernelArg<T> for [bool; N] {
    type Family = [bool; N];
}
impl<T: Tensor, const N: usize> ArgFamily<T> for [bool; N] {
    type Arg<'a> = [bool; N];
    fn rust_type() -> RustType {
        // Lengths past `u32` saturate; no schema has them.
        let n = u32::try_from(N).unwrap_or(u32::MAX);
        RustType::Array(boxed(RustType::Value(ValueType::Bool)), n)
    }
    fn to_ivalue(arg: [bool; N]) -> IValue<T> {
        IValue::from(arg.to_vec())
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
        let ty = |schema: &str, written: bool| {
            crate::plan::argument_type(&parse_type(schema).unwrap(), written)
                .map(|t| t.display_with("T").to_string())
        };
        for (schema, rust) in corpus {
            assert_eq!(ty(schema, false).as_deref(), Some(rust), "{schema}");
        }
        assert_eq!(ty("GraphModule", false), None);
        assert_eq!(ty("Tensor[]", true).as_deref(), Some("&mut [T]"));
    }

    /// Every parameter type kernels may take names itself as the mapping table does.
    #[test]
    fn families_spell_their_types_as_the_plan_does() {
        use crate::dispatch::tests::TestTensor as X;
        fn of<F: ArgFamily<X>>() -> String {
            F::rust_type().display_with("T").to_string()
        }
        let families = [
            (of::<&'static X>(), "&T"),
            (of::<&'static mut X>(), "&mut T"),
            (of::<Option<&'static X>>(), "Option<&T>"),
            (of::<Option<&'static mut X>>(), "Option<&mut T>"),
            (of::<&'static [X]>(), "&[T]"),
            (of::<&'static mut [X]>(), "&mut [T]"),
            (of::<&'static [Option<X>]>(), "&[Option<T>]"),
            (of::<&'static [i64]>(), "&[i64]"),
            (of::<Option<&'static [i64]>>(), "Option<&[i64]>"),
            (of::<&'static [f64]>(), "&[f64]"),
            (of::<Option<&'static [f64]>>(), "Option<&[f64]>"),
            (of::<&'static str>(), "&str"),
            (of::<Option<&'static str>>(), "Option<&str>"),
            (of::<&'static [Scalar]>(), "&[Scalar]"),
            (of::<[bool; 3]>(), "[bool; 3]"),
            (of::<i64>(), "i64"),
            (of::<Option<i8>>(), "Option<i8>"),
            (of::<Scalar>(), "Scalar"),
            (of::<Option<Generator>>(), "Option<Generator>"),
            (of::<Stream>(), "Stream"),
        ];
        for (family, rust) in families {
            assert_eq!(family, rust);
        }
    }
}
