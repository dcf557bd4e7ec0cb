//! Every error message, exactly (PyTorch's words first where PyTorch has a message: see
//! also `messages.rs`).

use std::panic::Location;

use super::*;
use crate::dispatch::{DispatchKey as K, IValue, LibraryKind, Scalar, Stack};

#[test]
fn operator_not_found() {
    let (d, lib, _def) = setup("add.Tensor(Tensor self, Tensor other) -> Tensor");
    assert_eq!(
        message(d.find("test::add", "Tensr")),
        "Could not find schema for test::add.Tensr; `test::add` has the overloads `Tensor`"
    );
    assert_eq!(
        message(d.find("test::sub", "")),
        "Could not find schema for test::sub; no library has a `def` for `test::sub`"
    );
    // A kernel without `def`: c10's "but we found an implementation".
    let here = Location::caller();
    let _neg = lib
        .impl_at("neg", K::CPU, |t: &TestTensor| t.clone(), here)
        .unwrap();
    assert_eq!(
        message(d.find("test::neg", "")),
        format!(
            "Could not find schema for test::neg but we found an implementation; did you forget to \
             def() the operator? Kernels: `CPU` registered at {here}"
        )
    );
}

#[test]
fn missing_kernel() {
    let (d, lib, _def) = setup("add.Tensor(Tensor self, Tensor other) -> Tensor");
    let add = d
        .typed::<_, (&TestTensor, &TestTensor), TestTensor>("test::add", "Tensor")
        .unwrap();
    let meta = TestTensor::new(&[K::Meta], 0);
    assert_eq!(
        message(add.try_call(&meta, &meta)),
        "Could not run 'test::add.Tensor' with arguments from the 'Meta' backend. This could be because \
         the operator doesn't exist for this backend. 'test::add.Tensor' has no kernels"
    );
    let _cpu = lib
        .impl_("add.Tensor", K::CPU, |a: &TestTensor, _: &TestTensor| {
            a.clone()
        })
        .unwrap();
    let _cea = lib
        .impl_fallthrough("add.Tensor", K::CompositeExplicitAutograd)
        .unwrap();
    let nested = TestTensor::new(&[K::NestedTensorCPU], 0);
    let mut stack = Stack::from(vec![
        IValue::Tensor(nested),
        IValue::Tensor(TestTensor::cpu(0)),
    ]);
    assert_eq!(
        message(add.handle().call_boxed(&mut stack)),
        "Could not run 'test::add.Tensor' with arguments from the 'NestedTensorCPU' backend. This could be \
         because the operator doesn't exist for this backend. 'test::add.Tensor' is only available for \
         these keys: [CPU, CompositeExplicitAutograd]; register a kernel at `NestedTensorCPU`, or at a \
         composite key that covers it"
    );
    let none = TestTensor::new(&[], 0);
    assert_eq!(
        message(add.try_call(&none, &none)),
        "There were no tensor arguments to this function (e.g., you passed an empty list of Tensors), but \
         no fallback function is registered for schema test::add.Tensor.  This usually means that this \
         function requires a non-empty list of Tensors, or that you (the operator writer) forgot to \
         register a fallback function.  Available functions are [CPU, CompositeExplicitAutograd]; a call \
         without dispatch keys (or whose keys all fall through) is served by a \
         `CompositeExplicitAutograd` or `CompositeImplicitAutograd` kernel"
    );
}

#[test]
fn missing_kernel_at_a_functionality_key_does_not_call_it_a_backend() {
    let (d, lib, _def) = setup("neg(Tensor self) -> Tensor");
    let _cpu = lib
        .impl_("neg", K::CPU, |t: &TestTensor| t.clone())
        .unwrap();
    let neg = d
        .typed::<_, (&TestTensor,), TestTensor>("test::neg", "")
        .unwrap();
    // Functionality keys without a default fallback (the autograd keys, ADInplaceOrView and
    // Tracer have default fallthroughs).
    for key in [K::Functionalize, K::Conjugate, K::Python] {
        let t = TestTensor::new(&[K::CPU, key], 0);
        assert_eq!(
            message(neg.try_call(&t)),
            format!(
                "Could not run 'test::neg' with arguments from the '{key}' dispatch key, a functionality \
                 key that no kernel or fallback serves. 'test::neg' is only available for these keys: \
                 [CPU]; register a kernel at `{key}`, or a fallback for it (a fallthrough fallback skips \
                 the key)"
            )
        );
    }
}

#[test]
fn ambiguous_autograd_other() {
    let (d, lib, _def) = setup("op(Tensor self) -> Tensor");
    let _cia = lib
        .impl_("op", K::CompositeImplicitAutograd, |t: &TestTensor| {
            t.clone()
        })
        .unwrap();
    let _sparse = lib
        .impl_("op", K::SparseCPU, |t: &TestTensor| t.clone())
        .unwrap();
    let _quantized = lib
        .impl_("op", K::QuantizedCPU, |t: &TestTensor| t.clone())
        .unwrap();
    let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::new(
        &[K::SparseCPU, K::AutogradOther],
        0,
    ))]);
    assert_eq!(
        message(d.find("test::op", "").unwrap().call_boxed(&mut stack)),
        "test::op has kernels registered to both CompositeImplicitAutograd and a backend mapped to \
         AutogradOther. Which one serves `AutogradOther` is ambiguous (backends with kernels: \
         QuantizedCPU, SparseCPU); register a kernel at `AutogradOther` (or `Autograd`) for it"
    );
}

#[test]
fn invalid_schema() {
    let d = Dispatcher::new();
    let lib = d.library("test").unwrap();
    let here = Location::caller();
    assert_eq!(
        message(lib.def_at("relu(Tensr self) -> Tensor", here)),
        format!(
            "invalid schema in `def` at {here}\nerror[R16]: unknown type `Tensr`\n  relu(Tensr self) -> Tensor\n       \
             ^^^^^\nhelp: did you mean `Tensor`?\n\
             for more information about this error, run `opgen explain R16`"
        )
    );
}

#[test]
fn duplicate_def_shows_both_schemas_with_the_difference_and_both_sites() {
    let (d, _lib, first) = setup("add.Tensor(Tensor self, Tensor other) -> Tensor");
    let here = Location::caller();
    let lib = d.fragment("test");
    let err = message(lib.def_at(
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        here,
    ));
    let first_site = first.site();
    assert_eq!(
        err,
        format!(
            "Tried to register an operator (test::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) \
             -> Tensor) with the same name and overload name multiple times. Each overload's schema should \
             only be registered with a single call to def(). Duplicate registration: registered at {here}. \
             Original registration: registered at {first_site}. Remove one `def`, or give one another \
             overload name
  first:  test::add.Tensor(Tensor self, Tensor other) -> Tensor
                                                    ^ differs
          at {first_site}
  second: test::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
                                                    ^^^^^^^^^^^^^^^^^^^ differs
          at {here}"
        )
    );
    let same = message(lib.def_at("add.Tensor(Tensor self, Tensor other) -> Tensor", here));
    assert!(
        same.ends_with(&format!("at {here}\n  (the schemas are identical)")),
        "{same}"
    );
}

#[test]
fn invalid_names() {
    let d = Dispatcher::new();
    let lib = d.library("test").unwrap();
    let here = Location::caller();
    assert_eq!(
        message(lib.def_at("other::op(Tensor self) -> Tensor", here)),
        format!(
            "Explicitly provided namespace (other) in schema string does not match namespace of enclosing \
             library (test). The def of `other::op(Tensor self) -> Tensor` at {here} belongs to `other`; \
             register it from a library for `other`"
        )
    );
    // The schema rule R91, which the macros and `opgen check` apply too.
    let reserved = message(lib.def_at("op.default(Tensor self) -> Tensor", here));
    assert!(
        reserved.starts_with(&format!(
            "invalid schema in `def` at {here}\nerror[R91]: overload name `default` is reserved"
        )),
        "{reserved}"
    );
    let kernel = |t: &TestTensor| t.clone();
    assert_eq!(
        message(lib.impl_at("other::op", K::CPU, kernel, here)),
        format!(
            "Explicitly provided namespace (other) in operator name does not match namespace of enclosing \
             library (test). The kernel of `other::op` at {here} belongs to `other`; register it from a \
             library for `other`"
        )
    );
    assert_eq!(
        message(lib.impl_at("op.", K::CPU, kernel, here)),
        format!(
            "invalid operator name `op.` at {here}: expected `op` or `op.overload`, with letters, digits and `_`"
        )
    );
}

#[test]
fn namespace_ownership() {
    let d = Dispatcher::new();
    let here = Location::caller();
    let first = d.library_at("test", LibraryKind::Def, here).unwrap();
    assert_eq!(
        message(d.library_at("test", LibraryKind::Def, here)),
        format!(
            "Only a single TORCH_LIBRARY can be used to register the namespace test (in opgen, a library made \
             with `Dispatcher::library`). Previous registration of TORCH_LIBRARY was registered at {here}; \
             latest registration was registered at {here}. Use `Dispatcher::fragment` to add definitions to \
             the namespace from elsewhere, or `Dispatcher::impls` to add kernels"
        )
    );
    drop(first);
    assert!(
        d.library("test").is_ok(),
        "dropping the owner frees the namespace"
    );
    assert_eq!(
        message(d.impls("test").def_at("op(Tensor self) -> Tensor", here)),
        format!(
            "Cannot define an operator inside of a TORCH_LIBRARY_IMPL block. All def()s should be placed in the \
             (unique) TORCH_LIBRARY block for their namespace. The `def` at {here} is in a library for `test` \
             made with `Dispatcher::impls`, which adds kernels only; use `Dispatcher::library` or \
             `Dispatcher::fragment` to define operators"
        )
    );
}

#[test]
fn kernel_signature_mismatch_names_the_expected_signature() {
    let (_d, lib, def) =
        setup("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    let here = Location::caller();
    let def_site = def.site();
    let head = format!(
        "Inferred operator schema for a Rust kernel function doesn't match the expected function schema.
  operator: test::add.Tensor
  expected schema: test::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    registered at {def_site}
  expected signature: fn(&TestTensor, &TestTensor, Scalar) -> TestTensor"
    );
    let cases: [(Result<Registration, Error>, &str, &str); 4] = [
        (
            lib.impl_at(
                "add.Tensor",
                K::CPU,
                |a: &TestTensor, _: i64, _: Scalar| a.clone(),
                here,
            ),
            "fn(&TestTensor, i64, Scalar) -> TestTensor",
            "parameter 2 (`other`) is `i64`, expected `&TestTensor`",
        ),
        (
            lib.impl_at(
                "add.Tensor",
                K::CPU,
                |a: &TestTensor, _: &TestTensor| a.clone(),
                here,
            ),
            "fn(&TestTensor, &TestTensor) -> TestTensor",
            "the kernel has 2 parameters but the schema has 3 arguments; add one for `alpha`",
        ),
        (
            lib.impl_at(
                "add.Tensor",
                K::CPU,
                |_: &TestTensor, _: &TestTensor, _: Scalar, _: bool| 1i64,
                here,
            ),
            "fn(&TestTensor, &TestTensor, Scalar, bool) -> i64",
            "the kernel has 4 parameters but the schema has 3 arguments; remove the last 1",
        ),
        (
            lib.impl_at(
                "add.Tensor",
                K::CPU,
                |_: DispatchKeySet, _: &TestTensor, _: &TestTensor, _: Scalar| 1i64,
                here,
            ),
            "fn(DispatchKeySet, &TestTensor, &TestTensor, Scalar) -> i64",
            "it returns `i64`, expected `TestTensor`",
        ),
    ];
    for (result, found, detail) in cases {
        let head = if found.contains("DispatchKeySet") {
            head.replace("signature: fn(", "signature: fn(DispatchKeySet, ")
        } else {
            head.clone()
        };
        assert_eq!(
            message(result),
            format!(
                "{head}\n  kernel signature: {found}\n    dispatch key: CPU\n    registered at {here}\n  \
                 reason: {detail}"
            )
        );
    }
}

#[test]
fn a_dangling_kernel_that_does_not_fit_rejects_the_def() {
    let d = Dispatcher::new();
    let here = Location::caller();
    let _cpu = d
        .impls("test")
        .impl_at("neg", K::CPU, |t: &mut TestTensor| t.clone(), here)
        .unwrap();
    let lib = d.library("test").unwrap();
    let def_site = Location::caller();
    assert_eq!(
        message(lib.def_at("neg(Tensor self) -> Tensor", def_site)),
        format!(
            "Inferred operator schema for a Rust kernel function doesn't match the expected function schema.
  operator: test::neg
  expected schema: test::neg(Tensor self) -> Tensor
    registered at {def_site}
  expected signature: fn(&TestTensor) -> TestTensor
  kernel signature: fn(&mut TestTensor) -> TestTensor
    dispatch key: CPU
    registered at {here}
  reason: parameter 1 (`self`) is `&mut TestTensor`, expected `&TestTensor`"
        )
    );
    assert!(
        d.find("test::neg", "").is_err(),
        "the failed def left no trace"
    );
}

#[test]
fn duplicate_fallback() {
    let d = Dispatcher::new();
    let lib = d.impls("_");
    let (a, b) = (Location::caller(), Location::caller());
    let _first = lib.fallback_fallthrough_at(K::AutogradCPU, a).unwrap();
    assert_eq!(
        message(lib.fallback_fallthrough_at(K::Autograd, b)),
        format!(
            "Tried to register multiple backend fallbacks for the same dispatch key AutogradCPU; previous \
             registration registered at {a}, new registration registered at {b}. Drop the first registration \
             before adding another"
        )
    );
    assert_eq!(
        d.fallbacks(),
        Dispatcher::new()
            .fallbacks()
            .into_iter()
            .map(|(k, site, ft)| match k {
                K::AutogradCPU => (k, a, true),
                _ => (k, site, ft),
            })
            .collect::<Vec<_>>(),
        "the failed registration left no trace (the defaults, with the first at AutogradCPU)"
    );
}

#[test]
fn typed_handle_mismatch() {
    let (d, _lib, _def) =
        setup("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    assert_eq!(
        message(d.typed::<_, (&TestTensor, &TestTensor, f64), TestTensor>("test::add", "Tensor")),
        "Tried to access or call an operator with a wrong signature.
  operator: test::add.Tensor
  correct signature:  fn(&TestTensor, &TestTensor, Scalar) -> TestTensor
  accessed/called as: fn(&TestTensor, &TestTensor, f64) -> TestTensor
  reason: parameter 3 (`alpha`) is `f64`, expected `Scalar`
This likely happened in a call to `OperatorHandle::typed` or `Dispatcher::typed`; make its type \
         parameters the Rust types of the schema"
    );
    // A signature checked once is remembered; another is still checked.
    assert!(
        d.typed::<_, (&TestTensor, &TestTensor, Scalar), TestTensor>("test::add", "Tensor")
            .is_ok()
    );
    assert!(
        d.typed::<_, (&TestTensor, &TestTensor, Scalar), TestTensor>("test::add", "Tensor")
            .is_ok()
    );
    assert!(
        d.typed::<_, (&TestTensor, &TestTensor, f64), TestTensor>("test::add", "Tensor")
            .is_err()
    );
}

#[test]
fn wrong_stacks() {
    let (d, lib, _def) =
        setup("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    let _cpu = lib
        .impl_(
            "add.Tensor",
            K::CPU,
            |a: &TestTensor, _: &TestTensor, _: Scalar| a.clone(),
        )
        .unwrap();
    let op = d.find("test::add", "Tensor").unwrap();
    let t = TestTensor::cpu(0);
    let mut stack = Stack::from(vec![IValue::Tensor(t.clone())]);
    assert_eq!(
        message(op.call_boxed(&mut stack)),
        "the stack holds 1 value but `test::add.Tensor` takes 3 arguments; push every argument \
         (`OperatorHandle::fill_defaults` pushes the defaults)"
    );
    let mut stack = Stack::from(vec![
        IValue::Tensor(t.clone()),
        IValue::Int(1),
        IValue::Int(1),
    ]);
    assert_eq!(
        message(op.call_boxed(&mut stack)),
        "argument 2 (`other`) of `test::add.Tensor` should be `Tensor` but the stack holds `int`"
    );
    let mut stack = Stack::from(vec![IValue::Tensor(OtherTensor(K::CPU.into())); 2]);
    stack.push(IValue::from(Scalar::Int(1)));
    let err = message(op.call_boxed(&mut stack));
    assert!(
        err.starts_with("`test::add.Tensor` was called with tensors of type `"),
        "{err}"
    );
    assert!(
        err.contains("OtherTensor` but its kernel takes `")
            && err.contains("TestTensor`; register a kernel for")
    );
}

#[test]
fn wrong_returns_from_a_boxed_kernel() {
    let (d, lib, _def) = setup("relu(Tensor self) -> Tensor");
    let _cpu = lib.impl_(
        "relu",
        K::CPU,
        crate::dispatch::boxed(|_, _, s: &mut Stack<TestTensor>| {
            s.push(IValue::Int(1));
            Ok(())
        }),
    );
    let relu = d
        .typed::<_, (&TestTensor,), TestTensor>("test::relu", "")
        .unwrap();
    assert_eq!(
        message(relu.try_call(&TestTensor::cpu(0))),
        "a kernel of `test::relu` left `int` on the stack but the schema returns `Tensor`"
    );
}

#[test]
fn defaults() {
    let (d, _lib, _def) = setup("f(Tensor self, int n, int reduction=Foo) -> Tensor");
    let op = d.find("test::f", "").unwrap();
    let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::cpu(0))]);
    assert_eq!(
        message(op.fill_defaults(&mut stack)),
        "argument `n` of `test::f` is missing from the stack and has no default; push it"
    );
    stack.push(IValue::Int(1));
    assert_eq!(
        message(op.fill_defaults(&mut stack)),
        "default `Foo` of argument `reduction` of `test::f` has no value; push the argument"
    );
}

/// A scalar default of a huge fixed-size list (`int[4294967295] x=0`, a schema anyone may
/// write) is refused when a call needs it, without building the list: the same bound as
/// the Rust API's (`plan::MAX_REPEATED_DEFAULT`).
#[test]
fn a_default_repeated_into_a_huge_list_is_refused_without_allocating() {
    let (d, _lib, _def) = setup("f(Tensor self, int[4294967295] x=0, int[3] y=1) -> Tensor");
    let op = d.find("test::f", "").unwrap();
    let mut stack = Stack::from(vec![IValue::Tensor(TestTensor::cpu(0))]);
    let started = std::time::Instant::now();
    assert_eq!(
        message(op.fill_defaults(&mut stack)),
        "default `0` of argument `x` of `test::f` has no value; push the argument"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    stack.push(IValue::from(vec![7i64]));
    op.fill_defaults(&mut stack).unwrap();
    assert_eq!(stack[2], IValue::from(vec![1i64, 1, 1]));
}
