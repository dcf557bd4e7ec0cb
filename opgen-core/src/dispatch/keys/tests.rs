use super::*;
use BackendComponent as B;

#[test]
fn names_round_trip_and_runtime_keys_come_first() {
    for (i, key) in DispatchKey::ALL.iter().enumerate() {
        assert_eq!(key.index(), i);
        assert_eq!(DispatchKey::from_name(key.name()), Some(*key));
        assert_eq!(key.is_runtime(), i < DispatchKey::NUM_RUNTIME);
    }
    // c10's runtime entries: 41 functionalities of one key, 6 per-backend ones of 16 keys.
    assert_eq!(DispatchKey::NUM_RUNTIME, 41 + 6 * 16);
    assert_eq!(
        DispatchKey::from_index(136),
        Some(DispatchKey::PythonDispatcher)
    );
    assert_eq!(DispatchKey::from_index(137), None);
    assert_eq!(DispatchKey::from_name("Undefined"), None);
}

#[test]
fn per_backend_keys_are_named_functionality_then_backend() {
    for (first, prefix) in [
        (K::CPU, ""),
        (K::QuantizedCPU, "Quantized"),
        (K::SparseCPU, "Sparse"),
        (K::SparseCsrCPU, "SparseCsr"),
        (K::NestedTensorCPU, "NestedTensor"),
        (K::AutogradCPU, "Autograd"),
    ] {
        for b in BackendComponent::ALL {
            let key = first.for_backend(b).unwrap();
            assert_eq!(key.name(), format!("{prefix}{b}"));
            assert_eq!(key.backend(), Some(b));
            assert_eq!(key.bits(), key_bits(first) & !BACKEND_BITS | 1 << b.index());
        }
    }
    assert_eq!(K::FPGA.backend(), None);
    assert_eq!(B::Meta.dense_key(), K::Meta);
}

#[test]
fn priority_follows_c10() {
    let order = [
        K::CPU,
        K::Meta,
        K::FPGA,
        K::QuantizedCPU,
        K::MkldnnCPU,
        K::SparseCPU,
        K::SparseCsrMeta,
        K::NestedTensorCPU,
        K::BackendSelect,
        K::Functionalize,
        K::ZeroTensor,
        K::ADInplaceOrView,
        K::AutogradOther,
        K::AutogradCPU,
        K::AutogradXLA,
        K::AutogradMeta,
        K::AutogradNestedTensor,
        K::Tracer,
        K::AutocastCPU,
        K::PythonDispatcher,
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]));
    assert!(K::CUDA > K::CPU && K::Meta > K::PrivateUse3 && K::XLA > K::HIP);
    // A key set's highest key is the one of highest priority (keys of one backend; across
    // backends the highest backend of the set is taken, see the key set's tests).
    for w in order.windows(2) {
        if w[0].backend().is_none() || w[1].backend().is_none() || w[0].backend() == w[1].backend()
        {
            assert_eq!(DispatchKeySet::from_keys(w).highest(), Some(w[1]), "{w:?}");
        }
    }
}

#[test]
fn every_backend_has_an_autograd_key_as_c10() {
    for key in DispatchKey::ALL.iter().filter(|k| k.is_backend()) {
        let autograd = key.autograd_key().unwrap();
        assert!(autograd.is_autograd(), "{key}");
    }
    let own = |k: DispatchKey| k.autograd_key();
    assert_eq!(own(K::CPU), Some(K::AutogradCPU));
    assert_eq!(own(K::XLA), Some(K::AutogradXLA));
    assert_eq!(own(K::Lazy), Some(K::AutogradLazy));
    assert_eq!(own(K::QuantizedCUDA), Some(K::AutogradCUDA));
    assert_eq!(own(K::SparseMeta), Some(K::AutogradMeta));
    assert_eq!(own(K::HIP), Some(K::AutogradOther));
    assert_eq!(own(K::VE), Some(K::AutogradOther));
    assert_eq!(own(K::FPGA), Some(K::AutogradOther));
    assert_eq!(own(K::MkldnnCPU), Some(K::AutogradOther));
    assert_eq!(own(K::NestedTensorCUDA), Some(K::AutogradNestedTensor));
    assert_eq!(own(K::ZeroTensor), None);
    assert_eq!(own(K::Tracer), None);
    assert_eq!(own(K::CompositeExplicitAutograd), None);
    // And back (c10's getBackendKeySetFromAutograd).
    assert_eq!(K::AutogradCPU.backends(), DispatchKeySet::from_key(K::CPU));
    assert_eq!(
        K::AutogradLazy.backends(),
        DispatchKeySet::from_key(K::Lazy)
    );
    assert!(K::AutogradMTIA.backends().is_empty());
    let other = K::AutogradOther.backends();
    assert!(other.contains(K::QuantizedCPU) && other.contains(K::SparseCsrXLA));
    assert!(other.contains(K::FPGA) && other.contains(K::MkldnnCPU));
    assert!(!other.contains(K::CPU) && !other.contains(K::NestedTensorCPU));
    assert!(
        K::AutogradNestedTensor
            .backends()
            .contains(K::NestedTensorMeta)
    );
    assert_eq!(K::Tracer.backends(), DispatchKeySet::EMPTY);
}

#[test]
fn alias_coverage_as_c10() {
    let covered = |alias: DispatchKey| {
        (DispatchKey::ALL[..DispatchKey::NUM_RUNTIME].iter())
            .filter(|k| alias.covers(**k))
            .count()
    };
    // Dense, quantized, sparse, compressed sparse on 16 backends, and 5 more backends.
    assert_eq!(covered(K::CompositeExplicitAutograd), 4 * 16 + 5);
    // Without the sparse keys and without XLA and Lazy.
    assert_eq!(
        covered(K::CompositeExplicitAutogradNonFunctional),
        3 * 14 + 5
    );
    // CEA's, the nested keys, Functionalize and the autograd keys.
    assert_eq!(
        covered(K::CompositeImplicitAutograd),
        4 * 16 + 5 + 16 + 1 + 18
    );
    assert_eq!(covered(K::CompositeImplicitAutogradNestedTensor), 16 + 1);
    assert_eq!(covered(K::Autograd), 18);
    assert_eq!(covered(K::FuncTorchBatchedDecomposition), 1);
    let ceanf = K::CompositeExplicitAutogradNonFunctional;
    assert!(ceanf.covers(K::SparseCsrCPU) && ceanf.covers(K::FPGA));
    assert!(
        !ceanf.covers(K::SparseCPU) && !ceanf.covers(K::XLA) && !ceanf.covers(K::QuantizedLazy)
    );
    let cea = K::CompositeExplicitAutograd;
    assert!(cea.covers(K::XLA) && cea.covers(K::Lazy) && cea.covers(K::SparseCPU));
    assert!(!cea.covers(K::ZeroTensor) && !cea.covers(K::NestedTensorCPU));
    let cia = K::CompositeImplicitAutograd;
    assert!(cia.covers(K::Functionalize) && cia.covers(K::NestedTensorXLA));
    assert!(
        !cia.covers(K::Tracer) && !cia.covers(K::ZeroTensor) && !cia.covers(K::ADInplaceOrView)
    );
    assert!(K::CPU.covers(K::CPU) && !K::CPU.covers(K::CUDA));
    assert!(!K::CPU.is_alias() && K::FuncTorchBatchedDecomposition.is_alias());
}

#[test]
fn yaml_keys_keep_their_meaning() {
    assert_eq!(DispatchKey::YAML_KEYS.len(), 30);
    assert!(
        DispatchKey::YAML_KEYS
            .iter()
            .all(|k| k.is_yaml_dispatch_key())
    );
    assert!(!K::XLA.is_yaml_dispatch_key() && !K::HPU.is_yaml_dispatch_key());
    assert!(!K::PrivateUse1.is_yaml_dispatch_key() && !K::Autograd.is_yaml_dispatch_key());
}

#[test]
fn unknown_key_suggests_the_spelling() {
    let err = "cpu".parse::<DispatchKey>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "could not parse dispatch key: cpu; did you mean `CPU`?"
    );
    assert_eq!(
        "CatchAll".parse::<DispatchKey>().unwrap(),
        DispatchKey::CompositeImplicitAutograd
    );
    assert_eq!(
        "lazy".parse::<DispatchKey>().unwrap_err().to_string(),
        "could not parse dispatch key: lazy; did you mean `Lazy`?"
    );
}
