//! Dispatch keys: the runtime keys in priority order, then the alias keys.

use std::fmt;
use std::str::FromStr;

use super::error::{Error, ErrorKind};
use super::keyset::DispatchKeySet;

macro_rules! dispatch_keys {
    ($($(#[doc = $doc:literal])* $key:ident,)*) => {
        /// A dispatch key, spelled as in PyTorch.
        ///
        /// The first [`DispatchKey::NUM_RUNTIME`] variants are *runtime keys*, listed from the
        /// lowest priority to the highest: a call runs the kernel of the highest-priority key
        /// of its [`DispatchKeySet`]. The variants after them are *alias keys*, which are
        /// registration targets only and never appear in a key set. `Ord` follows priority for
        /// runtime keys. The module documentation of [`crate::dispatch`] explains the keys,
        /// their groups and the precedence rules.
        ///
        /// ```
        /// use opgen_core::dispatch::DispatchKey;
        /// let key: DispatchKey = "AutogradCPU".parse().unwrap();
        /// assert_eq!(key.name(), "AutogradCPU");
        /// assert!(DispatchKey::Tracer > key && key > DispatchKey::CPU);
        /// assert_eq!(DispatchKey::SparseCPU.autograd_key(), Some(DispatchKey::AutogradOther));
        /// assert!(DispatchKey::CompositeImplicitAutograd.is_alias());
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(clippy::upper_case_acronyms)] // PyTorch's spelling is the point
        #[repr(u8)]
        pub enum DispatchKey {
            $($(#[doc = $doc])* $key,)*
        }

        impl DispatchKey {
            /// Every key: the runtime keys in priority order (lowest first), then the alias keys.
            pub const ALL: &'static [DispatchKey] = &[$(DispatchKey::$key,)*];

            /// The key's name as PyTorch spells it (`AutogradCPU`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(DispatchKey::$key => stringify!($key),)*
                }
            }
        }
    };
}

dispatch_keys! {
    /// Dense CPU tensors.
    CPU,
    /// Dense CUDA tensors.
    CUDA,
    /// Apple Metal (MPS) tensors.
    MPS,
    /// Intel XPU tensors.
    XPU,
    /// Habana HPU tensors.
    HPU,
    /// Meta MTIA tensors.
    MTIA,
    /// The first user backend.
    PrivateUse1,
    /// The second user backend.
    PrivateUse2,
    /// The third user backend.
    PrivateUse3,
    /// Meta tensors: shapes and dtypes without data.
    Meta,
    /// Quantized CPU tensors.
    QuantizedCPU,
    /// Quantized CUDA tensors.
    QuantizedCUDA,
    /// Quantized meta tensors.
    QuantizedMeta,
    /// MKL-DNN (oneDNN) CPU tensors.
    MkldnnCPU,
    /// Sparse COO CPU tensors.
    SparseCPU,
    /// Sparse COO CUDA tensors.
    SparseCUDA,
    /// Sparse COO MPS tensors.
    SparseMPS,
    /// Sparse COO XPU tensors.
    SparseXPU,
    /// Sparse COO meta tensors.
    SparseMeta,
    /// Compressed sparse (CSR, CSC, BSR, BSC) CPU tensors.
    SparseCsrCPU,
    /// Compressed sparse CUDA tensors.
    SparseCsrCUDA,
    /// Compressed sparse MPS tensors.
    SparseCsrMPS,
    /// Compressed sparse XPU tensors.
    SparseCsrXPU,
    /// Compressed sparse meta tensors.
    SparseCsrMeta,
    /// Nested (jagged) CPU tensors.
    NestedTensorCPU,
    /// Nested CUDA tensors.
    NestedTensorCUDA,
    /// Nested XPU tensors.
    NestedTensorXPU,
    /// Nested HPU tensors.
    NestedTensorHPU,
    /// Nested meta tensors.
    NestedTensorMeta,
    /// Tensors known to be all zeros.
    ZeroTensor,
    /// Picks a backend for operators whose arguments carry none (factory functions).
    BackendSelect,
    /// Functionalization: rewrites mutations and views into functional operators.
    Functionalize,
    /// Bookkeeping for in-place operators and views (version counters, view metadata).
    ADInplaceOrView,
    /// Autograd for every backend without an autograd key of its own.
    AutogradOther,
    /// Autograd for `CPU`.
    AutogradCPU,
    /// Autograd for `CUDA`.
    AutogradCUDA,
    /// Autograd for `MPS`.
    AutogradMPS,
    /// Autograd for `XPU`.
    AutogradXPU,
    /// Autograd for `HPU`.
    AutogradHPU,
    /// Autograd for `MTIA`.
    AutogradMTIA,
    /// Autograd for `PrivateUse1`.
    AutogradPrivateUse1,
    /// Autograd for `PrivateUse2`.
    AutogradPrivateUse2,
    /// Autograd for `PrivateUse3`.
    AutogradPrivateUse3,
    /// Autograd for `Meta`.
    AutogradMeta,
    /// Autograd for the `NestedTensor*` backends.
    AutogradNestedTensor,
    /// Records operators into a trace.
    Tracer,
    /// Alias: every autograd key (`AutogradOther` and the per-backend ones).
    Autograd,
    /// Alias: every backend key and every autograd key; a kernel written in terms of other
    /// operators, whose autograd comes from theirs.
    CompositeImplicitAutograd,
    /// Alias: the `NestedTensor*` keys and `AutogradNestedTensor`; takes precedence over
    /// `CompositeImplicitAutograd` there.
    CompositeImplicitAutogradNestedTensor,
    /// Alias: the backend keys other than `NestedTensor*` and `ZeroTensor`; a kernel that works
    /// for every backend but needs its own autograd formula.
    CompositeExplicitAutograd,
    /// Alias: the `CompositeExplicitAutograd` keys without the `Sparse*` ones; for kernels
    /// that are not functional (they mutate or alias), so functionalizing backends avoid them.
    CompositeExplicitAutogradNonFunctional,
}

const fn mask(keys: &[DispatchKey]) -> u64 {
    let mut bits = 0u64;
    let mut i = 0;
    while i < keys.len() {
        bits |= 1 << keys[i] as u8;
        i += 1;
    }
    bits
}

const fn range(low: DispatchKey, high: DispatchKey) -> u64 {
    let (low, high) = (low as u8, high as u8);
    (u64::MAX >> (63 - high)) & !((1u64 << low) - 1)
}

use DispatchKey as K;

/// Backend keys: `CPU` ..= `ZeroTensor`.
pub(crate) const BACKENDS: u64 = range(K::CPU, K::ZeroTensor);
/// Autograd keys: `AutogradOther` ..= `AutogradNestedTensor`.
pub(crate) const AUTOGRAD: u64 = range(K::AutogradOther, K::AutogradNestedTensor);
const NESTED: u64 = range(K::NestedTensorCPU, K::NestedTensorMeta);
const SPARSE: u64 = range(K::SparseCPU, K::SparseMeta);
/// Backends whose autograd key is `AutogradOther` (c10's `autogradother_backends`).
pub(crate) const AUTOGRAD_OTHER_BACKENDS: u64 =
    range(K::QuantizedCPU, K::SparseCsrMeta) | mask(&[K::ZeroTensor]);
/// c10's `backend_dispatch_keyset`: nested tensors and `ZeroTensor` are not in it.
const CEA: u64 = BACKENDS & !NESTED & !mask(&[K::ZeroTensor]);
/// c10 removes the `Sparse` functionality (and XLA, Lazy, which opgen lacks) from CEA.
const CEANF: u64 = CEA & !SPARSE;
const CIA: u64 = (BACKENDS & !mask(&[K::ZeroTensor])) | AUTOGRAD;
const CIA_NESTED: u64 = NESTED | mask(&[K::AutogradNestedTensor]);

impl DispatchKey {
    /// How many runtime keys there are; they are the first variants of the enum.
    pub const NUM_RUNTIME: usize = DispatchKey::Tracer as usize + 1;

    /// The runtime key with priority index `index` (0 is `CPU`, the lowest), if any.
    pub const fn from_index(index: usize) -> Option<DispatchKey> {
        if index < DispatchKey::NUM_RUNTIME {
            Some(DispatchKey::ALL[index])
        } else {
            None
        }
    }

    /// The key's position in [`DispatchKey::ALL`]; for runtime keys, its priority (higher
    /// wins) and its bit in a [`DispatchKeySet`].
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
                | K::SparseXPU
                | K::SparseCsrXPU
                | K::NestedTensorXPU
        )
    }

    /// An alias key: a registration target standing for several runtime keys.
    pub const fn is_alias(self) -> bool {
        !self.is_runtime()
    }

    /// A backend key (`CPU` ..= `ZeroTensor`).
    pub const fn is_backend(self) -> bool {
        self.is_runtime() && BACKENDS & (1 << self as u8) != 0
    }

    /// An autograd runtime key (`AutogradOther` or a per-backend one).
    pub const fn is_autograd(self) -> bool {
        self.is_runtime() && AUTOGRAD & (1 << self as u8) != 0
    }

    /// The autograd key of a backend key: `AutogradCPU` for `CPU`, `AutogradNestedTensor` for
    /// the nested backends, `AutogradOther` for the backends without their own (quantized,
    /// `MkldnnCPU`, sparse, compressed sparse, `ZeroTensor`). `None` for other keys.
    pub const fn autograd_key(self) -> Option<DispatchKey> {
        Some(match self {
            K::CPU => K::AutogradCPU,
            K::CUDA => K::AutogradCUDA,
            K::MPS => K::AutogradMPS,
            K::XPU => K::AutogradXPU,
            K::HPU => K::AutogradHPU,
            K::MTIA => K::AutogradMTIA,
            K::PrivateUse1 => K::AutogradPrivateUse1,
            K::PrivateUse2 => K::AutogradPrivateUse2,
            K::PrivateUse3 => K::AutogradPrivateUse3,
            K::Meta => K::AutogradMeta,
            k if NESTED & (1 << k as u8) != 0 => K::AutogradNestedTensor,
            k if AUTOGRAD_OTHER_BACKENDS & (1 << k as u8) != 0 => K::AutogradOther,
            _ => return None,
        })
    }

    /// For an autograd key, the backend keys that map to it (see
    /// [`DispatchKey::autograd_key`]); empty for other keys.
    pub const fn backends(self) -> DispatchKeySet {
        let bits = match self {
            K::AutogradOther => AUTOGRAD_OTHER_BACKENDS,
            K::AutogradNestedTensor => NESTED,
            _ if self.is_autograd() => {
                let mut bits = 0;
                let mut i = 0;
                while i < DispatchKey::NUM_RUNTIME {
                    let backend = DispatchKey::ALL[i];
                    if let Some(a) = backend.autograd_key()
                        && a as u8 == self as u8
                    {
                        bits |= 1 << i;
                    }
                    i += 1;
                }
                bits
            }
            _ => 0,
        };
        DispatchKeySet::from_bits(bits)
    }

    /// The runtime keys a registration at this key covers: the key itself for a runtime key,
    /// the keys it stands for for an alias key.
    ///
    /// ```
    /// use opgen_core::dispatch::{DispatchKey, DispatchKeySet};
    /// let cea = DispatchKey::CompositeExplicitAutograd.runtime_keys();
    /// assert!(cea.contains(DispatchKey::CPU) && !cea.contains(DispatchKey::NestedTensorCPU));
    /// assert_eq!(DispatchKey::CPU.runtime_keys(), DispatchKeySet::from_key(DispatchKey::CPU));
    /// ```
    pub const fn runtime_keys(self) -> DispatchKeySet {
        let bits = match self {
            K::Autograd => AUTOGRAD,
            K::CompositeImplicitAutograd => CIA,
            K::CompositeImplicitAutogradNestedTensor => CIA_NESTED,
            K::CompositeExplicitAutograd => CEA,
            K::CompositeExplicitAutogradNonFunctional => CEANF,
            k => 1 << k as u8,
        };
        DispatchKeySet::from_bits(bits)
    }
}

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
    /// ```
    pub const fn is_yaml_dispatch_key(self) -> bool {
        YAML & (1u64 << self as u8) != 0
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

/// [`DispatchKey::YAML_KEYS`] as bits.
const YAML: u64 = mask(DispatchKey::YAML_KEYS);

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
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_runtime_keys_come_first() {
        for (i, key) in DispatchKey::ALL.iter().enumerate() {
            assert_eq!(key.index(), i);
            assert_eq!(DispatchKey::from_name(key.name()), Some(*key));
            assert_eq!(key.is_runtime(), i < DispatchKey::NUM_RUNTIME);
        }
        assert_eq!(DispatchKey::NUM_RUNTIME, 46);
        assert_eq!(DispatchKey::from_index(45), Some(DispatchKey::Tracer));
        assert_eq!(DispatchKey::from_index(46), None);
    }

    #[test]
    fn priority_follows_c10() {
        use DispatchKey as K;
        let order = [
            K::CPU,
            K::Meta,
            K::ZeroTensor,
            K::BackendSelect,
            K::Functionalize,
            K::ADInplaceOrView,
            K::AutogradOther,
            K::AutogradCPU,
            K::AutogradMeta,
            K::AutogradNestedTensor,
            K::Tracer,
        ];
        assert!(order.windows(2).all(|w| w[0] < w[1]));
        assert!(K::CUDA > K::CPU && K::Meta > K::PrivateUse3);
    }

    #[test]
    fn every_backend_has_an_autograd_key_and_back() {
        for key in DispatchKey::ALL.iter().filter(|k| k.is_backend()) {
            let autograd = key.autograd_key().unwrap();
            assert!(autograd.is_autograd(), "{key}");
            assert!(autograd.backends().contains(*key), "{key}");
        }
        assert_eq!(
            DispatchKey::AutogradCPU.backends(),
            DispatchKeySet::from_key(DispatchKey::CPU)
        );
        assert!(
            DispatchKey::AutogradOther
                .backends()
                .contains(DispatchKey::QuantizedCPU)
        );
        assert_eq!(DispatchKey::Tracer.autograd_key(), None);
    }

    #[test]
    fn alias_coverage() {
        use DispatchKey as K;
        let cia = K::CompositeImplicitAutograd.runtime_keys();
        assert!(cia.contains(K::CPU) && cia.contains(K::AutogradCPU) && cia.contains(K::SparseCPU));
        assert!(!cia.contains(K::Tracer) && !cia.contains(K::ZeroTensor));
        let ceanf = K::CompositeExplicitAutogradNonFunctional.runtime_keys();
        assert!(ceanf.contains(K::SparseCsrCPU) && !ceanf.contains(K::SparseCPU));
        assert_eq!(K::Autograd.runtime_keys().len(), 12);
    }

    #[test]
    fn unknown_key_suggests_the_spelling() {
        let err = "cpu".parse::<DispatchKey>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "could not parse dispatch key: cpu; did you mean `CPU`?"
        );
        assert_eq!(
            "CatchAll".parse::<DispatchKey>().unwrap(),
            DispatchKey::CompositeImplicitAutograd
        );
    }
}
