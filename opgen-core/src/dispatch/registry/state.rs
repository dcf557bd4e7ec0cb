//! The registry's bookkeeping under its lock: operator entries and their ids, when tables
//! are built, and the "not found" errors.

use std::sync::{Arc, OnceLock};

use super::operator::{OperatorEntry, QualifiedName, base_hash, name_hash};
use super::{DefinedOperator, Dispatcher, Inner, OpState, Registry, link};
use crate::dispatch::erased::LiveTable;
use crate::dispatch::error::{Error, ErrorKind};
use crate::dispatch::table::{FallbackReg, Table};

impl Dispatcher {
    /// The "not found" error of `name` / `overload`, naming the most similar operator name of
    /// its namespace, if one is close (a typo): a scan of every operator, for link-time
    /// reports only (lookups stay lookups).
    pub(crate) fn not_found_with_suggestion(&self, name: &str, overload: &str) -> Error {
        let entry = self
            .inner
            .index
            .get(name_hash(name, overload), name, overload);
        let registry = self.inner.lock();
        let error = registry.not_found(name, overload, entry.map(|e| e.id));
        let namespace = name.split_once("::").map_or("", |(ns, _)| ns);
        let similar = (registry.ops.iter())
            .filter(|op| op.def.is_some() && op.entry.qualified.namespace() == namespace)
            .map(|op| op.entry.full_name())
            .filter_map(|candidate| {
                let wanted = match overload {
                    "" => name.to_string(),
                    overload => format!("{name}.{overload}"),
                };
                let distance = edit_distance(&wanted, candidate, 2)?;
                Some((distance, candidate.to_string()))
            })
            .min();
        drop(registry);
        let mut kind = error.into_kind();
        if let ErrorKind::OperatorNotFound { did_you_mean, .. } = &mut kind {
            *did_you_mean = similar.map(|(_, name)| name);
        }
        kind.into()
    }
}

impl Dispatcher {
    /// Makes room for `additional` more operators at once: the link step, which defines
    /// thousands, fills the name index once instead of at each doubling.
    pub(crate) fn reserve(&self, additional: usize) {
        let mut registry = self.inner.lock();
        registry.ops.reserve(additional);
        registry.overloads.reserve(additional);
        (self.inner.index).reserve(additional, registry.ops.iter().map(|op| &op.entry));
    }
}

impl Registry {
    /// The operator `id` with its schema, if it has a `def` whose schema parses.
    pub(super) fn defined(&self, id: u32) -> Option<DefinedOperator> {
        let op = self.op(id)?;
        let schema = op.def.as_ref()?.info.schema().ok()?;
        Some(DefinedOperator {
            full_name: op.entry.full_name().to_string(),
            schema: schema.clone(),
        })
    }

    pub(super) fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    pub(super) fn op(&self, id: u32) -> Option<&OpState> {
        self.ops.get(id as usize)
    }

    pub(super) fn op_mut(&mut self, id: u32) -> Option<&mut OpState> {
        self.ops.get_mut(id as usize)
    }

    /// The id of the operator `name` (`ns::op`) with `overload`, created (without `def`) if
    /// needed; `named` is its whole name (`ns::op.overload`) when it lives as long as the
    /// program, which the entry then borrows.
    pub(super) fn op_id(
        &mut self,
        inner: &Arc<Inner>,
        namespace: &str,
        (name, overload): (&str, &str),
        named: Option<&'static str>,
    ) -> u32 {
        let hash = name_hash(name, overload);
        if let Some(entry) = inner.index.get(hash, name, overload) {
            return entry.id;
        }
        let op = name
            .strip_prefix(namespace)
            .and_then(|n| n.strip_prefix("::"));
        let id = u32::try_from(self.ops.len()).unwrap_or(u32::MAX);
        let entry = Arc::new(OperatorEntry {
            id,
            qualified: match named {
                Some(full) => QualifiedName::borrowed(full, namespace.len(), name.len()),
                None => QualifiedName::new(namespace, op.unwrap_or(name), overload),
            },
            hash,
            table: OnceLock::new(),
            dispatcher: Arc::downgrade(inner),
        });
        inner
            .index
            .insert(&entry, self.ops.iter().map(|op| &op.entry));
        self.overloads.entry(base_hash(name)).or_default().push(id);
        self.ops.push(OpState {
            entry,
            def: None,
            kernels: Vec::new(),
        });
        id
    }

    /// The ids of the operators named `name` (`ns::op`), any overload, with or without `def`.
    pub(super) fn overload_ids(&self, name: &str) -> Vec<u32> {
        (self.overloads.get(&base_hash(name)).into_iter().flatten())
            .copied()
            .filter(|&id| {
                self.op(id)
                    .is_some_and(|op| op.entry.qualified.name() == name)
            })
            .collect()
    }

    /// Builds the operator's table if nobody has looked it up yet; from then on every
    /// registration that concerns it rebuilds it at once.
    pub(super) fn make_ready(&mut self, id: u32) {
        let Some(op) = self.op(id) else { return };
        if !op.entry.is_ready() {
            // A lookup is when a link-time schema is first needed: parse it (an invalid one
            // is reported by the calls that need it).
            if let Some(def) = &op.def {
                let _ = def.info.facts();
            }
            let table = op.build(&self.fallbacks);
            let _ = (op.entry.table).get_or_init(|| Box::new(LiveTable::new(Arc::new(table))));
        }
    }

    /// Rebuilds the operator's table after a registration, if it has been looked up;
    /// returns whether it did.
    pub(super) fn rebuild_op(&self, id: u32) -> bool {
        let ready = self.op(id).filter(|op| op.entry.is_ready());
        if let Some(op) = ready {
            op.publish(&self.fallbacks);
        }
        ready.is_some()
    }

    /// Rebuilds every table that has been looked up (after a fallback changed).
    pub(super) fn rebuild_all(&self) {
        for op in self.ops.iter().filter(|op| op.entry.is_ready()) {
            op.publish(&self.fallbacks);
        }
    }

    /// The "not found" error of `name` / `overload`; `id` is its entry, if it has one (a
    /// dangling impl, or a dropped `def`).
    pub(super) fn not_found(&self, name: &str, overload: &str, id: Option<u32>) -> Error {
        /// At most this many overloads are listed.
        const LISTED: usize = 16;
        let mut known_overloads: Vec<String> = (self.overload_ids(name).into_iter())
            .filter_map(|id| self.op(id))
            .filter(|op| op.def.is_some())
            .map(|op| match op.entry.qualified.overload() {
                "" => "(none)".to_string(),
                overload => overload.to_string(),
            })
            .collect();
        known_overloads.sort();
        if known_overloads.len() > LISTED {
            let more = known_overloads.len() - LISTED;
            known_overloads.truncate(LISTED);
            known_overloads.push(format!("... ({more} more)"));
        }
        let kernels = id
            .and_then(|id| self.op(id))
            .map(|op| {
                (op.kernels.iter())
                    .map(|k| (k.key, k.site))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        ErrorKind::OperatorNotFound {
            name: name.to_string(),
            overload: overload.to_string(),
            known_overloads,
            kernels,
            did_you_mean: None,
            registration_errors: Vec::new(),
        }
        .into()
    }
}

impl OpState {
    /// The operator's table, as its registrations and the fallbacks make it.
    fn build(&self, fallbacks: &[Option<FallbackReg>]) -> Table {
        let info = self.def.as_ref().map(|d| d.info.clone());
        Table::build(info, &self.kernels, fallbacks)
    }

    /// Rewrites the operator's table, if it is made.
    pub(super) fn publish(&self, fallbacks: &[Option<FallbackReg>]) {
        if let Some(live) = self.entry.table.get() {
            live.publish(Arc::new(self.build(fallbacks)));
        }
    }
}

impl Error {
    /// Adds to a "not found" error of the global dispatcher why the operator's link-time
    /// registrations failed.
    pub(super) fn with_link_errors(self, dispatcher: &Dispatcher) -> Error {
        let mut kind = self.into_kind();
        if let ErrorKind::OperatorNotFound {
            name,
            overload,
            registration_errors,
            ..
        } = &mut kind
        {
            let full = match overload.as_str() {
                "" => name.clone(),
                overload => format!("{name}.{overload}"),
            };
            *registration_errors = link::errors_of(dispatcher, &full);
        }
        kind.into()
    }
}

/// The edit distance of `a` and `b` (insertions, deletions, substitutions of bytes), if at
/// most `limit`.
fn edit_distance(a: &str, b: &str, limit: usize) -> Option<usize> {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(x != y))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    let distance = row[b.len()];
    (distance <= limit).then_some(distance)
}
