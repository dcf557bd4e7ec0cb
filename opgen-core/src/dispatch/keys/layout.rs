//! c10's layout: which bits of a key set a runtime key is made of, and which dispatch table
//! entry a key set selects.
//!
//! A key set is a `u64`: bits 0..16 are the [`BackendComponent`]s, bit `15 + n` is
//! functionality number `n` (1 = dense ... 47 = `PythonDispatcher`, c10's functionality keys
//! in c10's order); bit 63 is unused. The bits are c10's `DispatchKeySet::raw_repr()`. A
//! dispatch table has c10's runtime entries: entry 0 for `Undefined`, then one entry per
//! runtime key in [`DispatchKey`] order, so a per-backend functionality has 16 consecutive
//! entries (its offset plus the backend index).

use super::{BackendComponent, DispatchKey};

use DispatchKey as K;

/// How many backend components there are.
pub(crate) const NUM_BACKENDS: usize = 16;
/// The backend bits of a key set.
pub(crate) const BACKEND_BITS: u64 = (1 << NUM_BACKENDS) - 1;
/// How many functionalities there are (c10's functionality keys without `Undefined`).
pub(crate) const NUM_FUNCTIONALITIES: usize = 47;
/// Every bit a key set may have.
pub(crate) const VALID_BITS: u64 = (1 << (NUM_BACKENDS + NUM_FUNCTIONALITIES)) - 1;
/// The functionality bits of a key set.
pub(crate) const FUNCTIONALITY_BITS: u64 = VALID_BITS & !BACKEND_BITS;

/// The first runtime key of autograd's per-backend functionality.
pub(super) const AUTOGRAD_FUNCTIONALITY: DispatchKey = K::AutogradCPU;

/// c10's functionalities in c10's order (functionality number `i + 1`), each as its first
/// runtime key, with whether it is per backend (16 runtime keys, one per backend component).
const FUNCTIONALITIES: [(DispatchKey, bool); NUM_FUNCTIONALITIES] = [
    (K::CPU, true),
    (K::FPGA, false),
    (K::Vulkan, false),
    (K::Metal, false),
    (K::QuantizedCPU, true),
    (K::CustomRNGKeyId, false),
    (K::MkldnnCPU, false),
    (K::SparseCPU, true),
    (K::SparseCsrCPU, true),
    (K::NestedTensorCPU, true),
    (K::BackendSelect, false),
    (K::Python, false),
    (K::Fake, false),
    (K::FuncTorchDynamicLayerBackMode, false),
    (K::Functionalize, false),
    (K::Named, false),
    (K::Conjugate, false),
    (K::Negative, false),
    (K::ZeroTensor, false),
    (K::ADInplaceOrView, false),
    (K::AutogradOther, false),
    (K::AutogradCPU, true),
    (K::AutogradNestedTensor, false),
    (K::Tracer, false),
    (K::AutocastCPU, false),
    (K::AutocastMTIA, false),
    (K::AutocastMAIA, false),
    (K::AutocastXPU, false),
    (K::AutocastIPU, false),
    (K::AutocastHPU, false),
    (K::AutocastXLA, false),
    (K::AutocastMPS, false),
    (K::AutocastCUDA, false),
    (K::AutocastPrivateUse1, false),
    (K::FuncTorchBatched, false),
    (K::BatchedNestedTensor, false),
    (K::FuncTorchVmapMode, false),
    (K::Batched, false),
    (K::VmapMode, false),
    (K::FuncTorchGradWrapper, false),
    (K::DeferredInit, false),
    (K::PythonTLSSnapshot, false),
    (K::FuncTorchDynamicLayerFrontMode, false),
    (K::TESTING_ONLY_GenericWrapper, false),
    (K::TESTING_ONLY_GenericMode, false),
    (K::PreDispatch, false),
    (K::PythonDispatcher, false),
];

/// No backend component (`KEYS[i].1` of a key that is not per backend).
const NO_BACKEND: u8 = u8::MAX;

/// Each runtime key's functionality number and backend component index. Building it checks
/// that the variants of [`DispatchKey`] follow [`FUNCTIONALITIES`].
const KEYS: [(u8, u8); DispatchKey::NUM_RUNTIME] = {
    let mut keys = [(0, NO_BACKEND); DispatchKey::NUM_RUNTIME];
    let (mut n, mut i) = (0, 0);
    while n < NUM_FUNCTIONALITIES {
        let (first, per_backend) = FUNCTIONALITIES[n];
        assert!(first as usize == i, "DispatchKey is out of order");
        let count = if per_backend { NUM_BACKENDS } else { 1 };
        let mut b = 0;
        while b < count {
            keys[i] = (n as u8 + 1, if per_backend { b as u8 } else { NO_BACKEND });
            i += 1;
            b += 1;
        }
        n += 1;
    }
    assert!(
        i == DispatchKey::NUM_RUNTIME,
        "DispatchKey has extra runtime keys"
    );
    keys
};

/// How many dispatch table entries there are: `Undefined` and one per runtime key (c10's
/// `num_runtime_entries`).
pub(crate) const NUM_ENTRIES: usize = DispatchKey::NUM_RUNTIME + 1;

/// The bit above every key's: added to the key set of a call on a thread that has not made
/// a call yet (`dispatch/reclaim.rs`), it sends the call to the table's last slot
/// ([`REGISTER_SLOT`]), which registers the thread with the reclamation of tables before
/// the call goes on. Tables keep it in every key mask.
pub(crate) const REGISTER_BIT: u64 = 1 << 63;

/// The slot of [`REGISTER_BIT`], after the entries.
pub(crate) const REGISTER_SLOT: usize = NUM_ENTRIES;

/// How many slots an operator's live table has: its entries and [`REGISTER_SLOT`].
pub(crate) const NUM_SLOTS: usize = NUM_ENTRIES + 1;

/// c10's `offsetsAndMasks`, indexed by the position of a key set's highest bit (127 for the
/// empty set) rather than by functionality number, so that no shift is needed: the table
/// entry of the highest functionality's first key (0: `Undefined`, for sets without
/// functionality bits), and the mask applied to the backend index (15 for per-backend
/// functionalities, else 0). Words rather than bytes, so that the call path adds and masks
/// straight from memory.
struct Entries {
    first: [u32; 128],
    backend_mask: [u32; 128],
}

const ENTRIES: Entries = {
    let mut entries = Entries {
        first: [0; 128],
        backend_mask: [0; 128],
    };
    let mut n = 0;
    while n < NUM_FUNCTIONALITIES {
        let (first, per_backend) = FUNCTIONALITIES[n];
        // Functionality number `n + 1` is bit `NUM_BACKENDS + n`.
        let bit = NUM_BACKENDS + n;
        let mask = if per_backend { NUM_BACKENDS - 1 } else { 0 };
        // What makes `slot_index` (and `erased::table_entry`) stay in bounds.
        assert!(first as usize + 1 + mask < NUM_ENTRIES && NUM_ENTRIES < NUM_SLOTS);
        entries.first[bit] = first as u32 + 1;
        entries.backend_mask[bit] = mask as u32;
        n += 1;
    }
    const { assert!(REGISTER_BIT == 1 << 63 && VALID_BITS < REGISTER_BIT) };
    entries.first[63] = REGISTER_SLOT as u32;
    entries.backend_mask[63] = 0;
    assert!(REGISTER_SLOT < NUM_SLOTS);
    entries
};

/// The functionality bit of functionality number `n`.
const fn bit(n: u8) -> u64 {
    1 << (NUM_BACKENDS as u8 + n - 1)
}

/// The functionality bit of a runtime key (for a per-backend key, without its backend bit);
/// 0 for alias keys.
pub(crate) const fn functionality_bit(key: DispatchKey) -> u64 {
    if key.is_runtime() {
        bit(KEYS[key as usize].0)
    } else {
        0
    }
}

/// The bits of a runtime key: its functionality bit and, for a per-backend key, its
/// backend bit (c10's `DispatchKeySet(key)`); 0 for alias keys.
pub(crate) const fn key_bits(key: DispatchKey) -> u64 {
    match backend_of(key) {
        Some(b) => functionality_bit(key) | 1 << b as u8,
        None => functionality_bit(key),
    }
}

/// The backend component of a per-backend runtime key.
pub(super) const fn backend_of(key: DispatchKey) -> Option<BackendComponent> {
    if !key.is_runtime() {
        return None;
    }
    match KEYS[key as usize].1 {
        NO_BACKEND => None,
        b => Some(BackendComponent::ALL[b as usize]),
    }
}

/// The key of the per-backend functionality whose first key is `first`, on `backend`.
pub(super) const fn per_backend_key(first: DispatchKey, backend: BackendComponent) -> DispatchKey {
    DispatchKey::ALL[first as usize + backend as usize]
}

/// Whether the runtime key `key` is in the key set `bits`: both its bits are (c10's `has`).
pub(super) const fn covers(bits: u64, key: DispatchKey) -> bool {
    let key = key_bits(key);
    key != 0 && bits & key == key
}

/// The index of the highest backend bit of `bits`, 0 without one (c10's
/// `getBackendIndex`): the backend a per-backend functionality is taken for, and the
/// fallthrough mask a call uses.
#[inline(always)]
pub(crate) const fn backend_index(bits: u64) -> usize {
    ((bits & BACKEND_BITS) as u32 | 1).ilog2() as usize
}

/// The dispatch table entry of the key set `bits` whose highest backend is `backend` (from
/// [`backend_index`]): 0 (`Undefined`) without functionality bits, else the entry of its
/// highest functionality, on `backend` if that is per backend (c10's
/// `getDispatchTableIndexForDispatchKeySet`); [`REGISTER_SLOT`] if `bits` has
/// [`REGISTER_BIT`]. Always below [`NUM_SLOTS`], whatever `backend` is: building `ENTRIES`
/// checks it.
#[inline(always)]
pub(crate) const fn slot_index(bits: u64, backend: usize) -> usize {
    // The highest bit's position, 127 for no bit (`63 ^ 64`): one `bsr` on x86-64.
    let highest = (bits.leading_zeros() ^ 63) as usize;
    (ENTRIES.first[highest] + (backend as u32 & ENTRIES.backend_mask[highest])) as usize
}
