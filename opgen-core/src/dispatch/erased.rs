//! The only module with `unsafe` code: type-erased kernel pointers, the lock-free table
//! cell, and the in-place stack operations of boxed calls. Each `unsafe` block carries the
//! argument for why it is sound.
//!
//! The call path reads an operator's table with one atomic load and calls a kernel through
//! one indirect call. Four things make that possible without locks, reference counting or
//! bounds checks:
//!
//! * [`ErasedFn`] stores a function pointer of some signature next to the `TypeId` of a
//!   marker naming that signature, and hands it back only to a caller asking for that same
//!   marker;
//! * [`Functor`] stores a kernel object behind an `Arc` next to its `TypeId`, and hands out a
//!   reference only for that type;
//! * [`LiveTable`] holds an operator's table in place (masks and kernel pointers written
//!   with atomic stores); the immutable table it replaces, which owns the kernels, is
//!   retired to [`reclaim`](super::reclaim), which drops it once every call that could have
//!   loaded one of its kernels has returned. A call marks itself with a [`Pin`] (two plain
//!   stores to a per-thread counter), and a kernel obtained from the table lives as long as
//!   the pin; the cost of knowing when a table is unused falls on registrations (a
//!   process-wide memory barrier), not on calls. [`Projected`] lets handles hold the
//!   table's address beside their entry;
//! * [`table_entry`] reads the table entry a key set selects without a bounds check: the
//!   index computation can only produce indices in bounds, which a compile-time assertion
//!   on its lookup table checks.
//! * [`InitOnce`] is a cell set once whose empty state is zero bytes (`once.rs`), for the
//!   operators' caches;
//! * [`Shared`] is a reference to a value that lives for the whole program or as long as an
//!   `Arc` it holds: handles of the global dispatcher's operators (which are never freed)
//!   are made and dropped without touching a reference count, so threads that look up the
//!   same operator do not contend for one.

// The one module where opgen uses `unsafe`; every block proves its soundness.
#![allow(unsafe_code)]

use std::any::{Any, TypeId};
use std::marker::PhantomData;
use std::mem::{size_of, transmute_copy};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::ivalue::IValue;
use super::kernel::ErasedKernel;
use super::keys::{
    NUM_BACKENDS, NUM_ENTRIES, NUM_SLOTS, REGISTER_BIT, REGISTER_SLOT, backend_index, slot_index,
};
use super::keyset::DispatchKeySet;
use super::reclaim::{self, Pin};
use super::table::{OpInfo, Table, register_kernel};

/// A marker type naming one function-pointer signature.
pub(crate) trait FnSig: 'static {
    /// The function pointer type.
    type Ptr: Copy + Send + Sync + 'static;
}

/// Never implements [`FnSig`], so an `ErasedFn` made by [`ErasedFn::none`] never matches.
struct NoFn;

/// A function pointer with its signature erased.
pub(crate) struct ErasedFn {
    ptr: *const (),
    sig: TypeId,
}

// SAFETY: `ptr` holds the bits of a `S::Ptr`, which is `Send + Sync` by `FnSig`'s bound, and
// it is only turned back into that type.
unsafe impl Send for ErasedFn {}
// SAFETY: as for `Send`.
unsafe impl Sync for ErasedFn {}

impl ErasedFn {
    /// An erased pointer that no signature matches.
    pub(crate) fn none() -> ErasedFn {
        ErasedFn {
            ptr: std::ptr::null(),
            sig: TypeId::of::<NoFn>(),
        }
    }

    /// Erases `f`, a value of `S::Ptr`.
    pub(crate) fn new<S: FnSig>(f: S::Ptr) -> ErasedFn {
        const { assert!(size_of::<S::Ptr>() == size_of::<*const ()>()) };
        // SAFETY: the sizes are equal (checked at compile time), and any bit pattern is a valid
        // `*const ()`; the bits are only read back as `S::Ptr` (see `get`).
        let ptr = unsafe { transmute_copy::<S::Ptr, *const ()>(&f) };
        ErasedFn {
            ptr,
            sig: TypeId::of::<S>(),
        }
    }

    /// The pointer, if it was erased from a `S::Ptr`.
    #[inline(always)]
    pub(crate) fn get<S: FnSig>(&self) -> Option<S::Ptr> {
        if self.sig == TypeId::of::<S>() {
            // SAFETY: `sig == TypeId::of::<S>()` only if `new::<S>` made `self` (`none` uses a
            // type without `FnSig`), so `ptr` holds the bits of a valid `S::Ptr`, a `Copy` type
            // of the same size; copying them back yields that value.
            Some(unsafe { transmute_copy::<*const (), S::Ptr>(&self.ptr) })
        } else {
            None
        }
    }
}

/// A kernel object behind an `Arc`, with its type erased.
pub(crate) struct Functor {
    keep: Arc<dyn Any + Send + Sync>,
    ty: TypeId,
}

impl Functor {
    /// Erases `value`.
    pub(crate) fn new<K: Any + Send + Sync>(value: K) -> Functor {
        Functor {
            keep: Arc::new(value),
            ty: TypeId::of::<K>(),
        }
    }

    /// The object, if it is a `K`. Unlike `<dyn Any>::downcast_ref`, the check reads a stored
    /// `TypeId` instead of making a virtual call.
    #[inline(always)]
    pub(crate) fn downcast<K: Any>(&self) -> Option<&K> {
        if self.ty == TypeId::of::<K>() {
            let ptr = Arc::as_ptr(&self.keep).cast::<K>();
            // SAFETY: `ty` is the `TypeId` of the value `new` put in `keep`, so the data
            // pointer of `keep` points to a live `K`, kept alive by `keep` for as long as
            // `self` is borrowed; only shared references are ever made to it.
            Some(unsafe { &*ptr })
        } else {
            None
        }
    }
}

/// A mutable borrow of a value whose type is erased: the stack of a boxed call, whose tensor
/// type the kernel checks. Unlike `&mut dyn Any`, checking the type reads a stored `TypeId`
/// instead of making a virtual call; and it is two words, so it is passed in registers.
pub(crate) struct AnyMut<'a> {
    ptr: NonNull<()>,
    ty: &'static TypeDesc,
    _borrow: PhantomData<&'a mut ()>,
}

/// A type's id and name.
pub(crate) struct TypeDesc {
    id: TypeId,
    name: fn() -> &'static str,
}

impl<'a> AnyMut<'a> {
    /// Erases `value`.
    #[inline(always)]
    pub(crate) fn new<V: Any>(value: &'a mut V) -> AnyMut<'a> {
        AnyMut {
            ptr: NonNull::from(value).cast(),
            ty: const {
                &TypeDesc {
                    id: TypeId::of::<V>(),
                    name: std::any::type_name::<V>,
                }
            },
            _borrow: PhantomData,
        }
    }

    /// The name of the value's type.
    pub(crate) fn type_name(&self) -> &'static str {
        (self.ty.name)()
    }

    /// The value if it is a `V`, else the name of its type.
    #[inline(always)]
    pub(crate) fn downcast<V: Any>(self) -> Result<&'a mut V, &'static str> {
        if self.ty.id == TypeId::of::<V>() {
            // SAFETY: `new` made `ptr` from a `&'a mut V` with `ty.id == TypeId::of::<V>()`,
            // and `self` (which is not `Copy`) carries that exclusive borrow: converting it
            // back is the only use of the pointer.
            Ok(unsafe { self.ptr.cast::<V>().as_mut() })
        } else {
            Err(self.type_name())
        }
    }
}

/// Appends `value` to `vec`, writing it straight into the buffer.
///
/// `Vec::push` is not always inlined; when it is not, the value is built on the machine stack
/// and copied with one 16-byte load, which the two 8-byte stores that built it cannot forward
/// to: a store-forwarding stall of about 10 ns per push of an `IValue`.
#[inline(always)]
pub(crate) fn push_in_place<V>(vec: &mut Vec<V>, value: V) {
    // `extern "C"` makes the call `nounwind` (a panic in it aborts; `reserve` panics only on
    // capacity overflow). Without a landing pad that drops `value`, the compiler keeps
    // `value` in registers instead of in a stack slot whose address the landing pad takes.
    #[cold]
    #[inline(never)]
    extern "C" fn grow<V>(vec: &mut Vec<V>) {
        vec.reserve(1);
    }
    if vec.len() == vec.capacity() {
        grow(vec);
    }
    let len = vec.len();
    // SAFETY: `len < vec.capacity()` (`grow` made room otherwise), so the slot at `len` is
    // allocated and holds no value; writing it and then counting it in the length makes it
    // the last element without reading or dropping anything.
    unsafe {
        vec.as_mut_ptr().add(len).write(value);
        vec.set_len(len + 1);
    }
}

/// Removes the last value of `values` and returns it, reading a tensor word by word.
///
/// `Vec::pop` moves the value as a whole, which the compiler may do with one 16-byte load
/// when the caller keeps the value in memory; that load stalls behind the two 8-byte stores
/// of the kernel that wrote the value moments before (several nanoseconds per call). Other
/// values than tensors take `Vec::pop`: a tensor is what most operators return.
#[inline(always)]
pub(crate) fn pop_value<T>(values: &mut Vec<IValue<T>>) -> Option<IValue<T>> {
    let last = values.len().checked_sub(1)?;
    let Some(IValue::Tensor(t)) = values.get(last) else {
        return values.pop();
    };
    // SAFETY: the tensor, the value's only owned part, is moved out once; the value then
    // leaves the vector through `set_len` (`last < len`) without being dropped.
    let t = unsafe { std::ptr::read(t) };
    unsafe { values.set_len(last) };
    Some(IValue::Tensor(t))
}

/// Whether dropping `value` would do nothing: it owns no heap data and no tensor.
#[inline(always)]
fn owns_nothing<T>(value: &IValue<T>) -> bool {
    matches!(
        value,
        IValue::None
            | IValue::Bool(_)
            | IValue::Int(_)
            | IValue::Float(_)
            | IValue::ScalarType(_)
            | IValue::Layout(_)
            | IValue::Device(_)
            | IValue::MemoryFormat(_)
            | IValue::QScheme(_)
    )
}

/// Shortens `values` to `len`, dropping the values above it from the top down, with the
/// common cases inline: a tensor costs its own drop, a number nothing. (`Vec::truncate`
/// calls the whole drop glue of `IValue` once per value.)
#[inline(always)]
pub(crate) fn drop_values_from<T>(values: &mut Vec<IValue<T>>, len: usize) {
    while values.len() > len {
        let last = values.len() - 1;
        match values.get(last) {
            Some(IValue::Tensor(t)) => {
                // SAFETY: the tensor, the value's only owned part, is moved out once; the
                // value then leaves the vector through `set_len` (`last < len`), so it is
                // neither read nor dropped again, even if dropping the tensor panics.
                let t = unsafe { std::ptr::read(t) };
                unsafe { values.set_len(last) };
                drop(t);
            }
            // SAFETY: `last < len`; the value owns nothing, so leaving it out of the vector
            // without running its (empty) drop glue is the same as dropping it.
            Some(value) if owns_nothing(value) => unsafe { values.set_len(last) },
            _ => values.truncate(last),
        }
    }
}

/// Replaces the values of `values` from `base` up (a boxed call's arguments) with `value`
/// (its return), written over the first argument; the arguments are dropped afterwards,
/// tensors and numbers without the drop glue of `IValue` (see [`drop_values_from`]).
#[inline(always)]
pub(crate) fn replace_values_from<T>(values: &mut Vec<IValue<T>>, base: usize, value: IValue<T>) {
    let Some(slot) = values.get_mut(base) else {
        push_in_place(values, value);
        return;
    };
    match slot {
        IValue::Tensor(t) => {
            // SAFETY: the tensor, the slot's only owned part, is moved out once, and the slot
            // is then overwritten without being dropped, so it is not dropped twice.
            let first = unsafe { std::ptr::read(t) };
            // SAFETY: `slot` is a valid, exclusive reference; see above for its old value.
            unsafe { std::ptr::write(slot, value) };
            drop_values_from(values, base + 1);
            drop(first);
        }
        // SAFETY: the old value owns nothing, so not dropping it changes nothing.
        slot if owns_nothing(slot) => {
            unsafe { std::ptr::write(slot, value) };
            drop_values_from(values, base + 1);
        }
        slot => {
            *slot = value;
            drop_values_from(values, base + 1);
        }
    }
}

/// An operator's dispatch table as calls read it, made on the operator's first lookup and
/// kept at one address by its entry (as c10's table is inside its `OperatorEntry`): the key
/// masks and the kernel of each slot, in place. Handles hold its address ([`Projected`]), so
/// a call makes one dependent load from its handle to reach the table and one more to reach
/// the kernel. Registrations build an immutable [`Table`] (which owns the
/// kernels) and mirror it here with atomic stores; the table it replaces is retired to
/// [`reclaim`](super::reclaim), which drops it (and the kernels only it held) once every call
/// that could have loaded one of its kernels has returned.
///
/// A call reads one mask and then one slot, each with one atomic load, while a registration
/// may be rewriting them. The order of the stores ([`LiveTable::mirror`]) and the tables'
/// fallthrough slots (which hold a kernel that skips the key) make every combination a call
/// can read dispatch as the table before or the table after would, key by key.
pub(crate) struct LiveTable {
    /// Per backend index, the key set bits whose entries are not fallthroughs, and
    /// [`REGISTER_BIT`].
    masks: [AtomicU64; NUM_BACKENDS],
    /// The kernel of each entry, then the [`REGISTER_SLOT`]'s.
    slots: [AtomicPtr<ErasedKernel>; NUM_SLOTS],
    /// The schema facts; null while the operator has no `def`.
    info: AtomicPtr<OpInfo>,
    /// The table mirrored, which owns what `slots` and `info` point to; replaced (and the
    /// old one retired) only under this lock.
    owner: Mutex<Arc<Table>>,
}

impl LiveTable {
    /// A live table mirroring `table`.
    pub(crate) fn new(table: Arc<Table>) -> LiveTable {
        LiveTable {
            masks: std::array::from_fn(|b| AtomicU64::new(table.mask(b) | REGISTER_BIT)),
            slots: std::array::from_fn(|i| match i {
                REGISTER_SLOT => AtomicPtr::new(Arc::as_ptr(register_kernel()).cast_mut()),
                i => AtomicPtr::new(table.slot(i).cast_mut()),
            }),
            info: AtomicPtr::new(table.info_ptr().cast_mut()),
            owner: Mutex::new(table),
        }
    }

    /// The kernel for a call's key set `ks`, with the key set it is called with: `ks`
    /// without the functionalities whose entries are fallthroughs on `ks`'s highest backend
    /// (on a thread's first call, `ks` and [`REGISTER_BIT`]: the register slot's kernel).
    /// Readable while the call `pin` lasts.
    #[inline(always)]
    pub(crate) fn kernel<'a>(
        &'a self,
        ks: DispatchKeySet,
        pin: &'a Pin,
    ) -> (DispatchKeySet, &'a ErasedKernel) {
        let backend = backend_index(ks.bits());
        let bits = (ks.bits() | pin.register_bit()) & self.masks[backend].load(Ordering::Acquire);
        let ptr = table_entry(&self.slots, bits, backend).load(Ordering::Acquire);
        // SAFETY: every pointer stored in `slots` (by `new` and `mirror`) is `Arc::as_ptr` of
        // a kernel held by the `Table` being mirrored, which then stays in `owner` until a
        // later `publish` has overwritten every slot with its own table's pointers, and is
        // only then handed to `reclaim::retire` (the register slot holds a `static`'s kernel,
        // never freed). `reclaim` drops a retired value only after every thread that was
        // inside a call at the barrier following the retirement has been seen outside of
        // calls. This call's `pin` began before the load: if before that barrier, the
        // barrier saw it (the pin's store is ordered before the barrier, a fence on every
        // thread) and the table outlives the pin; if after, this load follows the barrier,
        // which follows the stores that replaced the retired pointers, so it cannot return
        // one. The pin of a thread that `reclaim` does not see yet has `REGISTER_BIT`, added
        // to `bits` above and kept by every mask, so that thread reads the register slot,
        // whose `static` kernel is never freed.
        // So the kernel lives for `'a`. Kernels are never mutated after publication, and the
        // `Release` stores paired with these `Acquire` loads make their initialisation
        // visible.
        (DispatchKeySet::from_valid_bits(bits), unsafe { &*ptr })
    }

    /// Whether the operator has a `def` (nothing is read through the pointer).
    #[inline(always)]
    pub(crate) fn has_info(&self) -> bool {
        !self.info.load(Ordering::Acquire).is_null()
    }

    /// The schema facts, while the operator has a `def`; readable while `_pin` lasts (a pin
    /// of a registered thread: [`reclaim::pin_registered`]).
    #[inline(always)]
    pub(crate) fn info<'a>(&'a self, _pin: &'a Pin) -> Option<&'a OpInfo> {
        let ptr = self.info.load(Ordering::Acquire);
        // SAFETY: a non-null `info` is `Arc::as_ptr` of the `Arc<OpInfo>` of the mirrored
        // `Table`, kept alive as the slots' kernels are (see `kernel`); the pin is a
        // registered thread's (the callers take it with `pin_registered`, or hold a call's
        // pin after its dispatch registered the thread).
        (!ptr.is_null()).then(|| unsafe { &*ptr })
    }

    /// The table mirrored (for what calls do not read: the registered keys).
    pub(crate) fn snapshot(&self) -> Arc<Table> {
        self.owner
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Mirrors `table` unless it dispatches every call as the current one, and retires the
    /// table it replaces (or `table` itself).
    pub(crate) fn publish(&self, table: Arc<Table>) {
        let mut owner = self.owner.lock().unwrap_or_else(PoisonError::into_inner);
        if Table::same(&owner, &table) {
            drop(owner);
            // It may hold the last reference to a kernel (user code): dropped by `reclaim`.
            reclaim::retire(table);
            return;
        }
        self.mirror(&owner, &table);
        let old = std::mem::replace(&mut *owner, table);
        drop(owner);
        reclaim::retire(old);
    }

    /// Stores `new`'s masks, slots and schema over `old`'s. The masks first lose the bits
    /// `new` clears (a call then skips those keys, as after), the slots change, and then
    /// the masks gain the bits `new` sets (a call reaches those keys only once their slots
    /// hold `new`'s kernels). A call that read a mask before a slot changed may land on a
    /// slot that `new` makes a fallthrough: that slot holds the kernel that skips the key.
    fn mirror(&self, old: &Table, new: &Table) {
        for (b, mask) in self.masks.iter().enumerate() {
            mask.store(old.mask(b) & new.mask(b) | REGISTER_BIT, Ordering::Release);
        }
        for (i, slot) in self.slots[..NUM_ENTRIES].iter().enumerate() {
            slot.store(new.slot(i).cast_mut(), Ordering::Release);
        }
        self.info
            .store(new.info_ptr().cast_mut(), Ordering::Release);
        for (b, mask) in self.masks.iter().enumerate() {
            mask.store(new.mask(b) | REGISTER_BIT, Ordering::Release);
        }
    }
}

/// The entry of a dispatch table's `entries` that a call's key set `bits`, with highest
/// backend index `backend`, selects ([`slot_index`]), without a bounds check: the one check
/// the call path would otherwise make, as c10's table lookup makes none.
#[inline(always)]
pub(crate) fn table_entry<T>(entries: &[T; NUM_SLOTS], bits: u64, backend: usize) -> &T {
    let index = slot_index(bits, backend);
    // SAFETY: `slot_index` returns `first + (backend & mask)` for a pair `(first, mask)` of
    // its constant `ENTRIES`, for any `bits` and `backend`; building `ENTRIES` asserts
    // `first + mask < NUM_SLOTS` for every pair (a compile-time check, as `ENTRIES` is a
    // `const`), and `backend & mask <= mask`. So `index < NUM_SLOTS`, the array's length.
    unsafe { entries.get_unchecked(index) }
}

/// A shared reference to a `T` that lives for the whole program, or as long as the `Arc`
/// this value holds.
pub(crate) struct Shared<T: 'static> {
    ptr: NonNull<T>,
    owner: Option<Arc<T>>,
}

// SAFETY: a `Shared<T>` is used as a `&'static T` or an `Arc<T>`, both of which are `Send` and
// `Sync` when `T` is `Send + Sync`.
unsafe impl<T: Send + Sync> Send for Shared<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Send + Sync> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// A reference to a value that lives for the whole program.
    pub(crate) fn from_static(value: &'static T) -> Shared<T> {
        Shared {
            ptr: NonNull::from(value),
            owner: None,
        }
    }

    /// A reference to the value of `owner`, kept alive by this value.
    pub(crate) fn from_arc(owner: Arc<T>) -> Shared<T> {
        Shared {
            ptr: NonNull::from(&*owner),
            owner: Some(owner),
        }
    }

    /// The `Arc` that keeps the value alive, if it is not a static.
    #[cfg(test)]
    pub(crate) fn owner(&self) -> Option<&Arc<T>> {
        self.owner.as_ref()
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        // SAFETY: `ptr` comes from a `&'static T` (valid for the whole program) or from the
        // `Arc` in `owner`, whose value does not move and stays alive while `self` holds
        // it; only shared references to it are made, so the borrow is valid for `self`'s.
        unsafe { self.ptr.as_ref() }
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Shared<T> {
        Shared {
            ptr: self.ptr,
            owner: self.owner.clone(),
        }
    }
}

/// Views `op` as a typed handle of signature `(T, L, R)`: what an operator's cache, which
/// holds the handle of one operator checked against its signature once, returns to each
/// call.
pub(crate) fn typed_view<T, L, R>(
    op: &super::handle::OperatorHandle,
) -> &super::handle::TypedOperator<T, L, R> {
    let ptr: *const super::handle::OperatorHandle = op;
    // SAFETY: `TypedOperator<T, L, R>` is `#[repr(transparent)]` over `OperatorHandle`: its
    // only other field is a zero-sized `PhantomData`, so the two types have one layout and
    // alignment, and the reference keeps `op`'s lifetime. The signature is no memory-safety
    // invariant: every typed call checks the kernel's erased signature (`ErasedFn::get`,
    // by `TypeId`) before calling it unboxed, and boxes the arguments otherwise.
    unsafe { &*ptr.cast::<super::handle::TypedOperator<T, L, R>>() }
}

/// A [`Shared`] value together with a reference to a part of it: what a handle holds, so
/// that a call reaches the operator's table (a part of its entry) with one load.
pub(crate) struct Projected<T: 'static, U: 'static> {
    owner: Shared<T>,
    part: NonNull<U>,
}

// SAFETY: a `Projected<T, U>` is used as a `Shared<T>` and a `&U` borrowed from it, which are
// `Send` and `Sync` when `T` and `U` are `Send + Sync`.
unsafe impl<T: Send + Sync, U: Send + Sync> Send for Projected<T, U> {}
// SAFETY: as for `Send`.
unsafe impl<T: Send + Sync, U: Send + Sync> Sync for Projected<T, U> {}

impl<T, U> Projected<T, U> {
    /// `owner` with the part `project` finds in it (`None` if it finds none).
    pub(crate) fn new(
        owner: Shared<T>,
        project: impl for<'t> FnOnce(&'t T) -> Option<&'t U>,
    ) -> Option<Projected<T, U>> {
        let part = NonNull::from(project(&owner)?);
        Some(Projected { owner, part })
    }

    /// The owner.
    #[cfg(test)]
    pub(crate) fn owner(&self) -> &Shared<T> {
        &self.owner
    }

    /// The part.
    #[inline(always)]
    pub(crate) fn part(&self) -> &U {
        // SAFETY: `part` came from a `&'t U` that `project` derived from a `&'t T` to the value
        // `owner` shares, for any `'t`: safe code can only return such a reference if the `U`
        // stays valid for as long as that `T` is alive and shared (a field, or a value a
        // `OnceLock` of it holds: nothing reachable through `&T` alone can move or free
        // it). The `T` does not move (it is a `static` or in an `Arc`'s allocation), no
        // `&mut T` can exist while it is shared, and `owner` keeps it alive while `self`
        // is borrowed; only shared references to the `U` are made.
        unsafe { self.part.as_ref() }
    }
}

impl<T, U> std::ops::Deref for Projected<T, U> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        &self.owner
    }
}

impl<T, U> Clone for Projected<T, U> {
    fn clone(&self) -> Projected<T, U> {
        Projected {
            owner: self.owner.clone(),
            part: self.part,
        }
    }
}

mod once;
pub(crate) use once::InitOnce;

#[cfg(test)]
mod tests;
