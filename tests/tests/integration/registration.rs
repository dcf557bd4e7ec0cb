//! Link-time registration: failures are kept in `Dispatcher::global_errors`.

use opgen::dispatch::ErrorKind;

use super::*;

/// A second, different schema for `aten::dup_probe`, which `opgen_tests::ops` defines: a
/// duplicate `def`, reported when the global dispatcher registers the linked entries.
#[opgen::native_function("dup_probe(Tensor self, int n) -> Tensor", dispatch = "Meta")]
fn dup_probe_meta(self_: &TestTensor, _n: i64) -> TestTensor {
    self_.clone()
}

#[test]
fn a_conflicting_def_is_a_global_error_with_both_schemas() {
    let errors = Dispatcher::global_errors();
    let dup = errors
        .iter()
        .find(|e| matches!(e.kind(), ErrorKind::DuplicateDef { operator, .. } if operator == "aten::dup_probe"))
        .unwrap_or_else(|| panic!("no duplicate def in {errors:#?}"));
    let text = dup.to_string();
    assert!(text.contains("dup_probe(Tensor self) -> Tensor"), "{text}");
    assert!(
        text.contains("dup_probe(Tensor self, int n) -> Tensor"),
        "{text}"
    );
    assert!(
        text.contains("tests/src/ops.rs") && text.contains("registration.rs"),
        "{text}"
    );
    // The first definition serves; this module's kernel did not fit it.
    assert!(errors.iter().any(|e| matches!(e.kind(), ErrorKind::KernelSignature { operator, .. } if operator == "aten::dup_probe")));
    let t = cpu(&[1.0]);
    assert!(opgen_tests::ops::dup_probe(&t).same(&t));
    // This module's generated function asks for the signature of its own schema.
    assert!(matches!(
        try_dup_probe(&t, 1).unwrap_err().kind(),
        ErrorKind::TypedSignature { .. }
    ));
}

#[test]
fn only_the_expected_registrations_fail() {
    let unexpected: Vec<String> = Dispatcher::global_errors()
        .iter()
        .map(Error::to_string)
        .filter(|e| !e.contains("aten::dup_probe"))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
}

#[test]
fn first_calls_from_many_threads_see_every_registration() {
    let threads: Vec<_> = (0..8)
        .map(|i| std::thread::spawn(move || opgen_tests::ops::try_neg(&cpu(&[f64::from(i)]))))
        .collect();
    for (i, thread) in (0..8).zip(threads) {
        let out = thread.join().expect("no panic").expect("registered");
        assert_eq!(out.data(), [-f64::from(i)]);
    }
    assert!(Dispatcher::global().find("vision::nms", "").is_ok());
}
