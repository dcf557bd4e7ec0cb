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
//! * [`TableCell`] publishes immutable tables through an `AtomicPtr` and keeps every table it
//!   ever published until the cell itself is dropped, so a reference obtained by a reader
//!   stays valid for as long as the reader borrows the cell. Freeing superseded tables
//!   earlier would need a per-call atomic read-modify-write or fence (about 2 ns each on the
//!   reference machine, most of the call's budget); registration is rare, so the retained
//!   tables are the cheaper trade. A new table that equals a recent one reuses it, so
//!   registering and dropping the same kernels does not grow the cell;
//! * [`table_entry`] reads the table entry a key set selects without a bounds check: the
//!   index computation can only produce indices in bounds, which a compile-time assertion
//!   on its lookup table checks.
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
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::ivalue::IValue;
use super::keys::{NUM_ENTRIES, slot_index};

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

/// An operator's current dispatch table, readable with one atomic load.
pub(crate) struct TableCell<T> {
    current: AtomicPtr<T>,
    /// Every table published so far; never shrinks while the cell lives.
    retained: Mutex<Vec<Arc<T>>>,
}

/// How many recent tables `publish` compares a new table with.
const REUSE_WINDOW: usize = 16;

impl<T> TableCell<T> {
    /// A cell holding `initial`.
    #[cfg(test)]
    pub(crate) fn new(initial: T) -> TableCell<T> {
        TableCell::shared(Arc::new(initial))
    }

    /// A cell holding `initial`, which other cells may share.
    pub(crate) fn shared(initial: Arc<T>) -> TableCell<T> {
        TableCell {
            current: AtomicPtr::new(Arc::as_ptr(&initial).cast_mut()),
            retained: Mutex::new(vec![initial]),
        }
    }

    /// The current table.
    #[inline(always)]
    pub(crate) fn load(&self) -> &T {
        let ptr = self.current.load(Ordering::Acquire);
        // SAFETY: `ptr` came from `Arc::as_ptr` of an `Arc` in `retained` (in `new`, `shared` or
        // `publish`), and `retained` only grows until the cell is dropped, which cannot happen
        // while `self` is borrowed; so the table is alive for the returned lifetime. Tables are
        // never mutated after publication, and the `Release` store in `publish` paired with
        // this `Acquire` load makes its initialisation visible.
        unsafe { &*ptr }
    }

    /// Makes `table` current, or an equal recent table (`same` decides equality).
    pub(crate) fn publish(&self, table: T, same: impl Fn(&T, &T) -> bool) {
        let mut retained = self.retained.lock().unwrap_or_else(PoisonError::into_inner);
        let reuse = retained
            .iter()
            .rev()
            .take(REUSE_WINDOW)
            .find(|t| same(t, &table));
        let ptr = match reuse {
            Some(existing) => Arc::as_ptr(existing),
            None => {
                let table = Arc::new(table);
                let ptr = Arc::as_ptr(&table);
                retained.push(table);
                ptr
            }
        };
        self.current.store(ptr.cast_mut(), Ordering::Release);
    }

    /// How many tables the cell retains.
    #[cfg(test)]
    pub(crate) fn retained(&self) -> usize {
        self.retained
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// The entry of a dispatch table's `entries` that a call's key set `bits`, with highest
/// backend index `backend`, selects ([`slot_index`]), without a bounds check: the one check
/// the call path would otherwise make, as c10's table lookup makes none.
#[inline(always)]
pub(crate) fn table_entry<T>(entries: &[T; NUM_ENTRIES], bits: u64, backend: usize) -> &T {
    let index = slot_index(bits, backend);
    // SAFETY: `slot_index` returns `first + (backend & mask)` for a pair `(first, mask)` of
    // its constant `ENTRIES`, for any `bits` and `backend`; building `ENTRIES` asserts
    // `first + mask < NUM_ENTRIES` for every pair (a compile-time check, as `ENTRIES` is a
    // `const`), and `backend & mask <= mask`. So `index < NUM_ENTRIES`, the array's length.
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

#[cfg(test)]
mod tests {
    use super::*;

    struct Unary;
    impl FnSig for Unary {
        type Ptr = fn(i32) -> i32;
    }
    struct Binary;
    impl FnSig for Binary {
        type Ptr = fn(i32, i32) -> i32;
    }

    #[test]
    fn erased_fn_only_comes_back_as_its_signature() {
        let f = ErasedFn::new::<Unary>(|x| x + 1);
        assert!(f.get::<Binary>().is_none());
        assert_eq!(f.get::<Unary>().map(|f| f(1)), Some(2));
        assert!(ErasedFn::none().get::<Unary>().is_none());
    }

    #[test]
    fn functor_only_comes_back_as_its_type() {
        let k = Functor::new(String::from("kernel"));
        assert_eq!(k.downcast::<String>().map(String::as_str), Some("kernel"));
        assert!(k.downcast::<u32>().is_none());
    }

    #[test]
    fn any_mut_only_comes_back_as_its_type() {
        let mut v = vec![1u8];
        assert_eq!(
            AnyMut::new(&mut v).downcast::<Vec<u16>>().err(),
            Some("alloc::vec::Vec<u8>")
        );
        assert_eq!(AnyMut::new(&mut v).type_name(), "alloc::vec::Vec<u8>");
        let back = AnyMut::new(&mut v).downcast::<Vec<u8>>().unwrap();
        back.push(2);
        assert_eq!(v, [1, 2]);
    }

    #[test]
    fn stack_operations_drop_each_value_once() {
        let t = Arc::new(0u8);
        let list = Arc::new(vec![t.clone()]);
        let mut values: Vec<IValue<Arc<u8>>> = Vec::with_capacity(1);
        push_in_place(&mut values, IValue::Int(1));
        push_in_place(&mut values, IValue::Tensor(t.clone())); // grows
        push_in_place(&mut values, IValue::TensorList(list.clone()));
        push_in_place(&mut values, IValue::Tensor(t.clone()));
        push_in_place(&mut values, IValue::Float(0.5));
        assert_eq!((Arc::strong_count(&t), Arc::strong_count(&list)), (4, 2));
        drop_values_from(&mut values, 2);
        assert_eq!(values, [IValue::Int(1), IValue::Tensor(t.clone())]);
        assert_eq!((Arc::strong_count(&t), Arc::strong_count(&list)), (3, 1));
        // Over a tensor, a number, and a value that owns something.
        replace_values_from(&mut values, 1, IValue::Int(2));
        assert_eq!(Arc::strong_count(&t), 2);
        replace_values_from(&mut values, 0, IValue::Tensor(t.clone()));
        assert_eq!(values, [IValue::Tensor(t.clone())]);
        push_in_place(&mut values, IValue::TensorList(list.clone()));
        replace_values_from(&mut values, 1, IValue::None);
        replace_values_from(&mut values, 2, IValue::Bool(true));
        assert_eq!(
            values,
            [IValue::Tensor(t.clone()), IValue::None, IValue::Bool(true)]
        );
        assert_eq!((Arc::strong_count(&t), Arc::strong_count(&list)), (3, 1));
        replace_values_from(&mut values, 0, IValue::Float(1.0));
        assert_eq!((values.len(), Arc::strong_count(&t)), (1, 2));
        push_in_place(&mut values, IValue::TensorList(list.clone()));
        push_in_place(&mut values, IValue::Tensor(t.clone()));
        assert_eq!(pop_value(&mut values), Some(IValue::Tensor(t.clone())));
        assert_eq!(
            pop_value(&mut values),
            Some(IValue::TensorList(list.clone()))
        );
        assert_eq!(pop_value(&mut values), Some(IValue::Float(1.0)));
        assert_eq!(pop_value(&mut values), None);
        assert_eq!((Arc::strong_count(&t), Arc::strong_count(&list)), (2, 1));
    }

    #[test]
    fn cell_reuses_equal_tables_and_keeps_old_ones() {
        let cell = TableCell::new(1);
        let first: *const i32 = cell.load();
        cell.publish(2, |a, b| a == b);
        assert_eq!(*cell.load(), 2);
        cell.publish(1, |a, b| a == b);
        assert_eq!(cell.load() as *const i32, first);
        assert_eq!(cell.retained(), 2);
    }

    #[test]
    fn shared_references_keep_arcs_alive_and_statics_as_they_are() {
        static FOREVER: i32 = 7;
        let fixed = Shared::from_static(&FOREVER);
        assert!(fixed.owner().is_none());
        assert_eq!((*fixed, *fixed.clone()), (7, 7));
        let value = Arc::new(String::from("kept"));
        let shared = Shared::from_arc(value.clone());
        drop(value);
        let copy = shared.clone();
        drop(shared);
        assert_eq!(copy.as_str(), "kept");
        assert_eq!(copy.owner().map(Arc::strong_count), Some(1));
    }
}
