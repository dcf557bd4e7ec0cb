//! Introspection: the operators, the dangling impls and the fallbacks of a dispatcher; an
//! operator's registrations as c10's `dumpState` lists them ([`OperatorHandle::dump_state`],
//! PyTorch's `torch._C._dispatch_dump`), and its computed table
//! ([`OperatorHandle::dispatch_table`], `torch._C._dispatch_dump_table`).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

use super::operator::{OperatorEntry, name_hash};
use super::registration::printed;
use super::{DefinedOperator, Dispatcher, OpState, split_full_name};
use crate::dispatch::erased::Shared;
use crate::dispatch::error::Site;
use crate::dispatch::handle::OperatorHandle;
use crate::dispatch::kernel::ErasedKernel;
use crate::dispatch::keys::DispatchKey;
use crate::dispatch::table::{DispatchTableDump, KernelReg, resolve};

impl Dispatcher {
    /// Every operator with a `def`, by name.
    pub fn operators(&self) -> Vec<OperatorHandle> {
        let mut registry = self.inner.lock();
        let ids: Vec<u32> = (registry.ops.iter())
            .filter(|op| op.def.is_some())
            .map(|op| op.entry.id)
            .collect();
        let mut handles: Vec<OperatorHandle> = (ids.into_iter())
            .filter_map(|id| {
                registry.make_ready(id);
                (registry.op(id))
                    .and_then(|op| OperatorHandle::new(Shared::from_arc(op.entry.clone())))
            })
            .collect();
        drop(registry);
        handles.sort_by(|a, b| a.entry.full_name().cmp(b.entry.full_name()));
        handles
    }

    /// The operators that have kernels but no `def` ("dangling impls", as c10's
    /// `_dispatch_find_dangling_impls`): a kernel attached to a name that nothing defines,
    /// or whose `def` has not come yet. Their [`OperatorHandle::dump_state`] shows the
    /// kernels and their sites.
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// # #[derive(Clone)] struct MyTensor(DispatchKeySet);
    /// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
    /// let d = Dispatcher::new();
    /// let _typo = d.impls("demo").impl_("rleu", DispatchKey::CPU, |t: &MyTensor| t.clone())?;
    /// let dangling = d.dangling_impls();
    /// assert_eq!(dangling.len(), 1);
    /// assert_eq!(dangling[0].to_string(), "demo::rleu");
    /// # Ok::<(), Error>(())
    /// ```
    pub fn dangling_impls(&self) -> Vec<OperatorHandle> {
        let mut registry = self.inner.lock();
        let ids: Vec<u32> = (registry.ops.iter())
            .filter(|op| op.def.is_none() && !op.kernels.is_empty())
            .map(|op| op.entry.id)
            .collect();
        let mut handles: Vec<OperatorHandle> = (ids.into_iter())
            .filter_map(|id| {
                // A handle needs the operator's table (without `def`: every call fails).
                registry.make_ready(id);
                let op = registry.op(id)?;
                OperatorHandle::new(Shared::from_arc(op.entry.clone()))
            })
            .collect();
        drop(registry);
        handles.sort_by(|a, b| a.entry.full_name().cmp(b.entry.full_name()));
        handles
    }

    /// The keys with a backend fallback, with its site and whether it is a fallthrough.
    pub fn fallbacks(&self) -> Vec<(DispatchKey, Site, bool)> {
        let registry = self.inner.lock();
        (registry.fallbacks.iter().enumerate())
            .filter_map(|(i, f)| {
                f.as_ref()
                    .map(|f| (DispatchKey::ALL[i], f.site, f.kernel.is_none()))
            })
            .collect()
    }

    /// The active kernel at each key the operator `full_name` (`ns::op.overload`) has one
    /// registered at directly (runtime or alias key), in key order; fallthroughs left out.
    pub(crate) fn kernels_of(&self, full_name: &str) -> Vec<(DispatchKey, Arc<ErasedKernel>)> {
        let (name, overload) = split_full_name(full_name);
        let Some(entry) = self
            .inner
            .index
            .get(name_hash(name, overload), name, overload)
        else {
            return Vec::new();
        };
        let registry = self.inner.lock();
        let Some(op) = registry.op(entry.id) else {
            return Vec::new();
        };
        let mut active: BTreeMap<DispatchKey, Option<&Arc<ErasedKernel>>> = BTreeMap::new();
        for reg in &op.kernels {
            active.insert(reg.key, reg.kernel.as_ref());
        }
        (active.into_iter())
            .filter_map(|(key, kernel)| Some((key, kernel?.clone())))
            .collect()
    }

    /// The operators with a `def` named `name` (`ns::op`), any overload, with their
    /// schemas (parsed now; those that do not parse are left out). Their tables are not
    /// built: [`Dispatcher::find`] gives a handle.
    pub(crate) fn overloads_of(&self, name: &str) -> Vec<DefinedOperator> {
        let registry = self.inner.lock();
        (registry.overload_ids(name).into_iter())
            .filter_map(|id| registry.defined(id))
            .collect()
    }

    /// Whether an operator named `name` (`ns::op`) has a `def`, any overload (no schema is
    /// parsed).
    pub(crate) fn has_overloads(&self, name: &str) -> bool {
        let registry = self.inner.lock();
        (registry.overload_ids(name).into_iter())
            .any(|id| registry.op(id).is_some_and(|op| op.def.is_some()))
    }

    /// The operators with a `def` and at least one kernel (not a fallthrough), in
    /// registration order: namespace, operator name without namespace nor overload (`add`),
    /// and the keys of those kernels. No schema is parsed.
    pub(crate) fn defined_with_kernels(&self) -> Vec<(String, String, Vec<DispatchKey>)> {
        let registry = self.inner.lock();
        (registry.ops.iter())
            .filter(|op| op.def.is_some() && op.kernels.iter().any(|k| k.kernel.is_some()))
            .map(|op| {
                let keys = (op.kernels.iter())
                    .filter(|k| k.kernel.is_some())
                    .map(|k| k.key)
                    .collect();
                let name = &op.entry.qualified;
                let namespace = name.namespace();
                let op_name = (name.name().get(namespace.len() + 2..)).unwrap_or_default();
                (namespace.to_string(), op_name.to_string(), keys)
            })
            .collect()
    }
}

impl OperatorEntry {
    /// The computed table with the registration serving each key, if the dispatcher lives.
    pub(crate) fn dump(&self) -> DispatchTableDump {
        let empty = || DispatchTableDump::new(self.full_name().to_string(), &resolve(&[], &[]));
        let Some(inner) = self.dispatcher.upgrade() else {
            return empty();
        };
        let registry = inner.lock();
        // Without a `def`, the table serves nothing, whatever is registered.
        match registry.op(self.id).filter(|op| op.def.is_some()) {
            Some(op) => DispatchTableDump::new(
                self.full_name().to_string(),
                &resolve(&op.kernels, &registry.fallbacks),
            ),
            None => empty(),
        }
    }
}

impl OperatorHandle {
    /// Every registration of the operator, as c10's `dumpState` (PyTorch's
    /// `torch._C._dispatch_dump`) lists them: its name, its schema and where it was
    /// defined, then each kernel by key (runtime keys, then alias keys marked `[alias]`),
    /// the active one first and those it shadows marked `(inactive)`, each with where it
    /// was registered, its Rust path and how it can be called (`boxed`, `unboxed`, or
    /// `fallthrough`). Backend fallbacks are not listed (they belong to every operator:
    /// see [`Dispatcher::fallbacks`](super::Dispatcher::fallbacks)).
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// # #[derive(Clone)] struct MyTensor(DispatchKeySet);
    /// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
    /// fn neg_cpu(t: &MyTensor) -> MyTensor { t.clone() }
    /// let d = Dispatcher::new();
    /// let lib = d.library("demo")?;
    /// let _def = lib.def("neg(Tensor self) -> Tensor")?;
    /// let _cpu = lib.impl_("neg", DispatchKey::CPU, neg_cpu)?;
    /// let dump = d.find("demo::neg", "")?.dump_state();
    /// assert!(dump.starts_with("name: demo::neg\nschema: demo::neg(Tensor self) -> Tensor\n"));
    /// assert!(dump.contains("::neg_cpu [ boxed unboxed ]"));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn dump_state(&self) -> String {
        let Some(inner) = self.entry.dispatcher.upgrade() else {
            return format!("name: {}\nschema: (none)\n", self.entry.full_name());
        };
        let registry = inner.lock();
        match registry.op(self.entry.id) {
            Some(op) => dump_state(op),
            None => String::new(),
        }
    }
}

fn dump_state(op: &OpState) -> String {
    let mut out = format!("name: {}\n", op.entry.full_name());
    match &op.def {
        Some(def) => {
            let schema = match def.info.schema() {
                Ok(schema) => printed(&op.entry, schema),
                Err(error) => format!("(invalid: {error})"),
            };
            let _ = writeln!(out, "schema: {schema}");
            let _ = writeln!(out, "debug: registered at {}", def.info.site);
        }
        None => out.push_str("schema: (none)\n"),
    }
    for &key in DispatchKey::ALL {
        let at_key = op.kernels.iter().rev().filter(|k| k.key == key);
        for (i, reg) in at_key.enumerate() {
            let alias = if key.is_alias() { "[alias]" } else { "" };
            let inactive = if i > 0 { " (inactive)" } else { "" };
            let _ = writeln!(out, "{key}{alias}{inactive}: {}", describe(reg));
        }
    }
    out
}

/// `registered at SITE :: RUST_PATH [ FORMS ]`.
fn describe(reg: &KernelReg) -> String {
    match &reg.kernel {
        Some(kernel) => {
            let forms = if kernel.check.is_some() {
                "boxed unboxed"
            } else {
                "boxed"
            };
            format!("registered at {} :: {} [ {forms} ]", reg.site, kernel.name)
        }
        None => format!(
            "registered at {} :: (fallthrough) [ fallthrough ]",
            reg.site
        ),
    }
}
