use super::*;

#[test]
fn guards_nest_and_restore() {
    let (a, b) = (
        "cuda:0".parse::<Device>().unwrap(),
        "cuda:1".parse::<Device>().unwrap(),
    );
    let outer = DeviceGuard::new(a);
    {
        let _none = DeviceGuard::optional(None);
        assert_eq!(current_device(), Some(a));
        let _inner = DeviceGuard::new(b);
        assert_eq!(current_device(), Some(b));
    }
    assert_eq!(current_device(), Some(a));
    drop(outer);
    assert_eq!(current_device(), None);
}

#[test]
fn every_device_type_has_a_dense_key() {
    for &kind in DeviceType::ALL {
        let key = kind.backend_key();
        assert!(key.is_backend(), "{kind}");
        let device = Device { kind, index: None };
        assert_eq!(compute_dispatch_key(None, None, Some(device)).unwrap(), key);
    }
}

#[test]
fn every_backend_device_has_its_sparse_and_quantized_keys() {
    use DispatchKey as K;
    for &kind in DeviceType::ALL {
        let device = Some(Device { kind, index: None });
        let sparse = compute_dispatch_key(None, Some(Layout::Sparse), device);
        let csr = compute_dispatch_key(None, Some(Layout::SparseBsc), device);
        let quantized = compute_dispatch_key(Some(ScalarType::QUInt8), None, device).unwrap();
        match kind.backend_component() {
            Some(b) => {
                assert_eq!(sparse.unwrap(), K::SparseCPU.for_backend(b).unwrap());
                assert_eq!(csr.unwrap(), K::SparseCsrCPU.for_backend(b).unwrap());
                assert_eq!(quantized.backend(), Some(b));
                assert_eq!(
                    quantized.for_backend(BackendComponent::CPU),
                    Some(K::QuantizedCPU)
                );
            }
            None => {
                assert!(sparse.is_err() && csr.is_err(), "{kind}");
                assert_eq!(quantized, kind.backend_key());
            }
        }
    }
    let mkldnn = |kind| {
        compute_dispatch_key(
            None,
            Some(Layout::Mkldnn),
            Some(Device { kind, index: None }),
        )
    };
    assert_eq!(mkldnn(DeviceType::CPU).unwrap(), K::MkldnnCPU);
    assert!(mkldnn(DeviceType::CUDA).is_err());
}

#[test]
fn unsupported_options_name_the_operator() {
    let fpga = Device {
        kind: DeviceType::FPGA,
        index: None,
    };
    let err = backend_select_keys(
        "aten::zeros",
        DispatchKeySet::EMPTY,
        false,
        None,
        Some(Layout::Sparse),
        Some(fpga),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "BackendSelect of `aten::zeros` found no backend key for layout `Sparse` on device \
         `fpga` (dtype `Float`); expected the strided or jagged layout, a sparse or \
         compressed sparse layout on a device other than fpga, vulkan and metal, or \
         `Mkldnn` on cpu"
    );
}

#[test]
fn tensor_keys_join_the_backend_below_backend_select() {
    use DispatchKey as K;
    let ks = DispatchKeySet::from_keys(&[K::CPU, K::AutogradCPU, K::BackendSelect, K::Tracer]);
    let meta = Device {
        kind: DeviceType::Meta,
        index: None,
    };
    let out = backend_select_keys("x", ks, true, None, None, Some(meta)).unwrap();
    assert_eq!(out, DispatchKeySet::from_keys(&[K::CPU, K::Meta]));
    let out = backend_select_keys("x", ks, false, None, None, Some(meta)).unwrap();
    assert_eq!(out, DispatchKeySet::from_key(K::Meta));
}
