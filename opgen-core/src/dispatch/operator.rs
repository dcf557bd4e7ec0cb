//! Operators declared at compile time, and kernels over argument tuples.
//!
//! `#[native_function]` and `include_native_functions!` generate, per operator, a marker type
//! named as the operator's free function (in the type namespace: `aten::add` is both the
//! function and the marker) that implements [`Operator`]: the tensor type, the argument
//! families, the returns and the schema. Everything typed that the generated code does goes
//! through it: the free functions call [`Operator::call`], redispatch is
//! [`Operator::redispatch`], and a kernel attached with `op = aten::add` is checked against
//! its types at compile time.
//!
//! [`TupleKernel`] makes a kernel of any arity from one closure over the argument tuple
//! ([`ArgTuple::Borrowed`]): the runtime builds the kernels that wrap other kernels
//! (device checks, `BackendSelect`, structured kernels) with it, once, generically.

use std::any::type_name;
use std::marker::PhantomData;
use std::sync::Arc;

use super::args::{ArgFamily, KernelArg};
use super::cache::{OpCache, OpTable, TypedOf};
use super::device::DeviceArg;
use super::erased::{AnyMut, ErasedFn, Functor};
use super::error::Error;
use super::handle::{OperatorHandle, TypedOperator};
use super::ivalue::Stack;
use super::kernel::{
    ArgList, ErasedKernel, Kernel, KernelKind, NoKeys, Sig, WithKeys, args_base, check_signature,
    private::Erase, unbox_stack, wrong_argument,
};
use super::keyset::DispatchKeySet;
use super::returns::{KernelOutput, RetValue};
use super::static_dispatch::StaticOperator;
use super::tensor::Tensor;

/// A tuple of argument families (`(&'static T, i64)`) with the calls that take the
/// arguments as one tuple (`(&'a T, i64)`): what [`Operator::Args`] is.
pub trait ArgTuple<T: Tensor>: ArgList<T> + Sized {
    /// The arguments of one call, borrowing for `'a`: `(&'a T, i64)` for `(&'static T, i64)`.
    type Borrowed<'a>;

    /// The union of the key sets of the tensors among `args`.
    fn key_set(args: &Self::Borrowed<'_>) -> DispatchKeySet;

    /// Each argument as device checks, guards and `BackendSelect` see it, in order.
    fn device_args<'b>(args: &'b Self::Borrowed<'_>) -> Vec<DeviceArg<'b, T>>;

    /// Erases a kernel of this argument list made of one closure over the tuple.
    #[doc(hidden)]
    fn erase_tuple<R, F>(f: F, operator: Arc<str>) -> ErasedKernel
    where
        R: RetValue<T>,
        F: for<'a> Fn(DispatchKeySet, Self::Borrowed<'a>) -> Result<R, Error>
            + Send
            + Sync
            + 'static;

    /// Boxes the arguments onto `stack`, in order.
    #[doc(hidden)]
    fn push(args: Self::Borrowed<'_>, stack: &mut Stack<T>);

    /// Calls `op` (the thread's key sets applied).
    #[doc(hidden)]
    fn call<'a, R: RetValue<T>>(
        op: &'a TypedOperator<T, Self, R>,
        args: Self::Borrowed<'a>,
    ) -> Result<R, Error>;

    /// Redispatches `op` with the key set given.
    #[doc(hidden)]
    fn redispatch<'a, R: RetValue<T>>(
        op: &'a TypedOperator<T, Self, R>,
        ks: DispatchKeySet,
        args: Self::Borrowed<'a>,
    ) -> Result<R, Error>;

    /// Calls the statically dispatched kernel for the arguments' keys and `extra`.
    #[doc(hidden)]
    fn call_static<'a, R: RetValue<T>>(
        op: &'a StaticOperator<T, Self, R>,
        extra: DispatchKeySet,
        args: Self::Borrowed<'a>,
    ) -> Result<R, Error>;
}

/// A kernel made of one closure over the argument tuple, `Fn(DispatchKeySet, L::Borrowed)`:
/// registered like any kernel, with the arity and types of `L`.
///
/// ```
/// use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Dispatcher, Error, Tensor, TupleKernel};
/// # #[derive(Clone)] struct MyTensor(DispatchKeySet);
/// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
/// let d = Dispatcher::new();
/// let lib = d.library("demo")?;
/// let _def = lib.def("scale(Tensor self, int factor) -> int")?;
/// let kernel = TupleKernel::<(&'static MyTensor, i64), _>::new(
///     |_ks: DispatchKeySet, (_t, factor): (&MyTensor, i64)| Ok::<i64, Error>(factor * 2),
/// );
/// let _cpu = lib.impl_("scale", DispatchKey::CPU, kernel)?;
/// let scale = d.typed::<MyTensor, (&MyTensor, i64), i64>("demo::scale", "")?;
/// assert_eq!(scale.call(&MyTensor(DispatchKey::CPU.into()), 21), 42);
/// # Ok::<(), opgen_core::dispatch::Error>(())
/// ```
pub struct TupleKernel<L, F> {
    f: F,
    _args: PhantomData<fn() -> L>,
}

impl<L, F> TupleKernel<L, F> {
    /// The kernel calling `f`.
    pub fn new(f: F) -> Self {
        TupleKernel {
            f,
            _args: PhantomData,
        }
    }
}

/// Marks [`TupleKernel`]s among kernels.
pub struct TupleMarker;

/// A kernel function callable with its arguments as one tuple: every unboxed kernel (a
/// function or closure fitting a schema) is one. Wrappers made by the runtime (device
/// checks) call the kernel they wrap through it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel of tensor type `{T}`",
    label = "a parameter or the return type has no schema type",
    note = "each parameter has the Rust type of a schema argument type and the kernel returns \
            those of the returns (the mapping table of `opgen::dispatch`); a parameter that has \
            none is reported where it is written"
)]
pub trait TupleCall<T: Tensor, M>: Kernel<T, M> {
    /// The kernel's argument families.
    type Args: ArgTuple<T>;
    /// What it returns (inside the `Result` when fallible).
    type Value: RetValue<T>;
    /// Calls the kernel.
    fn call_tuple(
        &self,
        ks: DispatchKeySet,
        args: <Self::Args as ArgTuple<T>>::Borrowed<'_>,
    ) -> Result<Self::Value, Error>;
}

struct TupleRecord<L, F> {
    kernel: TupleKernel<L, F>,
    operator: Arc<str>,
}

#[cold]
#[inline(never)]
fn mismatch() -> Error {
    Error::internal("a tuple kernel received another kernel's object")
}

macro_rules! tuple_impls {
    ($(($A:ident $F:ident $a:ident $v:ident $i:tt))*) => {
        #[allow(unused_variables, unused_mut, clippy::unused_unit)]
        impl<T: Tensor, $($F: ArgFamily<T>),*> ArgTuple<T> for ($($F,)*) {
            type Borrowed<'a> = ($($F::Arg<'a>,)*);

            #[inline(always)]
            fn key_set(args: &Self::Borrowed<'_>) -> DispatchKeySet {
                let ($($a,)*) = args;
                DispatchKeySet::EMPTY $(| $F::key_set($a))*
            }

            fn device_args<'b>(args: &'b Self::Borrowed<'_>) -> Vec<DeviceArg<'b, T>> {
                let ($($a,)*) = args;
                vec![$($F::device_arg($a)),*]
            }

            fn erase_tuple<R, Fun>(f: Fun, operator: Arc<str>) -> ErasedKernel
            where
                R: RetValue<T>,
                Fun: for<'a> Fn(DispatchKeySet, Self::Borrowed<'a>) -> Result<R, Error> + Send + Sync + 'static,
            {
                Erase::<T, (TupleMarker, Self, R)>::erase(TupleKernel::<Self, Fun>::new(f), operator)
            }

            fn push(args: Self::Borrowed<'_>, stack: &mut Stack<T>) {
                let ($($a,)*) = args;
                $(stack.push($F::to_ivalue($a));)*
            }

            #[inline(always)]
            fn call<'a, R: RetValue<T>>(
                op: &'a TypedOperator<T, Self, R>,
                args: Self::Borrowed<'a>,
            ) -> Result<R, Error> {
                let ($($a,)*) = args;
                op.try_call($($a),*)
            }

            #[inline(always)]
            fn redispatch<'a, R: RetValue<T>>(
                op: &'a TypedOperator<T, Self, R>,
                ks: DispatchKeySet,
                args: Self::Borrowed<'a>,
            ) -> Result<R, Error> {
                let ($($a,)*) = args;
                op.try_redispatch(ks, $($a),*)
            }

            #[inline(always)]
            fn call_static<'a, R: RetValue<T>>(
                op: &'a StaticOperator<T, Self, R>,
                extra: DispatchKeySet,
                args: Self::Borrowed<'a>,
            ) -> Result<R, Error> {
                let ($($a,)*) = args;
                op.try_call_keyed(extra, $($a),*)
            }
        }

        impl<T, R, Fun, $($F),*> Erase<T, (TupleMarker, ($($F,)*), R)> for TupleKernel<($($F,)*), Fun>
        where
            T: Tensor,
            R: RetValue<T>,
            $($F: ArgFamily<T>,)*
            Fun: for<'a> Fn(DispatchKeySet, ($($F::Arg<'a>,)*)) -> Result<R, Error> + Send + Sync + 'static,
        {
            fn erase(self, operator: Arc<str>) -> ErasedKernel {
                // `T` and `'a` are spelled out: the function's type is checked against
                // `Sig<T, families, R>` when it is erased.
                #[allow(
                    clippy::too_many_arguments,
                    clippy::needless_lifetimes,
                    clippy::extra_unused_type_parameters,
                    clippy::extra_unused_lifetimes
                )]
                fn unboxed<'f, 'a, T: Tensor, R, Fun, $($F: ArgFamily<T>),*>(
                    functor: &'f Functor,
                    ks: DispatchKeySet,
                    $($a: $F::Arg<'a>,)*
                ) -> Result<R, Error>
                where
                    Fun: for<'b> Fn(DispatchKeySet, ($($F::Arg<'b>,)*)) -> Result<R, Error> + 'static,
                {
                    let Some(record) = functor.downcast::<TupleRecord<($($F,)*), Fun>>() else {
                        return Err(mismatch());
                    };
                    // The caller names the operator in an error (see `Sig`).
                    (record.kernel.f)(ks, ($($a,)*))
                }
                #[allow(unused_variables)]
                fn boxed<T: Tensor, R: RetValue<T>, Fun, $($F: ArgFamily<T>),*>(
                    functor: &Functor,
                    op: &OperatorHandle,
                    ks: DispatchKeySet,
                    stack: AnyMut<'_>,
                ) -> Result<(), Error>
                where
                    Fun: for<'b> Fn(DispatchKeySet, ($($F::Arg<'b>,)*)) -> Result<R, Error> + 'static,
                {
                    let Some(record) = functor.downcast::<TupleRecord<($($F,)*), Fun>>() else {
                        return Err(mismatch());
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
                        (record.kernel.f)(ks, ($($a,)*))
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
                    unboxed: ErasedFn::new::<Sig<T, ($($F,)*), R>>(unboxed::<T, R, Fun, $($F),*>),
                    functor: Functor::new(TupleRecord { kernel: self, operator }),
                    boxed: boxed::<T, R, Fun, $($F),*>,
                    kind: KernelKind::Kernel,
                    name: type_name::<Fun>(),
                    check: Some(check_signature::<T, ($($F,)*), R, false>),
                    derive: Some(crate::derive_kernel::<T>),
                    structured: None,
                }
            }
        }

        #[allow(unused_variables)]
        impl<T, K, Out, OM, $($A),*> TupleCall<T, (NoKeys, OM, fn($($A),*) -> Out)> for K
        where
            T: Tensor,
            $($A: KernelArg<T>,)*
            Out: KernelOutput<T, OM>,
            K: Fn($($A),*) -> Out + Send + Sync + 'static,
            K: for<'a> Fn($(<$A::Family as ArgFamily<T>>::Arg<'a>),*) -> Out,
        {
            type Args = ($($A::Family,)*);
            type Value = Out::Value;
            #[inline(always)]
            fn call_tuple(
                &self,
                ks: DispatchKeySet,
                args: <Self::Args as ArgTuple<T>>::Borrowed<'_>,
            ) -> Result<Self::Value, Error> {
                let ($($a,)*) = args;
                self($($a),*).into_result()
            }
        }

        impl<T, K, Out, OM, $($A),*> TupleCall<T, (WithKeys, OM, fn($($A),*) -> Out)> for K
        where
            T: Tensor,
            $($A: KernelArg<T>,)*
            Out: KernelOutput<T, OM>,
            K: Fn(DispatchKeySet, $($A),*) -> Out + Send + Sync + 'static,
            K: for<'a> Fn(DispatchKeySet, $(<$A::Family as ArgFamily<T>>::Arg<'a>),*) -> Out,
        {
            type Args = ($($A::Family,)*);
            type Value = Out::Value;
            #[inline(always)]
            fn call_tuple(
                &self,
                ks: DispatchKeySet,
                args: <Self::Args as ArgTuple<T>>::Borrowed<'_>,
            ) -> Result<Self::Value, Error> {
                let ($($a,)*) = args;
                self(ks, $($a),*).into_result()
            }
        }
    };
}

for_each_arity!(tuple_impls);

/// The parts of a schema text that name its operator: `"aten::add.Tensor(...)"` has the
/// namespace `aten`, the qualified name `aten::add`, the overload `Tensor` and the full name
/// `add.Tensor`. Computed in `const` context from [`Operator::SCHEMA`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperatorName {
    /// `aten` (the text before `::`; `aten` when the schema has none).
    pub namespace: &'static str,
    /// `aten::add`: what [`Dispatcher::find`](super::Dispatcher::find) takes first.
    pub qualified: &'static str,
    /// `Tensor`; `""` for none.
    pub overload: &'static str,
    /// `add.Tensor` (`relu` without overload).
    pub full: &'static str,
    /// `aten::add.Tensor`: the namespace and the full name, as messages name the operator.
    pub operator: &'static str,
    /// The schema without the namespace prefix: `add.Tensor(Tensor self, ...) -> Tensor`.
    pub schema: &'static str,
}

impl OperatorName {
    /// The names in `schema`, a schema text with or without a namespace prefix.
    ///
    /// ```
    /// use opgen_core::dispatch::OperatorName;
    /// const ADD: OperatorName = OperatorName::of("aten::add.Tensor(Tensor self, Tensor other) -> Tensor");
    /// assert_eq!((ADD.namespace, ADD.qualified, ADD.overload, ADD.full), ("aten", "aten::add", "Tensor", "add.Tensor"));
    /// let relu = OperatorName::of("relu(Tensor self) -> Tensor");
    /// assert_eq!((relu.namespace, relu.qualified, relu.overload), ("aten", "relu", ""));
    /// ```
    pub const fn of(schema: &'static str) -> OperatorName {
        let (end, ns_end, dot) = name_positions(schema.as_bytes());
        let name_start = match ns_end {
            Some(n) => n + 2,
            None => 0,
        };
        let name_end = match dot {
            Some(d) => d,
            None => end,
        };
        OperatorName {
            namespace: match ns_end {
                Some(n) => slice(schema, 0, n),
                None => "aten",
            },
            qualified: slice(schema, 0, name_end),
            overload: match dot {
                Some(d) => slice(schema, d + 1, end),
                None => "",
            },
            full: slice(schema, name_start, end),
            operator: slice(schema, 0, end),
            schema: slice(schema, name_start, schema.len()),
        }
    }
}

impl OperatorName {
    /// [`OperatorName::of`] at run time, with the same answers, without checking every
    /// slice as UTF-8 (what a `const fn` has to do): for the link step, which reads
    /// thousands of names.
    ///
    /// ```
    /// use opgen_core::dispatch::OperatorName;
    /// let text = "aten::add.Tensor(Tensor self, Tensor other) -> Tensor";
    /// assert_eq!(OperatorName::read(text), OperatorName::of(text));
    /// ```
    pub fn read(schema: &'static str) -> OperatorName {
        NameScan::of(schema).name(schema)
    }
}

/// Where the parts of the name at the start of a schema text are, found in one pass over
/// the name's bytes (link time reads thousands of names): the answers of
/// [`OperatorName::of`], and whether the name is a plain `[ns::]op[.overload]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NameScan {
    /// The `(` (the text's end without one).
    end: usize,
    /// The first `::`.
    ns_end: Option<usize>,
    /// The first `.`.
    dot: Option<usize>,
    /// The first space (before `(`).
    space: Option<usize>,
    /// No byte of the name but letters, digits, `_`, one `::` before any `.`, at most one
    /// `.` and spaces right before `(`; and a `(` follows.
    plain: bool,
}

impl NameScan {
    pub(crate) fn of(text: &str) -> NameScan {
        let bytes = text.as_bytes();
        let mut scan = NameScan {
            end: bytes.len(),
            ns_end: None,
            dot: None,
            space: None,
            plain: false,
        };
        let mut odd = false;
        let mut i = 0;
        loop {
            // Most bytes are in runs of identifier bytes, taken eight at a time.
            let run = crate::schema::ident_len(bytes.get(i..).unwrap_or_default());
            odd |= run > 0 && scan.space.is_some();
            i += run;
            let Some(&b) = bytes.get(i) else { break };
            match b {
                b'(' => {
                    scan.end = i;
                    scan.plain = !odd;
                    break;
                }
                b' ' => {
                    scan.space.get_or_insert(i);
                }
                b'.' => {
                    odd |= scan.dot.is_some() || scan.space.is_some();
                    scan.dot.get_or_insert(i);
                }
                b':' if scan.ns_end.is_none() && bytes.get(i + 1) == Some(&b':') => {
                    odd |= scan.dot.is_some() || scan.space.is_some();
                    scan.ns_end = Some(i);
                    i += 1;
                }
                _ => odd = true,
            }
            i += 1;
        }
        scan
    }

    /// The names, as [`OperatorName::of`] reads them from `text` (the text scanned).
    pub(crate) fn name(self, text: &'static str) -> OperatorName {
        let NameScan {
            end, ns_end, dot, ..
        } = self;
        let part = |start: usize, stop: usize| text.get(start..stop).unwrap_or_default();
        let name_start = ns_end.map_or(0, |n| n + 2);
        OperatorName {
            namespace: ns_end.map_or("aten", |n| part(0, n)),
            qualified: part(0, dot.unwrap_or(end)),
            overload: dot.map_or("", |d| part(d + 1, end)),
            full: part(name_start, end),
            operator: part(0, end),
            schema: part(name_start, text.len()),
        }
    }

    /// `(namespace, op, overload)` of a plain name in `text` (the text scanned), without the
    /// spaces before `(`; `None` if the name is not plain or a part is empty.
    pub(crate) fn split(self, text: &str) -> Option<(Option<&str>, &str, &str)> {
        if !self.plain {
            return None;
        }
        let end = self.space.unwrap_or(self.end);
        let name_start = self.ns_end.map_or(0, |n| n + 2);
        let namespace = match self.ns_end {
            Some(n) => Some(text.get(..n).filter(|ns| !ns.is_empty())?),
            None => None,
        };
        let (op, overload) = match self.dot {
            Some(d) => (text.get(name_start..d)?, text.get(d + 1..end)?),
            None => (text.get(name_start..end)?, ""),
        };
        let valid = !op.is_empty() && (self.dot.is_none() || !overload.is_empty());
        valid.then_some((namespace, op, overload))
    }
}

/// Where the name in a schema text ends (its `(`, else the text's end), where its
/// namespace ends (the first `::`) and where its overload starts (the first `.`).
const fn name_positions(bytes: &[u8]) -> (usize, Option<usize>, Option<usize>) {
    let mut end = 0;
    while end < bytes.len() && bytes[end] != b'(' {
        end += 1;
    }
    let mut ns_end = None;
    let mut dot = None;
    let mut i = 0;
    while i < end {
        if i + 1 < end && bytes[i] == b':' && bytes[i + 1] == b':' && ns_end.is_none() {
            ns_end = Some(i);
            i += 2;
            continue;
        }
        if bytes[i] == b'.' && dot.is_none() {
            dot = Some(i);
        }
        i += 1;
    }
    (end, ns_end, dot)
}

/// `s[start..end]` in `const` context (`""` if the range is not on character boundaries).
const fn slice(s: &'static str, start: usize, end: usize) -> &'static str {
    let (head, _) = s.as_bytes().split_at(end);
    let (_, part) = head.split_at(start);
    match std::str::from_utf8(part) {
        Ok(part) => part,
        Err(_) => "",
    }
}

/// An operator declared at compile time: implemented by the marker type that
/// `#[native_function]` and `include_native_functions!` generate for each operator with a
/// Rust API, named as its free function (`aten::add` for `add.Tensor`).
///
/// Its calls are the dispatcher-level forms of the operator (torchgen's `at::_ops::add_Tensor::call`
/// and `::redispatch`): every argument in schema order, without defaults, as one tuple.
///
/// ```
/// use opgen_core::dispatch::{Operator, DispatchKey, DispatchKeySet, Tensor};
/// fn describe<O: Operator>() -> String {
///     format!("{} takes {} arguments", O::name().full, <O::Args as opgen_core::dispatch::ArgList<O::Tensor>>::LEN)
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an operator declared at compile time",
    label = "not the marker of an operator",
    note = "`#[native_function(\"<schema>\")]` and `include_native_functions!` generate a marker \
            named as each operator's free function (`aten::add`); `use` it where it is named, or \
            name the operator by string (`op = \"aten::add.Tensor\"`), checked at run time"
)]
pub trait Operator: Sized + 'static {
    /// The tensor type of its typed API.
    type Tensor: Tensor;
    /// Its argument families in schema order (the dispatcher signature).
    type Args: ArgTuple<Self::Tensor>;
    /// Its returns.
    type Returns: RetValue<Self::Tensor>;

    /// The table of the expansion that declared it: its link entries, caches and
    /// static-dispatch setting, shared by every operator of the expansion.
    #[doc(hidden)]
    type Table: OpTable;
    /// Its position in [`Operator::Table`]: its `def` is `ENTRIES[INDEX]`, its cache
    /// `CACHES[INDEX]`.
    #[doc(hidden)]
    const INDEX: usize;

    /// Its schema, with the namespace: `aten::add.Tensor(Tensor self, ...) -> Tensor` (the
    /// text of its `def` in the table).
    const SCHEMA: &'static str = <Self::Table as OpTable>::ENTRIES[Self::INDEX].text;

    /// Whether the declaring crate enables its feature `opgen-static-dispatch`: calls go
    /// straight to the kernel linked for the arguments' backend.
    const STATIC_DISPATCH: bool = <Self::Table as OpTable>::STATIC_DISPATCH;

    /// The operator's cached handles: one element of its table's `static` array.
    #[doc(hidden)]
    const CACHE: &'static OpCache = &<Self::Table as OpTable>::CACHES[Self::INDEX];

    /// The names in [`Operator::SCHEMA`] (read at run time: a `const` would make every
    /// expansion evaluate the scan at compile time).
    #[inline]
    fn name() -> OperatorName {
        OperatorName::read(Self::SCHEMA)
    }

    /// Calls the operator (through the global dispatcher, or statically dispatched):
    /// every argument in schema order, as one tuple.
    #[inline]
    fn call(
        args: <Self::Args as ArgTuple<Self::Tensor>>::Borrowed<'_>,
    ) -> Result<Self::Returns, Error> {
        Self::CACHE.call::<Self>(args)
    }

    /// Continues dispatch with the key set given (in a kernel, typically its own key set
    /// below its key); the thread's key sets are not applied again. Always through the
    /// global dispatcher.
    #[inline]
    fn redispatch(
        ks: DispatchKeySet,
        args: <Self::Args as ArgTuple<Self::Tensor>>::Borrowed<'_>,
    ) -> Result<Self::Returns, Error> {
        Self::CACHE.redispatch::<Self>(ks, args)
    }

    /// The typed handle of the global dispatcher, looked up once.
    #[inline]
    fn typed() -> Result<&'static TypedOf<Self>, Error> {
        Self::CACHE.typed::<Self>()
    }
}

/// The `dtype`, `layout` and `device` among `args`, the TensorOptions group starting at
/// `start`.
pub(crate) fn options_at<T: Tensor>(
    args: &[DeviceArg<'_, T>],
    start: usize,
) -> (
    Option<super::ScalarType>,
    Option<super::Layout>,
    Option<super::Device>,
) {
    let dtype = match args.get(start) {
        Some(DeviceArg::ScalarType(d)) => *d,
        _ => None,
    };
    let layout = match args.get(start + 1) {
        Some(DeviceArg::Layout(l)) => *l,
        _ => None,
    };
    let device = match args.get(start + 2) {
        Some(DeviceArg::Device(d)) => *d,
        _ => None,
    };
    (dtype, layout, device)
}

/// The name a kernel is shown by in messages: the last segment of its path (`add_cuda` for
/// `my_crate::ops::add_cuda`), or the whole path if that segment is a closure's.
pub(crate) fn kernel_name(full: &'static str) -> &'static str {
    match full.rsplit_once("::") {
        Some((_, last)) if !last.contains('}') => last,
        _ => full,
    }
}
