//! Thread-local grad mode (PyTorch's `GradMode`) and its guards: `no_grad`, `enable_grad`,
//! and the inference-mode guard.
//!
//! Grad mode decides whether operators record a graph: an Autograd kernel builds a backward
//! node only when grad mode is on and an input requires grad. It is per thread, starts on,
//! and is a `const`-initialised `Cell`, so reading it is a plain thread-local load.

use std::cell::Cell;
use std::marker::PhantomData;

use super::error::AutogradErrorKind;
use crate::dispatch::{DispatchKey, DispatchKeySet, Error, ExcludeDispatchKeyGuard, Tensor};

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

/// The keys inference mode excludes: every autograd key (c10's `autograd_dispatch_keyset`).
/// An inference tensor is made without them (see [`Tensor::is_inference`]).
///
/// [`Tensor::is_inference`]: crate::dispatch::Tensor::is_inference
pub const INFERENCE_EXCLUDED: DispatchKeySet = DispatchKeySet::from_key(DispatchKey::Autograd);

/// Inference mode while alive (C++'s `c10::InferenceMode`, Python's
/// `torch.inference_mode()`): grad mode off, and the autograd keys excluded from every
/// call's key set, so that calls skip the Autograd kernels (cheaper than `no_grad`, which
/// still runs them).
///
/// As in c10, `ADInplaceOrView` stays: an in-place operation on a normal tensor inside
/// inference mode bumps its version counter, and a view of it is recorded as a view (marked
/// [`CreationMeta::InferenceMode`], so that modifying it in place outside inference mode
/// with autograd is refused). A tensor type that supports inference tensors makes the
/// tensors it creates while inference mode is on *inference tensors*
/// ([`Tensor::is_inference`]): without autograd keys and without a version counter. The
/// runtime then refuses, with PyTorch's messages, to update one in place outside inference
/// mode, to save one for backward, and to make one require grad outside inference mode.
///
/// [`CreationMeta::InferenceMode`]: crate::autograd::CreationMeta::InferenceMode
/// [`Tensor::is_inference`]: crate::dispatch::Tensor::is_inference
///
/// ```
/// use opgen_core::autograd::{is_grad_enabled, is_inference_mode_enabled, InferenceModeGuard};
/// use opgen_core::dispatch::{tls, DispatchKey};
/// {
///     let _inference = InferenceModeGuard::new();
///     assert!(is_inference_mode_enabled() && !is_grad_enabled());
///     assert!(tls::excluded().contains(DispatchKey::AutogradCPU));
///     assert!(!tls::excluded().contains(DispatchKey::ADInplaceOrView));
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
    /// the autograd keys out of the excluded keys (as c10 does: grad mode is `!enabled`
    /// either way).
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

/// Refuses an in-place update of an inference tensor outside inference mode, with
/// PyTorch's message (c10 checks it in `VariableVersion::bump`; the `ADInplaceOrView`
/// kernels check it before the operator writes). Every other tensor may be updated.
///
/// ```
/// use opgen_core::autograd::{check_inplace_update, InferenceModeGuard};
/// # use opgen_core::dispatch::*;
/// #[derive(Clone)]
/// struct Inference;
/// impl Tensor for Inference {
///     fn key_set(&self) -> DispatchKeySet { DispatchKey::CPU.into() }
///     fn is_inference(&self) -> bool { true }
/// }
/// let err = check_inplace_update(&Inference).unwrap_err().to_string();
/// assert!(err.starts_with("Inplace update to inference tensor outside InferenceMode"), "{err}");
/// let _inference = InferenceModeGuard::new();
/// assert!(check_inplace_update(&Inference).is_ok());
/// ```
#[inline]
pub fn check_inplace_update<T: Tensor>(t: &T) -> Result<(), Error> {
    if t.is_inference() && !is_inference_mode_enabled() {
        return Err(AutogradErrorKind::InferenceInplace.into());
    }
    Ok(())
}

/// Bumps `t`'s version counter after an operator wrote into it (c10's
/// `VariableVersion::bump`): an inference tensor has none, so it is left alone inside
/// inference mode and the update refused outside ([`check_inplace_update`]).
#[inline]
pub fn bump_version<T: Tensor>(t: &T) -> Result<(), Error> {
    match t.is_inference() {
        true => check_inplace_update(t),
        false => t.bump_version(),
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
    fn inference_mode_excludes_autograd_but_not_inplace_or_view() {
        {
            let _inf = InferenceModeGuard::new();
            let excluded = crate::dispatch::tls::excluded();
            assert!(excluded.contains(DispatchKey::AutogradOther));
            assert!(!excluded.contains(DispatchKey::ADInplaceOrView));
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
            assert!(!crate::dispatch::tls::excluded().contains(DispatchKey::AutogradCPU));
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
