//! Thread-local grad mode (PyTorch's `GradMode`) and its guards: `no_grad`, `enable_grad`,
//! and the inference-mode guard.
//!
//! Grad mode decides whether operators record a graph: an Autograd kernel builds a backward
//! node only when grad mode is on and an input requires grad. It is per thread, starts on,
//! and is a `const`-initialised `Cell`, so reading it is a plain thread-local load.

use std::cell::Cell;
use std::marker::PhantomData;

use crate::dispatch::{DispatchKey, DispatchKeySet, ExcludeDispatchKeyGuard};

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
    static INFERENCE: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread records graphs (PyTorch's `GradMode::is_enabled()`, Python's
/// `torch.is_grad_enabled()`).
///
/// ```
/// use opgen_core::autograd::{is_grad_enabled, NoGradGuard};
/// assert!(is_grad_enabled());
/// let guard = NoGradGuard::new();
/// assert!(!is_grad_enabled());
/// drop(guard);
/// assert!(is_grad_enabled());
/// ```
#[inline(always)]
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(Cell::get)
}

/// Sets this thread's grad mode (PyTorch's `GradMode::set_enabled`, Python's
/// `torch.set_grad_enabled`). Prefer the guards, which restore the previous mode.
pub fn set_grad_enabled(enabled: bool) {
    GRAD_ENABLED.with(|c| c.set(enabled));
}

/// While alive, sets grad mode and restores the previous mode on drop (PyTorch's
/// `AutoGradMode`).
#[must_use = "grad mode is changed only while the guard is alive"]
pub struct GradModeGuard {
    previous: bool,
    _not_send: PhantomData<*const ()>,
}

impl GradModeGuard {
    /// Sets grad mode to `enabled` until the guard is dropped.
    pub fn new(enabled: bool) -> GradModeGuard {
        let previous = is_grad_enabled();
        set_grad_enabled(enabled);
        GradModeGuard {
            previous,
            _not_send: PhantomData,
        }
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        set_grad_enabled(self.previous);
    }
}

/// Grad mode off while alive: Python's `with torch.no_grad():`, C++'s `NoGradGuard`.
/// Operators called under it record nothing, whatever their inputs.
#[must_use = "grad mode is off only while the guard is alive"]
pub struct NoGradGuard(#[allow(dead_code)] GradModeGuard);

impl NoGradGuard {
    /// Turns grad mode off until the guard is dropped.
    pub fn new() -> NoGradGuard {
        NoGradGuard(GradModeGuard::new(false))
    }
}

impl Default for NoGradGuard {
    fn default() -> NoGradGuard {
        NoGradGuard::new()
    }
}

/// Grad mode on while alive: Python's `with torch.enable_grad():`, inside a `no_grad` block.
///
/// ```
/// use opgen_core::autograd::{is_grad_enabled, EnableGradGuard, NoGradGuard};
/// let _off = NoGradGuard::new();
/// {
///     let _on = EnableGradGuard::new();
///     assert!(is_grad_enabled());
/// }
/// assert!(!is_grad_enabled());
/// ```
#[must_use = "grad mode is on only while the guard is alive"]
pub struct EnableGradGuard(#[allow(dead_code)] GradModeGuard);

impl EnableGradGuard {
    /// Turns grad mode on until the guard is dropped.
    pub fn new() -> EnableGradGuard {
        EnableGradGuard(GradModeGuard::new(true))
    }
}

impl Default for EnableGradGuard {
    fn default() -> EnableGradGuard {
        EnableGradGuard::new()
    }
}

/// Whether an [`InferenceModeGuard`] is alive on this thread
/// (`torch.is_inference_mode_enabled()`).
pub fn is_inference_mode_enabled() -> bool {
    INFERENCE.with(Cell::get)
}

/// The keys inference mode excludes: every autograd key and `ADInplaceOrView` (c10's
/// `autograd_dispatch_keyset_with_ADInplaceOrView`).
pub const INFERENCE_EXCLUDED: DispatchKeySet =
    DispatchKeySet::from_keys(&[DispatchKey::Autograd, DispatchKey::ADInplaceOrView]);

/// Inference mode while alive (C++'s `c10::InferenceMode`, Python's
/// `torch.inference_mode()`): grad mode off, and the autograd keys and `ADInplaceOrView`
/// excluded from every call's key set, so that calls skip the Autograd kernels and the
/// version-counter and view bookkeeping altogether (cheaper than `no_grad`, which still runs
/// them). Views made under it are marked so that modifying them in place outside it is
/// refused, as in PyTorch.
///
/// ```
/// use opgen_core::autograd::{is_grad_enabled, is_inference_mode_enabled, InferenceModeGuard};
/// use opgen_core::dispatch::{tls, DispatchKey};
/// {
///     let _inference = InferenceModeGuard::new();
///     assert!(is_inference_mode_enabled() && !is_grad_enabled());
///     assert!(tls::excluded().contains(DispatchKey::AutogradCPU));
///     {
///         // `InferenceMode(false)` inside: grad mode on, the keys back.
///         let _off = InferenceModeGuard::with_enabled(false);
///         assert!(!is_inference_mode_enabled() && is_grad_enabled());
///         assert!(!tls::excluded().contains(DispatchKey::AutogradCPU));
///     }
///     assert!(is_inference_mode_enabled() && !is_grad_enabled());
/// }
/// assert!(!is_inference_mode_enabled() && is_grad_enabled());
/// ```
#[must_use = "inference mode is on only while the guard is alive"]
pub struct InferenceModeGuard {
    previous: bool,
    _grad: GradModeGuard,
    _keys: Option<ExcludeDispatchKeyGuard>,
    /// Excluded bits `with_enabled(false)` took out, put back on drop.
    unexcluded: u64,
}

impl InferenceModeGuard {
    /// Enters inference mode until the guard is dropped.
    pub fn new() -> InferenceModeGuard {
        InferenceModeGuard::with_enabled(true)
    }

    /// `c10::InferenceMode(enabled)`: with `true`, [`InferenceModeGuard::new`]; with `false`,
    /// leaves inference mode until the guard is dropped, which turns grad mode on and takes
    /// the autograd keys and `ADInplaceOrView` out of the excluded keys (as c10 does: grad
    /// mode is `!enabled` either way).
    pub fn with_enabled(enabled: bool) -> InferenceModeGuard {
        let previous = INFERENCE.with(|c| c.replace(enabled));
        let grad = GradModeGuard::new(!enabled);
        let (keys, unexcluded) = match enabled {
            true => (Some(ExcludeDispatchKeyGuard::new(INFERENCE_EXCLUDED)), 0),
            false => (None, crate::dispatch::tls::unexclude(INFERENCE_EXCLUDED)),
        };
        InferenceModeGuard {
            previous,
            _grad: grad,
            _keys: keys,
            unexcluded,
        }
    }
}

impl Default for InferenceModeGuard {
    fn default() -> InferenceModeGuard {
        InferenceModeGuard::new()
    }
}

impl Drop for InferenceModeGuard {
    fn drop(&mut self) {
        INFERENCE.with(|c| c.set(self.previous));
        crate::dispatch::tls::exclude_bits(self.unexcluded);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_nest_and_restore() {
        assert!(is_grad_enabled());
        {
            let _off = NoGradGuard::new();
            assert!(!is_grad_enabled());
            {
                let _on = EnableGradGuard::new();
                assert!(is_grad_enabled());
                let _off_again = NoGradGuard::new();
                assert!(!is_grad_enabled());
            }
            assert!(!is_grad_enabled());
        }
        assert!(is_grad_enabled());
        set_grad_enabled(false);
        assert!(!is_grad_enabled());
        set_grad_enabled(true);
    }

    #[test]
    fn grad_mode_is_per_thread() {
        let _off = NoGradGuard::new();
        let other = std::thread::spawn(is_grad_enabled).join().expect("thread");
        assert!(other && !is_grad_enabled());
    }

    #[test]
    fn inference_mode_excludes_autograd_and_inplace_or_view() {
        {
            let _inf = InferenceModeGuard::new();
            let excluded = crate::dispatch::tls::excluded();
            assert!(excluded.contains(DispatchKey::AutogradOther));
            assert!(excluded.contains(DispatchKey::ADInplaceOrView));
            assert!(!is_grad_enabled());
        }
        assert!(crate::dispatch::tls::excluded().is_empty());
        assert!(!is_inference_mode_enabled());
    }

    #[test]
    fn inference_mode_false_inside_restores_the_outer_mode() {
        let _off = NoGradGuard::new();
        let outer = InferenceModeGuard::new();
        let excluded = crate::dispatch::tls::excluded();
        {
            let _inner = InferenceModeGuard::with_enabled(false);
            assert!(!is_inference_mode_enabled() && is_grad_enabled());
            assert!(!crate::dispatch::tls::excluded().contains(DispatchKey::ADInplaceOrView));
        }
        assert_eq!(crate::dispatch::tls::excluded(), excluded);
        assert!(is_inference_mode_enabled() && !is_grad_enabled());
        drop(outer);
        assert!(crate::dispatch::tls::excluded().is_empty());
        assert!(!is_inference_mode_enabled() && !is_grad_enabled());
        // Outside inference mode, `with_enabled(false)` excludes nothing and puts nothing back.
        {
            let _inner = InferenceModeGuard::with_enabled(false);
            assert!(is_grad_enabled());
        }
        assert!(crate::dispatch::tls::excluded().is_empty() && !is_grad_enabled());
    }
}
