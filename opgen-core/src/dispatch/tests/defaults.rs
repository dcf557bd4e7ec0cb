//! What a fresh dispatcher does before any kernel of a layer exists (its default
//! fallthroughs), and the `Undefined` entry of calls without functionality keys.

use std::sync::{Arc, Mutex};

use super::*;
use crate::dispatch::{DispatchKey as K, IValue, OperatorHandle, ServedBy, Stack, boxed};

/// The keys of c10's default fallthrough fallbacks, as opgen has them.
fn default_fallthrough_keys() -> Vec<DispatchKey> {
    let autograd = DispatchKey::ALL.iter().copied().filter(|k| k.is_autograd());
    let autocast = [
        K::AutocastCPU,
        K::AutocastMTIA,
        K::AutocastMAIA,
        K::AutocastXPU,
        K::AutocastIPU,
        K::AutocastHPU,
        K::AutocastXLA,
        K::AutocastMPS,
        K::AutocastCUDA,
        K::AutocastPrivateUse1,
    ];
    let mut keys: Vec<_> = [K::BackendSelect, K::ADInplaceOrView, K::Tracer]
        .into_iter()
        .chain(autograd)
        .chain(autocast)
        .collect();
    keys.sort();
    keys
}

#[test]
fn a_fresh_dispatcher_has_c10s_default_fallthroughs() {
    let d = Dispatcher::new();
    let fallbacks = d.fallbacks();
    assert!(fallbacks.iter().all(|(_, _, fallthrough)| *fallthrough));
    let keys: Vec<_> = fallbacks.iter().map(|(k, _, _)| *k).collect();
    assert_eq!(keys, default_fallthrough_keys());
    assert_eq!(keys.len(), 3 + 18 + 10);
    assert!(!keys.contains(&K::Functionalize) && !keys.contains(&K::Conjugate));
}

#[test]
fn a_tensor_may_carry_the_default_keys_before_any_kernel_for_them_exists() {
    let (d, lib, _def) = setup("neg(Tensor self) -> Tensor");
    let _cpu = lib
        .impl_("neg", K::CPU, |t: &TestTensor| TestTensor::cpu(-t.value()))
        .unwrap();
    let _meta = lib
        .impl_("neg", K::Meta, |_: &TestTensor| TestTensor::cpu(99))
        .unwrap();
    let neg = d
        .typed::<_, (&TestTensor,), TestTensor>("test::neg", "")
        .unwrap();
    for backend in [K::CPU, K::Meta] {
        let keys = [
            backend,
            backend.autograd_key().unwrap(),
            K::ADInplaceOrView,
            K::Tracer,
            K::AutocastCPU,
            K::AutogradOther,
            K::AutogradNestedTensor,
        ];
        let t = TestTensor::new(&keys, 3);
        let expected = if backend == K::CPU { -3 } else { 99 };
        assert_eq!(neg.call(&t).value(), expected, "{backend}");
        let mut stack = Stack::from(vec![IValue::Tensor(t)]);
        neg.handle().call_boxed(&mut stack).unwrap();
        assert_eq!(
            stack.pop().and_then(IValue::into_tensor).map(|t| t.value()),
            Some(expected)
        );
    }
    // The dump marks them as defaults.
    let dump = d.find("test::neg", "").unwrap().dispatch_table();
    for key in default_fallthrough_keys() {
        assert!(dump.get(key).is_default(), "{key}");
    }
    assert!(!dump.get(K::CPU).is_default());
    let defaults: Vec<_> = default_fallthrough_keys()
        .iter()
        .map(|k| k.name())
        .collect();
    // The kernels' Rust paths (closures of this test).
    const CLOSURE: &str = "opgen_core::dispatch::tests::defaults::\
        a_tensor_may_carry_the_default_keys_before_any_kernel_for_them_exists::{{closure}}";
    assert_eq!(
        dump.to_string(),
        format!(
            "test::neg\n  CPU: kernel {CLOSURE} registered at CPU ({})\n  \
             Meta: kernel {CLOSURE} registered at Meta ({})\n  default fallthrough: {}",
            dump.get(K::CPU).site().unwrap(),
            dump.get(K::Meta).site().unwrap(),
            defaults.join(", ")
        )
    );
}

#[test]
fn a_fallback_replaces_the_default_while_it_lives() {
    let (d, lib, _def) = setup("neg(Tensor self) -> Tensor");
    let _cpu = lib
        .impl_("neg", K::CPU, |t: &TestTensor| t.clone())
        .unwrap();
    let neg = d
        .typed::<_, (&TestTensor,), TestTensor>("test::neg", "")
        .unwrap();
    let t = TestTensor::new(&[K::CPU, K::AutogradCPU, K::ADInplaceOrView, K::Tracer], 5);
    let defaults = d.fallbacks();
    for key in [K::Tracer, K::ADInplaceOrView, K::AutogradCPU] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let mine = d
            .impls("_")
            .fallback(
                key,
                move |op: &OperatorHandle, ks: DispatchKeySet, stack: &mut Stack<TestTensor>| {
                    log.lock().unwrap().push(ks.highest());
                    op.redispatch_boxed(ks.below(key), stack)
                },
            )
            .unwrap();
        // The default is not a first fallback: registering one is no duplicate, and the
        // dump shows the new one.
        let dump = d.find("test::neg", "").unwrap().dispatch_table();
        assert!(matches!(
            dump.get(key),
            ServedBy::Fallback {
                fallthrough: false,
                ..
            }
        ));
        assert!(!dump.get(key).is_default());
        assert_eq!(neg.call(&t), t);
        assert_eq!(*seen.lock().unwrap(), [Some(key)], "{key}");
        // A second one is a duplicate of the first user fallback, not of the default.
        let err = message(d.impls("_").fallback_fallthrough(key));
        assert!(
            err.starts_with(&format!(
                "Tried to register multiple backend fallbacks for the same dispatch key {key}; \
                 previous registration registered at"
            )),
            "{err}"
        );
        drop(mine);
        assert_eq!(d.fallbacks(), defaults, "{key}: the default is back");
        seen.lock().unwrap().clear();
        assert_eq!(neg.call(&t), t);
        assert!(seen.lock().unwrap().is_empty());
    }
    // A kernel of the operator at the key serves it instead, for this operator only.
    let calls = Arc::new(Mutex::new(0));
    let count = calls.clone();
    let inner = neg.clone();
    let _autograd = lib
        .impl_(
            "neg",
            K::AutogradCPU,
            move |ks: DispatchKeySet, t: &TestTensor| {
                *count.lock().unwrap() += 1;
                inner.try_redispatch(ks.below(K::AutogradCPU), t)
            },
        )
        .unwrap();
    assert_eq!(neg.call(&t), t);
    assert_eq!(*calls.lock().unwrap(), 1);
}

#[test]
fn an_operator_without_tensor_arguments_runs_its_composite_kernel_through_undefined() {
    let (d, lib, _def) = setup("no_tensor_args.int(int arg) -> int");
    let op = d
        .typed::<TestTensor, (i64,), i64>("test::no_tensor_args", "int")
        .unwrap();
    let boxed_call = |arg: i64| {
        let mut stack: Stack<TestTensor> = Stack::from(vec![IValue::Int(arg)]);
        op.handle()
            .call_boxed(&mut stack)
            .map(|()| stack.into_vec())
    };
    // Nothing serves Undefined yet, and a backend kernel does not.
    let _cpu = lib
        .impl_::<TestTensor, _>("no_tensor_args.int", K::CPU, |x: i64| x + 1)
        .unwrap();
    let err = message(op.try_call(1));
    assert!(
        err.starts_with("There were no tensor arguments to this function"),
        "{err}"
    );
    assert!(boxed_call(1).is_err());
    // A catch-all (CIA) kernel does.
    let _cia = lib
        .impl_::<TestTensor, _>(
            "no_tensor_args.int",
            K::CompositeImplicitAutograd,
            |x: i64| x * 10,
        )
        .unwrap();
    assert_eq!(op.call(4), 40);
    assert_eq!(boxed_call(4).unwrap(), [IValue::Int(40)]);
    let dump = d
        .find("test::no_tensor_args", "int")
        .unwrap()
        .dispatch_table();
    assert!(matches!(
        dump.undefined,
        ServedBy::Kernel {
            key: K::CompositeImplicitAutograd,
            ..
        }
    ));
    assert!(
        dump.to_string().starts_with(
            "test::no_tensor_args.int\n  Undefined: kernel opgen_core::dispatch::tests::defaults::\
             an_operator_without_tensor_arguments_runs_its_composite_kernel_through_undefined::\
             {{closure}} registered at CompositeImplicitAutograd"
        ),
        "{dump}"
    );
    // CEA before CIA, CEANF before CEA (c10's order for Undefined).
    let _cea = lib
        .impl_::<TestTensor, _>(
            "no_tensor_args.int",
            K::CompositeExplicitAutograd,
            |x: i64| x * 100,
        )
        .unwrap();
    assert_eq!(op.call(4), 400);
    let ceanf = lib
        .impl_::<TestTensor, _>(
            "no_tensor_args.int",
            K::CompositeExplicitAutogradNonFunctional,
            |x: i64| x * 1000,
        )
        .unwrap();
    assert_eq!(op.call(4), 4000);
    drop(ceanf);
    assert_eq!(op.call(4), 400);
}

#[test]
fn a_call_whose_every_key_falls_through_takes_undefined() {
    let (d, lib, _def) = setup("op(Tensor self) -> Tensor");
    let _cea = lib
        .impl_("op", K::CompositeExplicitAutograd, |_: &TestTensor| {
            TestTensor::cpu(1)
        })
        .unwrap();
    let _skip = lib.impl_fallthrough("op", K::CPU).unwrap();
    let op = d
        .typed::<_, (&TestTensor,), TestTensor>("test::op", "")
        .unwrap();
    // CPU falls through (its own fallthrough), AutogradCPU by the default: Undefined, which
    // CEA serves. CUDA takes CEA directly.
    let keys = |b: DispatchKey| TestTensor::new(&[b, b.autograd_key().unwrap(), K::Tracer], 0);
    assert_eq!(op.call(&keys(K::CPU)).value(), 1);
    assert_eq!(op.call(&keys(K::CUDA)).value(), 1);
    // A redispatch below the lowest functionality lands there too.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let kernel = boxed(
        move |op: &OperatorHandle, ks: DispatchKeySet, stack: &mut Stack<TestTensor>| {
            log.lock().unwrap().push(ks.highest());
            op.redispatch_boxed(ks.below(K::CUDA), stack)
        },
    );
    let _cuda = lib.impl_("op", K::CUDA, kernel).unwrap();
    assert_eq!(op.call(&keys(K::CUDA)).value(), 1);
    assert_eq!(*seen.lock().unwrap(), [Some(K::CUDA)]);
    // Without a composite kernel, Undefined is an error.
    drop(_cea);
    let err = message(op.try_call(&keys(K::CPU)));
    assert!(
        err.starts_with("There were no tensor arguments to this function"),
        "{err}"
    );
}
