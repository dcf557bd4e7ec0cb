//! The Rust type of each schema return type, and of a kernel's output.

use std::sync::Arc;

use super::error::Error;
use super::ivalue::{IValue, Stack, kind_of};
use super::tensor::Tensor;
use super::value::{Device, Layout, MemoryFormat, QScheme, Scalar, ScalarType};
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

/// A type a kernel may return (the value, not a `Result`): `()`, `T`, `Vec<T>`,
/// `Option<T>`, `i64`, `f64`, `bool`, `Scalar`, `ScalarType`, `QScheme` (and `Layout`,
/// `Device`, `MemoryFormat`), or a tuple of up to ten of the single ones.
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
    fn push(self, stack: &mut Stack<T>);

    /// Replaces the values from `base` up (a call's arguments) with the returns.
    #[inline]
    fn replace_from(self, stack: &mut Stack<T>, base: usize) {
        stack.drop_from(base);
        self.push(stack);
    }

    /// Pops the returns (the top [`RetValue::COUNT`] values); on a mismatch, what was found.
    fn pop(stack: &mut Stack<T>) -> Result<Self, String>;
}

/// One return value, as part of a tuple.
pub trait RetElem<T: Tensor>: Sized + 'static {
    /// The type, as [`crate::plan::return_type`] gives it for the schema return it fits.
    fn elem_type() -> RustType;
    /// Boxes the value.
    fn into_ivalue(self) -> IValue<T>;
    /// Unboxes the value; on a mismatch, the value's kind.
    fn from_ivalue(value: IValue<T>) -> Result<Self, &'static str>;
}

macro_rules! single_return {
    ($ty:ty, $name:expr, |$v:ident| $to:expr, $($pat:pat => $from:expr),+ $(,)?) => {
        single_return!($ty, $name, |$v| $to, replace: |stack, base, value| {
            stack.replace_from(base, RetElem::<T>::into_ivalue(value))
        }, $($pat => $from),+);
    };
    ($ty:ty, $name:expr, |$v:ident| $to:expr,
     replace: |$stack:ident, $base:ident, $value:ident| $replace:expr, $($pat:pat => $from:expr),+ $(,)?) => {
        impl<T: Tensor> RetElem<T> for $ty {
            fn elem_type() -> RustType {
                $name
            }
            fn into_ivalue(self) -> IValue<T> {
                let $v = self;
                $to
            }
            fn from_ivalue(value: IValue<T>) -> Result<Self, &'static str> {
                match value {
                    $($pat => $from,)+
                    other => Err(kind_of(&other)),
                }
            }
        }
        impl<T: Tensor> RetValue<T> for $ty {
            const COUNT: usize = 1;
            fn rust_type() -> RustType {
                <$ty as RetElem<T>>::elem_type()
            }
            #[inline]
            fn push(self, stack: &mut Stack<T>) {
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

single_return!(T, RustType::Tensor, |v| IValue::Tensor(v),
    replace: |stack, base, value| stack.replace_from_with_tensor(base, value), IValue::Tensor(t) => Ok(t));
single_return!(Vec<T>, RustType::Vec(Box::new(RustType::Tensor)), |v| IValue::TensorList(Arc::new(v)),
    IValue::TensorList(t) => Ok(Arc::try_unwrap(t).unwrap_or_else(|t| (*t).clone())));
single_return!(Option<T>, RustType::Option(Box::new(RustType::Tensor)), |v| v.map_or(IValue::None, IValue::Tensor),
    IValue::None => Ok(None), IValue::Tensor(t) => Ok(Some(t)));
single_return!(i64, RustType::Value(ValueType::I64), |v| IValue::Int(v), IValue::Int(i) => Ok(i));
single_return!(f64, RustType::Value(ValueType::F64), |v| IValue::Float(v), IValue::Float(f) => Ok(f));
single_return!(bool, RustType::Value(ValueType::Bool), |v| IValue::Bool(v), IValue::Bool(b) => Ok(b));
single_return!(Scalar, RustType::Value(ValueType::Scalar), |v| IValue::from(v),
    IValue::Int(i) => Ok(Scalar::Int(i)), IValue::Float(f) => Ok(Scalar::Float(f)),
    IValue::Bool(b) => Ok(Scalar::Bool(b)), IValue::Complex(c) => Ok(Scalar::Complex(*c)));
single_return!(ScalarType, RustType::Value(ValueType::ScalarType), |v| IValue::ScalarType(v), IValue::ScalarType(x) => Ok(x));
single_return!(QScheme, RustType::Value(ValueType::QScheme), |v| IValue::QScheme(v), IValue::QScheme(x) => Ok(x));
single_return!(Layout, RustType::Value(ValueType::Layout), |v| IValue::Layout(v), IValue::Layout(x) => Ok(x));
single_return!(Device, RustType::Value(ValueType::Device), |v| IValue::Device(v), IValue::Device(x) => Ok(x));
single_return!(MemoryFormat, RustType::Value(ValueType::MemoryFormat), |v| IValue::MemoryFormat(v), IValue::MemoryFormat(x) => Ok(x));

impl<T: Tensor> RetValue<T> for () {
    const COUNT: usize = 0;
    fn rust_type() -> RustType {
        RustType::Tuple(Vec::new())
    }
    #[inline]
    fn push(self, _: &mut Stack<T>) {}
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
            fn push(self, stack: &mut Stack<T>) {
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
        assert_eq!(returns("f(Tensor self) -> str"), None);
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
    }
}
