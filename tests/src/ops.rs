//! Operators of the `aten` namespace on [`TestTensor`], with their CPU kernels. The
//! integration tests add Meta kernels in another module, and `opgen-tests-ext` adds
//! PrivateUse1 kernels from another crate.

use std::sync::atomic::{AtomicUsize, Ordering};

use opgen::prelude::*;

use crate::{TestTensor, zip_with};

/// Adds `other`, scaled by `alpha`, to `self`, broadcasting their shapes.
#[native_function(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    variants = "function, method",
    dispatch = "CPU"
)]
pub fn add_cpu(
    self_: &TestTensor,
    other: &TestTensor,
    alpha: Scalar,
) -> Result<TestTensor, String> {
    let alpha = alpha.to_f64();
    zip_with(self_, other, |a, b| a + alpha * b)
}

/// The negation of `self`.
#[native_function(
    "neg(Tensor self) -> Tensor",
    variants = "function, method",
    dispatch = "CPU"
)]
pub fn neg_cpu(self_: &TestTensor) -> TestTensor {
    self_.like(
        self_.shape(),
        Some(self_.data().iter().map(|x| -x).collect()),
    )
}

/// `self` clamped below at zero. Its autograd kernel (in the integration tests) counts the
/// calls and redispatches below itself.
#[native_function(
    "relu(Tensor self) -> Tensor",
    variants = "function, method",
    dispatch = "CPU"
)]
pub fn relu_cpu(self_: &TestTensor) -> TestTensor {
    self_.like(
        self_.shape(),
        Some(self_.data().iter().map(|x| x.max(0.0)).collect()),
    )
}

/// `self` multiplied by `factor`, `times` times; every argument after `self` has a default.
#[native_function(
    "scale(Tensor self, float factor=2.0, int times=1, *, bool negate=False) -> Tensor",
    dispatch = "CPU"
)]
pub fn scale_cpu(self_: &TestTensor, factor: f64, times: i64, negate: bool) -> TestTensor {
    let by = factor.powi(times as i32) * if negate { -1.0 } else { 1.0 };
    self_.like(
        self_.shape(),
        Some(self_.data().iter().map(|x| x * by).collect()),
    )
}

/// How many times [`fails_cpu`] ran.
pub static FAILS_CALLS: AtomicUsize = AtomicUsize::new(0);

/// Fails unless `ok`: kernel errors reach `try_` callers as values and plain callers as
/// panics.
#[native_function("fails(Tensor self, bool ok) -> Tensor", dispatch = "CPU")]
pub fn fails_cpu(self_: &TestTensor, ok: bool) -> Result<TestTensor, Error> {
    FAILS_CALLS.fetch_add(1, Ordering::Relaxed);
    if ok {
        Ok(self_.clone())
    } else {
        Err(Error::from("the kernel refused"))
    }
}

/// Defined here with one schema; the test binary `link_errors` defines it again with
/// another, which is a duplicate-`def` link error.
#[native_function("dup_probe(Tensor self) -> Tensor", dispatch = "CPU")]
pub fn dup_probe_cpu(self_: &TestTensor) -> TestTensor {
    self_.clone()
}

/// A no-op kernel, for the benchmark of the generated layer.
#[native_function("identity(Tensor self) -> Tensor", dispatch = "CPU")]
pub fn identity_cpu(self_: &TestTensor) -> TestTensor {
    self_.clone()
}
