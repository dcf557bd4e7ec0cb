//! Calls: operator handles (boxed calls, introspection) and typed handles (unboxed calls).

use std::any::TypeId;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use super::args::ArgFamily;
use super::erased::{AnyMut, LiveTable, Projected, Shared};
use super::error::{Error, ErrorKind};
use super::ivalue::{IValue, Stack, default_value};
use super::kernel::{
    ArgList, ErasedKernel, KernelArgs, KernelKind, Sig, SignatureMarker, args_base,
    check_signature, erase_stack,
};
use super::keys::DispatchKey;
use super::keyset::DispatchKeySet;
use super::reclaim::{self, Pin};
use super::registry::operator::OperatorEntry;
use super::returns::RetValue;
use super::table::DispatchTableDump;
use super::tensor::Tensor;
use super::tls;
use crate::schema::Schema;

/// A handle to an operator, from [`Dispatcher::find`](super::Dispatcher::find): boxed calls
/// and introspection. Cheap to clone; stays valid while registrations come and go.
#[derive(Clone)]
pub struct OperatorHandle {
    /// The operator's entry, with its table (which calls read without going through the
    /// entry). The global dispatcher's entries live for the whole program: their handles
    /// hold a plain reference, so that making and dropping one touches no shared reference
    /// count.
    pub(crate) entry: Projected<OperatorEntry, LiveTable>,
}

impl OperatorHandle {
    /// A handle of `entry`, once its table is made (`None` before).
    pub(crate) fn new(entry: Shared<OperatorEntry>) -> Option<OperatorHandle> {
        let entry = Projected::new(entry, |entry| entry.table.get().map(|table| &**table))?;
        Some(OperatorHandle { entry })
    }

    /// The operator's table.
    #[inline(always)]
    pub(crate) fn table(&self) -> &LiveTable {
        self.entry.part()
    }

    /// The operator's namespace (`aten`).
    pub fn namespace(&self) -> &str {
        self.entry.qualified.namespace()
    }

    /// The operator's name with namespace (`aten::add`).
    pub fn name(&self) -> &str {
        self.entry.qualified.name()
    }

    /// The overload name (`Tensor`; empty for none).
    pub fn overload(&self) -> &str {
        self.entry.qualified.overload()
    }

    /// `ns::op.overload` (`ns::op` without overload), as `Display` prints it.
    pub fn full_name(&self) -> &str {
        self.entry.full_name()
    }

    /// The schema, while the operator has a `def` (parsed on first use, for the operators
    /// defined at link time: `None` if it does not parse).
    pub fn schema(&self) -> Option<Arc<Schema>> {
        let pin = reclaim::pin_registered();
        let info = self.table().info(&pin)?;
        info.schema().ok().cloned()
    }

    /// The variants recorded with [`Library::def_with_variants`](super::Library::def_with_variants),
    /// if any.
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// let d = Dispatcher::new();
    /// let _def = d.library("demo")?.def("neg(Tensor self) -> Tensor")?;
    /// assert_eq!(d.find("demo::neg", "")?.variants(), None);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn variants(&self) -> Option<super::Variants> {
        let pin = reclaim::pin_registered();
        self.table().info(&pin).and_then(|info| info.variants)
    }

    /// The device check and guard recorded with
    /// [`Library::def_native_at`](super::Library::def_native_at) (every operator defined by
    /// `#[native_function]` or `include_native_functions!`), if any.
    pub fn device_checks(&self) -> Option<super::DeviceChecks> {
        let pin = reclaim::pin_registered();
        self.table().info(&pin).and_then(|info| info.device)
    }

    /// The keys at which the operator has registrations (runtime and alias keys), in
    /// priority order.
    pub fn keys_with_kernels(&self) -> Vec<DispatchKey> {
        self.table().snapshot().registered_keys()
    }

    /// The computed dispatch table: which registration serves each runtime key.
    pub fn dispatch_table(&self) -> DispatchTableDump {
        self.entry.dump()
    }

    /// A typed handle; see [`Dispatcher::typed`](super::Dispatcher::typed).
    pub fn typed<T: Tensor, A: KernelArgs<T>, R: RetValue<T>>(
        &self,
    ) -> Result<TypedOperator<T, A::Families, R>, Error> {
        self.typed_families::<T, A::Families, R>()
    }

    /// [`OperatorHandle::typed`], with the argument families given directly (what
    /// generated code names in its `static`s).
    pub(crate) fn typed_families<T: Tensor, L: ArgList<T>, R: RetValue<T>>(
        &self,
    ) -> Result<TypedOperator<T, L, R>, Error> {
        self.clone().into_typed_families()
    }

    /// [`OperatorHandle::typed_families`], consuming the handle. A signature is checked
    /// against the schema once per `def`; later requests compare a type id.
    pub(crate) fn into_typed_families<T: Tensor, L: ArgList<T>, R: RetValue<T>>(
        self,
    ) -> Result<TypedOperator<T, L, R>, Error> {
        let pin = reclaim::pin_registered();
        let Some(info) = self.table().info(&pin) else {
            return Err(self.not_found());
        };
        let signature = TypeId::of::<SignatureMarker<T, L, R>>();
        if !info.is_typed_ok(signature) {
            self.check_typed::<T, L, R>(info.schema()?)?;
            info.remember_typed(signature);
        }
        Ok(TypedOperator {
            op: self,
            _signature: PhantomData,
        })
    }

    /// Checks a typed signature against `schema`, this operator's.
    pub(crate) fn check_typed<T: Tensor, L: ArgList<T>, R: RetValue<T>>(
        &self,
        schema: &Schema,
    ) -> Result<(), Error> {
        check_signature::<T, L, R, false>(schema).map_err(|m| {
            ErrorKind::TypedSignature {
                operator: self.to_string(),
                requested: m.found,
                expected: m.expected,
                detail: m.detail,
            }
            .into()
        })
    }

    /// Calls the operator with the arguments on top of `stack`, in schema order (all of
    /// them: see [`OperatorHandle::fill_defaults`]); they are replaced by the returns.
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// # #[derive(Clone, Debug, PartialEq)] struct MyTensor(DispatchKeySet);
    /// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
    /// let d = Dispatcher::new();
    /// let lib = d.library("demo")?;
    /// let _def = lib.def("scale(Tensor self, float factor=2.0) -> Tensor")?;
    /// let _cpu = lib.impl_("scale", DispatchKey::CPU, |t: &MyTensor, _f: f64| t.clone())?;
    /// let op = d.find("demo::scale", "")?;
    /// let t = MyTensor(DispatchKey::CPU.into());
    /// let mut stack = Stack::from(vec![IValue::Tensor(t.clone())]);
    /// op.fill_defaults(&mut stack)?;
    /// assert_eq!(stack[1], IValue::Float(2.0));
    /// op.call_boxed(&mut stack)?;
    /// assert_eq!(stack.into_vec(), vec![IValue::Tensor(t)]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn call_boxed<T: Tensor>(&self, stack: &mut Stack<T>) -> Result<(), Error> {
        if !reclaim::is_registered() {
            return self.call_boxed_first(stack);
        }
        let pin = reclaim::pin();
        // The schema is parsed by the lookup that made this handle; an operator without
        // `def`, or one whose schema was not parsed yet, takes the path out of line.
        let Some(info) = (self.table().info(&pin)).and_then(|info| info.parsed_facts()) else {
            return self.call_boxed_unparsed(stack);
        };
        let base = args_base(stack, info.num_args, self)?;
        // The common case inline: every argument that may hold tensors holds one tensor.
        // Anything else (an absent `Tensor?`, a list, no tensor arguments, more than 64
        // arguments) takes the general path, out of line, so that this one needs no saved
        // registers.
        let Some(mask) = info.tensor_mask else {
            return self.call_boxed_general(&pin, base, stack);
        };
        let args = &stack[base..];
        let mut ks = DispatchKeySet::EMPTY;
        let mut mask = mask.get();
        loop {
            match args.get(mask.trailing_zeros() as usize) {
                Some(IValue::Tensor(t)) => ks |= t.key_set(),
                _ => return self.call_boxed_general(&pin, base, stack),
            }
            mask &= mask - 1;
            if mask == 0 {
                break;
            }
        }
        self.dispatch_boxed(&pin, tls::apply(ks), stack)
    }

    /// [`OperatorHandle::call_boxed`] on a thread's first call: registers it first.
    #[cold]
    #[inline(never)]
    fn call_boxed_first<T: Tensor>(&self, stack: &mut Stack<T>) -> Result<(), Error> {
        reclaim::register_thread();
        self.call_boxed(stack)
    }

    /// [`OperatorHandle::call_boxed`] for an operator without `def`, or whose schema is not
    /// parsed yet (parsed here, then called).
    #[cold]
    #[inline(never)]
    fn call_boxed_unparsed<T: Tensor>(&self, stack: &mut Stack<T>) -> Result<(), Error> {
        {
            let pin = reclaim::pin_registered();
            let Some(info) = self.table().info(&pin) else {
                return Err(self.not_found());
            };
            info.facts()?;
        }
        self.call_boxed(stack)
    }

    /// [`OperatorHandle::call_boxed`] for arguments that are not all plain tensors.
    #[cold]
    #[inline(never)]
    fn call_boxed_general<T: Tensor>(
        &self,
        pin: &Pin,
        base: usize,
        stack: &mut Stack<T>,
    ) -> Result<(), Error> {
        let args = &stack[base..];
        let facts = (self.table().info(pin)).and_then(|info| info.facts().ok());
        let tensor_args = facts.map_or(&[][..], |facts| &facts.tensor_args);
        let ks = (tensor_args.iter())
            .filter_map(|&i| args.get(i))
            .fold(DispatchKeySet::EMPTY, |ks, v| ks | v.key_set());
        self.dispatch_boxed(pin, tls::apply(ks), stack)
    }

    /// Like [`OperatorHandle::call_boxed`], with the key set given (the thread-local sets
    /// are not applied again): what a boxed kernel calls to run the rest of the stack.
    pub fn redispatch_boxed<T: Tensor>(
        &self,
        ks: DispatchKeySet,
        stack: &mut Stack<T>,
    ) -> Result<(), Error> {
        let pin = reclaim::pin();
        self.dispatch_boxed(&pin, ks, stack)
    }

    #[inline]
    fn dispatch_boxed<T: Tensor>(
        &self,
        pin: &Pin,
        ks: DispatchKeySet,
        stack: &mut Stack<T>,
    ) -> Result<(), Error> {
        let (ks, kernel) = self.table().kernel(ks, pin);
        (kernel.boxed)(&kernel.functor, self, ks, erase_stack(stack))
    }

    /// [`OperatorHandle::redispatch_boxed`] with an erased stack: what the dispatcher's own
    /// kernels (the fallthrough and register slots') call.
    pub(crate) fn redispatch_erased(
        &self,
        ks: DispatchKeySet,
        stack: AnyMut<'_>,
    ) -> Result<(), Error> {
        let pin = reclaim::pin();
        let (ks, kernel) = self.table().kernel(ks, &pin);
        (kernel.boxed)(&kernel.functor, self, ks, stack)
    }

    /// Pushes the defaults of the arguments missing at the end of `stack`, which holds the
    /// first arguments of a call and nothing else.
    pub fn fill_defaults<T: Tensor>(&self, stack: &mut Stack<T>) -> Result<(), Error> {
        let schema = self.schema().ok_or_else(|| self.not_found())?;
        for arg in schema.arguments.iter().skip(stack.len()) {
            let Some(default) = &arg.default else {
                return Err(ErrorKind::MissingArgument {
                    operator: self.to_string(),
                    name: arg.name.to_string(),
                }
                .into());
            };
            let value = default_value(&arg.ty, &default.value).ok_or_else(|| {
                ErrorKind::UnsupportedDefault {
                    operator: self.to_string(),
                    name: arg.name.to_string(),
                    default: default.text.to_string(),
                }
            })?;
            stack.push(value);
        }
        Ok(())
    }

    #[cold]
    fn not_found(&self) -> Error {
        ErrorKind::OperatorNotFound {
            name: self.name().to_string(),
            overload: self.overload().to_string(),
            known_overloads: Vec::new(),
            kernels: Vec::new(),
            did_you_mean: None,
            registration_errors: Vec::new(),
        }
        .into()
    }

    /// The error of a call whose masked key set `ks` has no kernel.
    #[cold]
    pub(crate) fn missing_kernel_error(&self, ks: DispatchKeySet) -> Error {
        let table = self.table().snapshot();
        if table.info.is_none() {
            return self.not_found();
        }
        ErrorKind::MissingKernel {
            operator: self.to_string(),
            key: ks.highest(),
            available: table.registered_keys(),
        }
        .into()
    }

    /// A kernel's error, returned by its unboxed entry point, naming this operator.
    #[cold]
    #[inline(never)]
    pub(crate) fn kernel_failed(&self, error: Error) -> Error {
        error.in_kernel(self.full_name())
    }

    /// The error of a call that landed on an ambiguous `AutogradOther` entry.
    #[cold]
    pub(crate) fn ambiguous_error(&self) -> Error {
        let backends = DispatchKey::AutogradOther.backends();
        ErrorKind::AmbiguousAutogradOther {
            operator: self.to_string(),
            backends: (self.keys_with_kernels().into_iter())
                .filter(|k| k.is_runtime() && backends.contains(*k))
                .collect(),
        }
        .into()
    }
}

impl fmt::Display for OperatorHandle {
    /// `ns::op.overload`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.entry.full_name())
    }
}

impl fmt::Debug for OperatorHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OperatorHandle({self})")
    }
}

/// A handle to an operator checked against a Rust signature: tensor type `T`, argument
/// families `L` (the `'static` forms of the parameter types, e.g. `(&'static T, i64)`) and
/// return type `R`. Made by [`Dispatcher::typed`](super::Dispatcher::typed); store it (in a
/// `static OnceLock`, say) and call it many times.
///
/// Each arity has `call`, `try_call`, `redispatch` and `try_redispatch`, taking the
/// arguments in schema order. A call reads the table with one atomic load, computes the key
/// set from the tensor arguments and the thread-local sets, and makes one indirect call: no
/// lookup, lock or allocation (unless the kernel is boxed-only, which needs a stack).
// Transparent over `OperatorHandle`, so that a cached handle can be viewed as typed
// (`erased::typed_view`).
#[repr(transparent)]
pub struct TypedOperator<T, L, R> {
    op: OperatorHandle,
    _signature: SignatureMarker<T, L, R>,
}

impl<T, L, R> Clone for TypedOperator<T, L, R> {
    fn clone(&self) -> Self {
        TypedOperator {
            op: self.op.clone(),
            _signature: PhantomData,
        }
    }
}

impl<T, L, R> fmt::Debug for TypedOperator<T, L, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TypedOperator({})", self.op)
    }
}

impl<T: Tensor, L: ArgList<T>, R: RetValue<T>> TypedOperator<T, L, R> {
    /// The untyped handle.
    pub fn handle(&self) -> &OperatorHandle {
        &self.op
    }

    /// The path for kernels without an unboxed entry of this signature: an error for a
    /// missing or ambiguous entry, else a boxed call.
    #[cold]
    #[inline(never)]
    /// (The call's kernel is looked up again here, so that the fast path's pin ends right
    /// after its kernel returns, without a branch.)
    fn call_slow(
        &self,
        ks: DispatchKeySet,
        push_args: impl FnOnce(&mut Stack<T>),
    ) -> Result<R, Error> {
        let pin = reclaim::pin();
        let (ks, kernel) = self.op.table().kernel(ks, &pin);
        match kernel.kind {
            KernelKind::Missing => return Err(self.op.missing_kernel_error(ks)),
            KernelKind::Ambiguous => return Err(self.op.ambiguous_error()),
            KernelKind::Kernel => {}
        }
        call_boxed_kernel::<T, L, R>(&self.op, kernel, ks, push_args)
    }
}

/// Calls `kernel` (of `op`) through its boxed entry point with the arguments `push_args`
/// pushes, and pops the returns as `R`.
#[cold]
#[inline(never)]
pub(crate) fn call_boxed_kernel<T: Tensor, L: ArgList<T>, R: RetValue<T>>(
    op: &OperatorHandle,
    kernel: &ErasedKernel,
    ks: DispatchKeySet,
    push_args: impl FnOnce(&mut Stack<T>),
) -> Result<R, Error> {
    let mut stack = Stack::with_capacity(L::LEN.max(R::COUNT));
    push_args(&mut stack);
    (kernel.boxed)(&kernel.functor, op, ks, erase_stack(&mut stack))?;
    let left = stack.len();
    match R::pop(&mut stack) {
        Ok(value) if stack.is_empty() => Ok(value),
        result => Err(ErrorKind::WrongReturn {
            operator: op.to_string(),
            expected: op.schema().map_or_else(String::new, |s| returns_text(&s)),
            found: match result {
                Ok(_) => format!("{left} values"),
                Err(found) => found,
            },
        }
        .into()),
    }
}

fn returns_text(schema: &Schema) -> String {
    let text = schema.to_string();
    text.rsplit_once(") -> ")
        .map_or(text.clone(), |(_, r)| r.to_string())
}

#[cold]
#[track_caller]
fn fail(error: Error) -> ! {
    panic!("{error}")
}

macro_rules! typed_calls {
    ($(($A:ident $F:ident $a:ident $v:ident $i:tt))*) => {
        #[allow(clippy::too_many_arguments, clippy::needless_lifetimes)]
        impl<T: Tensor, R: RetValue<T>, $($F: ArgFamily<T>),*> TypedOperator<T, ($($F,)*), R> {
            /// Calls the operator.
            ///
            /// # Panics
            /// If the call fails (no kernel for the key, a kernel error, ...), with the
            /// error's message; [`Self::try_call`] returns the error instead.
            #[inline]
            #[track_caller]
            pub fn call<'a>(&'a self, $($a: $F::Arg<'a>),*) -> R {
                match self.try_call($($a),*) {
                    Ok(value) => value,
                    Err(error) => fail(error),
                }
            }

            /// Calls the operator; errors are values.
            #[inline]
            pub fn try_call<'a>(&'a self, $($a: $F::Arg<'a>),*) -> Result<R, Error> {
                let ks = DispatchKeySet::EMPTY $(| $F::key_set(&$a))*;
                self.dispatch(tls::apply(ks), $($a),*)
            }

            /// Calls the operator with the key set given, typically the caller's own minus
            /// the keys up to its own (`ks.below(key)`); the thread-local sets are not
            /// applied again.
            ///
            /// # Panics
            /// If the call fails, as [`Self::call`].
            #[inline]
            #[track_caller]
            pub fn redispatch<'a>(&'a self, ks: DispatchKeySet, $($a: $F::Arg<'a>),*) -> R {
                match self.try_redispatch(ks, $($a),*) {
                    Ok(value) => value,
                    Err(error) => fail(error),
                }
            }

            /// [`Self::redispatch`], with errors as values.
            #[inline]
            pub fn try_redispatch<'a>(&'a self, ks: DispatchKeySet, $($a: $F::Arg<'a>),*) -> Result<R, Error> {
                self.dispatch(ks, $($a),*)
            }

            /// The call with the key set complete.
            #[inline(always)]
            fn dispatch<'a>(&'a self, ks: DispatchKeySet, $($a: $F::Arg<'a>),*) -> Result<R, Error> {
                let pin = reclaim::pin();
                let (ks, kernel) = self.op.table().kernel(ks, &pin);
                match kernel.unboxed.get::<Sig<T, ($($F,)*), R>>() {
                    Some(f) => match f(&kernel.functor, ks, $($a),*) {
                        Ok(value) => Ok(value),
                        Err(error) => Err(self.op.kernel_failed(error)),
                    },
                    #[allow(unused_variables)]
                    None => {
                        drop(pin);
                        self.call_slow(ks, |stack: &mut Stack<T>| {
                            $(stack.push($F::to_ivalue($a));)*
                        })
                    }
                }
            }
        }
    };
}

for_each_arity!(typed_calls);
