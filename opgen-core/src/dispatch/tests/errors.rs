//! Every error message, exactly.

use std::panic::Location;

use super::*;
use crate::dispatch::{DispatchKey as K, IValue, LibraryKind, Scalar, Stack};

#[test]
fn operator_not_found() {
    let (d, _lib, _def) = setup("add.Tensor(Tensor self, Tensor other) -> Tensor");
    assert_eq!(
        message(d.find("test::add", "Tensr")),
        "operator `test::add.Tensr` not found; `test::add` has the overloads `Tensor`"
    );
    assert_eq!(
        message(d.find("test::sub", "")),
        "operator `test::sub` not found; no library has a `def` for `test::sub`"
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
        "could not run `test::add.Tensor` with arguments from the `Meta` backend; the operator has no kernels"
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
        "could not run `test::add.Tensor` with arguments from the `NestedTensorCPU` backend; the operator has kernels for: \
         CPU, CompositeExplicitAutograd"
    );
    let none = TestTensor::new(&[], 0);
    assert_eq!(
        message(add.try_call(&none, &none)),
        "could not run `test::add.Tensor` with arguments from the `Undefined` backend; the operator has kernels \
         for: CPU, CompositeExplicitAutograd"
    );
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
        "`test::op` has kernels for both `CompositeImplicitAutograd` and a backend mapped to `AutogradOther` \
         (QuantizedCPU, SparseCPU), so which one serves `AutogradOther` is ambiguous; register a kernel at \
         `AutogradOther` (or `Autograd`) for it"
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
            "operator `test::add.Tensor` is defined twice, with the same name and overload name; remove one `def` \
             or give it another overload name
  first:  add.Tensor(Tensor self, Tensor other) -> Tensor
                                              ^ differs
          at {first_site}
  second: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
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
            "invalid operator name `other::op(Tensor self) -> Tensor` at {here}: namespace `other` differs from the \
             library's `test`; register it from a library for `other`"
        )
    );
    assert_eq!(
        message(lib.def_at("op.default(Tensor self) -> Tensor", here)),
        format!(
            "invalid operator name `op.default(Tensor self) -> Tensor` at {here}: overload name `default` is \
             reserved; choose another"
        )
    );
    let kernel = |t: &TestTensor| t.clone();
    assert_eq!(
        message(lib.impl_at("other::op", K::CPU, kernel, here)),
        format!(
            "invalid operator name `other::op` at {here}: namespace `other` differs from the library's `test`; use \
             a library for `other`"
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
            "namespace `test` already has a library, created at {here}; only one library may own a namespace's \
             `def`s, so the one at {here} is rejected; use `Dispatcher::fragment` to add to it"
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
            "`def` at {here} in an impl-only library for `test`; use `Dispatcher::library` or \
             `Dispatcher::fragment` to define operators"
        )
    );
}

#[test]
fn kernel_signature_mismatch_names_the_expected_signature() {
    let (_d, lib, _def) =
        setup("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
    let here = Location::caller();
    let schema = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
    let head = format!("kernel for `test::add.Tensor` at `CPU` ({here}) takes");
    let needs = "but the schema needs `fn(&TestTensor, &TestTensor, Scalar) -> TestTensor`";
    let cases: [(Result<Registration, Error>, &str, &str); 4] = [
        (
            lib.impl_at(
                "add.Tensor",
                K::CPU,
                |a: &TestTensor, _: i64, _: Scalar| a.clone(),
                here,
            ),
            "`fn(&TestTensor, i64, Scalar) -> TestTensor`",
            "parameter 2 (`other`) is `i64`, expected `&TestTensor`",
        ),
        (
            lib.impl_at(
                "add.Tensor",
                K::CPU,
                |a: &TestTensor, _: &TestTensor| a.clone(),
                here,
            ),
            "`fn(&TestTensor, &TestTensor) -> TestTensor`",
            "the kernel has 2 parameters but the schema has 3 arguments; add one for `alpha`",
        ),
        (
            lib.impl_at(
                "add.Tensor",
                K::CPU,
                |_: &TestTensor, _: &TestTensor, _: Scalar, _: bool| 1i64,
                here,
            ),
            "`fn(&TestTensor, &TestTensor, Scalar, bool) -> i64`",
            "the kernel has 4 parameters but the schema has 3 arguments; remove the last 1",
        ),
        (
            lib.impl_at(
                "add.Tensor",
                K::CPU,
                |_: DispatchKeySet, _: &TestTensor, _: &TestTensor, _: Scalar| 1i64,
                here,
            ),
            "`fn(DispatchKeySet, &TestTensor, &TestTensor, Scalar) -> i64`",
            "it returns `i64`, expected `TestTensor`",
        ),
    ];
    for (result, found, detail) in cases {
        let needs = if found.contains("DispatchKeySet") {
            needs.replace("fn(", "fn(DispatchKeySet, ")
        } else {
            needs.into()
        };
        assert_eq!(
            message(result),
            format!("{head} {found} {needs}; {detail}\n  schema: {schema}")
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
    assert_eq!(
        message(lib.def("neg(Tensor self) -> Tensor")),
        format!(
            "kernel for `test::neg` at `CPU` ({here}) takes `fn(&mut TestTensor) -> TestTensor` but the schema needs \
             `fn(&TestTensor) -> TestTensor`; parameter 1 (`self`) is `&mut TestTensor`, expected `&TestTensor`\n  \
             schema: neg(Tensor self) -> Tensor"
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
            "a fallback for `AutogradCPU` is already registered at {a}; the one at {b} is rejected; drop the first \
             registration before adding another"
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
        "`test::add.Tensor` cannot be called as `fn(&TestTensor, &TestTensor, f64) -> TestTensor`: its schema needs \
         `fn(&TestTensor, &TestTensor, Scalar) -> TestTensor`; parameter 3 (`alpha`) is `f64`, expected `Scalar`"
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
