//! `DispatchKeySet`: c10's key set, functionality bits plus backend bits.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Sub, SubAssign};

use super::keys::{
    BACKEND_BITS, BackendComponent, DispatchKey, FUNCTIONALITY_BITS, VALID_BITS, backend_index,
    functionality_bit, slot_index,
};

/// A set of dispatch keys, as c10 represents it: one bit per *functionality* (dense,
/// sparse, `ADInplaceOrView`, autograd, `Tracer`, ...) and one bit per
/// [`BackendComponent`]. A per-backend runtime key such as `AutogradCUDA` is two bits:
/// the autograd functionality and the CUDA backend.
///
/// A tensor reports its key set through [`Tensor::key_set`](super::Tensor::key_set); a call
/// unions the sets of its tensor arguments, applies the thread-local include and exclude
/// sets, and runs the kernel of [`DispatchKeySet::highest`]: the highest functionality,
/// then, for a per-backend functionality, the highest backend among *all* the arguments.
///
/// The representation is lossy exactly as c10's: the union of a CPU tensor's set (`CPU`,
/// `AutogradCPU`) and a CUDA tensor's (`CUDA`, `AutogradCUDA`) also contains `AutogradCPU`
/// and `CUDA` (the same two functionalities on the same two backends), and removing a
/// per-backend key removes its functionality for every backend: once a call is below the
/// autograd layer, no tensor's autograd key is selected again.
///
/// ```
/// use opgen_core::dispatch::{DispatchKey as K, DispatchKeySet};
/// let ks = DispatchKeySet::from_keys(&[K::CPU, K::AutogradCPU]);
/// assert_eq!(ks.highest(), Some(K::AutogradCPU));
/// assert_eq!(ks.below(K::AutogradCPU).highest(), Some(K::CPU));
/// assert_eq!(ks.to_string(), "DispatchKeySet(CPU, AutogradCPU)");
/// // A CUDA tensor and a CPU tensor, both with their autograd keys: CUDA wins at every level.
/// let mixed = ks | DispatchKeySet::from_keys(&[K::CUDA, K::AutogradCUDA]);
/// assert_eq!(mixed.highest(), Some(K::AutogradCUDA));
/// assert_eq!(mixed.below(K::AutogradCUDA).highest(), Some(K::CUDA));
/// // Lossy as c10's: a sparse CPU tensor and a dense CUDA tensor make SparseCUDA.
/// assert_eq!(DispatchKeySet::from_keys(&[K::SparseCPU, K::CUDA]).highest(), Some(K::SparseCUDA));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DispatchKeySet {
    bits: u64,
}

impl DispatchKeySet {
    /// The empty set.
    pub const EMPTY: DispatchKeySet = DispatchKeySet { bits: 0 };
    /// Every runtime key: every functionality on every backend.
    pub const FULL: DispatchKeySet = DispatchKeySet { bits: VALID_BITS };

    /// The set with one key: for a runtime key its functionality and (per-backend keys) its
    /// backend; for an alias key the runtime keys it covers.
    pub const fn from_key(key: DispatchKey) -> DispatchKeySet {
        DispatchKeySet { bits: key.bits() }
    }

    /// The set of `keys` (alias keys add the runtime keys they cover).
    pub const fn from_keys(keys: &[DispatchKey]) -> DispatchKeySet {
        let mut set = DispatchKeySet::EMPTY;
        let mut i = 0;
        while i < keys.len() {
            set = set.add(keys[i]);
            i += 1;
        }
        set
    }

    /// The set with one backend bit and no functionality (c10's
    /// `DispatchKeySet(BackendComponent)`): it holds no key, but it chooses the backend of
    /// the per-backend functionalities it is united with.
    ///
    /// ```
    /// use opgen_core::dispatch::{BackendComponent, DispatchKey as K, DispatchKeySet};
    /// let ks = DispatchKeySet::from_key(K::AutogradCPU) | DispatchKeySet::from_backend(BackendComponent::Meta);
    /// assert_eq!(ks.highest(), Some(K::AutogradMeta));
    /// ```
    pub const fn from_backend(backend: BackendComponent) -> DispatchKeySet {
        DispatchKeySet {
            bits: 1 << backend as u8,
        }
    }

    /// The set with these bits (c10's `raw_repr`); bits past the last functionality (bit
    /// 63) are dropped.
    pub const fn from_bits(bits: u64) -> DispatchKeySet {
        DispatchKeySet {
            bits: bits & VALID_BITS,
        }
    }

    /// The set with `bits`, which hold no bit past the last functionality: what the call
    /// path makes of bits it computed from valid sets, without masking them again.
    #[inline(always)]
    pub(crate) const fn from_valid_bits(bits: u64) -> DispatchKeySet {
        DispatchKeySet { bits }
    }

    /// The raw bits: c10's `raw_repr()` of the same set.
    pub const fn bits(self) -> u64 {
        self.bits
    }

    /// Whether `key` is in the set: for a runtime key, its functionality and its backend
    /// are (c10's `has`); for an alias key, some runtime key it covers is.
    pub const fn contains(self, key: DispatchKey) -> bool {
        if key.is_runtime() {
            let bits = key.bits();
            return self.bits & bits == bits;
        }
        // Alias sets are functionalities times backends: they share a key with `self` if they
        // share a functionality that is not per backend, or a per-backend functionality and a
        // backend.
        let both = self.bits & key.bits() & FUNCTIONALITY_BITS;
        let per_backend = both & PER_BACKEND_FUNCTIONALITIES;
        both & !PER_BACKEND_FUNCTIONALITIES != 0
            || (per_backend != 0 && self.bits & key.bits() & BACKEND_BITS != 0)
    }

    /// The set plus `key`.
    #[must_use]
    pub const fn add(self, key: DispatchKey) -> DispatchKeySet {
        self.union(DispatchKeySet::from_key(key))
    }

    /// The set without `key`'s functionality (for an alias key, without the functionalities
    /// of the keys it covers). As in c10 only functionality bits are removed: removing
    /// `AutogradCPU` removes autograd for every backend, and the CPU backend stays.
    #[must_use]
    pub const fn remove(self, key: DispatchKey) -> DispatchKeySet {
        self.difference(DispatchKeySet::from_key(key))
    }

    /// The set without the backend bit of `backend` (c10's `remove_backend`).
    #[must_use]
    pub const fn remove_backend(self, backend: BackendComponent) -> DispatchKeySet {
        DispatchKeySet {
            bits: self.bits & !(1 << backend as u8),
        }
    }

    /// Keys in either set.
    #[must_use]
    pub const fn union(self, other: DispatchKeySet) -> DispatchKeySet {
        DispatchKeySet {
            bits: self.bits | other.bits,
        }
    }

    /// Keys in both sets (the bits both have).
    #[must_use]
    pub const fn intersection(self, other: DispatchKeySet) -> DispatchKeySet {
        DispatchKeySet {
            bits: self.bits & other.bits,
        }
    }

    /// `self` without the functionalities of `other`; backend bits stay (c10's `-`).
    #[must_use]
    pub const fn difference(self, other: DispatchKeySet) -> DispatchKeySet {
        DispatchKeySet {
            bits: self.bits & !(other.bits & FUNCTIONALITY_BITS),
        }
    }

    /// Whether the set has no bits at all (c10's `empty`). A set with backend bits only holds
    /// no key but is not empty.
    pub const fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// How many runtime keys the set holds ([`DispatchKeySet::iter`]).
    pub fn len(self) -> usize {
        self.iter().count()
    }

    /// The key a call with this key set runs (c10's `highestPriorityTypeId`): the highest
    /// functionality, and for a per-backend one, on the highest backend (`CPU` if the set
    /// has no backend bit). `None` without functionality bits: such a call runs the
    /// operator's `Undefined` entry.
    #[inline]
    pub const fn highest(self) -> Option<DispatchKey> {
        match self.table_index() {
            0 => None,
            i => DispatchKey::from_index(i - 1),
        }
    }

    /// The highest backend component of the set, if it has a backend bit.
    pub const fn highest_backend(self) -> Option<BackendComponent> {
        match self.bits & BACKEND_BITS {
            0 => None,
            _ => Some(BackendComponent::ALL[backend_index(self.bits)]),
        }
    }

    /// The keys of lower priority than `key`: the functionalities below `key`'s, on every
    /// backend. What a kernel at `key` passes on when it redispatches; as in c10 it leaves
    /// `key`'s functionality for every backend (below `AutogradCPU` there is no per-backend
    /// autograd key left, but `AutogradOther` is; below the `Autograd` alias neither is).
    /// For an alias key, the keys below the lowest key it covers.
    #[must_use]
    pub const fn below(self, key: DispatchKey) -> DispatchKeySet {
        let lowest = key.bits() & FUNCTIONALITY_BITS;
        let keep = if lowest == 0 {
            0
        } else {
            (1u64 << lowest.trailing_zeros()) - 1
        };
        DispatchKeySet {
            bits: self.bits & keep,
        }
    }

    /// The runtime keys, lowest priority first (c10's iteration order: by functionality, then
    /// by backend). A per-backend functionality without a backend bit yields no key.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = DispatchKey> {
        DispatchKey::ALL[..DispatchKey::NUM_RUNTIME]
            .iter()
            .copied()
            .filter(move |&k| self.contains(k))
    }

    /// The dispatch table entry of the set: 0 (`Undefined`) without functionality bits, else
    /// 1 + the index of [`DispatchKeySet::highest`].
    #[inline(always)]
    pub(crate) const fn table_index(self) -> usize {
        slot_index(self.bits, backend_index(self.bits))
    }
}

/// The functionality bits of the per-backend functionalities.
const PER_BACKEND_FUNCTIONALITIES: u64 = functionality_bit(DispatchKey::CPU)
    | functionality_bit(DispatchKey::QuantizedCPU)
    | functionality_bit(DispatchKey::SparseCPU)
    | functionality_bit(DispatchKey::SparseCsrCPU)
    | functionality_bit(DispatchKey::NestedTensorCPU)
    | functionality_bit(DispatchKey::AutogradCPU);

impl From<DispatchKey> for DispatchKeySet {
    fn from(key: DispatchKey) -> DispatchKeySet {
        DispatchKeySet::from_key(key)
    }
}

impl From<BackendComponent> for DispatchKeySet {
    fn from(backend: BackendComponent) -> DispatchKeySet {
        DispatchKeySet::from_backend(backend)
    }
}

impl FromIterator<DispatchKey> for DispatchKeySet {
    fn from_iter<I: IntoIterator<Item = DispatchKey>>(iter: I) -> DispatchKeySet {
        iter.into_iter()
            .fold(DispatchKeySet::EMPTY, DispatchKeySet::add)
    }
}

impl BitOr for DispatchKeySet {
    type Output = DispatchKeySet;
    #[inline]
    fn bitor(self, rhs: DispatchKeySet) -> DispatchKeySet {
        self.union(rhs)
    }
}

impl BitOr<DispatchKey> for DispatchKeySet {
    type Output = DispatchKeySet;
    fn bitor(self, rhs: DispatchKey) -> DispatchKeySet {
        self.add(rhs)
    }
}

impl BitAnd for DispatchKeySet {
    type Output = DispatchKeySet;
    #[inline]
    fn bitand(self, rhs: DispatchKeySet) -> DispatchKeySet {
        self.intersection(rhs)
    }
}

impl Sub for DispatchKeySet {
    type Output = DispatchKeySet;
    /// [`DispatchKeySet::difference`]: only functionality bits are removed.
    #[inline]
    fn sub(self, rhs: DispatchKeySet) -> DispatchKeySet {
        self.difference(rhs)
    }
}

impl BitOrAssign for DispatchKeySet {
    fn bitor_assign(&mut self, rhs: DispatchKeySet) {
        *self = *self | rhs;
    }
}

impl BitAndAssign for DispatchKeySet {
    fn bitand_assign(&mut self, rhs: DispatchKeySet) {
        *self = *self & rhs;
    }
}

impl SubAssign for DispatchKeySet {
    fn sub_assign(&mut self, rhs: DispatchKeySet) {
        *self = *self - rhs;
    }
}

impl fmt::Display for DispatchKeySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DispatchKeySet(")?;
        for (i, key) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(key.name())?;
        }
        f.write_str(")")
    }
}

impl fmt::Debug for DispatchKeySet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DispatchKey as K;

    #[test]
    fn highest_and_below() {
        assert_eq!(DispatchKeySet::EMPTY.highest(), None);
        let ks =
            DispatchKeySet::from_keys(&[K::CPU, K::ADInplaceOrView, K::AutogradCPU, K::Tracer]);
        assert_eq!(ks.highest(), Some(K::Tracer));
        let rest: Vec<_> = ks.below(K::AutogradCPU).iter().collect();
        assert_eq!(rest, [K::CPU, K::ADInplaceOrView]);
        assert_eq!(ks.below(K::Autograd).highest(), Some(K::ADInplaceOrView));
        assert_eq!(DispatchKeySet::FULL.highest(), Some(K::PythonDispatcher));
        assert_eq!(ks.iter().next_back(), Some(K::Tracer));
        // Below the lowest functionality only backend bits are left: the Undefined entry.
        let cpu = DispatchKeySet::from_key(K::CPU);
        assert_eq!(cpu.below(K::CPU).highest(), None);
        assert!(!cpu.below(K::CPU).is_empty());
    }

    #[test]
    fn per_backend_functionalities_take_the_highest_backend_of_all_arguments() {
        let cpu = DispatchKeySet::from_keys(&[K::CPU, K::AutogradCPU]);
        let cuda = DispatchKeySet::from_keys(&[K::CUDA, K::AutogradCUDA]);
        let mixed = cpu | cuda;
        assert_eq!(mixed.highest(), Some(K::AutogradCUDA));
        // Below autograd, no tensor's autograd key is left.
        let below = mixed.below(K::AutogradCUDA);
        assert!(!below.contains(K::AutogradCPU) && below.contains(K::CPU));
        assert_eq!(below.highest(), Some(K::CUDA));
        // Lossy as c10: the union holds every functionality on every backend.
        assert!((DispatchKeySet::from_key(K::AutogradCPU) | K::CUDA).contains(K::AutogradCUDA));
        assert_eq!(
            DispatchKeySet::from_keys(&[K::SparseCPU, K::CUDA]).highest(),
            Some(K::SparseCUDA)
        );
        let pu1 = DispatchKeySet::from_keys(&[K::PrivateUse1, K::AutogradPrivateUse1]);
        assert_eq!((pu1 | cpu).highest(), Some(K::AutogradPrivateUse1));
        assert_eq!(
            (pu1 | cpu).below(K::Autograd).highest(),
            Some(K::PrivateUse1)
        );
        assert_eq!(
            (pu1 | cpu).to_string(),
            "DispatchKeySet(CPU, PrivateUse1, AutogradCPU, AutogradPrivateUse1)"
        );
        // Meta is the highest backend component.
        let meta = DispatchKeySet::from_key(K::Meta);
        assert_eq!((mixed | meta).highest(), Some(K::AutogradMeta));
        assert_eq!(mixed.highest_backend(), Some(BackendComponent::CUDA));
    }

    #[test]
    fn removing_keys_removes_functionalities_only() {
        let ks = DispatchKeySet::from_keys(&[K::CPU, K::AutogradCPU, K::CUDA, K::AutogradCUDA]);
        let removed = ks.remove(K::AutogradCUDA);
        assert_eq!(removed, DispatchKeySet::from_keys(&[K::CPU, K::CUDA]));
        assert_eq!(ks - DispatchKeySet::from_key(K::CPU), ks.remove(K::CUDA));
        assert!(ks.remove(K::CPU).contains(K::AutogradCPU));
        assert_eq!(
            ks.remove_backend(BackendComponent::CUDA),
            DispatchKeySet::from_keys(&[K::CPU, K::AutogradCPU])
        );
        assert_eq!(ks.remove(K::Autograd).highest(), Some(K::CUDA));
    }

    #[test]
    fn alias_keys_contain_what_they_cover() {
        let a = DispatchKeySet::from_key(K::CPU) | K::Meta;
        assert!(a.contains(K::CompositeExplicitAutograd));
        assert!(!a.contains(K::Autograd));
        // AutogradCPU's bits meet CEA's backend bits, but no key of CEA is in the set.
        let autograd = DispatchKeySet::from_key(K::AutogradCPU);
        assert!(!autograd.contains(K::CompositeExplicitAutograd));
        assert!(autograd.contains(K::Autograd));
        let xla = DispatchKeySet::from_key(K::XLA);
        assert!(xla.contains(K::CompositeExplicitAutograd));
        assert!(!xla.contains(K::CompositeExplicitAutogradNonFunctional));
        assert!(
            DispatchKeySet::from_key(K::FPGA).contains(K::CompositeExplicitAutogradNonFunctional)
        );
    }

    #[test]
    fn set_operations() {
        let a = DispatchKeySet::from_key(K::CPU) | K::Meta;
        let b: DispatchKeySet = [K::Meta, K::CUDA].into_iter().collect();
        assert_eq!((a & b).iter().collect::<Vec<_>>(), [K::Meta]);
        assert_eq!((a | b).len(), 3);
        assert!(!a.contains(K::CUDA));
        assert_eq!(a.remove(K::CPU).add(K::Autograd).len(), 18);
        assert_eq!(DispatchKeySet::from_bits(u64::MAX), DispatchKeySet::FULL);
        assert_eq!(DispatchKeySet::FULL.len(), DispatchKey::NUM_RUNTIME);
        // The bits are c10's raw representation.
        assert_eq!(DispatchKeySet::from_key(K::CPU).bits(), 1 << 16 | 1);
        assert_eq!(
            DispatchKeySet::from_key(K::AutogradCUDA).bits(),
            1 << 37 | 1 << 1
        );
        assert_eq!(
            DispatchKeySet::from_key(K::PythonDispatcher).bits(),
            1 << 62
        );
    }
}
