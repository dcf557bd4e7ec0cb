//! Registrations: `def`, kernels and fallbacks, and the handles that undo them.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use super::operator::OpInfo;
use super::warning::{Aftermath, Warning};
use super::{BUILTIN, DefReg, Inner, RegistrationId, Registry, builtin_fallback};
use crate::dispatch::Variants;
use crate::dispatch::device::DeviceChecks;
use crate::dispatch::error::{Error, ErrorKind, Site};
use crate::dispatch::kernel::{ErasedKernel, Mismatch};
use crate::dispatch::keys::DispatchKey;
use crate::dispatch::operator::NameScan;
use crate::dispatch::table::{FallbackReg, KernelReg};
use crate::schema::{Schema, parse_schema};

/// What a registration added, so that dropping it can remove exactly that.
enum Target {
    /// The `def` of the operator with this id.
    Def(u32),
    /// A kernel of the operator with this id.
    Kernel(u32),
    Fallback(Vec<DispatchKey>),
    /// Nothing: the registration was kept ([`Registration::forget`]).
    Kept,
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

    /// Keeps the registration in force for as long as the dispatcher exists. The handle is
    /// dropped: unlike a leaked handle, it does not keep the dispatcher alive, so dropping
    /// the dispatcher's last [`Dispatcher`](crate::dispatch::Dispatcher) and
    /// [`Library`](crate::dispatch::Library) still frees it (and what its kernels hold).
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// let d = Dispatcher::new();
    /// let lib = d.library("demo")?;
    /// lib.def("neg(Tensor self) -> Tensor")?.forget();
    /// assert!(d.find("demo::neg", "").is_ok());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn forget(mut self) {
        self.target = Target::Kept;
    }
}

impl fmt::Debug for Registration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Registration({} at {})", self.id, self.site)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Target::Kept = self.target {
            return;
        }
        let mut aftermath = Aftermath::default();
        self.inner
            .lock()
            .remove(self.id, &self.target, &mut aftermath);
        // The kernel removed (and what it captured: other registrations, libraries, values
        // that look operators up when dropped) is dropped here, with the lock released.
        self.inner.finish(aftermath);
    }
}

impl Registry {
    /// Undoes the registration `id`, leaving the values it held in `aftermath`.
    fn remove(&mut self, id: RegistrationId, target: &Target, aftermath: &mut Aftermath) {
        match target {
            Target::Def(op) => {
                if let Some(state) = self.op_mut(*op)
                    && state.def.as_ref().is_some_and(|d| d.id == id)
                {
                    state.def = None;
                }
                self.rebuild_op(*op);
            }
            Target::Kernel(op) => {
                if let Some(state) = self.op_mut(*op)
                    && let Some(i) = state.kernels.iter().position(|k| k.id == id)
                {
                    let removed = state.kernels.remove(i);
                    aftermath.dropped.extend(removed.kernel);
                }
                self.rebuild_op(*op);
            }
            Target::Fallback(keys) => {
                for key in keys {
                    if let Some(slot) = self.fallbacks.get_mut(key.index())
                        && slot.as_ref().is_some_and(|f| f.id == id)
                    {
                        let removed = std::mem::replace(slot, builtin_fallback(*key));
                        aftermath.dropped.extend(removed.and_then(|f| f.kernel));
                    }
                }
                self.rebuild_all();
            }
            Target::Kept => {}
        }
    }
}

impl Inner {
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

    /// Defines an operator in `namespace` from a schema string, parsed and checked now.
    pub(crate) fn def(
        self: &Arc<Self>,
        namespace: &str,
        text: &str,
        variants: Option<Variants>,
        device: Option<DeviceChecks>,
        site: Site,
    ) -> Result<Registration, Error> {
        let schema = parse_schema(text).map_err(|errors| ErrorKind::InvalidSchema {
            schema: text.to_string(),
            errors,
            site,
        })?;
        let overload = schema
            .name
            .overload
            .as_deref()
            .unwrap_or_default()
            .to_string();
        check_def_name(
            namespace,
            schema.name.namespace.as_deref(),
            &overload,
            text,
            site,
        )?;
        let op = schema.name.operator_name();
        let info = OpInfo::parsed(Arc::new(schema), site);
        self.add_def(namespace, (&op, &overload, None), info, variants, device)
    }

    /// [`Inner::def`] for a schema that lives as long as the program (a link-time entry,
    /// checked when its crate was compiled): only its name is read now (`scan`, of `text`);
    /// the rest is parsed when the operator is first needed.
    pub(crate) fn def_static(
        self: &Arc<Self>,
        namespace: &str,
        (text, scan): (&'static str, NameScan),
        variants: Option<Variants>,
        device: Option<DeviceChecks>,
        site: Site,
    ) -> Result<Registration, Error> {
        let Some((ns, op, overload)) = scan.split(text) else {
            return self.def(namespace, text, variants, device, site);
        };
        check_def_name(namespace, ns, overload, text, site)?;
        // A text with its namespace prefix (`aten::add.Tensor(...`) starts with the
        // operator's name, which its entry then borrows instead of copying; the schema is
        // kept without the prefix, as `def` keeps it.
        let prefix = ns.map_or(0, |ns| ns.len() + 2);
        let dot = usize::from(!overload.is_empty());
        let named = ns.and_then(|_| text.get(..prefix + op.len() + dot + overload.len()));
        let info = OpInfo::text(text.get(prefix..).unwrap_or(text), site);
        self.add_def(namespace, (op, overload, named), info, variants, device)
    }

    /// Defines the operator `op` with `overload`; `named` is its name `ns::op.overload`
    /// when it lives as long as the program.
    fn add_def(
        self: &Arc<Self>,
        namespace: &str,
        (op, overload, named): (&str, &str, Option<&'static str>),
        info: OpInfo,
        variants: Option<Variants>,
        device: Option<DeviceChecks>,
    ) -> Result<Registration, Error> {
        let site = info.site;
        let mut info = info;
        info.variants = variants;
        info.device = device;
        let info = Arc::new(info);
        let name: Cow<'static, str> = match named {
            Some(full) => Cow::Borrowed(full.get(..namespace.len() + 2 + op.len()).unwrap_or(full)),
            None => Cow::Owned(format!("{namespace}::{op}")),
        };
        let mut registry = self.lock();
        let op_id = registry.op_id(self, namespace, (&name, overload), named);
        let Some(state) = registry.op(op_id) else {
            return Err(Error::internal("an operator entry without state"));
        };
        if let Some(first) = &state.def {
            return Err(duplicate_def(&state.entry, &first.info, &info));
        }
        // Kernels registered before the `def` are checked against it now.
        let checks: Vec<_> = (state.kernels.iter())
            .filter_map(|k| Some((k.key, k.site, k.kernel.as_ref()?.check?)))
            .collect();
        if !checks.is_empty() {
            let schema = info.schema()?;
            for (key, kernel_site, check) in checks {
                check(schema)
                    .map_err(|m| signature_error(&state.entry, key, kernel_site, &info, m))?;
            }
        }
        let id = RegistrationId(registry.next_id());
        if let Some(state) = registry.op_mut(op_id) {
            state.def = Some(DefReg { id, info });
        }
        let published = registry.rebuild_op(op_id);
        drop(registry);
        // The table the `def` replaced, if the operator was looked up before (an operator
        // defined at link time was not: nothing to collect).
        if published {
            self.finish(Aftermath::default());
        }
        Ok(self.registration(id, Target::Def(op_id), site))
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
        let mut aftermath = Aftermath::default();
        let result = {
            let mut registry = self.lock();
            registry.add_kernel(
                self,
                (namespace, &op_name, &overload),
                key,
                kernel,
                site,
                &mut aftermath,
            )
        };
        self.finish(aftermath);
        let (id, op_id) = result?;
        Ok(self.registration(id, Target::Kernel(op_id), site))
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
        let kernel = kernel.map(Arc::new);
        let mut registry = self.lock();
        for k in &keys {
            if let Some(Some(first)) = registry.fallbacks.get(k.index())
                && first.id != BUILTIN
            {
                let error = ErrorKind::DuplicateFallback {
                    key: *k,
                    first_site: first.site,
                    second_site: site,
                };
                drop(registry);
                // The rejected kernel is dropped with the lock released.
                drop(kernel);
                return Err(error.into());
            }
        }
        let id = RegistrationId(registry.next_id());
        let mut aftermath = Aftermath::default();
        for k in &keys {
            let new = Some(FallbackReg {
                id,
                kernel: kernel.clone(),
                site,
            });
            let old = std::mem::replace(&mut registry.fallbacks[k.index()], new);
            aftermath.dropped.extend(old.and_then(|f| f.kernel));
        }
        registry.rebuild_all();
        drop(registry);
        self.finish(aftermath);
        Ok(self.registration(id, Target::Fallback(keys), site))
    }
}

impl Registry {
    /// [`Inner::impl_kernel`] under the lock: the new registration's id and its operator's.
    /// A rejected kernel ends in `aftermath`, to be dropped once the lock is released.
    fn add_kernel(
        &mut self,
        inner: &Arc<Inner>,
        (namespace, name, overload): (&str, &str, &str),
        key: DispatchKey,
        kernel: Option<ErasedKernel>,
        site: Site,
        aftermath: &mut Aftermath,
    ) -> Result<(RegistrationId, u32), Error> {
        let kernel = kernel.map(Arc::new);
        let op_id = self.op_id(inner, namespace, (name, overload), None);
        let Some(state) = self.op(op_id) else {
            return Err(Error::internal("an operator entry without state"));
        };
        if let (Some(def), Some(check)) = (&state.def, kernel.as_ref().and_then(|k| k.check)) {
            let checked = (def.info.schema()).and_then(|schema| {
                check(schema).map_err(|m| signature_error(&state.entry, key, site, &def.info, m))
            });
            if let Err(error) = checked {
                aftermath.dropped.extend(kernel);
                return Err(error);
            }
        }
        if let Some(warning) = overriding(state, key, kernel.as_deref(), site)
            && let Warning::OverridingKernel { previous_site, .. } = &warning
            && self.warned.insert((op_id, key, previous_site, site))
        {
            aftermath.warnings.push(warning);
        }
        let id = RegistrationId(self.next_id());
        if let Some(state) = self.op_mut(op_id) {
            state.kernels.push(KernelReg {
                id,
                key,
                kernel,
                site,
            });
        }
        self.rebuild_op(op_id);
        Ok((id, op_id))
    }
}

/// The warning of a kernel registered at `key` where the operator has an active kernel from
/// another site (none at `Meta` and `MTIA`, as c10; none for fallthroughs, which are not
/// kernels there).
fn overriding(
    state: &super::OpState,
    key: DispatchKey,
    kernel: Option<&ErasedKernel>,
    site: Site,
) -> Option<Warning> {
    let kernel = kernel?;
    if matches!(key, DispatchKey::Meta | DispatchKey::MTIA) {
        return None;
    }
    let previous = state.kernels.iter().rev().find(|k| k.key == key)?;
    let previous_kernel = previous.kernel.as_ref()?;
    if previous.site == site {
        return None;
    }
    let info = state.def.as_ref().map(|d| &d.info);
    Some(Warning::OverridingKernel {
        operator: state.entry.full_name().to_string(),
        schema: info
            .and_then(|i| i.schema().ok())
            .map(|s| printed(&state.entry, s)),
        def_site: info.map(|i| i.site),
        key,
        previous_site: previous.site,
        previous_kernel: previous_kernel.name,
        new_site: site,
        new_kernel: kernel.name,
    })
}

/// `ns::op.overload(...) -> ...`: the schema with its operator's namespace, as c10 prints it.
pub(crate) fn printed(entry: &super::OperatorEntry, schema: &Schema) -> String {
    let mut schema = schema.clone();
    schema.name.namespace = Some(entry.qualified.namespace().into());
    schema.to_string()
}

/// Checks a `def`'s namespace (written in the schema, if any) and overload name.
fn check_def_name(
    namespace: &str,
    written: Option<&str>,
    overload: &str,
    text: &str,
    site: Site,
) -> Result<(), Error> {
    if let Some(ns) = written.filter(|ns| *ns != namespace) {
        return Err(ErrorKind::NamespaceMismatch {
            name: text.to_string(),
            written: ns.to_string(),
            library: namespace.to_string(),
            in_schema: true,
            site,
        }
        .into());
    }
    if overload == "default" || overload == "__name__" {
        return Err(invalid_name(
            text,
            format!("overload name `{overload}` is reserved; choose another"),
            site,
        ));
    }
    Ok(())
}

/// The duplicate-`def` error, with both schemas (the text, if one does not parse).
fn duplicate_def(entry: &super::OperatorEntry, first: &OpInfo, second: &OpInfo) -> Error {
    let show = |info: &OpInfo| match info.schema() {
        Ok(schema) => printed(entry, schema),
        Err(_) => entry.full_name().to_string(),
    };
    ErrorKind::DuplicateDef {
        operator: entry.full_name().to_string(),
        first: show(first),
        first_site: first.site,
        second: show(second),
        second_site: second.site,
    }
    .into()
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
    entry: &super::OperatorEntry,
    key: DispatchKey,
    site: Site,
    info: &OpInfo,
    m: Mismatch,
) -> Error {
    ErrorKind::KernelSignature {
        operator: entry.full_name().to_string(),
        key,
        site,
        found: m.found,
        expected: m.expected,
        detail: m.detail,
        schema: (info.schema().map(|schema| printed(entry, schema))).unwrap_or_default(),
        def_site: Some(info.site),
    }
    .into()
}

/// Splits `[ns::]op[.overload]` into (`ns::op`, `overload`), checking the namespace.
fn parse_name(namespace: &str, name: &str, site: Site) -> Result<(String, String), Error> {
    let rest = match name.split_once("::") {
        Some((ns, rest)) if ns == namespace => rest,
        Some((ns, _)) => {
            return Err(ErrorKind::NamespaceMismatch {
                name: name.to_string(),
                written: ns.to_string(),
                library: namespace.to_string(),
                in_schema: false,
                site,
            }
            .into());
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
