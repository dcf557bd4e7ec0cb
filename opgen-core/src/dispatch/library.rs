//! Libraries: the registration API, mirroring `TORCH_LIBRARY`, `TORCH_LIBRARY_FRAGMENT`,
//! `TORCH_LIBRARY_IMPL` and `torch.library.Library`.

use std::fmt;
use std::panic::Location;
use std::sync::Arc;

use super::error::{Error, ErrorKind, Site};
use super::handle::OperatorHandle;
use super::ivalue::Stack;
use super::kernel::{Kernel, boxed, private::Erase};
use super::keys::DispatchKey;
use super::keyset::DispatchKeySet;
use super::operator::{Operator, TupleCall};
use super::registry::{Dispatcher, Inner, Registration};
use super::tensor::Tensor;

/// The `variants` of a `native_functions.yaml` entry or a `#[native_function]`: which Rust
/// items an operator gets (torchgen's C++ bindings), recorded with its `def` for the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Variants {
    /// A free function (`at::add`).
    pub function: bool,
    /// A tensor method (`Tensor::add`).
    pub method: bool,
}

/// What a library may do with its namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LibraryKind {
    /// Owns the namespace's `def`s (`TORCH_LIBRARY`): only one such library per namespace at
    /// a time. May also register kernels.
    Def,
    /// Adds `def`s and kernels to a namespace (`TORCH_LIBRARY_FRAGMENT`).
    Fragment,
    /// Adds kernels only (`TORCH_LIBRARY_IMPL`).
    Impl,
}

/// A set of registrations for one namespace. Each registration returns a [`Registration`]
/// handle that undoes it when dropped, and records the caller's file and line (the `_at`
/// variants take the site explicitly, for generated registration code).
///
/// Operator names in `impl_` are relative to the namespace (`add.Tensor`) or qualified with
/// it (`aten::add.Tensor`). An `impl_` may come before the `def` it belongs to.
///
/// Fallbacks are registered for every operator of every namespace.
pub struct Library {
    inner: Arc<Inner>,
    namespace: String,
    kind: LibraryKind,
    id: u64,
}

impl Dispatcher {
    /// A library that owns `namespace`'s `def`s; an error if another live library owns it.
    #[track_caller]
    pub fn library(&self, namespace: &str) -> Result<Library, Error> {
        self.library_at(namespace, LibraryKind::Def, Location::caller())
    }

    /// A library that adds `def`s and kernels to `namespace` without owning it.
    #[track_caller]
    pub fn fragment(&self, namespace: &str) -> Library {
        self.make_library(namespace, LibraryKind::Fragment)
    }

    /// A library that adds kernels (and fallbacks) to `namespace`, but no `def`s.
    #[track_caller]
    pub fn impls(&self, namespace: &str) -> Library {
        self.make_library(namespace, LibraryKind::Impl)
    }

    /// A library of the given kind, created at `site`.
    pub fn library_at(
        &self,
        namespace: &str,
        kind: LibraryKind,
        site: Site,
    ) -> Result<Library, Error> {
        let id = self.inner.next_library_id();
        if kind == LibraryKind::Def {
            self.inner.claim_namespace(namespace, id, site)?;
        }
        Ok(Library {
            inner: self.inner.clone(),
            namespace: namespace.to_string(),
            kind,
            id,
        })
    }

    fn make_library(&self, namespace: &str, kind: LibraryKind) -> Library {
        Library {
            inner: self.inner.clone(),
            namespace: namespace.to_string(),
            kind,
            id: self.inner.next_library_id(),
        }
    }
}

impl Library {
    /// The namespace.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The library's kind.
    pub fn kind(&self) -> LibraryKind {
        self.kind
    }

    /// Defines an operator from its schema (`add.Tensor(Tensor self, Tensor other, *,
    /// Scalar alpha=1) -> Tensor`), parsed and checked by [`crate::schema::parse_schema`].
    /// A second `def` of the same name and overload is an error showing both.
    #[track_caller]
    pub fn def(&self, schema: &str) -> Result<Registration, Error> {
        self.def_at(schema, Location::caller())
    }

    /// [`Library::def`] with an explicit site.
    pub fn def_at(&self, schema: &str, site: Site) -> Result<Registration, Error> {
        if self.kind == LibraryKind::Impl {
            return Err(ErrorKind::DefInImplLibrary {
                namespace: self.namespace.clone(),
                site,
            }
            .into());
        }
        self.inner.def(&self.namespace, schema, None, None, site)
    }

    /// [`Library::def`], recording the operator's variants (a free function, a method) for
    /// the runtime catalog ([`Dispatcher::catalog_json`]); the dispatcher knows them only
    /// when they are recorded this way.
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// use opgen_core::dispatch::Variants;
    /// let d = Dispatcher::new();
    /// let lib = d.library("demo")?;
    /// let _def = lib.def_with_variants("neg(Tensor self) -> Tensor", Variants { function: true, method: true })?;
    /// assert_eq!(d.find("demo::neg", "")?.variants(), Some(Variants { function: true, method: true }));
    /// # Ok::<(), Error>(())
    /// ```
    #[track_caller]
    pub fn def_with_variants(
        &self,
        schema: &str,
        variants: Variants,
    ) -> Result<Registration, Error> {
        self.def_with_variants_at(schema, variants, Location::caller())
    }

    /// [`Library::def_with_variants`] with an explicit site.
    pub fn def_with_variants_at(
        &self,
        schema: &str,
        variants: Variants,
        site: Site,
    ) -> Result<Registration, Error> {
        if self.kind == LibraryKind::Impl {
            return Err(ErrorKind::DefInImplLibrary {
                namespace: self.namespace.clone(),
                site,
            }
            .into());
        }
        (self.inner).def(&self.namespace, schema, Some(variants), None, site)
    }

    /// [`Library::def`] with the facts of a `native_functions.yaml` entry the runtime keeps:
    /// its variants (for the catalog) and its device check and guard (for kernels attached
    /// at device-guarded keys by `#[native_function(op = ...)]`); what link-time
    /// registration uses. Either may be `None` (not known).
    pub fn def_native_at(
        &self,
        schema: &str,
        variants: Option<Variants>,
        device: Option<super::DeviceChecks>,
        site: Site,
    ) -> Result<Registration, Error> {
        if self.kind == LibraryKind::Impl {
            return Err(ErrorKind::DefInImplLibrary {
                namespace: self.namespace.clone(),
                site,
            }
            .into());
        }
        (self.inner).def(&self.namespace, schema, variants, device, site)
    }

    /// [`Library::def_native_at`] for a schema that lives as long as the program (a link-time
    /// entry, checked when its crate was compiled), with the scan of its name: only the name
    /// is read now, the rest when the operator is first needed.
    pub(crate) fn def_static(
        &self,
        schema: (&'static str, super::operator::NameScan),
        variants: Option<Variants>,
        device: Option<super::DeviceChecks>,
        site: Site,
    ) -> Result<Registration, Error> {
        if self.kind == LibraryKind::Impl {
            return Err(ErrorKind::DefInImplLibrary {
                namespace: self.namespace.clone(),
                site,
            }
            .into());
        }
        (self.inner).def_static(&self.namespace, schema, variants, device, site)
    }

    /// Registers `kernel` for the operator `name` at `key` (a runtime or an alias key).
    /// A kernel whose signature does not fit the schema is an error naming the expected
    /// signature, now or when the `def` arrives. A second kernel at the same key shadows the
    /// first while it lives.
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// # #[derive(Clone)] struct MyTensor(DispatchKeySet);
    /// # impl Tensor for MyTensor { fn key_set(&self) -> DispatchKeySet { self.0 } }
    /// let d = Dispatcher::new();
    /// let lib = d.library("demo")?;
    /// let _def = lib.def("add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")?;
    /// let _cpu = lib.impl_("add", DispatchKey::CPU, |a: &MyTensor, _b: &MyTensor, _alpha: Scalar| a.clone())?;
    /// let wrong = lib.impl_("add", DispatchKey::Meta, |a: &MyTensor| a.clone()).unwrap_err();
    /// assert!(wrong.to_string().contains("expected signature: fn(&MyTensor, &MyTensor, Scalar) -> MyTensor"));
    /// # Ok::<(), Error>(())
    /// ```
    #[track_caller]
    pub fn impl_<T: Tensor, M>(
        &self,
        name: &str,
        key: DispatchKey,
        kernel: impl Kernel<T, M>,
    ) -> Result<Registration, Error> {
        self.impl_at(name, key, kernel, Location::caller())
    }

    /// [`Library::impl_`] with an explicit site.
    pub fn impl_at<T: Tensor, M>(
        &self,
        name: &str,
        key: DispatchKey,
        kernel: impl Kernel<T, M>,
        site: Site,
    ) -> Result<Registration, Error> {
        let erased = kernel.erase(Arc::from(self.qualify(name)));
        self.inner
            .impl_kernel(&self.namespace, name, key, Some(erased), site)
    }

    /// Registers `kernel` for the operator with marker `O` at `key` (`O` of this library's
    /// namespace), as generated registrations do (`lib.impl_of::<add, _>(key, add_cpu, site)`,
    /// a path that needs no import): the kernel has the operator's argument and return
    /// types, checked by the compiler, and runs inside the device check and guard at
    /// device-guarded keys.
    #[doc(hidden)]
    pub fn impl_of<O: Operator, M>(
        &self,
        key: DispatchKey,
        kernel: impl TupleCall<O::Tensor, M, Args = O::Args, Value = O::Returns>,
        site: Site,
    ) -> Result<Registration, Error> {
        let shown = std::any::type_name_of_val(&kernel);
        super::device::impl_guarded(self, O::name().full, key, kernel, shown, site)
    }

    /// Registers a fallthrough for the operator `name` at `key`: calls skip the key.
    #[track_caller]
    pub fn impl_fallthrough(&self, name: &str, key: DispatchKey) -> Result<Registration, Error> {
        self.impl_fallthrough_at(name, key, Location::caller())
    }

    /// [`Library::impl_fallthrough`] with an explicit site.
    pub fn impl_fallthrough_at(
        &self,
        name: &str,
        key: DispatchKey,
        site: Site,
    ) -> Result<Registration, Error> {
        self.inner
            .impl_kernel(&self.namespace, name, key, None, site)
    }

    /// Registers a boxed backend fallback at `key` for every operator (for an alias key, at
    /// every runtime key it covers). At most one fallback per key; the dispatcher's own
    /// fallthrough at `BackendSelect` is replaced while the new one lives.
    #[track_caller]
    pub fn fallback<T, F>(&self, key: DispatchKey, kernel: F) -> Result<Registration, Error>
    where
        T: Tensor,
        F: Fn(&OperatorHandle, DispatchKeySet, &mut Stack<T>) -> Result<(), Error>
            + Send
            + Sync
            + 'static,
    {
        self.fallback_at(key, kernel, Location::caller())
    }

    /// [`Library::fallback`] with an explicit site.
    pub fn fallback_at<T, F>(
        &self,
        key: DispatchKey,
        kernel: F,
        site: Site,
    ) -> Result<Registration, Error>
    where
        T: Tensor,
        F: Fn(&OperatorHandle, DispatchKeySet, &mut Stack<T>) -> Result<(), Error>
            + Send
            + Sync
            + 'static,
    {
        let erased = boxed(kernel).erase(Arc::from(""));
        self.inner.fallback(key, Some(erased), site)
    }

    /// Registers a fallthrough fallback at `key` (or every key an alias covers): operators
    /// without their own kernel there skip the key. Every dispatcher has such fallbacks at
    /// the autograd keys, `ADInplaceOrView`, `Tracer`, `BackendSelect` and the autocast keys
    /// already (its defaults, which a registration replaces while it lives); this one is for
    /// a key of your own choice, such as a user backend's layer:
    ///
    /// ```
    /// # use opgen_core::dispatch::*;
    /// # let d = Dispatcher::new();
    /// let _skip = d.impls("_").fallback_fallthrough(DispatchKey::PrivateUse2)?;
    /// # Ok::<(), Error>(())
    /// ```
    #[track_caller]
    pub fn fallback_fallthrough(&self, key: DispatchKey) -> Result<Registration, Error> {
        self.fallback_fallthrough_at(key, Location::caller())
    }

    /// [`Library::fallback_fallthrough`] with an explicit site.
    pub fn fallback_fallthrough_at(
        &self,
        key: DispatchKey,
        site: Site,
    ) -> Result<Registration, Error> {
        self.inner.fallback(key, None, site)
    }

    /// Registers a kernel already in the stored form (structured and derived kernels).
    pub(crate) fn impl_erased(
        &self,
        name: &str,
        key: DispatchKey,
        kernel: super::kernel::ErasedKernel,
        site: Site,
    ) -> Result<Registration, Error> {
        self.inner
            .impl_kernel(&self.namespace, name, key, Some(kernel), site)
    }

    /// The dispatcher this library registers into.
    pub fn dispatcher(&self) -> Dispatcher {
        Dispatcher {
            inner: self.inner.clone(),
        }
    }

    fn qualify(&self, name: &str) -> String {
        if name.contains("::") {
            name.to_string()
        } else {
            format!("{}::{name}", self.namespace)
        }
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        if self.kind == LibraryKind::Def {
            self.inner.release_namespace(&self.namespace, self.id);
        }
    }
}

impl fmt::Debug for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Library")
            .field("namespace", &self.namespace)
            .field("kind", &self.kind)
            .finish()
    }
}
