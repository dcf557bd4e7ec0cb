//! Factory functions. They have no tensor arguments, so a call has no key to dispatch on:
//! as in PyTorch, a `BackendSelect` kernel picks the backend from the `device` option and
//! redispatches to the `CPU` or `Meta` kernel. `#[native_function]` generates that kernel
//! for every schema with TensorOptions, so each factory here is just its `CPU, Meta` kernel
//! with PyTorch's schema. The generated functions are the API, in torchgen's two forms:
//! the convenient ones take the options as one [`TensorOptions`] (`zeros(size, options)`,
//! `zeros_with(size, ZerosArgs { options })` and their `try_` twins), the faithful one
//! (the marker's `call`, every argument in schema order) takes `dtype`, `layout`, `device`
//! and `pin_memory` separately (`zeros::call((size, dtype, layout, device, pin_memory))`).

use opgen::dispatch::MemoryFormat;
use opgen::prelude::*;

use crate::MiniTensor;
use crate::kernels::factory::{arange_impl, arange_meta, factory_meta, fill, full_dtype};

/// A new tensor of `size` (`aten::empty.memory_format`): its values are unspecified
/// (zeros here).
#[native_function(
    "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    dispatch = "CPU, Meta",
    name = "empty"
)]
pub fn empty_kernel(
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
    memory_format: Option<MemoryFormat>,
) -> Result<MiniTensor, Error> {
    if let Some(f) = memory_format.filter(|&f| f != MemoryFormat::Contiguous) {
        return Err(Error::from(format!(
            "MiniTensor supports only the contiguous_format memory format for new tensors; got {f}"
        )));
    }
    factory_meta(size, dtype, layout, device, pin_memory)?.allocate()
}

/// A tensor of `size` filled with zeros (`aten::zeros`).
#[native_function(
    "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "CPU, Meta"
)]
pub fn zeros_kernel(
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    factory_meta(size, dtype, layout, device, pin_memory)?.allocate()
}

/// A tensor of `size` filled with ones (`aten::ones`).
#[native_function(
    "ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "CPU, Meta"
)]
pub fn ones_kernel(
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let t = factory_meta(size, dtype, layout, device, pin_memory)?.allocate()?;
    fill(&t, Scalar::Int(1))?;
    Ok(t)
}

/// A tensor of `size` filled with `fill_value` (`aten::full`): without `dtype`, the fill
/// value's (`Bool`, `Long`, or the default float).
#[native_function(
    "full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "CPU, Meta"
)]
pub fn full_kernel(
    size: &[i64],
    fill_value: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let dtype = Some(dtype.map_or_else(|| full_dtype(fill_value), Ok)?);
    let t = factory_meta(size, dtype, layout, device, pin_memory)?.allocate()?;
    fill(&t, fill_value)?;
    Ok(t)
}

/// `start, start + step, ..` up to `end` (excluded): integer bounds give `Long`, others the
/// default float dtype.
#[allow(clippy::too_many_arguments)]
fn arange_tensor(
    start: Scalar,
    end: Scalar,
    step: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let mut t = arange_meta(start, end, step, dtype, layout, device, pin_memory)?.allocate()?;
    if !t.is_meta() {
        arange_impl(start, step, &mut t)?;
    }
    Ok(t)
}

/// `0, 1, ..` below `end` (`aten::arange`).
#[native_function(
    "arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "CPU, Meta"
)]
pub fn arange_kernel(
    end: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let (start, step) = (Scalar::Int(0), Scalar::Int(1));
    arange_tensor(start, end, step, dtype, layout, device, pin_memory)
}

/// `start, start + 1, ..` below `end` (`aten::arange.start`).
#[native_function(
    "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "CPU, Meta"
)]
pub fn arange_start_kernel(
    start: Scalar,
    end: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    arange_tensor(
        start,
        end,
        Scalar::Int(1),
        dtype,
        layout,
        device,
        pin_memory,
    )
}

/// `start, start + step, ..` up to `end` (excluded) (`aten::arange.start_step`).
#[native_function(
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "CPU, Meta"
)]
#[allow(clippy::too_many_arguments)]
pub fn arange_start_step_kernel(
    start: Scalar,
    end: Scalar,
    step: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    arange_tensor(start, end, step, dtype, layout, device, pin_memory)
}

/// Zeros of `self`'s shape, with `self`'s dtype and device unless given (`aten::zeros_like`;
/// the memory format is always contiguous here).
#[native_function(
    "zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    variants = "function",
    dispatch = "CPU, Meta"
)]
pub fn zeros_like_kernel(
    self_: &MiniTensor,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
    memory_format: Option<MemoryFormat>,
) -> Result<MiniTensor, Error> {
    let _ = memory_format; // zeros are contiguous whatever the format asked
    let own = self_.options()?;
    let dtype = dtype.or(own.dtype);
    let device = device.or(own.device);
    factory_meta(&self_.shape(), dtype, layout, device, pin_memory)?.allocate()
}

/// A 0-dim tensor holding `s` (`aten::scalar_tensor`): the default float dtype unless given.
#[native_function(
    "scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "CPU, Meta"
)]
pub fn scalar_tensor_kernel(
    s: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let t = factory_meta(&[], dtype, layout, device, pin_memory)?.allocate()?;
    fill(&t, s)?;
    Ok(t)
}

/// Zeros of `size` (`aten::_efficientzerotensor`: PyTorch's zero tensor without storage,
/// an ordinary zero tensor here).
#[native_function(
    "_efficientzerotensor(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "CPU, Meta"
)]
pub fn efficientzerotensor_kernel(
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    factory_meta(size, dtype, layout, device, pin_memory)?.allocate()
}
