//! The dispatcher: the registry of operators, kernels and fallbacks behind one lock, an
//! index that finds operators by name without it, and the registration handles that undo
//! what they added.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

mod dump;
pub(crate) mod entry;
mod index;
pub(crate) mod link;
pub(crate) mod operator;
mod registration;
mod state;
mod warning;

pub use link::LinkErrors;
pub use registration::Registration;
pub use warning::{Warning, WarningHook};

use super::erased::Shared;
use super::error::{Error, Site};
use super::handle::{OperatorHandle, TypedOperator};
use super::kernel::KernelArgs;
use super::keys::DispatchKey;
use super::reclaim;
use super::returns::RetValue;
use super::table::{FallbackReg, KernelReg, Table};
use super::tensor::Tensor;
use index::NameIndex;
use operator::{OpInfo, OperatorEntry, name_hash};
use warning::Aftermath;

/// Identifies one registration (a `def`, a kernel, or a fallback) in a dispatcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegistrationId(u64);

impl fmt::Display for RegistrationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The operator registry and dispatcher.
///
/// [`Dispatcher::global`] is the process-wide instance that generated code uses; it holds
/// every `#[native_function]` of the program from its first access on (see its docs).
/// [`Dispatcher::new`] makes an independent one (for tests, or for isolating plugins).
/// Registration takes a lock; lookups by name and calls never do: operators are found in an
/// index read with atomic loads, and each operator's table is an immutable value published
/// with one atomic store and read with one atomic load.
#[derive(Clone)]
pub struct Dispatcher {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    registry: Mutex<Registry>,
    index: NameIndex,
    /// Where warnings go; `None`: standard error.
    warning_hook: Mutex<Option<Arc<WarningHook>>>,
}

pub(crate) struct Registry {
    /// Every operator named by a registration so far, by [`OperatorEntry::id`]; entries are
    /// kept once created, so handles stay valid.
    ops: Vec<OpState>,
    /// The ids of the overloads of each operator name (`ns::op`), by [`base_hash`].
    overloads: FxHashMap<u64, SmallVec<[u32; 4]>>,
    /// One per runtime key.
    fallbacks: Vec<Option<FallbackReg>>,
    /// The library that owns each namespace's `def`s.
    namespaces: HashMap<String, (u64, Site)>,
    /// The overrides warned about (operator, key, previous and new site): a program that
    /// registers the same override again and again hears of it once.
    warned: HashSet<(u32, DispatchKey, Site, Site)>,
    next_id: u64,
}

struct OpState {
    entry: Arc<OperatorEntry>,
    def: Option<DefReg>,
    /// In registration order; the newest at each key is active.
    kernels: Vec<KernelReg>,
}

struct DefReg {
    id: RegistrationId,
    info: Arc<OpInfo>,
}

/// The table of every operator nobody has looked up yet: shared, so that defining an
/// operator costs no table of its own.
static UNBUILT: LazyLock<Arc<Table>> = LazyLock::new(|| Arc::new(Table::undefined()));

impl Default for Dispatcher {
    fn default() -> Dispatcher {
        Dispatcher::new()
    }
}

impl Dispatcher {
    /// The process-wide dispatcher, created on first use.
    ///
    /// # When link-time registration takes effect
    ///
    /// Every `#[native_function]` in every crate linked into the program leaves an entry in a
    /// link-time list (a `linkme` distributed slice). The first call of `global()` (from any
    /// thread; generated functions make it on their first call) registers all of them before
    /// it returns:
    ///
    /// 1. one fragment library per namespace (several crates may add to `aten`);
    /// 2. every `def`: entries that restate the same schema (equal once printed canonically)
    ///    are one `def`; a different schema for the same name is the duplicate-`def` error
    ///    naming both schemas and both sites. Schemas are parsed when their operator is
    ///    first needed (looked up, called, dumped, or given a kernel), not here;
    /// 3. every kernel, at each of its keys, checked against the schema;
    /// 4. the structured delegates' kernels and the wrappers derived for groups of
    ///    operators (`opgen_core::structured::derive_wrappers`).
    ///
    /// The registrations stay in force for the life of the program. Threads that call
    /// `global()` while the first one registers wait for it to finish, so they never see a
    /// partly registered dispatcher. A call of `global()` made on the registering thread
    /// during registration (from a kernel's registration code, say) does not deadlock: it
    /// gets the dispatcher with the registrations made so far.
    ///
    /// # Panics
    ///
    /// If a link-time registration failed, as PyTorch aborts at static initialisation: a
    /// duplicate `def` with another schema, a kernel whose signature does not fit its
    /// schema, a kernel attached to an operator that no `def` names (a misspelt
    /// `op = "aten::rleu"`), ... The message lists every failure. It panics on every call
    /// until the failures are handled: [`Dispatcher::try_global`] returns them instead, and
    /// from then on `global()` returns the dispatcher (without the failed registrations).
    ///
    /// Rust links a dependency only if the program names it: a crate that does nothing but
    /// register kernels needs a `use that_crate as _;` somewhere in the program.
    /// Registrations made at run time with [`Dispatcher::library`] and friends add to the
    /// global dispatcher as to any other.
    pub fn global() -> &'static Dispatcher {
        link::global()
    }

    /// [`Dispatcher::global`], with the link-time registrations that failed returned as an
    /// error instead of a panic. Once they are returned, they count as handled: later calls
    /// of `global()` (and of the generated functions) return the dispatcher, in which the
    /// failed registrations are absent.
    ///
    /// ```
    /// use opgen_core::dispatch::Dispatcher;
    /// let dispatcher = match Dispatcher::try_global() {
    ///     Ok(dispatcher) => dispatcher,
    ///     Err(errors) => {
    ///         eprintln!("{errors}"); // every failure, with its site
    ///         errors.dispatcher()
    ///     }
    /// };
    /// # let _ = dispatcher;
    /// ```
    pub fn try_global() -> Result<&'static Dispatcher, LinkErrors> {
        link::try_global()
    }

    /// The link-time registrations of [`Dispatcher::global`] that failed, in registration
    /// order, without panicking (and without counting them as handled, which
    /// [`Dispatcher::try_global`] does). Makes the registrations first if they were not made
    /// yet.
    ///
    /// ```
    /// use opgen_core::dispatch::Dispatcher;
    /// assert!(Dispatcher::global_errors().is_empty());
    /// ```
    pub fn global_errors() -> &'static [Error] {
        link::global_errors()
    }

    /// The warnings of the link-time registrations (a kernel overriding another at the same
    /// key, from another site), in registration order. They were also reported as they
    /// happened, to standard error.
    pub fn global_warnings() -> &'static [Warning] {
        link::global_warnings()
    }

    /// A new dispatcher, independent of the global one, without operators. Like every
    /// dispatcher (and like c10's once ATen is loaded) it starts with fallthrough fallbacks
    /// at `BackendSelect`, `ADInplaceOrView`, `Tracer`, the autocast keys and every autograd
    /// key, so that tensors may carry those keys (and every thread includes `BackendSelect`,
    /// [`tls::DEFAULT_INCLUDED`](super::tls::DEFAULT_INCLUDED)) before any kernel for them
    /// exists: operators without such a kernel skip the key. A fallback registered at one of
    /// these keys replaces the default while it lives; dropping it brings the default back.
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// # #[derive(Clone)] struct MyTensor(DispatchKeySet);
    /// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
    /// let d = Dispatcher::new();
    /// let lib = d.library("demo")?;
    /// let _def = lib.def("neg(Tensor self) -> Tensor")?;
    /// let _cpu = lib.impl_("neg", DispatchKey::CPU, |t: &MyTensor| t.clone())?;
    /// let neg = d.typed::<_, (&MyTensor,), MyTensor>("demo::neg", "")?;
    /// use DispatchKey as K;
    /// let t = MyTensor(DispatchKeySet::from_keys(&[K::CPU, K::ADInplaceOrView, K::AutogradCPU, K::Tracer]));
    /// assert!(neg.try_call(&t).is_ok()); // every layer above CPU falls through
    /// assert!(d.find("demo::neg", "")?.dispatch_table().get(K::AutogradCPU).is_default());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn new() -> Dispatcher {
        let registry = Registry {
            ops: Vec::new(),
            overloads: FxHashMap::default(),
            fallbacks: (0..DispatchKey::NUM_RUNTIME)
                .map(|i| builtin_fallback(DispatchKey::ALL[i]))
                .collect(),
            namespaces: HashMap::new(),
            warned: HashSet::new(),
            next_id: 1,
        };
        Dispatcher {
            inner: Arc::new(Inner {
                registry: Mutex::new(registry),
                index: NameIndex::new(),
                warning_hook: Mutex::new(None),
            }),
        }
    }

    /// The operator `name` (`aten::add`) with overload `overload` (`Tensor`; `""` for
    /// none). Fails if no `def` for it is registered, with PyTorch's "Could not find schema
    /// for ..." and the overloads the name does have.
    ///
    /// A lookup takes no lock and allocates nothing: an interpreter may call it on every
    /// call, from many threads at once.
    #[inline]
    pub fn find(&self, name: &str, overload: &str) -> Result<OperatorHandle, Error> {
        match self.handle(name_hash(name, overload), name, overload) {
            Some(op) if op.table().has_info() => Ok(op),
            _ => self.find_slow(name, overload),
        }
    }

    /// A handle of the operator with this name, whatever its state. The global dispatcher's
    /// entries live for the whole program: a handle of one is a plain reference (see
    /// `OperatorHandle::entry`).
    #[inline(always)]
    fn handle(&self, hash: u64, name: &str, overload: &str) -> Option<OperatorHandle> {
        let entry = match link::global_if_created() {
            Some(global) if Arc::ptr_eq(&global.inner, &self.inner) => {
                Shared::from_static(&**global.inner.index.get(hash, name, overload)?)
            }
            _ => Shared::from_arc(self.inner.index.get(hash, name, overload)?.clone()),
        };
        OperatorHandle::new(entry)
    }

    /// [`Dispatcher::find`] for an operator whose table is not built yet, or that is missing.
    #[cold]
    #[inline(never)]
    fn find_slow(&self, name: &str, overload: &str) -> Result<OperatorHandle, Error> {
        // `find("ns::op.overload", "")` names the overload in the name.
        if overload.is_empty()
            && let Some((op, overload)) = name.rsplit_once('.')
            && !overload.contains("::")
        {
            return self.find(op, overload);
        }
        let entry = self
            .inner
            .index
            .get(name_hash(name, overload), name, overload);
        let mut registry = self.inner.lock();
        if let Some(entry) = entry {
            registry.make_ready(entry.id);
            if registry.op(entry.id).is_some_and(|op| op.def.is_some())
                && let Some(op) = self.handle(entry.hash, name, overload)
            {
                return Ok(op);
            }
        }
        let error = registry.not_found(name, overload, entry.map(|e| e.id));
        drop(registry);
        Err(error.with_link_errors(self))
    }

    /// A typed handle to an operator: `A` is the tuple of the kernel parameter types, `R` the
    /// return type, `T` the tensor type (usually `_`). Checked against the schema the first
    /// time this signature is asked for; its calls do no lookup, locking or allocation.
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// # #[derive(Clone)] struct MyTensor(DispatchKeySet);
    /// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
    /// let d = Dispatcher::new();
    /// let lib = d.library("demo")?;
    /// let _def = lib.def("neg(Tensor self) -> Tensor")?;
    /// let _cpu = lib.impl_("neg", DispatchKey::CPU, |t: &MyTensor| t.clone())?;
    /// let neg = d.typed::<_, (&MyTensor,), MyTensor>("demo::neg", "")?;
    /// let t = MyTensor(DispatchKey::CPU.into());
    /// assert_eq!(neg.call(&t).0, t.0);
    /// assert!(d.typed::<_, (&MyTensor, i64), MyTensor>("demo::neg", "").is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn typed<T: Tensor, A: KernelArgs<T>, R: RetValue<T>>(
        &self,
        name: &str,
        overload: &str,
    ) -> Result<TypedOperator<T, A::Families, R>, Error> {
        self.find(name, overload)?
            .into_typed_families::<T, A::Families, R>()
    }
}

/// An operator with a `def`, by name, with its schema.
pub(crate) struct DefinedOperator {
    /// `ns::op.overload`.
    pub(crate) full_name: String,
    pub(crate) schema: Arc<operator::Schema>,
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.operators().iter().map(|op| op.to_string()).collect();
        f.debug_struct("Dispatcher")
            .field("operators", &names)
            .finish()
    }
}

/// `ns::op.overload` → (`ns::op`, `overload`).
pub(crate) fn split_full_name(full: &str) -> (&str, &str) {
    match full.rsplit_once('.') {
        Some((name, overload)) if !overload.contains("::") => (name, overload),
        _ => (full, ""),
    }
}

/// The id of the fallbacks every dispatcher starts with; registrations count from 1.
pub(crate) const BUILTIN: RegistrationId = RegistrationId(0);

/// The fallback every dispatcher has at `key` until a registration replaces it, as c10 has
/// once ATen is loaded: a fallthrough at the keys whose layer only does work when an
/// operator has a kernel for it: `BackendSelect`, `ADInplaceOrView`, `Tracer`, the autocast
/// keys, and every autograd key (PyTorch's framework autograd fallback, which in its default
/// mode only passes the call on below autograd). Nothing at the other keys.
pub(crate) fn builtin_fallback(key: DispatchKey) -> Option<FallbackReg> {
    use DispatchKey as K;
    let autocast = matches!(
        key,
        K::AutocastCPU
            | K::AutocastMTIA
            | K::AutocastMAIA
            | K::AutocastXPU
            | K::AutocastIPU
            | K::AutocastHPU
            | K::AutocastXLA
            | K::AutocastMPS
            | K::AutocastCUDA
            | K::AutocastPrivateUse1
    );
    let fallthrough = autocast
        || key.is_autograd()
        || matches!(key, K::BackendSelect | K::ADInplaceOrView | K::Tracer);
    fallthrough.then(|| FallbackReg {
        id: BUILTIN,
        kernel: None,
        site: std::panic::Location::caller(),
    })
}

impl Inner {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        // Registry updates finish before any user code runs (user values are dropped, and
        // warnings reported, after the lock is released), so a poisoned lock holds a
        // consistent registry.
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drops what a registry update removed and reports its warnings; call it after the
    /// lock is released, since both run user code.
    pub(crate) fn finish(&self, aftermath: Aftermath) {
        aftermath.finish(self);
    }
}

impl Drop for Inner {
    /// Empties every operator's table, so that what the kernels hold is freed with the
    /// dispatcher even when it is a handle of their own operator (a cycle through the
    /// operator's entry otherwise). Handles that outlive the dispatcher find no `def`.
    fn drop(&mut self) {
        let registry = self
            .registry
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        for table in registry.ops.iter().filter_map(|op| op.entry.table.get()) {
            table.publish(UNBUILT.clone());
        }
        drop(reclaim::collect());
    }
}

#[cfg(test)]
impl Inner {
    /// The entry of an operator, whatever its state (for tests of the registry's laziness).
    pub(crate) fn index_entry(&self, name: &str, overload: &str) -> Option<Arc<OperatorEntry>> {
        self.index
            .get(name_hash(name, overload), name, overload)
            .cloned()
    }

    /// Whether the schema of the operator's `def` is parsed (`None` without a `def`).
    pub(crate) fn is_parsed(&self, name: &str, overload: &str) -> Option<bool> {
        let id = self.index_entry(name, overload)?.id;
        let registry = self.lock();
        let def = registry.op(id)?.def.as_ref()?;
        Some(def.info.parsed_facts().is_some())
    }
}
