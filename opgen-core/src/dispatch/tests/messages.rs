//! The message table: every error with a PyTorch counterpart starts with PyTorch's words,
//! as the docs of `ErrorKind` list them.

use super::*;
use crate::dispatch::{Device, DeviceType, DispatchKey as K, ErrorKind};

#[test]
fn messages_start_with_pytorchs_words() {
    let (d, lib, _def) = setup("add.Tensor(Tensor self, Tensor other) -> Tensor");
    let _cpu = lib
        .impl_("add.Tensor", K::CPU, |a: &TestTensor, _: &TestTensor| {
            a.clone()
        })
        .unwrap();
    let _op = lib.def("op(Tensor self) -> Tensor").unwrap();
    let _cia = lib
        .impl_("op", K::CompositeImplicitAutograd, |t: &TestTensor| {
            t.clone()
        })
        .unwrap();
    let _sparse = lib
        .impl_("op", K::SparseCPU, |t: &TestTensor| t.clone())
        .unwrap();
    let add = d
        .typed::<_, (&TestTensor, &TestTensor), TestTensor>("test::add", "Tensor")
        .unwrap();
    let op = d
        .typed::<_, (&TestTensor,), TestTensor>("test::op", "")
        .unwrap();
    let (meta, none) = (TestTensor::new(&[K::Meta], 0), TestTensor::new(&[], 0));
    let other = TestTensor::new(&[K::SparseCPU, K::AutogradOther], 0);
    let fallbacks = d.impls("_");
    let _first_fallback = fallbacks.fallback_fallthrough(K::AutogradCPU).unwrap();
    let static_missing: Error = ErrorKind::StaticDispatchMissingKernel {
        operator: "test::add.Tensor".into(),
        key: Some(K::Meta),
        available: vec![K::CPU],
    }
    .into();
    let devices: Error = ErrorKind::DeviceMismatch {
        operator: "test::add.Tensor".into(),
        kernel: "add_cuda".into(),
        key: K::CUDA,
        devices: vec![
            (
                "self".into(),
                Device {
                    kind: DeviceType::CUDA,
                    index: Some(0),
                },
            ),
            ("other".into(), Device::CPU),
        ],
    }
    .into();
    let cases: Vec<(String, &str)> = vec![
        (
            message(d.find("test::add", "Scalar")),
            "Could not find schema for test::add.Scalar",
        ),
        (
            message(add.try_call(&meta, &meta)),
            "Could not run 'test::add.Tensor' with arguments from the 'Meta' backend. This could be \
             because the operator doesn't exist for this backend",
        ),
        (
            message(add.try_call(&none, &none)),
            "There were no tensor arguments to this function (e.g., you passed an empty list of \
             Tensors), but no fallback function is registered for schema test::add.Tensor.  This \
             usually means that this function requires a non-empty list of Tensors, or that you \
             (the operator writer) forgot to register a fallback function.  Available functions are \
             [CPU]",
        ),
        (
            message(op.try_call(&other)),
            "test::op has kernels registered to both CompositeImplicitAutograd and a backend \
             mapped to AutogradOther.",
        ),
        (
            message(lib.def("add.Tensor(Tensor self) -> Tensor")),
            "Tried to register an operator (test::add.Tensor(Tensor self) -> Tensor) with the same \
             name and overload name multiple times. Each overload's schema should only be \
             registered with a single call to def(). Duplicate registration: registered at ",
        ),
        (
            message(lib.def("other::f(Tensor self) -> Tensor")),
            "Explicitly provided namespace (other) in schema string does not match namespace of \
             enclosing",
        ),
        (
            message(lib.impl_("other::f", K::CPU, |t: &TestTensor| t.clone())),
            "Explicitly provided namespace (other) in operator name does not match namespace of \
             enclosing",
        ),
        (
            message(d.library("test")),
            "Only a single TORCH_LIBRARY can be used to register the namespace test",
        ),
        (
            message(d.impls("test").def("f(Tensor self) -> Tensor")),
            "Cannot define an operator inside of a TORCH_LIBRARY_IMPL block. All def()s should be \
             placed in the (unique) TORCH_LIBRARY block for their namespace.",
        ),
        (
            message(lib.impl_("add.Tensor", K::Meta, |t: &TestTensor| t.clone())),
            "Inferred operator schema for a Rust kernel function doesn't match the expected \
             function schema.\n  operator: test::add.Tensor\n  expected schema: ",
        ),
        (
            message(fallbacks.fallback_fallthrough(K::AutogradCPU)),
            "Tried to register multiple backend fallbacks for the same dispatch key AutogradCPU; \
             previous registration registered at ",
        ),
        (
            message(d.typed::<_, (&TestTensor,), TestTensor>("test::add", "Tensor")),
            "Tried to access or call an operator with a wrong signature.\n  operator: \
             test::add.Tensor\n  correct signature:  ",
        ),
        (
            message("CUDAA".parse::<DispatchKey>()),
            "could not parse dispatch key: CUDAA",
        ),
        (
            static_missing.to_string(),
            "Static dispatch does not support test::add.Tensor for Meta.",
        ),
        (
            devices.to_string(),
            "Expected all tensors to be on the same device, but found at least two devices, \
             cuda:0 and cpu!",
        ),
    ];
    for (message, words) in cases {
        assert!(
            message.starts_with(words),
            "{message}\n  does not start with\n{words}"
        );
    }
}
