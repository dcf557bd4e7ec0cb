//! Warnings: registrations that take effect but deserve a word (c10's `TORCH_WARN`), and the
//! hook that receives them.

use std::fmt;
use std::sync::{Arc, PoisonError};

use super::{Dispatcher, Inner};
use crate::dispatch::error::Site;
use crate::dispatch::kernel::ErasedKernel;
use crate::dispatch::keys::DispatchKey;
use crate::dispatch::reclaim;

/// What receives a dispatcher's warnings: see [`Dispatcher::set_warning_hook`].
pub type WarningHook = dyn Fn(&Warning) + Send + Sync;

/// A registration that took effect but may not be what was meant. The program goes on.
///
/// `Display` starts with PyTorch's words for the same situation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A kernel was registered at a key where the operator already had an active kernel
    /// registered elsewhere: the new one serves while it lives, and dropping it brings the
    /// previous one back. As c10, kernels at `Meta` and `MTIA` override without a warning
    /// (PyTorch replaces those on purpose).
    OverridingKernel {
        /// `ns::op.overload`.
        operator: String,
        /// The operator's schema, when it has a `def`.
        schema: Option<String>,
        /// Where the `def` was made, when it has one.
        def_site: Option<Site>,
        /// The key of both kernels.
        key: DispatchKey,
        /// Where the previous kernel was registered.
        previous_site: Site,
        /// The previous kernel's Rust path (`my_crate::neg_cpu`, or a closure's).
        previous_kernel: &'static str,
        /// Where the new kernel was registered.
        new_site: Site,
        /// The new kernel's Rust path.
        new_kernel: &'static str,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::OverridingKernel {
                operator,
                schema,
                def_site,
                key,
                previous_site,
                previous_kernel,
                new_site,
                new_kernel,
            } => {
                writeln!(
                    f,
                    "Overriding a previously registered kernel for the same operator and the same \
                     dispatch key"
                )?;
                writeln!(f, "  operator: {}", schema.as_deref().unwrap_or(operator))?;
                match def_site {
                    Some(site) => writeln!(f, "    registered at {site}")?,
                    None => writeln!(f, "    no debug info")?,
                }
                writeln!(f, "  dispatch key: {key}")?;
                writeln!(
                    f,
                    "  previous kernel: registered at {previous_site} ({previous_kernel})"
                )?;
                write!(
                    f,
                    "       new kernel: registered at {new_site} ({new_kernel})\n\
                     the new kernel serves `{key}` while its registration lives; dropping it \
                     brings the previous one back"
                )
            }
        }
    }
}

impl Dispatcher {
    /// Sends this dispatcher's warnings to `hook` instead of standard error, where they go
    /// by default (as `Warning: ...`). The hook runs on the registering thread, after the
    /// registration is made and with no lock held, so it may use the dispatcher.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// # use opgen_core::dispatch::*;
    /// # #[derive(Clone)] struct MyTensor(DispatchKeySet);
    /// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
    /// let d = Dispatcher::new();
    /// let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    /// let sink = seen.clone();
    /// d.set_warning_hook(move |w| sink.lock().unwrap().push(w.to_string()));
    /// let lib = d.library("demo")?;
    /// let _def = lib.def("neg(Tensor self) -> Tensor")?;
    /// let _first = lib.impl_("neg", DispatchKey::CPU, |t: &MyTensor| t.clone())?;
    /// let _second = lib.impl_("neg", DispatchKey::CPU, |t: &MyTensor| t.clone())?;
    /// assert!(seen.lock().unwrap()[0].starts_with("Overriding a previously registered kernel"));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn set_warning_hook(&self, hook: impl Fn(&Warning) + Send + Sync + 'static) {
        *self.inner.hook_slot() = Some(Arc::new(hook));
    }

    /// Sends this dispatcher's warnings to standard error again, and returns the hook that
    /// was set, if any.
    pub fn take_warning_hook(&self) -> Option<Arc<WarningHook>> {
        self.inner.hook_slot().take()
    }

    /// The hook set, if any.
    pub(crate) fn warning_hook(&self) -> Option<Arc<WarningHook>> {
        self.inner.hook_slot().clone()
    }

    /// Sets the hook (`None`: standard error).
    pub(crate) fn replace_warning_hook(&self, hook: Option<Arc<WarningHook>>) {
        *self.inner.hook_slot() = hook;
    }
}

impl Inner {
    fn hook_slot(&self) -> std::sync::MutexGuard<'_, Option<Arc<WarningHook>>> {
        self.warning_hook
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn warn(&self, warning: &Warning) {
        // Clone the hook out, so that it runs without this lock (it may set another).
        let hook = self.hook_slot().clone();
        match hook {
            Some(hook) => hook(warning),
            None => eprintln!("Warning: {warning}"),
        }
    }
}

/// What a registry update leaves to do once its lock is released: drop the kernels it
/// removed (their captured values may be registrations, libraries, or anything that uses
/// the dispatcher when dropped), and report its warnings (to a hook that may use the
/// dispatcher too).
#[derive(Default)]
#[must_use = "call `Inner::finish` once the registry's lock is released"]
pub(crate) struct Aftermath {
    pub(crate) dropped: Vec<Arc<ErasedKernel>>,
    pub(crate) warnings: Vec<Warning>,
}

impl Aftermath {
    pub(super) fn finish(self, inner: &Inner) {
        drop(self.dropped);
        // The tables this update superseded, once no call reads them any more (their
        // kernels may run user code when dropped: no lock is held here).
        drop(reclaim::collect());
        for warning in &self.warnings {
            inner.warn(warning);
        }
    }
}
