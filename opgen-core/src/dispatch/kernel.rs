//! Kernels: unboxed functions and closures of any supported arity, boxed kernels, and the
//! type-erased form the dispatcher stores, with adapters between the two calling conventions.

use std::any::type_name;
use std::marker::PhantomData;
use std::sync::Arc;

use super::args::{ArgFamily, KernelArg, short_type_name};
use super::erased::{AnyMut, ErasedFn, FnSig, Functor};
use super::error::{Error, ErrorKind};
use super::handle::OperatorHandle;
use super::ivalue::Stack;
use super::keyset::DispatchKeySet;
use super::operator::ArgTuple;
use super::returns::{KernelOutput, RetValue, returns_type};
use super::tensor::Tensor;
use crate::plan::{RustType, argument_type};
use crate::schema::Schema;

pub(crate) mod private {
    use std::sync::Arc;

    /// Turns a kernel into the dispatcher's stored form; sealed, so only opgen's impls exist.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a kernel for tensor type `{T}`",
        note = "a kernel is a function or closure whose parameters have the Rust types of the schema's arguments \
                (optionally after a first `DispatchKeySet` parameter) and that returns the Rust type of its returns \
                or a `Result` of it; closure parameters need type annotations; see the table in the docs of \
                `opgen_core::dispatch`, or make a boxed kernel with `opgen_core::dispatch::boxed`"
    )]
    pub trait Erase<T, M> {
        fn erase(self, operator: Arc<str>) -> super::ErasedKernel;
    }
}

/// A kernel for tensor type `T`: a function or closure whose Rust signature fits an
/// operator's schema by the mapping table of the [module documentation](crate::dispatch),
/// optionally taking the call's [`DispatchKeySet`] as its first parameter, with up to
/// [`MAX_ARITY`] schema arguments; or a boxed kernel made with [`boxed`]. `M` is a marker
/// the compiler infers.
///
/// ```
/// use opgen_core::dispatch::{DispatchKeySet, Kernel, Scalar, Tensor};
/// fn assert_kernel<T: Tensor, M>(_: impl Kernel<T, M>) {}
/// # #[derive(Clone)] struct MyTensor;
/// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { DispatchKeySet::EMPTY } }
/// fn add(a: &MyTensor, b: &MyTensor, alpha: Scalar) -> MyTensor { a.clone() }
/// assert_kernel(add);
/// assert_kernel(|ks: DispatchKeySet, a: &MyTensor| -> Result<MyTensor, String> { Ok(a.clone()) });
/// assert_kernel(|a: &[MyTensor], dims: &[i64]| (a.len() as i64, dims.to_vec().len() as f64));
/// ```
///
/// A parameter type outside the mapping is a compile error ("... is not a kernel for tensor
/// type ..."), here `i32` where schemas only have `i64`:
///
/// ```compile_fail
/// # use opgen_core::dispatch::{DispatchKeySet, Kernel, Tensor};
/// # fn assert_kernel<T: Tensor, M>(_: impl Kernel<T, M>) {}
/// # #[derive(Clone)] struct MyTensor;
/// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { DispatchKeySet::EMPTY } }
/// assert_kernel(|a: &MyTensor, n: i32| a.clone());
/// ```
pub trait Kernel<T: Tensor, M>: private::Erase<T, M> + Send + Sync + 'static {}

impl<T: Tensor, M, K: private::Erase<T, M> + Send + Sync + 'static> Kernel<T, M> for K {}

/// The largest number of schema arguments an unboxed kernel or a typed handle may have
/// (the corpus needs 23). Operators with more can still use boxed kernels and calls.
pub const MAX_ARITY: usize = 24;

/// Whether a stored kernel is a real kernel or stands for a missing or ambiguous entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KernelKind {
    Kernel,
    Missing,
    Ambiguous,
}

/// A boxed calling convention entry point.
pub(crate) type BoxedFn =
    fn(&Functor, &OperatorHandle, DispatchKeySet, AnyMut<'_>) -> Result<(), Error>;

/// A kernel in the dispatcher's stored form (opaque outside opgen).
///
/// What a call reads (the unboxed entry point and the kernel object) comes first, in one
/// cache line: a call whose kernel is not in the caches waits for one line, not two.
#[repr(C, align(64))]
pub struct ErasedKernel {
    /// The unboxed entry point, typed by `Sig<T, families, R>`; none for boxed kernels.
    pub(crate) unboxed: ErasedFn,
    /// The kernel object (`KernelRecord<K>` or `Boxed<T, F>`).
    pub(crate) functor: Functor,
    /// The boxed entry point (for unboxed kernels, the unboxing adapter).
    pub(crate) boxed: BoxedFn,
    pub(crate) kind: KernelKind,
    /// The kernel's Rust path (`std::any::type_name` of the function or closure), for
    /// dumps and warnings.
    pub(crate) name: &'static str,
    /// Checks the kernel's Rust signature against a schema; none for boxed kernels.
    pub(crate) check: Option<CheckFn>,
    /// Makes kernels for this kernel's tensor type (the derived out and in-place wrappers);
    /// none for the dispatcher's placeholder kernels.
    pub(crate) derive: Option<DeriveFn>,
    /// For the out kernel of a structured operator: its impl (`Option<S::Impl>`, `None` at
    /// `Meta`), which the delegates' kernels at the same key call.
    pub(crate) structured: Option<Arc<dyn std::any::Any + Send + Sync>>,
}

/// Builds a kernel for the tensor type of the kernel that carries it, from a request made
/// by a module above the dispatcher (the structured module's derived out and in-place
/// wrappers, which exist only once every kernel is registered), which the dispatcher passes
/// through unread; `None` for a request no module knows. Every kernel carries the function
/// of its tensor type, [`crate::derive_kernel`] (wired at the crate root, so that the
/// dispatcher names no module above it), because such a kernel can be derived for a tensor
/// type known only at run time, from the kernels registered with it.
pub(crate) type DeriveFn = fn(Box<dyn std::any::Any>) -> Option<ErasedKernel>;

/// How a Rust signature differs from a schema's.
#[derive(Debug)]
pub(crate) struct Mismatch {
    pub(crate) found: String,
    pub(crate) expected: String,
    pub(crate) detail: String,
}

struct KernelRecord<K> {
    kernel: K,
    operator: Arc<str>,
}

/// Erases a stack for a boxed entry point.
#[inline(always)]
pub(crate) fn erase_stack<T: Tensor>(stack: &mut Stack<T>) -> AnyMut<'_> {
    AnyMut::new(stack)
}

/// The stack as a `Stack<T>`, or an error naming both tensor types.
#[inline(always)]
pub(crate) fn unbox_stack<'s, T: Tensor>(
    stack: AnyMut<'s>,
    op: &OperatorHandle,
) -> Result<&'s mut Stack<T>, Error> {
    match stack.downcast::<Stack<T>>() {
        Ok(stack) => Ok(stack),
        Err(caller) => Err(tensor_type_error(op, type_name::<T>(), caller)),
    }
}

#[cold]
#[inline(never)]
fn tensor_type_error(
    op: &OperatorHandle,
    kernel: &'static str,
    caller_stack: &'static str,
) -> Error {
    // `caller_stack` names the stack type; the message names its tensor type.
    let caller = (caller_stack.split_once("Stack<"))
        .and_then(|(_, rest)| rest.strip_suffix('>'))
        .unwrap_or(caller_stack);
    ErrorKind::TensorType {
        operator: op.to_string(),
        kernel,
        caller,
    }
    .into()
}

/// Where the top `n` values of the stack start, or a `StackTooShort` error.
#[inline(always)]
pub(crate) fn args_base<T>(
    stack: &Stack<T>,
    n: usize,
    op: &OperatorHandle,
) -> Result<usize, Error> {
    match stack.len().checked_sub(n) {
        Some(base) => Ok(base),
        None => Err(stack_too_short(op, n, stack.len())),
    }
}

#[cold]
#[inline(never)]
fn stack_too_short(op: &OperatorHandle, expected: usize, found: usize) -> Error {
    ErrorKind::StackTooShort {
        operator: op.to_string(),
        expected,
        found,
    }
    .into()
}

#[cold]
#[inline(never)]
pub(crate) fn wrong_argument(op: &OperatorHandle, index: usize, found: &'static str) -> Error {
    let schema = op.schema();
    let arg = schema.as_ref().and_then(|s| s.arguments.get(index));
    ErrorKind::WrongArgument {
        operator: op.to_string(),
        index,
        name: arg.map_or_else(|| "?".to_string(), |a| a.name.to_string()),
        expected: arg.map_or_else(|| "?".to_string(), |a| a.ty.to_string()),
        found,
    }
    .into()
}

#[cold]
#[inline(never)]
fn functor_mismatch() -> Error {
    Error::internal("a kernel trampoline received another kernel's object")
}

/// Marks the type of the erased unboxed entry point of a signature: `T`, the argument
/// families `L` and the return `R`.
///
/// An unboxed entry point returns the kernel's error as the kernel made it; its caller (the
/// typed call, static dispatch) names the operator in it (`Error::in_kernel`), so that
/// the entry point calls the kernel as its last step and keeps no frame of its own.
pub(crate) struct Sig<T, L, R>(SignatureMarker<T, L, R>);

/// Names a signature without owning or borrowing its types.
pub(crate) type SignatureMarker<T, L, R> = PhantomData<fn() -> (T, L, R)>;

/// Checks a kernel's Rust signature against a schema.
pub(crate) type CheckFn = fn(&Schema) -> Result<(), Mismatch>;

/// A tuple of argument families (`(&'static T, i64)`); its length and Rust types.
pub trait ArgList<T: Tensor>: 'static {
    /// The number of arguments.
    const LEN: usize;
    /// The Rust type of each argument.
    fn rust_types() -> Vec<RustType>;
}

/// A tuple of kernel parameter types (`(&T, i64)`), as given to
/// [`Dispatcher::typed`](super::Dispatcher::typed) and as a generated call passes its
/// arguments.
pub trait KernelArgs<T: Tensor> {
    /// The tuple of their families.
    type Families: ArgTuple<T>;

    /// The arguments as the families name them, borrowing for `'a`: the same values, each
    /// passed through [`KernelArg::into_arg`].
    #[doc(hidden)]
    fn into_borrowed<'a>(self) -> <Self::Families as ArgTuple<T>>::Borrowed<'a>
    where
        Self: 'a;
}

/// Compares a Rust signature (`T`, families `L`, returns `R`, with a leading key set if
/// `KEYS`) with a schema, by the mapping of [`crate::plan`] (`argument_type`,
/// `return_type`): the one generated code follows.
pub(crate) fn check_signature<T: Tensor, L: ArgList<T>, R: RetValue<T>, const KEYS: bool>(
    schema: &Schema,
) -> Result<(), Mismatch> {
    let params = L::rust_types();
    let ret = R::rust_type();
    let args: Vec<Option<RustType>> = (schema.arguments.iter())
        .map(|a| argument_type(&a.ty, a.is_write()))
        .collect();
    let expected_ret = returns_type(&schema.returns);
    // The signatures are spelt out only for a mismatch: a check that passes (every kernel
    // registration, the first typed handle of each operator) formats nothing.
    let mismatch = |detail: String| {
        let tensor = short_type_name(type_name::<T>());
        let show = |t: &RustType| t.display_with(&tensor).to_string();
        let or_unknown = |t: &Option<RustType>| t.as_ref().map_or_else(|| "?".to_string(), show);
        let keys = if KEYS { "DispatchKeySet, " } else { "" };
        let list = |types: Vec<String>| types.join(", ");
        Mismatch {
            found: format!(
                "fn({keys}{}) -> {}",
                list(params.iter().map(show).collect()),
                show(&ret)
            ),
            expected: format!(
                "fn({keys}{}) -> {}",
                list(args.iter().map(or_unknown).collect()),
                or_unknown(&expected_ret)
            ),
            detail,
        }
    };
    let show = |t: &RustType| {
        t.display_with(&short_type_name(type_name::<T>()))
            .to_string()
    };
    for (i, (arg, want)) in schema.arguments.iter().zip(&args).enumerate() {
        let Some(want) = want else {
            return Err(mismatch(format!(
                "argument `{}` has type `{}`, which has no Rust type; register a boxed kernel",
                arg.name, arg.ty
            )));
        };
        match params.get(i) {
            None => {
                return Err(mismatch(format!(
                    "the kernel has {} parameters but the schema has {} arguments; add one for `{}`",
                    params.len(),
                    args.len(),
                    arg.name
                )));
            }
            Some(have) if have != want => {
                return Err(mismatch(format!(
                    "parameter {} (`{}`) is `{}`, expected `{}`",
                    i + 1 + usize::from(KEYS),
                    arg.name,
                    show(have),
                    show(want)
                )));
            }
            Some(_) => {}
        }
    }
    if params.len() > args.len() {
        return Err(mismatch(format!(
            "the kernel has {} parameters but the schema has {} arguments; remove the last {}",
            params.len(),
            args.len(),
            params.len() - args.len()
        )));
    }
    match &expected_ret {
        None => Err(mismatch(
            "the schema's returns have no Rust type; register a boxed kernel".into(),
        )),
        Some(want) if *want != ret => Err(mismatch(format!(
            "it returns `{}`, expected `{}`",
            show(&ret),
            show(want)
        ))),
        Some(_) => Ok(()),
    }
}

/// A boxed kernel: a function of the operator, the key set and the stack.
pub struct Boxed<T, F> {
    f: F,
    _tensor: PhantomData<fn(T)>,
}

/// Makes a boxed kernel from a closure: it finds the arguments on top of the stack, in
/// schema order, pops them and pushes the returns. A boxed kernel fits every schema and is
/// callable through typed handles too (the dispatcher boxes the arguments).
///
/// ```
/// use opgen_core::dispatch::{boxed, DispatchKeySet, Error, IValue, Kernel, Stack, Tensor};
/// # #[derive(Clone)] struct MyTensor;
/// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { DispatchKeySet::EMPTY } }
/// let kernel = boxed(|op, _ks, stack: &mut Stack<MyTensor>| {
///     let n = op.schema().map_or(0, |s| s.arguments.len());
///     let base = stack.len() - n;
///     let args = stack.split_off(base);
///     stack.push(args.into_iter().next().unwrap_or(IValue::None));
///     Ok::<(), Error>(())
/// });
/// # fn assert_kernel<T: Tensor, M>(_: impl Kernel<T, M>) {}
/// # assert_kernel(kernel);
/// ```
pub fn boxed<T, F>(f: F) -> Boxed<T, F>
where
    T: Tensor,
    F: Fn(&OperatorHandle, DispatchKeySet, &mut Stack<T>) -> Result<(), Error>
        + Send
        + Sync
        + 'static,
{
    Boxed {
        f,
        _tensor: PhantomData,
    }
}

/// Marks [`Boxed`] kernels.
pub struct BoxedKernel;

impl<T, F> private::Erase<T, BoxedKernel> for Boxed<T, F>
where
    T: Tensor,
    F: Fn(&OperatorHandle, DispatchKeySet, &mut Stack<T>) -> Result<(), Error>
        + Send
        + Sync
        + 'static,
{
    fn erase(self, _operator: Arc<str>) -> ErasedKernel {
        fn call<T: Tensor, F>(
            functor: &Functor,
            op: &OperatorHandle,
            ks: DispatchKeySet,
            stack: AnyMut<'_>,
        ) -> Result<(), Error>
        where
            F: Fn(&OperatorHandle, DispatchKeySet, &mut Stack<T>) -> Result<(), Error> + 'static,
        {
            let Some(kernel) = functor.downcast::<Boxed<T, F>>() else {
                return Err(functor_mismatch());
            };
            let stack = unbox_stack::<T>(stack, op)?;
            (kernel.f)(op, ks, stack).map_err(|e| e.in_kernel(&op.to_string()))
        }
        ErasedKernel {
            unboxed: ErasedFn::none(),
            functor: Functor::new(self),
            boxed: call::<T, F>,
            kind: KernelKind::Kernel,
            name: type_name::<F>(),
            check: None,
            derive: Some(crate::derive_kernel::<T>),
            structured: None,
        }
    }
}

/// Marks kernels that do not take the key set.
pub struct NoKeys;
/// Marks kernels whose first parameter is the key set.
pub struct WithKeys;

macro_rules! unboxed_kernel {
    (@call no_keys $k:expr, $ks:ident; $($a:ident)*) => { $k($($a),*) };
    (@call with_keys $k:expr, $ks:ident; $($a:ident)*) => { $k($ks, $($a),*) };
    (@impl $marker:ident $flag:ident [$($kt:ty)?] $keys:literal; $(($A:ident $F:ident $a:ident $v:ident $i:tt))*) => {
        impl<T, K, Out, OM, $($A),*> private::Erase<T, ($marker, OM, fn($($A),*) -> Out)> for K
        where
            T: Tensor,
            $($A: KernelArg<T>,)*
            Out: KernelOutput<T, OM>,
            K: Fn($($kt,)? $($A),*) -> Out + Send + Sync + 'static,
            K: for<'a> Fn($($kt,)? $(<$A::Family as ArgFamily<T>>::Arg<'a>),*) -> Out,
        {
            fn erase(self, operator: Arc<str>) -> ErasedKernel {
                #[allow(
                    unused_variables,
                    clippy::too_many_arguments,
                    clippy::needless_lifetimes,
                    clippy::extra_unused_lifetimes
                )]
                fn unboxed<'f, 'a, T: Tensor, K, Out, OM, $($F: ArgFamily<T>),*>(
                    functor: &'f Functor,
                    ks: DispatchKeySet,
                    $($a: $F::Arg<'a>,)*
                ) -> Result<Out::Value, Error>
                where
                    Out: KernelOutput<T, OM>,
                    K: for<'b> Fn($($kt,)? $($F::Arg<'b>),*) -> Out + 'static,
                {
                    let Some(record) = functor.downcast::<KernelRecord<K>>() else {
                        return Err(functor_mismatch());
                    };
                    // The caller names the operator in an error (see `Sig`), so that this
                    // is a tail call: no frame between the dispatch and the kernel.
                    unboxed_kernel!(@call $flag (record.kernel), ks; $($a)*).into_result()
                }
                #[allow(unused_variables)]
                fn boxed<T: Tensor, K, Out, OM, $($F: ArgFamily<T>),*>(
                    functor: &Functor,
                    op: &OperatorHandle,
                    ks: DispatchKeySet,
                    stack: AnyMut<'_>,
                ) -> Result<(), Error>
                where
                    Out: KernelOutput<T, OM>,
                    K: for<'b> Fn($($kt,)? $($F::Arg<'b>),*) -> Out + 'static,
                {
                    let Some(record) = functor.downcast::<KernelRecord<K>>() else {
                        return Err(functor_mismatch());
                    };
                    let stack = unbox_stack::<T>(stack, op)?;
                    let base = args_base(stack, <($($F,)*) as ArgList<T>>::LEN, op)?;
                    let out = {
                        let [$($v),*] = &mut stack[base..] else {
                            return Err(Error::internal("the stack slice has another length"));
                        };
                        $(let $a = match $F::from_ivalue($v) {
                            Ok(a) => a,
                            Err(found) => return Err(wrong_argument(op, $i, found)),
                        };)*
                        unboxed_kernel!(@call $flag (record.kernel), ks; $($a)*).into_result()
                    };
                    match out {
                        Ok(value) => {
                            value.replace_from(stack, base);
                            Ok(())
                        }
                        Err(e) => Err(e.in_kernel(&record.operator)),
                    }
                }
                ErasedKernel {
                    unboxed: ErasedFn::new::<
                        Sig<T, ($(<$A as KernelArg<T>>::Family,)*), <Out as KernelOutput<T, OM>>::Value>,
                    >(unboxed::<T, K, Out, OM, $($A::Family),*>),
                    functor: Functor::new(KernelRecord { kernel: self, operator }),
                    boxed: boxed::<T, K, Out, OM, $($A::Family),*>,
                    kind: KernelKind::Kernel,
                    name: type_name::<K>(),
                    check: Some(check_signature::<
                        T,
                        ($(<$A as KernelArg<T>>::Family,)*),
                        <Out as KernelOutput<T, OM>>::Value,
                        $keys,
                    >),
                    derive: Some(crate::derive_kernel::<T>),
                    structured: None,
                }
            }
        }
    };
    ($(($A:ident $F:ident $a:ident $v:ident $i:tt))*) => {
        #[allow(clippy::unused_unit)]
        impl<T: Tensor, $($A: KernelArg<T>),*> KernelArgs<T> for ($($A,)*) {
            type Families = ($($A::Family,)*);
            #[inline(always)]
            fn into_borrowed<'a>(self) -> ($(<$A::Family as ArgFamily<T>>::Arg<'a>,)*)
            where
                Self: 'a,
            {
                let ($($a,)*) = self;
                ($($a.into_arg(),)*)
            }
        }

        impl<T: Tensor, $($F: ArgFamily<T>),*> ArgList<T> for ($($F,)*) {
            const LEN: usize = {
                let indices: &[usize] = &[$($i),*];
                indices.len()
            };
            fn rust_types() -> Vec<RustType> {
                vec![$($F::rust_type()),*]
            }
        }

        impl<T: Tensor, R: RetValue<T>, $($F: ArgFamily<T>),*> FnSig for Sig<T, ($($F,)*), R> {
            type Ptr = for<'f, 'a> fn(&'f Functor, DispatchKeySet, $($F::Arg<'a>),*) -> Result<R, Error>;
        }

        unboxed_kernel!(@impl NoKeys no_keys [] false; $(($A $F $a $v $i))*);
        unboxed_kernel!(@impl WithKeys with_keys [DispatchKeySet] true; $(($A $F $a $v $i))*);
    };
}

for_each_arity!(unboxed_kernel);
