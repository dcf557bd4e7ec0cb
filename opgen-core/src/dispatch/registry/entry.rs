//! What generated code leaves for the global dispatcher: link-time entries, collected with
//! `linkme` from every crate of the program ([`LINK_ENTRIES`], [`DEFERRED`]), each built by
//! a `const` constructor from static data. `Dispatcher::global()` registers them on its
//! first access (`link.rs`).
//!
//! One element of [`LINK_ENTRIES`] is a group of entries: one per `#[native_function]`, or
//! every operator of one `include_native_functions!` call, so that a crate declaring the
//! whole of ATen adds one linker-section item, not thousands.

use std::fmt;

use crate::dispatch::Variants;
use crate::dispatch::device::DeviceChecks;
use crate::dispatch::error::{Error, Site};
use crate::dispatch::keys::DispatchKey;
use crate::dispatch::library::Library;
use crate::dispatch::operator::{Operator, OperatorName};

use super::Registration;

/// Registers an entry's kernel at one key; never `def`s, which the linker does from
/// [`LinkEntry::schema`].
pub type RegisterFn = fn(&Library, DispatchKey, Site) -> Result<Registration, Error>;

/// Registers an operator's generated `BackendSelect` kernel with a library of its namespace.
pub type BackendSelectFn = fn(&Library, Site) -> Result<Registration, Error>;

/// One operator definition and/or kernel, as collected at link time.
///
/// `site` is where the generated constructor call stands (the kernel, or the macro call);
/// `file` and `line` are the same place, kept for messages.
pub struct LinkEntry {
    /// The operator's namespace (`aten`).
    pub namespace: &'static str,
    /// The schema to `def` (with or without the namespace prefix); `None` for a kernel of
    /// an operator defined elsewhere.
    pub schema: Option<&'static str>,
    /// The operator's full name without namespace (`add.Tensor`; `relu` without overload).
    pub name: &'static str,
    /// The keys the kernel is registered at (empty: a `def` without kernel).
    pub keys: &'static [DispatchKey],
    /// The file of `site`.
    pub file: &'static str,
    /// The line of `site`.
    pub line: u32,
    /// The registration site shown in the dispatcher's messages.
    pub site: Site,
    /// Registers the kernel at one key (called once per key of `keys`).
    pub register: RegisterFn,
    /// The operator's variants, recorded with its `def` for the runtime catalog; `None` for
    /// a kernel of an operator defined elsewhere.
    pub variants: Option<Variants>,
    /// The operator's device check and guard, recorded with its `def` for the kernels
    /// registered at device-guarded keys; `None` for a kernel of an operator defined
    /// elsewhere.
    pub device: Option<DeviceChecks>,
    /// Registers the operator's generated `BackendSelect` kernel (schemas with
    /// TensorOptions, except `*_like` and `new_*`), right after the `def`s and before the
    /// kernels, so that a kernel registered at `BackendSelect` by hand shadows it.
    pub backend_select: Option<BackendSelectFn>,
}

/// The `register` of an entry without kernel (its `keys` are empty, so it is never called).
///
/// # Errors
///
/// Always: there is no kernel to register.
pub fn no_kernel(_: &Library, key: DispatchKey, _: Site) -> Result<Registration, Error> {
    Err(Error::internal(format!(
        "no kernel to register at `{key}`: this operator is only declared"
    )))
}

const FUNCTION: Variants = Variants {
    function: true,
    method: false,
};

impl LinkEntry {
    /// The `def` of an operator declared with a Rust API (its marker `O`, whose schema has
    /// the namespace prefix `namespace::`), named `name` (`add.Tensor`), with PyTorch's
    /// defaults: variant `function`, device check and guard. `site` is the caller's
    /// location. (The names are given, not read off the schema, so that no expansion makes
    /// the compiler scan strings.)
    #[track_caller]
    pub const fn declare<O: Operator>(namespace: &'static str, name: &'static str) -> LinkEntry {
        let site: Site = std::panic::Location::caller();
        LinkEntry {
            namespace,
            // The schema without its `namespace::` prefix.
            schema: Some(O::SCHEMA.split_at(namespace.len() + 2).1),
            name,
            keys: &[],
            file: site.file(),
            line: site.line(),
            site,
            register: no_kernel,
            variants: Some(FUNCTION),
            device: Some(DeviceChecks::DEFAULT),
            backend_select: None,
        }
    }

    /// The `def` of `schema` (with its namespace prefix; `aten` without one) and no kernel.
    ///
    /// ```
    /// use opgen_core::__private::LinkEntry;
    /// static ENTRY: LinkEntry = LinkEntry::def("demo::neg(Tensor self) -> Tensor").variants(true, true);
    /// assert_eq!((ENTRY.namespace, ENTRY.name), ("demo", "neg"));
    /// assert_eq!(ENTRY.schema, Some("neg(Tensor self) -> Tensor"));
    /// assert!(ENTRY.keys.is_empty());
    /// ```
    #[track_caller]
    pub const fn def(schema: &'static str) -> LinkEntry {
        let name = OperatorName::of(schema);
        let site: Site = std::panic::Location::caller();
        LinkEntry {
            namespace: name.namespace,
            schema: Some(name.schema),
            name: name.full,
            keys: &[],
            file: site.file(),
            line: site.line(),
            site,
            register: no_kernel,
            variants: Some(FUNCTION),
            device: Some(DeviceChecks::DEFAULT),
            backend_select: None,
        }
    }

    /// A kernel of the operator `operator` (`aten::add.Tensor`; `aten` without a
    /// namespace), defined elsewhere, at `keys`.
    #[track_caller]
    pub const fn kernel(
        operator: &'static str,
        keys: &'static [DispatchKey],
        register: RegisterFn,
    ) -> LinkEntry {
        let name = OperatorName::of(operator);
        let site: Site = std::panic::Location::caller();
        LinkEntry {
            namespace: name.namespace,
            schema: None,
            name: name.full,
            keys,
            file: site.file(),
            line: site.line(),
            site,
            register,
            variants: None,
            device: None,
            backend_select: None,
        }
    }

    /// A kernel at `keys` of the operator declared with marker `O` (elsewhere).
    #[track_caller]
    pub const fn kernel_of<O: Operator>(
        keys: &'static [DispatchKey],
        register: RegisterFn,
    ) -> LinkEntry {
        LinkEntry::kernel(O::SCHEMA, keys, register)
    }

    /// This `def` with its kernel at `keys`.
    pub const fn with_kernel(mut self, keys: &'static [DispatchKey], register: RegisterFn) -> Self {
        self.keys = keys;
        self.register = register;
        self
    }

    /// This `def` with the variants given.
    pub const fn variants(mut self, function: bool, method: bool) -> Self {
        self.variants = Some(Variants { function, method });
        self
    }

    /// This `def` with `device_check` (`ExactSame` when true) and `device_guard`.
    pub const fn device(mut self, check: bool, guard: bool) -> Self {
        self.device = Some(DeviceChecks { check, guard });
        self
    }

    /// This `def` with a generated `BackendSelect` kernel.
    pub const fn backend_select(mut self, register: BackendSelectFn) -> Self {
        self.backend_select = Some(register);
        self
    }

    /// `ns::name`: the operator as the dispatcher names it.
    pub fn operator(&self) -> String {
        format!("{}::{}", self.namespace, self.name)
    }
}

impl fmt::Debug for LinkEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LinkEntry")
            .field("operator", &self.operator())
            .field("schema", &self.schema)
            .field("keys", &self.keys)
            .field("site", &format_args!("{}:{}", self.file, self.line))
            .finish()
    }
}

/// Every group of [`LinkEntry`]s of every crate linked into the program.
#[linkme::distributed_slice]
pub static LINK_ENTRIES: [&'static [LinkEntry]];

/// Every [`LinkEntry`] of the program, group after group.
pub fn link_entries() -> impl Iterator<Item = &'static LinkEntry> + Clone {
    LINK_ENTRIES.iter().flat_map(|group| group.iter())
}

/// A registration that needs every kernel of the program first: the kernels of a
/// structured delegate, at the keys where its out operator has impls.
/// `Dispatcher::global` runs these after all [`LINK_ENTRIES`], then derives the wrappers of
/// `opgen_core::structured::derive_wrappers`.
pub struct Deferred {
    /// The operator's namespace (`aten`).
    pub namespace: &'static str,
    /// The operator's full name without namespace (`add.Tensor`).
    pub name: &'static str,
    /// The file of `site`.
    pub file: &'static str,
    /// The line of `site`.
    pub line: u32,
    /// The registration site shown in the dispatcher's messages.
    pub site: Site,
    /// Registers the kernels with a library of the namespace.
    pub register: fn(&Library, Site) -> Result<Vec<Registration>, Error>,
}

impl Deferred {
    /// The deferred registration of the operator with marker `O`.
    #[track_caller]
    pub const fn of<O: Operator>(
        register: fn(&Library, Site) -> Result<Vec<Registration>, Error>,
    ) -> Deferred {
        let name = OperatorName::of(O::SCHEMA);
        let site: Site = std::panic::Location::caller();
        Deferred {
            namespace: name.namespace,
            name: name.full,
            file: site.file(),
            line: site.line(),
            site,
            register,
        }
    }
}

impl fmt::Debug for Deferred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deferred")
            .field(
                "operator",
                &format_args!("{}::{}", self.namespace, self.name),
            )
            .field("site", &format_args!("{}:{}", self.file, self.line))
            .finish()
    }
}

/// Every [`Deferred`] registration of every crate linked into the program.
#[linkme::distributed_slice]
pub static DEFERRED: [Deferred];
