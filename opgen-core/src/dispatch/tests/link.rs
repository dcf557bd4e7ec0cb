//! Link-time registration: entries of `__private::LINK_ENTRIES` registered by `link`, and the
//! global dispatcher registering the entries this test binary links.

use std::panic::Location;

use super::*;
use crate::__private::{LINK_ENTRIES, LinkEntry as Entry, unwrap};
use crate::dispatch::registry::link::link;
use crate::dispatch::{DispatchKey as K, ErrorKind, Site};

const NEG: &str = "neg(Tensor self) -> Tensor";

fn neg_cpu(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
    lib.impl_at(
        "neg",
        key,
        |t: &TestTensor| TestTensor::cpu(-t.value()),
        site,
    )
}

fn neg_meta(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
    lib.impl_at("neg", key, |t: &TestTensor| t.clone(), site)
}

fn neg_wrong(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
    lib.impl_at("neg", key, |t: &TestTensor, _n: i64| t.clone(), site)
}

fn no_kernel(_: &Library, _: DispatchKey, _: Site) -> Result<Registration, Error> {
    Err(Error::internal(
        "an entry without keys has no kernel to register",
    ))
}

const fn entry(
    schema: Option<&'static str>,
    name: &'static str,
    keys: &'static [DispatchKey],
    line: u32,
    register: fn(&Library, DispatchKey, Site) -> Result<Registration, Error>,
) -> Entry {
    Entry {
        namespace: "t",
        schema,
        name,
        keys,
        file: "link.rs",
        line,
        site: Location::caller(),
        register,
        variants: None,
        device: None,
        backend_select: None,
    }
}

fn neg(d: &Dispatcher, t: &TestTensor) -> Result<TestTensor, Error> {
    d.typed::<_, (&TestTensor,), TestTensor>("t::neg", "")?
        .try_call(t)
}

#[test]
fn kernels_register_after_every_def_whatever_the_order() {
    // The kernel sorts first (line 1) and its `def` comes from an entry without kernel.
    static ENTRIES: [Entry; 3] = [
        entry(None, "neg", &[K::CPU], 1, neg_cpu),
        entry(Some(NEG), "neg", &[], 2, no_kernel),
        entry(
            Some("t::neg(Tensor self) -> Tensor"),
            "neg",
            &[K::Meta],
            3,
            neg_meta,
        ),
    ];
    let d = Dispatcher::new();
    let linked = link(&d, &ENTRIES);
    assert!(linked.errors().is_empty(), "{:?}", linked.errors());
    assert_eq!(neg(&d, &TestTensor::cpu(2)).unwrap().value(), -2);
    let meta = TestTensor::new(&[K::Meta], 5);
    assert_eq!(neg(&d, &meta).unwrap(), meta);
    // Restating the schema (with or without the namespace) made one `def`.
    let op = d.find("t::neg", "").unwrap();
    assert_eq!(op.keys_with_kernels(), [K::CPU, K::Meta]);
}

#[test]
fn a_different_schema_for_a_name_is_a_duplicate_def() {
    static ENTRIES: [Entry; 2] = [
        entry(Some(NEG), "neg", &[K::CPU], 1, neg_cpu),
        entry(
            Some("neg(Tensor self, int n=1) -> Tensor"),
            "neg",
            &[],
            2,
            no_kernel,
        ),
    ];
    let d = Dispatcher::new();
    let linked = link(&d, &ENTRIES);
    let [error] = linked.errors() else {
        panic!("expected one error: {:?}", linked.errors())
    };
    assert!(matches!(error.kind(), ErrorKind::DuplicateDef { .. }));
    let text = error.to_string();
    assert!(
        text.contains("operator `t::neg` is defined twice"),
        "{text}"
    );
    assert!(
        text.contains("neg(Tensor self, int n=1) -> Tensor"),
        "{text}"
    );
    // The first `def` (by file and line) serves.
    assert_eq!(neg(&d, &TestTensor::cpu(1)).unwrap().value(), -1);
}

#[test]
fn a_failing_kernel_leaves_the_others_registered() {
    static ENTRIES: [Entry; 2] = [
        entry(Some(NEG), "neg", &[K::CPU], 1, neg_cpu),
        entry(None, "neg", &[K::Meta], 2, neg_wrong),
    ];
    let d = Dispatcher::new();
    let linked = link(&d, &ENTRIES);
    let [error] = linked.errors() else {
        panic!("expected one error: {:?}", linked.errors())
    };
    assert!(matches!(
        error.kind(),
        ErrorKind::KernelSignature { key: K::Meta, .. }
    ));
    assert_eq!(neg(&d, &TestTensor::cpu(1)).unwrap().value(), -1);
    let meta = message(neg(&d, &TestTensor::new(&[K::Meta], 1)));
    assert_eq!(
        meta,
        "could not run `t::neg` with arguments from the `Meta` backend; the operator has kernels for: CPU"
    );
}

// Entries of this test binary: `Dispatcher::global()` registers them on first access.

#[linkme::distributed_slice(LINK_ENTRIES)]
static GLOBAL: &[Entry] = &[
    Entry {
        namespace: "opgen_link_test",
        ..entry(Some(NEG), "neg", &[K::CPU], 1, global_neg_cpu)
    },
    Entry {
        namespace: "opgen_link_test",
        ..entry(
            Some("neg(Tensor self, *, bool twice) -> Tensor"),
            "neg",
            &[],
            2,
            no_kernel,
        )
    },
    Entry {
        namespace: "opgen_link_test",
        ..entry(
            Some("other::abs(Tensor self) -> Tensor"),
            "abs",
            &[],
            3,
            no_kernel,
        )
    },
];

fn global_neg_cpu(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
    // Re-entrant: registration code that reaches for the global dispatcher must not deadlock.
    let _ = Dispatcher::global().find("opgen_link_test::neg", "");
    neg_cpu(lib, key, site)
}

#[test]
fn the_global_dispatcher_registers_the_linked_entries() {
    let global = Dispatcher::global();
    let op = global.find("opgen_link_test::neg", "").unwrap();
    assert_eq!(op.keys_with_kernels(), [K::CPU]);
    let errors: Vec<String> = (Dispatcher::global_errors().iter())
        .map(Error::to_string)
        .filter(|e| e.contains("opgen_link_test") || e.contains("other::abs"))
        .collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(
        errors
            .iter()
            .any(|e| e.contains("operator `opgen_link_test::neg` is defined twice"))
    );
    // An operator whose `def` failed: the lookup error repeats why.
    let missing = message(global.find("opgen_link_test::abs", ""));
    assert!(
        missing.starts_with("operator `opgen_link_test::abs` not found; no library has a `def`"),
        "{missing}"
    );
    assert!(
        missing.contains("its link-time registration failed: invalid operator name `other::abs"),
        "{missing}"
    );
    // Another dispatcher does not claim the global's failures.
    let other = message(Dispatcher::new().find("opgen_link_test::abs", ""));
    assert!(!other.contains("link-time"), "{other}");
}

#[test]
#[should_panic(expected = "operator `x::y` not found")]
fn unwrap_panics_with_the_message() {
    unwrap(Dispatcher::new().find("x::y", ""));
}
