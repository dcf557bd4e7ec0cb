//! Registrations: `def`, kernels and fallbacks, and the handles that undo them.

use std::fmt;
use std::sync::{Arc, MutexGuard, PoisonError};

use super::{BUILTIN, DefReg, Inner, RegistrationId, Registry, builtin_fallback};
use crate::dispatch::error::{Error, ErrorKind, Site};
use crate::dispatch::kernel::{ErasedKernel, Mismatch};
use crate::dispatch::keys::DispatchKey;
use crate::dispatch::table::{FallbackReg, KernelReg, OpInfo};
use crate::schema::{Schema, parse_schema};

/// What a registration added, so that dropping it can remove exactly that.
enum Target {
    Def(String),
    Kernel(String),
    Fallback(Vec<DispatchKey>),
}

/// A registration: a `def`, a kernel or a fallback. It stays in force while the handle
/// lives; dropping the handle removes it and restores the tables from before it (unless
/// newer registrations at the same keys still shadow it). [`Registration::forget`] keeps it
/// for the life of the dispatcher.
#[must_use = "dropping a Registration undoes it at once; keep it, or call `forget`"]
pub struct Registration {
    inner: Arc<Inner>,
    id: RegistrationId,
    target: Target,
    site: Site,
}

impl Registration {
    /// The registration's id, as shown in [`DispatchTableDump`](crate::dispatch::DispatchTableDump)s.
    pub fn id(&self) -> RegistrationId {
        self.id
    }

    /// Where the registration was made.
    pub fn site(&self) -> Site {
        self.site
    }

    /// Keeps the registration in force for as long as the dispatcher exists.
    pub fn forget(self) {
        std::mem::forget(self);
    }
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Registration({} at {})", self.id, self.site)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut registry = self.inner.lock();
        let id = self.id;
        match &self.target {
            Target::Def(name) => {
                if let Some(op) = registry.ops.get_mut(name)
                    && op.def.as_ref().is_some_and(|d| d.id == id)
                {
                    op.def = None;
                }
                registry.rebuild_op(name);
            }
            Target::Kernel(name) => {
                if let Some(op) = registry.ops.get_mut(name) {
                    op.kernels.retain(|k| k.id != id);
                }
                registry.rebuild_op(name);
            }
            Target::Fallback(keys) => {
                for key in keys {
                    if let Some(slot) = registry.fallbacks.get_mut(key.index())
                        && slot.as_ref().is_some_and(|f| f.id == id)
                    {
                        *slot = builtin_fallback(*key);
                    }
                }
                registry.rebuild_all();
            }
        }
    }
}

impl Inner {
    pub(super) fn lock(&self) -> MutexGuard<'_, Registry> {
        // Registry updates finish before any user code runs, so a poisoned lock holds a
        // consistent registry.
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn registration(
        self: &Arc<Self>,
        id: RegistrationId,
        target: Target,
        site: Site,
    ) -> Registration {
        Registration {
            inner: self.clone(),
            id,
            target,
            site,
        }
    }

    /// Claims `namespace` for the library `lib`.
    pub(crate) fn claim_namespace(
        &self,
        namespace: &str,
        lib: u64,
        site: Site,
    ) -> Result<(), Error> {
        let mut registry = self.lock();
        if let Some((_, first_site)) = registry.namespaces.get(namespace) {
            return Err(ErrorKind::NamespaceTaken {
                namespace: namespace.to_string(),
                first_site,
                second_site: site,
            }
            .into());
        }
        registry
            .namespaces
            .insert(namespace.to_string(), (lib, site));
        Ok(())
    }

    pub(crate) fn release_namespace(&self, namespace: &str, lib: u64) {
        let mut registry = self.lock();
        if registry
            .namespaces
            .get(namespace)
            .is_some_and(|(owner, _)| *owner == lib)
        {
            registry.namespaces.remove(namespace);
        }
    }

    pub(crate) fn next_library_id(&self) -> u64 {
        self.lock().next_id()
    }

    /// Defines an operator in `namespace` from a schema string.
    pub(crate) fn def(
        self: &Arc<Self>,
        namespace: &str,
        text: &str,
        variants: Option<crate::native::Variants>,
        device: Option<crate::dispatch::DeviceChecks>,
        site: Site,
    ) -> Result<Registration, Error> {
        let schema = parse_schema(text).map_err(|errors| ErrorKind::InvalidSchema {
            schema: text.to_string(),
            errors,
            site,
        })?;
        if let Some(ns) = schema
            .name
            .namespace
            .as_deref()
            .filter(|ns| *ns != namespace)
        {
            return Err(invalid_name(
                text,
                format!(
                    "namespace `{ns}` differs from the library's `{namespace}`; register it from a library for `{ns}`"
                ),
                site,
            ));
        }
        let overload = schema.name.overload.clone().unwrap_or_default();
        if overload == "default" || overload == "__name__" {
            return Err(invalid_name(
                text,
                format!("overload name `{overload}` is reserved; choose another"),
                site,
            ));
        }
        let name = format!("{namespace}::{}", schema.name.operator_name());
        let key = if overload.is_empty() {
            name.clone()
        } else {
            format!("{name}.{overload}")
        };
        let mut registry = self.lock();
        let id = RegistrationId(registry.next_id());
        let op = registry.op(self, namespace, &name, &overload);
        if let Some(first) = &op.def {
            return Err(ErrorKind::DuplicateDef {
                operator: key,
                first: first.info.schema.to_string(),
                first_site: first.site,
                second: schema.to_string(),
                second_site: site,
            }
            .into());
        }
        for kernel in &op.kernels {
            if let Some(check) = kernel.kernel.as_ref().and_then(|k| k.check) {
                check(&schema)
                    .map_err(|m| signature_error(&key, kernel.key, kernel.site, &schema, m))?;
            }
        }
        op.def = Some(DefReg {
            id,
            info: Arc::new(OpInfo {
                variants,
                device,
                ..OpInfo::new(Arc::new(schema))
            }),
            site,
        });
        registry.rebuild_op(&key);
        Ok(self.registration(id, Target::Def(key), site))
    }

    /// Registers a kernel (`None`: a fallthrough) for the operator `name` at `key`.
    pub(crate) fn impl_kernel(
        self: &Arc<Self>,
        namespace: &str,
        name: &str,
        key: DispatchKey,
        kernel: Option<ErasedKernel>,
        site: Site,
    ) -> Result<Registration, Error> {
        let (op_name, overload) = parse_name(namespace, name, site)?;
        let full = if overload.is_empty() {
            op_name.clone()
        } else {
            format!("{op_name}.{overload}")
        };
        let mut registry = self.lock();
        let id = RegistrationId(registry.next_id());
        let op = registry.op(self, namespace, &op_name, &overload);
        if let (Some(def), Some(check)) = (&op.def, kernel.as_ref().and_then(|k| k.check)) {
            check(&def.info.schema)
                .map_err(|m| signature_error(&full, key, site, &def.info.schema, m))?;
        }
        op.kernels.push(KernelReg {
            id,
            key,
            kernel: kernel.map(Arc::new),
            site,
        });
        registry.rebuild_op(&full);
        Ok(self.registration(id, Target::Kernel(full), site))
    }

    /// Registers a backend fallback (`None`: a fallthrough) at `key`, or at every runtime key
    /// an alias key covers. It replaces a default fallback ([`builtin_fallback`]),
    /// which comes back when it is dropped.
    pub(crate) fn fallback(
        self: &Arc<Self>,
        key: DispatchKey,
        kernel: Option<ErasedKernel>,
        site: Site,
    ) -> Result<Registration, Error> {
        let keys: Vec<DispatchKey> = key.runtime_keys().iter().collect();
        let mut registry = self.lock();
        for k in &keys {
            if let Some(Some(first)) = registry.fallbacks.get(k.index())
                && first.id != BUILTIN
            {
                return Err(ErrorKind::DuplicateFallback {
                    key: *k,
                    first_site: first.site,
                    second_site: site,
                }
                .into());
            }
        }
        let id = RegistrationId(registry.next_id());
        let kernel = kernel.map(Arc::new);
        for k in &keys {
            registry.fallbacks[k.index()] = Some(FallbackReg {
                id,
                kernel: kernel.clone(),
                site,
            });
        }
        registry.rebuild_all();
        Ok(self.registration(id, Target::Fallback(keys), site))
    }
}

fn invalid_name(name: &str, problem: String, site: Site) -> Error {
    ErrorKind::InvalidName {
        name: name.to_string(),
        problem,
        site,
    }
    .into()
}

fn signature_error(
    operator: &str,
    key: DispatchKey,
    site: Site,
    schema: &Schema,
    m: Mismatch,
) -> Error {
    ErrorKind::KernelSignature {
        operator: operator.to_string(),
        key,
        site,
        found: m.found,
        expected: m.expected,
        detail: m.detail,
        schema: schema.to_string(),
    }
    .into()
}

/// Splits `[ns::]op[.overload]` into (`ns::op`, `overload`), checking the namespace.
fn parse_name(namespace: &str, name: &str, site: Site) -> Result<(String, String), Error> {
    let rest = match name.split_once("::") {
        Some((ns, rest)) if ns == namespace => rest,
        Some((ns, _)) => {
            return Err(invalid_name(
                name,
                format!(
                    "namespace `{ns}` differs from the library's `{namespace}`; use a library for `{ns}`"
                ),
                site,
            ));
        }
        None => name,
    };
    let is_ident =
        |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let (op, overload) = match rest.split_once('.') {
        Some((op, overload)) if is_ident(overload) => (op, overload),
        None => (rest, ""),
        Some(_) => ("", ""),
    };
    if !is_ident(op) {
        return Err(invalid_name(
            name,
            "expected `op` or `op.overload`, with letters, digits and `_`".into(),
            site,
        ));
    }
    Ok((format!("{namespace}::{op}"), overload.to_string()))
}
