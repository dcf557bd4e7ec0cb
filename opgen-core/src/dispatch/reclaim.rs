//! Giving back the memory of superseded dispatch tables, and of the kernels and schemas only
//! they held, once no call can still read them.
//!
//! Calls read an operator's table without a lock or a reference count (see
//! [`LiveTable`](super::erased::LiveTable)). A registration that changes the table mirrors the
//! new one in place and *retires* the old one ([`retire`]); the old table (and every kernel
//! and schema it was the last to hold) is dropped once every call that could have read it has
//! returned. The scheme is quiescent-state reclamation with an asymmetric fence, as Linux's
//! RCU, liburcu's "memb" flavour and folly's hazard pointers use it:
//!
//! * a call [`pin`]s: it adds one to its thread's call depth, a counter only that thread
//!   writes (a plain load and store: no read-modify-write, no fence), and takes one away
//!   when it returns. A thread's first call registers its counter: an unregistered thread
//!   counts on a shared record whose `REGISTER_BIT` the table lookup adds to the key set,
//!   which sends the call to a slot of its own whose kernel registers the thread and calls
//!   again (so calls pay one `or` from the record they just wrote, not a branch);
//! * [`collect`] (run after registrations, with no lock held) makes the process-wide memory
//!   barrier `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)`, which orders every other
//!   thread's memory accesses as a fence executed on it would, and then reads every thread's
//!   depth. A table retired before the barrier can only be in use on threads whose depth was
//!   then above zero: it is dropped as soon as each of them has been seen at depth zero.
//!
//! So a call pays two stores to a counter in its own cache line, and a registration that
//! replaces tables pays a system call (a few microseconds). A thread that stays inside a call
//! (a kernel that runs for minutes) holds back what was retired meanwhile until it returns.
//! Without the barrier (other systems than Linux, or a kernel without `membarrier`), retired
//! tables are kept: memory grows with registrations, but nothing is freed early.

use std::any::Any;
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering, compiler_fence};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

use super::keys::REGISTER_BIT;

/// One thread's call depth, alone in its cache lines (other threads' counters are written
/// as often as this one).
#[repr(align(128))]
struct Record {
    depth: AtomicUsize,
    /// [`REGISTER_BIT`] in the record of unregistered threads, 0 in every registered one's.
    register_bit: u64,
}

/// The threads that have called. Records are never freed: a thread's record goes back to
/// `free` when it ends, for a later thread, so [`collect`] may read any record it saw.
struct Threads {
    live: Vec<&'static Record>,
    free: Vec<&'static Record>,
}

static THREADS: Mutex<Threads> = Mutex::new(Threads {
    live: Vec::new(),
    free: Vec::new(),
});

/// The record of threads not registered yet. Their calls count on it without effect: the
/// tables send an unregistered thread's call to the register slot (a `static` kernel, never
/// retired), which registers the thread before the call reads anything retirable.
static UNREGISTERED: Record = Record {
    depth: AtomicUsize::new(0),
    register_bit: REGISTER_BIT,
};

thread_local! {
    /// This thread's record once registered; read by every call.
    static RECORD: Cell<&'static Record> = const { Cell::new(&UNREGISTERED) };
    /// Gives the record back when the thread ends.
    static GIVE_BACK: GiveBack = const { GiveBack };
}

struct GiveBack;

impl Drop for GiveBack {
    fn drop(&mut self) {
        let record = RECORD.with(|cell| cell.replace(&UNREGISTERED));
        if std::ptr::eq(record, &UNREGISTERED) {
            return;
        }
        let mut threads = lock(&THREADS);
        threads.live.retain(|r| !std::ptr::eq(*r, record));
        threads.free.push(record);
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section below leaves its data consistent at each step.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A call in progress on this thread: while it lives, nothing retired after it began is
/// dropped. Not `Send`: it counts on its thread's record.
#[must_use]
pub(crate) struct Pin {
    record: &'static Record,
    _not_send: PhantomData<*const ()>,
}

/// Marks this thread as inside a call until the returned [`Pin`] is dropped. On a thread not
/// registered yet it protects nothing but a table's register slot (see
/// [`LiveTable::kernel`](super::erased::LiveTable::kernel)); other reads take
/// [`pin_registered`].
#[inline(always)]
pub(crate) fn pin() -> Pin {
    let record = RECORD.with(Cell::get);
    // Only this thread writes its record (the unregistered record's count means nothing).
    let depth = record.depth.load(Ordering::Relaxed);
    record.depth.store(depth.wrapping_add(1), Ordering::Relaxed);
    // The barrier of `collect` orders this store before the loads that follow (see the
    // module docs); the compiler must not move them above it either.
    compiler_fence(Ordering::SeqCst);
    Pin {
        record,
        _not_send: PhantomData,
    }
}

/// [`pin`], registering this thread first if needed: for reads that do not go through a
/// table's slots (an operator's schema and facts).
#[inline]
pub(crate) fn pin_registered() -> Pin {
    if !is_registered() {
        register_thread();
    }
    pin()
}

/// Whether this thread is registered (its calls are seen by [`collect`]).
#[inline(always)]
pub(crate) fn is_registered() -> bool {
    !std::ptr::eq(RECORD.with(Cell::get), &UNREGISTERED)
}

/// Registers this thread, so that [`collect`] sees its calls. A thread whose thread-locals are being destroyed (a call from another
/// thread-local's destructor, after this module's) cannot give its record back when it
/// ends: it keeps it for good (one record, 128 bytes, per such thread).
#[cold]
#[inline(never)]
pub(crate) fn register_thread() {
    if is_registered() {
        return;
    }
    // Touch `GIVE_BACK` so that its destructor runs when the thread ends (if it still can).
    let _ = GIVE_BACK.try_with(|_| ());
    let record = {
        let mut threads = lock(&THREADS);
        let record = threads.free.pop().unwrap_or_else(|| {
            Box::leak(Box::new(Record {
                depth: AtomicUsize::new(0),
                register_bit: 0,
            }))
        });
        threads.live.push(record);
        record
    };
    RECORD.with(|cell| cell.set(record));
}

impl Pin {
    /// [`REGISTER_BIT`] if this thread is not registered, else 0: what
    /// [`LiveTable::kernel`](super::erased::LiveTable::kernel) adds to a call's key set, so
    /// that an unregistered thread's call reads the register slot (a `static` kernel) and
    /// nothing that can be retired.
    #[inline(always)]
    pub(crate) fn register_bit(&self) -> u64 {
        self.record.register_bit
    }
}

impl Drop for Pin {
    #[inline(always)]
    fn drop(&mut self) {
        let depth = self.record.depth.load(Ordering::Relaxed);
        // `Release`: the call's reads of retired tables happen before `collect` reads this
        // depth (with `Acquire`) and drops them.
        self.record
            .depth
            .store(depth.wrapping_sub(1), Ordering::Release);
    }
}

/// Values retired together, with the threads that were inside calls when they were.
struct Batch {
    items: Vec<Box<dyn Any + Send>>,
    busy: Vec<&'static Record>,
}

struct Garbage {
    /// Retired since the last barrier.
    fresh: Vec<Box<dyn Any + Send>>,
    /// Retired before a barrier, waiting for calls to return.
    waiting: Vec<Batch>,
}

static GARBAGE: Mutex<Garbage> = Mutex::new(Garbage {
    fresh: Vec::new(),
    waiting: Vec::new(),
});

/// Hands `value` (a superseded table) over, to be dropped by a later [`collect`] once no call
/// can still read it. Call it after the value was made unreachable for new calls.
pub(crate) fn retire(value: impl Any + Send) {
    lock(&GARBAGE).fresh.push(Box::new(value));
}

/// What [`collect`] found safe to drop: dropped by the caller (it may run kernels'
/// destructors, user code) once it holds no lock.
#[must_use = "dropping the collected values is the point"]
pub(crate) struct Reclaimed(Vec<Box<dyn Any + Send>>);

impl Drop for Reclaimed {
    fn drop(&mut self) {
        // One by one, in retirement order: a destructor that panics leaves the rest to the
        // unwinding, which drops them too.
        for value in self.0.drain(..) {
            drop(value);
        }
    }
}

/// Takes the retired values that no call can read any more.
pub(crate) fn collect() -> Reclaimed {
    let mut garbage = lock(&GARBAGE);
    if !garbage.fresh.is_empty() && heavy_barrier() {
        let items = std::mem::take(&mut garbage.fresh);
        let busy = (lock(&THREADS).live.iter())
            .copied()
            .filter(|r| r.depth.load(Ordering::Acquire) > 0)
            .collect();
        garbage.waiting.push(Batch { items, busy });
    }
    let mut reclaimed = Vec::new();
    garbage.waiting.retain_mut(|batch| {
        // A record seen at depth zero after the barrier has finished every call that could
        // hold the batch (a record reused by a new thread only makes this wait longer).
        batch.busy.retain(|r| r.depth.load(Ordering::Acquire) > 0);
        let done = batch.busy.is_empty();
        if done {
            reclaimed.append(&mut batch.items);
        }
        !done
    });
    Reclaimed(reclaimed)
}

/// Collects until `done` holds (what a test waits for: other tests' threads may be inside
/// calls for a while, and other tests retire values meanwhile); false if that took more than
/// `seconds`.
#[cfg(test)]
pub(crate) fn settle(seconds: u64, done: impl Fn() -> bool) -> bool {
    let start = std::time::Instant::now();
    loop {
        drop(collect());
        if done() {
            return true;
        }
        if start.elapsed().as_secs() >= seconds {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// A memory barrier on every running thread of the process; false where there is none.
fn heavy_barrier() -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use rustix::thread::{MembarrierCommand, membarrier};
        static REGISTERED: OnceLock<bool> = OnceLock::new();
        let registered = *REGISTERED
            .get_or_init(|| membarrier(MembarrierCommand::RegisterPrivateExpedited).is_ok());
        registered && membarrier(MembarrierCommand::PrivateExpedited).is_ok()
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _: Option<&OnceLock<bool>> = None;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    struct Flag(Arc<AtomicBool>);
    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_retired_value_waits_for_the_calls_that_may_read_it() {
        let dropped = Arc::new(AtomicBool::new(false));
        let pinned = pin_registered();
        retire(Flag(dropped.clone()));
        drop(collect());
        // This thread was inside a call when the value was retired.
        assert!(!dropped.load(Ordering::SeqCst));
        drop(pinned);
        assert!(settle(10, || dropped.load(Ordering::SeqCst)));
    }

    #[test]
    fn calls_on_other_threads_hold_back_what_they_may_read() {
        let dropped = Arc::new(AtomicBool::new(false));
        let (entered, leave) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
        std::thread::scope(|s| {
            s.spawn(|| {
                let _pin = pin_registered();
                entered.wait();
                leave.wait();
            });
            entered.wait();
            retire(Flag(dropped.clone()));
            drop(collect());
            assert!(!dropped.load(Ordering::SeqCst));
            leave.wait();
        });
        assert!(settle(10, || dropped.load(Ordering::SeqCst)));
    }

    #[test]
    fn threads_give_their_records_back() {
        for _ in 0..100 {
            std::thread::spawn(|| drop(pin_registered()))
                .join()
                .unwrap();
        }
        // Each ended thread's record went back to the free list for the next one.
        let threads = lock(&THREADS);
        assert!(threads.live.len() + threads.free.len() < 64);
    }
}
