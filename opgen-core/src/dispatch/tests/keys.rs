//! Precedence at the keys c10 has beside the common backends: the functional backends XLA
//! and Lazy, the backends mapped to `AutogradOther`, and c10's autograd keys without
//! backends.

use super::precedence::{Reg, call, served, table_of};
use crate::dispatch::DispatchKey as K;

#[test]
fn functional_backends_take_cea_but_not_ceanf() {
    use Reg::Kernel as R;
    let ceanf = K::CompositeExplicitAutogradNonFunctional;
    let (table, d, _regs) = table_of(&[R(ceanf)]);
    for key in [
        K::XLA,
        K::Lazy,
        K::QuantizedXLA,
        K::SparseCsrLazy,
        K::SparseCPU,
    ] {
        assert_eq!(table[&key], "missing", "{key}");
    }
    for key in [
        K::CPU,
        K::HIP,
        K::MAIA,
        K::FPGA,
        K::QuantizedMeta,
        K::SparseCsrPrivateUse1,
    ] {
        assert_eq!(
            table[&key], "CompositeExplicitAutogradNonFunctional",
            "{key}"
        );
    }
    let err = call(&d, &[K::XLA, K::AutogradXLA]).unwrap_err();
    assert!(
        err.starts_with("Could not run 'test::op' with arguments from the 'XLA' backend."),
        "{err}"
    );
    // With CEA too, XLA and Lazy take CEA while CPU keeps CEANF.
    let (table, d, _regs) = table_of(&[R(K::CompositeExplicitAutograd), R(ceanf)]);
    for key in [
        K::XLA,
        K::Lazy,
        K::QuantizedXLA,
        K::SparseLazy,
        K::SparseCsrXLA,
    ] {
        assert_eq!(table[&key], "CompositeExplicitAutograd", "{key}");
    }
    assert_eq!(table[&K::CPU], "CompositeExplicitAutogradNonFunctional");
    assert_eq!(table.undefined, "CompositeExplicitAutogradNonFunctional");
    let cea = K::CompositeExplicitAutograd.index() as i64;
    assert_eq!(call(&d, &[K::XLA, K::AutogradXLA]), Ok(cea));
    assert_eq!(call(&d, &[K::Lazy, K::AutogradLazy]), Ok(cea));
    assert_eq!(
        call(&d, &[K::CPU, K::AutogradCPU]),
        Ok(ceanf.index() as i64)
    );
    // Each has its own autograd key, which gives way to its own kernel only.
    let (table, d, _regs) = table_of(&[R(K::CompositeImplicitAutograd), R(K::XLA)]);
    assert_eq!(table[&K::AutogradXLA], "fallthrough-fallback");
    assert_eq!(table[&K::AutogradLazy], "CompositeImplicitAutograd");
    assert_eq!(
        call(&d, &[K::XLA, K::AutogradXLA]),
        Ok(K::XLA.index() as i64)
    );
    let cia = K::CompositeImplicitAutograd.index() as i64;
    assert_eq!(call(&d, &[K::Lazy, K::AutogradLazy]), Ok(cia));
}

#[test]
fn backends_without_per_backend_keys_map_to_autograd_other() {
    use Reg::{Fallthrough, Kernel as R};
    let cia = R(K::CompositeImplicitAutograd);
    // FPGA, Vulkan, Metal, CustomRNGKeyId and MkldnnCPU tensors carry AutogradOther.
    for backend in [
        K::FPGA,
        K::Vulkan,
        K::Metal,
        K::CustomRNGKeyId,
        K::MkldnnCPU,
    ] {
        assert_eq!(backend.autograd_key(), Some(K::AutogradOther));
        let (table, d, _regs) = table_of(&[cia, R(backend)]);
        assert_eq!(table[&K::AutogradOther], "ambiguous", "{backend}");
        let err = call(&d, &[backend, K::AutogradOther]).unwrap_err();
        let expected = "test::op has kernels registered to both CompositeImplicitAutograd and a \
             backend mapped to AutogradOther.";
        assert!(err.starts_with(expected), "{err}");
        assert!(
            err.contains(&format!("(backends with kernels: {backend})")),
            "{err}"
        );
        // Ambiguous with a fallthrough as the backend's kernel, and with a CEA kernel.
        let at = served(&[cia, Fallthrough(backend), R(K::CompositeExplicitAutograd)]);
        assert_eq!(at(K::AutogradOther), "ambiguous", "{backend}");
        // The Autograd alias resolves it only where CIA does not apply.
        let at = served(&[R(K::Autograd), R(backend)]);
        assert_eq!(at(K::AutogradOther), "Autograd", "{backend}");
    }
    // With CIA alone, such a tensor takes CIA at AutogradOther.
    let (_, d, _regs) = table_of(&[cia]);
    assert_eq!(
        call(&d, &[K::FPGA, K::AutogradOther]),
        Ok(K::CompositeImplicitAutograd.index() as i64)
    );
    // HIP and VE tensors carry AutogradOther too, but their dense keys are not among the
    // backends that make it ambiguous: with a HIP kernel and CIA, AutogradOther takes CIA.
    let (table, d, _regs) = table_of(&[cia, R(K::HIP)]);
    assert_eq!(table[&K::AutogradOther], "CompositeImplicitAutograd");
    assert_eq!(
        call(&d, &[K::HIP, K::AutogradOther]),
        Ok(K::CompositeImplicitAutograd.index() as i64)
    );
    assert_eq!(call(&d, &[K::HIP]), Ok(K::HIP.index() as i64));
}

#[test]
fn autograd_keys_without_backends_in_c10_take_cia() {
    use Reg::Kernel as R;
    // c10's `getBackendKeySetFromAutograd` names no backend for AutogradMTIA (nor MAIA, HIP,
    // VE), so an MTIA kernel does not keep CIA from it, unlike CPU's.
    let at = served(&[R(K::CompositeImplicitAutograd), R(K::MTIA), R(K::CPU)]);
    assert_eq!(at(K::AutogradMTIA), "CompositeImplicitAutograd");
    assert_eq!(at(K::AutogradCPU), "fallthrough-fallback");
}

#[test]
fn the_batched_decomposition_alias_serves_func_torch_batched() {
    use Reg::Kernel as R;
    let at = served(&[
        R(K::FuncTorchBatchedDecomposition),
        R(K::CompositeImplicitAutograd),
    ]);
    assert_eq!(at(K::FuncTorchBatched), "FuncTorchBatchedDecomposition");
    assert_eq!(at(K::Batched), "missing");
    assert_eq!(at(K::CPU), "CompositeImplicitAutograd");
}
