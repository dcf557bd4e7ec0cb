//! `add.Tensor`, `add_.Tensor` and `add.out` on one tensor type, with methods, in a crate
//! that denies `missing_docs` and `non_local_definitions`: every public item the attribute
//! generates is documented or hidden, and its impls sit in anonymous consts.

#![deny(missing_docs, non_local_definitions)]

use std::sync::Arc;

use opgen::prelude::*;

/// A dense tensor of `f64`s on the CPU.
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

/// The CPU kernel of `add.Tensor`.
#[native_function("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                  variants = "function, method", dispatch = "CPU")]
pub fn add_cpu(self_: &Dense, other: &Dense, alpha: Scalar) -> Dense {
    Dense(Arc::new(zip(self_, other, alpha)))
}

/// The CPU kernel of `add_.Tensor`, a method only.
#[native_function("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
                  variants = "method", dispatch = "CPU")]
pub fn add_cpu_(self_: &mut Dense, other: &Dense, alpha: Scalar) {
    *self_ = Dense(Arc::new(zip(self_, other, alpha)));
}

/// The CPU kernel of `add.out`.
#[native_function("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
                  dispatch = "CPU")]
pub fn add_out_cpu(self_: &Dense, other: &Dense, alpha: Scalar, out: &mut Dense) -> Dense {
    *out = Dense(Arc::new(zip(self_, other, alpha)));
    out.clone()
}

/// The CPU kernel of `sub.Tensor`, whose methods are in an extension trait.
#[native_function("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                  variants = "function, method", methods = "trait SubExt", dispatch = "CPU")]
pub fn sub_cpu(self_: &Dense, other: &Dense, alpha: Scalar) -> Dense {
    let minus = Scalar::Float(-alpha.to_f64());
    Dense(Arc::new(zip(self_, other, minus)))
}

fn main() {
    let a = Dense(Arc::new(vec![1.0, 2.0]));
    let b = Dense(Arc::new(vec![10.0, 20.0]));
    assert_eq!(*add(&a, &b).0, [11.0, 22.0]);
    // Methods: the plain and fallible forms; defaulted arguments go to the free `_with` form.
    assert_eq!(*a.add(&b).0, [11.0, 22.0]);
    assert_eq!(*a.try_add(&b).unwrap().0, [11.0, 22.0]);
    assert_eq!(*add_with(&a, &b, AddArgs { alpha: Scalar::Int(2) }).0, [21.0, 42.0]);
    assert_eq!(*a.sub(&b).0, [-9.0, -18.0]);
    assert_eq!(*try_sub_with(&a, &b, SubArgs { alpha: Scalar::Int(2) }).unwrap().0, [-19.0, -38.0]);
    // A method-only operator keeps its four forms as methods.
    let mut c = a.clone();
    assert_eq!(*c.add_(&b).0, [11.0, 22.0]);
    assert_eq!(*c.0, [11.0, 22.0]);
    c.add_with_(&b, AddInplaceArgs { alpha: Scalar::Int(-1) });
    assert_eq!(*c.0, [1.0, 2.0]);
    assert!(c.try_add_with_(&b, AddInplaceArgs::default()).is_ok());
    let mut out = a.clone();
    assert_eq!(*add_out(&mut out, &a, &b).0, [11.0, 22.0]);
    // The faithful form: the marker's `call`, every argument in schema order.
    assert_eq!(*add_out::call((&a, &b, Scalar::Int(0), &mut out)).unwrap().0, [1.0, 2.0]);
}
