//! The dispatch table of one operator, computed from its registrations by the precedence
//! rules of the module documentation, with fallthrough resolved into a key mask.

use std::fmt;
use std::sync::{Arc, LazyLock};

use super::erased::AnyMut;
use super::erased::{ErasedFn, Functor};
use super::error::{Error, Site};
use super::handle::OperatorHandle;
use super::kernel::{ErasedKernel, KernelKind};
use super::keys::DispatchKey;
use super::keyset::DispatchKeySet;
use super::registry::RegistrationId;
pub(crate) use super::registry::operator::OpInfo;

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

/// What serves one runtime key.
pub(crate) enum Resolved<'r> {
    Kernel(&'r KernelReg),
    Fallback(&'r FallbackReg),
    Ambiguous,
    Missing,
}

/// Applies the precedence rules to every runtime key. `kernels` is in registration order; at
/// each key the newest registration is the active one.
pub(crate) fn resolve<'r>(
    kernels: &'r [KernelReg],
    fallbacks: &'r [Option<FallbackReg>],
) -> Vec<Resolved<'r>> {
    let mut active: Vec<Option<&KernelReg>> = vec![None; DispatchKey::ALL.len()];
    for reg in kernels {
        active[reg.key.index()] = Some(reg);
    }
    let at = |key: DispatchKey| active[key.index()];
    let any_at = |keys: DispatchKeySet| keys.iter().any(|k| at(k).is_some());
    let covers = |alias: DispatchKey, key: DispatchKey| alias.runtime_keys().contains(key);
    use DispatchKey as K;

    let resolve_key = |key: DispatchKey| -> Resolved<'r> {
        // Rule 1: a kernel registered directly at the key.
        if let Some(reg) = at(key) {
            return Resolved::Kernel(reg);
        }
        // Rules 2 and 3: the explicit composites, for the backend keys they cover.
        for alias in [
            K::CompositeExplicitAutogradNonFunctional,
            K::CompositeExplicitAutograd,
        ] {
            if let Some(reg) = at(alias).filter(|_| covers(alias, key)) {
                return Resolved::Kernel(reg);
            }
        }
        // Rule 4: the implicit composites. At an autograd key they give way to the backend's
        // own kernel and to CEA, so autograd falls through to that kernel instead.
        let has_backend_kernel = key.is_autograd()
            && (any_at(key.backends()) || at(K::CompositeExplicitAutograd).is_some());
        if let Some(reg) = at(K::CompositeImplicitAutogradNestedTensor)
            && covers(K::CompositeImplicitAutogradNestedTensor, key)
            && !has_backend_kernel
        {
            return Resolved::Kernel(reg);
        }
        if let Some(reg) =
            at(K::CompositeImplicitAutograd).filter(|_| covers(K::CompositeImplicitAutograd, key))
        {
            if key == K::AutogradOther && any_at(key.backends()) {
                return Resolved::Ambiguous;
            }
            if !has_backend_kernel {
                return Resolved::Kernel(reg);
            }
        }
        // Rule 5: the `Autograd` alias, for autograd keys.
        if let Some(reg) = at(K::Autograd).filter(|_| key.is_autograd()) {
            return Resolved::Kernel(reg);
        }
        // Rule 6: the backend fallback; rule 7: nothing.
        match fallbacks.get(key.index()) {
            Some(Some(fallback)) => Resolved::Fallback(fallback),
            _ => Resolved::Missing,
        }
    };
    DispatchKey::ALL[..DispatchKey::NUM_RUNTIME]
        .iter()
        .map(|&k| resolve_key(k))
        .collect()
}

const NUM_SLOTS: usize = DispatchKey::NUM_RUNTIME + 1;

/// An operator's dispatch table: immutable once published.
pub(crate) struct Table {
    /// The runtime keys whose entry is not a fallthrough; every call's key set is masked
    /// with it, so a fallthrough costs nothing per call.
    pub(crate) mask: DispatchKeySet,
    /// Slot 0 serves the empty key set; slot `i + 1` serves runtime key `i`.
    slots: [Arc<ErasedKernel>; NUM_SLOTS],
    /// The schema facts; `None` while the operator has no `def`.
    pub(crate) info: Option<Arc<OpInfo>>,
    /// The keys (runtime and alias, by index) with registrations for this operator.
    pub(crate) registered: u64,
}

impl Table {
    /// The table of an operator without `def`: every call fails.
    pub(crate) fn undefined() -> Table {
        Table {
            mask: DispatchKeySet::FULL,
            slots: std::array::from_fn(|_| MISSING.clone()),
            info: None,
            registered: 0,
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
        let mut table = Table {
            info: Some(info),
            registered: kernels.iter().fold(0, |bits, r| bits | 1 << r.key.index()),
            ..Table::undefined()
        };
        for (i, resolved) in resolve(kernels, fallbacks).iter().enumerate() {
            let kernel = match resolved {
                Resolved::Kernel(reg) => reg.kernel.as_ref(),
                Resolved::Fallback(fallback) => fallback.kernel.as_ref(),
                Resolved::Ambiguous => Some(&*AMBIGUOUS),
                Resolved::Missing => Some(&*MISSING),
            };
            match kernel {
                Some(kernel) => table.slots[i + 1] = kernel.clone(),
                None => table.mask = table.mask.remove(DispatchKey::ALL[i]),
            }
        }
        table
    }

    /// The kernel for a masked key set.
    #[inline(always)]
    pub(crate) fn kernel(&self, ks: DispatchKeySet) -> &ErasedKernel {
        match self.slots.get(ks.table_index()) {
            Some(kernel) => kernel,
            None => &self.slots[0],
        }
    }

    /// Whether two tables would dispatch every call identically.
    pub(crate) fn same(a: &Table, b: &Table) -> bool {
        let info_eq = match (&a.info, &b.info) {
            (Some(x), Some(y)) => Arc::ptr_eq(x, y),
            (None, None) => true,
            _ => false,
        };
        info_eq
            && a.mask == b.mask
            && a.registered == b.registered
            && a.slots.iter().zip(&b.slots).all(|(x, y)| Arc::ptr_eq(x, y))
    }

    /// The keys with registrations, in priority order (runtime keys, then alias keys).
    pub(crate) fn registered_keys(&self) -> Vec<DispatchKey> {
        DispatchKey::ALL
            .iter()
            .copied()
            .filter(|k| self.registered & (1 << k.index()) != 0)
            .collect()
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

/// The computed dispatch table of one operator: which registration serves each runtime key.
/// `Display` lists the keys that are not [`ServedBy::Missing`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchTableDump {
    /// `ns::op.overload`.
    pub operator: String,
    /// One row per runtime key, lowest priority first.
    pub entries: Vec<(DispatchKey, ServedBy)>,
}

impl DispatchTableDump {
    pub(crate) fn new(operator: String, resolved: &[Resolved<'_>]) -> DispatchTableDump {
        let entries = resolved
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let served = match r {
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
                };
                (DispatchKey::ALL[i], served)
            })
            .collect();
        DispatchTableDump { operator, entries }
    }

    /// What serves `key` (`Missing` for alias keys, which have no entry).
    pub fn get(&self, key: DispatchKey) -> ServedBy {
        self.entries
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(ServedBy::Missing, |(_, s)| *s)
    }
}

impl fmt::Display for DispatchTableDump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.operator)?;
        for (key, served) in &self.entries {
            let what = match served {
                ServedBy::Kernel {
                    key: at,
                    site,
                    kernel,
                    fallthrough: false,
                    ..
                } => format!("kernel {kernel} registered at {at} ({site})"),
                ServedBy::Kernel {
                    key: at,
                    site,
                    fallthrough: true,
                    ..
                } => format!("fallthrough registered at {at} ({site})"),
                ServedBy::Fallback {
                    site,
                    kernel,
                    fallthrough: false,
                    ..
                } => format!("boxed fallback {kernel} ({site})"),
                ServedBy::Fallback {
                    site,
                    fallthrough: true,
                    ..
                } => format!("fallthrough fallback ({site})"),
                ServedBy::Ambiguous => {
                    "ambiguous: CompositeImplicitAutograd and a backend mapped to AutogradOther"
                        .into()
                }
                ServedBy::Missing => continue,
            };
            write!(f, "\n  {key}: {what}")?;
        }
        Ok(())
    }
}
