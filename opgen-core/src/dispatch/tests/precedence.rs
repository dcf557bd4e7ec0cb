//! One test per precedence rule: a registration combination and what serves each key.

use std::collections::BTreeMap;

use super::*;
use crate::dispatch::{DispatchKey as K, IValue, ServedBy, Stack};

/// What serves a key, in short: the key a kernel was registered at, `fallthrough@KEY`,
/// `fallback`, `fallthrough-fallback`, `ambiguous` or `missing`.
fn short(served: ServedBy) -> String {
    match served {
        ServedBy::Kernel {
            key,
            fallthrough: false,
            ..
        } => key.name().to_string(),
        ServedBy::Kernel {
            key,
            fallthrough: true,
            ..
        } => format!("fallthrough@{key}"),
        ServedBy::Fallback {
            fallthrough: false, ..
        } => "fallback".into(),
        ServedBy::Fallback {
            fallthrough: true, ..
        } => "fallthrough-fallback".into(),
        ServedBy::Ambiguous => "ambiguous".into(),
        ServedBy::Missing => "missing".into(),
    }
}

/// A registration in a precedence scenario.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Reg {
    Kernel(DispatchKey),
    Fallthrough(DispatchKey),
    Fallback(DispatchKey),
    FallthroughFallback(DispatchKey),
}

/// A table in short: what serves each runtime key, and the `Undefined` entry.
#[derive(Debug, PartialEq)]
pub(crate) struct Served {
    keys: BTreeMap<DispatchKey, String>,
    pub(crate) undefined: String,
}

impl std::ops::Index<&DispatchKey> for Served {
    type Output = String;
    fn index(&self, key: &DispatchKey) -> &String {
        &self.keys[key]
    }
}

/// Registers `regs` in order for `test::op(Tensor self) -> Tensor` and returns the table;
/// each kernel returns a tensor whose value is the index of its key.
pub(crate) fn table_of(regs: &[Reg]) -> (Served, Dispatcher, Vec<Registration>) {
    let (d, lib, def) = setup("op(Tensor self) -> Tensor");
    let mut handles = vec![def];
    for reg in regs {
        let handle = match *reg {
            Reg::Kernel(key) => {
                let tag = key.index() as i64;
                lib.impl_("op", key, move |_: &TestTensor| TestTensor::cpu(tag))
            }
            Reg::Fallthrough(key) => lib.impl_fallthrough("op", key),
            Reg::Fallback(key) => lib.fallback(key, |_, _, stack: &mut Stack<TestTensor>| {
                stack.pop();
                stack.push(IValue::Tensor(TestTensor::cpu(-1)));
                Ok(())
            }),
            Reg::FallthroughFallback(key) => lib.fallback_fallthrough(key),
        };
        handles.push(handle.expect("registration"));
    }
    let dump = d.find("test::op", "").unwrap().dispatch_table();
    let table = Served {
        keys: dump.entries.iter().map(|(k, s)| (*k, short(*s))).collect(),
        undefined: short(dump.undefined),
    };
    (table, d, handles)
}

pub(crate) fn served(regs: &[Reg]) -> impl Fn(DispatchKey) -> String + use<> {
    let (table, _, _) = table_of(regs);
    move |key| table[&key].clone()
}

/// Calls `test::op` on a tensor with `keys`; the value of the result, or the error.
pub(crate) fn call(d: &Dispatcher, keys: &[DispatchKey]) -> Result<i64, String> {
    let op = d
        .typed::<_, (&TestTensor,), TestTensor>("test::op", "")
        .unwrap();
    op.try_call(&TestTensor::new(keys, 0))
        .map(|t| t.value())
        .map_err(|e| e.to_string())
}

#[test]
fn rule1_a_direct_kernel_wins_over_every_alias() {
    use Reg::Kernel as R;
    let at = served(&[
        R(K::CompositeImplicitAutograd),
        R(K::CompositeExplicitAutograd),
        R(K::CompositeExplicitAutogradNonFunctional),
        R(K::Autograd),
        R(K::CPU),
        R(K::AutogradCPU),
    ]);
    assert_eq!(at(K::CPU), "CPU");
    assert_eq!(at(K::AutogradCPU), "AutogradCPU");
    assert_eq!(at(K::CUDA), "CompositeExplicitAutogradNonFunctional");
}

#[test]
fn rule2_ceanf_serves_its_backends_before_cea() {
    use Reg::Kernel as R;
    let at = served(&[
        R(K::CompositeExplicitAutograd),
        R(K::CompositeExplicitAutogradNonFunctional),
    ]);
    for key in [
        K::CPU,
        K::CUDA,
        K::Meta,
        K::PrivateUse1,
        K::QuantizedCPU,
        K::MkldnnCPU,
        K::SparseCsrCPU,
    ] {
        assert_eq!(at(key), "CompositeExplicitAutogradNonFunctional", "{key}");
    }
    // CEANF leaves out the sparse backends, so CEA serves them.
    assert_eq!(at(K::SparseCPU), "CompositeExplicitAutograd");
    assert_eq!(at(K::NestedTensorCPU), "missing");
}

#[test]
fn rule3_cea_serves_backend_keys_only() {
    let at = served(&[Reg::Kernel(K::CompositeExplicitAutograd)]);
    for key in [
        K::CPU,
        K::Meta,
        K::QuantizedCUDA,
        K::SparseCPU,
        K::SparseCsrMeta,
    ] {
        assert_eq!(at(key), "CompositeExplicitAutograd", "{key}");
    }
    for key in [K::NestedTensorCPU, K::ZeroTensor, K::Functionalize] {
        assert_eq!(at(key), "missing", "{key}");
    }
    // Every dispatcher's own fallthroughs.
    for key in [
        K::AutogradCPU,
        K::AutogradOther,
        K::Tracer,
        K::BackendSelect,
    ] {
        assert_eq!(at(key), "fallthrough-fallback", "{key}");
    }
}

#[test]
fn rule4_cia_serves_backend_and_autograd_keys() {
    let at = served(&[Reg::Kernel(K::CompositeImplicitAutograd)]);
    for key in [
        K::CPU,
        K::SparseCPU,
        K::NestedTensorCUDA,
        K::AutogradCPU,
        K::AutogradOther,
        K::AutogradNestedTensor,
    ] {
        assert_eq!(at(key), "CompositeImplicitAutograd", "{key}");
    }
    // c10's CIA covers Functionalize (functionalization reuses the decompositions).
    assert_eq!(at(K::Functionalize), "CompositeImplicitAutograd");
    assert_eq!(at(K::ZeroTensor), "missing");
    for key in [K::ADInplaceOrView, K::Tracer, K::BackendSelect] {
        assert_eq!(at(key), "fallthrough-fallback", "{key}");
    }
}

#[test]
fn rule4_autograd_key_falls_through_when_its_backend_has_a_kernel() {
    use Reg::Kernel as R;
    let (table, d, _regs) = table_of(&[R(K::CompositeImplicitAutograd), R(K::CPU)]);
    assert_eq!(table[&K::CPU], "CPU");
    assert_eq!(table[&K::AutogradCPU], "fallthrough-fallback");
    assert_eq!(table[&K::CUDA], "CompositeImplicitAutograd");
    assert_eq!(table[&K::AutogradCUDA], "CompositeImplicitAutograd");
    // With the default autograd fallthrough, an autograd CPU tensor reaches the CPU kernel.
    assert_eq!(
        call(&d, &[K::CPU, K::AutogradCPU]),
        Ok(K::CPU.index() as i64)
    );
    assert_eq!(
        call(&d, &[K::CUDA, K::AutogradCUDA]),
        Ok(K::CompositeImplicitAutograd.index() as i64)
    );
}

#[test]
fn rule4_a_cea_kernel_keeps_cia_from_autograd_keys() {
    use Reg::Kernel as R;
    let at = served(&[
        R(K::CompositeImplicitAutograd),
        R(K::CompositeExplicitAutograd),
    ]);
    assert_eq!(at(K::CPU), "CompositeExplicitAutograd");
    assert_eq!(at(K::AutogradCPU), "fallthrough-fallback");
    assert_eq!(at(K::AutogradOther), "fallthrough-fallback");
    // c10 keeps CIA from every key when there is a CEA kernel, not only from autograd keys:
    // the nested keys and Functionalize, which CEA does not cover, get nothing either.
    assert_eq!(at(K::NestedTensorCPU), "missing");
    assert_eq!(at(K::Functionalize), "missing");
    assert_eq!(at(K::AutogradNestedTensor), "fallthrough-fallback");
}

#[test]
fn rule4_a_ceanf_kernel_does_not_keep_cia_from_autograd_keys() {
    use Reg::Kernel as R;
    let at = served(&[
        R(K::CompositeExplicitAutogradNonFunctional),
        R(K::CompositeImplicitAutograd),
    ]);
    assert_eq!(at(K::CPU), "CompositeExplicitAutogradNonFunctional");
    assert_eq!(at(K::AutogradCPU), "CompositeImplicitAutograd");
    assert_eq!(at(K::SparseCPU), "CompositeImplicitAutograd");
}

#[test]
fn rule4_autograd_other_is_ambiguous_with_cia_and_an_other_backend_kernel() {
    use Reg::{Fallthrough, Kernel as R};
    let (table, d, _regs) = table_of(&[R(K::CompositeImplicitAutograd), R(K::SparseCPU)]);
    assert_eq!(table[&K::AutogradOther], "ambiguous");
    assert_eq!(table[&K::SparseCPU], "SparseCPU");
    assert_eq!(table[&K::AutogradCPU], "CompositeImplicitAutograd");
    let err = call(&d, &[K::SparseCPU, K::AutogradOther]).unwrap_err();
    assert!(
        err.starts_with(
            "test::op has kernels registered to both CompositeImplicitAutograd and a backend mapped \
             to AutogradOther. Which one serves `AutogradOther` is ambiguous (backends with kernels: \
             SparseCPU)"
        ),
        "{err}"
    );
    // Still ambiguous with a CEA kernel, and with a fallthrough as the backend's kernel.
    let at = served(&[
        R(K::CompositeImplicitAutograd),
        R(K::CompositeExplicitAutograd),
        R(K::QuantizedCPU),
    ]);
    assert_eq!(at(K::AutogradOther), "ambiguous");
    let at = served(&[R(K::CompositeImplicitAutograd), Fallthrough(K::MkldnnCPU)]);
    assert_eq!(at(K::AutogradOther), "ambiguous");
    // A kernel at AutogradOther itself resolves it.
    let at = served(&[
        R(K::CompositeImplicitAutograd),
        R(K::SparseCPU),
        R(K::AutogradOther),
    ]);
    assert_eq!(at(K::AutogradOther), "AutogradOther");
}

#[test]
fn rule4_nested_cia_comes_before_cia_on_nested_keys() {
    use Reg::Kernel as R;
    let at = served(&[
        R(K::CompositeImplicitAutograd),
        R(K::CompositeImplicitAutogradNestedTensor),
    ]);
    assert_eq!(
        at(K::NestedTensorCPU),
        "CompositeImplicitAutogradNestedTensor"
    );
    assert_eq!(
        at(K::AutogradNestedTensor),
        "CompositeImplicitAutogradNestedTensor"
    );
    assert_eq!(at(K::CPU), "CompositeImplicitAutograd");
    // Unlike CIA, the nested CIA does not give way to the nested backends' own kernels.
    let at = served(&[
        R(K::CompositeImplicitAutogradNestedTensor),
        R(K::NestedTensorCUDA),
    ]);
    assert_eq!(
        at(K::AutogradNestedTensor),
        "CompositeImplicitAutogradNestedTensor"
    );
    assert_eq!(
        at(K::NestedTensorCPU),
        "CompositeImplicitAutogradNestedTensor"
    );
}

#[test]
fn rule5_the_autograd_alias_serves_autograd_keys() {
    use Reg::Kernel as R;
    let at = served(&[R(K::Autograd), R(K::CPU)]);
    for key in [
        K::AutogradCPU,
        K::AutogradCUDA,
        K::AutogradOther,
        K::AutogradNestedTensor,
        K::AutogradPrivateUse2,
    ] {
        assert_eq!(at(key), "Autograd", "{key}");
    }
    assert_eq!(at(K::CPU), "CPU");
    assert_eq!(at(K::CUDA), "missing");
    // CIA comes first (rule 4) where it applies.
    let at = served(&[R(K::Autograd), R(K::CompositeImplicitAutograd), R(K::CPU)]);
    assert_eq!(at(K::AutogradCUDA), "CompositeImplicitAutograd");
    assert_eq!(at(K::AutogradCPU), "Autograd");
}

#[test]
fn rule6_a_backend_fallback_serves_what_nothing_else_does() {
    use Reg::{Fallback, Kernel as R};
    let (table, d, _regs) = table_of(&[R(K::CPU), Fallback(K::Tracer), Fallback(K::CUDA)]);
    assert_eq!(table[&K::Tracer], "fallback");
    assert_eq!(table[&K::CUDA], "fallback");
    assert_eq!(call(&d, &[K::CPU, K::Tracer]), Ok(-1));
    // A kernel for the operator beats the fallback.
    let at = served(&[R(K::CompositeExplicitAutograd), Fallback(K::CUDA)]);
    assert_eq!(at(K::CUDA), "CompositeExplicitAutograd");
}

#[test]
fn rule7_nothing_is_an_error_naming_the_keys_with_kernels() {
    use Reg::Kernel as R;
    let (table, d, _regs) = table_of(&[R(K::CPU), R(K::CompositeExplicitAutogradNonFunctional)]);
    assert_eq!(table[&K::SparseCPU], "missing");
    assert_eq!(
        call(&d, &[K::SparseCPU]),
        Err("Could not run 'test::op' with arguments from the 'SparseCPU' backend. This could be because \
             the operator doesn't exist for this backend. 'test::op' is only available for these keys: \
             [CPU, CompositeExplicitAutogradNonFunctional]; register a kernel at `SparseCPU`, or at a \
             composite key that covers it"
            .into())
    );
}

#[test]
fn a_fallthrough_at_a_backend_key_counts_as_its_kernel() {
    use Reg::{Fallthrough, Kernel as R};
    let (table, d, _regs) = table_of(&[
        R(K::CompositeImplicitAutograd),
        Fallthrough(K::CPU),
        R(K::ADInplaceOrView),
    ]);
    assert_eq!(table[&K::CPU], "fallthrough@CPU");
    assert_eq!(table[&K::AutogradCPU], "fallthrough-fallback");
    // The fallthrough skips CPU: with no functionality left, the call takes the Undefined
    // entry, which CIA serves (c10's `Undefined` entry).
    assert_eq!(table.undefined, "CompositeImplicitAutograd");
    for keys in [&[K::CPU][..], &[K::CPU, K::AutogradCPU]] {
        assert_eq!(
            call(&d, keys),
            Ok(K::CompositeImplicitAutograd.index() as i64)
        );
    }
    assert_eq!(
        call(&d, &[K::CPU, K::ADInplaceOrView]),
        Ok(K::ADInplaceOrView.index() as i64)
    );
}

#[test]
fn a_fallthrough_at_an_alias_key_spreads_like_a_kernel() {
    use Reg::{Fallthrough, Kernel as R};
    let (table, d, _regs) = table_of(&[R(K::CPU), Fallthrough(K::Autograd)]);
    for key in [K::AutogradCPU, K::AutogradOther, K::AutogradMeta] {
        assert_eq!(table[&key], "fallthrough@Autograd", "{key}");
    }
    assert_eq!(
        call(&d, &[K::CPU, K::AutogradCPU]),
        Ok(K::CPU.index() as i64)
    );
}

#[test]
fn a_fallthrough_fallback_is_resolved_in_the_table() {
    use Reg::{FallthroughFallback, Kernel as R};
    let (table, d, _regs) = table_of(&[
        R(K::CPU),
        FallthroughFallback(K::Autograd),
        FallthroughFallback(K::Tracer),
    ]);
    assert_eq!(table[&K::AutogradCPU], "fallthrough-fallback");
    let op = d.find("test::op", "").unwrap();
    let mask = op
        .table()
        .snapshot()
        .non_fallthrough(crate::dispatch::BackendComponent::CPU);
    assert!(!mask.contains(K::AutogradCPU) && !mask.contains(K::Tracer) && mask.contains(K::CPU));
    assert_eq!(
        call(&d, &[K::CPU, K::AutogradCPU, K::Tracer]),
        Ok(K::CPU.index() as i64)
    );
}

#[test]
fn a_newer_kernel_at_the_same_key_shadows_and_dropping_it_restores() {
    let (table, d, mut regs) = table_of(&[Reg::Kernel(K::CPU)]);
    assert_eq!(table[&K::CPU], "CPU");
    let lib = d.fragment("test");
    let newer = lib
        .impl_("op", K::CPU, |_: &TestTensor| TestTensor::cpu(100))
        .unwrap();
    assert_eq!(call(&d, &[K::CPU]), Ok(100));
    drop(newer);
    assert_eq!(call(&d, &[K::CPU]), Ok(K::CPU.index() as i64));
    // Dropping the older one while the newer lives keeps the newer.
    let newer = lib
        .impl_("op", K::CPU, |_: &TestTensor| TestTensor::cpu(100))
        .unwrap();
    regs.truncate(1);
    assert_eq!(call(&d, &[K::CPU]), Ok(100));
    drop(newer);
    assert!(
        call(&d, &[K::CPU])
            .unwrap_err()
            .contains("'test::op' has no kernels")
    );
}

/// Every order of `items` (Heap's algorithm).
fn permutations<X: Clone>(items: &[X]) -> Vec<Vec<X>> {
    fn go<X: Clone>(k: usize, items: &mut Vec<X>, out: &mut Vec<Vec<X>>) {
        if k <= 1 {
            out.push(items.clone());
            return;
        }
        for i in 0..k {
            go(k - 1, items, out);
            let j = if k.is_multiple_of(2) { i } else { 0 };
            items.swap(j, k - 1);
        }
    }
    let mut out = Vec::new();
    go(items.len(), &mut items.to_vec(), &mut out);
    out
}

/// A pool of registrations at distinct keys, so any subset is valid.
fn pool() -> Vec<Reg> {
    use Reg::*;
    vec![
        Kernel(K::CompositeImplicitAutograd),
        Kernel(K::CompositeExplicitAutograd),
        Kernel(K::CompositeExplicitAutogradNonFunctional),
        Kernel(K::CompositeImplicitAutogradNestedTensor),
        Kernel(K::Autograd),
        Kernel(K::CPU),
        Kernel(K::SparseCPU),
        Fallthrough(K::QuantizedCPU),
        Kernel(K::AutogradCPU),
        Fallthrough(K::NestedTensorCPU),
        Fallback(K::BackendSelect),
        FallthroughFallback(K::Tracer),
        Fallback(K::ZeroTensor),
        Kernel(K::AutogradOther),
        Kernel(K::FPGA),
        Kernel(K::Lazy),
        Fallthrough(K::AutogradCUDA),
        Kernel(K::FuncTorchBatchedDecomposition),
    ]
}

#[test]
fn the_table_does_not_depend_on_registration_order() {
    let regs = &pool()[..6];
    let (expected, _, _) = table_of(regs);
    let perms = permutations(regs);
    assert_eq!(perms.len(), 720);
    for perm in perms {
        assert_eq!(table_of(&perm).0, expected, "{perm:?}");
    }
    // Random subsets of the whole pool, each in several random orders.
    let pool = pool();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for _ in 0..60 {
        let mut subset: Vec<Reg> = pool.iter().copied().filter(|_| next(2) == 0).collect();
        let (expected, _, _) = table_of(&subset);
        for _ in 0..5 {
            for i in (1..subset.len()).rev() {
                subset.swap(i, next(i + 1));
            }
            assert_eq!(table_of(&subset).0, expected, "{subset:?}");
        }
    }
}

#[test]
fn dropping_a_registration_restores_the_previous_table() {
    let pool = pool();
    let (d, lib, _def) = setup("op(Tensor self) -> Tensor");
    let op = d.find("test::op", "").unwrap();
    let mut kept = Vec::new();
    for reg in &pool {
        let before = op.dispatch_table();
        let before_table = Arc::downgrade(&op.table().snapshot());
        let handle = match *reg {
            Reg::Kernel(key) => lib.impl_("op", key, |t: &TestTensor| t.clone()),
            Reg::Fallthrough(key) => lib.impl_fallthrough("op", key),
            Reg::Fallback(key) => lib.fallback(key, |_, _, _: &mut Stack<TestTensor>| Ok(())),
            Reg::FallthroughFallback(key) => lib.fallback_fallthrough(key),
        }
        .unwrap();
        assert_ne!(op.dispatch_table(), before, "{reg:?} changed nothing");
        drop(handle);
        assert_eq!(op.dispatch_table(), before, "{reg:?}");
        // The tables the registration superseded are freed once no call reads them
        // (unless no table replaced it: a registration that dispatches every call as
        // before, such as a fallthrough over the default fallthrough, publishes nothing).
        let gone =
            || (before_table.upgrade()).is_none_or(|t| Arc::ptr_eq(&t, &op.table().snapshot()));
        assert!(
            crate::dispatch::reclaim::settle(10, gone),
            "{reg:?}: a superseded table is kept"
        );
        // Keep it for the next round, so later registrations meet earlier ones.
        kept.push(match *reg {
            Reg::Kernel(key) => lib.impl_("op", key, |t: &TestTensor| t.clone()),
            Reg::Fallthrough(key) => lib.impl_fallthrough("op", key),
            Reg::Fallback(key) => lib.fallback(key, |_, _, _: &mut Stack<TestTensor>| Ok(())),
            Reg::FallthroughFallback(key) => lib.fallback_fallthrough(key),
        });
    }
    assert!(kept.iter().all(Result::is_ok));
    // Dropping the def empties the table; a new def brings the kernels back.
    drop(_def);
    assert!(d.find("test::op", "").is_err());
    assert!(
        op.dispatch_table()
            .entries
            .iter()
            .all(|(_, s)| *s == ServedBy::Missing)
    );
    let err = message(d.typed::<_, (&TestTensor,), TestTensor>("test::op", ""));
    assert!(
        err.starts_with(
            "Could not find schema for test::op but we found an implementation; did you forget to \
             def() the operator? Kernels: "
        ),
        "{err}"
    );
    let _def = lib.def("op(Tensor self) -> Tensor").unwrap();
    assert_eq!(call(&d, &[K::CPU]), Ok(0));
}
