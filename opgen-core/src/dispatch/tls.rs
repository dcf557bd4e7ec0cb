//! Thread-local included and excluded keys, and the guards that change them.
//!
//! Every call computes `(keys of the tensor arguments | included) - excluded`. The state is a
//! `const`-initialised `Cell` without destructor, so reading it is a plain thread-local load.

use std::cell::Cell;
use std::marker::PhantomData;

use super::keyset::DispatchKeySet;

#[derive(Clone, Copy)]
struct LocalKeys {
    included: u64,
    excluded: u64,
}

thread_local! {
    static LOCAL: Cell<LocalKeys> = const { Cell::new(LocalKeys { included: 0, excluded: 0 }) };
}

/// Applies this thread's included and excluded keys to the key set of a call.
#[inline(always)]
pub(crate) fn apply(ks: DispatchKeySet) -> DispatchKeySet {
    let local = LOCAL.with(Cell::get);
    DispatchKeySet::from_bits((ks.bits() | local.included) & !local.excluded)
}

/// The keys this thread adds to every call's key set.
pub fn included() -> DispatchKeySet {
    DispatchKeySet::from_bits(LOCAL.with(Cell::get).included)
}

/// The keys this thread removes from every call's key set.
pub fn excluded() -> DispatchKeySet {
    DispatchKeySet::from_bits(LOCAL.with(Cell::get).excluded)
}

fn update(f: impl FnOnce(&mut LocalKeys)) {
    LOCAL.with(|cell| {
        let mut local = cell.get();
        f(&mut local);
        cell.set(local);
    });
}

/// While alive, adds keys to this thread's included set (PyTorch's
/// `IncludeDispatchKeyGuard`). Dropping it removes the keys it added, and only those.
///
/// ```
/// use opgen_core::dispatch::{tls, DispatchKey, IncludeDispatchKeyGuard};
/// {
///     let _guard = IncludeDispatchKeyGuard::new(DispatchKey::Tracer);
///     assert!(tls::included().contains(DispatchKey::Tracer));
/// }
/// assert!(!tls::included().contains(DispatchKey::Tracer));
/// ```
#[must_use = "the keys are included only while the guard is alive"]
pub struct IncludeDispatchKeyGuard {
    added: u64,
    _not_send: PhantomData<*const ()>,
}

impl IncludeDispatchKeyGuard {
    /// Includes `keys` (a key or a key set) until the guard is dropped.
    pub fn new(keys: impl Into<DispatchKeySet>) -> IncludeDispatchKeyGuard {
        let keys = keys.into().bits();
        let mut added = 0;
        update(|local| {
            added = keys & !local.included;
            local.included |= keys;
        });
        IncludeDispatchKeyGuard {
            added,
            _not_send: PhantomData,
        }
    }
}

impl Drop for IncludeDispatchKeyGuard {
    fn drop(&mut self) {
        let added = self.added;
        update(|local| local.included &= !added);
    }
}

/// While alive, adds keys to this thread's excluded set (PyTorch's
/// `ExcludeDispatchKeyGuard`). Dropping it removes the keys it added, and only those.
///
/// ```
/// use opgen_core::dispatch::{tls, DispatchKey, ExcludeDispatchKeyGuard};
/// let _guard = ExcludeDispatchKeyGuard::new(DispatchKey::Autograd);
/// assert!(tls::excluded().contains(DispatchKey::AutogradCPU));
/// ```
#[must_use = "the keys are excluded only while the guard is alive"]
pub struct ExcludeDispatchKeyGuard {
    added: u64,
    _not_send: PhantomData<*const ()>,
}

impl ExcludeDispatchKeyGuard {
    /// Excludes `keys` (a key or a key set) until the guard is dropped.
    pub fn new(keys: impl Into<DispatchKeySet>) -> ExcludeDispatchKeyGuard {
        let keys = keys.into().bits();
        let mut added = 0;
        update(|local| {
            added = keys & !local.excluded;
            local.excluded |= keys;
        });
        ExcludeDispatchKeyGuard {
            added,
            _not_send: PhantomData,
        }
    }
}

impl Drop for ExcludeDispatchKeyGuard {
    fn drop(&mut self) {
        let added = self.added;
        update(|local| local.excluded &= !added);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::DispatchKey as K;

    #[test]
    fn guards_nest_and_restore() {
        let base = DispatchKeySet::from_key(K::CPU);
        assert_eq!(apply(base), base);
        let outer = IncludeDispatchKeyGuard::new(K::Tracer);
        {
            let _inner =
                IncludeDispatchKeyGuard::new(DispatchKeySet::from_keys(&[K::Tracer, K::Meta]));
            let _ex = ExcludeDispatchKeyGuard::new(K::CPU);
            assert_eq!(
                apply(base),
                DispatchKeySet::from_keys(&[K::Meta, K::Tracer])
            );
        }
        // The inner guard added only Meta, so Tracer stays while `outer` lives.
        assert_eq!(apply(base), DispatchKeySet::from_keys(&[K::CPU, K::Tracer]));
        drop(outer);
        assert_eq!(apply(base), base);
        assert!(included().is_empty() && excluded().is_empty());
    }

    #[test]
    fn excluded_wins_over_included() {
        let _inc = IncludeDispatchKeyGuard::new(K::AutogradCPU);
        let _exc = ExcludeDispatchKeyGuard::new(K::Autograd);
        assert_eq!(
            apply(DispatchKeySet::from_key(K::CPU)).highest(),
            Some(K::CPU)
        );
    }
}
