//! The operators by name, for [`Dispatcher::find`](super::Dispatcher::find): a lookup takes
//! no lock and allocates nothing, so threads that look operators up at once (an interpreter,
//! a Python binding) neither wait for each other nor for registrations.
//!
//! An open-addressing hash table of operator entries, filled at most to half, with linear
//! probing. Entries are only ever added (an operator's entry lives as long as its
//! dispatcher), by one writer at a time (the registry's lock), so each slot is set once:
//! a `OnceLock`, which readers check with one atomic load. When the table is half full the
//! writer fills a table twice its size (or larger, to make room for many at once) and
//! publishes it; readers that still hold the old
//! one see every entry added before the switch. Old tables are kept (they total less than
//! the current one), which is what lets readers use them without any reclamation scheme.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::operator::OperatorEntry;

type Slots = Box<[OnceLock<Arc<OperatorEntry>>]>;

/// The capacity of the first table; table `k` has `FIRST << k` slots.
const FIRST: usize = 64;
/// Enough tables for more operators than a `u32` counts.
const TABLES: usize = 27;

pub(super) struct NameIndex {
    tables: [OnceLock<Slots>; TABLES],
    /// The table to read and fill.
    current: AtomicUsize,
    /// Entries in the current table (written under the registry's lock only).
    len: AtomicUsize,
}

impl NameIndex {
    pub(super) fn new() -> NameIndex {
        let index = NameIndex {
            tables: Default::default(),
            current: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
        };
        let _ = index.tables[0].set(empty_slots(FIRST));
        index
    }

    /// The entry named `name` (`ns::op`) with `overload`, whose [`name_hash`](super::operator::name_hash)
    /// is `hash`.
    #[inline]
    pub(super) fn get(&self, hash: u64, name: &str, overload: &str) -> Option<&Arc<OperatorEntry>> {
        let current = self.current.load(Ordering::Acquire);
        let slots = self.tables.get(current)?.get()?;
        let mask = slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            // A table is never more than half full, so the probe meets an empty slot.
            let entry = slots.get(i)?.get()?;
            if entry.hash == hash
                && same(entry.qualified.name(), name)
                && same(entry.qualified.overload(), overload)
            {
                return Some(entry);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `entry`, which is not in the index yet. `all` gives every entry already added,
    /// for when the table grows. The caller holds the registry's lock.
    pub(super) fn insert<'e>(
        &self,
        entry: &Arc<OperatorEntry>,
        all: impl Iterator<Item = &'e Arc<OperatorEntry>>,
    ) {
        let len = self.len.load(Ordering::Relaxed) + 1;
        let current = self.grow_for(len, all);
        if let Some(slots) = self.tables[current].get() {
            put(slots, entry);
        }
        self.len.store(len, Ordering::Relaxed);
    }

    /// Makes room for `additional` more entries at once (the link step knows how many
    /// operators it defines), so that the table is filled once instead of at each
    /// doubling. `all` gives every entry already added. The caller holds the registry's
    /// lock.
    pub(super) fn reserve<'e>(
        &self,
        additional: usize,
        all: impl Iterator<Item = &'e Arc<OperatorEntry>>,
    ) {
        let len = self.len.load(Ordering::Relaxed) + additional;
        self.grow_for(len, all);
    }

    /// Publishes a table at most half full with `len` entries, if the current one is not
    /// (filled with `all`); returns the index of the current table.
    fn grow_for<'e>(&self, len: usize, all: impl Iterator<Item = &'e Arc<OperatorEntry>>) -> usize {
        let current = self.current.load(Ordering::Relaxed);
        let mut next = current;
        while len * 2 > FIRST << next && next + 1 < TABLES {
            next += 1;
        }
        if next == current {
            return current;
        }
        let bigger = empty_slots(FIRST << next);
        for old in all {
            put(&bigger, old);
        }
        let _ = self.tables[next].set(bigger);
        // Readers that load the new index find the table filled (`OnceLock::set` happens
        // before this store).
        self.current.store(next, Ordering::Release);
        next
    }
}

/// `a == b`, without calling `memcmp` for empty strings: glibc's vector `memcmp` loads from
/// its pointers even for length 0, and the pointer of an empty string may be dangling
/// (`String::new()`), which costs a fault-suppression assist of hundreds of cycles.
#[inline(always)]
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

fn empty_slots(capacity: usize) -> Slots {
    (0..capacity).map(|_| OnceLock::new()).collect()
}

/// Sets the first free slot of `entry`'s probe sequence.
fn put(slots: &Slots, entry: &Arc<OperatorEntry>) {
    let mask = slots.len() - 1;
    let mut i = entry.hash as usize & mask;
    while let Some(slot) = slots.get(i) {
        if slot.get().is_none() {
            let _ = slot.set(entry.clone());
            return;
        }
        i = (i + 1) & mask;
    }
}
