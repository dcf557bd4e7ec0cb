//! Factory functions. They have no tensor arguments, so a call has no key to dispatch on:
//! as in PyTorch, a `BackendSelect` kernel picks the backend from the `device` option and
//! redispatches to the `CPU` or `Meta` kernel. PyTorch keeps `BackendSelect` in every
//! thread's included keys; opgen's thread-local state starts empty, so the public
//! functions here (hand-written: the attribute's `manual_cpp_binding` names the generated
//! ones `__dispatch_*`) include `BackendSelect` for the call. Each takes the options as one
//! [`TensorOptions`] (PyTorch's convenient form); the generated `__dispatch_*_faithful`
//! functions take `dtype`, `layout`, `device` and `pin_memory` separately.

use opgen::dispatch::{IncludeDispatchKeyGuard, MemoryFormat};
use opgen::prelude::*;

use crate::MiniTensor;
use crate::kernels::factory::{arange_impl, arange_meta, factory_meta, fill, full_dtype};
use crate::tensor::backend_key;

/// The key set a `BackendSelect` kernel redispatches with: the keys below `BackendSelect`
/// and the backend of `device` (the CPU by default).
fn select_backend(ks: DispatchKeySet, device: Option<Device>) -> Result<DispatchKeySet, Error> {
    Ok(ks.below(DispatchKey::BackendSelect) | backend_key(device.unwrap_or(Device::CPU))?)
}

/// Runs a factory call with `BackendSelect` included, as PyTorch always has it.
fn with_backend_select<R>(call: impl FnOnce() -> Result<R, Error>) -> Result<R, Error> {
    let _guard = IncludeDispatchKeyGuard::new(DispatchKey::BackendSelect);
    call()
}

#[track_caller]
fn or_panic<R>(result: Result<R, Error>) -> R {
    result.unwrap_or_else(|e| panic!("{e}"))
}

// ---- empty.memory_format

/// `BackendSelect` kernel of `empty.memory_format`.
#[native_function(
    "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    dispatch = "BackendSelect",
    manual_cpp_binding = true
)]
pub fn empty_backend_select(
    ks: DispatchKeySet,
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
    memory_format: Option<MemoryFormat>,
) -> Result<MiniTensor, Error> {
    let ks = select_backend(ks, device)?;
    __try_dispatch_empty_memory_format_redispatch(
        ks,
        size,
        dtype,
        layout,
        device,
        pin_memory,
        memory_format,
    )
}

/// `CPU` and `Meta` kernel of `empty.memory_format` (the values are zeros here).
#[native_function(op = "aten::empty.memory_format", dispatch = "CPU, Meta")]
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

/// A new tensor of `size` with `options` (`aten::empty.memory_format`): its values are
/// unspecified (zeros here).
pub fn try_empty(size: &[i64], options: TensorOptions) -> Result<MiniTensor, Error> {
    let (dtype, layout, device, pin_memory) = options.into_parts();
    with_backend_select(|| {
        try___dispatch_empty_memory_format_faithful(size, dtype, layout, device, pin_memory, None)
    })
}

/// [`try_empty`], panicking on error.
#[track_caller]
pub fn empty(size: &[i64], options: TensorOptions) -> MiniTensor {
    or_panic(try_empty(size, options))
}

// ---- zeros

/// `BackendSelect` kernel of `zeros`.
#[native_function(
    "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "BackendSelect",
    manual_cpp_binding = true
)]
pub fn zeros_backend_select(
    ks: DispatchKeySet,
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    __try_dispatch_zeros_redispatch(
        select_backend(ks, device)?,
        size,
        dtype,
        layout,
        device,
        pin_memory,
    )
}

/// `CPU` and `Meta` kernel of `zeros`.
#[native_function(op = "aten::zeros", dispatch = "CPU, Meta")]
pub fn zeros_kernel(
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    factory_meta(size, dtype, layout, device, pin_memory)?.allocate()
}

/// A tensor of `size` filled with zeros (`aten::zeros`).
pub fn try_zeros(size: &[i64], options: TensorOptions) -> Result<MiniTensor, Error> {
    let (dtype, layout, device, pin_memory) = options.into_parts();
    with_backend_select(|| try___dispatch_zeros_faithful(size, dtype, layout, device, pin_memory))
}

/// [`try_zeros`], panicking on error.
#[track_caller]
pub fn zeros(size: &[i64], options: TensorOptions) -> MiniTensor {
    or_panic(try_zeros(size, options))
}

// ---- ones

/// `BackendSelect` kernel of `ones`.
#[native_function(
    "ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "BackendSelect",
    manual_cpp_binding = true
)]
pub fn ones_backend_select(
    ks: DispatchKeySet,
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    __try_dispatch_ones_redispatch(
        select_backend(ks, device)?,
        size,
        dtype,
        layout,
        device,
        pin_memory,
    )
}

/// `CPU` and `Meta` kernel of `ones`.
#[native_function(op = "aten::ones", dispatch = "CPU, Meta")]
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

/// A tensor of `size` filled with ones (`aten::ones`).
pub fn try_ones(size: &[i64], options: TensorOptions) -> Result<MiniTensor, Error> {
    let (dtype, layout, device, pin_memory) = options.into_parts();
    with_backend_select(|| try___dispatch_ones_faithful(size, dtype, layout, device, pin_memory))
}

/// [`try_ones`], panicking on error.
#[track_caller]
pub fn ones(size: &[i64], options: TensorOptions) -> MiniTensor {
    or_panic(try_ones(size, options))
}

// ---- full

/// `BackendSelect` kernel of `full`.
#[native_function(
    "full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "BackendSelect",
    manual_cpp_binding = true
)]
#[allow(clippy::too_many_arguments)]
pub fn full_backend_select(
    ks: DispatchKeySet,
    size: &[i64],
    fill_value: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let ks = select_backend(ks, device)?;
    __try_dispatch_full_redispatch(ks, size, fill_value, dtype, layout, device, pin_memory)
}

/// `CPU` and `Meta` kernel of `full`: without `dtype`, the fill value's (`Bool`, `Long`,
/// or the default float).
#[native_function(op = "aten::full", dispatch = "CPU, Meta")]
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

/// A tensor of `size` filled with `fill_value` (`aten::full`).
pub fn try_full(
    size: &[i64],
    fill_value: Scalar,
    options: TensorOptions,
) -> Result<MiniTensor, Error> {
    let (dtype, layout, device, pin_memory) = options.into_parts();
    with_backend_select(|| {
        try___dispatch_full_faithful(size, fill_value, dtype, layout, device, pin_memory)
    })
}

/// [`try_full`], panicking on error.
#[track_caller]
pub fn full(size: &[i64], fill_value: Scalar, options: TensorOptions) -> MiniTensor {
    or_panic(try_full(size, fill_value, options))
}

// ---- arange, arange.start, arange.start_step

fn arange_tensor(
    start: Scalar,
    end: Scalar,
    step: Scalar,
    options: TensorOptions,
) -> Result<MiniTensor, Error> {
    let (dtype, layout, device, pin_memory) = options.into_parts();
    let mut t = arange_meta(start, end, step, dtype, layout, device, pin_memory)?.allocate()?;
    if !t.is_meta() {
        arange_impl(start, step, &mut t)?;
    }
    Ok(t)
}

/// `BackendSelect` kernel of `arange`.
#[native_function(
    "arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "BackendSelect",
    manual_cpp_binding = true
)]
pub fn arange_backend_select(
    ks: DispatchKeySet,
    end: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    __try_dispatch_arange_redispatch(
        select_backend(ks, device)?,
        end,
        dtype,
        layout,
        device,
        pin_memory,
    )
}

/// `CPU` and `Meta` kernel of `arange`: `0, 1, ..` below `end`.
#[native_function(op = "aten::arange", dispatch = "CPU, Meta")]
pub fn arange_kernel(
    end: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let options = TensorOptions::from_parts(dtype, layout, device, pin_memory);
    arange_tensor(Scalar::Int(0), end, Scalar::Int(1), options)
}

/// `BackendSelect` kernel of `arange.start`.
#[native_function(
    "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "BackendSelect",
    manual_cpp_binding = true
)]
#[allow(clippy::too_many_arguments)]
pub fn arange_start_backend_select(
    ks: DispatchKeySet,
    start: Scalar,
    end: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let ks = select_backend(ks, device)?;
    __try_dispatch_arange_start_redispatch(ks, start, end, dtype, layout, device, pin_memory)
}

/// `CPU` and `Meta` kernel of `arange.start`.
#[native_function(op = "aten::arange.start", dispatch = "CPU, Meta")]
pub fn arange_start_kernel(
    start: Scalar,
    end: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let options = TensorOptions::from_parts(dtype, layout, device, pin_memory);
    arange_tensor(start, end, Scalar::Int(1), options)
}

/// `BackendSelect` kernel of `arange.start_step`.
#[native_function(
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    dispatch = "BackendSelect",
    manual_cpp_binding = true
)]
#[allow(clippy::too_many_arguments)]
pub fn arange_start_step_backend_select(
    ks: DispatchKeySet,
    start: Scalar,
    end: Scalar,
    step: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<MiniTensor, Error> {
    let ks = select_backend(ks, device)?;
    __try_dispatch_arange_start_step_redispatch(
        ks, start, end, step, dtype, layout, device, pin_memory,
    )
}

/// `CPU` and `Meta` kernel of `arange.start_step`.
#[native_function(op = "aten::arange.start_step", dispatch = "CPU, Meta")]
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
    let options = TensorOptions::from_parts(dtype, layout, device, pin_memory);
    arange_tensor(start, end, step, options)
}

/// `start, start + step, ..` up to `end` (excluded) (`aten::arange.start_step`; the
/// overloads `arange(end)` and `arange.start(start, end)` are the generated
/// `__dispatch_arange*` functions, or this one with `start` 0 and `step` 1). Integer
/// bounds give `Long`, others the default float dtype.
pub fn try_arange(
    start: Scalar,
    end: Scalar,
    step: Scalar,
    options: TensorOptions,
) -> Result<MiniTensor, Error> {
    let (dtype, layout, device, pin_memory) = options.into_parts();
    with_backend_select(|| {
        try___dispatch_arange_start_step_faithful(
            start, end, step, dtype, layout, device, pin_memory,
        )
    })
}

/// [`try_arange`], panicking on error.
#[track_caller]
pub fn arange(start: Scalar, end: Scalar, step: Scalar, options: TensorOptions) -> MiniTensor {
    or_panic(try_arange(start, end, step, options))
}
