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
use super::list::ListItem;
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
    /// or the device, dtype or layout it names; `DeviceArg::Other` for the rest.
    #[inline(always)]
    fn device_arg<'b>(_arg: &'b Self::Arg<'_>) -> DeviceArg<'b, T> {
        DeviceArg::Other
    }

    /// [`ArgFamily::device_arg`] of the argument's `Option` (`X?`).
    #[inline(always)]
    fn device_arg_of_option<'b>(_arg: &'b Option<Self::Arg<'_>>) -> DeviceArg<'b, T> {
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

    /// The argument as its family names it, borrowing for `'a`: the same value, its type
    /// spelt through [`KernelArg::Family`] (what a generated call passes on).
    #[doc(hidden)]
    fn into_arg<'a>(self) -> <Self::Family as ArgFamily<T>>::Arg<'a>
    where
        Self: 'a;
}

fn boxed(t: RustType) -> Box<RustType> {
    Box::new(t)
}

/// Implements the traits for a type passed by value; `device: Kind` for the types that
/// device checks and `BackendSelect` read (`DeviceArg::Kind`).
macro_rules! by_value {
    ($ty:ty, $value:ident, |$v:ident| $to:expr, $($pat:pat => $from:expr),+ $(,)?) => {
        by_value!(@impl $ty, $value, device: Other, |$v| $to, $($pat => $from),+);
    };
    ($ty:ty, $value:ident, device: $dev:ident, |$v:ident| $to:expr, $($pat:pat => $from:expr),+ $(,)?) => {
        by_value!(@impl $ty, $value, device: $dev, |$v| $to, $($pat => $from),+);
    };
    (@impl $ty:ty, $value:ident, device: $dev:ident, |$v:ident| $to:expr, $($pat:pat => $from:expr),+) => {
        impl Sealed for $ty {}
        impl<T: Tensor> KernelArg<T> for $ty {
            type Family = $ty;
            #[inline(always)]
            fn into_arg<'a>(self) -> $ty
            where
                Self: 'a,
            {
                self
            }
        }
        impl<T: Tensor> ArgFamily<T> for $ty {
            type Arg<'a> = $ty;
            fn rust_type() -> RustType {
                RustType::Value(ValueType::$value)
            }
            fn to_ivalue($v: $ty) -> IValue<T> {
                $to
            }
            #[inline]
            fn from_ivalue(value: &mut IValue<T>) -> Result<$ty, &'static str> {
                match value {
                    $($pat => $from,)+
                    other => Err(kind_of(other)),
                }
            }
            by_value!(@device $dev);
        }
    };
    (@device Other) => {};
    (@device $dev:ident) => {
        #[inline(always)]
        fn device_arg<'b>(arg: &'b Self::Arg<'_>) -> DeviceArg<'b, T> {
            DeviceArg::$dev(Some(*arg))
        }
        #[inline(always)]
        fn device_arg_of_option<'b>(arg: &'b Option<Self::Arg<'_>>) -> DeviceArg<'b, T> {
            DeviceArg::$dev(*arg)
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

impl<A: Sealed> Sealed for Option<A> {}
impl<T: Tensor, A: KernelArg<T>> KernelArg<T> for Option<A> {
    type Family = Option<A::Family>;
    #[inline(always)]
    fn into_arg<'a>(self) -> Option<<A::Family as ArgFamily<T>>::Arg<'a>>
    where
        Self: 'a,
    {
        self.map(A::into_arg)
    }
}
/// `X?` for every parameter type `X`: `None` is [`IValue::None`].
impl<T: Tensor, F: ArgFamily<T>> ArgFamily<T> for Option<F> {
    type Arg<'a> = Option<F::Arg<'a>>;
    fn rust_type() -> RustType {
        RustType::Option(boxed(F::rust_type()))
    }
    #[inline(always)]
    fn key_set(arg: &Self::Arg<'_>) -> DispatchKeySet {
        arg.as_ref().map_or(DispatchKeySet::EMPTY, F::key_set)
    }
    fn to_ivalue(arg: Self::Arg<'_>) -> IValue<T> {
        arg.map_or(IValue::None, F::to_ivalue)
    }
    #[inline]
    fn from_ivalue(value: &mut IValue<T>) -> Result<Self::Arg<'_>, &'static str> {
        match value {
            IValue::None => Ok(None),
            value => F::from_ivalue(value).map(Some),
        }
    }
    #[inline(always)]
    fn device_arg<'b>(arg: &'b Self::Arg<'_>) -> DeviceArg<'b, T> {
        F::device_arg_of_option(arg)
    }
}

impl<T: Tensor> Sealed for &T {}
impl<T: Tensor> KernelArg<T> for &T {
    type Family = &'static T;
    #[inline(always)]
    fn into_arg<'a>(self) -> &'a T
    where
        Self: 'a,
    {
        self
    }
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
    fn device_arg<'b>(arg: &'b &T) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(arg)
    }
    #[inline(always)]
    fn device_arg_of_option<'b>(arg: &'b Option<&T>) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(arg)
    }
}

impl<T: Tensor> Sealed for &mut T {}
impl<T: Tensor> KernelArg<T> for &mut T {
    type Family = &'static mut T;
    #[inline(always)]
    fn into_arg<'a>(self) -> &'a mut T
    where
        Self: 'a,
    {
        self
    }
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
    fn device_arg<'b>(arg: &'b &mut T) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(arg)
    }
    #[inline(always)]
    fn device_arg_of_option<'b>(arg: &'b Option<&mut T>) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(arg)
    }
}

impl<E> Sealed for &[E] {}
impl<T: Tensor, E: ListItem<T>> KernelArg<T> for &[E] {
    type Family = &'static [E];
    #[inline(always)]
    fn into_arg<'a>(self) -> &'a [E]
    where
        Self: 'a,
    {
        self
    }
}
/// `E[]` for every list element type ([`ListItem`]): tensors, optional tensors, value types
/// and their options, `String`.
impl<T: Tensor, E: ListItem<T>> ArgFamily<T> for &'static [E] {
    type Arg<'a> = &'a [E];
    fn rust_type() -> RustType {
        RustType::Ref(boxed(RustType::Slice(boxed(E::item_type()))))
    }
    #[inline(always)]
    fn key_set(arg: &&[E]) -> DispatchKeySet {
        E::key_set(arg)
    }
    fn to_ivalue(arg: &[E]) -> IValue<T> {
        E::into_list(arg.to_vec())
    }
    #[inline]
    fn from_ivalue(value: &mut IValue<T>) -> Result<&[E], &'static str> {
        let value: &IValue<T> = value;
        match E::as_list(value) {
            Some(items) => Ok(items.as_slice()),
            None => Err(kind_of(value)),
        }
    }
    #[inline(always)]
    fn device_arg<'b>(arg: &'b &[E]) -> DeviceArg<'b, T> {
        E::device_arg(arg)
    }
}

impl<T: Tensor> Sealed for &mut [T] {}
impl<T: Tensor> KernelArg<T> for &mut [T] {
    type Family = &'static mut [T];
    #[inline(always)]
    fn into_arg<'a>(self) -> &'a mut [T]
    where
        Self: 'a,
    {
        self
    }
}
impl<T: Tensor> ArgFamily<T> for &'static mut [T] {
    type Arg<'a> = &'a mut [T];
    fn rust_type() -> RustType {
        RustType::Mut(boxed(RustType::Slice(boxed(RustType::Tensor))))
    }
    #[inline(always)]
    fn key_set(arg: &&mut [T]) -> DispatchKeySet {
        <T as ListItem<T>>::key_set(arg)
    }
    fn to_ivalue(arg: &mut [T]) -> IValue<T> {
        IValue::TensorList(Arc::new(arg.to_vec()))
    }
    fn from_ivalue(value: &mut IValue<T>) -> Result<&mut [T], &'static str> {
        match value {
            IValue::TensorList(v) => Ok(Arc::make_mut(v).as_mut_slice()),
            other => Err(kind_of(other)),
        }
    }
    #[inline(always)]
    fn device_arg<'b>(arg: &'b &mut [T]) -> DeviceArg<'b, T> {
        DeviceArg::Tensor(arg)
    }
}

impl Sealed for &str {}
impl<T: Tensor> KernelArg<T> for &str {
    type Family = &'static str;
    #[inline(always)]
    fn into_arg<'a>(self) -> &'a str
    where
        Self: 'a,
    {
        self
    }
}
impl<T: Tensor> ArgFamily<T> for &'static str {
    type Arg<'a> = &'a str;
    fn rust_type() -> RustType {
        RustType::Str
    }
    fn to_ivalue(arg: &str) -> IValue<T> {
        IValue::from(arg)
    }
    #[inline]
    fn from_ivalue(value: &mut IValue<T>) -> Result<&str, &'static str> {
        match value {
            IValue::Str(s) => Ok(s.as_str()),
            other => Err(kind_of(other)),
        }
    }
}

impl<const N: usize> Sealed for [bool; N] {}
impl<T: Tensor, const N: usize> KernelArg<T> for [bool; N] {
    type Family = [bool; N];
    #[inline(always)]
    fn into_arg<'a>(self) -> [bool; N]
    where
        Self: 'a,
    {
        self
    }
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
