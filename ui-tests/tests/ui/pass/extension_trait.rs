//! Methods on a tensor type of another crate, through a generated extension trait.

use opgen::prelude::*;
use opgen_ui_tests::MyTensor;

#[native_function("nms(Tensor self, Tensor scores, float iou_threshold=0.5) -> Tensor",
                  namespace = "vision", variants = "function, method",
                  methods = "trait NmsExt", dispatch = "CPU")]
pub fn nms_cpu(self_: &MyTensor, scores: &MyTensor, iou_threshold: f64) -> MyTensor {
    let _ = (scores, iou_threshold);
    self_.clone()
}

fn main() {
    let t = MyTensor::cpu();
    let _ = t.nms(&t);
    let _ = t.try_nms(&t);
    // The trait has the plain and fallible forms; the `_with` form is a free function.
    let _ = nms_with(&t, &t, NmsArgs { iou_threshold: 0.7 });
    let _ = nms(&t, &t);
}
