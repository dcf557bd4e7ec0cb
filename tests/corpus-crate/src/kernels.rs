//! CPU kernels of a few included operators, attached with `#[native_function(op = ...)]`.

use std::sync::Arc;

use opgen::prelude::*;

use crate::CpuTensor;

fn zip(a: &CpuTensor, b: &CpuTensor, f: impl Fn(f64, f64) -> f64) -> CpuTensor {
    CpuTensor(Arc::new(
        a.0.iter().zip(b.0.iter()).map(|(x, y)| f(*x, *y)).collect(),
    ))
}

/// `add.Tensor`: `self + alpha * other`.
#[native_function(op = "aten::add.Tensor", dispatch = "CPU")]
pub fn add_cpu(self_: &CpuTensor, other: &CpuTensor, alpha: Scalar) -> CpuTensor {
    let alpha = alpha.to_f64();
    zip(self_, other, |x, y| x + alpha * y)
}

/// `mul.Tensor`.
#[native_function(op = "aten::mul.Tensor", dispatch = "CPU")]
pub fn mul_cpu(self_: &CpuTensor, other: &CpuTensor) -> CpuTensor {
    zip(self_, other, |x, y| x * y)
}

/// `relu`.
#[native_function(op = "aten::relu", dispatch = "CPU")]
pub fn relu_cpu(self_: &CpuTensor) -> CpuTensor {
    CpuTensor(Arc::new(self_.0.iter().map(|x| x.max(0.0)).collect()))
}

/// `sum`: the sum of all values, as a one-element tensor.
#[native_function(op = "aten::sum", dispatch = "CPU")]
pub fn sum_cpu(self_: &CpuTensor, _dtype: Option<ScalarType>) -> CpuTensor {
    CpuTensor::new(&[self_.0.iter().sum()])
}

/// `add.out`: writes `self + alpha * other` into `out`.
#[native_function(op = "aten::add.out", dispatch = "CPU")]
pub fn add_out_cpu(
    self_: &CpuTensor,
    other: &CpuTensor,
    alpha: Scalar,
    out: &mut CpuTensor,
) -> CpuTensor {
    *out = add_cpu(self_, other, alpha);
    // `out.clone()` would be the `aten::clone` method: inherent methods win over traits.
    Clone::clone(out)
}
