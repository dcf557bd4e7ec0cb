//! The Rust type of each schema return type, and of a kernel's output.

use std::sync::Arc;

use super::error::Error;
use super::ivalue::{IValue, Stack, kind_of};
use super::list::ListItem;
use super::tensor::Tensor;
use super::value::{
    Device, Generator, Layout, MemoryFormat, QScheme, Scalar, ScalarType, Storage, Stream,
};
use crate::plan::{RustType, ValueType, return_type};
use crate::schema::Return;

/// The Rust type of a list of returns: `()`, the one return's type, or a tuple; each as
/// [`crate::plan::return_type`] maps it. `None` if a return has no Rust type.
pub(crate) fn returns_type(returns: &[Return]) -> Option<RustType> {
    let mut types = (returns.iter())
        .map(|r| return_type(&r.ty))
        .collect::<Option<Vec<_>>>()?;
    Some(match types.len() {
        1 => types.remove(0),
        _ => RustType::Tuple(types),
    })
}

/// A type a kernel may return (the value, not a `Result`): `()`, one return ([`RetElem`]:
/// `T`, `Option<T>`, `Vec<E>` for a list element type `E`, a value type, `String`,
/// `[bool; N]`, `Option` of those), or a tuple of up to ten single returns.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an operator's return value",
    note = "the table in the docs of `opgen_core::dispatch` lists the Rust type each schema return type expects"
)]
pub trait RetValue<T: Tensor>: Sized + 'static {
    /// How many values the returns occupy on a stack.
    const COUNT: usize;

    /// The type, as [`crate::plan::return_type`] gives it for the schema returns it fits.
    fn rust_type() -> RustType;

    /// Pushes the returns.
    fn push_returns(self, stack: &mut Stack<T>);

    /// Replaces the values from `base` up (a call's arguments) with the returns.
    #[inline]
    fn replace_from(self, stack: &mut Stack<T>, base: usize) {
        stack.drop_from(base);
        self.push_returns(stack);
    }

    /// Pops the returns (the top [`RetValue::COUNT`] values); on a mismatch, what was found.
    fn pop(stack: &mut Stack<T>) -> Result<Self, String>;
}

/// One return value, alone or as part of a tuple.
pub trait RetElem<T: Tensor>: Sized + 'static {
    /// The type, as [`crate::plan::return_type`] gives it for the schema return it fits.
    fn elem_type() -> RustType;
    /// Boxes the value.
    fn into_ivalue(self) -> IValue<T>;
    /// Unboxes the value; on a mismatch, the value's kind.
    fn from_ivalue(value: IValue<T>) -> Result<Self, &'static str>;
}

/// Implements `RetValue` for a single return, through its `RetElem` impl.
macro_rules! single_return {
    ([$($gen:tt)*] $ty:ty) => {
        single_return!([$($gen)*] $ty, replace: |stack, base, value| {
            stack.replace_from(base, RetElem::<T>::into_ivalue(value))
        });
    };
    ([$($gen:tt)*] $ty:ty, replace: |$stack:ident, $base:ident, $value:ident| $replace:expr) => {
        impl<T: Tensor, $($gen)*> RetValue<T> for $ty {
            const COUNT: usize = 1;
            fn rust_type() -> RustType {
                <$ty as RetElem<T>>::elem_type()
            }
            #[inline]
            fn push_returns(self, stack: &mut Stack<T>) {
                stack.push(RetElem::<T>::into_ivalue(self));
            }
            #[inline(always)]
            fn replace_from(self, $stack: &mut Stack<T>, $base: usize) {
                let $value = self;
                $replace
            }
            #[inline]
            fn pop(stack: &mut Stack<T>) -> Result<Self, String> {
                match stack.pop() {
                    Some(value) => <$ty as RetElem<T>>::from_ivalue(value).map_err(|found| format!("`{found}`")),
                    None => Err("nothing".to_string()),
                }
            }
        }
    };
}

/// Implements `RetElem` and `RetValue` for a value type.
macro_rules! value_return {
    ($($ty:ty => $rust:expr, |$v:ident| $to:expr, $($pat:pat => $from:expr),+;)*) => {$(
        impl<T: Tensor> RetElem<T> for $ty {
            fn elem_type() -> RustType {
                $rust
            }
            #[inline]
            fn into_ivalue(self) -> IValue<T> {
                let $v = self;
                $to
            }
            #[inline]
            fn from_ivalue(value: IValue<T>) -> Result<Self, &'static str> {
                match value {
                    $($pat => $from,)+
                    other => Err(kind_of(&other)),
                }
            }
        }
        single_return!([] $ty);
    )*};
}

fn value(v: ValueType) -> RustType {
    RustType::Value(v)
}

value_return! {
    i64 => value(ValueType::I64), |v| IValue::Int(v), IValue::Int(i) => Ok(i);
    f64 => value(ValueType::F64), |v| IValue::Float(v), IValue::Float(f) => Ok(f);
    bool => value(ValueType::Bool), |v| IValue::Bool(v), IValue::Bool(b) => Ok(b);
    i8 => value(ValueType::I8), |v| IValue::Int(v.into()),
        IValue::Int(i) => i8::try_from(i).map_err(|_| "int (out of range for i8)");
    Scalar => value(ValueType::Scalar), |v| IValue::from(v),
        IValue::Int(i) => Ok(Scalar::Int(i)), IValue::Float(f) => Ok(Scalar::Float(f)),
        IValue::Bool(b) => Ok(Scalar::Bool(b)), IValue::Complex(c) => Ok(Scalar::Complex(*c));
    String => value(ValueType::String), |v| IValue::Str(Arc::new(v)),
        IValue::Str(s) => Ok(Arc::try_unwrap(s).unwrap_or_else(|s| (*s).clone()));
    ScalarType => value(ValueType::ScalarType), |v| IValue::ScalarType(v), IValue::ScalarType(x) => Ok(x);
    QScheme => value(ValueType::QScheme), |v| IValue::QScheme(v), IValue::QScheme(x) => Ok(x);
    Layout => value(ValueType::Layout), |v| IValue::Layout(v), IValue::Layout(x) => Ok(x);
    Device => value(ValueType::Device), |v| IValue::Device(v), IValue::Device(x) => Ok(x);
    MemoryFormat => value(ValueType::MemoryFormat), |v| IValue::MemoryFormat(v), IValue::MemoryFormat(x) => Ok(x);
    Generator => value(ValueType::Generator), |v| IValue::Generator(v), IValue::Generator(x) => Ok(x);
    Storage => value(ValueType::Storage), |v| IValue::Storage(v), IValue::Storage(x) => Ok(x);
    Stream => value(ValueType::Stream), |v| IValue::Stream(Arc::new(v)), IValue::Stream(x) => Ok(*x);
}

impl<T: Tensor> RetElem<T> for T {
    fn elem_type() -> RustType {
        RustType::Tensor
    }
    #[inline]
    fn into_ivalue(self) -> IValue<T> {
        IValue::Tensor(self)
    }
    #[inline]
    fn from_ivalue(value: IValue<T>) -> Result<T, &'static str> {
        match value {
            IValue::Tensor(t) => Ok(t),
            other => Err(kind_of(&other)),
        }
    }
}
// Over a tensor argument, only the handle changes.
single_return!([] T, replace: |stack, base, value| stack.replace_from_with_tensor(base, value));

/// `Vec<E>`: a list return (`Tensor[]`, `Tensor?[]`, `int[]`, `str[]`, `int?[]`, ...).
impl<T: Tensor, E: ListItem<T>> RetElem<T> for Vec<E> {
    fn elem_type() -> RustType {
        RustType::Vec(Box::new(E::item_type()))
    }
    #[inline]
    fn into_ivalue(self) -> IValue<T> {
        E::into_list(self)
    }
    fn from_ivalue(value: IValue<T>) -> Result<Vec<E>, &'static str> {
        E::take_list(value).map_err(|other| kind_of(&other))
    }
}
single_return!([E: ListItem<T>] Vec<E>);

/// `Option<R>`: an optional return (`Tensor?`, `int?`, `str?`, `bool[3]?`, ...); `None` is
/// [`IValue::None`].
impl<T: Tensor, R: RetElem<T>> RetElem<T> for Option<R> {
    fn elem_type() -> RustType {
        RustType::Option(Box::new(R::elem_type()))
    }
    #[inline]
    fn into_ivalue(self) -> IValue<T> {
        self.map_or(IValue::None, R::into_ivalue)
    }
    #[inline]
    fn from_ivalue(value: IValue<T>) -> Result<Option<R>, &'static str> {
        match value {
            IValue::None => Ok(None),
            value => R::from_ivalue(value).map(Some),
        }
    }
}
single_return!([R: RetElem<T>] Option<R>);

/// `[bool; N]`: a `bool[N]` return.
impl<T: Tensor, const N: usize> RetElem<T> for [bool; N] {
    fn elem_type() -> RustType {
        // Lengths past `u32` saturate; no schema has them.
        let n = u32::try_from(N).unwrap_or(u32::MAX);
        RustType::Array(Box::new(RustType::Value(ValueType::Bool)), n)
    }
    fn into_ivalue(self) -> IValue<T> {
        IValue::from(self.to_vec())
    }
    fn from_ivalue(value: IValue<T>) -> Result<[bool; N], &'static str> {
        match value {
            IValue::BoolList(v) => {
                <[bool; N]>::try_from(v.as_slice()).map_err(|_| "bool[] (of another length)")
            }
            other => Err(kind_of(&other)),
        }
    }
}
single_return!([const N: usize] [bool; N]);

impl<T: Tensor> RetValue<T> for () {
    const COUNT: usize = 0;
    fn rust_type() -> RustType {
        RustType::Tuple(Vec::new())
    }
    #[inline]
    fn push_returns(self, _: &mut Stack<T>) {}
    #[inline]
    fn pop(_: &mut Stack<T>) -> Result<(), String> {
        Ok(())
    }
}

macro_rules! tuple_return {
    ($n:literal; $($R:ident $r:ident),+) => {
        impl<T: Tensor, $($R: RetElem<T>),+> RetValue<T> for ($($R,)+) {
            const COUNT: usize = $n;
            fn rust_type() -> RustType {
                RustType::Tuple(vec![$($R::elem_type()),+])
            }
            fn push_returns(self, stack: &mut Stack<T>) {
                let ($($r,)+) = self;
                $(stack.push($r.into_ivalue());)+
            }
            fn pop(stack: &mut Stack<T>) -> Result<Self, String> {
                let Some(base) = stack.len().checked_sub($n) else {
                    return Err(format!("{} value(s)", stack.len()));
                };
                let mut values = stack.drain(base..);
                $(let $r = match values.next().map($R::from_ivalue) {
                    Some(Ok(v)) => v,
                    Some(Err(found)) => return Err(format!("`{found}` in a tuple")),
                    None => return Err("too few values".to_string()),
                };)+
                Ok(($($r,)+))
            }
        }
    };
}

tuple_return!(2; R1 r1, R2 r2);
tuple_return!(3; R1 r1, R2 r2, R3 r3);
tuple_return!(4; R1 r1, R2 r2, R3 r3, R4 r4);
tuple_return!(5; R1 r1, R2 r2, R3 r3, R4 r4, R5 r5);
tuple_return!(6; R1 r1, R2 r2, R3 r3, R4 r4, R5 r5, R6 r6);
tuple_return!(7; R1 r1, R2 r2, R3 r3, R4 r4, R5 r5, R6 r6, R7 r7);
tuple_return!(8; R1 r1, R2 r2, R3 r3, R4 r4, R5 r5, R6 r6, R7 r7, R8 r8);
tuple_return!(9; R1 r1, R2 r2, R3 r3, R4 r4, R5 r5, R6 r6, R7 r7, R8 r8, R9 r9);
tuple_return!(10; R1 r1, R2 r2, R3 r3, R4 r4, R5 r5, R6 r6, R7 r7, R8 r8, R9 r9, R10 r10);

/// Marks a kernel output that is the return value itself.
pub struct Infallible;
/// Marks a kernel output that is a `Result` of the return value.
pub struct Fallible;

/// What a kernel may return: a [`RetValue`], or `Result<R, E>` with `E: Into<Error>`.
/// `M` is [`Infallible`] or [`Fallible`]; it is inferred.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel's output",
    note = "a kernel returns the Rust type of the schema's returns, or a `Result` of it whose error converts into `opgen_core::dispatch::Error`"
)]
pub trait KernelOutput<T: Tensor, M> {
    /// The return value.
    type Value: RetValue<T>;
    /// The value, or the kernel's error.
    fn into_result(self) -> Result<Self::Value, Error>;
}

impl<T: Tensor, R: RetValue<T>> KernelOutput<T, Infallible> for R {
    type Value = R;
    #[inline(always)]
    fn into_result(self) -> Result<R, Error> {
        Ok(self)
    }
}

impl<T: Tensor, R: RetValue<T>, E: Into<Error>> KernelOutput<T, Fallible> for Result<R, E> {
    type Value = R;
    #[inline(always)]
    fn into_result(self) -> Result<R, Error> {
        self.map_err(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::tests::TestTensor;
    use crate::schema::parse_schema;

    fn returns(schema: &str) -> Option<String> {
        returns_type(&parse_schema(schema).unwrap().returns)
            .map(|t| t.display_with("T").to_string())
    }

    #[test]
    fn return_types() {
        assert_eq!(returns("f(Tensor self) -> Tensor").as_deref(), Some("T"));
        assert_eq!(returns("f(Tensor self) -> ()").as_deref(), Some("()"));
        assert_eq!(
            returns("f(Tensor self) -> (Tensor a, Tensor[] b)").as_deref(),
            Some("(T, Vec<T>)")
        );
        assert_eq!(returns("f(Tensor self) -> SymInt").as_deref(), Some("i64"));
        assert_eq!(
            returns("f(Tensor self) -> SymBool").as_deref(),
            Some("bool")
        );
        assert_eq!(returns("f(Tensor self) -> str").as_deref(), Some("String"));
        assert_eq!(
            returns("f(Tensor self) -> (str?, int?[], Tensor?[])").as_deref(),
            Some("(Option<String>, Vec<Option<i64>>, Vec<Option<T>>)")
        );
        assert_eq!(returns("f(Tensor self) -> (Tensor, Scalar?)"), None);
        let rust = |t: RustType| t.display_with("T").to_string();
        assert_eq!(
            rust(<(i64, f64) as RetValue<TestTensor>>::rust_type()),
            "(i64, f64)"
        );
        assert_eq!(
            rust(<Vec<TestTensor> as RetValue<TestTensor>>::rust_type()),
            "Vec<T>"
        );
        assert_eq!(rust(<() as RetValue<TestTensor>>::rust_type()), "()");
        assert_eq!(
            rust(<(String, Vec<Option<TestTensor>>, [bool; 2]) as RetValue<
                TestTensor,
            >>::rust_type()),
            "(String, Vec<Option<T>>, [bool; 2])"
        );
    }
}
