//! Inference mode as c10 has it: tensors made inside it are inference tensors (no autograd
//! keys, no version counter), normal tensors keep their version counters and views inside
//! it, and PyTorch's checks refuse what would let an inference tensor reach autograd.

use opgen::autograd::{AutogradTensor, InferenceModeGuard, backward, is_inference_mode_enabled};
use opgen::prelude::*;

use crate::MiniTensor;
use crate::ops::*;

fn doubles(values: &[f64], sizes: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(values.to_vec(), sizes).expect("a tensor")
}

fn values(t: &MiniTensor) -> Vec<f64> {
    t.to_vec::<f64>().expect("values")
}

fn leaf(values: &[f64], sizes: &[i64]) -> MiniTensor {
    let t = doubles(values, sizes);
    t.set_requires_grad(true).expect("requires_grad");
    t
}

const INPLACE: &str = "Inplace update to inference tensor outside InferenceMode is not \
allowed.You can make a clone to get a normal tensor before doing inplace update.See \
https://github.com/pytorch/rfcs/pull/17 for more details.";

#[test]
fn tensors_made_in_inference_mode_are_inference_tensors() {
    crate::install().unwrap();
    let normal = doubles(&[1.0, 2.0], &[2]);
    let (made, sum, view_of_made) = {
        let _inference = InferenceModeGuard::new();
        let made = doubles(&[3.0, 4.0], &[2]);
        let sum = try_add(&normal, &normal).unwrap();
        let view = try_select(&made, 0, 1).unwrap();
        (made, sum, view)
    };
    assert!(!normal.is_inference());
    for t in [&made, &sum, &view_of_made] {
        assert!(t.is_inference());
        // No autograd key; `ADInplaceOrView` stays, for the checks outside inference mode.
        assert!(!t.key_set().contains(DispatchKey::AutogradCPU));
        assert!(t.key_set().contains(DispatchKey::ADInplaceOrView));
    }
    // A view of an inference tensor is no view (it has no version counter to share).
    assert!(view_of_made.view_base().is_none() && !view_of_made.is_view());
    // Out of inference mode: a view of an inference tensor is one too; a functional
    // operator's result is a normal tensor.
    assert!(try_select(&made, 0, 0).unwrap().is_inference());
    let normal_again = try_mul(&made, &made).unwrap();
    assert!(!normal_again.is_inference());
    assert!(normal_again.key_set().contains(DispatchKey::AutogradCPU));
    assert_eq!(values(&normal_again), [9.0, 16.0]);
}

#[test]
fn inplace_update_of_an_inference_tensor_outside_inference_mode_is_refused() {
    crate::install().unwrap();
    let mut made = {
        let _inference = InferenceModeGuard::new();
        let mut made = doubles(&[1.0, 2.0], &[2]);
        // Inside inference mode it may be updated (it has no counter to bump).
        made.try_neg_().unwrap();
        made
    };
    assert_eq!(values(&made), [-1.0, -2.0]);
    let err = made.try_neg_().unwrap_err().to_string();
    assert!(err.starts_with(INPLACE), "{err}");
    assert!(err.contains("neg_"), "{err}");
    // Refused before the operator wrote.
    assert_eq!(values(&made), [-1.0, -2.0]);
    // Through a view too, and as an out argument.
    let mut row = try_select(&made, 0, 0).unwrap();
    assert!(row.try_neg_().unwrap_err().to_string().starts_with(INPLACE));
    let other = doubles(&[1.0, 1.0], &[2]);
    let err = try_mul_out(&mut made, &other, &other)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with(INPLACE), "{err}");
    // The fix PyTorch suggests: a clone is a normal tensor.
    let mut copy = made.try_clone().unwrap();
    copy.try_neg_().unwrap();
    assert_eq!(
        (values(&copy), copy.version().unwrap()),
        (vec![1.0, 2.0], 1)
    );
}

#[test]
fn inference_tensors_do_not_track_version_counter() {
    let made = {
        let _inference = InferenceModeGuard::new();
        doubles(&[1.0], &[1])
    };
    let err = made.version().unwrap_err().to_string();
    assert_eq!(err, "Inference tensors do not track version counter.");
}

#[test]
fn inference_tensors_cannot_be_saved_for_backward() {
    crate::install().unwrap();
    let made = {
        let _inference = InferenceModeGuard::new();
        doubles(&[2.0, 3.0], &[2])
    };
    let x = leaf(&[1.0, 1.0], &[2]);
    // `mul` saves both inputs for its backward.
    let err = try_mul(&x, &made).unwrap_err().to_string();
    assert!(
        err.starts_with(
            "Inference tensors cannot be saved for backward. To work around you can make a \
             clone to get a normal tensor and use it in autograd."
        ),
        "{err}"
    );
    // The clone is a normal tensor, and gradients flow.
    let y = try_mul(&x, &made.try_clone().unwrap()).unwrap();
    backward(&[try_sum(&y).unwrap()], &[], None, false).unwrap();
    assert_eq!(values(&x.grad().unwrap()), [2.0, 3.0]);
}

#[test]
fn requires_grad_on_an_inference_tensor_only_inside_inference_mode() {
    let made = {
        let _inference = InferenceModeGuard::new();
        let made = doubles(&[1.0], &[1]);
        made.set_requires_grad(true).unwrap();
        made.set_requires_grad(false).unwrap();
        made
    };
    let err = made.set_requires_grad(true).unwrap_err().to_string();
    assert_eq!(
        err,
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
    );
    made.set_requires_grad(false).unwrap();
    assert!(!made.requires_grad());
}

#[test]
fn inplace_on_a_normal_tensor_inside_inference_mode_bumps_its_version() {
    crate::install().unwrap();
    let mut normal = doubles(&[1.0, -2.0], &[2]);
    let v0 = normal.version().unwrap();
    {
        let _inference = InferenceModeGuard::new();
        normal.try_neg_().unwrap();
        normal.try_mul_(&doubles(&[2.0], &[1])).unwrap();
    }
    assert_eq!(values(&normal), [-2.0, 4.0]);
    assert_eq!(normal.version().unwrap(), v0 + 2);
    assert!(!normal.is_inference());
}

#[test]
fn a_view_of_a_normal_tensor_inside_inference_mode_is_recorded() {
    crate::install().unwrap();
    let x = leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let y = x.try_clone().unwrap();
    let mut row = {
        let _inference = InferenceModeGuard::new();
        try_select(&y, 0, 1).unwrap()
    };
    // A view of a normal tensor is a normal tensor, a view of its base, sharing its counter.
    assert!(!row.is_inference() && row.is_view());
    assert_eq!(values(&row.view_base().unwrap()), values(&y));
    let v0 = y.version().unwrap();
    {
        let _inference = InferenceModeGuard::new();
        row.try_neg_().unwrap();
    }
    assert_eq!(
        (values(&y), y.version().unwrap()),
        (vec![1.0, 2.0, -3.0, -4.0], v0 + 1)
    );
    // Out of inference mode, with autograd, PyTorch refuses to modify it in place.
    let err = row.try_exp_().unwrap_err().to_string();
    assert!(
        err.starts_with(
            "A view was created in inference mode and is being modified inplace in normal \
             mode. Given that this use case is ambiguous and error-prone, it is forbidden."
        ),
        "{err}"
    );
}

#[test]
fn inference_mode_false_inside_inference_mode_makes_normal_tensors() {
    crate::install().unwrap();
    let x = leaf(&[2.0], &[1]);
    let _inference = InferenceModeGuard::new();
    let made = doubles(&[3.0], &[1]);
    assert!(made.is_inference());
    let (normal, y) = {
        let _normal = InferenceModeGuard::with_enabled(false);
        assert!(!is_inference_mode_enabled());
        let normal = doubles(&[5.0], &[1]);
        // Autograd records again; the inference tensor is an input, not saved (`add`).
        let y = try_mul(&x, &normal).unwrap();
        assert!(y.requires_grad());
        assert!(!try_add(&made, &made).unwrap().is_inference());
        (normal, y)
    };
    assert!(!normal.is_inference() && is_inference_mode_enabled());
    // Back in inference mode: nothing is recorded, results are inference tensors.
    let z = try_mul(&x, &normal).unwrap();
    assert!(z.is_inference() && !z.requires_grad());
    drop(_inference);
    backward(&[y], &[], None, false).unwrap();
    assert_eq!(values(&x.grad().unwrap()), [5.0]);
}
