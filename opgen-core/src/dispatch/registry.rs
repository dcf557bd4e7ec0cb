//! The dispatcher: the registry of operators, kernels and fallbacks behind one lock, and the
//! registration handles that undo what they added.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, Weak};

pub(crate) mod link;
mod registration;

pub use registration::Registration;

use super::erased::TableCell;
use super::error::{Error, ErrorKind, Site};
use super::handle::{OperatorHandle, TypedOperator};
use super::kernel::{ErasedKernel, KernelArgs};
use super::keys::DispatchKey;
use super::returns::RetValue;
use super::table::{DispatchTableDump, FallbackReg, KernelReg, OpInfo, Table, resolve};
use super::tensor::Tensor;

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
/// Registration takes a lock; calls never do: each operator's table is an immutable value
/// published with one atomic store and read with one atomic load.
#[derive(Clone)]
pub struct Dispatcher {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    registry: Mutex<Registry>,
}

struct Registry {
    /// By `ns::op.overload` (or `ns::op`); entries are kept once created, so handles stay valid.
    ops: BTreeMap<String, OpState>,
    /// One per runtime key.
    fallbacks: Vec<Option<FallbackReg>>,
    /// The library that owns each namespace's `def`s.
    namespaces: HashMap<String, (u64, Site)>,
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
    site: Site,
}

/// An operator as calls see it: its name and its current table.
pub(crate) struct OperatorEntry {
    pub(crate) namespace: String,
    /// `ns::op`.
    pub(crate) name: String,
    pub(crate) overload: String,
    pub(crate) table: TableCell<Table>,
    dispatcher: Weak<Inner>,
}

impl OperatorEntry {
    pub(crate) fn full_name(&self) -> String {
        match self.overload.as_str() {
            "" => self.name.clone(),
            overload => format!("{}.{overload}", self.name),
        }
    }

    /// The computed table with the registration serving each key, if the dispatcher lives.
    pub(crate) fn dump(&self) -> DispatchTableDump {
        let Some(inner) = self.dispatcher.upgrade() else {
            return DispatchTableDump::new(self.full_name(), &resolve(&[], &[]));
        };
        let registry = inner.lock();
        // Without a `def`, the table serves nothing, whatever is registered.
        match registry
            .ops
            .get(&self.full_name())
            .filter(|op| op.def.is_some())
        {
            Some(op) => {
                DispatchTableDump::new(self.full_name(), &resolve(&op.kernels, &registry.fallbacks))
            }
            None => DispatchTableDump::new(self.full_name(), &resolve(&[], &[])),
        }
    }
}

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
    ///    naming both schemas and both sites;
    /// 3. every kernel, at each of its keys, checked against the schema.
    ///
    /// The registrations stay in force for the life of the program. Registrations that fail
    /// do not stop the others: they are kept in [`Dispatcher::global_errors`], and
    /// [`Dispatcher::find`] on the global dispatcher repeats those of the operator it cannot
    /// find. Threads that call `global()` while the first one registers wait for it to
    /// finish, so they never see a partly registered dispatcher. A call of `global()` made
    /// on the registering thread during registration (from a kernel's registration code,
    /// say) does not deadlock: it gets the dispatcher with the registrations made so far.
    ///
    /// Rust links a dependency only if the program names it: a crate that does nothing but
    /// register kernels needs a `use that_crate as _;` somewhere in the program.
    /// Registrations made at run time with [`Dispatcher::library`] and friends add to the
    /// global dispatcher as to any other.
    pub fn global() -> &'static Dispatcher {
        link::global()
    }

    /// The link-time registrations of [`Dispatcher::global`] that failed (a duplicate `def`,
    /// a kernel whose signature does not fit the schema, ...), in registration order. Makes
    /// the registrations first if `global()` was not called yet.
    ///
    /// ```
    /// use opgen_core::dispatch::Dispatcher;
    /// for error in Dispatcher::global_errors() {
    ///     eprintln!("opgen: {error}");
    /// }
    /// ```
    pub fn global_errors() -> &'static [Error] {
        link::global_errors()
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
            ops: BTreeMap::new(),
            fallbacks: (0..DispatchKey::NUM_RUNTIME)
                .map(|i| builtin_fallback(DispatchKey::ALL[i]))
                .collect(),
            namespaces: HashMap::new(),
            next_id: 1,
        };
        Dispatcher {
            inner: Arc::new(Inner {
                registry: Mutex::new(registry),
            }),
        }
    }

    /// The operator `name` (`aten::add`) with overload `overload` (`Tensor`; `""` for
    /// none). Fails if no `def` for it is registered.
    pub fn find(&self, name: &str, overload: &str) -> Result<OperatorHandle, Error> {
        let key = if overload.is_empty() {
            name.to_string()
        } else {
            format!("{name}.{overload}")
        };
        let registry = self.inner.lock();
        if let Some(op) = registry.ops.get(&key).filter(|op| op.def.is_some()) {
            return Ok(OperatorHandle {
                entry: op.entry.clone(),
            });
        }
        let known_overloads = registry
            .ops
            .values()
            .filter(|op| op.def.is_some() && op.entry.name == name)
            .map(|op| {
                if op.entry.overload.is_empty() {
                    "(none)".into()
                } else {
                    op.entry.overload.clone()
                }
            })
            .collect();
        drop(registry);
        Err(ErrorKind::OperatorNotFound {
            name: name.to_string(),
            overload: overload.to_string(),
            known_overloads,
            registration_errors: link::errors_of(self, &key),
        }
        .into())
    }

    /// The active kernel at each key the operator `full_name` (`ns::op.overload`) has one
    /// registered at directly (runtime or alias key), in key order; fallthroughs left out.
    pub(crate) fn kernels_of(&self, full_name: &str) -> Vec<(DispatchKey, Arc<ErasedKernel>)> {
        let registry = self.inner.lock();
        let Some(op) = registry.ops.get(full_name) else {
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

    /// A typed handle to an operator: `A` is the tuple of the kernel parameter types, `R` the
    /// return type, `T` the tensor type (usually `_`). Checked against the schema here, once;
    /// its calls do no lookup, locking or allocation.
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
        self.find(name, overload)?.typed::<T, A, R>()
    }

    /// Every operator with a `def`, by name.
    pub fn operators(&self) -> Vec<OperatorHandle> {
        let registry = self.inner.lock();
        (registry.ops.values())
            .filter(|op| op.def.is_some())
            .map(|op| OperatorHandle {
                entry: op.entry.clone(),
            })
            .collect()
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
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.operators().iter().map(|op| op.to_string()).collect();
        f.debug_struct("Dispatcher")
            .field("operators", &names)
            .finish()
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

impl Registry {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// The state of an operator, created (without `def`) if needed.
    fn op(
        &mut self,
        inner: &Arc<Inner>,
        namespace: &str,
        name: &str,
        overload: &str,
    ) -> &mut OpState {
        let key = if overload.is_empty() {
            name.to_string()
        } else {
            format!("{name}.{overload}")
        };
        self.ops.entry(key).or_insert_with(|| OpState {
            entry: Arc::new(OperatorEntry {
                namespace: namespace.to_string(),
                name: name.to_string(),
                overload: overload.to_string(),
                table: TableCell::new(Table::undefined()),
                dispatcher: Arc::downgrade(inner),
            }),
            def: None,
            kernels: Vec::new(),
        })
    }

    fn rebuild_op(&self, key: &str) {
        if let Some(op) = self.ops.get(key) {
            op.rebuild(&self.fallbacks);
        }
    }

    fn rebuild_all(&self) {
        for op in self.ops.values() {
            op.rebuild(&self.fallbacks);
        }
    }
}

impl OpState {
    fn rebuild(&self, fallbacks: &[Option<FallbackReg>]) {
        let info = self.def.as_ref().map(|d| d.info.clone());
        self.entry
            .table
            .publish(Table::build(info, &self.kernels, fallbacks), Table::same);
    }
}
