//! Operators in static-dispatch mode: this crate's feature `opgen-static-dispatch` is on by
//! default, so the functions generated here call the kernels directly (the kernel of the
//! highest backend key of the arguments, else a composite kernel), with no dispatcher in the
//! path. The kernels also register with the global dispatcher, as in dynamic mode, so the
//! operators are callable by name too.

// Generated code keeps these lints quiet: every public item it makes is documented or
// hidden, and its impls sit in anonymous consts.
#![deny(missing_docs, non_local_definitions)]

use opgen::prelude::*;
use opgen::structured::StructuredMeta;
use opgen_tests::{DenseTensor, TestTensor, zip_with};

/// The elementwise product, on CPU.
#[native_function(
    "mul(Tensor self, Tensor other) -> Tensor",
    namespace = "static_test",
    dispatch = "CPU"
)]
pub fn mul_cpu(self_: &TestTensor, other: &TestTensor) -> Result<TestTensor, String> {
    zip_with(self_, other, |a, b| a * b)
}

/// The elementwise product on Meta: the broadcast shape.
#[native_function(op = "static_test::mul", dispatch = "Meta")]
pub fn mul_meta(self_: &TestTensor, other: &TestTensor) -> Result<TestTensor, String> {
    zip_with(self_, other, |_, _| 0.0)
}

/// `self + self`, for every backend (`CompositeExplicitAutograd`).
#[native_function(
    "twice(Tensor self) -> Tensor",
    namespace = "static_test",
    dispatch = "CompositeExplicitAutograd"
)]
pub fn twice_any(self_: &TestTensor) -> TestTensor {
    self_.like(
        self_.shape(),
        Some(self_.data().iter().map(|x| 2.0 * x).collect()),
    )
}

/// A CPU-only operator: calling it with a Meta tensor is a static-dispatch error.
#[native_function(
    "only_cpu(Tensor self) -> Tensor",
    namespace = "static_test",
    dispatch = "CPU"
)]
pub fn only_cpu_kernel(self_: &TestTensor) -> TestTensor {
    self_.clone()
}

/// `0, 1, .., n-1` on CPU: a factory, whose backend comes from its `device` (static dispatch
/// computes it from dtype, layout and device, as torchgen's does).
#[native_function(
    "ramp(int n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    namespace = "static_test",
    dispatch = "CPU",
    tensor = "TestTensor"
)]
pub fn ramp_cpu(
    n: i64,
    _dtype: Option<ScalarType>,
    _layout: Option<Layout>,
    _device: Option<Device>,
    _pin_memory: Option<bool>,
) -> TestTensor {
    TestTensor::cpu(&(0..n).map(|i| i as f64).collect::<Vec<_>>())
}

/// The shape of `ramp` on Meta.
#[native_function(op = "static_test::ramp", dispatch = "Meta")]
pub fn ramp_meta(
    n: i64,
    _dtype: Option<ScalarType>,
    _layout: Option<Layout>,
    _device: Option<Device>,
    _pin_memory: Option<bool>,
) -> TestTensor {
    TestTensor::meta(&[n])
}

/// `self * self` on [`DenseTensor`], structured: one meta function and one CPU impl on the
/// out operator; the functional and in-place operators delegate to it. In static mode the
/// delegates' kernels (the structured wrappers at the impl's keys) are found as in dynamic
/// mode.
#[native_function(
    "sq.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    namespace = "static_test"
)]
#[native_function(
    "sq(Tensor self) -> Tensor",
    structured_delegate = "sq.out",
    namespace = "static_test"
)]
#[native_function(
    "sq_(Tensor(a!) self) -> Tensor(a!)",
    structured_delegate = "sq.out",
    namespace = "static_test"
)]
pub fn sq_meta(
    meta: &mut StructuredMeta<'_, DenseTensor>,
    self_: &DenseTensor,
) -> Result<(), Error> {
    meta.set_output(0, &self_.sizes()?, self_.options()?)
}

/// The CPU impl of `static_test::sq.out`.
#[native_function(op = "static_test::sq.out", structured, dispatch = "CPU")]
pub fn sq_out_cpu(self_: &DenseTensor, out: &mut DenseTensor) -> Result<(), Error> {
    out.set_values(self_.values().iter().map(|v| v * v).collect())
}

/// `self³` on CPU: only the functional kernel, so the runtime derives `cube.out` (compute,
/// resize, copy), which static mode calls too.
#[native_function(
    "cube(Tensor self) -> Tensor",
    dispatch = "CPU",
    namespace = "static_test"
)]
pub fn cube_cpu(self_: &DenseTensor) -> DenseTensor {
    let values: Vec<f64> = self_.values().iter().map(|v| v * v * v).collect();
    DenseTensor::cpu_shaped(&self_.shape(), &values)
}

/// `cube.out`, defined without kernels.
#[native_function(
    "cube.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    manual_kernel_registration = true,
    namespace = "static_test"
)]
pub fn cube_out_unused(self_: &DenseTensor, out: &mut DenseTensor) -> DenseTensor {
    let _ = self_;
    out.clone()
}
