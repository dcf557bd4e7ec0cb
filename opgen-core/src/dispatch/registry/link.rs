//! Link-time registration: the global dispatcher registers every entry of
//! `__private::REGISTRATIONS` on its first access (see [`Dispatcher::global`]).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use super::entry::{DEFERRED, Deferred, LinkEntry as Entry, link_entries};
use super::{Dispatcher, Registration};
use crate::dispatch::error::Error;
use crate::dispatch::library::Library;
use crate::schema::parse_schema;

/// The global dispatcher, created empty (creating it runs no registration code).
static DISPATCHER: OnceLock<Dispatcher> = OnceLock::new();
/// Set once every entry is registered.
static LINKED: OnceLock<Linked> = OnceLock::new();

thread_local! {
    /// Whether this thread is registering the entries: its calls of `global()` must not wait
    /// for `LINKED`, which it is initialising.
    static LINKING: Cell<bool> = const { Cell::new(false) };
}

/// What linking did: the registrations, kept for the life of the program, and the failures.
pub(crate) struct Linked {
    _registrations: Vec<Registration>,
    errors: Vec<Error>,
    /// `ns::name` of the entry of each error, in the same order.
    operators: Vec<String>,
}

impl Linked {
    /// The registrations that failed.
    pub(crate) fn errors(&self) -> &[Error] {
        &self.errors
    }

    /// The registrations made (to keep alive) and the failures, each with the operator
    /// (`ns::name`) of its entry (empty for a derived wrapper).
    pub(crate) fn into_parts(self) -> (Vec<Registration>, Vec<(String, Error)>) {
        let failed = self.operators.into_iter().zip(self.errors).collect();
        (self._registrations, failed)
    }
}

pub(super) fn global() -> &'static Dispatcher {
    let dispatcher = DISPATCHER.get_or_init(Dispatcher::new);
    if LINKED.get().is_none() && !LINKING.get() {
        LINKED.get_or_init(|| {
            let _linking = LinkingGuard::enter();
            link_all(dispatcher, link_entries(), DEFERRED.iter())
        });
    }
    dispatcher
}

pub(super) fn global_errors() -> &'static [Error] {
    global();
    LINKED.get().map_or(&[], Linked::errors)
}

/// Whether `dispatcher` is the global one (without creating it).
pub(crate) fn is_global(dispatcher: &Dispatcher) -> bool {
    DISPATCHER
        .get()
        .is_some_and(|global| Arc::ptr_eq(&global.inner, &dispatcher.inner))
}

/// The messages of the failed link-time registrations of `operator` (`ns::op.overload`), if
/// `dispatcher` is the global one.
pub(super) fn errors_of(dispatcher: &Dispatcher, operator: &str) -> Vec<String> {
    let is_global = DISPATCHER
        .get()
        .is_some_and(|global| Arc::ptr_eq(&global.inner, &dispatcher.inner));
    match LINKED.get() {
        Some(linked) if is_global => (linked.operators.iter().zip(&linked.errors))
            .filter(|(op, _)| *op == operator)
            .map(|(_, error)| error.to_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// Marks this thread as linking until dropped (also on unwinding).
struct LinkingGuard;

impl LinkingGuard {
    fn enter() -> LinkingGuard {
        LINKING.set(true);
        LinkingGuard
    }
}

impl Drop for LinkingGuard {
    fn drop(&mut self) {
        LINKING.set(false);
    }
}

/// [`link`], then the `deferred` registrations (structured delegates) and the wrappers
/// derived for groups (`structured::derive_wrappers`), which need every kernel first.
pub(crate) fn link_all<'e>(
    dispatcher: &Dispatcher,
    entries: impl IntoIterator<Item = &'e Entry>,
    deferred: impl IntoIterator<Item = &'e Deferred>,
) -> Linked {
    let mut linked = link(dispatcher, entries);
    let mut order: Vec<&Deferred> = deferred.into_iter().collect();
    order.sort_by_key(|e| (e.namespace, e.name, e.file, e.line));
    for entry in order {
        let lib = dispatcher.fragment(entry.namespace);
        match (entry.register)(&lib, entry.site) {
            Ok(registrations) => linked._registrations.extend(registrations),
            Err(error) => {
                linked.errors.push(error);
                linked
                    .operators
                    .push(format!("{}::{}", entry.namespace, entry.name));
            }
        }
    }
    let (registrations, errors) = crate::structured::derive_wrappers(dispatcher);
    linked._registrations.extend(registrations);
    for error in errors {
        linked.errors.push(error);
        linked.operators.push(String::new());
    }
    linked
}

/// Registers `entries` in `dispatcher`: per namespace a fragment library, all `def`s (with
/// their variants), the generated `BackendSelect` kernels of those `def`s, then every kernel
/// at every key. Entries are taken in (namespace, name, file, line) order, so
/// which of two conflicting `def`s wins does not depend on the link order.
pub(crate) fn link<'e>(
    dispatcher: &Dispatcher,
    entries: impl IntoIterator<Item = &'e Entry>,
) -> Linked {
    let mut order: Vec<&Entry> = entries.into_iter().collect();
    order.sort_by_key(|e| (e.namespace, e.name, e.file, e.line));
    let mut libraries: BTreeMap<&str, Library> = BTreeMap::new();
    for entry in &order {
        (libraries.entry(entry.namespace)).or_insert_with(|| dispatcher.fragment(entry.namespace));
    }
    let mut linked = Linked {
        _registrations: Vec::new(),
        errors: Vec::new(),
        operators: Vec::new(),
    };
    let mut keep = |entry: &Entry, result: Result<Registration, Error>| match result {
        Ok(registration) => linked._registrations.push(registration),
        Err(error) => {
            linked.errors.push(error);
            linked.operators.push(entry.operator());
        }
    };
    // One `def` per distinct schema of an operator: restating the same schema is allowed,
    // a different one meets the dispatcher's duplicate-`def` error.
    let mut defined: Vec<(&str, &str, String)> = Vec::new();
    let mut defs: Vec<&Entry> = Vec::new();
    for entry in &order {
        let (Some(text), Some(lib)) = (entry.schema, libraries.get(entry.namespace)) else {
            continue;
        };
        let canonical = parse_schema(text).map_or_else(
            |_| text.to_string(),
            |mut schema| {
                schema.name.namespace = None;
                schema.to_string()
            },
        );
        let seen = (defined.iter())
            .any(|(ns, name, c)| *ns == entry.namespace && *name == entry.name && *c == canonical);
        if !seen {
            defined.push((entry.namespace, entry.name, canonical));
            let def = lib.def_native_at(text, entry.variants, entry.device, entry.site);
            if def.is_ok() {
                defs.push(entry);
            }
            keep(entry, def);
        }
    }
    // The generated `BackendSelect` kernels of the operators just defined, before every other
    // kernel, so that a kernel registered at `BackendSelect` by hand shadows them.
    for entry in defs {
        if let (Some(register), Some(lib)) = (entry.backend_select, libraries.get(entry.namespace))
        {
            keep(entry, register(lib, entry.site));
        }
    }
    for entry in &order {
        let Some(lib) = libraries.get(entry.namespace) else {
            continue;
        };
        for &key in entry.keys {
            keep(entry, (entry.register)(lib, key, entry.site));
        }
    }
    linked
}
