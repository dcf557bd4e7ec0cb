//! The dispatcher: the registry of operators, kernels and fallbacks behind one lock, an
//! index that finds operators by name without it, and the registration handles that undo
//! what they added.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

mod dump;
mod index;
pub(crate) mod link;
pub(crate) mod operator;
mod registration;
mod warning;

pub use link::LinkErrors;
pub use registration::Registration;
pub use warning::{Warning, WarningHook};

use super::erased::{Shared, TableCell};
use super::error::{Error, ErrorKind, Site};
use super::handle::{OperatorHandle, TypedOperator};
use super::kernel::{ErasedKernel, KernelArgs};
use super::keys::DispatchKey;
use super::returns::RetValue;
use super::table::{FallbackReg, KernelReg, Table};
use super::tensor::Tensor;
use index::NameIndex;
use operator::{OpInfo, OperatorEntry, QualifiedName, base_hash, name_hash};
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
    /// dispatcher it has a fallthrough fallback at `BackendSelect` (PyTorch's), so that
    /// operators without a `BackendSelect` kernel skip that key, which every thread includes
    /// ([`tls::DEFAULT_INCLUDED`](super::tls::DEFAULT_INCLUDED)). A fallback registered at
    /// `BackendSelect` replaces it while it lives.
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
            Some(op) if is_defined(&op.entry) => Ok(op),
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
        Some(OperatorHandle { entry })
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
        let entry = self.inner.index.get(name_hash(name, overload), name, overload);
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

    /// Every operator with a `def`, by name.
    pub fn operators(&self) -> Vec<OperatorHandle> {
        let mut registry = self.inner.lock();
        let ids: Vec<u32> = (registry.ops.iter())
            .filter(|op| op.def.is_some())
            .map(|op| op.entry.id)
            .collect();
        let mut handles: Vec<OperatorHandle> = (ids.into_iter())
            .filter_map(|id| {
                registry.make_ready(id);
                registry.op(id).map(|op| OperatorHandle {
                    entry: Shared::from_arc(op.entry.clone()),
                })
            })
            .collect();
        drop(registry);
        handles.sort_by(|a, b| a.entry.full_name().cmp(b.entry.full_name()));
        handles
    }

    /// The operators that have kernels but no `def` ("dangling impls", as c10's
    /// `_dispatch_find_dangling_impls`): a kernel attached to a name that nothing defines,
    /// or whose `def` has not come yet. Their [`OperatorHandle::dump_state`] shows the
    /// kernels and their sites.
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// # #[derive(Clone)] struct MyTensor(DispatchKeySet);
    /// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
    /// let d = Dispatcher::new();
    /// let _typo = d.impls("demo").impl_("rleu", DispatchKey::CPU, |t: &MyTensor| t.clone())?;
    /// let dangling = d.dangling_impls();
    /// assert_eq!(dangling.len(), 1);
    /// assert_eq!(dangling[0].to_string(), "demo::rleu");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn dangling_impls(&self) -> Vec<OperatorHandle> {
        let registry = self.inner.lock();
        let mut handles: Vec<OperatorHandle> = (registry.ops.iter())
            .filter(|op| op.def.is_none() && !op.kernels.is_empty())
            .map(|op| OperatorHandle {
                entry: Shared::from_arc(op.entry.clone()),
            })
            .collect();
        drop(registry);
        handles.sort_by(|a, b| a.entry.full_name().cmp(b.entry.full_name()));
        handles
    }

    /// The keys with a backend fallback, with its site and whether it is a fallthrough.
    pub fn fallbacks(&self) -> Vec<(DispatchKey, Site, bool)> {
        let registry = self.inner.lock();
        (registry.fallbacks.iter().enumerate())
            .filter_map(|(i, f)| {
                f.as_ref()
                    .map(|f| (DispatchKey::ALL[i], f.site, f.kernel.is_none()))
            })
            .collect()
    }

    /// The active kernel at each key the operator `full_name` (`ns::op.overload`) has one
    /// registered at directly (runtime or alias key), in key order; fallthroughs left out.
    pub(crate) fn kernels_of(&self, full_name: &str) -> Vec<(DispatchKey, Arc<ErasedKernel>)> {
        let (name, overload) = split_full_name(full_name);
        let Some(entry) = self.inner.index.get(name_hash(name, overload), name, overload) else {
            return Vec::new();
        };
        let registry = self.inner.lock();
        let Some(op) = registry.op(entry.id) else {
            return Vec::new();
        };
        let mut active: BTreeMap<DispatchKey, Option<&Arc<ErasedKernel>>> = BTreeMap::new();
        for reg in &op.kernels {
            active.insert(reg.key, reg.kernel.as_ref());
        }
        (active.into_iter())
            .filter_map(|(key, kernel)| Some((key, kernel?.clone())))
            .collect()
    }

    /// The operators with a `def` named `name` (`ns::op`), any overload, with their
    /// schemas (parsed now; those that do not parse are left out). Their tables are not
    /// built: [`Dispatcher::find`] gives a handle.
    pub(crate) fn overloads_of(&self, name: &str) -> Vec<DefinedOperator> {
        let registry = self.inner.lock();
        (registry.overload_ids(name).into_iter())
            .filter_map(|id| registry.defined(id))
            .collect()
    }

    /// The "not found" error of `name` / `overload`, naming the most similar operator name of
    /// its namespace, if one is close (a typo): a scan of every operator, for link-time
    /// reports only (lookups stay lookups).
    pub(crate) fn not_found_with_suggestion(&self, name: &str, overload: &str) -> Error {
        let entry = self.inner.index.get(name_hash(name, overload), name, overload);
        let registry = self.inner.lock();
        let error = registry.not_found(name, overload, entry.map(|e| e.id));
        let namespace = name.split_once("::").map_or("", |(ns, _)| ns);
        let similar = (registry.ops.iter())
            .filter(|op| op.def.is_some() && op.entry.qualified.namespace() == namespace)
            .map(|op| op.entry.full_name())
            .filter_map(|candidate| {
                let wanted = match overload {
                    "" => name.to_string(),
                    overload => format!("{name}.{overload}"),
                };
                let distance = edit_distance(&wanted, candidate, 2)?;
                Some((distance, candidate.to_string()))
            })
            .min();
        drop(registry);
        let mut kind = error.into_kind();
        if let ErrorKind::OperatorNotFound { did_you_mean, .. } = &mut kind {
            *did_you_mean = similar.map(|(_, name)| name);
        }
        kind.into()
    }

    /// The operators with a `def` and at least one kernel (not a fallthrough), in
    /// registration order, as [`Dispatcher::overloads_of`] gives them.
    pub(crate) fn defined_with_kernels(&self) -> Vec<DefinedOperator> {
        let registry = self.inner.lock();
        (registry.ops.iter())
            .filter(|op| op.kernels.iter().any(|k| k.kernel.is_some()))
            .filter_map(|op| registry.defined(op.entry.id))
            .collect()
    }
}

/// An operator with a `def`, by name, with its schema.
pub(crate) struct DefinedOperator {
    /// `ns::op.overload`.
    pub(crate) full_name: String,
    pub(crate) namespace: String,
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

/// The edit distance of `a` and `b` (insertions, deletions, substitutions of bytes), if at
/// most `limit`.
fn edit_distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(x != y)).min(above + 1).min(row[j] + 1);
            diagonal = above;
        }
    }
    let distance = row[b.len()];
    (distance <= limit).then_some(distance)
}

/// Whether the operator has a `def`, as its published table says; `false` as well while its
/// table is not built (the slow path of `find` builds it).
#[inline(always)]
fn is_defined(entry: &OperatorEntry) -> bool {
    entry.is_ready() && entry.table.load().info.is_some()
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

/// The fallback every dispatcher has at `key` until a registration replaces it: a
/// fallthrough at `BackendSelect`, nothing elsewhere.
pub(crate) fn builtin_fallback(key: DispatchKey) -> Option<FallbackReg> {
    (key == DispatchKey::BackendSelect).then(|| FallbackReg {
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

#[cfg(test)]
impl Inner {
    /// The entry of an operator, whatever its state (for tests of the registry's laziness).
    pub(crate) fn index_entry(&self, name: &str, overload: &str) -> Option<Arc<OperatorEntry>> {
        self.index.get(name_hash(name, overload), name, overload).cloned()
    }
}

impl Registry {
    /// The operator `id` with its schema, if it has a `def` whose schema parses.
    fn defined(&self, id: u32) -> Option<DefinedOperator> {
        let op = self.op(id)?;
        let schema = op.def.as_ref()?.info.schema().ok()?;
        Some(DefinedOperator {
            full_name: op.entry.full_name().to_string(),
            namespace: op.entry.qualified.namespace().to_string(),
            schema: schema.clone(),
        })
    }

    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    fn op(&self, id: u32) -> Option<&OpState> {
        self.ops.get(id as usize)
    }

    fn op_mut(&mut self, id: u32) -> Option<&mut OpState> {
        self.ops.get_mut(id as usize)
    }

    /// The id of the operator `name` (`ns::op`) with `overload`, created (without `def`) if
    /// needed.
    fn op_id(
        &mut self,
        inner: &Arc<Inner>,
        namespace: &str,
        name: &str,
        overload: &str,
    ) -> u32 {
        let hash = name_hash(name, overload);
        if let Some(entry) = inner.index.get(hash, name, overload) {
            return entry.id;
        }
        let op = name.strip_prefix(namespace).and_then(|n| n.strip_prefix("::"));
        let id = u32::try_from(self.ops.len()).unwrap_or(u32::MAX);
        let entry = Arc::new(OperatorEntry {
            id,
            qualified: QualifiedName::new(namespace, op.unwrap_or(name), overload),
            hash,
            table: TableCell::shared(UNBUILT.clone()),
            ready: Default::default(),
            dispatcher: Arc::downgrade(inner),
        });
        inner
            .index
            .insert(&entry, self.ops.iter().map(|op| &op.entry));
        self.overloads.entry(base_hash(name)).or_default().push(id);
        self.ops.push(OpState {
            entry,
            def: None,
            kernels: Vec::new(),
        });
        id
    }

    /// The ids of the operators named `name` (`ns::op`), any overload, with or without `def`.
    fn overload_ids(&self, name: &str) -> Vec<u32> {
        (self.overloads.get(&base_hash(name)).into_iter().flatten())
            .copied()
            .filter(|&id| self.op(id).is_some_and(|op| op.entry.qualified.name() == name))
            .collect()
    }

    /// Builds the operator's table if nobody has looked it up yet; from then on every
    /// registration that concerns it rebuilds it at once.
    fn make_ready(&mut self, id: u32) {
        let Some(op) = self.op(id) else { return };
        if !op.entry.is_ready() {
            // A lookup is when a link-time schema is first needed: parse it (an invalid one
            // is reported by the calls that need it).
            if let Some(def) = &op.def {
                let _ = def.info.facts();
            }
            op.publish(&self.fallbacks);
            op.entry.ready.store(true, std::sync::atomic::Ordering::Release);
        }
    }

    /// Rebuilds the operator's table after a registration, if it has been looked up.
    fn rebuild_op(&self, id: u32) {
        if let Some(op) = self.op(id).filter(|op| op.entry.is_ready()) {
            op.publish(&self.fallbacks);
        }
    }

    /// Rebuilds every table that has been looked up (after a fallback changed).
    fn rebuild_all(&self) {
        for op in self.ops.iter().filter(|op| op.entry.is_ready()) {
            op.publish(&self.fallbacks);
        }
    }

    /// The "not found" error of `name` / `overload`; `id` is its entry, if it has one (a
    /// dangling impl, or a dropped `def`).
    fn not_found(&self, name: &str, overload: &str, id: Option<u32>) -> Error {
        /// At most this many overloads are listed.
        const LISTED: usize = 16;
        let mut known_overloads: Vec<String> = (self.overload_ids(name).into_iter())
            .filter_map(|id| self.op(id))
            .filter(|op| op.def.is_some())
            .map(|op| match op.entry.qualified.overload() {
                "" => "(none)".to_string(),
                overload => overload.to_string(),
            })
            .collect();
        known_overloads.sort();
        if known_overloads.len() > LISTED {
            let more = known_overloads.len() - LISTED;
            known_overloads.truncate(LISTED);
            known_overloads.push(format!("... ({more} more)"));
        }
        let kernels = id
            .and_then(|id| self.op(id))
            .map(|op| {
                (op.kernels.iter())
                    .map(|k| (k.key, k.site))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        ErrorKind::OperatorNotFound {
            name: name.to_string(),
            overload: overload.to_string(),
            known_overloads,
            kernels,
            did_you_mean: None,
            registration_errors: Vec::new(),
        }
        .into()
    }
}

impl OpState {
    fn publish(&self, fallbacks: &[Option<FallbackReg>]) {
        let info = self.def.as_ref().map(|d| d.info.clone());
        self.entry
            .table
            .publish(Table::build(info, &self.kernels, fallbacks), Table::same);
    }
}

impl Error {
    /// Adds to a "not found" error of the global dispatcher why the operator's link-time
    /// registrations failed.
    fn with_link_errors(self, dispatcher: &Dispatcher) -> Error {
        let mut kind = self.into_kind();
        if let ErrorKind::OperatorNotFound {
            name,
            overload,
            registration_errors,
            ..
        } = &mut kind
        {
            let full = match overload.as_str() {
                "" => name.clone(),
                overload => format!("{name}.{overload}"),
            };
            *registration_errors = link::errors_of(dispatcher, &full);
        }
        kind.into()
    }
}
