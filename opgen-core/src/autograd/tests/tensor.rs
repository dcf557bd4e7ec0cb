//! `TT`: a small strided `f64` tensor for the autograd tests. Views share storage and the
//! version counter with their base; every tensor has its own autograd state, made when the
//! runtime first needs it (as PyTorch's tensors, and `Tensor::materialize_autograd_meta`),
//! so every test also checks that the runtime makes it wherever it writes it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::autograd::{AutogradMeta, Differentiable};
use crate::dispatch::{DispatchKey as K, DispatchKeySet, Error, ScalarType, Tensor, TensorOptions};

pub(crate) struct Storage {
    data: Mutex<Vec<f64>>,
    version: AtomicU64,
}

#[derive(Clone)]
pub(crate) struct TT(Arc<Inner>);

pub(crate) struct Inner {
    storage: Arc<Storage>,
    sizes: Vec<i64>,
    strides: Vec<i64>,
    offset: i64,
    meta: OnceLock<Box<AutogradMeta<TT>>>,
}

pub(crate) fn contiguous_strides(sizes: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; sizes.len()];
    for i in (0..sizes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * sizes[i + 1].max(1);
    }
    strides
}

/// The multi-index of linear position `i` in `sizes` (row-major).
fn unravel(mut i: usize, sizes: &[i64]) -> Vec<i64> {
    let mut index = vec![0; sizes.len()];
    for d in (0..sizes.len()).rev() {
        let n = sizes[d].max(1) as usize;
        index[d] = (i % n) as i64;
        i /= n;
    }
    index
}

impl TT {
    /// A new contiguous tensor.
    pub fn new(sizes: &[i64], values: Vec<f64>) -> TT {
        assert_eq!(values.len() as i64, sizes.iter().product::<i64>());
        let storage = Arc::new(Storage {
            data: Mutex::new(values),
            version: AtomicU64::new(0),
        });
        TT::on(storage, sizes.to_vec(), contiguous_strides(sizes), 0)
    }

    pub fn vec(values: &[f64]) -> TT {
        TT::new(&[values.len() as i64], values.to_vec())
    }

    pub fn scalar(x: f64) -> TT {
        TT::new(&[], vec![x])
    }

    /// A leaf that requires grad.
    pub fn param(values: &[f64]) -> TT {
        let t = TT::vec(values);
        crate::autograd::AutogradTensor::set_requires_grad(&t, true).expect("requires_grad");
        t
    }

    fn on(storage: Arc<Storage>, sizes: Vec<i64>, strides: Vec<i64>, offset: i64) -> TT {
        TT(Arc::new(Inner {
            storage,
            sizes,
            strides,
            offset,
            meta: OnceLock::new(),
        }))
    }

    /// A view of this tensor's storage with another geometry.
    pub fn view_with(&self, sizes: Vec<i64>, strides: Vec<i64>, offset: i64) -> TT {
        TT::on(self.0.storage.clone(), sizes, strides, offset)
    }

    pub fn shape(&self) -> &[i64] {
        &self.0.sizes
    }

    pub fn stride(&self) -> &[i64] {
        &self.0.strides
    }

    pub fn offset(&self) -> i64 {
        self.0.offset
    }

    pub fn numel(&self) -> usize {
        self.0.sizes.iter().product::<i64>() as usize
    }

    fn position(&self, index: &[i64]) -> usize {
        let p: i64 = self.0.offset
            + index
                .iter()
                .zip(&self.0.strides)
                .map(|(i, s)| i * s)
                .sum::<i64>();
        p as usize
    }

    /// The values in row-major order.
    pub fn values(&self) -> Vec<f64> {
        let data = self.0.storage.data.lock().expect("lock");
        (0..self.numel())
            .map(|i| data[self.position(&unravel(i, &self.0.sizes))])
            .collect()
    }

    /// Writes `values` (row-major) through this tensor's strides.
    pub fn write(&self, values: &[f64]) {
        let mut data = self.0.storage.data.lock().expect("lock");
        for (i, v) in values.iter().enumerate() {
            let p = self.position(&unravel(i, &self.0.sizes));
            data[p] = *v;
        }
    }

    /// A new tensor of this shape with `f` applied to each value.
    pub fn map(&self, f: impl Fn(f64) -> f64) -> TT {
        TT::new(&self.0.sizes, self.values().into_iter().map(f).collect())
    }

    /// `f` applied elementwise over the broadcast of `a` and `b`.
    pub fn zip(a: &TT, b: &TT, f: impl Fn(f64, f64) -> f64) -> Result<TT, Error> {
        let shape = broadcast(a.shape(), b.shape())?;
        let (av, bv) = (a.values(), b.values());
        let n: i64 = shape.iter().product();
        let values = (0..n as usize)
            .map(|i| {
                let index = unravel(i, &shape);
                f(av[source(&index, a.shape())], bv[source(&index, b.shape())])
            })
            .collect();
        Ok(TT::new(&shape, values))
    }

    /// How many handles share this tensor (what a saved value adds to).
    pub fn handles(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    pub fn same(&self, other: &TT) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The broadcast shape of `a` and `b`.
pub(crate) fn broadcast(a: &[i64], b: &[i64]) -> Result<Vec<i64>, Error> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let x = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let y = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            match (x, y) {
                _ if x == y => Ok(x),
                (1, y) => Ok(y),
                (x, 1) => Ok(x),
                _ => Err(Error::from(format!(
                    "shapes {a:?} and {b:?} do not broadcast"
                ))),
            }
        })
        .collect()
}

/// The row-major position in a tensor of `shape` of broadcast multi-index `index`.
fn source(index: &[i64], shape: &[i64]) -> usize {
    let skip = index.len() - shape.len();
    let mut p = 0usize;
    for (d, &n) in shape.iter().enumerate() {
        let i = if n == 1 { 0 } else { index[skip + d] };
        p = p * n.max(1) as usize + i as usize;
    }
    p
}

impl std::fmt::Debug for TT {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TT({:?} {:?})", self.0.sizes, self.values())
    }
}

impl Tensor for TT {
    fn key_set(&self) -> DispatchKeySet {
        DispatchKeySet::from_keys(&[K::CPU, K::AutogradCPU, K::ADInplaceOrView])
    }
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(self.0.sizes.clone())
    }
    fn strides(&self) -> Result<Vec<i64>, Error> {
        Ok(self.0.strides.clone())
    }
    fn storage_offset(&self) -> Result<i64, Error> {
        Ok(self.0.offset)
    }
    fn options(&self) -> Result<TensorOptions, Error> {
        Ok(TensorOptions::new()
            .dtype(ScalarType::Double)
            .device(crate::dispatch::Device::CPU))
    }
    fn empty(sizes: &[i64], strides: Option<&[i64]>, _: &TensorOptions) -> Result<TT, Error> {
        let strides = strides.map_or_else(|| contiguous_strides(sizes), <[i64]>::to_vec);
        let len = (sizes.iter().zip(&strides))
            .map(|(n, s)| (n - 1).max(0) * s)
            .sum::<i64>()
            + 1;
        let storage = Arc::new(Storage {
            data: Mutex::new(vec![0.0; len as usize]),
            version: AtomicU64::new(0),
        });
        Ok(TT::on(storage, sizes.to_vec(), strides, 0))
    }
    fn copy_(&mut self, src: &TT) -> Result<(), Error> {
        if src.shape() != self.shape() {
            return Err(Error::from("copy_ between different shapes"));
        }
        self.write(&src.values());
        Ok(())
    }
    fn version(&self) -> Result<u64, Error> {
        Ok(self.0.storage.version.load(Ordering::Relaxed))
    }
    fn bump_version(&self) -> Result<(), Error> {
        self.0.storage.version.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
    fn is_same(&self, other: &TT) -> Result<bool, Error> {
        Ok(self.same(other))
    }
    fn set_view_of(&self, _: &TT) -> Result<(), Error> {
        Ok(())
    }
    fn autograd_meta(&self) -> Option<&AutogradMeta<Self>> {
        self.0.meta.get().map(|m| &**m)
    }
    fn materialize_autograd_meta(&self) -> Option<&AutogradMeta<Self>> {
        Some(self.0.meta.get_or_init(Box::default))
    }
}

impl Differentiable for TT {
    fn detach(&self) -> Result<TT, Error> {
        Ok(self.view_with(self.0.sizes.clone(), self.0.strides.clone(), self.0.offset))
    }
    fn ones_like(&self) -> Result<TT, Error> {
        Ok(self.map(|_| 1.0))
    }
    fn zeros_like(&self) -> Result<TT, Error> {
        Ok(self.map(|_| 0.0))
    }
    fn accumulate(&self, other: &TT) -> Result<TT, Error> {
        super::ops::ops().add.try_call(self, other)
    }
    fn sum_to(&self, sizes: &[i64]) -> Result<TT, Error> {
        let n: i64 = sizes.iter().product();
        let mut out = vec![0.0; n as usize];
        for (i, v) in self.values().into_iter().enumerate() {
            out[source(&unravel(i, self.shape()), sizes)] += v;
        }
        Ok(TT::new(sizes, out))
    }
}
