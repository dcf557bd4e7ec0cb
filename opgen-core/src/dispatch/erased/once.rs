//! [`InitOnce`]: a cell written at most once, as `std::sync::OnceLock`, whose empty state is
//! all zero bytes. A `static` of thousands of them (the operators' caches of an
//! `include_native_functions!` call) then takes no room in the program file: it goes to
//! `.bss`, where an array of `OnceLock`s, whose empty state is not zero, goes to `.data`.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// A value set at most once, then read with one atomic load.
pub(crate) struct InitOnce<T> {
    /// Set (release) once `value` is written; never unset while the cell lives.
    ready: AtomicBool,
    /// Held by the one thread that may write `value`.
    lock: Mutex<()>,
    value: UnsafeCell<MaybeUninit<T>>,
}

// SAFETY: the value is written once, by the thread holding `lock` while `ready` is unset,
// before `ready` is set with a release store; other threads only make shared references to
// it after an acquire load saw `ready` set, which orders the write before their reads. So
// sharing the cell shares a `&T` (`T: Sync`) and may hand a `T` made on one thread to the
// thread that drops the cell (`T: Send`), as `OnceLock<T>` requires.
unsafe impl<T: Send + Sync> Sync for InitOnce<T> {}

impl<T> InitOnce<T> {
    /// An empty cell: all zero bytes (a `false`, an unlocked `Mutex`, zeroed storage).
    pub(crate) const fn new() -> InitOnce<T> {
        InitOnce {
            ready: AtomicBool::new(false),
            lock: Mutex::new(()),
            value: UnsafeCell::new(MaybeUninit::zeroed()),
        }
    }

    /// The value, if it is set.
    #[inline(always)]
    pub(crate) fn get(&self) -> Option<&T> {
        if self.ready.load(Ordering::Acquire) {
            // SAFETY: `ready` is set only after `value` was written (`get_or_init`), and
            // this acquire load synchronizes with that release store; the value is never
            // written again nor dropped while `self` is borrowed.
            Some(unsafe { (*self.value.get()).assume_init_ref() })
        } else {
            None
        }
    }

    /// The value, set to `init()` first if it is not set. One thread at a time runs `init`;
    /// if it panics, the cell stays empty.
    pub(crate) fn get_or_init(&self, init: impl FnOnce() -> T) -> &T {
        if let Some(value) = self.get() {
            return value;
        }
        let _writing = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        if !self.ready.load(Ordering::Acquire) {
            let value = init();
            // SAFETY: only the thread holding `lock` writes, and only while `ready` is
            // unset, when no reference to the value exists (readers make one only after
            // seeing `ready` set).
            unsafe { (*self.value.get()).write(value) };
            self.ready.store(true, Ordering::Release);
        }
        match self.get() {
            Some(value) => value,
            // `ready` was set above (by this thread, or by the one that held the lock).
            None => unreachable_empty(),
        }
    }
}

#[cold]
fn unreachable_empty() -> ! {
    panic!("opgen internal error: a cell set under its lock reads empty; please report it")
}

impl<T> Drop for InitOnce<T> {
    fn drop(&mut self) {
        if *self.ready.get_mut() {
            // SAFETY: `ready` says the value was written; `&mut self` means that no
            // reference to it remains, and it is dropped once, here.
            unsafe { self.value.get_mut().assume_init_drop() }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    use super::*;

    #[test]
    fn a_cell_is_set_once_by_one_of_many_threads() {
        let cell: Arc<InitOnce<usize>> = Arc::new(InitOnce::new());
        let runs = Arc::new(AtomicUsize::new(0));
        assert_eq!(cell.get(), None);
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let (cell, runs) = (cell.clone(), runs.clone());
                std::thread::spawn(move || {
                    *cell.get_or_init(|| {
                        runs.fetch_add(1, Ordering::SeqCst);
                        i
                    })
                })
            })
            .collect();
        let seen: Vec<usize> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        assert!(seen.iter().all(|&v| Some(&v) == cell.get()), "{seen:?}");
    }

    #[test]
    fn a_panicking_init_leaves_the_cell_empty_and_usable() {
        let cell: InitOnce<String> = InitOnce::new();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            cell.get_or_init(|| panic!("no value"));
        }));
        assert!(panicked.is_err());
        assert_eq!(cell.get(), None);
        assert_eq!(cell.get_or_init(|| "set".to_string()), "set");
        assert_eq!(cell.get_or_init(|| "again".to_string()), "set");
    }

    #[test]
    fn dropping_a_cell_drops_its_value_once() {
        let value = Arc::new(1);
        let cell = InitOnce::new();
        cell.get_or_init(|| value.clone());
        assert_eq!(Arc::strong_count(&value), 2);
        drop(cell);
        assert_eq!(Arc::strong_count(&value), 1);
        drop(InitOnce::<Arc<i32>>::new());
    }
}
