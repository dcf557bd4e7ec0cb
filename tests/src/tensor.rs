//! [`TestTensor`]: a reference-counted tensor of `f64` values with a shape, a dtype and a
//! device, enough to check what the kernels compute and which kernel ran.

use std::fmt;
use std::sync::Arc;

use opgen::prelude::*;

/// A tensor handle: cloning it is a reference-count increment, as with PyTorch's tensors.
///
/// Its device is a backend key: `CPU` and `PrivateUse1` tensors hold data, `Meta` tensors
/// only a shape and a dtype. It may also carry its backend's autograd key
/// ([`TestTensor::requires_grad`]) and any other key ([`TestTensor::with_key`]).
#[derive(Clone)]
pub struct TestTensor(Arc<Inner>);

struct Inner {
    keys: DispatchKeySet,
    device: DispatchKey,
    shape: Vec<i64>,
    dtype: ScalarType,
    /// `None` on `Meta`.
    data: Option<Vec<f64>>,
}

impl TestTensor {
    /// A one-dimensional CPU tensor.
    pub fn cpu(data: &[f64]) -> TestTensor {
        TestTensor::on(DispatchKey::CPU, &[data.len() as i64], data)
    }

    /// A tensor of `shape` holding `data` (row-major) on `device`.
    ///
    /// # Panics
    /// If `data` does not fill `shape`, or `device` is `Meta` (use [`TestTensor::meta`]).
    pub fn on(device: DispatchKey, shape: &[i64], data: &[f64]) -> TestTensor {
        assert_eq!(
            numel(shape),
            data.len(),
            "data does not fill shape {shape:?}"
        );
        assert_ne!(device, DispatchKey::Meta, "meta tensors hold no data");
        TestTensor::new(device, shape, Some(data.to_vec()))
    }

    /// A meta tensor: a shape without data.
    pub fn meta(shape: &[i64]) -> TestTensor {
        TestTensor::new(DispatchKey::Meta, shape, None)
    }

    fn new(device: DispatchKey, shape: &[i64], data: Option<Vec<f64>>) -> TestTensor {
        TestTensor(Arc::new(Inner {
            keys: device.into(),
            device,
            shape: shape.to_vec(),
            dtype: ScalarType::Double,
            data,
        }))
    }

    /// The same tensor on the same device with `data`, or a meta tensor of the same shape.
    pub fn like(&self, shape: &[i64], data: Option<Vec<f64>>) -> TestTensor {
        TestTensor(Arc::new(Inner {
            keys: self.0.keys,
            device: self.0.device,
            shape: shape.to_vec(),
            dtype: self.0.dtype,
            data: data.filter(|_| self.0.device != DispatchKey::Meta),
        }))
    }

    /// This tensor with its backend's autograd key added (`AutogradCPU` for CPU).
    pub fn requires_grad(&self) -> TestTensor {
        match self.0.device.autograd_key() {
            Some(key) => self.with_key(key),
            None => self.clone(),
        }
    }

    /// This tensor with `key` added to its key set.
    pub fn with_key(&self, key: DispatchKey) -> TestTensor {
        TestTensor(Arc::new(Inner {
            keys: self.0.keys.add(key),
            device: self.0.device,
            shape: self.0.shape.clone(),
            dtype: self.0.dtype,
            data: self.0.data.clone(),
        }))
    }

    /// The device: a backend key.
    pub fn device(&self) -> DispatchKey {
        self.0.device
    }

    /// The shape.
    pub fn shape(&self) -> &[i64] {
        &self.0.shape
    }

    /// The dtype.
    pub fn dtype(&self) -> ScalarType {
        self.0.dtype
    }

    /// The values, row-major; empty on `Meta`.
    pub fn data(&self) -> &[f64] {
        self.0.data.as_deref().unwrap_or(&[])
    }

    /// Whether both handles share one tensor.
    pub fn same(&self, other: &TestTensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Tensor for TestTensor {
    fn key_set(&self) -> DispatchKeySet {
        self.0.keys
    }
}

impl PartialEq for TestTensor {
    /// Same keys, device, shape, dtype and values.
    fn eq(&self, other: &TestTensor) -> bool {
        let (a, b) = (&self.0, &other.0);
        (a.keys, a.device, &a.shape, a.dtype, &a.data)
            == (b.keys, b.device, &b.shape, b.dtype, &b.data)
    }
}

impl fmt::Debug for TestTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TestTensor({} {:?}", self.0.device, self.0.shape)?;
        if let Some(data) = &self.0.data {
            write!(f, " {data:?}")?;
        }
        write!(f, "; keys {})", self.0.keys)
    }
}

/// The number of elements of `shape`.
pub fn numel(shape: &[i64]) -> usize {
    shape.iter().map(|&d| d.max(0) as usize).product()
}

/// The shape two tensors broadcast to, as in PyTorch (dimensions aligned from the right; a
/// dimension of 1 stretches).
pub fn broadcast_shapes(a: &[i64], b: &[i64]) -> Result<Vec<i64>, String> {
    let n = a.len().max(b.len());
    let dim = |s: &[i64], i: usize| (i + s.len()).checked_sub(n).map_or(1, |j| s[j]);
    (0..n)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            (x, y) => Err(format!(
                "shapes {a:?} and {b:?} do not broadcast: {x} against {y}"
            )),
        })
        .collect()
}

/// Applies `f` elementwise over the broadcast of `a` and `b` (shapes of equal rank or a
/// single-element side; enough for the tests).
pub fn zip_with(
    a: &TestTensor,
    b: &TestTensor,
    f: impl Fn(f64, f64) -> f64,
) -> Result<TestTensor, String> {
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    if a.device() == DispatchKey::Meta {
        return Ok(a.like(&shape, None));
    }
    let at = |t: &TestTensor, i: usize| {
        t.data()
            .get(if t.data().len() == 1 { 0 } else { i })
            .copied()
    };
    let data = (0..numel(&shape))
        .map(|i| Some(f(at(a, i)?, at(b, i)?)))
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| {
            format!(
                "cannot broadcast {:?} and {:?} elementwise",
                a.shape(),
                b.shape()
            )
        })?;
    Ok(a.like(&shape, Some(data)))
}
