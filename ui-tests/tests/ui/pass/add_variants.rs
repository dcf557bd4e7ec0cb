//! `add.Tensor`, `add_.Tensor` and `add.out` on one tensor type, with methods.

use std::sync::Arc;

use opgen::prelude::*;

#[derive(Clone, Debug)]
pub struct Dense(Arc<Vec<f64>>);

impl Tensor for Dense {
    fn key_set(&self) -> DispatchKeySet {
        DispatchKey::CPU.into()
    }
}

fn zip(a: &Dense, b: &Dense, alpha: Scalar) -> Vec<f64> {
    let alpha = alpha.to_f64();
    a.0.iter().zip(b.0.iter()).map(|(x, y)| x + alpha * y).collect()
}

#[native_function("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                  variants = "function, method", dispatch = "CPU")]
pub fn add_cpu(self_: &Dense, other: &Dense, alpha: Scalar) -> Dense {
    Dense(Arc::new(zip(self_, other, alpha)))
}

#[native_function("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
                  variants = "method", dispatch = "CPU")]
pub fn add_cpu_(self_: &mut Dense, other: &Dense, alpha: Scalar) {
    *self_ = Dense(Arc::new(zip(self_, other, alpha)));
}

#[native_function("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
                  dispatch = "CPU")]
pub fn add_out_cpu(self_: &Dense, other: &Dense, alpha: Scalar, out: &mut Dense) -> Dense {
    *out = Dense(Arc::new(zip(self_, other, alpha)));
    out.clone()
}

fn main() {
    let a = Dense(Arc::new(vec![1.0, 2.0]));
    let b = Dense(Arc::new(vec![10.0, 20.0]));
    assert_eq!(*add(&a, &b).0, [11.0, 22.0]);
    assert_eq!(*a.add_with(&b, AddArgs { alpha: Scalar::Int(2) }).0, [21.0, 42.0]);
    let mut c = a.clone();
    assert_eq!(*c.add_(&b).0, [11.0, 22.0]);
    assert_eq!(*c.0, [11.0, 22.0]);
    let mut out = a.clone();
    assert_eq!(*add_out(&mut out, &a, &b).0, [11.0, 22.0]);
    // The faithful form: the marker's `call`, every argument in schema order.
    assert_eq!(*add_out::call((&a, &b, Scalar::Int(0), &mut out)).unwrap().0, [1.0, 2.0]);
}
