//! An extension crate, as a third party would write one: it registers a kernel for an
//! operator of another crate on its own backend key, and adds an operator with an extension
//! trait for another crate's tensor type. Everything registers by this crate being linked.

// Generated code keeps these lints quiet: every public item it makes is documented or
// hidden, and its impls sit in anonymous consts.
#![deny(missing_docs, non_local_definitions)]

use opgen::prelude::*;
use opgen_tests::{TestTensor, zip_with};

/// `aten::add.Tensor` on the `PrivateUse1` device. It adds 1000 to every element, so that
/// tests can tell that this kernel ran.
#[native_function(op = "aten::add.Tensor", dispatch = "PrivateUse1")]
pub fn add_private_use1(
    self_: &TestTensor,
    other: &TestTensor,
    alpha: Scalar,
) -> Result<TestTensor, String> {
    let alpha = alpha.to_f64();
    zip_with(self_, other, |a, b| a + alpha * b + 1000.0)
}

/// Non-maximum suppression over one-dimensional boxes: `self` holds `[start, end]` pairs
/// (shape `[n, 2]`), `scores` one score each. Returns the indices of the boxes kept, best
/// first: a box is dropped when its intersection over union with a kept box exceeds
/// `iou_threshold`.
#[native_function(
    "vision::nms(Tensor self, Tensor scores, float iou_threshold) -> Tensor",
    variants = "function, method",
    methods = "trait VisionOps",
    dispatch = "CPU"
)]
pub fn nms_cpu(self_: &TestTensor, scores: &TestTensor, iou_threshold: f64) -> TestTensor {
    let boxes: Vec<(f64, f64)> = self_
        .data()
        .chunks(2)
        .map(|b| (b[0], b.get(1).copied().unwrap_or(b[0])))
        .collect();
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&i, &j| scores.data()[j].total_cmp(&scores.data()[i]));
    let iou = |(a0, a1): (f64, f64), (b0, b1): (f64, f64)| {
        let inter = (a1.min(b1) - a0.max(b0)).max(0.0);
        let union = (a1 - a0) + (b1 - b0) - inter;
        if union > 0.0 { inter / union } else { 0.0 }
    };
    let mut kept: Vec<usize> = Vec::new();
    for i in order {
        if kept
            .iter()
            .all(|&k| iou(boxes[k], boxes[i]) <= iou_threshold)
        {
            kept.push(i);
        }
    }
    let data: Vec<f64> = kept.iter().map(|&i| i as f64).collect();
    TestTensor::on(DispatchKey::CPU, &[data.len() as i64], &data)
}
