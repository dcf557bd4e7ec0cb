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

/// One operator definition and/or kernel, as collected at link time: static data, a few
/// words per operator (a program that links all of ATen holds thousands of them), every
/// name read off `text` when the entry is registered.
///
/// `site` is where the generated constructor call stands (the kernel, or the macro call).
pub struct LinkEntry {
    /// A `def`: the schema, with its namespace prefix (`aten::add.Tensor(Tensor self, ...)
    /// -> Tensor`; `aten` without one). A kernel of an operator defined elsewhere: the
    /// operator's name (`aten::add.Tensor`) or its schema.
    pub text: &'static str,
    /// Whether `text` is a schema to `def`.
    pub defines: bool,
    /// The operator's variants, recorded with its `def` for the runtime catalog.
    pub variants: Variants,
    /// The operator's device check and guard, recorded with its `def` for the kernels
    /// registered at device-guarded keys.
    pub device: DeviceChecks,
    /// The keys the kernel is registered at (empty: a `def` without kernel).
    pub keys: &'static [DispatchKey],
    /// Registers the kernel at one key (called once per key of `keys`).
    pub register: Option<RegisterFn>,
    /// Registers the operator's generated `BackendSelect` kernel (schemas with
    /// TensorOptions, except `*_like` and `new_*`), right after the `def`s and before the
    /// kernels, so that a kernel registered at `BackendSelect` by hand shadows it.
    pub backend_select: Option<BackendSelectFn>,
    /// The registration site shown in the dispatcher's messages.
    pub site: Site,
}

const FUNCTION: Variants = Variants {
    function: true,
    method: false,
};

impl LinkEntry {
    /// The `def` of `schema` (with its namespace prefix; `aten` without one) and no kernel.
    ///
    /// ```
    /// use opgen_core::__private::LinkEntry;
    /// static ENTRY: LinkEntry = LinkEntry::def("demo::neg(Tensor self) -> Tensor").variants(true, true);
    /// let name = ENTRY.name();
    /// assert_eq!((name.namespace, name.full), ("demo", "neg"));
    /// assert_eq!(ENTRY.schema(), Some("neg(Tensor self) -> Tensor"));
    /// assert!(ENTRY.keys.is_empty());
    /// ```
    #[track_caller]
    pub const fn def(schema: &'static str) -> LinkEntry {
        LinkEntry {
            text: schema,
            defines: true,
            variants: FUNCTION,
            device: DeviceChecks::DEFAULT,
            keys: &[],
            register: None,
            backend_select: None,
            site: std::panic::Location::caller(),
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
        LinkEntry {
            defines: false,
            ..LinkEntry::def(operator).with_kernel(keys, register)
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
        self.register = Some(register);
        self
    }

    /// This `def` with the variants given.
    pub const fn variants(mut self, function: bool, method: bool) -> Self {
        self.variants = Variants { function, method };
        self
    }

    /// This `def` with `device_check` (`ExactSame` when true) and `device_guard`.
    pub const fn device(mut self, check: bool, guard: bool) -> Self {
        self.device = DeviceChecks { check, guard };
        self
    }

    /// This `def` with a generated `BackendSelect` kernel.
    pub const fn backend_select(mut self, register: BackendSelectFn) -> Self {
        self.backend_select = Some(register);
        self
    }

    /// The names in `text`: namespace (`aten`), full name (`add.Tensor`), ...
    #[inline]
    pub fn name(&self) -> OperatorName {
        OperatorName::read(self.text)
    }

    /// The schema to `def`, without its namespace prefix; `None` for a kernel of an
    /// operator defined elsewhere.
    pub fn schema(&self) -> Option<&'static str> {
        self.defines.then(|| self.name().schema)
    }

    /// `ns::name`: the operator as the dispatcher names it.
    pub fn operator(&self) -> String {
        let name = self.name();
        format!("{}::{}", name.namespace, name.full)
    }
}

impl fmt::Debug for LinkEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LinkEntry")
            .field("operator", &self.operator())
            .field("schema", &self.schema())
            .field("keys", &self.keys)
            .field(
                "site",
                &format_args!("{}:{}", self.site.file(), self.site.line()),
            )
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
/// `Dispatcher::global` runs these after all `LINK_ENTRIES`, then derives the wrappers of
/// `opgen_core::structured::derive_wrappers`.
pub struct Deferred {
    /// The operator's schema, with its namespace prefix (its marker's `SCHEMA`).
    pub text: &'static str,
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
        Deferred {
            text: O::SCHEMA,
            site: std::panic::Location::caller(),
            register,
        }
    }

    /// The names in `text`.
    #[inline]
    pub fn name(&self) -> OperatorName {
        OperatorName::read(self.text)
    }
}

impl fmt::Debug for Deferred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deferred")
            .field(
                "operator",
                &format_args!("{}::{}", self.name().namespace, self.name().full),
            )
            .field(
                "site",
                &format_args!("{}:{}", self.site.file(), self.site.line()),
            )
            .finish()
    }
}

/// Every [`Deferred`] registration of every crate linked into the program.
#[linkme::distributed_slice]
pub static DEFERRED: [Deferred];
