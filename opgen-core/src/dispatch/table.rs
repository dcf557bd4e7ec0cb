//! The dispatch table of one operator, computed from its registrations by the precedence
//! rules of the module documentation, with c10's entries (`Undefined` and one per runtime
//! key) and fallthrough resolved into a key mask per backend.

use std::fmt;
use std::sync::{Arc, LazyLock};

use super::erased::AnyMut;
use super::erased::{ErasedFn, Functor};
use super::error::{Error, Site};
use super::handle::OperatorHandle;
use super::kernel::{ErasedKernel, KernelKind};
use super::keys::{
    DispatchKey, FUNCTIONALITY_BITS, NUM_BACKENDS, NUM_ENTRIES, REGISTER_BIT, VALID_BITS,
    functionality_bit,
};
use super::keyset::DispatchKeySet;
pub(crate) use super::registry::operator::OpInfo;
use super::registry::{BUILTIN, RegistrationId};

/// A kernel registered for one operator at one key (runtime or alias).
pub(crate) struct KernelReg {
    pub(crate) id: RegistrationId,
    pub(crate) key: DispatchKey,
    /// `None` for a fallthrough.
    pub(crate) kernel: Option<Arc<ErasedKernel>>,
    pub(crate) site: Site,
}

/// A backend fallback, for every operator, at one runtime key.
pub(crate) struct FallbackReg {
    pub(crate) id: RegistrationId,
    /// `None` for a fallthrough.
    pub(crate) kernel: Option<Arc<ErasedKernel>>,
    pub(crate) site: Site,
}

/// What serves one table entry.
pub(crate) enum Resolved<'r> {
    Kernel(&'r KernelReg),
    Fallback(&'r FallbackReg),
    Ambiguous,
    Missing,
}

/// Applies the precedence rules (c10's `computeDispatchTableEntryWithDebug`) to every table
/// entry: `Undefined`, then the runtime keys. `kernels` is in registration order; at each key
/// the newest registration is the active one.
pub(crate) fn resolve<'r>(
    kernels: &'r [KernelReg],
    fallbacks: &'r [Option<FallbackReg>],
) -> Vec<Resolved<'r>> {
    let mut active: Vec<Option<&KernelReg>> = vec![None; DispatchKey::ALL.len()];
    for reg in kernels {
        active[reg.key.index()] = Some(reg);
    }
    let at = |key: DispatchKey| active[key.index()];
    let own_keys: Vec<DispatchKey> = (DispatchKey::ALL[..DispatchKey::NUM_RUNTIME].iter())
        .copied()
        .filter(|&k| at(k).is_some())
        .collect();
    // c10's `hasKernelForAnyDispatchKey`: a runtime key of `keys` has a registration of its
    // own (a fallthrough counts).
    let any_at = |keys: DispatchKeySet| own_keys.iter().any(|&k| keys.contains(k));
    let other_ambiguous = any_at(DispatchKey::AutogradOther.backends());
    use DispatchKey as K;

    // `None` is the Undefined entry, which the composite kernels serve as c10's does.
    let resolve_entry = |key: Option<DispatchKey>| -> Resolved<'r> {
        let covered = |alias: DispatchKey| key.is_none_or(|k| alias.covers(k));
        // Rule 1: a kernel registered directly at the key.
        if let Some(reg) = key.and_then(at) {
            return Resolved::Kernel(reg);
        }
        // Rules 2 and 3: the explicit composites, for the backend keys they cover.
        for alias in [
            K::CompositeExplicitAutogradNonFunctional,
            K::CompositeExplicitAutograd,
        ] {
            if let Some(reg) = at(alias).filter(|_| covered(alias)) {
                return Resolved::Kernel(reg);
            }
        }
        // Rule 4: the implicit composites. CIA gives way to the backend's own kernel and to
        // CEA (so that an autograd key falls through to that kernel); the nested CIA does not.
        let has_backend_kernel =
            key.is_some_and(|k| any_at(k.backends())) || at(K::CompositeExplicitAutograd).is_some();
        let nested = K::CompositeImplicitAutogradNestedTensor;
        if let Some(reg) = at(nested).filter(|_| key.is_some_and(|k| nested.covers(k))) {
            return Resolved::Kernel(reg);
        }
        if let Some(reg) =
            at(K::CompositeImplicitAutograd).filter(|_| covered(K::CompositeImplicitAutograd))
        {
            if key == Some(K::AutogradOther) && other_ambiguous {
                return Resolved::Ambiguous;
            }
            if !has_backend_kernel {
                return Resolved::Kernel(reg);
            }
        }
        let Some(key) = key else {
            return Resolved::Missing;
        };
        // Rule 5: the `Autograd` alias for autograd keys (and functorch's batched
        // decomposition for its key).
        for alias in [K::Autograd, K::FuncTorchBatchedDecomposition] {
            if let Some(reg) = at(alias).filter(|_| alias.covers(key)) {
                return Resolved::Kernel(reg);
            }
        }
        // Rule 6: the backend fallback; rule 7: nothing.
        match fallbacks.get(key.index()) {
            Some(Some(fallback)) => Resolved::Fallback(fallback),
            _ => Resolved::Missing,
        }
    };
    std::iter::once(None)
        .chain(
            DispatchKey::ALL[..DispatchKey::NUM_RUNTIME]
                .iter()
                .map(|&k| Some(k)),
        )
        .map(resolve_entry)
        .collect()
}

/// An operator's dispatch table as registrations compute it: immutable, it owns the kernels
/// that the live table in the operator's entry (which calls read) points to.
pub(crate) struct Table {
    /// Per backend index (of a call's highest backend): the key set bits whose entries are
    /// not fallthroughs (c10's `nonFallthroughKeysPerBackend_`, every backend bit set). A
    /// call's key set is masked with the one of its backend, so a fallthrough costs nothing
    /// per call. When no per-backend entry differs between backends, all 16 are equal (c10's
    /// single-mask case).
    masks: [u64; NUM_BACKENDS],
    /// Entry 0 serves `Undefined`; entry `i + 1` serves runtime key `i`.
    slots: [Arc<ErasedKernel>; NUM_ENTRIES],
    /// The schema facts; `None` while the operator has no `def`.
    pub(crate) info: Option<Arc<OpInfo>>,
    /// The keys (runtime and alias) with registrations for this operator, in key order.
    registered: Vec<DispatchKey>,
}

impl Table {
    /// The table of an operator without `def`: every call fails.
    pub(crate) fn undefined() -> Table {
        Table {
            masks: [VALID_BITS; NUM_BACKENDS],
            slots: std::array::from_fn(|_| MISSING.clone()),
            info: None,
            registered: Vec::new(),
        }
    }

    /// Computes the table (an operator without `def` gets no kernels).
    pub(crate) fn build(
        info: Option<Arc<OpInfo>>,
        kernels: &[KernelReg],
        fallbacks: &[Option<FallbackReg>],
    ) -> Table {
        let Some(info) = info else {
            return Table::undefined();
        };
        let mut registered: Vec<DispatchKey> = kernels.iter().map(|r| r.key).collect();
        registered.sort_unstable();
        registered.dedup();
        let mut table = Table {
            info: Some(info),
            registered,
            ..Table::undefined()
        };
        for (slot, resolved) in resolve(kernels, fallbacks).iter().enumerate() {
            let kernel = match resolved {
                Resolved::Kernel(reg) => reg.kernel.as_ref(),
                Resolved::Fallback(fallback) => fallback.kernel.as_ref(),
                Resolved::Ambiguous => Some(&*AMBIGUOUS),
                Resolved::Missing => Some(&*MISSING),
            };
            match (
                kernel,
                slot.checked_sub(1).and_then(DispatchKey::from_index),
            ) {
                (Some(kernel), _) => table.slots[slot] = kernel.clone(),
                // A fallthrough at a runtime key: its functionality leaves the key sets of
                // calls on its backend (on every backend, if it is not per backend). A call
                // that read the mask of an older table while this one was being mirrored
                // may still land on the slot: it skips the key there.
                (None, Some(key)) => {
                    table.slots[slot] = FALLTHROUGH.clone();
                    let bit = functionality_bit(key);
                    match key.backend() {
                        Some(backend) => table.masks[backend.index()] &= !bit,
                        None => table.masks.iter_mut().for_each(|mask| *mask &= !bit),
                    }
                }
                // A fallthrough at `Undefined` (from a composite key) has nothing below it.
                (None, None) => {}
            }
        }
        table
    }

    /// The key bits that are not fallthroughs for calls whose highest backend has index
    /// `backend`.
    pub(crate) fn mask(&self, backend: usize) -> u64 {
        self.masks.get(backend).copied().unwrap_or(VALID_BITS)
    }

    /// The kernel of entry `index` (a `static`'s or one this table holds).
    pub(crate) fn slot(&self, index: usize) -> *const ErasedKernel {
        self.slots
            .get(index)
            .map_or(Arc::as_ptr(&MISSING), Arc::as_ptr)
    }

    /// The schema facts, null while the operator has no `def`.
    pub(crate) fn info_ptr(&self) -> *const OpInfo {
        self.info.as_ref().map_or(std::ptr::null(), Arc::as_ptr)
    }

    /// A table of an operator without `def` whose masks are `mask` (for tests of tables
    /// that differ).
    #[cfg(test)]
    pub(crate) fn undefined_with_masks(mask: u64) -> Table {
        Table {
            masks: [mask; NUM_BACKENDS],
            ..Table::undefined()
        }
    }

    /// The keys whose entries are not fallthroughs for calls whose highest backend is
    /// `backend` (every backend bit set).
    #[cfg(test)]
    pub(crate) fn non_fallthrough(&self, backend: super::BackendComponent) -> DispatchKeySet {
        DispatchKeySet::from_bits(self.masks[backend.index()])
    }

    /// Whether two tables would dispatch every call identically.
    pub(crate) fn same(a: &Table, b: &Table) -> bool {
        let info_eq = match (&a.info, &b.info) {
            (Some(x), Some(y)) => Arc::ptr_eq(x, y),
            (None, None) => true,
            _ => false,
        };
        info_eq
            && a.masks == b.masks
            && a.registered == b.registered
            && a.slots.iter().zip(&b.slots).all(|(x, y)| Arc::ptr_eq(x, y))
    }

    /// The keys with registrations, in priority order (runtime keys, then alias keys).
    pub(crate) fn registered_keys(&self) -> Vec<DispatchKey> {
        self.registered.clone()
    }
}

fn error_kernel(kind: KernelKind, boxed: super::kernel::BoxedFn) -> Arc<ErasedKernel> {
    Arc::new(ErasedKernel {
        unboxed: ErasedFn::none(),
        functor: Functor::new(()),
        boxed,
        kind,
        name: match kind {
            KernelKind::Missing => "(missing)",
            KernelKind::Ambiguous => "(ambiguous AutogradOther)",
            KernelKind::Kernel => "",
        },
        check: None,
        derive: None,
        structured: None,
    })
}

static MISSING: LazyLock<Arc<ErasedKernel>> = LazyLock::new(|| {
    fn missing(
        _: &Functor,
        op: &OperatorHandle,
        ks: DispatchKeySet,
        _: AnyMut<'_>,
    ) -> Result<(), Error> {
        Err(op.missing_kernel_error(ks))
    }
    error_kernel(KernelKind::Missing, missing)
});

/// The kernel of a fallthrough entry: what a call that landed on it while a registration
/// changed the table gets (the table's masks skip the entry otherwise). It calls the
/// operator again without the entry's functionality, boxed.
static FALLTHROUGH: LazyLock<Arc<ErasedKernel>> = LazyLock::new(|| {
    fn fallthrough(
        _: &Functor,
        op: &OperatorHandle,
        ks: DispatchKeySet,
        stack: AnyMut<'_>,
    ) -> Result<(), Error> {
        let functionalities = ks.bits() & FUNCTIONALITY_BITS;
        if functionalities == 0 {
            return Err(op.missing_kernel_error(ks));
        }
        let highest = 1u64 << (63 - functionalities.leading_zeros());
        op.redispatch_erased(DispatchKeySet::from_valid_bits(ks.bits() & !highest), stack)
    }
    error_kernel(KernelKind::Kernel, fallthrough)
});

/// The kernel of every table's register slot, where a thread's first call lands
/// ([`REGISTER_BIT`]): it registers the thread with the reclamation of tables and calls
/// again, boxed, without the bit.
static REGISTER: LazyLock<Arc<ErasedKernel>> = LazyLock::new(|| {
    fn register(
        _: &Functor,
        op: &OperatorHandle,
        ks: DispatchKeySet,
        stack: AnyMut<'_>,
    ) -> Result<(), Error> {
        super::reclaim::register_thread();
        op.redispatch_erased(
            DispatchKeySet::from_valid_bits(ks.bits() & !REGISTER_BIT),
            stack,
        )
    }
    error_kernel(KernelKind::Kernel, register)
});

/// The kernel of the register slot.
pub(crate) fn register_kernel() -> &'static Arc<ErasedKernel> {
    &REGISTER
}

static AMBIGUOUS: LazyLock<Arc<ErasedKernel>> = LazyLock::new(|| {
    fn ambiguous(
        _: &Functor,
        op: &OperatorHandle,
        _: DispatchKeySet,
        _: AnyMut<'_>,
    ) -> Result<(), Error> {
        Err(op.ambiguous_error())
    }
    error_kernel(KernelKind::Ambiguous, ambiguous)
});

/// What serves one runtime key of an operator: one row of [`DispatchTableDump`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServedBy {
    /// A registration for this operator, at the key itself or at an alias key covering it.
    Kernel {
        /// The key the registration was made at.
        key: DispatchKey,
        /// The registration.
        registration: RegistrationId,
        /// Where it was made.
        site: Site,
        /// The kernel's Rust path (`my_crate::add_cpu`, or a closure's); empty for a
        /// fallthrough.
        kernel: &'static str,
        /// It is a fallthrough: calls skip to the next key of their key set.
        fallthrough: bool,
    },
    /// The backend fallback registered for this key.
    Fallback {
        /// The registration.
        registration: RegistrationId,
        /// Where it was made.
        site: Site,
        /// The kernel's Rust path; empty for a fallthrough.
        kernel: &'static str,
        /// It is a fallthrough: calls skip to the next key of their key set.
        fallthrough: bool,
    },
    /// `AutogradOther` when both `CompositeImplicitAutograd` and a backend mapped to
    /// `AutogradOther` have kernels: calling it is an error.
    Ambiguous,
    /// Nothing: calling it is an error.
    Missing,
}

/// The computed dispatch table of one operator: which registration serves its `Undefined`
/// entry (calls without functionality keys, such as an operator without tensor arguments)
/// and each runtime key. `Display` lists the entries that are not [`ServedBy::Missing`],
/// `Undefined` first, then, on one line, the keys served by the default fallthroughs every
/// dispatcher has ([`ServedBy::is_default`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchTableDump {
    /// `ns::op.overload`.
    pub operator: String,
    /// The `Undefined` entry.
    pub undefined: ServedBy,
    /// One row per runtime key, lowest priority first.
    pub entries: Vec<(DispatchKey, ServedBy)>,
}

impl ServedBy {
    fn from_resolved(resolved: &Resolved<'_>) -> ServedBy {
        match resolved {
            Resolved::Kernel(reg) => ServedBy::Kernel {
                key: reg.key,
                registration: reg.id,
                site: reg.site,
                kernel: reg.kernel.as_ref().map_or("", |k| k.name),
                fallthrough: reg.kernel.is_none(),
            },
            Resolved::Fallback(f) => ServedBy::Fallback {
                registration: f.id,
                site: f.site,
                kernel: f.kernel.as_ref().map_or("", |k| k.name),
                fallthrough: f.kernel.is_none(),
            },
            Resolved::Ambiguous => ServedBy::Ambiguous,
            Resolved::Missing => ServedBy::Missing,
        }
    }

    /// Where the registration was made (`None` for `Ambiguous` and `Missing`).
    pub fn site(&self) -> Option<Site> {
        match self {
            ServedBy::Kernel { site, .. } | ServedBy::Fallback { site, .. } => Some(*site),
            ServedBy::Ambiguous | ServedBy::Missing => None,
        }
    }

    /// A fallback every dispatcher starts with (see [`Dispatcher::new`](super::Dispatcher::new)),
    /// not one a library registered.
    pub fn is_default(&self) -> bool {
        matches!(self, ServedBy::Fallback { registration, .. } if *registration == BUILTIN)
    }
}

impl DispatchTableDump {
    pub(crate) fn new(operator: String, resolved: &[Resolved<'_>]) -> DispatchTableDump {
        let entries = (resolved.iter().skip(1).enumerate())
            .map(|(i, r)| (DispatchKey::ALL[i], ServedBy::from_resolved(r)))
            .collect();
        DispatchTableDump {
            operator,
            undefined: resolved
                .first()
                .map_or(ServedBy::Missing, ServedBy::from_resolved),
            entries,
        }
    }

    /// What serves `key` (`Missing` for alias keys, which have no entry).
    pub fn get(&self, key: DispatchKey) -> ServedBy {
        self.entries
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(ServedBy::Missing, |(_, s)| *s)
    }
}

impl fmt::Display for ServedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServedBy::Kernel {
                key,
                site,
                fallthrough: true,
                ..
            } => write!(f, "fallthrough registered at {key} ({site})"),
            ServedBy::Kernel {
                key, site, kernel, ..
            } => write!(f, "kernel {kernel} registered at {key} ({site})"),
            ServedBy::Fallback { fallthrough, .. } if self.is_default() => {
                let kind = if *fallthrough { "fallthrough" } else { "boxed" };
                write!(f, "default {kind} fallback")
            }
            ServedBy::Fallback {
                site,
                fallthrough: true,
                ..
            } => write!(f, "fallthrough fallback ({site})"),
            ServedBy::Fallback { site, kernel, .. } => {
                write!(f, "boxed fallback {kernel} ({site})")
            }
            ServedBy::Ambiguous => f.write_str(
                "ambiguous: CompositeImplicitAutograd and a backend mapped to AutogradOther",
            ),
            ServedBy::Missing => f.write_str("missing"),
        }
    }
}

impl fmt::Display for DispatchTableDump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.operator)?;
        let undefined = ("Undefined", &self.undefined);
        let rows = (self.entries.iter()).map(|(key, served)| (key.name(), served));
        let mut defaults = Vec::new();
        for (key, served) in std::iter::once(undefined).chain(rows) {
            match served {
                ServedBy::Missing => {}
                served if served.is_default() => defaults.push(key),
                served => write!(f, "\n  {key}: {served}")?,
            }
        }
        // The defaults every dispatcher has, on one line: they are the same for every operator.
        if !defaults.is_empty() {
            write!(f, "\n  default fallthrough: {}", defaults.join(", "))?;
        }
        Ok(())
    }
}
