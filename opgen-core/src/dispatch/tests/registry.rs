//! The registry's introspection and reports: lookups by name, the state dump, the table
//! dump's kernel names, dangling impls, and the overriding warning.

use std::panic::Location;
use std::sync::{Arc, Mutex};

use super::*;
use crate::dispatch::{DispatchKey as K, Warning};

fn neg_cpu(t: &TestTensor) -> TestTensor {
    TestTensor::cpu(-t.value())
}

fn neg_meta(t: &TestTensor) -> TestTensor {
    t.clone()
}

/// Collects a dispatcher's warnings.
fn warnings(d: &Dispatcher) -> Arc<Mutex<Vec<Warning>>> {
    let seen: Arc<Mutex<Vec<Warning>>> = Arc::default();
    let sink = seen.clone();
    d.set_warning_hook(move |w| sink.lock().unwrap().push(w.clone()));
    seen
}

#[test]
fn find_takes_the_overload_apart_or_in_the_name() {
    let (d, _lib, _def) = setup("add.Tensor(Tensor self, Tensor other) -> Tensor");
    let op = d.find("test::add", "Tensor").unwrap();
    assert_eq!(
        (op.namespace(), op.name(), op.overload(), op.full_name()),
        ("test", "test::add", "Tensor", "test::add.Tensor")
    );
    assert_eq!(
        d.find("test::add.Tensor", "").unwrap().full_name(),
        "test::add.Tensor"
    );
    assert!(d.find("test::add", "").is_err());
    assert!(d.find("other::add", "Tensor").is_err());
}

#[test]
fn the_state_dump_lists_every_registration() {
    let (d, lib, def) = setup("neg(Tensor self) -> Tensor");
    let (a, b, c, e) = (
        Location::caller(),
        Location::caller(),
        Location::caller(),
        Location::caller(),
    );
    d.set_warning_hook(|_| {});
    let _cpu = lib.impl_at("neg", K::CPU, neg_cpu, a).unwrap();
    let _cpu_again = lib.impl_at("neg", K::CPU, neg_meta, b).unwrap();
    let _boxed = lib
        .impl_at(
            "neg",
            K::CompositeImplicitAutograd,
            crate::dispatch::boxed(|_, _, _: &mut crate::dispatch::Stack<TestTensor>| Ok(())),
            c,
        )
        .unwrap();
    let _skip = lib.impl_fallthrough_at("neg", K::AutogradCPU, e).unwrap();
    let def_site = def.site();
    assert_eq!(
        d.find("test::neg", "").unwrap().dump_state(),
        format!(
            "name: test::neg
schema: test::neg(Tensor self) -> Tensor
debug: registered at {def_site}
CPU: registered at {b} :: opgen_core::dispatch::tests::registry::neg_meta [ boxed unboxed ]
CPU (inactive): registered at {a} :: opgen_core::dispatch::tests::registry::neg_cpu [ boxed unboxed ]
AutogradCPU: registered at {e} :: (fallthrough) [ fallthrough ]
CompositeImplicitAutograd[alias]: registered at {c} :: \
opgen_core::dispatch::tests::registry::the_state_dump_lists_every_registration::{{{{closure}}}} [ boxed ]
"
        )
    );
}

#[test]
fn the_table_dump_names_kernels_by_their_rust_path() {
    let (d, lib, _def) = setup("neg(Tensor self) -> Tensor");
    let here = Location::caller();
    let _cpu = lib.impl_at("neg", K::CPU, neg_cpu, here).unwrap();
    let _skip = lib
        .impl_fallthrough_at("neg", K::AutogradCPU, here)
        .unwrap();
    let table = d
        .find("test::neg", "")
        .unwrap()
        .dispatch_table()
        .to_string();
    assert!(
        table.contains(&format!(
            "\n  CPU: kernel opgen_core::dispatch::tests::registry::neg_cpu registered at CPU ({here})"
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "\n  AutogradCPU: fallthrough registered at AutogradCPU ({here})"
        )),
        "{table}"
    );
    // The defaults every dispatcher has are listed together, on one line.
    assert!(
        table.contains("\n  default fallthrough: BackendSelect, ADInplaceOrView, "),
        "{table}"
    );
}

#[test]
fn dangling_impls_are_listed_until_their_def_comes() {
    let d = Dispatcher::new();
    let here = Location::caller();
    let _typo = d
        .impls("test")
        .impl_at("rleu", K::CPU, neg_cpu, here)
        .unwrap();
    let _early = d
        .impls("test")
        .impl_at("relu", K::CPU, neg_cpu, here)
        .unwrap();
    let names: Vec<String> = d.dangling_impls().iter().map(|op| op.to_string()).collect();
    assert_eq!(names, ["test::relu", "test::rleu"]);
    assert_eq!(
        d.dangling_impls()[1].dump_state(),
        format!(
            "name: test::rleu\nschema: (none)\nCPU: registered at {here} :: \
             opgen_core::dispatch::tests::registry::neg_cpu [ boxed unboxed ]\n"
        )
    );
    let _def = d
        .library("test")
        .unwrap()
        .def("relu(Tensor self) -> Tensor")
        .unwrap();
    let names: Vec<String> = d.dangling_impls().iter().map(|op| op.to_string()).collect();
    assert_eq!(names, ["test::rleu"]);
}

#[test]
fn overriding_a_kernel_warns_once_and_the_program_goes_on() {
    let (d, lib, def) = setup("neg(Tensor self) -> Tensor");
    let seen = warnings(&d);
    let (first, second) = (Location::caller(), Location::caller());
    let _cpu = lib.impl_at("neg", K::CPU, neg_cpu, first).unwrap();
    for _ in 0..3 {
        // The same override again and again: one warning.
        let again = lib.impl_at("neg", K::CPU, neg_meta, second).unwrap();
        let t = TestTensor::cpu(4);
        let neg = d
            .typed::<_, (&TestTensor,), TestTensor>("test::neg", "")
            .unwrap();
        assert_eq!(neg.call(&t), t, "the new kernel serves");
        drop(again);
        assert_eq!(neg.call(&t).value(), -4, "the previous one is back");
    }
    // The same site again (a loop registering its kernel) and fallthroughs do not warn; nor
    // do kernels at `Meta` (c10 overrides those on purpose).
    let _same = lib.impl_at("neg", K::CPU, neg_cpu, first).unwrap();
    let _skip = lib.impl_fallthrough("neg", K::CPU).unwrap();
    let _meta = lib.impl_("neg", K::Meta, neg_meta).unwrap();
    let _meta_again = lib.impl_("neg", K::Meta, neg_cpu).unwrap();
    let seen = seen.lock().unwrap();
    let [warning] = seen.as_slice() else {
        panic!("expected one warning: {seen:?}")
    };
    let def_site = def.site();
    assert_eq!(
        *warning,
        Warning::OverridingKernel {
            operator: "test::neg".into(),
            schema: Some("test::neg(Tensor self) -> Tensor".into()),
            def_site: Some(def_site),
            key: K::CPU,
            previous_site: first,
            previous_kernel: "opgen_core::dispatch::tests::registry::neg_cpu",
            new_site: second,
            new_kernel: "opgen_core::dispatch::tests::registry::neg_meta",
        }
    );
    assert!(warning.to_string().starts_with(
        "Overriding a previously registered kernel for the same operator and the same dispatch key\n"
    ));
}

#[test]
fn the_warning_hook_can_be_taken_back() {
    let (d, lib, _def) = setup("neg(Tensor self) -> Tensor");
    assert!(d.take_warning_hook().is_none());
    let seen = warnings(&d);
    let hook = d.take_warning_hook().expect("the hook set");
    let _cpu = lib.impl_("neg", K::CPU, neg_cpu).unwrap();
    let warning = Warning::OverridingKernel {
        operator: "x".into(),
        schema: None,
        def_site: None,
        key: K::CPU,
        previous_site: Location::caller(),
        previous_kernel: "a",
        new_site: Location::caller(),
        new_kernel: "b",
    };
    hook(&warning);
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert!(
        warning
            .to_string()
            .contains("  operator: x\n    no debug info\n")
    );
}

#[test]
fn a_hook_may_use_the_dispatcher() {
    let (d, lib, _def) = setup("neg(Tensor self) -> Tensor");
    let inner = d.clone();
    let found = Arc::new(Mutex::new(Vec::new()));
    let sink = found.clone();
    d.set_warning_hook(move |_| {
        let op = inner.find("test::neg", "").unwrap();
        sink.lock().unwrap().push(op.keys_with_kernels());
    });
    let _cpu = lib.impl_("neg", K::CPU, neg_cpu).unwrap();
    let _again = lib.impl_("neg", K::CPU, neg_meta).unwrap();
    assert_eq!(*found.lock().unwrap(), [vec![K::CPU]]);
    drop(d.take_warning_hook());
}

#[test]
fn lookups_in_the_global_dispatcher_touch_no_reference_count() {
    let global = Dispatcher::global();
    let lib = global.fragment("opgen_registry_test");
    lib.def("neg(Tensor self) -> Tensor").unwrap().forget();
    lib.impl_("neg", K::CPU, neg_cpu).unwrap().forget();
    let entry = global
        .inner
        .index_entry("opgen_registry_test::neg", "")
        .unwrap();
    let count = Arc::strong_count(&entry);
    // Threads that look the same operator up write to no shared counter: its handles,
    // and the typed handles made from them, are plain references.
    let handles: Vec<_> = (0..10)
        .map(|_| global.find("opgen_registry_test::neg", "").unwrap())
        .collect();
    let neg = handles[0]
        .typed::<TestTensor, (&TestTensor,), TestTensor>()
        .unwrap();
    assert_eq!(neg.call(&TestTensor::cpu(2)).value(), -2);
    assert_eq!(Arc::strong_count(&entry), count);
    // Another dispatcher's handles own their operator (it may be dropped).
    let (d, _lib, _def) = setup("neg(Tensor self) -> Tensor");
    let entry = d.inner.index_entry("test::neg", "").unwrap();
    let count = Arc::strong_count(&entry);
    let handle = d.find("test::neg", "").unwrap();
    assert_eq!(Arc::strong_count(&entry), count + 1);
    drop(handle);
    assert_eq!(Arc::strong_count(&entry), count);
}
