//! `MiniTensor` in autograd without operator formulas: its autograd state (made only when
//! needed), its keys, leaves and their gradients, `detach`, grad mode, and the tensor math
//! of `Differentiable` on the CPU and on Meta.

use opgen::autograd::{
    AutogradTensor, Differentiable, EnableGradGuard, NoGradGuard, backward, grad, is_grad_enabled,
};
use opgen::prelude::*;

use crate::{META, MiniTensor, PRIVATE_USE1};

fn doubles(values: &[f64], sizes: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(values.to_vec(), sizes).expect("a tensor")
}

fn leaf(values: &[f64], sizes: &[i64]) -> MiniTensor {
    let t = doubles(values, sizes);
    t.set_requires_grad(true)
        .expect("a float tensor may require grad");
    t
}

fn values(t: &MiniTensor) -> Vec<f64> {
    t.to_vec::<f64>().expect("values")
}

fn grad_values(t: &MiniTensor) -> Option<Vec<f64>> {
    t.grad().map(|g| values(&g))
}

#[test]
fn tensors_that_never_require_grad_hold_no_autograd_state() {
    crate::install().unwrap();
    let a = doubles(&[1.0, -2.0, 3.0], &[3]);
    let b = a.add(&a).relu().neg();
    // Queries answer without making the state.
    for t in [&a, &b] {
        assert!(!t.requires_grad() && t.is_leaf() && t.grad().is_none());
        assert!(t.grad_fn().is_none() && !t.is_view() && !t.retains_grad());
        assert!(t.autograd_meta().is_none());
    }
    // A view operator's output is a view of its base, as in PyTorch, also without grad:
    // it holds that state, its base none.
    let v = b.transpose(0, 0);
    assert!(v.is_view() && !v.requires_grad() && v.grad_fn().is_none());
    assert!(b.autograd_meta().is_none());
    // Asking for grad makes it, on the tensor (every handle sees it), not on others.
    let handle = a.share();
    a.set_requires_grad(true).unwrap();
    assert!(handle.requires_grad() && handle.autograd_meta().is_some());
    assert!(b.autograd_meta().is_none());
    a.set_requires_grad(false).unwrap();
    assert!(!handle.requires_grad() && handle.is_leaf());
}

#[test]
fn every_tensor_carries_its_devices_autograd_key() {
    crate::install().unwrap();
    let cpu = doubles(&[1.0, 2.0], &[2]);
    let meta = MiniTensor::meta(&[2], ScalarType::Float).unwrap();
    let device = cpu.to_device(PRIVATE_USE1).unwrap();
    let longs = MiniTensor::from_vec(vec![1i64, 2], &[2]).unwrap();
    for (t, key) in [
        (&cpu, DispatchKey::AutogradCPU),
        (&meta, DispatchKey::AutogradMeta),
        (&device, DispatchKey::AutogradPrivateUse1),
        (&longs, DispatchKey::AutogradCPU),
    ] {
        assert!(t.key_set().contains(key), "{:?}", t.key_set());
        assert_eq!(t.key_set().highest(), Some(key));
        // Views and detached tensors keep it.
        assert!(t.transpose(0, 0).key_set().contains(key));
        assert!(t.detach().unwrap().key_set().contains(key));
    }
    // Operators without an Autograd kernel fall through to the backend: same results.
    assert_eq!(values(&cpu.add(&cpu)), [2.0, 4.0]);
    assert_eq!(meta.add(&meta).shape(), [2]);
}

#[test]
fn only_floating_point_tensors_require_grad() {
    let longs = MiniTensor::from_vec(vec![1i64, 2], &[2]).unwrap();
    let err = longs.set_requires_grad(true).unwrap_err().to_string();
    assert_eq!(
        err,
        "only Tensors of floating point and complex dtype can require gradients"
    );
    assert!(!longs.requires_grad());
    longs.set_requires_grad(false).unwrap();
    let floats = MiniTensor::from_vec(vec![1.0f32], &[1]).unwrap();
    floats.set_requires_grad(true).unwrap();
    assert!(floats.requires_grad());
}

#[test]
fn backward_on_a_scalar_leaf_accumulates_ones() {
    let s = leaf(&[3.0], &[]);
    backward(&[s.share()], &[], None, false).unwrap();
    assert_eq!(grad_values(&s), Some(vec![1.0]));
    assert_eq!(s.grad().unwrap().dtype(), ScalarType::Double);
    // A second pass adds to the gradient (out of place: the first stays as it was).
    let first = s.grad().unwrap();
    backward(&[s.share()], &[], None, false).unwrap();
    assert_eq!(grad_values(&s), Some(vec![2.0]));
    assert_eq!(values(&first), [1.0]);
    // `grad = None` clears it; the next pass starts again.
    s.set_grad(None).unwrap();
    backward(&[s.share()], &[], None, false).unwrap();
    assert_eq!(grad_values(&s), Some(vec![1.0]));
    // A one-element tensor of any shape is a scalar output.
    let one = leaf(&[5.0], &[1, 1]);
    backward(&[one.share()], &[], None, false).unwrap();
    assert_eq!(one.grad().map(|g| g.shape()), Some(vec![1, 1]));
}

#[test]
fn gradients_given_for_a_leaf_add_up_across_passes() {
    let x = leaf(&[1.0, 2.0, 3.0], &[3]);
    let g1 = doubles(&[0.5, 1.0, -1.0], &[3]);
    let g2 = doubles(&[1.0, 1.0, 1.0], &[3]);
    backward(&[x.share()], &[Some(g1.share())], None, false).unwrap();
    assert_eq!(grad_values(&x), Some(vec![0.5, 1.0, -1.0]));
    backward(&[x.share()], &[Some(g2)], None, false).unwrap();
    assert_eq!(grad_values(&x), Some(vec![1.5, 2.0, 0.0]));
    // The gradient given first was not written to.
    assert_eq!(values(&g1), [0.5, 1.0, -1.0]);
    // `grad` returns the gradient and leaves `.grad` alone.
    let dx = grad(&[x.share()], &[x.share()], &[Some(g1)], None, false, false).unwrap();
    assert_eq!(dx[0].as_ref().map(values), Some(vec![0.5, 1.0, -1.0]));
    assert_eq!(grad_values(&x), Some(vec![1.5, 2.0, 0.0]));
}

#[test]
fn backward_refuses_what_pytorch_refuses() {
    let plain = doubles(&[1.0], &[]);
    let err = backward(&[plain], &[], None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "element 0 of tensors does not require grad and does not have a grad_fn"
    );
    let x = leaf(&[1.0, 2.0], &[2]);
    let err = backward(&[x.share()], &[], None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "grad can be implicitly created only for scalar outputs"
    );
    let wrong = doubles(&[1.0, 2.0, 3.0], &[3]);
    let err = backward(&[x.share()], &[Some(wrong)], None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a \
         shape of torch.Size([2])."
    );
    assert!(x.grad().is_none());
}

#[test]
fn detach_shares_data_and_version_but_not_autograd_state() {
    crate::install().unwrap();
    let x = leaf(&[1.0, 2.0], &[2]);
    let d = x.detach().unwrap();
    assert!(!d.requires_grad() && d.is_leaf() && d.grad().is_none());
    assert!(d.shares_storage(&x) && !d.is_same(&x).unwrap());
    // Not a view in the graph (PyTorch's `detach()._base` is None).
    assert!(AutogradTensor::view_base(&d).is_none() && !d.is_view());
    // Writing through the detached tensor is seen by `x` and bumps their one counter.
    let mut w = d.share();
    w.mul_(&doubles(&[10.0], &[]));
    assert_eq!(values(&x), [10.0, 20.0]);
    assert_eq!((x.version().unwrap(), d.version().unwrap()), (1, 1));
    // The detached tensor may require grad on its own.
    d.set_requires_grad(true).unwrap();
    x.set_requires_grad(false).unwrap();
    assert!(d.requires_grad() && !x.requires_grad());
    // Meta tensors detach too.
    let m = MiniTensor::meta(&[2, 3], ScalarType::Float).unwrap();
    let dm = m.detach().unwrap();
    assert!(dm.is_meta() && dm.shape() == [2, 3]);
}

#[test]
fn grad_mode_is_a_thread_local_guard() {
    assert!(is_grad_enabled());
    {
        let _off = NoGradGuard::new();
        assert!(!is_grad_enabled());
        {
            let _on = EnableGradGuard::new();
            assert!(is_grad_enabled());
        }
        assert!(!is_grad_enabled());
        // Leaves still take `requires_grad` and run backward under no_grad.
        let s = leaf(&[2.0], &[]);
        backward(&[s.share()], &[], None, false).unwrap();
        assert_eq!(grad_values(&s), Some(vec![1.0]));
    }
    assert!(is_grad_enabled());
}

#[test]
fn differentiable_math_on_the_cpu() {
    let t = MiniTensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let ones = t.ones_like().unwrap();
    let zeros = t.zeros_like().unwrap();
    assert_eq!(
        (ones.shape(), ones.dtype()),
        (vec![2, 3], ScalarType::Float)
    );
    assert_eq!(ones.to_vec::<f32>().unwrap(), [1.0; 6]);
    assert_eq!(zeros.to_vec::<f32>().unwrap(), [0.0; 6]);
    assert_eq!(
        t.accumulate(&ones).unwrap().to_vec::<f32>().unwrap(),
        [2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    );
    // PyTorch's at::sum_to: leading dimensions and dimensions of size 1 are summed.
    let sum_to = |sizes: &[i64]| t.sum_to(sizes).unwrap();
    assert_eq!(
        sum_to(&[2, 3]).to_vec::<f32>().unwrap(),
        [1., 2., 3., 4., 5., 6.]
    );
    assert_eq!(sum_to(&[3]).to_vec::<f32>().unwrap(), [5.0, 7.0, 9.0]);
    assert_eq!(sum_to(&[3]).shape(), [3]);
    assert_eq!(sum_to(&[1, 3]).shape(), [1, 3]);
    assert_eq!(sum_to(&[2, 1]).to_vec::<f32>().unwrap(), [6.0, 15.0]);
    assert_eq!(sum_to(&[2, 1]).shape(), [2, 1]);
    assert_eq!(sum_to(&[]).to_vec::<f32>().unwrap(), [21.0]);
    assert_eq!(sum_to(&[1, 1]).shape(), [1, 1]);
    let err = t.sum_to(&[1, 2, 3]).unwrap_err().to_string();
    assert!(err.contains("has more dimensions"), "{err}");
}

#[test]
fn differentiable_math_on_meta_gives_shapes() {
    let m = MiniTensor::meta(&[4, 1, 3], ScalarType::Double).unwrap();
    for t in [m.ones_like().unwrap(), m.zeros_like().unwrap()] {
        assert!(t.is_meta());
        assert_eq!((t.shape(), t.dtype()), (vec![4, 1, 3], ScalarType::Double));
    }
    assert_eq!(m.accumulate(&m).unwrap().shape(), [4, 1, 3]);
    let summed = m.sum_to(&[1, 3]).unwrap();
    assert!(summed.is_meta() && summed.shape() == [1, 3]);
    assert_eq!(m.sum_to(&[3]).unwrap().shape(), [3]);
    // Backward on Meta: the gradient of a leaf is a meta tensor of its shape.
    let x = MiniTensor::meta(&[2, 3], ScalarType::Float).unwrap();
    x.set_requires_grad(true).unwrap();
    let g = MiniTensor::meta(&[2, 3], ScalarType::Float).unwrap();
    backward(&[x.share()], &[Some(g)], None, false).unwrap();
    let gx = x.grad().unwrap();
    assert!(gx.is_meta() && gx.shape() == [2, 3]);
    let s = MiniTensor::meta(&[], ScalarType::Float).unwrap();
    s.set_requires_grad(true).unwrap();
    backward(&[s.share()], &[], None, false).unwrap();
    assert!(
        s.grad()
            .is_some_and(|g| g.is_meta() && g.shape().is_empty())
    );
    let err = backward(&[x.share()], &[], None, false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "grad can be implicitly created only for scalar outputs"
    );
}

#[test]
fn gradcheck_values_keep_shape_dtype_and_device() {
    use opgen::testing::GradcheckTensor;
    let t = MiniTensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    let u = t.with_values(&[0.25, -3.0]).unwrap();
    assert_eq!((u.shape(), u.dtype()), (vec![2], ScalarType::Float));
    assert_eq!(u.values_f64().unwrap(), [0.25, -3.0]);
    assert!(!u.shares_storage(&t));
    let p = t
        .to_device(PRIVATE_USE1)
        .unwrap()
        .with_values(&[1.0, 1.0])
        .unwrap();
    assert_eq!(p.device(), PRIVATE_USE1);
    assert!(
        MiniTensor::meta(&[1], ScalarType::Float)
            .unwrap()
            .values_f64()
            .is_err()
    );
    let _ = META;
}
