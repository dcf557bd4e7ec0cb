//! Kernels of one operator on several keys: CPU in `opgen_tests::ops`, Meta here (another
//! module), PrivateUse1 in `opgen-tests-ext` (another crate).

use opgen_tests::{broadcast_shapes, ops};

use super::*;

/// `add.Tensor` on Meta: the broadcast shape, no data.
#[opgen::native_function(op = "aten::add.Tensor", dispatch = "Meta")]
fn add_meta(self_: &TestTensor, other: &TestTensor, _alpha: Scalar) -> Result<TestTensor, String> {
    let shape = broadcast_shapes(self_.shape(), other.shape())?;
    Ok(TestTensor::meta(&shape))
}

/// `neg` on Meta, restating the schema: the same schema twice is one definition.
#[opgen::native_function("neg(Tensor self) -> Tensor", dispatch = "Meta")]
fn neg_meta(self_: &TestTensor) -> TestTensor {
    self_.clone()
}

#[test]
fn each_backend_gets_its_kernel() {
    let (a, b) = (cpu(&[1.0, 2.0]), cpu(&[10.0, 20.0]));
    assert_eq!(ops::add(&a, &b).data(), [11.0, 22.0]);

    let (m, n) = (TestTensor::meta(&[2, 1]), TestTensor::meta(&[3]));
    let sum = ops::add(&m, &n);
    assert_eq!(
        (sum.device(), sum.shape()),
        (DispatchKey::Meta, &[2, 3][..])
    );
    assert_eq!(
        ops::try_add(&TestTensor::meta(&[3]), &TestTensor::meta(&[4]))
            .map(|t| t.shape().to_vec())
            .unwrap_err()
            .to_string(),
        "kernel for `aten::add.Tensor` failed: shapes [3] and [4] do not broadcast: 3 against 4"
    );

    let p = TestTensor::on(DispatchKey::PrivateUse1, &[2], &[1.0, 2.0]);
    assert_eq!(ops::add(&p, &p).data(), [1002.0, 1004.0]);

    let op = Dispatcher::global().find("aten::add", "Tensor").unwrap();
    let keys = op.keys_with_kernels();
    for key in [
        DispatchKey::CPU,
        DispatchKey::PrivateUse1,
        DispatchKey::Meta,
    ] {
        assert!(keys.contains(&key), "{key} missing from {keys:?}");
    }
}

#[test]
fn a_restated_schema_is_one_definition() {
    let m = TestTensor::meta(&[5]);
    assert!(ops::neg(&m).same(&m));
    assert_eq!(neg(&cpu(&[1.0])).data(), [-1.0]); // this module's `neg` is the same operator
    let neg_errors: Vec<&Error> = Dispatcher::global_errors()
        .iter()
        .filter(|e| e.to_string().contains("aten::neg"))
        .collect();
    assert!(neg_errors.is_empty(), "{neg_errors:?}");
}

#[test]
fn a_key_without_kernel_is_an_error_naming_the_keys_with_kernels() {
    let t = TestTensor::on(DispatchKey::PrivateUse2, &[1], &[1.0]);
    assert_eq!(
        message(ops::try_neg(&t)),
        "Could not run 'aten::neg' with arguments from the 'PrivateUse2' backend. This could be \
         because the operator doesn't exist for this backend. 'aten::neg' is only available for \
         these keys: [CPU, Meta]; register a kernel at `PrivateUse2`, or at a composite key that \
         covers it"
    );
}

/// `scale` on Meta, attached by path: the kernel's signature is checked against the
/// operator's schema at compile time, and it registers and runs as any other kernel.
#[opgen::native_function(op = ops::scale, dispatch = "Meta")]
fn scale_meta(self_: &TestTensor, _factor: f64, times: i64, _negate: bool) -> TestTensor {
    let mut shape = self_.shape().to_vec();
    shape.push(times as _);
    TestTensor::meta(&shape)
}

#[test]
fn a_kernel_attached_by_path_is_registered_and_called() {
    let m = TestTensor::meta(&[2]);
    let scaled = ops::scale(&m);
    assert_eq!(
        (scaled.device(), scaled.shape()),
        (DispatchKey::Meta, &[2, 1][..])
    );
    assert_eq!(ops::scale(&cpu(&[1.5])).data(), [3.0]);
    let op = Dispatcher::global().find("aten::scale", "").unwrap();
    let keys = op.keys_with_kernels();
    assert!(
        keys.contains(&DispatchKey::Meta),
        "Meta missing from {keys:?}"
    );
}
