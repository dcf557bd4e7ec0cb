//! [`MiniTensor`]: a strided tensor handle over shared typed storage.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use opgen::autograd::{
    AutogradErrorKind, AutogradMeta, INFERENCE_EXCLUDED, is_inference_mode_enabled,
};
use opgen::dispatch::{DeviceType, Sizes};
use opgen::prelude::*;

use crate::promote::check_supported;
use crate::shape::{check_sizes, contiguous_strides, is_contiguous, numel, storage_extent};
use crate::storage::{Element, Geometry, Storage, no_data};

/// The user backend device of this library: tensors on it hold data like CPU tensors, but
/// no operator has kernels for it, so calls on them go to a backend fallback (the
/// external-backend CPU fallback, PyTorch's XLA pattern).
pub const PRIVATE_USE1: Device = Device {
    kind: DeviceType::PrivateUse1,
    index: None,
};

/// The `Meta` device: tensors with shapes, strides and dtypes but no data.
pub const META: Device = Device {
    kind: DeviceType::Meta,
    index: None,
};

/// A strided tensor, as PyTorch's `at::Tensor`: a cheap handle (`Arc`) to a tensor whose
/// sizes, strides and storage offset describe where its elements live in a storage that
/// views share.
///
/// * **dtypes**: `Float` (`f32`), `Double` (`f64`), `Long` (`i64`) and `Bool` (`bool`);
///   [`Element`] converts between them.
/// * **devices**: `cpu`; `meta` (shapes and dtypes, no data); and `privateuseone`
///   ([`PRIVATE_USE1`]), which holds data and has kernels only for the views, for the
///   CPU-fallback demo.
/// * **handles**: `Clone::clone` (or [`MiniTensor::share`]) gives another handle to the same
///   tensor; in-place operators and `resize_` through any handle are seen by all of them.
///   The *operator* `clone` (the method `t.clone()`, generated from
///   `clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor`, as PyTorch's
///   `Tensor::clone`) copies the data. Name the handle copy `Clone::clone(&t)` or
///   `t.share()`.
/// * **views** (`view`, `transpose`, `select`, `alias`, `as_strided`, ...) share the storage
///   of their base; once [`crate::install`] has run, they also share its version counter
///   and in-place operators bump the counter (the `ADInplaceOrView` kernels do both).
/// * **dispatch keys**: the device's backend key (`CPU`, `Meta`, `PrivateUse1`), plus any
///   key added with [`MiniTensor::add_key`] (an autograd or `Tracer` key, say), plus
///   `ADInplaceOrView` once [`crate::install`] has run.
///
/// ```
/// use opgen::prelude::*;
/// use opgen_example::{MiniTensor, ops};
/// # fn main() -> Result<(), Error> {
/// opgen_example::install()?; // version counters, tracing, the PrivateUse1 CPU fallback
/// let a = MiniTensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// assert_eq!(a.shape(), [2, 3]);
/// assert_eq!(a.dtype(), ScalarType::Float);
///
/// // A view shares storage and version counter with its base.
/// let t = a.transpose(0, 1);
/// assert_eq!(t.shape(), [3, 2]);
/// assert_eq!(t.stride(), [1, 3]);
/// assert!(!t.is_contiguous());
/// assert_eq!(t.to_vec::<f32>()?, [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
///
/// // Writing through the view changes the base and bumps the shared counter.
/// let mut row = a.select(0, 1);
/// row.fill_(Scalar::Int(0));
/// assert_eq!(a.to_vec::<f32>()?, [1.0, 2.0, 3.0, 0.0, 0.0, 0.0]);
/// assert_eq!(a.version()?, 1);
///
/// // Operators broadcast and promote: Long + Float Scalar is Float.
/// let longs = MiniTensor::from_vec(vec![1i64, 2, 3], &[3])?;
/// let r = ops::add_scalar(&longs, Scalar::Float(0.5));
/// assert_eq!(r.dtype(), ScalarType::Float);
/// assert_eq!(r.to_vec::<f32>()?, [1.5, 2.5, 3.5]);
///
/// // Meta tensors have shapes and dtypes only.
/// let m = MiniTensor::meta(&[4, 1, 3], ScalarType::Double)?;
/// let s = ops::add(&m, &a.to_device(opgen_example::META)?.to_dtype(ScalarType::Double)?);
/// assert_eq!((s.shape(), s.dtype(), s.is_meta()), (vec![4, 2, 3], ScalarType::Double, true));
/// # Ok(()) }
/// ```
pub struct MiniTensor(Arc<Impl>);

impl Clone for MiniTensor {
    /// Another handle to the same tensor (no data is copied).
    fn clone(&self) -> MiniTensor {
        MiniTensor(Arc::clone(&self.0))
    }
}

struct Impl {
    /// The key set's bits: read on every dispatched call.
    keys: AtomicU64,
    geometry: RwLock<Geometry>,
    /// Shared with the views of this tensor and with its base.
    version: RwLock<Arc<AtomicU64>>,
    /// The tensor this one is a view of (the root of the view chain), if any.
    base: RwLock<Option<MiniTensor>>,
    /// Made in inference mode (or a view of such a tensor): no autograd keys, no version
    /// counter ([`Tensor::is_inference`]).
    inference: bool,
    /// Autograd's state of this tensor (PyTorch's `TensorImpl::autograd_meta_`), made when
    /// first needed: a tensor that never requires grad holds none. Stored in the tensor's own
    /// allocation rather than boxed, so that giving an output its `grad_fn` allocates
    /// nothing. See [`crate::autograd`].
    autograd: OnceLock<AutogradMeta<MiniTensor>>,
}

/// Keys every `MiniTensor` carries in addition to its own: `ADInplaceOrView` once
/// [`crate::install`] has run.
static GLOBAL_KEYS: AtomicU64 = AtomicU64::new(0);

/// From now on, every `MiniTensor` carries `ADInplaceOrView` (called by [`crate::install`]).
pub(crate) fn track_versions() {
    let key = DispatchKeySet::from(DispatchKey::ADInplaceOrView).bits();
    GLOBAL_KEYS.fetch_or(key, Ordering::Relaxed);
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(PoisonError::into_inner)
}

/// The backend key of a device, for the devices `MiniTensor` supports.
pub fn backend_key(device: Device) -> Result<DispatchKey, Error> {
    match device.kind {
        DeviceType::CPU | DeviceType::Meta | DeviceType::PrivateUse1 => Ok(device.backend_key()),
        _ => Err(Error::from(format!(
            "MiniTensor supports the devices cpu, meta and privateuseone; got {device}"
        ))),
    }
}

/// The keys of a new tensor on the device of `backend`: the backend and its autograd key
/// (`CPU` and `AutogradCPU`), as PyTorch's tensors have.
fn device_keys(backend: DispatchKey) -> DispatchKeySet {
    use DispatchKey as K;
    const CPU: DispatchKeySet = DispatchKeySet::from_keys(&[K::CPU, K::AutogradCPU]);
    const META: DispatchKeySet = DispatchKeySet::from_keys(&[K::Meta, K::AutogradMeta]);
    const PRIVATE_USE1: DispatchKeySet =
        DispatchKeySet::from_keys(&[K::PrivateUse1, K::AutogradPrivateUse1]);
    match backend {
        K::CPU => CPU,
        K::Meta => META,
        K::PrivateUse1 => PRIVATE_USE1,
        other => DispatchKeySet::from(other),
    }
}

/// Whether `key` is an autograd key (which inference tensors do not have).
fn is_autograd_key(key: DispatchKey) -> bool {
    INFERENCE_EXCLUDED.contains(key)
}

/// Checks the options of a new tensor and fills in the defaults: a supported dtype, the
/// strided layout, a supported device, and no pinned memory.
pub fn check_options(options: &TensorOptions) -> Result<TensorOptions, Error> {
    let dtype = check_supported(options.dtype_or_default())?;
    let layout = options.layout_or_default();
    if layout != Layout::Strided {
        return Err(Error::from(format!(
            "MiniTensor supports only the strided layout; got {layout}"
        )));
    }
    let device = options.device_or_default();
    backend_key(device)?;
    if options.pin_memory_or_default() {
        return Err(Error::from(
            "pin_memory=True needs an accelerator to pin memory for; MiniTensor has none",
        ));
    }
    Ok(TensorOptions::new()
        .dtype(dtype)
        .layout(layout)
        .device(device)
        .pin_memory(false))
}

impl MiniTensor {
    fn from_geometry(geometry: Geometry, keys: DispatchKeySet, inference: bool) -> MiniTensor {
        MiniTensor(Arc::new(Impl {
            keys: AtomicU64::new(keys.bits()),
            inference,
            geometry: RwLock::new(geometry),
            version: RwLock::new(Arc::new(AtomicU64::new(0))),
            base: RwLock::new(None),
            autograd: OnceLock::new(),
        }))
    }

    fn with_storage(storage: Arc<Storage>, sizes: &[i64], strides: Option<&[i64]>) -> Self {
        let keys = backend_key(storage.device).map_or(DispatchKeySet::EMPTY, device_keys);
        // As c10's `TensorImpl`: made in inference mode, an inference tensor.
        let inference = is_inference_mode_enabled();
        let keys = if inference {
            keys - INFERENCE_EXCLUDED
        } else {
            keys
        };
        let strides = strides.map_or_else(|| contiguous_strides(sizes), <[i64]>::to_vec);
        MiniTensor::from_geometry(
            Geometry {
                sizes: sizes.to_vec(),
                strides,
                offset: 0,
                storage,
            },
            keys,
            inference,
        )
    }

    /// A CPU tensor of `sizes` holding `data` in row-major order; its dtype is `E`'s.
    ///
    /// An error if `data` does not have `sizes`' number of elements.
    pub fn from_vec<E: Element>(data: Vec<E>, sizes: &[i64]) -> Result<MiniTensor, Error> {
        MiniTensor::from_vec_on(data, sizes, Device::CPU)
    }

    /// [`MiniTensor::from_vec`] on `device` (`cpu` or `privateuseone`; meta tensors hold no
    /// data: see [`MiniTensor::meta`]).
    pub fn from_vec_on<E: Element>(
        data: Vec<E>,
        sizes: &[i64],
        device: Device,
    ) -> Result<MiniTensor, Error> {
        check_sizes(sizes)?;
        if backend_key(device)? == DispatchKey::Meta {
            return Err(Error::from(
                "meta tensors hold no data; use MiniTensor::meta",
            ));
        }
        if numel(sizes) != data.len() as i64 {
            return Err(Error::from(format!(
                "{} values do not fill a tensor of shape {sizes:?}",
                data.len()
            )));
        }
        Ok(MiniTensor::with_storage(
            Storage::from_vec(data, device),
            sizes,
            None,
        ))
    }

    /// A zero-dim CPU tensor holding `value`.
    pub fn scalar<E: Element>(value: E) -> MiniTensor {
        MiniTensor::with_storage(Storage::from_vec(vec![value], Device::CPU), &[], None)
    }

    /// A zero-dim CPU tensor of `dtype` holding `value` (converted).
    pub fn scalar_of(value: Scalar, dtype: ScalarType) -> Result<MiniTensor, Error> {
        Ok(match check_supported(dtype)? {
            ScalarType::Float => MiniTensor::scalar(f32::from_scalar(value)),
            ScalarType::Double => MiniTensor::scalar(f64::from_scalar(value)),
            ScalarType::Long => MiniTensor::scalar(i64::from_scalar(value)),
            _ => MiniTensor::scalar(bool::from_scalar(value)),
        })
    }

    /// A contiguous meta tensor of `sizes` and `dtype`.
    pub fn meta(sizes: &[i64], dtype: ScalarType) -> Result<MiniTensor, Error> {
        MiniTensor::new_empty(sizes, &TensorOptions::new().dtype(dtype).device(META))
    }

    /// A contiguous tensor of `sizes` with `options` (defaults: `Float`, `cpu`), filled
    /// with zeros (no data on `meta`).
    pub fn new_empty(sizes: &[i64], options: &TensorOptions) -> Result<MiniTensor, Error> {
        <MiniTensor as Tensor>::empty(sizes, None, options)
    }

    fn geometry(&self) -> Geometry {
        read(&self.0.geometry).clone()
    }

    /// The sizes (the [`Tensor::sizes`] hook, which cannot fail here).
    pub fn shape(&self) -> Vec<i64> {
        read(&self.0.geometry).sizes.clone()
    }

    /// The strides, in elements.
    pub fn stride(&self) -> Vec<i64> {
        read(&self.0.geometry).strides.clone()
    }

    /// The offset of the first element in the storage, in elements.
    pub fn storage_offset(&self) -> i64 {
        read(&self.0.geometry).offset
    }

    /// The number of dimensions.
    pub fn dim(&self) -> usize {
        read(&self.0.geometry).sizes.len()
    }

    /// The number of elements.
    pub fn numel(&self) -> i64 {
        numel(&read(&self.0.geometry).sizes)
    }

    /// The element type.
    pub fn dtype(&self) -> ScalarType {
        read(&self.0.geometry).storage.dtype
    }

    /// The device.
    pub fn device(&self) -> Device {
        read(&self.0.geometry).storage.device
    }

    /// Whether the tensor is on the `Meta` device (no data).
    pub fn is_meta(&self) -> bool {
        read(&self.0.geometry).storage.is_meta()
    }

    /// Whether the elements are contiguous in row-major order.
    pub fn is_contiguous(&self) -> bool {
        let g = read(&self.0.geometry);
        is_contiguous(&g.sizes, &g.strides)
    }

    /// How many handles this tensor has (tests of what backward nodes keep).
    #[cfg(test)]
    pub(crate) fn handles(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// Another handle to this tensor (the same as `Clone::clone`, which the `clone`
    /// operator's method shadows).
    pub fn share(&self) -> MiniTensor {
        Clone::clone(self)
    }

    /// Whether both tensors use the same storage (one is a view of the other, or both are
    /// views of one tensor).
    pub fn shares_storage(&self, other: &MiniTensor) -> bool {
        Arc::ptr_eq(
            &read(&self.0.geometry).storage,
            &read(&other.0.geometry).storage,
        )
    }

    /// The tensor this one is a view of (the root of the chain), if it is a view.
    pub fn view_base(&self) -> Option<MiniTensor> {
        read(&self.0.base).clone()
    }

    /// Adds a dispatch key to this tensor's key set (an autograd key, `Tracer`, ...); every
    /// handle sees it, and views made afterwards inherit it.
    pub fn add_key(&self, key: DispatchKey) {
        self.0
            .keys
            .fetch_or(DispatchKeySet::from(key).bits(), Ordering::Relaxed);
    }

    /// Removes a key added with [`MiniTensor::add_key`] (its functionality: the tensor keeps
    /// its backend, as `DispatchKeySet::remove`).
    pub fn remove_key(&self, key: DispatchKey) {
        let remove = |bits| Some(DispatchKeySet::from_bits(bits).remove(key).bits());
        let _ = (self.0.keys).fetch_update(Ordering::Relaxed, Ordering::Relaxed, remove);
    }

    /// The values in row-major order, converted to `E`; an error on `meta`.
    pub fn to_vec<E: Element>(&self) -> Result<Vec<E>, Error> {
        let g = self.geometry();
        g.broadcast_values(&g.sizes)
    }

    /// The value of a one-element tensor, converted to `E`.
    pub fn item<E: Element>(&self) -> Result<E, Error> {
        match self.to_vec::<E>()?.as_slice() {
            [x] => Ok(*x),
            v => Err(Error::from(format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                v.len()
            ))),
        }
    }

    /// The values read as if broadcast to `shape`, converted to `E`.
    pub(crate) fn broadcast_values<E: Element>(&self, shape: &[i64]) -> Result<Vec<E>, Error> {
        self.geometry().broadcast_values(shape)
    }

    /// Writes `values` (row-major, converted to this tensor's dtype) into the elements.
    /// Does not bump the version counter: the `ADInplaceOrView` kernels of the operators
    /// that write do.
    pub(crate) fn scatter<E: Element>(&self, values: &[E]) -> Result<(), Error> {
        self.geometry().scatter(values)
    }

    /// A contiguous copy with `dtype` on the same device (this handle when nothing changes).
    pub fn to_dtype(&self, dtype: ScalarType) -> Result<MiniTensor, Error> {
        if dtype == self.dtype() {
            return Ok(self.share());
        }
        let options = self.tensor_options().dtype(dtype);
        let mut out = MiniTensor::new_empty(&self.shape(), &options)?;
        <MiniTensor as Tensor>::copy_(&mut out, self)?;
        Ok(out)
    }

    /// The dtype, layout and device, read under one lock.
    fn tensor_options(&self) -> TensorOptions {
        let g = read(&self.0.geometry);
        TensorOptions::new()
            .dtype(g.storage.dtype)
            .layout(Layout::Strided)
            .device(g.storage.device)
    }

    /// A tensor with another geometry over the same storage, inheriting the keys. The
    /// geometry must lie within the storage (checked by the view operators). As PyTorch's
    /// view kernels, it gets its own version counter and no base: the `ADInplaceOrView`
    /// kernel of the view operator ([`crate::install`]) makes it share its base's
    /// ([`Tensor::set_view_of`]).
    pub(crate) fn make_view(&self, sizes: Vec<i64>, strides: Vec<i64>, offset: i64) -> MiniTensor {
        let storage = Arc::clone(&read(&self.0.geometry).storage);
        MiniTensor::from_geometry(
            Geometry {
                sizes,
                strides,
                offset,
                storage,
            },
            self.own_keys(),
            self.0.inference,
        )
    }

    /// The keys of this tensor without those every tensor carries.
    fn own_keys(&self) -> DispatchKeySet {
        DispatchKeySet::from_bits(self.0.keys.load(Ordering::Relaxed))
    }

    /// PyTorch's `detach()`: a new tensor over the same storage, geometry and version
    /// counter, with the same keys and fresh autograd state.
    pub(crate) fn detached(&self) -> MiniTensor {
        let detached =
            MiniTensor::from_geometry(self.geometry(), self.own_keys(), self.0.inference);
        *write(&detached.0.version) = Arc::clone(&read(&self.0.version));
        detached
    }

    fn share_version_of(&self, base: &MiniTensor) {
        let counter = Arc::clone(&read(&base.0.version));
        *write(&self.0.version) = counter;
        let root = base.view_base().unwrap_or_else(|| base.share());
        *write(&self.0.base) = Some(root);
    }

    /// The number of elements of the storage.
    pub(crate) fn storage_len(&self) -> usize {
        read(&self.0.geometry).storage.len()
    }

    /// Copies `src` (broadcast to this tensor's shape, converted to its dtype) into this
    /// tensor's elements, across devices; a no-op when this tensor is on `meta`. Does not
    /// bump the version counter.
    pub(crate) fn copy_values_from(&self, src: &MiniTensor) -> Result<(), Error> {
        let dst = self.geometry();
        if dst.storage.is_meta() {
            let _ = crate::shape::broadcast_strides(&src.shape(), &src.stride(), &dst.sizes)?;
            return Ok(());
        }
        if src.is_meta() {
            return Err(no_data());
        }
        match dst.storage.dtype {
            ScalarType::Float => dst.scatter(&src.broadcast_values::<f32>(&dst.sizes)?),
            ScalarType::Double => dst.scatter(&src.broadcast_values::<f64>(&dst.sizes)?),
            ScalarType::Long => dst.scatter(&src.broadcast_values::<i64>(&dst.sizes)?),
            _ => dst.scatter(&src.broadcast_values::<bool>(&dst.sizes)?),
        }
    }
}

impl Tensor for MiniTensor {
    /// The device's backend key, the keys added with [`MiniTensor::add_key`], and
    /// `ADInplaceOrView` once [`crate::install`] has run.
    fn key_set(&self) -> DispatchKeySet {
        DispatchKeySet::from_bits(
            self.0.keys.load(Ordering::Relaxed) | GLOBAL_KEYS.load(Ordering::Relaxed),
        )
    }

    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(self.shape())
    }

    /// The sizes copied under the geometry's lock into an inline buffer, for up to four
    /// dimensions: no `Vec` (what autograd records for each node input and leaf
    /// accumulator).
    fn sizes_inline(&self) -> Result<Sizes, Error> {
        let g = read(&self.0.geometry);
        let n = g.sizes.len();
        if n > 4 {
            return Ok(Sizes::from_slice(&g.sizes));
        }
        let mut buf = [0; 4];
        for (b, s) in buf.iter_mut().zip(&g.sizes) {
            *b = *s;
        }
        Ok(Sizes::from_buf_and_len(buf, n))
    }

    fn strides(&self) -> Result<Vec<i64>, Error> {
        Ok(self.stride())
    }

    fn options(&self) -> Result<TensorOptions, Error> {
        Ok(self.tensor_options())
    }

    /// A new tensor, zero-filled (no data on `meta`). Errors for an unsupported dtype,
    /// layout or device, for pinned memory, and for negative sizes.
    fn empty(
        sizes: &[i64],
        strides: Option<&[i64]>,
        options: &TensorOptions,
    ) -> Result<MiniTensor, Error> {
        let options = check_options(options)?;
        check_sizes(sizes)?;
        let strides = match strides {
            Some(s) if s.len() != sizes.len() => {
                return Err(Error::from(format!(
                    "empty_strided: {} sizes but {} strides",
                    sizes.len(),
                    s.len()
                )));
            }
            Some(s) if s.iter().any(|&x| x < 0) => {
                return Err(Error::from("Negative strides are not supported"));
            }
            Some(s) => s.to_vec(),
            None => contiguous_strides(sizes),
        };
        let len = storage_extent(sizes, &strides, 0).max(0) as usize;
        let storage = Storage::zeros(options.dtype_or_default(), options.device_or_default(), len);
        Ok(MiniTensor::with_storage(storage, sizes, Some(&strides)))
    }

    /// PyTorch's `resize_`: unchanged sizes keep the strides; other sizes get contiguous
    /// strides, and the storage grows (in place, so views see it) when too small.
    fn resize_(&mut self, sizes: &[i64]) -> Result<(), Error> {
        check_sizes(sizes)?;
        let mut g = write(&self.0.geometry);
        if g.sizes == sizes {
            return Ok(());
        }
        let strides = contiguous_strides(sizes);
        let needed = storage_extent(sizes, &strides, g.offset).max(0) as usize;
        if needed > g.storage.len() {
            g.storage.grow(needed);
        }
        g.sizes = sizes.to_vec();
        g.strides = strides;
        Ok(())
    }

    /// Copies `src` (same shape, or broadcastable to it) into this tensor, converting the
    /// dtype, across devices (`cpu` ↔ `privateuseone`); into a meta tensor it only checks
    /// the shapes, out of one it is an error. Does not bump the version counter (the
    /// `copy_` operator's `ADInplaceOrView` kernel does).
    fn copy_(&mut self, src: &MiniTensor) -> Result<(), Error> {
        self.copy_values_from(src)
    }

    fn to_device(&self, device: Device) -> Result<MiniTensor, Error> {
        if device == self.device() {
            return Ok(self.share());
        }
        let options = self.tensor_options().device(device);
        let out = MiniTensor::new_empty(&self.shape(), &options)?;
        out.copy_values_from(self)?;
        // The keys added to this tensor move with it; a per-backend one (an autograd key)
        // becomes the new backend's. An inference tensor takes no autograd key.
        let backend = device.backend_key().backend();
        let dropped = |k: &DispatchKey| out.0.inference && is_autograd_key(*k);
        let keep = |k: &DispatchKey| !k.is_backend() && !dropped(k);
        for key in self.own_keys().iter().filter(keep) {
            let moved = match key.backend() {
                Some(_) => backend.and_then(|b| key.for_backend(b)),
                None => Some(key),
            };
            moved.into_iter().for_each(|key| out.add_key(key));
        }
        Ok(out)
    }

    /// The version counter's value; an error for an inference tensor, which has none.
    fn version(&self) -> Result<u64, Error> {
        if self.0.inference {
            return Err(AutogradErrorKind::InferenceVersion.into());
        }
        Ok(read(&self.0.version).load(Ordering::Relaxed))
    }

    fn bump_version(&self) -> Result<(), Error> {
        read(&self.0.version).fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Shares `base`'s version counter and records `base` (or its own base) as this
    /// tensor's base: what the `ADInplaceOrView` kernel of a view operator calls. An error
    /// unless both use one storage, or if `self` is `base`.
    fn set_view_of(&self, base: &MiniTensor) -> Result<(), Error> {
        if !self.shares_storage(base) {
            return Err(Error::from(
                "set_view_of: the tensor does not share its base's storage",
            ));
        }
        if Arc::ptr_eq(&self.0, &base.0) {
            return Err(Error::from(
                "set_view_of: a tensor cannot be a view of itself",
            ));
        }
        self.share_version_of(base);
        Ok(())
    }

    /// Made in inference mode, or a view of a tensor that was.
    #[inline(always)]
    fn is_inference(&self) -> bool {
        self.0.inference
    }

    fn is_same(&self, other: &MiniTensor) -> Result<bool, Error> {
        Ok(Arc::ptr_eq(&self.0, &other.0))
    }

    /// The tensor's autograd state, if it has been made.
    #[inline(always)]
    fn autograd_meta(&self) -> Option<&AutogradMeta<MiniTensor>> {
        self.0.autograd.get()
    }

    /// The tensor's autograd state, made now if needed (a leaf that does not require grad).
    fn materialize_autograd_meta(&self) -> Option<&AutogradMeta<MiniTensor>> {
        Some(self.0.autograd.get_or_init(AutogradMeta::new))
    }
}

impl fmt::Debug for MiniTensor {
    /// `MiniTensor(shape=[2, 3], dtype=Float, device=cpu, data=[..])`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = self.geometry();
        write!(
            f,
            "MiniTensor(shape={:?}, dtype={}, device={}",
            g.sizes, g.storage.dtype, g.storage.device
        )?;
        if !g.storage.is_meta() {
            let data = match g.storage.dtype {
                ScalarType::Float => g
                    .broadcast_values::<f32>(&g.sizes)
                    .map(|v| format!("{v:?}")),
                ScalarType::Double => g
                    .broadcast_values::<f64>(&g.sizes)
                    .map(|v| format!("{v:?}")),
                ScalarType::Long => g
                    .broadcast_values::<i64>(&g.sizes)
                    .map(|v| format!("{v:?}")),
                _ => g
                    .broadcast_values::<bool>(&g.sizes)
                    .map(|v| format!("{v:?}")),
            };
            if let Ok(data) = data {
                write!(f, ", data={data}")?;
            }
        }
        f.write_str(")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resize_grows_storage_in_place_and_keeps_it_when_large_enough() {
        crate::install().unwrap();
        let mut t = MiniTensor::from_vec(vec![1i64, 2, 3, 4], &[2, 2]).unwrap();
        let view = crate::kernels::views::alias(&t);
        assert!(view.shares_storage(&t));
        t.resize_(&[2, 2]).unwrap(); // unchanged sizes keep the strides
        t.resize_(&[3]).unwrap();
        assert_eq!(
            (t.shape(), t.stride(), t.storage_len()),
            (vec![3], vec![1], 4)
        );
        t.resize_(&[3, 3]).unwrap();
        assert_eq!((t.storage_len(), view.storage_len()), (9, 9));
        assert_eq!(t.to_vec::<i64>().unwrap()[..4], [1, 2, 3, 4]);
        assert!(t.resize_(&[-1]).is_err());
        let mut m = MiniTensor::meta(&[1], ScalarType::Float).unwrap();
        m.resize_(&[5, 5]).unwrap();
        assert_eq!((m.shape(), m.storage_len()), (vec![5, 5], 25));
    }

    #[test]
    fn empty_options_and_strides() {
        crate::install().unwrap();
        let t =
            <MiniTensor as Tensor>::empty(&[2, 3], Some(&[1, 2]), &TensorOptions::new()).unwrap();
        assert_eq!(
            (t.stride(), t.dtype(), t.device()),
            (vec![1, 2], ScalarType::Float, Device::CPU)
        );
        assert!(!t.is_contiguous());
        let options = t.options().unwrap();
        assert_eq!(options.layout, Some(Layout::Strided));
        let m =
            <MiniTensor as Tensor>::empty(&[2], None, &TensorOptions::new().device(META)).unwrap();
        assert!(m.is_meta() && m.to_vec::<f32>().is_err());
        assert!(m.key_set().contains(DispatchKey::Meta));
        let cuda: Device = "cuda".parse().unwrap();
        assert!(MiniTensor::new_empty(&[1], &TensorOptions::new().device(cuda)).is_err());
        assert!(MiniTensor::from_vec(vec![1.0f32], &[2]).is_err());
    }

    #[test]
    fn copy_converts_dtypes_and_crosses_devices() {
        crate::install().unwrap();
        let src = MiniTensor::from_vec(vec![1.5f64, -2.5], &[2]).unwrap();
        let mut dst = MiniTensor::from_vec(vec![0i64, 0], &[2]).unwrap();
        <MiniTensor as Tensor>::copy_(&mut dst, &src).unwrap();
        assert_eq!(dst.to_vec::<i64>().unwrap(), [1, -2]);
        assert_eq!(dst.version().unwrap(), 0); // the copy_ operator's ADInplaceOrView bumps
        let dev = src.to_device(PRIVATE_USE1).unwrap();
        assert!(!dev.shares_storage(&src));
        assert!(src.to_device(Device::CPU).unwrap().is_same(&src).unwrap());
        let mut back = MiniTensor::from_vec(vec![0.0f32, 0.0], &[2]).unwrap();
        <MiniTensor as Tensor>::copy_(&mut back, &dev).unwrap();
        assert_eq!(back.to_vec::<f32>().unwrap(), [1.5, -2.5]);
        let m = src.to_device(META).unwrap();
        assert!(m.to_device(Device::CPU).is_err());
        assert_eq!(
            format!("{src:?}"),
            "MiniTensor(shape=[2], dtype=Double, device=cpu, data=[1.5, -2.5])"
        );
    }

    #[test]
    fn keys_versions_and_views() {
        crate::install().unwrap();
        let t = MiniTensor::from_vec(vec![true, false], &[2]).unwrap();
        t.add_key(DispatchKey::AutogradCPU);
        assert!(t.share().key_set().contains(DispatchKey::AutogradCPU));
        let v = crate::kernels::views::select(&t, 0, 1).unwrap();
        assert!(v.key_set().contains(DispatchKey::AutogradCPU));
        let moved = t.to_device(PRIVATE_USE1).unwrap();
        assert!(moved.key_set().contains(DispatchKey::AutogradPrivateUse1));
        assert!(!moved.key_set().contains(DispatchKey::CPU));
        t.remove_key(DispatchKey::AutogradCPU);
        let cpu = DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::ADInplaceOrView]);
        assert_eq!(t.key_set(), cpu);
        // The view kernel alone shares storage, not the version counter: ADInplaceOrView's
        // set_view_of does.
        assert!(v.view_base().is_none());
        v.bump_version().unwrap();
        assert_eq!((t.version().unwrap(), v.version().unwrap()), (0, 1));
        v.set_view_of(&t).unwrap();
        assert!(v.view_base().unwrap().is_same(&t).unwrap());
        v.bump_version().unwrap();
        assert_eq!((t.version().unwrap(), v.version().unwrap()), (1, 1));
        // A view of a view records the root as its base.
        let vv = crate::kernels::views::alias(&v);
        vv.set_view_of(&v).unwrap();
        assert!(vv.view_base().unwrap().is_same(&t).unwrap());
        assert!(t.set_view_of(&t).is_err());
        // set_view_of: a tensor made over the same storage joins the base's counter.
        let g = t.geometry();
        let other = MiniTensor::from_geometry(g, t.key_set(), false);
        assert_eq!(other.version().unwrap(), 0);
        other.set_view_of(&t).unwrap();
        assert_eq!(other.version().unwrap(), 1);
        let unrelated = MiniTensor::scalar(true);
        assert!(unrelated.set_view_of(&t).is_err());
        assert_eq!(
            MiniTensor::scalar_of(Scalar::Float(2.7), ScalarType::Long)
                .unwrap()
                .item::<i64>()
                .unwrap(),
            2
        );
    }
}
