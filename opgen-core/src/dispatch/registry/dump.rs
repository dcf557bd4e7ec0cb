//! Introspection: an operator's registrations as c10's `dumpState` lists them
//! ([`OperatorHandle::dump_state`], PyTorch's `torch._C._dispatch_dump`), and its computed
//! table ([`OperatorHandle::dispatch_table`], `torch._C._dispatch_dump_table`).

use std::fmt::Write;

use super::OpState;
use super::operator::OperatorEntry;
use super::registration::printed;
use crate::dispatch::handle::OperatorHandle;
use crate::dispatch::keys::DispatchKey;
use crate::dispatch::table::{DispatchTableDump, KernelReg, resolve};

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
        None => format!("registered at {} :: (fallthrough) [ fallthrough ]", reg.site),
    }
}
