//! Static dispatch (torchgen's `static_dispatch_backend`, SCHEMA.md §5.4): calls go straight
//! to the kernel linked for the highest backend key of the arguments, with no dispatch table,
//! thread-local keys or autograd in the path. Generated code reaches it through the
//! operator's marker (`dispatch::Operator::call`, with `STATIC_DISPATCH`).

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use super::error::{Error, ErrorKind};
use super::handle::{OperatorHandle, call_boxed_kernel};
use super::kernel::{ArgList, ErasedKernel, KernelKind, Sig, SignatureMarker};
use super::keys::{BACKEND_BITS, DispatchKey};
use super::keyset::DispatchKeySet;
use super::registry::entry::{Deferred, LinkEntry as Entry};
use super::registry::link::link_all;
use super::registry::{Dispatcher, Registration};
use super::returns::RetValue;
use super::tensor::Tensor;

/// The composite keys a static call falls back to, in torchgen's order.
const COMPOSITES: [DispatchKey; 4] = [
    DispatchKey::CompositeExplicitAutograd,
    DispatchKey::CompositeExplicitAutogradNonFunctional,
    DispatchKey::CompositeImplicitAutograd,
    DispatchKey::CompositeImplicitAutogradNestedTensor,
];

/// The name an operator's group shares (SCHEMA.md §3.2, loosely: a superset is harmless):
/// the name without overload and without the in-place `_` (`add_.Tensor`, `add.out` →
/// `add`; `__iand__` → `and`).
fn group_base(name: &str) -> &str {
    let base = name.split_once('.').map_or(name, |(base, _)| base);
    match base.strip_prefix("__").and_then(|b| b.strip_suffix("__")) {
        Some(dunder) => dunder.strip_prefix('i').unwrap_or(dunder),
        None => base.strip_suffix('_').unwrap_or(base),
    }
}

/// The slot of calls whose arguments have no backend key.
const NO_BACKEND: usize = DispatchKey::NUM_RUNTIME;

/// c10's `backend_functionality_keys`, from which static dispatch takes its key
/// (`highestPriorityBackendTypeId`): the dense, quantized, sparse and compressed sparse
/// functionalities on every backend.
const BACKEND_FUNCTIONALITIES: DispatchKeySet = DispatchKeySet::from_keys(&[
    DispatchKey::CPU,
    DispatchKey::QuantizedCPU,
    DispatchKey::SparseCPU,
    DispatchKey::SparseCsrCPU,
])
.union(DispatchKeySet::from_bits(BACKEND_BITS));

/// The kernels of one operator chosen for each backend key, in a private dispatcher that
/// holds the link-time registrations of this operator only.
pub struct StaticOperator<T, L, R> {
    /// `ns::op.overload`.
    operator: String,
    /// Indexed by backend key, then [`NO_BACKEND`].
    slots: Vec<Option<Arc<ErasedKernel>>>,
    /// The keys of the kernels found that static dispatch can call (backend and composite
    /// keys).
    available: Vec<DispatchKey>,
    /// The operator in the private dispatcher, for boxed calls; `None` without a schema.
    handle: Option<OperatorHandle>,
    /// The registrations into the private dispatcher that failed.
    errors: Vec<Error>,
    _registrations: Vec<Registration>,
    _signature: SignatureMarker<T, L, R>,
}

impl<T: Tensor, L: ArgList<T>, R: RetValue<T>> StaticOperator<T, L, R> {
    /// Collects the kernels of `name.overload` from `entries` and `deferred`. The schema
    /// comes from an entry that has one, else from the global dispatcher (an operator
    /// defined by hand).
    ///
    /// The private dispatcher gets the entries of the operator's whole group (the operators
    /// of its namespace with its base name: `add.Tensor`, `add_.Tensor`, `add.out`, ...),
    /// registered as the global dispatcher registers them (`link_all`): a structured
    /// delegate's kernels need its out operator's impls, and the wrappers
    /// `structured::derive_wrappers` derives (an out kernel from a functional one, ...)
    /// need the group's kernels.
    pub(crate) fn build<'e>(
        name: &str,
        overload: &str,
        entries: impl IntoIterator<Item = &'e Entry> + Clone,
        deferred: &'e [Deferred],
    ) -> Result<Self, Error> {
        let (namespace, op_name) = name.split_once("::").unwrap_or(("aten", name));
        let full = match overload {
            "" => op_name.to_string(),
            overload => format!("{op_name}.{overload}"),
        };
        let operator = format!("{namespace}::{full}");
        let base = group_base(&full);
        let in_group = |ns: &str, name: &str| ns == namespace && group_base(name) == base;
        let dispatcher = Dispatcher::new();
        // The global dispatcher reported the warnings of these entries already.
        dispatcher.set_warning_hook(|_| {});
        let mut registrations: Vec<Registration> = Vec::new();
        let mut errors: Vec<Error> = Vec::new();
        let mine = || {
            (entries.clone().into_iter()).filter(|e| {
                let n = e.name();
                n.namespace == namespace && n.full == full
            })
        };
        if !mine().any(|e| e.defines) {
            let site = mine()
                .next()
                .map_or(std::panic::Location::caller(), |e| e.site);
            let global = Dispatcher::global().find(name, overload).ok();
            if let Some(schema) = global.as_ref().and_then(OperatorHandle::schema) {
                match dispatcher
                    .fragment(namespace)
                    .def_at(&schema.to_string(), site)
                {
                    Ok(registration) => registrations.push(registration),
                    Err(error) => errors.push(error),
                }
            }
        }
        let linked = link_all(
            &dispatcher,
            (entries.into_iter()).filter(|e| in_group(e.name().namespace, e.name().full)),
            deferred
                .iter()
                .filter(|e| in_group(e.name().namespace, e.name().full)),
        );
        let (linked, failed) = linked.into_parts();
        registrations.extend(linked);
        // The failures of this operator's registrations (and of derived wrappers, which
        // name their operator in the message); the other members' are theirs.
        errors.extend(
            (failed.into_iter())
                .filter(|(op, _)| op.is_empty() || *op == operator)
                .map(|(_, error)| error),
        );
        let handle = dispatcher
            .find(&format!("{namespace}::{op_name}"), overload)
            .ok();
        if let Some(handle) = &handle {
            let schema = handle
                .schema()
                .ok_or_else(|| Error::internal("a def without schema"))?;
            handle.check_typed::<T, L, R>(&schema)?;
        }
        let kernels = dispatcher.kernels_of(&operator);
        let at = |key: DispatchKey| kernels.iter().find(|(k, _)| *k == key).map(|(_, k)| k);
        let composite = COMPOSITES.iter().find_map(|&key| at(key));
        let slots = (0..=NO_BACKEND)
            .map(
                |i| match DispatchKey::from_index(i).filter(|k| k.is_backend()) {
                    Some(key) => at(key).or(composite).cloned(),
                    None => composite.cloned(),
                },
            )
            .collect();
        Ok(StaticOperator {
            operator,
            slots,
            available: (kernels.iter())
                .map(|(k, _)| *k)
                .filter(|k| k.is_backend() || COMPOSITES.contains(k))
                .collect(),
            handle,
            errors,
            _registrations: registrations,
            _signature: PhantomData,
        })
    }
}

impl<T, L, R> StaticOperator<T, L, R> {
    /// `ns::op.overload`.
    pub fn name(&self) -> &str {
        &self.operator
    }

    /// The backend and composite keys of the kernels linked into the program: those static
    /// dispatch can call.
    pub fn keys_with_kernels(&self) -> &[DispatchKey] {
        &self.available
    }

    /// The link-time registrations of this operator that failed (also in
    /// [`Dispatcher::global_errors`]); their kernels are not used.
    pub fn errors(&self) -> &[Error] {
        &self.errors
    }

    /// The kernel serving the arguments' key set `ks`.
    #[inline(always)]
    fn slot(&self, ks: DispatchKeySet) -> Option<&ErasedKernel> {
        let backend = ks.intersection(BACKEND_FUNCTIONALITIES).highest();
        let index = backend.map_or(NO_BACKEND, DispatchKey::index);
        self.slots.get(index).and_then(Option::as_deref)
    }

    /// A kernel's error, returned by its unboxed entry point, naming this operator.
    #[cold]
    #[inline(never)]
    fn kernel_failed(&self, error: Error) -> Error {
        error.in_kernel(&self.operator)
    }

    #[cold]
    #[inline(never)]
    fn missing(&self, ks: DispatchKeySet) -> Error {
        ErrorKind::StaticDispatchMissingKernel {
            operator: self.operator.clone(),
            key: ks.intersection(BACKEND_FUNCTIONALITIES).highest(),
            available: self.available.clone(),
        }
        .into()
    }
}

impl<T: Tensor, L: ArgList<T>, R: RetValue<T>> StaticOperator<T, L, R> {
    /// A kernel without an unboxed entry of this signature, called boxed.
    #[cold]
    #[inline(never)]
    fn call_slow(
        &self,
        kernel: &ErasedKernel,
        ks: DispatchKeySet,
        push_args: impl FnOnce(&mut super::ivalue::Stack<T>),
    ) -> Result<R, Error> {
        match (&self.handle, kernel.kind) {
            (Some(handle), KernelKind::Kernel) => {
                call_boxed_kernel::<T, L, R>(handle, kernel, ks, push_args)
            }
            _ => Err(Error::internal(format!(
                "static dispatch of `{}` found a kernel of another signature and no schema to box its arguments",
                self.operator
            ))),
        }
    }
}

impl<T, L, R> fmt::Debug for StaticOperator<T, L, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StaticOperator({}; kernels:", self.operator)?;
        for key in &self.available {
            write!(f, " {key}")?;
        }
        f.write_str(")")
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn fail(error: Error) -> ! {
    panic!("{error}")
}

macro_rules! static_calls {
    ($(($A:ident $F:ident $a:ident $v:ident $i:tt))*) => {
        #[allow(clippy::too_many_arguments, clippy::needless_lifetimes)]
        impl<T: Tensor, R: RetValue<T>, $($F: super::args::ArgFamily<T>),*> StaticOperator<T, ($($F,)*), R> {
            /// Calls the kernel chosen for the arguments' highest backend key.
            ///
            /// # Panics
            /// If there is no such kernel or it fails, with the error's message;
            /// [`Self::try_call`] returns the error instead.
            #[inline]
            #[track_caller]
            pub fn call<'a>(&'a self, $($a: $F::Arg<'a>),*) -> R {
                match self.try_call($($a),*) {
                    Ok(value) => value,
                    Err(error) => fail(error),
                }
            }

            /// Calls the kernel chosen for the arguments' highest backend key; errors are
            /// values.
            #[inline]
            pub fn try_call<'a>(&'a self, $($a: $F::Arg<'a>),*) -> Result<R, Error> {
                self.try_call_keyed(DispatchKeySet::EMPTY, $($a),*)
            }

            /// [`Self::try_call`] with `extra` keys beside the arguments': a factory's
            /// backend key from its dtype, layout and device (torchgen's static dispatch
            /// of TensorOptions operators: `computeDispatchKey(dtype, layout, device)`
            /// together with the tensor arguments' keys).
            #[inline]
            pub fn try_call_keyed<'a>(
                &'a self,
                extra: DispatchKeySet,
                $($a: $F::Arg<'a>),*
            ) -> Result<R, Error> {
                let ks = extra $(| $F::key_set(&$a))*;
                let Some(kernel) = self.slot(ks) else {
                    return Err(self.missing(ks));
                };
                match kernel.unboxed.get::<Sig<T, ($($F,)*), R>>() {
                    Some(f) => match f(&kernel.functor, ks, $($a),*) {
                        Ok(value) => Ok(value),
                        Err(error) => Err(self.kernel_failed(error)),
                    },
                    #[allow(unused_variables)]
                    None => self.call_slow(kernel, ks, |stack| {
                        $(stack.push($F::to_ivalue($a));)*
                    }),
                }
            }
        }
    };
}

for_each_arity!(static_calls);
