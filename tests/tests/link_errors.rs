//! Link-time registrations that cannot take effect are never silent: the first
//! `Dispatcher::global()` panics listing every one (as PyTorch aborts at static
//! initialisation), and keeps panicking until `Dispatcher::try_global()` hands them to the
//! program. A test binary of its own, since the failures belong to the whole program.

use std::panic::{AssertUnwindSafe, catch_unwind};

use opgen::dispatch::{ErrorKind, Warning};
use opgen::prelude::*;
use opgen_tests::TestTensor;

/// A typo: `rleu` for `relu`, which nothing defines.
#[opgen::native_function(op = "aten::rleu", dispatch = "CPU")]
fn rleu_cpu(self_: &TestTensor) -> TestTensor {
    self_.clone()
}

/// A kernel whose signature does not fit `aten::neg`'s schema, `neg(Tensor self) -> Tensor`.
#[opgen::native_function(op = "aten::neg", dispatch = "PrivateUse3")]
fn neg_times(self_: &TestTensor, _times: i64) -> TestTensor {
    self_.clone()
}

/// A second schema for `aten::dup_probe`, which `opgen_tests::ops` defines: a duplicate
/// `def` (and this kernel does not fit the first one).
#[opgen::native_function("dup_probe(Tensor self, int n) -> Tensor", dispatch = "Meta")]
fn dup_probe_meta(self_: &TestTensor, _n: i64) -> TestTensor {
    self_.clone()
}

/// A second CPU kernel of `aten::identity`: it overrides `opgen_tests::ops`'s, with a warning.
#[opgen::native_function(op = "aten::identity", dispatch = "CPU")]
fn identity_again(self_: &TestTensor) -> TestTensor {
    self_.like(self_.shape(), Some(vec![7.0; self_.data().len()]))
}

/// The message of a panic.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    (payload.downcast_ref::<String>().cloned())
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

// One test, in steps: whether the failures are handled is the process's state.
#[test]
fn failed_registrations_stop_the_program_until_it_handles_them() {
    // 1. `global()` panics, listing every failure.
    let text = panic_message(catch_unwind(Dispatcher::global).unwrap_err());
    assert!(
        text.starts_with(
            "4 link-time registrations of the global dispatcher failed (`Dispatcher::try_global` \
             returns them instead of panicking):\n  1. "
        ),
        "{text}"
    );
    for words in [
        "Tried to register an operator (aten::dup_probe(Tensor self, int n) -> Tensor) with the \
         same name and overload name multiple times.",
        "Inferred operator schema for a Rust kernel function doesn't match the expected function \
         schema.\n       operator: aten::dup_probe\n",
        "Inferred operator schema for a Rust kernel function doesn't match the expected function \
         schema.\n       operator: aten::neg\n",
        "  kernel signature: fn(&TestTensor, i64) -> TestTensor\n         dispatch key: \
         PrivateUse3\n         registered at tests/tests/link_errors.rs:",
        "Could not find schema for aten::rleu but we found an implementation; did you forget to \
         def() the operator? Kernels: `CPU` registered at tests/tests/link_errors.rs:",
        "did you mean `aten::relu`?",
    ] {
        assert!(text.contains(words), "{words}\n  not in\n{text}");
    }
    // So do the generated functions, on their first call, and `global()` again.
    let t = TestTensor::cpu(&[1.0]);
    let call = catch_unwind(AssertUnwindSafe(|| opgen_tests::ops::neg(&t))).unwrap_err();
    assert_eq!(panic_message(call), text);
    assert!(catch_unwind(Dispatcher::global).is_err());

    // 2. `try_global()` hands them over; from then on the program runs without them.
    let errors = Dispatcher::try_global().unwrap_err();
    assert_eq!(errors.to_string(), text);
    let kinds: Vec<&ErrorKind> = errors.errors().iter().map(Error::kind).collect();
    assert!(matches!(
        kinds.as_slice(),
        [
            ErrorKind::DuplicateDef { .. },
            ErrorKind::KernelSignature { .. },
            ErrorKind::KernelSignature { .. },
            ErrorKind::OperatorNotFound { .. },
        ]
    ));
    let global = Dispatcher::global();
    assert!(std::ptr::eq(global, errors.dispatcher()));
    assert_eq!(Dispatcher::global_errors().len(), 4);
    assert_eq!(opgen_tests::ops::neg(&t).data(), [-1.0]);
    // The first `def` serves; this file's `dup_probe` asks for the signature of its schema.
    assert!(opgen_tests::ops::dup_probe(&t).same(&t));
    assert!(matches!(
        try_dup_probe(&t, 1).unwrap_err().kind(),
        ErrorKind::TypedSignature { .. }
    ));
    // The misspelt operator stays a dangling impl, and looking it up says why.
    let dangling: Vec<String> = global
        .dangling_impls()
        .iter()
        .map(|op| op.to_string())
        .collect();
    assert_eq!(dangling, ["aten::rleu"]);
    let lookup = global.find("aten::rleu", "").unwrap_err().to_string();
    assert!(
        lookup.contains(
            "\n  its link-time registration failed: Could not find schema for aten::rleu"
        ),
        "{lookup}"
    );

    // 3. The override took effect, with a warning (also printed to standard error).
    assert_eq!(opgen_tests::ops::identity(&t).data(), [7.0]);
    let [warning] = Dispatcher::global_warnings() else {
        panic!("expected one warning: {:?}", Dispatcher::global_warnings())
    };
    let Warning::OverridingKernel {
        operator,
        previous_kernel,
        new_kernel,
        ..
    } = warning
    else {
        panic!("{warning}")
    };
    assert_eq!(operator, "aten::identity");
    assert_eq!(*previous_kernel, "opgen_tests::ops::identity_cpu");
    assert_eq!(*new_kernel, "link_errors::identity_again");
    assert!(warning.to_string().starts_with(
        "Overriding a previously registered kernel for the same operator and the same dispatch key\n  \
         operator: aten::identity(Tensor self) -> Tensor\n    registered at tests/src/ops.rs:"
    ));
}
