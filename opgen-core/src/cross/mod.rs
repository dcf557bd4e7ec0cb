//! Cross-cutting kernels: tracing, in-place-or-view bookkeeping and a CPU fallback for
//! external backends, the per-operator kernels torchgen generates (SCHEMA.md §5.9), for
//! every operator of a dispatcher, each enabled with one call.
//!
//! | feature | key | enable with | registered as |
//! |---|---|---|---|
//! | tracer | `Tracer` | [`install_tracer`] | a kernel per traceable operator |
//! | in-place or view | `ADInplaceOrView` | [`install_inplace_or_view`] | a kernel per mutating or view operator |
//! | CPU fallback | a backend key (`PrivateUse1`, ...) | [`install_cpu_fallback`] | one boxed fallback at that key |
//!
//! ```
//! use opgen_core::cross::{self, Scope};
//! # use opgen_core::dispatch::*;
//! # #[derive(Clone)] struct MyTensor;
//! # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { DispatchKey::CPU.into() } }
//! let d = Dispatcher::new();
//! let lib = d.library("demo")?;
//! let _def = lib.def("relu(Tensor self) -> Tensor")?;
//! let tracer = cross::install_tracer::<MyTensor>(&d, Scope::All)?;
//! let views = cross::install_inplace_or_view::<MyTensor>(&d, "demo")?;
//! let fallback = cross::install_cpu_fallback::<MyTensor>(&d, DispatchKey::PrivateUse1, Scope::All)?;
//! assert_eq!(tracer.operators(), ["demo::relu"]);
//! assert!(views.operators().is_empty()); // relu neither writes nor views: fallthrough
//! # drop(fallback);
//! # Ok::<(), Error>(())
//! ```
//!
//! # One generic boxed kernel per feature
//!
//! PyTorch generates one C++ function per operator and feature. Here each feature is one
//! generic boxed kernel over [`Stack`](crate::dispatch::Stack)`<T>`, driven by the
//! operator's schema; what it needs from the schema (which arguments are written, which
//! returns are views of which argument) is computed once per operator at installation and
//! captured by the kernel registered for that operator. This costs a boxed call (the
//! dispatcher boxes the arguments of a typed call) where a generated kernel would be
//! unboxed, but only when the feature's key is in the call's key set: operators the feature
//! does not apply to get no kernel, and the fallthrough fallback every dispatcher has at
//! `Tracer` and `ADInplaceOrView` makes them skip the key at no cost; and the tracer's key is
//! in key sets only while a trace is being recorded.
//!
//! # Which operators, and operators registered later
//!
//! The per-operator features (tracer, in-place or view) register kernels for the operators
//! that have a `def` when they are installed, in the namespaces of their [`Scope`], except
//! operators that already have a kernel of their own at the feature's key (a hand-written
//! kernel wins). An operator defined later has none until [`Installed::refresh`] is called,
//! which registers kernels for the operators defined since. For [`Dispatcher::global`],
//! every `#[native_function]` linked into the program is registered on its first access,
//! so installing on `Dispatcher::global()` covers them all; only operators defined at run
//! time with [`Dispatcher::library`] afterwards need a `refresh`. (An automatic hook on
//! every `def` would run user code under the registry's lock; a refresh keeps registration
//! explicit.) The CPU fallback is a backend fallback, so it serves the operators defined
//! later as well.
//!
//! Everything an installation registered is undone when its [`Installed`] is dropped.

mod cpu_fallback;
mod inplace_or_view;
mod trace;
mod tracer;

#[cfg(test)]
pub(crate) mod panics;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;
use std::fmt;

use crate::dispatch::{
    DispatchKey, Dispatcher, Error, ErrorKind, OperatorHandle, Registration, Tensor,
};

pub use cpu_fallback::install_cpu_fallback;
pub use inplace_or_view::install_inplace_or_view;
pub use trace::{Trace, TraceNode, TraceValue};
pub use tracer::{TracingGuard, install_tracer, is_tracing, start_tracing};

/// The namespaces a feature applies to.
///
/// ```
/// use opgen_core::cross::Scope;
/// assert!(Scope::All.covers("aten"));
/// assert!(Scope::from("vision").covers("vision"));
/// assert!(!Scope::from("vision").covers("aten"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every namespace.
    All,
    /// One namespace (`aten`).
    Namespace(String),
}

impl Scope {
    /// Whether operators of `namespace` are in scope.
    pub fn covers(&self, namespace: &str) -> bool {
        match self {
            Scope::All => true,
            Scope::Namespace(ns) => ns == namespace,
        }
    }
}

impl From<&str> for Scope {
    /// The namespace `ns`.
    fn from(ns: &str) -> Scope {
        Scope::Namespace(ns.to_string())
    }
}

impl From<String> for Scope {
    /// The namespace `ns`.
    fn from(ns: String) -> Scope {
        Scope::Namespace(ns)
    }
}

/// Registers a feature's kernel for one operator, or nothing if it does not apply.
type RegisterFn = fn(&Dispatcher, &OperatorHandle, &Scope) -> Result<Option<Registration>, Error>;

/// What an `install_*` function registered: dropping it undoes every registration.
///
/// ```
/// # use opgen_core::dispatch::*;
/// # #[derive(Clone)] struct MyTensor;
/// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { DispatchKey::CPU.into() } }
/// let d = Dispatcher::new();
/// let lib = d.library("demo")?;
/// let mut tracer = opgen_core::cross::install_tracer::<MyTensor>(&d, "demo")?;
/// assert!(tracer.operators().is_empty());
/// let _def = lib.def("neg(Tensor self) -> Tensor")?; // defined after the installation
/// assert_eq!(tracer.refresh()?, 1);
/// assert_eq!(tracer.operators(), ["demo::neg"]);
/// assert_eq!((tracer.feature(), tracer.scope()), ("Tracer", &"demo".into()));
/// tracer.forget(); // in force for the life of the dispatcher
/// assert!(d.find("demo::neg", "")?.keys_with_kernels().contains(&DispatchKey::Tracer));
/// # Ok::<(), Error>(())
/// ```
#[must_use = "dropping an Installed undoes its registrations at once"]
pub struct Installed {
    feature: &'static str,
    dispatcher: Dispatcher,
    scope: Scope,
    register: Option<RegisterFn>,
    /// The operators seen so far (with or without a kernel), by full name.
    seen: BTreeSet<String>,
    /// The operators given a kernel, in registration order.
    covered: Vec<String>,
    registrations: Vec<Registration>,
}

impl Installed {
    fn new(
        feature: &'static str,
        dispatcher: &Dispatcher,
        scope: Scope,
        register: Option<RegisterFn>,
    ) -> Installed {
        Installed {
            feature,
            dispatcher: dispatcher.clone(),
            scope,
            register,
            seen: BTreeSet::new(),
            covered: Vec::new(),
            registrations: Vec::new(),
        }
    }

    /// The feature's key name (`Tracer`, `ADInplaceOrView`, or the fallback's key).
    pub fn feature(&self) -> &'static str {
        self.feature
    }

    /// The scope it was installed with.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The operators (`ns::op.overload`) that got a kernel of this feature.
    pub fn operators(&self) -> &[String] {
        &self.covered
    }

    /// Registers the feature's kernels for the operators defined since the installation or
    /// the last refresh; returns how many got one. A no-op for the CPU fallback, which is a
    /// backend fallback and serves every operator already.
    pub fn refresh(&mut self) -> Result<usize, Error> {
        let Some(register) = self.register else {
            return Ok(0);
        };
        let before = self.covered.len();
        for op in self.dispatcher.operators() {
            let name = op.to_string();
            if !self.scope.covers(op.namespace()) || self.seen.contains(&name) {
                continue;
            }
            if let Some(registration) = register(&self.dispatcher, &op, &self.scope)? {
                self.registrations.push(registration);
                self.covered.push(name.clone());
            }
            self.seen.insert(name);
        }
        Ok(self.covered.len() - before)
    }

    /// Keeps the registrations in force for as long as the dispatcher exists.
    pub fn forget(self) {
        for registration in self.registrations {
            registration.forget();
        }
    }
}

impl fmt::Debug for Installed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Installed")
            .field("feature", &self.feature)
            .field("scope", &self.scope)
            .field("operators", &self.covered)
            .finish()
    }
}

/// Whether `op` already has a kernel of its own at `key` (then the feature leaves it alone).
fn has_own_kernel(op: &OperatorHandle, key: DispatchKey) -> bool {
    op.keys_with_kernels().contains(&key)
}

/// A tensor hook failed inside a feature's kernel: the error names the feature, and, once
/// the dispatcher adds it, the operator (as a kernel error); the hook's own error (for a
/// hook the tensor type lacks, [`ErrorKind::Unsupported`]) is its source.
#[derive(Debug)]
struct HookError {
    feature: &'static str,
    source: Error,
}

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the {} kernel: {}", self.feature, self.source)
    }
}

impl std::error::Error for HookError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Wraps the error of a tensor hook called by `feature`'s kernel.
fn hook_error(feature: &'static str) -> impl Fn(Error) -> Error {
    move |source| Error::kernel(HookError { feature, source })
}

/// The schema of an operator being called, or the internal error of a call without one.
fn schema_of(op: &OperatorHandle) -> Result<std::sync::Arc<crate::schema::Schema>, Error> {
    op.schema().ok_or_else(|| {
        ErrorKind::Internal {
            message: format!("`{op}` was called without a schema"),
        }
        .into()
    })
}

/// Where the arguments of a call to `op` start on `stack`.
fn args_base<T: Tensor>(
    op: &OperatorHandle,
    num_args: usize,
    stack: &crate::dispatch::Stack<T>,
) -> Result<usize, Error> {
    stack.len().checked_sub(num_args).ok_or_else(|| {
        ErrorKind::StackTooShort {
            operator: op.to_string(),
            expected: num_args,
            found: stack.len(),
        }
        .into()
    })
}
