//! Static dispatch (`opgen-tests-static` has its feature `opgen-static-dispatch` on): the
//! kernel of the highest backend key of the arguments, else the composite kernel, with no
//! dispatcher tables, thread-local keys or autograd keys in the path.

use opgen::dispatch::IncludeDispatchKeyGuard;
use opgen_tests_static as st;

use super::*;

#[test]
fn the_backend_key_of_the_arguments_picks_the_kernel() {
    let (a, b) = (cpu(&[2.0, 3.0]), cpu(&[10.0, 10.0]));
    assert_eq!(st::mul(&a, &b).data(), [20.0, 30.0]);
    let m = st::mul(&TestTensor::meta(&[2, 1]), &TestTensor::meta(&[4]));
    assert_eq!((m.device(), m.shape()), (DispatchKey::Meta, &[2, 4][..]));
}

#[test]
fn a_backend_without_kernel_falls_back_to_the_composite_kernel() {
    let p = TestTensor::on(DispatchKey::PrivateUse1, &[2], &[1.0, 2.0]);
    assert_eq!(st::twice(&p).data(), [2.0, 4.0]);
    assert_eq!(st::twice(&cpu(&[5.0])).data(), [10.0]);
}

#[test]
fn no_kernel_and_no_composite_is_an_error() {
    let m = TestTensor::meta(&[1]);
    assert_eq!(
        message(st::try_only_cpu(&m)),
        "Static dispatch does not support static_test::only_cpu for Meta. The kernels linked into the \
         program serve: [CPU]; link one for `Meta`"
    );
}

#[test]
fn autograd_and_thread_local_keys_play_no_part() {
    let t = cpu(&[2.0]).requires_grad();
    let dynamic = Dispatcher::global()
        .typed::<_, (&TestTensor, &TestTensor), TestTensor>("static_test::mul", "")
        .unwrap();
    // Static dispatch looks at the backend key only.
    assert_eq!(st::mul(&t, &t).data(), [4.0]);
    // With Meta included, dynamic dispatch takes the Meta backend (above CPU): its kernel
    // computes zeros...
    assert_eq!(dynamic.call(&t, &t).data(), [4.0]);
    let _meta = IncludeDispatchKeyGuard::new(DispatchKey::Meta);
    assert_eq!(dynamic.call(&t, &t).data(), [0.0]);
    // ...static dispatch still the CPU kernel.
    assert_eq!(st::mul(&t, &t).data(), [4.0]);
}

#[test]
fn statically_dispatched_operators_are_registered_too() {
    let op = Dispatcher::global().find("static_test::mul", "").unwrap();
    let (a, b) = (cpu(&[3.0]), cpu(&[4.0]));
    let mut stack = Stack::from(vec![IValue::Tensor(a), IValue::Tensor(b)]);
    op.call_boxed(&mut stack).unwrap();
    assert!(matches!(stack.pop(), Some(IValue::Tensor(t)) if t.data() == [12.0]));
}

#[test]
fn a_factory_takes_its_backend_from_its_options() {
    let meta: Device = "meta".parse().unwrap();
    // No device: CPU, as c10's `computeDispatchKey` defaults.
    let t = st::ramp(3, TensorOptions::new());
    assert_eq!(
        (t.device(), t.data()),
        (DispatchKey::CPU, &[0.0, 1.0, 2.0][..])
    );
    let m = st::ramp(3, TensorOptions::new().device(meta));
    assert_eq!((m.device(), m.shape()), (DispatchKey::Meta, &[3][..]));
    let f = st::ramp::call((2, None, None, Some(meta), None)).unwrap();
    assert_eq!(f.device(), DispatchKey::Meta);
    // A device without kernel is the static-dispatch error, naming the backend.
    let cuda: Device = "cuda:0".parse().unwrap();
    assert_eq!(
        message(st::try_ramp(1, TensorOptions::new().device(cuda))),
        "Static dispatch does not support static_test::ramp for CUDA. The kernels linked into the \
         program serve: [CPU, Meta]; link one for `CUDA`"
    );
    // Options the backend rules refuse are errors naming the operator.
    let mkldnn_meta = TensorOptions::new().layout(Layout::Mkldnn).device(meta);
    assert!(message(st::try_ramp(1, mkldnn_meta)).contains("static_test::ramp"));
}

#[test]
fn structured_delegates_and_derived_wrappers_dispatch_statically() {
    use opgen_tests::DenseTensor;
    let x = DenseTensor::cpu(&[1.0, -2.0, 3.0]);
    // The delegates' structured wrappers, registered after every kernel (`DEFERRED`).
    assert_eq!(st::sq(&x).values(), [1.0, 4.0, 9.0]);
    let mut y = DenseTensor::cpu(&[-3.0]);
    let _ = st::sq_(&mut y);
    assert_eq!(y.values(), [9.0]);
    let mut out = DenseTensor::cpu(&[0.0; 3]);
    let _ = st::sq_out(&mut out, &x);
    assert_eq!(out.values(), [1.0, 4.0, 9.0]);
    // The out wrapper derived from the functional kernel resizes `out`.
    let mut out = DenseTensor::cpu(&[0.0]);
    let _ = st::cube_out(&mut out, &x);
    assert_eq!(
        (out.shape(), out.values()),
        (vec![3], vec![1.0, -8.0, 27.0])
    );
    // The meta function is the group's Meta kernel.
    let meta = st::sq(&DenseTensor::meta(&[2], ScalarType::Double));
    assert_eq!((meta.device(), meta.shape()), (DispatchKey::Meta, vec![2]));
    // A backend without kernel in the group: the static-dispatch error.
    let private = DenseTensor::new(DispatchKey::PrivateUse1, ScalarType::Double, &[1], &[1.0]);
    assert_eq!(
        message(st::try_sq(&private)),
        "Static dispatch does not support static_test::sq for PrivateUse1. The kernels linked into \
         the program serve: [CPU, Meta]; link one for `PrivateUse1`"
    );
}
