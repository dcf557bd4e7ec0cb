//! Backend components: the backend bits of a key set.

use std::fmt;

use super::{DispatchKey, layout};

/// A backend component: the backend bits of a [`DispatchKeySet`](crate::dispatch::DispatchKeySet), in c10's order (its
/// `BackendComponent` enum). A per-backend runtime key such as `AutogradCUDA` is a
/// functionality (`Autograd`) on a backend (`CUDA`); when a call's tensors are on several
/// backends, the highest backend in this order wins.
///
/// ```
/// use opgen_core::dispatch::{BackendComponent, DispatchKey};
/// assert!(BackendComponent::CUDA > BackendComponent::CPU);
/// assert_eq!(BackendComponent::XLA.autograd_key(), DispatchKey::AutogradXLA);
/// assert_eq!(BackendComponent::HIP.autograd_key(), DispatchKey::AutogradOther);
/// assert_eq!(DispatchKey::SparseCUDA.backend(), Some(BackendComponent::CUDA));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(clippy::upper_case_acronyms)] // PyTorch's spelling is the point
#[repr(u8)]
pub enum BackendComponent {
    /// `cpu`.
    CPU,
    /// `cuda`.
    CUDA,
    /// `hip` (AMD ROCm).
    HIP,
    /// `xla` (TPUs and other XLA devices); a functional backend.
    XLA,
    /// `mps` (Apple Metal).
    MPS,
    /// `ipu` (Graphcore).
    IPU,
    /// `xpu` (Intel GPUs).
    XPU,
    /// `hpu` (Intel Gaudi).
    HPU,
    /// `ve` (NEC SX-Aurora).
    VE,
    /// `lazy` (lazy tensors); a functional backend.
    Lazy,
    /// `mtia` (Meta's training and inference accelerator).
    MTIA,
    /// `maia` (Microsoft's accelerator).
    MAIA,
    /// `privateuseone`: the first user backend.
    PrivateUse1,
    /// `privateusetwo`: the second user backend.
    PrivateUse2,
    /// `privateusethree`: the third user backend.
    PrivateUse3,
    /// `meta`: tensors with shapes and dtypes but no data.
    Meta,
}

impl BackendComponent {
    /// Every backend component, lowest first.
    pub const ALL: [BackendComponent; 16] = {
        use BackendComponent as B;
        [
            B::CPU,
            B::CUDA,
            B::HIP,
            B::XLA,
            B::MPS,
            B::IPU,
            B::XPU,
            B::HPU,
            B::VE,
            B::Lazy,
            B::MTIA,
            B::MAIA,
            B::PrivateUse1,
            B::PrivateUse2,
            B::PrivateUse3,
            B::Meta,
        ]
    };

    /// The component's bit in a key set (0 for `CPU` ... 15 for `Meta`).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The name, as the dense key of the backend is spelled (`CPU`, `PrivateUse1`).
    pub const fn name(self) -> &'static str {
        self.dense_key().name()
    }

    /// The backend's dense key (`CPU`, `CUDA`, ...).
    pub const fn dense_key(self) -> DispatchKey {
        DispatchKey::ALL[self as usize]
    }

    /// The autograd key of tensors on this backend (c10's `getAutogradKeyFromBackend`):
    /// `Autograd` + the backend, except `HIP` and `VE`, whose tensors take `AutogradOther`.
    pub const fn autograd_key(self) -> DispatchKey {
        use BackendComponent as B;
        match self {
            B::HIP | B::VE => DispatchKey::AutogradOther,
            b => layout::per_backend_key(layout::AUTOGRAD_FUNCTIONALITY, b),
        }
    }
}

impl fmt::Display for BackendComponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
