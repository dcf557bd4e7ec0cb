//! Thread-local included and excluded keys, and the guards that change them.
//!
//! Every call computes `(keys of the tensor arguments | included) - excluded`. The state is a
//! `const`-initialised `Cell` without destructor, so reading it is a plain thread-local load.
//!
//! Excluding a key removes its functionality and never a backend bit (c10's `-`): excluding
//! `AutogradCPU` excludes autograd for every backend.
//!
//! As in PyTorch, every thread's included set starts with `BackendSelect`
//! ([`DEFAULT_INCLUDED`]), so that factory functions (operators without tensor arguments)
//! reach their `BackendSelect` kernel, which picks the backend from the `dtype`, `layout` and
//! `device` arguments. Every dispatcher has a default fallthrough fallback at
//! `BackendSelect`, which the table resolves into its key masks: operators without a
//! `BackendSelect` kernel skip the key at no cost per call. (c10 also includes
//! `ADInplaceOrView` and excludes the autocast keys by default; opgen leaves both to the
//! tensor type and to guards.)

use std::cell::Cell;
use std::marker::PhantomData;

use super::keys::{DispatchKey, FUNCTIONALITY_BITS};
use super::keyset::DispatchKeySet;

#[derive(Clone, Copy)]
struct LocalKeys {
    included: u64,
    excluded: u64,
    /// `!excluded` on the functionality bits, every backend bit set: what a call's key set is
    /// masked with (c10's `-`, which removes functionalities only). Kept beside `excluded`
    /// so that a call reads it without computing it.
    keep: u64,
}

impl LocalKeys {
    const fn new(included: u64, excluded: u64) -> LocalKeys {
        LocalKeys {
            included,
            excluded,
            keep: !(excluded & FUNCTIONALITY_BITS),
        }
    }
}

/// The keys every thread's included set starts with: `BackendSelect`.
pub const DEFAULT_INCLUDED: DispatchKeySet = DispatchKeySet::from_key(DispatchKey::BackendSelect);

thread_local! {
    static LOCAL: Cell<LocalKeys> = const {
        Cell::new(LocalKeys::new(DEFAULT_INCLUDED.bits(), 0))
    };
}

/// Applies this thread's included and excluded keys to the key set of a call (c10's
/// `(ks | included) - excluded`: excluding a key removes its functionality, never a backend).
#[inline(always)]
pub(crate) fn apply(ks: DispatchKeySet) -> DispatchKeySet {
    let local = LOCAL.with(Cell::get);
    // `ks` and `included` hold valid bits only, so the result does too.
    DispatchKeySet::from_valid_bits((ks.bits() | local.included) & local.keep)
}

/// The keys this thread adds to every call's key set ([`DEFAULT_INCLUDED`] unless guards
/// changed it).
pub fn included() -> DispatchKeySet {
    DispatchKeySet::from_bits(LOCAL.with(Cell::get).included)
}

/// The keys this thread removes from every call's key set (their functionalities).
pub fn excluded() -> DispatchKeySet {
    DispatchKeySet::from_bits(LOCAL.with(Cell::get).excluded)
}

fn update(f: impl FnOnce(&mut u64, &mut u64)) {
    LOCAL.with(|cell| {
        let LocalKeys {
            mut included,
            mut excluded,
            ..
        } = cell.get();
        f(&mut included, &mut excluded);
        cell.set(LocalKeys::new(included, excluded));
    });
}

/// Takes `keys` out of this thread's excluded set; returns the bits it took out, for
/// [`exclude_bits`] to put back.
pub(crate) fn unexclude(keys: DispatchKeySet) -> u64 {
    let mut removed = 0;
    update(|_, excluded| {
        removed = *excluded & keys.bits();
        *excluded &= !keys.bits();
    });
    removed
}

/// Adds raw bits (from [`unexclude`]) back to this thread's excluded set.
pub(crate) fn exclude_bits(bits: u64) {
    update(|_, excluded| *excluded |= bits);
}

/// While alive, adds keys to this thread's included set (PyTorch's
/// `IncludeDispatchKeyGuard`). Dropping it removes the bits it added, and only those. As in
/// c10, including a per-backend key includes its backend bit too (including `AutogradCPU`
/// adds the CPU backend to every call), and an alias key includes its functionalities on
/// every backend.
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
        update(|included, _| {
            added = keys & !*included;
            *included |= keys;
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
        update(|included, _| *included &= !added);
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
        update(|_, excluded| {
            added = keys & !*excluded;
            *excluded |= keys;
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
        update(|_, excluded| *excluded &= !added);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::DispatchKey as K;

    #[test]
    fn guards_nest_and_restore() {
        let base = DispatchKeySet::from_key(K::CPU);
        assert_eq!(apply(base), base | DEFAULT_INCLUDED);
        let outer = IncludeDispatchKeyGuard::new(K::Tracer);
        {
            let _inner =
                IncludeDispatchKeyGuard::new(DispatchKeySet::from_keys(&[K::Tracer, K::Meta]));
            let _ex = ExcludeDispatchKeyGuard::new(K::Meta);
            // Excluding a dense key excludes the dense functionality on every backend (as
            // c10's); the backend bits stay.
            let ks = apply(base);
            assert_eq!(ks.iter().collect::<Vec<_>>(), [K::BackendSelect, K::Tracer]);
            assert_eq!(
                ks.below(K::BackendSelect).highest_backend(),
                Some(crate::dispatch::BackendComponent::Meta)
            );
        }
        // The inner guard added only Meta, so Tracer stays while `outer` lives.
        assert_eq!(
            apply(base),
            DispatchKeySet::from_keys(&[K::CPU, K::BackendSelect, K::Tracer])
        );
        drop(outer);
        assert_eq!(apply(base), base | DEFAULT_INCLUDED);
        assert!(included() == DEFAULT_INCLUDED && excluded().is_empty());
    }

    #[test]
    fn backend_select_is_included_by_default_and_can_be_excluded() {
        assert_eq!(included(), DispatchKeySet::from_key(K::BackendSelect));
        // Including it again adds nothing, so dropping that guard keeps it.
        drop(IncludeDispatchKeyGuard::new(K::BackendSelect));
        assert!(included().contains(K::BackendSelect));
        let _ex = ExcludeDispatchKeyGuard::new(K::BackendSelect);
        assert_eq!(apply(DispatchKeySet::EMPTY), DispatchKeySet::EMPTY);
    }

    #[test]
    fn excluded_wins_over_included() {
        let _inc = IncludeDispatchKeyGuard::new(K::AutogradCPU);
        let _exc = ExcludeDispatchKeyGuard::new(K::Autograd);
        assert_eq!(
            apply(DispatchKeySet::from_key(K::CPU)),
            DispatchKeySet::from_keys(&[K::CPU, K::BackendSelect])
        );
    }
}
