//! `DispatchKeySet`: a bitset of runtime keys with highest-priority lookup.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, Not, Sub, SubAssign};

use super::keys::DispatchKey;

const RUNTIME_BITS: u64 = (1 << DispatchKey::NUM_RUNTIME) - 1;

/// A set of runtime dispatch keys, one bit per key; bit `i` is
/// `DispatchKey::from_index(i)`, so a higher bit is a higher priority.
///
/// A tensor reports its key set through [`Tensor::key_set`](super::Tensor::key_set); a call
/// unions the sets of its tensor arguments, applies the thread-local include and exclude
/// sets, and runs the kernel of [`DispatchKeySet::highest`]. Alias keys are never members:
/// adding one adds the runtime keys it covers.
///
/// ```
/// use opgen_core::dispatch::{DispatchKey, DispatchKeySet};
/// let ks = DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]);
/// assert_eq!(ks.highest(), Some(DispatchKey::AutogradCPU));
/// assert_eq!(ks.below(DispatchKey::AutogradCPU).highest(), Some(DispatchKey::CPU));
/// assert_eq!(ks.to_string(), "DispatchKeySet(CPU, AutogradCPU)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct DispatchKeySet {
    bits: u64,
}

impl DispatchKeySet {
    /// The empty set.
    pub const EMPTY: DispatchKeySet = DispatchKeySet { bits: 0 };
    /// Every runtime key.
    pub const FULL: DispatchKeySet = DispatchKeySet { bits: RUNTIME_BITS };

    /// The set with one key (for an alias key, the runtime keys it covers).
    pub const fn from_key(key: DispatchKey) -> DispatchKeySet {
        key.runtime_keys()
    }

    /// The set of `keys` (alias keys add the runtime keys they cover).
    pub const fn from_keys(keys: &[DispatchKey]) -> DispatchKeySet {
        let mut set = DispatchKeySet::EMPTY;
        let mut i = 0;
        while i < keys.len() {
            set = set.union(keys[i].runtime_keys());
            i += 1;
        }
        set
    }

    /// The set with these bits; bits past the runtime keys are dropped.
    pub const fn from_bits(bits: u64) -> DispatchKeySet {
        DispatchKeySet {
            bits: bits & RUNTIME_BITS,
        }
    }

    /// The raw bits.
    pub const fn bits(self) -> u64 {
        self.bits
    }

    /// Whether `key` is in the set (for an alias key: any key it covers).
    pub const fn contains(self, key: DispatchKey) -> bool {
        self.bits & key.runtime_keys().bits != 0
    }

    /// The set plus `key`.
    #[must_use]
    pub const fn add(self, key: DispatchKey) -> DispatchKeySet {
        self.union(key.runtime_keys())
    }

    /// The set without `key`.
    #[must_use]
    pub const fn remove(self, key: DispatchKey) -> DispatchKeySet {
        self.difference(key.runtime_keys())
    }

    /// Keys in either set.
    #[must_use]
    pub const fn union(self, other: DispatchKeySet) -> DispatchKeySet {
        DispatchKeySet {
            bits: self.bits | other.bits,
        }
    }

    /// Keys in both sets.
    #[must_use]
    pub const fn intersection(self, other: DispatchKeySet) -> DispatchKeySet {
        DispatchKeySet {
            bits: self.bits & other.bits,
        }
    }

    /// Keys in `self` but not in `other`.
    #[must_use]
    pub const fn difference(self, other: DispatchKeySet) -> DispatchKeySet {
        DispatchKeySet {
            bits: self.bits & !other.bits,
        }
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// How many keys the set holds.
    pub const fn len(self) -> usize {
        self.bits.count_ones() as usize
    }

    /// The highest-priority key, if any.
    #[inline]
    pub const fn highest(self) -> Option<DispatchKey> {
        match self.table_index() {
            0 => None,
            i => DispatchKey::from_index(i - 1),
        }
    }

    /// The keys of lower priority than `key`: what a kernel at `key` passes on when it
    /// redispatches. For an alias key, the keys below the lowest key it covers.
    #[must_use]
    pub const fn below(self, key: DispatchKey) -> DispatchKeySet {
        let low = key.runtime_keys().bits.trailing_zeros();
        let keep = if low >= 64 { 0 } else { (1u64 << low) - 1 };
        DispatchKeySet {
            bits: self.bits & keep,
        }
    }

    /// The keys, lowest priority first.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = DispatchKey> {
        DispatchKey::ALL[..DispatchKey::NUM_RUNTIME]
            .iter()
            .copied()
            .filter(move |k| self.bits & (1 << k.index()) != 0)
    }

    /// The dispatch table index of the set: 0 when empty, else 1 + the highest key's index.
    #[inline(always)]
    pub(crate) const fn table_index(self) -> usize {
        64 - self.bits.leading_zeros() as usize
    }
}

impl From<DispatchKey> for DispatchKeySet {
    fn from(key: DispatchKey) -> DispatchKeySet {
        DispatchKeySet::from_key(key)
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
    #[inline]
    fn sub(self, rhs: DispatchKeySet) -> DispatchKeySet {
        self.difference(rhs)
    }
}

impl Not for DispatchKeySet {
    type Output = DispatchKeySet;
    fn not(self) -> DispatchKeySet {
        DispatchKeySet::FULL.difference(self)
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
        assert_eq!(DispatchKeySet::FULL.highest(), Some(K::Tracer));
        assert_eq!(ks.iter().next_back(), Some(K::Tracer));
    }

    #[test]
    fn set_operations() {
        let a = DispatchKeySet::from_key(K::CPU) | K::Meta;
        let b: DispatchKeySet = [K::Meta, K::CUDA].into_iter().collect();
        assert_eq!((a & b).iter().collect::<Vec<_>>(), [K::Meta]);
        assert_eq!((a - b).iter().collect::<Vec<_>>(), [K::CPU]);
        assert_eq!((a | b).len(), 3);
        assert!(!a.contains(K::CUDA) && a.contains(K::CompositeExplicitAutograd));
        assert_eq!((!a).len(), DispatchKey::NUM_RUNTIME - 2);
        assert_eq!(a.remove(K::CPU).add(K::Autograd).len(), 13);
        assert_eq!(DispatchKeySet::from_bits(u64::MAX), DispatchKeySet::FULL);
    }
}
