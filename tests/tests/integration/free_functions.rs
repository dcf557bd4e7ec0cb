//! Free functions: the defaults from the schema, the `_with` forms with their arguments
//! structs, the `try_` forms, kernel errors.

use std::sync::atomic::Ordering;

use opgen_tests::ops::{self, AddArgs, ScaleArgs};

use super::*;

#[test]
fn defaults_come_from_the_schema() {
    let (a, b) = (cpu(&[1.0, 2.0]), cpu(&[10.0, 20.0]));
    assert_eq!(ops::add(&a, &b).data(), [11.0, 22.0]); // alpha=1
    assert_eq!(ops::scale(&a).data(), [2.0, 4.0]); // factor=2.0, times=1, negate=False
}

#[test]
fn with_forms_take_the_defaulted_arguments_by_name() {
    let (a, b) = (cpu(&[1.0, 2.0]), cpu(&[10.0, 20.0]));
    let args = AddArgs {
        alpha: Scalar::Int(3),
    };
    assert_eq!(ops::add_with(&a, &b, args).data(), [31.0, 62.0]);
    assert_eq!(AddArgs::default().alpha, Scalar::Int(1));
    let scaled = ops::scale_with(
        &a,
        ScaleArgs {
            times: 3,
            negate: true,
            ..Default::default()
        },
    );
    assert_eq!(scaled.data(), [-8.0, -16.0]);
    let defaults = ScaleArgs::default();
    assert_eq!(
        (defaults.factor, defaults.times, defaults.negate),
        (2.0, 1, false)
    );
}

#[test]
fn broadcasting_is_the_kernels_business() {
    let a = TestTensor::on(DispatchKey::CPU, &[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let one = cpu(&[10.0]);
    let sum = ops::add(&a, &one);
    assert_eq!(
        (sum.shape(), sum.data()),
        (&[2, 2][..], &[11.0, 12.0, 13.0, 14.0][..])
    );
}

#[test]
fn try_forms_return_errors_as_values() {
    let (a, b) = (cpu(&[1.0, 2.0]), cpu(&[10.0, 20.0]));
    assert_eq!(ops::try_add(&a, &b).unwrap().data(), [11.0, 22.0]);
    assert_eq!(
        ops::try_add_with(&a, &b, AddArgs { alpha: 0.5.into() })
            .unwrap()
            .data(),
        [6.0, 12.0]
    );
    // The kernel's own error (shapes that do not broadcast), named after the operator.
    let c = cpu(&[1.0, 2.0, 3.0]);
    assert_eq!(
        message(ops::try_add(&a, &c)),
        "kernel for `aten::add.Tensor` failed: shapes [2] and [3] do not broadcast: 2 against 3"
    );
}

#[test]
fn kernel_errors_reach_try_callers_as_values() {
    let before = ops::FAILS_CALLS.load(Ordering::Relaxed);
    let t = cpu(&[1.0]);
    assert!(ops::try_fails(&t, true).unwrap().same(&t));
    assert_eq!(
        message(ops::try_fails(&t, false)),
        "kernel for `aten::fails` failed: the kernel refused"
    );
    assert!(ops::FAILS_CALLS.load(Ordering::Relaxed) >= before + 2);
}

#[test]
#[should_panic(expected = "kernel for `aten::fails` failed: the kernel refused")]
fn plain_forms_panic_with_the_message() {
    ops::fails(&cpu(&[1.0]), false);
}

/// The same operator name as `aten::add.Tensor` in another namespace, told apart by `name =`:
/// every generated item follows the new name, the arguments struct too (`PlusArgs`), so the
/// two do not meet on `AddArgs` (imported above: a second `AddArgs` here would not build).
#[native_function(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    namespace = "naming",
    dispatch = "CPU",
    name = "plus"
)]
pub fn plus_kernel(self_: &TestTensor, other: &TestTensor, alpha: Scalar) -> TestTensor {
    let alpha = alpha.to_f64();
    let data: Vec<f64> = (self_.data().iter().zip(other.data()))
        .map(|(a, b)| a - alpha * b)
        .collect();
    TestTensor::cpu(&data)
}

#[test]
fn a_renamed_operator_renames_its_arguments_struct() {
    let (a, b) = (cpu(&[1.0, 2.0]), cpu(&[10.0, 20.0]));
    assert_eq!(plus(&a, &b).data(), [-9.0, -18.0]);
    let args = PlusArgs {
        alpha: Scalar::Int(2),
    };
    assert_eq!(plus_with(&a, &b, args).data(), [-19.0, -38.0]);
    assert_eq!(try_plus(&a, &b).unwrap().data(), [-9.0, -18.0]);
    // The usual names are still `aten::add`'s.
    assert_eq!(
        ops::add_with(&a, &b, AddArgs::default()).data(),
        [11.0, 22.0]
    );
}
