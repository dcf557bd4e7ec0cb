//! Link-time registration: the global dispatcher registers every entry of the link-time
//! lists on its first access (see [`Dispatcher::global`]), then runs the post-link steps
//! other modules contribute ([`PostLink`]).

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use super::entry::{DEFERRED, Deferred, LinkEntry as Entry, link_entries};
use super::warning::{Warning, WarningHook};
use super::{Dispatcher, Registration};
use crate::dispatch::error::Error;
use crate::dispatch::library::Library;
use crate::dispatch::operator::{NameScan, OperatorName};
use crate::schema::parse_schema;

/// A step of link-time registration that needs every entry registered first (the
/// structured wrappers derived for groups of operators). The crate root lists the steps
/// (`crate::POST_LINK`), so that the registry runs them without naming the modules that
/// provide them.
pub(crate) struct PostLink {
    /// Registers what the step adds; the failures are link errors.
    pub(crate) run: fn(&Dispatcher) -> (Vec<Registration>, Vec<Error>),
}

/// The global dispatcher, created empty (creating it runs no registration code).
static DISPATCHER: OnceLock<Dispatcher> = OnceLock::new();
/// Set once every entry is registered.
static LINKED: OnceLock<Linked> = OnceLock::new();
/// Set by [`try_global`]: the failures were handed to the program, so `global()` stops
/// panicking on them.
static HANDLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Whether this thread is registering the entries: its calls of `global()` must not wait
    /// for `LINKED`, which it is initialising.
    static LINKING: Cell<bool> = const { Cell::new(false) };
}

/// What linking did: the registrations, kept for the life of the program, the failures and
/// the warnings.
pub(crate) struct Linked {
    registrations: Vec<Registration>,
    errors: Vec<Error>,
    /// `ns::name` of the entry of each error, in the same order (empty when unknown).
    operators: Vec<String>,
    warnings: Vec<Warning>,
}

impl Linked {
    fn new() -> Linked {
        Linked {
            registrations: Vec::new(),
            errors: Vec::new(),
            operators: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The registrations that failed.
    pub(crate) fn errors(&self) -> &[Error] {
        &self.errors
    }

    /// The registrations made (to keep alive) and the failures, each with the operator
    /// (`ns::name`) of its entry (empty for a derived wrapper).
    pub(crate) fn into_parts(self) -> (Vec<Registration>, Vec<(String, Error)>) {
        let failed = self.operators.into_iter().zip(self.errors).collect();
        (self.registrations, failed)
    }

    fn keep(&mut self, operator: impl FnOnce() -> String, result: Result<Registration, Error>) {
        match result {
            Ok(registration) => self.registrations.push(registration),
            Err(error) => self.fail(operator(), error),
        }
    }

    /// Orders the failures by operator (in registration order for each), for the report.
    fn sort_errors(&mut self) {
        let mut failed: Vec<(String, Error)> = (std::mem::take(&mut self.operators).into_iter())
            .zip(std::mem::take(&mut self.errors))
            .collect();
        failed.sort_by(|(a, _), (b, _)| a.cmp(b));
        (self.operators, self.errors) = failed.into_iter().unzip();
    }

    fn fail(&mut self, operator: String, error: Error) {
        self.errors.push(error);
        self.operators.push(operator);
    }
}

/// The link-time registrations that failed, as [`Dispatcher::try_global`] returns them:
/// `Display` lists every failure.
pub struct LinkErrors {
    dispatcher: &'static Dispatcher,
    errors: &'static [Error],
}

impl LinkErrors {
    /// The failures, in registration order.
    pub fn errors(&self) -> &'static [Error] {
        self.errors
    }

    /// The global dispatcher, without the failed registrations.
    pub fn dispatcher(&self) -> &'static Dispatcher {
        self.dispatcher
    }
}

impl fmt::Display for LinkErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&LinkErrorList(self.errors), f)
    }
}

/// The message of [`LinkErrors`]: every failure, numbered.
pub(crate) struct LinkErrorList<'e>(pub(crate) &'e [Error]);

impl fmt::Display for LinkErrorList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        write!(
            f,
            "{n} link-time registration{} of the global dispatcher failed \
             (`Dispatcher::try_global` returns them instead of panicking):",
            if n == 1 { "" } else { "s" }
        )?;
        for (i, error) in self.0.iter().enumerate() {
            let text = error.to_string().replace('\n', "\n     ");
            write!(f, "\n  {}. {text}", i + 1)?;
        }
        Ok(())
    }
}

impl fmt::Debug for LinkErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for LinkErrors {}

/// The global dispatcher if it was created, without registering anything.
#[inline]
pub(super) fn global_if_created() -> Option<&'static Dispatcher> {
    DISPATCHER.get()
}

/// The global dispatcher with every link-time entry registered (or, on the registering
/// thread while it registers, the dispatcher as far as it got), and what linking did.
fn linked() -> (&'static Dispatcher, Option<&'static Linked>) {
    let dispatcher = DISPATCHER.get_or_init(Dispatcher::new);
    if LINKED.get().is_none() && !LINKING.get() {
        LINKED.get_or_init(|| {
            let _linking = LinkingGuard::enter();
            link_global(dispatcher)
        });
    }
    (dispatcher, LINKED.get())
}

pub(super) fn global() -> &'static Dispatcher {
    match linked() {
        (dispatcher, Some(linked))
            if !linked.errors.is_empty() && !HANDLED.load(Ordering::Acquire) =>
        {
            panic!(
                "{}",
                LinkErrors {
                    dispatcher,
                    errors: &linked.errors
                }
            )
        }
        (dispatcher, _) => dispatcher,
    }
}

pub(super) fn try_global() -> Result<&'static Dispatcher, LinkErrors> {
    match linked() {
        (dispatcher, Some(linked)) if !linked.errors.is_empty() => {
            HANDLED.store(true, Ordering::Release);
            Err(LinkErrors {
                dispatcher,
                errors: &linked.errors,
            })
        }
        (dispatcher, _) => Ok(dispatcher),
    }
}

pub(super) fn global_errors() -> &'static [Error] {
    linked().1.map_or(&[], Linked::errors)
}

pub(super) fn global_warnings() -> &'static [Warning] {
    linked().1.map_or(&[], |linked| &linked.warnings)
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
    match LINKED.get() {
        Some(linked) if is_global(dispatcher) => (linked.operators.iter().zip(&linked.errors))
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

/// Registers the program's link-time entries in the global dispatcher, recording the
/// warnings (which also go to standard error), and checks that every kernel found its
/// operator.
fn link_global(dispatcher: &Dispatcher) -> Linked {
    let warnings: Arc<Mutex<Vec<Warning>>> = Arc::default();
    let previous = dispatcher.warning_hook();
    let record = warnings.clone();
    let hook: Arc<WarningHook> = Arc::new(move |warning: &Warning| {
        eprintln!("Warning: {warning}");
        record
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(warning.clone());
    });
    dispatcher.replace_warning_hook(Some(hook));
    let mut linked = link_checked(dispatcher, link_entries(), DEFERRED.iter());
    dispatcher.replace_warning_hook(previous);
    linked.sort_errors();
    linked.warnings = std::mem::take(&mut *warnings.lock().unwrap_or_else(PoisonError::into_inner));
    linked
}

/// [`link_all`], then the check that every kernel found its operator: what the global
/// dispatcher runs.
pub(crate) fn link_checked<'e>(
    dispatcher: &Dispatcher,
    entries: impl IntoIterator<Item = &'e Entry> + Clone,
    deferred: impl IntoIterator<Item = &'e Deferred>,
) -> Linked {
    let mut linked = link_all(dispatcher, entries.clone(), deferred);
    check_dangling(dispatcher, entries, &mut linked);
    linked
}

/// [`link`], then the `deferred` registrations (structured delegates) and the post-link
/// steps (`crate::POST_LINK`, in order), which need every kernel first.
pub(crate) fn link_all<'e>(
    dispatcher: &Dispatcher,
    entries: impl IntoIterator<Item = &'e Entry>,
    deferred: impl IntoIterator<Item = &'e Deferred>,
) -> Linked {
    let mut linked = link(dispatcher, entries);
    let mut order: Vec<(OperatorName, &Deferred)> =
        (deferred.into_iter()).map(|e| (e.name(), e)).collect();
    order.sort_by_key(|(name, e)| (name.namespace, name.full, e.site.file(), e.site.line()));
    for (name, entry) in order {
        let lib = dispatcher.fragment(name.namespace);
        match (entry.register)(&lib, entry.site) {
            Ok(registrations) => linked.registrations.extend(registrations),
            Err(error) => linked.fail(qualified(&name), error),
        }
    }
    for step in crate::POST_LINK {
        let (registrations, errors) = (step.run)(dispatcher);
        linked.registrations.extend(registrations);
        for error in errors {
            linked.fail(String::new(), error);
        }
    }
    linked
}

/// Registers `entries` in `dispatcher`: per namespace a fragment library, all `def`s (with
/// their variants), the generated `BackendSelect` kernels of those `def`s, then every kernel
/// at every key. Entries are taken in (namespace, name, file, line) order, so which of two
/// conflicting `def`s wins does not depend on the link order.
pub(crate) fn link<'e>(
    dispatcher: &Dispatcher,
    entries: impl IntoIterator<Item = &'e Entry>,
) -> Linked {
    let order = in_order(entries);
    let mut libraries: BTreeMap<&str, Library> = BTreeMap::new();
    for Named { name, .. } in &order {
        (libraries.entry(name.namespace)).or_insert_with(|| dispatcher.fragment(name.namespace));
    }
    dispatcher.reserve(order.len());
    let mut linked = Linked::new();
    linked.registrations.reserve(order.len());
    let mut defs: Vec<(&OperatorName, &Entry)> = Vec::with_capacity(order.len());
    // The schemas defined for the operator of the entries seen last (entries of one
    // operator are adjacent): restating one is allowed, a different one meets the
    // dispatcher's duplicate-`def` error.
    let mut defined: Vec<&'static str> = Vec::new();
    let mut previous: Option<(&str, &str)> = None;
    for Named { name, scan, entry } in &order {
        let (true, Some(lib)) = (entry.defines, libraries.get(name.namespace)) else {
            continue;
        };
        if previous != Some((name.namespace, name.full)) {
            defined.clear();
            previous = Some((name.namespace, name.full));
        }
        if defined.iter().any(|first| same_schema(first, name.schema)) {
            continue;
        }
        defined.push(name.schema);
        let def = lib.def_static(
            (entry.text, *scan),
            Some(entry.variants),
            Some(entry.device),
            entry.site,
        );
        if def.is_ok() {
            defs.push((name, entry));
        }
        linked.keep(|| qualified(name), def);
    }
    // The generated `BackendSelect` kernels of the operators just defined, before every other
    // kernel, so that a kernel registered at `BackendSelect` by hand shadows them.
    for (name, entry) in defs {
        if let (Some(register), Some(lib)) = (entry.backend_select, libraries.get(name.namespace)) {
            linked.keep(|| qualified(name), register(lib, entry.site));
        }
    }
    for Named { name, entry, .. } in &order {
        let (Some(register), Some(lib)) = (entry.register, libraries.get(name.namespace)) else {
            continue;
        };
        for &key in entry.keys {
            linked.keep(|| qualified(name), register(lib, key, entry.site));
        }
    }
    linked
}

/// An entry with the names in its text, read in one pass.
#[derive(Clone, Copy)]
struct Named<'e> {
    name: OperatorName,
    scan: NameScan,
    entry: &'e Entry,
}

/// `entries` with their names, by operator, then file and line: so that which of two
/// conflicting `def`s wins, and which of two kernels at one key overrides the other, does
/// not depend on the link order. The entries of one operator are adjacent. A hash of the
/// operator's name is compared first, which keeps the sort of thousands of entries cheap
/// (their order across operators is the hash's, deterministic but arbitrary).
fn in_order<'e>(entries: impl IntoIterator<Item = &'e Entry>) -> Vec<Named<'e>> {
    let named: Vec<Named> = (entries.into_iter())
        .map(|entry| {
            let scan = NameScan::of(entry.text);
            let name = scan.name(entry.text);
            Named { name, scan, entry }
        })
        .collect();
    // Sorted as (hash, position) pairs, small to move and compared as integers; then the
    // entries of one hash (one operator, or the rare collision) by their names and sites.
    let mut keyed: Vec<(u64, usize)> = (named.iter().enumerate())
        .map(|(i, n)| {
            (
                super::operator::name_hash(n.name.qualified, n.name.overload),
                i,
            )
        })
        .collect();
    keyed.sort_unstable();
    let key = |&(_, i): &(u64, usize)| {
        (named.get(i)).map(|n| {
            (
                n.name.namespace,
                n.name.full,
                n.entry.site.file(),
                n.entry.site.line(),
            )
        })
    };
    for same_hash in keyed.chunk_by_mut(|(a, _), (b, _)| a == b) {
        if same_hash.len() > 1 {
            same_hash.sort_by_key(key);
        }
    }
    (keyed.into_iter())
        .filter_map(|(_, i)| named.get(i).copied())
        .collect()
}

/// `ns::name.overload`, as the dispatcher names the operator (`aten::` when the text has no
/// namespace).
fn qualified(name: &OperatorName) -> String {
    format!("{}::{}", name.namespace, name.full)
}

/// Whether two schema texts define the same operator: equal texts, or equal once parsed and
/// printed canonically (without namespace).
fn same_schema(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let canonical = |text: &str| {
        parse_schema(text).ok().map(|mut schema| {
            schema.name.namespace = None;
            schema.to_string()
        })
    };
    matches!((canonical(a), canonical(b)), (Some(a), Some(b)) if a == b)
}

/// Records as failures the kernels of `entries` whose operator has no `def` once everything
/// is registered (a misspelt `op = "aten::rleu"`): c10 would keep them as dangling impls
/// that nothing calls.
fn check_dangling<'e>(
    dispatcher: &Dispatcher,
    entries: impl IntoIterator<Item = &'e Entry>,
    linked: &mut Linked,
) {
    let named: BTreeSet<String> = (entries.into_iter())
        .filter(|e| !e.keys.is_empty())
        .map(Entry::operator)
        .collect();
    let dangling: BTreeSet<String> = (dispatcher.dangling_impls().iter())
        .map(ToString::to_string)
        .filter(|op| named.contains(op))
        .collect();
    for operator in dangling {
        let (name, overload) = super::split_full_name(&operator);
        let error = dispatcher.not_found_with_suggestion(name, overload);
        linked.fail(operator.clone(), error);
    }
}
