//! The Rust type of each schema return type, and of a kernel's output.

use super::args::value_type;
use super::error::Error;
use super::ivalue::{IValue, Stack, kind_of};
use super::tensor::Tensor;
use super::value::{Device, Layout, MemoryFormat, QScheme, Scalar, ScalarType};
use crate::schema::{ArgType, BaseType, Return};

/// The Rust type of a single schema return, with `tensor` as the tensor type's name; `None`
/// for types without a mapping (fixed-size lists, most optionals: SCHEMA.md R87).
pub(crate) fn return_type_of(ret: &Return, tensor: &str) -> Option<String> {
    Some(match &ret.ty {
        ArgType::Base(BaseType::Tensor) => tensor.to_string(),
        ArgType::Base(BaseType::Str) => return None,
        ArgType::Base(b) => value_type(*b)?.to_string(),
        ArgType::List { elem, size: None } if **elem == ArgType::Base(BaseType::Tensor) => {
            format!("Vec<{tensor}>")
        }
        ArgType::Optional(inner) if **inner == ArgType::Base(BaseType::Tensor) => {
            format!("Option<{tensor}>")
        }
        _ => return None,
    })
}

/// The Rust type of a list of returns: `()`, one type, or a tuple.
pub(crate) fn returns_type_of(returns: &[Return], tensor: &str) -> Option<String> {
    let types = returns
        .iter()
        .map(|r| return_type_of(r, tensor))
        .collect::<Option<Vec<_>>>()?;
    Some(match types.as_slice() {
        [one] => one.clone(),
        many => format!("({})", many.join(", ")),
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

    /// The type as written in a signature, with `tensor` as the tensor type's name.
    fn rust_type(tensor: &str) -> String;

    /// Pushes the returns.
    fn push(self, stack: &mut Stack<T>);

    /// Replaces the values from `base` up (a call's arguments) with the returns.
    #[inline]
    fn replace_from(self, stack: &mut Stack<T>, base: usize) {
        stack.truncate(base);
        self.push(stack);
    }

    /// Pops the returns (the top [`RetValue::COUNT`] values); on a mismatch, what was found.
    fn pop(stack: &mut Stack<T>) -> Result<Self, String>;
}

/// One return value, as part of a tuple.
pub trait RetElem<T: Tensor>: Sized + 'static {
    /// The type as written in a signature.
    fn elem_type(tensor: &str) -> String;
    /// Boxes the value.
    fn into_ivalue(self) -> IValue<T>;
    /// Unboxes the value; on a mismatch, the value's kind.
    fn from_ivalue(value: IValue<T>) -> Result<Self, &'static str>;
}

macro_rules! single_return {
    ($(<$g:ident>)? $ty:ty, |$tensor:ident| $name:expr, |$v:ident| $to:expr, $($pat:pat => $from:expr),+ $(,)?) => {
        impl<T: Tensor> RetElem<T> for $ty {
            fn elem_type($tensor: &str) -> String {
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
            fn rust_type(tensor: &str) -> String {
                <$ty as RetElem<T>>::elem_type(tensor)
            }
            #[inline]
            fn push(self, stack: &mut Stack<T>) {
                stack.push(RetElem::<T>::into_ivalue(self));
            }
            // Writing over the first argument builds the value in place; a push would build
            // it on the machine stack and copy it, which stalls store forwarding.
            #[inline(always)]
            fn replace_from(self, stack: &mut Stack<T>, base: usize) {
                match stack.get_mut(base) {
                    Some(slot) => {
                        *slot = RetElem::<T>::into_ivalue(self);
                        if stack.len() > base + 1 {
                            stack.truncate(base + 1);
                        }
                    }
                    None => stack.push(RetElem::<T>::into_ivalue(self)),
                }
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

single_return!(T, |t| t.to_string(), |v| IValue::Tensor(v), IValue::Tensor(t) => Ok(t));
single_return!(Vec<T>, |t| format!("Vec<{t}>"), |v| IValue::TensorList(v), IValue::TensorList(t) => Ok(t));
single_return!(Option<T>, |t| format!("Option<{t}>"), |v| v.map_or(IValue::None, IValue::Tensor),
    IValue::None => Ok(None), IValue::Tensor(t) => Ok(Some(t)));
single_return!(i64, |_t| "i64".into(), |v| IValue::Int(v), IValue::Int(i) => Ok(i));
single_return!(f64, |_t| "f64".into(), |v| IValue::Float(v), IValue::Float(f) => Ok(f));
single_return!(bool, |_t| "bool".into(), |v| IValue::Bool(v), IValue::Bool(b) => Ok(b));
single_return!(Scalar, |_t| "Scalar".into(), |v| IValue::Scalar(v),
    IValue::Scalar(s) => Ok(s), IValue::Int(i) => Ok(Scalar::Int(i)), IValue::Float(f) => Ok(Scalar::Float(f)),
    IValue::Bool(b) => Ok(Scalar::Bool(b)), IValue::Complex(c) => Ok(Scalar::Complex(c)));
single_return!(ScalarType, |_t| "ScalarType".into(), |v| IValue::ScalarType(v), IValue::ScalarType(x) => Ok(x));
single_return!(QScheme, |_t| "QScheme".into(), |v| IValue::QScheme(v), IValue::QScheme(x) => Ok(x));
single_return!(Layout, |_t| "Layout".into(), |v| IValue::Layout(v), IValue::Layout(x) => Ok(x));
single_return!(Device, |_t| "Device".into(), |v| IValue::Device(v), IValue::Device(x) => Ok(x));
single_return!(MemoryFormat, |_t| "MemoryFormat".into(), |v| IValue::MemoryFormat(v), IValue::MemoryFormat(x) => Ok(x));

impl<T: Tensor> RetValue<T> for () {
    const COUNT: usize = 0;
    fn rust_type(_: &str) -> String {
        "()".to_string()
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
            fn rust_type(tensor: &str) -> String {
                let parts: Vec<String> = vec![$($R::elem_type(tensor)),+];
                format!("({})", parts.join(", "))
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
    use crate::schema::parse_schema;

    fn returns(schema: &str) -> Option<String> {
        returns_type_of(&parse_schema(schema).unwrap().returns, "T")
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
        assert_eq!(
            <(i64, f64) as RetValue<crate::dispatch::tests::TestTensor>>::rust_type("T"),
            "(i64, f64)"
        );
    }
}
