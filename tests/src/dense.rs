//! [`DenseTensor`]: a contiguous tensor with interior mutability, so that out and in-place
//! operators can resize and write into a tensor that other handles share, as PyTorch's
//! tensors do. It implements the `Tensor` hooks structured kernels use (`sizes`, `strides`,
//! `options`, `empty`, `resize_`, `copy_`, `is_same`).

use std::fmt;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use opgen::dispatch::DeviceType;
use opgen::prelude::*;

use crate::numel;

/// A tensor handle: clones share the tensor (its values, shape and dtype).
///
/// Values are held as `f64` whatever the dtype; an integral dtype (`Long`, `Int`, `Bool`)
/// truncates what is written into it. `Meta` tensors hold no values.
#[derive(Clone)]
pub struct DenseTensor(Arc<RwLock<Dense>>);

struct Dense {
    device: DispatchKey,
    dtype: ScalarType,
    sizes: Vec<i64>,
    data: Vec<f64>,
}

impl DenseTensor {
    /// A tensor of `sizes` holding `data` (row-major) on `device` (`CPU`, `PrivateUse1`; use
    /// [`DenseTensor::meta`] for `Meta`).
    ///
    /// # Panics
    /// If `data` does not fill `sizes`.
    pub fn new(device: DispatchKey, dtype: ScalarType, sizes: &[i64], data: &[f64]) -> DenseTensor {
        assert_eq!(numel(sizes), data.len(), "data does not fill {sizes:?}");
        DenseTensor::from_parts(device, dtype, sizes, data.to_vec())
    }

    /// A one-dimensional `Double` CPU tensor.
    pub fn cpu(data: &[f64]) -> DenseTensor {
        DenseTensor::new(
            DispatchKey::CPU,
            ScalarType::Double,
            &[data.len() as i64],
            data,
        )
    }

    /// A `Double` CPU tensor of `sizes`.
    pub fn cpu_shaped(sizes: &[i64], data: &[f64]) -> DenseTensor {
        DenseTensor::new(DispatchKey::CPU, ScalarType::Double, sizes, data)
    }

    /// A meta tensor: sizes and a dtype, no values.
    pub fn meta(sizes: &[i64], dtype: ScalarType) -> DenseTensor {
        DenseTensor::from_parts(DispatchKey::Meta, dtype, sizes, Vec::new())
    }

    fn from_parts(
        device: DispatchKey,
        dtype: ScalarType,
        sizes: &[i64],
        data: Vec<f64>,
    ) -> DenseTensor {
        DenseTensor(Arc::new(RwLock::new(Dense {
            device,
            dtype,
            sizes: sizes.to_vec(),
            data,
        })))
    }

    fn read(&self) -> RwLockReadGuard<'_, Dense> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Dense> {
        self.0.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The shape.
    pub fn shape(&self) -> Vec<i64> {
        self.read().sizes.clone()
    }

    /// The dtype.
    pub fn dtype(&self) -> ScalarType {
        self.read().dtype
    }

    /// The device, as a backend key.
    pub fn device(&self) -> DispatchKey {
        self.read().device
    }

    /// The values, row-major (empty on `Meta`).
    pub fn values(&self) -> Vec<f64> {
        self.read().data.clone()
    }

    /// Replaces the values (the shape must hold them), truncating for integral dtypes.
    pub fn set_values(&self, values: Vec<f64>) -> Result<(), Error> {
        let mut d = self.write();
        if d.device == DispatchKey::Meta {
            return Ok(());
        }
        if values.len() != numel(&d.sizes) {
            return Err(format!("{} values do not fill shape {:?}", values.len(), d.sizes).into());
        }
        let integral = is_integral(d.dtype);
        d.data = values
            .into_iter()
            .map(|v| if integral { v.trunc() } else { v })
            .collect();
        Ok(())
    }

    /// Whether both handles share one tensor.
    pub fn same(&self, other: &DenseTensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Whether values of `dtype` are integers.
pub fn is_integral(dtype: ScalarType) -> bool {
    matches!(
        dtype,
        ScalarType::Long
            | ScalarType::Int
            | ScalarType::Short
            | ScalarType::Byte
            | ScalarType::Char
            | ScalarType::Bool
    )
}

fn device_of(key: DispatchKey) -> Device {
    let kind = match key {
        DispatchKey::Meta => DeviceType::Meta,
        DispatchKey::PrivateUse1 => DeviceType::PrivateUse1,
        _ => DeviceType::CPU,
    };
    Device { kind, index: None }
}

fn key_of(device: Device) -> DispatchKey {
    match device.kind {
        DeviceType::Meta => DispatchKey::Meta,
        DeviceType::PrivateUse1 => DispatchKey::PrivateUse1,
        _ => DispatchKey::CPU,
    }
}

/// Contiguous strides of `sizes`.
pub fn contiguous_strides(sizes: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; sizes.len()];
    for i in (0..sizes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * sizes[i + 1].max(1);
    }
    strides
}

impl Tensor for DenseTensor {
    fn key_set(&self) -> DispatchKeySet {
        self.read().device.into()
    }

    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(self.shape())
    }

    fn strides(&self) -> Result<Vec<i64>, Error> {
        Ok(contiguous_strides(&self.read().sizes))
    }

    fn options(&self) -> Result<TensorOptions, Error> {
        let d = self.read();
        Ok(TensorOptions::new()
            .dtype(d.dtype)
            .layout(Layout::Strided)
            .device(device_of(d.device)))
    }

    fn empty(
        sizes: &[i64],
        strides: Option<&[i64]>,
        options: &TensorOptions,
    ) -> Result<Self, Error> {
        if let Some(strides) = strides
            && strides != contiguous_strides(sizes)
        {
            return Err("DenseTensor is always contiguous".into());
        }
        let device = key_of(options.device_or_default());
        let data = if device == DispatchKey::Meta {
            Vec::new()
        } else {
            vec![0.0; numel(sizes)]
        };
        Ok(DenseTensor::from_parts(
            device,
            options.dtype_or_default(),
            sizes,
            data,
        ))
    }

    fn resize_(&mut self, sizes: &[i64]) -> Result<(), Error> {
        let mut d = self.write();
        if d.device != DispatchKey::Meta {
            d.data.resize(numel(sizes), 0.0);
        }
        d.sizes = sizes.to_vec();
        Ok(())
    }

    fn copy_(&mut self, src: &Self) -> Result<(), Error> {
        if self.same(src) {
            return Ok(());
        }
        let (sizes, values) = (src.shape(), src.values());
        if sizes != self.shape() {
            return Err(format!(
                "copy_ of a tensor of shape {sizes:?} into one of shape {:?}",
                self.shape()
            )
            .into());
        }
        if self.device() == DispatchKey::Meta || src.device() == DispatchKey::Meta {
            return Ok(());
        }
        self.set_values(values)
    }

    fn is_same(&self, other: &Self) -> Result<bool, Error> {
        Ok(self.same(other))
    }
}

impl PartialEq for DenseTensor {
    /// Same device, dtype, shape and values.
    fn eq(&self, other: &DenseTensor) -> bool {
        let (a, b) = (self.read(), other.read());
        (a.device, a.dtype, &a.sizes, &a.data) == (b.device, b.dtype, &b.sizes, &b.data)
    }
}

impl fmt::Debug for DenseTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.read();
        write!(f, "DenseTensor({} {} {:?}", d.device, d.dtype, d.sizes)?;
        if d.device != DispatchKey::Meta {
            write!(f, " {:?}", d.data)?;
        }
        write!(f, ")")
    }
}
