//! Link-time registration: entries of `__private::LINK_ENTRIES` registered by `link` into
//! a dispatcher of the test's own. (The global dispatcher's panic on failed link-time
//! registrations is tested in a binary of its own, `tests/tests/link_errors.rs`.)

use std::panic::Location;
use std::sync::{Arc, Mutex};

use super::*;
use crate::__private::{LinkEntry as Entry, unwrap};
use crate::dispatch::registry::link::{LinkErrorList, link, link_checked};
use crate::dispatch::{DispatchKey as K, ErrorKind, IValue, Site, Stack, Warning};

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

fn rleu_cpu(lib: &Library, key: DispatchKey, site: Site) -> Result<Registration, Error> {
    lib.impl_at("rleu", key, |t: &TestTensor| t.clone(), site)
}

/// [`NEG`] in the tests' namespace `t`, as a link entry writes it.
const T_NEG: &str = "t::neg(Tensor self) -> Tensor";

fn neg(d: &Dispatcher, t: &TestTensor) -> Result<TestTensor, Error> {
    d.typed::<_, (&TestTensor,), TestTensor>("t::neg", "")?
        .try_call(t)
}

#[test]
fn kernels_register_after_every_def_whatever_the_order() {
    // The kernel sorts first (its line is first) and its `def` comes from an entry without
    // kernel.
    static ENTRIES: [Entry; 3] = [
        Entry::kernel("t::neg", &[K::CPU], neg_cpu),
        Entry::def(T_NEG),
        Entry::def("t::neg(Tensor self) -> Tensor").with_kernel(&[K::Meta], neg_meta),
    ];
    let d = Dispatcher::new();
    let linked = link(&d, &ENTRIES);
    assert!(linked.errors().is_empty(), "{:?}", linked.errors());
    assert_eq!(neg(&d, &TestTensor::cpu(2)).unwrap().value(), -2);
    let meta = TestTensor::new(&[K::Meta], 5);
    assert_eq!(neg(&d, &meta).unwrap(), meta);
    // Restating the schema made one `def`.
    let op = d.find("t::neg", "").unwrap();
    assert_eq!(op.keys_with_kernels(), [K::CPU, K::Meta]);
}

#[test]
fn a_different_schema_for_a_name_is_a_duplicate_def() {
    static ENTRIES: [Entry; 2] = [
        Entry::def(T_NEG).with_kernel(&[K::CPU], neg_cpu),
        Entry::def("t::neg(Tensor self, int n=1) -> Tensor"),
    ];
    let d = Dispatcher::new();
    let linked = link(&d, &ENTRIES);
    let [error] = linked.errors() else {
        panic!("expected one error: {:?}", linked.errors())
    };
    assert!(matches!(error.kind(), ErrorKind::DuplicateDef { .. }));
    let text = error.to_string();
    assert!(
        text.starts_with(
            "Tried to register an operator (t::neg(Tensor self, int n=1) -> Tensor) with the same \
             name and overload name multiple times."
        ),
        "{text}"
    );
    assert!(
        text.contains("  first:  t::neg(Tensor self) -> Tensor"),
        "{text}"
    );
    // The first `def` (by file and line) serves.
    assert_eq!(neg(&d, &TestTensor::cpu(1)).unwrap().value(), -1);
}

#[test]
fn a_failing_kernel_leaves_the_others_registered() {
    static ENTRIES: [Entry; 2] = [
        Entry::def(T_NEG).with_kernel(&[K::CPU], neg_cpu),
        Entry::kernel("t::neg", &[K::Meta], neg_wrong),
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
    assert!(
        meta.starts_with(
            "Could not run 't::neg' with arguments from the 'Meta' backend. This could be because \
             the operator doesn't exist for this backend. 't::neg' is only available for these \
             keys: [CPU]"
        ),
        "{meta}"
    );
}

#[test]
fn a_kernel_whose_operator_nothing_defines_is_a_link_error() {
    // `rleu` for `relu`: c10 would keep a dangling impl that nothing calls.
    static ENTRIES: [Entry; 2] = [
        Entry::def("t::relu(Tensor self) -> Tensor"),
        Entry::kernel("t::rleu", &[K::CPU], rleu_cpu),
    ];
    let d = Dispatcher::new();
    let linked = link_checked(&d, &ENTRIES, &[]);
    let [error] = linked.errors() else {
        panic!("expected one error: {:?}", linked.errors())
    };
    let site = ENTRIES[1].site;
    assert_eq!(
        error.to_string(),
        format!(
            "Could not find schema for t::rleu but we found an implementation; did you forget to \
             def() the operator? Kernels: `CPU` registered at {site}; did you mean `t::relu`?"
        )
    );
    assert_eq!(d.dangling_impls().len(), 1);
}

#[test]
fn link_time_schemas_are_parsed_when_first_needed() {
    // Not a valid schema (its crate's macro would have rejected it): linking reads only
    // its name, so the error shows when the operator is first used.
    static ENTRIES: [Entry; 2] = [
        Entry::def("t::lazy(Tensr self) -> Tensor"),
        Entry::def(T_NEG),
    ];
    let d = Dispatcher::new();
    let linked = link(&d, &ENTRIES);
    assert!(linked.errors().is_empty(), "{:?}", linked.errors());
    let op = d.find("t::lazy", "").unwrap();
    assert_eq!(op.schema(), None);
    let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::cpu(1))]);
    let error = message(op.call_boxed(&mut stack));
    assert!(
        error.starts_with("invalid schema in `def` at ") && error.contains("unknown type `Tensr`"),
        "{error}"
    );
    // Tables are built on first lookup too.
    let entry = d.inner.index_entry("t::neg", "").unwrap();
    assert!(!entry.is_ready());
    let neg = d.find("t::neg", "").unwrap();
    assert!(entry.is_ready());
    assert_eq!(neg.schema().unwrap().to_string(), NEG);
}

#[test]
fn a_kernel_overriding_another_from_another_site_warns() {
    static ENTRIES: [Entry; 4] = [
        Entry::def(T_NEG).with_kernel(&[K::CPU], neg_cpu),
        Entry {
            site: Location::caller(),
            ..Entry::kernel("t::neg", &[K::CPU], neg_meta)
        },
        // At `Meta` PyTorch overrides on purpose, and does not warn.
        Entry {
            site: Location::caller(),
            ..Entry::kernel("t::neg", &[K::Meta], neg_meta)
        },
        Entry {
            site: Location::caller(),
            ..Entry::kernel("t::neg", &[K::Meta], neg_cpu)
        },
    ];
    let d = Dispatcher::new();
    let seen: Arc<Mutex<Vec<Warning>>> = Arc::default();
    let sink = seen.clone();
    d.set_warning_hook(move |w| sink.lock().unwrap().push(w.clone()));
    let linked = link(&d, &ENTRIES);
    assert!(linked.errors().is_empty(), "{:?}", linked.errors());
    let seen = seen.lock().unwrap();
    let [warning] = seen.as_slice() else {
        panic!("expected one warning: {seen:?}")
    };
    let (first, second) = (ENTRIES[0].site, ENTRIES[1].site);
    assert_eq!(
        warning.to_string(),
        format!(
            "Overriding a previously registered kernel for the same operator and the same dispatch key
  operator: t::neg(Tensor self) -> Tensor
    registered at {first}
  dispatch key: CPU
  previous kernel: registered at {first} (opgen_core::dispatch::tests::link::neg_cpu::{{{{closure}}}})
       new kernel: registered at {second} (opgen_core::dispatch::tests::link::neg_meta::{{{{closure}}}})
the new kernel serves `CPU` while its registration lives; dropping it brings the previous one back"
        )
    );
    // The newer kernel serves.
    assert_eq!(neg(&d, &TestTensor::cpu(2)).unwrap().value(), 2);
}

/// The marker generated code would write for `opgen_link_test::late`, an operator defined
/// at run time (its table's entries are not linked: the test defines it after a lookup).
#[allow(non_camel_case_types)]
struct late {}

static LATE: &[crate::__private::LinkEntry] = &[crate::__private::LinkEntry::def(
    "opgen_link_test::late(Tensor self) -> Tensor",
)];
crate::__opgen_op_table!(LateTable, LATE, 1);

impl crate::dispatch::Operator for late {
    type Tensor = TestTensor;
    type Args = (&'static TestTensor,);
    type Returns = TestTensor;
    type Table = LateTable;
    const INDEX: usize = 0;
}

#[test]
fn an_operator_cache_does_not_keep_a_failed_lookup() {
    use crate::dispatch::Operator;
    assert!(message(late::typed()).starts_with("Could not find schema for opgen_link_test::late"));
    let lib = Dispatcher::global().fragment("opgen_link_test");
    let _def = lib.def("late(Tensor self) -> Tensor").unwrap();
    let op = late::typed().unwrap();
    assert!(std::ptr::eq(op, late::typed().unwrap()));
}

#[test]
#[should_panic(expected = "Could not find schema for x::y")]
fn unwrap_panics_with_the_message() {
    unwrap(Dispatcher::new().find("x::y", ""));
}

#[test]
fn link_errors_list_every_failure() {
    static ENTRIES: [Entry; 3] = [
        Entry::def(T_NEG).with_kernel(&[K::CPU], neg_cpu),
        Entry::kernel("t::neg", &[K::Meta], neg_wrong),
        Entry::kernel("t::rleu", &[K::CPU], rleu_cpu),
    ];
    let d = Dispatcher::new();
    let linked = link_checked(&d, &ENTRIES, &[]);
    let text = LinkErrorList(linked.errors()).to_string();
    assert!(
        text.starts_with(
            "2 link-time registrations of the global dispatcher failed (`Dispatcher::try_global` \
             returns them instead of panicking):\n  1. Inferred operator schema for a Rust kernel \
             function doesn't match the expected function schema.\n       operator: t::neg\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n  2. Could not find schema for t::rleu but we found an implementation"),
        "{text}"
    );
}
