//! Another crate's kernels and operators, registered by being linked.

use opgen_tests_ext::VisionOps;

use super::*;

fn boxes() -> (TestTensor, TestTensor) {
    // Three intervals; the second overlaps the first a lot, the third not at all.
    let dets = TestTensor::on(
        DispatchKey::CPU,
        &[3, 2],
        &[0.0, 10.0, 1.0, 10.0, 20.0, 30.0],
    );
    let scores = cpu(&[0.9, 0.8, 0.7]);
    (dets, scores)
}

#[test]
fn an_operator_of_another_crate_has_a_free_function_and_an_extension_method() {
    let (dets, scores) = boxes();
    assert_eq!(opgen_tests_ext::nms(&dets, &scores, 0.5).data(), [0.0, 2.0]);
    assert_eq!(dets.nms(&scores, 0.95).data(), [0.0, 1.0, 2.0]);
    let op = Dispatcher::global().find("vision::nms", "").unwrap();
    let mut stack = Stack::from(vec![
        IValue::Tensor(dets),
        IValue::Tensor(scores),
        IValue::Float(0.5),
    ]);
    op.call_boxed(&mut stack).unwrap();
    assert!(matches!(stack.pop(), Some(IValue::Tensor(t)) if t.data() == [0.0, 2.0]));
}

#[test]
fn another_crate_adds_a_kernel_on_its_backend_key() {
    let p = TestTensor::on(DispatchKey::PrivateUse1, &[1], &[1.0]);
    assert_eq!(opgen_tests::ops::add(&p, &p).data(), [1002.0]);
    assert_eq!(p.add(&p).data(), [1002.0]);
}
