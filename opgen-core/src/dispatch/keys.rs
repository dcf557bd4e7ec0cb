//! Dispatch keys, c10's way: backend components and functionalities, the runtime keys they
//! make (one per functionality, or one per functionality and backend for the per-backend
//! functionalities), in priority order, then the alias keys.

use std::fmt;
use std::str::FromStr;

use super::error::{Error, ErrorKind};
use super::keyset::DispatchKeySet;

mod backend;
mod layout;

pub use backend::BackendComponent;

pub(crate) use layout::{
    BACKEND_BITS, FUNCTIONALITY_BITS, NUM_BACKENDS, NUM_ENTRIES, NUM_SLOTS, REGISTER_BIT,
    REGISTER_SLOT, VALID_BITS, backend_index, functionality_bit, key_bits, slot_index,
};

/// Generates [`DispatchKey`] from its runtime keys in priority order (per-backend groups and
/// single keys), then its alias keys.
macro_rules! dispatch_keys {
    (runtime { $($runtime:tt)* } alias { $($alias:tt)* }) => {
        dispatch_keys!(@runtime [] [$($alias)*] $($runtime)*);
    };
    (@runtime [$($done:tt)*] $aliases:tt per_backend($doc:literal) { $($k:ident)* } $($rest:tt)*) => {
        dispatch_keys!(@runtime
            [$($done)* $(#[doc = concat!($doc, " (`", stringify!($k), "`).")] $k,)*]
            $aliases $($rest)*);
    };
    (@runtime [$($done:tt)*] $aliases:tt $(#[doc = $doc:literal])* $k:ident, $($rest:tt)*) => {
        dispatch_keys!(@runtime [$($done)* $(#[doc = $doc])* $k,] $aliases $($rest)*);
    };
    (@runtime
        [$($(#[doc = $doc:expr])* $key:ident,)*]
        [$($(#[doc = $adoc:literal])* $alias:ident,)*]
    ) => {
        /// A dispatch key, spelled as in PyTorch.
        ///
        /// The first [`DispatchKey::NUM_RUNTIME`] variants are *runtime keys*, in c10's
        /// priority order (lowest first): by functionality, then, for the per-backend
        /// functionalities (dense, quantized, sparse, compressed sparse, nested and autograd
        /// keys), by [`BackendComponent`]. A runtime key is one entry of every dispatch table
        /// and one or two bits of a [`DispatchKeySet`]. The variants after them are *alias
        /// keys*, registration targets that stand for several runtime keys. `Ord` follows
        /// priority for runtime keys. The module documentation of [`crate::dispatch`]
        /// explains the keys and the precedence rules.
        ///
        /// ```
        /// use opgen_core::dispatch::{BackendComponent, DispatchKey};
        /// let key: DispatchKey = "AutogradCPU".parse().unwrap();
        /// assert_eq!(key.name(), "AutogradCPU");
        /// assert!(DispatchKey::Tracer > key && key > DispatchKey::CPU);
        /// assert!(DispatchKey::AutogradCUDA > DispatchKey::AutogradCPU);
        /// assert_eq!(DispatchKey::SparseCPU.autograd_key(), Some(DispatchKey::AutogradCPU));
        /// assert_eq!(DispatchKey::FPGA.autograd_key(), Some(DispatchKey::AutogradOther));
        /// assert!(DispatchKey::CompositeImplicitAutograd.is_alias());
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(clippy::upper_case_acronyms, non_camel_case_types)] // PyTorch's spelling
        #[repr(u8)]
        pub enum DispatchKey {
            $($(#[doc = $doc])* $key,)*
            $($(#[doc = $adoc])* $alias,)*
        }

        impl DispatchKey {
            /// Every key: the runtime keys in priority order (lowest first), then the alias keys.
            pub const ALL: &'static [DispatchKey] =
                &[$(DispatchKey::$key,)* $(DispatchKey::$alias,)*];

            /// The key's name as PyTorch spells it (`AutogradCPU`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(DispatchKey::$key => stringify!($key),)*
                    $(DispatchKey::$alias => stringify!($alias),)*
                }
            }
        }
    };
}

dispatch_keys! {
    runtime {
        per_backend("Dense tensors of one backend; the backend's key") {
            CPU CUDA HIP XLA MPS IPU XPU HPU VE Lazy MTIA MAIA PrivateUse1 PrivateUse2
            PrivateUse3 Meta
        }
        /// FPGA tensors (Xilinx): a backend without per-backend functionality, mapped to
        /// `AutogradOther`.
        FPGA,
        /// Vulkan tensors: a backend mapped to `AutogradOther`.
        Vulkan,
        /// Metal tensors: a backend mapped to `AutogradOther`.
        Metal,
        per_backend("Quantized tensors of one backend") {
            QuantizedCPU QuantizedCUDA QuantizedHIP QuantizedXLA QuantizedMPS QuantizedIPU
            QuantizedXPU QuantizedHPU QuantizedVE QuantizedLazy QuantizedMTIA QuantizedMAIA
            QuantizedPrivateUse1 QuantizedPrivateUse2 QuantizedPrivateUse3 QuantizedMeta
        }
        /// Kernels for a custom random number generator: a backend mapped to
        /// `AutogradOther`.
        CustomRNGKeyId,
        /// MKL-DNN (oneDNN) CPU tensors: a backend mapped to `AutogradOther`.
        MkldnnCPU,
        per_backend("Sparse COO tensors of one backend") {
            SparseCPU SparseCUDA SparseHIP SparseXLA SparseMPS SparseIPU SparseXPU SparseHPU
            SparseVE SparseLazy SparseMTIA SparseMAIA SparsePrivateUse1 SparsePrivateUse2
            SparsePrivateUse3 SparseMeta
        }
        per_backend("Compressed sparse (CSR, CSC, BSR, BSC) tensors of one backend") {
            SparseCsrCPU SparseCsrCUDA SparseCsrHIP SparseCsrXLA SparseCsrMPS SparseCsrIPU
            SparseCsrXPU SparseCsrHPU SparseCsrVE SparseCsrLazy SparseCsrMTIA SparseCsrMAIA
            SparseCsrPrivateUse1 SparseCsrPrivateUse2 SparseCsrPrivateUse3 SparseCsrMeta
        }
        per_backend("Nested (jagged) tensors of one backend, mapped to `AutogradNestedTensor`") {
            NestedTensorCPU NestedTensorCUDA NestedTensorHIP NestedTensorXLA NestedTensorMPS
            NestedTensorIPU NestedTensorXPU NestedTensorHPU NestedTensorVE NestedTensorLazy
            NestedTensorMTIA NestedTensorMAIA NestedTensorPrivateUse1 NestedTensorPrivateUse2
            NestedTensorPrivateUse3 NestedTensorMeta
        }
        /// Picks a backend for operators whose arguments carry none (factory functions).
        BackendSelect,
        /// Python tensor subclasses and modes.
        Python,
        /// Fake tensors (torchdistx).
        Fake,
        /// functorch: the back end of its dynamic layer stack.
        FuncTorchDynamicLayerBackMode,
        /// Functionalization: rewrites mutations and views into functional operators.
        Functionalize,
        /// Tensors with named dimensions.
        Named,
        /// Tensors with a pending (lazy) conjugation.
        Conjugate,
        /// Tensors with a pending (lazy) negation.
        Negative,
        /// Tensors known to be all zeros.
        ZeroTensor,
        /// Bookkeeping for in-place operators and views (version counters, view metadata).
        ADInplaceOrView,
        /// Autograd for tensors whose backend has no autograd key of its own.
        AutogradOther,
        per_backend("Autograd for tensors of one backend") {
            AutogradCPU AutogradCUDA AutogradHIP AutogradXLA AutogradMPS AutogradIPU
            AutogradXPU AutogradHPU AutogradVE AutogradLazy AutogradMTIA AutogradMAIA
            AutogradPrivateUse1 AutogradPrivateUse2 AutogradPrivateUse3 AutogradMeta
        }
        /// Autograd for nested tensors.
        AutogradNestedTensor,
        /// Records operators into a trace.
        Tracer,
        /// Automatic mixed precision on `cpu`.
        AutocastCPU,
        /// Automatic mixed precision on `mtia`.
        AutocastMTIA,
        /// Automatic mixed precision on `maia`.
        AutocastMAIA,
        /// Automatic mixed precision on `xpu`.
        AutocastXPU,
        /// Automatic mixed precision on `ipu`.
        AutocastIPU,
        /// Automatic mixed precision on `hpu`.
        AutocastHPU,
        /// Automatic mixed precision on `xla`.
        AutocastXLA,
        /// Automatic mixed precision on `mps`.
        AutocastMPS,
        /// Automatic mixed precision on `cuda`.
        AutocastCUDA,
        /// Automatic mixed precision on `privateuseone`.
        AutocastPrivateUse1,
        /// functorch's batched tensors (`vmap`).
        FuncTorchBatched,
        /// Batched nested tensors.
        BatchedNestedTensor,
        /// functorch's `vmap` mode.
        FuncTorchVmapMode,
        /// The legacy batched tensors (`vmap`).
        Batched,
        /// The legacy `vmap` mode.
        VmapMode,
        /// functorch's gradient wrappers.
        FuncTorchGradWrapper,
        /// Deferred module initialisation (torchdistx).
        DeferredInit,
        /// Saves the thread's key state for Python kernels.
        PythonTLSSnapshot,
        /// functorch: the front end of its dynamic layer stack.
        FuncTorchDynamicLayerFrontMode,
        /// Reserved for tests (c10's `TESTING_ONLY_GenericWrapper`).
        TESTING_ONLY_GenericWrapper,
        /// Reserved for tests (c10's `TESTING_ONLY_GenericMode`).
        TESTING_ONLY_GenericMode,
        /// Pre-dispatch tracing (export).
        PreDispatch,
        /// The Python dispatcher (the highest key).
        PythonDispatcher,
    }
    alias {
        /// Alias: every autograd key (`AutogradOther`, the per-backend ones and
        /// `AutogradNestedTensor`).
        Autograd,
        /// Alias: every backend key covered by `CompositeExplicitAutograd`, the nested keys,
        /// `Functionalize` and every autograd key; a kernel written in terms of other
        /// operators, whose autograd comes from theirs.
        CompositeImplicitAutograd,
        /// Alias: `FuncTorchBatched`; a decomposition for batched tensors.
        FuncTorchBatchedDecomposition,
        /// Alias: the `NestedTensor*` keys and `AutogradNestedTensor`; takes precedence over
        /// `CompositeImplicitAutograd` there.
        CompositeImplicitAutogradNestedTensor,
        /// Alias: the backend keys (dense, quantized, sparse and compressed sparse keys of
        /// every backend, `FPGA`, `Vulkan`, `Metal`, `CustomRNGKeyId`, `MkldnnCPU`); a kernel
        /// that works for every backend but needs its own autograd formula.
        CompositeExplicitAutograd,
        /// Alias: the `CompositeExplicitAutograd` keys without the sparse ones and without
        /// the functional backends `XLA` and `Lazy`; for kernels that mutate or alias, which
        /// functionalizing backends must not decompose into.
        CompositeExplicitAutogradNonFunctional,
    }
}

use DispatchKey as K;

impl DispatchKey {
    /// How many runtime keys there are; they are the first variants of the enum.
    pub const NUM_RUNTIME: usize = DispatchKey::PythonDispatcher as usize + 1;

    /// The runtime key with priority index `index` (0 is `CPU`, the lowest), if any.
    pub const fn from_index(index: usize) -> Option<DispatchKey> {
        if index < DispatchKey::NUM_RUNTIME {
            Some(DispatchKey::ALL[index])
        } else {
            None
        }
    }

    /// The key's position in [`DispatchKey::ALL`]; for runtime keys, its priority (higher
    /// wins), and 1 + it is the key's entry in a dispatch table (c10's runtime entry; entry
    /// 0 is `Undefined`).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The key written `name` (PyTorch's spelling; `CatchAll` means
    /// `CompositeImplicitAutograd`), if any.
    pub fn from_name(name: &str) -> Option<DispatchKey> {
        if name == "CatchAll" {
            return Some(DispatchKey::CompositeImplicitAutograd);
        }
        DispatchKey::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// A runtime key: it can be in a key set and has a dispatch table entry.
    pub const fn is_runtime(self) -> bool {
        (self as usize) < DispatchKey::NUM_RUNTIME
    }

    /// An alias key: a registration target standing for several runtime keys.
    pub const fn is_alias(self) -> bool {
        !self.is_runtime()
    }

    /// The backend component of a per-backend runtime key (`CUDA` for `SparseCUDA` and for
    /// `AutogradCUDA`); `None` for other keys.
    pub const fn backend(self) -> Option<BackendComponent> {
        layout::backend_of(self)
    }

    /// The key of the same per-backend functionality on `backend` (`SparseHPU` for
    /// `SparseCPU` on `HPU`); `None` for keys that are not per backend.
    ///
    /// ```
    /// use opgen_core::dispatch::{BackendComponent as B, DispatchKey as K};
    /// assert_eq!(K::SparseCPU.for_backend(B::HPU), Some(K::SparseHPU));
    /// assert_eq!(K::AutogradCPU.for_backend(B::PrivateUse1), Some(K::AutogradPrivateUse1));
    /// assert_eq!(K::Tracer.for_backend(B::CUDA), None);
    /// ```
    pub const fn for_backend(self, backend: BackendComponent) -> Option<DispatchKey> {
        match self.backend() {
            Some(own) => Some(DispatchKey::ALL[self as usize - own as usize + backend as usize]),
            None => None,
        }
    }

    /// A backend key: a key whose kernels compute an operator for one kind of tensor: the
    /// dense, quantized, sparse, compressed sparse and nested keys of every backend
    /// component, and the backends without per-backend functionality (`FPGA`, `Vulkan`,
    /// `Metal`, `CustomRNGKeyId`, `MkldnnCPU`). These are the keys with an
    /// [`autograd_key`](DispatchKey::autograd_key).
    pub const fn is_backend(self) -> bool {
        self.autograd_key().is_some()
    }

    /// An autograd runtime key: `AutogradOther`, a per-backend one, or
    /// `AutogradNestedTensor`.
    pub const fn is_autograd(self) -> bool {
        self.is_runtime() && layout::covers(AUTOGRAD, self)
    }

    /// The autograd key of a backend key, which tensors of the backend carry with it (c10):
    /// for the dense, quantized, sparse and compressed sparse keys the autograd key of their
    /// [`BackendComponent`] (`AutogradCPU` for `SparseCPU`), `AutogradNestedTensor` for the
    /// nested keys, `AutogradOther` for the backends without per-backend functionality.
    /// `None` for other keys.
    pub const fn autograd_key(self) -> Option<DispatchKey> {
        if !self.is_runtime() {
            return None;
        }
        if layout::covers(NESTED_BACKENDS, self) {
            return Some(K::AutogradNestedTensor);
        }
        match self.backend() {
            Some(backend) if layout::covers(BACKEND_KEYS, self) => Some(backend.autograd_key()),
            None if layout::covers(BACKEND_KEYS, self) => Some(K::AutogradOther),
            _ => None,
        }
    }

    /// For an autograd key, the backend keys whose own kernels keep it from taking a
    /// `CompositeImplicitAutograd` kernel (c10's `getBackendKeySetFromAutograd`): the dense
    /// key of its backend (`CPU` for `AutogradCPU`), every nested key for
    /// `AutogradNestedTensor`, the backends mapped to `AutogradOther` for it. c10 lists no
    /// backend for `AutogradHIP`, `AutogradVE`, `AutogradMTIA` and `AutogradMAIA`. Empty
    /// for other keys.
    pub const fn backends(self) -> DispatchKeySet {
        let bits = match self {
            K::AutogradOther => AUTOGRAD_OTHER_BACKENDS,
            K::AutogradNestedTensor => NESTED_BACKENDS,
            K::AutogradHIP | K::AutogradVE | K::AutogradMTIA | K::AutogradMAIA => 0,
            k if k.is_autograd() => match k.backend() {
                Some(b) => key_bits(b.dense_key()),
                None => 0,
            },
            _ => 0,
        };
        DispatchKeySet::from_bits(bits)
    }

    /// The runtime keys a registration at this key covers: the key itself for a runtime
    /// key, the keys it stands for for an alias key (c10's `getRuntimeDispatchKeySet`).
    ///
    /// ```
    /// use opgen_core::dispatch::{DispatchKey as K, DispatchKeySet};
    /// let cea = K::CompositeExplicitAutograd.runtime_keys();
    /// assert!(cea.contains(K::XLA) && !cea.contains(K::NestedTensorCPU));
    /// let ceanf = K::CompositeExplicitAutogradNonFunctional.runtime_keys();
    /// assert!(ceanf.contains(K::CPU) && !ceanf.contains(K::XLA) && !ceanf.contains(K::SparseCPU));
    /// assert_eq!(K::CPU.runtime_keys(), DispatchKeySet::from_key(K::CPU));
    /// ```
    pub const fn runtime_keys(self) -> DispatchKeySet {
        DispatchKeySet::from_bits(self.bits())
    }

    /// The key set bits of [`DispatchKey::runtime_keys`].
    pub(crate) const fn bits(self) -> u64 {
        match self {
            K::Autograd => AUTOGRAD,
            K::CompositeImplicitAutograd => CIA,
            K::FuncTorchBatchedDecomposition => functionality_bit(K::FuncTorchBatched),
            K::CompositeImplicitAutogradNestedTensor => CIA_NESTED,
            K::CompositeExplicitAutograd => BACKEND_KEYS,
            K::CompositeExplicitAutogradNonFunctional => CEANF,
            k => key_bits(k),
        }
    }

    /// Whether a registration at this key covers the runtime key `key` (c10's
    /// `isIncludedInAlias` for alias keys; equality for runtime keys).
    pub const fn covers(self, key: DispatchKey) -> bool {
        key.is_runtime() && layout::covers(self.bits(), key)
    }

    /// A key whose registration wrappers check devices and install a device guard
    /// (torchgen's CUDA-like and XPU-like keys, SCHEMA.md §5.5): `CUDA`, `QuantizedCUDA`,
    /// `SparseCUDA`, `SparseCsrCUDA`, `NestedTensorCUDA` and the `XPU` ones.
    ///
    /// ```
    /// use opgen_core::dispatch::DispatchKey;
    /// assert!(DispatchKey::CUDA.is_device_guarded() && DispatchKey::SparseXPU.is_device_guarded());
    /// assert!(!DispatchKey::CPU.is_device_guarded() && !DispatchKey::Meta.is_device_guarded());
    /// ```
    pub const fn is_device_guarded(self) -> bool {
        matches!(
            self,
            K::CUDA
                | K::QuantizedCUDA
                | K::SparseCUDA
                | K::SparseCsrCUDA
                | K::NestedTensorCUDA
                | K::XPU
                | K::QuantizedXPU
                | K::SparseXPU
                | K::SparseCsrXPU
                | K::NestedTensorXPU
        )
    }
}

/// The functionality bit of `key` (for a per-backend key, of its functionality).
const fn bit(key: DispatchKey) -> u64 {
    functionality_bit(key)
}

/// c10's `autogradother_backends`: the backends without per-backend functionality, and the
/// quantized, sparse and compressed sparse keys of every backend.
const AUTOGRAD_OTHER_BACKENDS: u64 = bit(K::FPGA)
    | bit(K::Vulkan)
    | bit(K::Metal)
    | bit(K::CustomRNGKeyId)
    | bit(K::MkldnnCPU)
    | bit(K::SparseCPU)
    | bit(K::SparseCsrCPU)
    | bit(K::QuantizedCPU)
    | BACKEND_BITS;
/// c10's `backend_dispatch_keyset`, which `CompositeExplicitAutograd` covers: the dense keys
/// and [`AUTOGRAD_OTHER_BACKENDS`] (not the nested keys, not `ZeroTensor`).
const BACKEND_KEYS: u64 = AUTOGRAD_OTHER_BACKENDS | bit(K::CPU);
/// c10's `non_functional_backend_dispatch_keyset`: [`BACKEND_KEYS`] without the sparse keys
/// and without the functional backends XLA and Lazy (for every functionality).
const CEANF: u64 = BACKEND_KEYS
    & !bit(K::SparseCPU)
    & !(1 << BackendComponent::XLA as u8)
    & !(1 << BackendComponent::Lazy as u8);
/// c10's `autograd_dispatch_keyset`, on every backend.
const AUTOGRAD: u64 =
    bit(K::AutogradOther) | bit(K::AutogradCPU) | bit(K::AutogradNestedTensor) | BACKEND_BITS;
/// The nested keys of every backend.
const NESTED_BACKENDS: u64 = bit(K::NestedTensorCPU) | BACKEND_BITS;
/// c10's `math_dispatch_keyset`, which `CompositeImplicitAutograd` covers.
const CIA: u64 = BACKEND_KEYS | AUTOGRAD | NESTED_BACKENDS | bit(K::Functionalize);
/// c10's `nested_dispatch_keyset`.
const CIA_NESTED: u64 = NESTED_BACKENDS | bit(K::AutogradNestedTensor);

impl DispatchKey {
    /// The keys a `dispatch` table of `native_functions.yaml` may name (SCHEMA.md §3.5, R48),
    /// in torchgen's order: the backends of PyTorch's in-tree kernels and the four composite
    /// keys. The others (`HPU`, `PrivateUse1`, autograd and functionality keys, `Autograd`)
    /// are runtime-only.
    pub const YAML_KEYS: &'static [DispatchKey] = &[
        K::CPU,
        K::CUDA,
        K::MPS,
        K::XPU,
        K::MTIA,
        K::Meta,
        K::MkldnnCPU,
        K::ZeroTensor,
        K::SparseCPU,
        K::SparseCUDA,
        K::SparseMPS,
        K::SparseXPU,
        K::SparseMeta,
        K::SparseCsrCPU,
        K::SparseCsrCUDA,
        K::SparseCsrMPS,
        K::SparseCsrXPU,
        K::SparseCsrMeta,
        K::QuantizedCPU,
        K::QuantizedCUDA,
        K::QuantizedMeta,
        K::NestedTensorCPU,
        K::NestedTensorCUDA,
        K::NestedTensorXPU,
        K::NestedTensorHPU,
        K::NestedTensorMeta,
        K::CompositeImplicitAutograd,
        K::CompositeImplicitAutogradNestedTensor,
        K::CompositeExplicitAutograd,
        K::CompositeExplicitAutogradNonFunctional,
    ];

    /// Whether a `dispatch` table of `native_functions.yaml` may name the key (one of
    /// [`DispatchKey::YAML_KEYS`]).
    ///
    /// ```
    /// use opgen_core::dispatch::DispatchKey;
    /// assert!(DispatchKey::SparseCsrMeta.is_yaml_dispatch_key());
    /// assert!(!DispatchKey::AutogradCPU.is_yaml_dispatch_key());
    /// assert!(!DispatchKey::QuantizedXLA.is_yaml_dispatch_key());
    /// ```
    pub const fn is_yaml_dispatch_key(self) -> bool {
        let mut i = 0;
        while i < DispatchKey::YAML_KEYS.len() {
            if DispatchKey::YAML_KEYS[i] as u8 == self as u8 {
                return true;
            }
            i += 1;
        }
        false
    }

    /// The key written `name` in a `dispatch` table of `native_functions.yaml`, if it is one
    /// of [`DispatchKey::YAML_KEYS`] (unlike [`DispatchKey::from_name`], `CatchAll` is not).
    pub fn from_yaml_name(name: &str) -> Option<DispatchKey> {
        DispatchKey::YAML_KEYS
            .iter()
            .copied()
            .find(|k| k.name() == name)
    }

    /// A backend with structured kernels generated from a `structured` entry: `CPU`, `CUDA`,
    /// `MPS`, `XPU`, `MTIA` (SCHEMA.md R59).
    pub const fn is_structured_backend(self) -> bool {
        matches!(self, K::CPU | K::CUDA | K::MPS | K::XPU | K::MTIA)
    }

    /// One of the four composite alias keys (SCHEMA.md R53).
    pub const fn is_composite(self) -> bool {
        matches!(
            self,
            K::CompositeImplicitAutograd
                | K::CompositeImplicitAutogradNestedTensor
                | K::CompositeExplicitAutograd
                | K::CompositeExplicitAutogradNonFunctional
        )
    }
}

impl fmt::Display for DispatchKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DispatchKey {
    type Err = Error;

    /// Parses PyTorch's spelling; an unknown name is an error with a suggestion.
    fn from_str(name: &str) -> Result<DispatchKey, Error> {
        DispatchKey::from_name(name).ok_or_else(|| {
            let lower = name.to_ascii_lowercase();
            let suggestion = DispatchKey::ALL
                .iter()
                .find(|k| k.name().to_ascii_lowercase() == lower)
                .map(|k| k.name());
            ErrorKind::UnknownDispatchKey {
                name: name.to_string(),
                suggestion,
            }
            .into()
        })
    }
}

#[cfg(test)]
mod tests;
