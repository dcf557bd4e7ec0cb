//! The trait a user's tensor type implements, and [`TensorOptions`].

use std::any::type_name;

use super::error::{Error, ErrorKind};
use super::keyset::DispatchKeySet;
use super::value::{Device, DeviceType, Layout, ScalarType};

/// A shape held inline for up to four dimensions (what [`Tensor::sizes_inline`] returns).
pub type Sizes = smallvec::SmallVec<[i64; 4]>;

/// What the dispatcher needs from a tensor type: the runtime works with any type that
/// implements it, typically a reference-counted handle (`Arc`-backed), whose `clone` is cheap
/// and shares the tensor's data (as PyTorch's `Tensor` does).
///
/// A tensor's key set names its backend (`CPU`, `SparseCUDA`, ...) and the functionality keys
/// that apply to it, such as its autograd key when it takes part in autograd
/// (`AutogradCPU` for a CPU tensor).
///
/// Only [`key_set`](Tensor::key_set) is required. The other methods are *hooks* with default
/// bodies that return an [`ErrorKind::Unsupported`] error naming the tensor type and the
/// hook; the machinery built on the dispatcher uses them: structured kernels (`sizes`,
/// `options`, `empty`, `resize_`, `copy_`), out and in-place wrappers derived from a
/// functional kernel (`resize_`, `copy_`), in-place-or-view kernels (`bump_version`,
/// `set_view_of`), fallbacks to the CPU (`to_device`) and autograd (`autograd_meta`,
/// `materialize_autograd_meta`). A tensor type implements the hooks of the features it uses.
///
/// ```
/// use std::sync::Arc;
/// use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Tensor};
///
/// #[derive(Clone)]
/// struct MyTensor(Arc<MyImpl>);
/// struct MyImpl { keys: DispatchKeySet, data: Vec<f32> }
///
/// impl Tensor for MyTensor {
///     fn key_set(&self) -> DispatchKeySet { self.0.keys }
///     fn sizes(&self) -> Result<Vec<i64>, opgen_core::dispatch::Error> {
///         Ok(vec![self.0.data.len() as i64])
///     }
/// }
///
/// let t = MyTensor(Arc::new(MyImpl { keys: DispatchKey::CPU.into(), data: vec![1.0] }));
/// assert_eq!(t.key_set().highest(), Some(DispatchKey::CPU));
/// assert_eq!(t.sizes().unwrap(), [1]);
/// // A hook the type does not implement is an error value naming the type and the hook.
/// let err = t.strides().unwrap_err().to_string();
/// assert!(err.contains("does not implement `Tensor::strides`"), "{err}");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor type: it does not implement `Tensor`",
    label = "used as the tensor type here",
    note = "implement `opgen::dispatch::Tensor` for it (`key_set` is the one required method)"
)]
pub trait Tensor: Clone + Send + Sync + 'static {
    /// The dispatch keys of this tensor. Called on every dispatched call, so it should be a
    /// field read.
    fn key_set(&self) -> DispatchKeySet;

    /// The tensor's shape.
    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Err(unsupported::<Self>("sizes"))
    }

    /// The tensor's shape, inline for up to four dimensions: what autograd records for
    /// each input of a backward node and each leaf's accumulator, on every recorded call.
    /// The default copies [`Tensor::sizes`]; a type that keeps its sizes in a slice
    /// implements it without the `Vec`.
    ///
    /// ```
    /// use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Error, Sizes, Tensor};
    ///
    /// #[derive(Clone)]
    /// struct MyTensor { sizes: Vec<i64> }
    /// impl Tensor for MyTensor {
    ///     fn key_set(&self) -> DispatchKeySet { DispatchKey::CPU.into() }
    ///     fn sizes(&self) -> Result<Vec<i64>, Error> { Ok(self.sizes.clone()) }
    ///     fn sizes_inline(&self) -> Result<Sizes, Error> { Ok(Sizes::from_slice(&self.sizes)) }
    /// }
    /// let t = MyTensor { sizes: vec![2, 3] };
    /// assert_eq!(t.sizes_inline()?.as_slice(), [2, 3]);
    /// assert!(!t.sizes_inline()?.spilled()); // no allocation
    /// # Ok::<(), Error>(())
    /// ```
    fn sizes_inline(&self) -> Result<Sizes, Error> {
        self.sizes().map(Sizes::from_vec)
    }

    /// The tensor's strides, in elements.
    fn strides(&self) -> Result<Vec<i64>, Error> {
        Err(unsupported::<Self>("strides"))
    }

    /// The offset of the tensor's first element in its storage, in elements (what
    /// `as_strided`'s derivative saves with the sizes and strides).
    fn storage_offset(&self) -> Result<i64, Error> {
        Err(unsupported::<Self>("storage_offset"))
    }

    /// The tensor's dtype, layout and device, every field set (`pin_memory` may stay
    /// `None`).
    fn options(&self) -> Result<TensorOptions, Error> {
        Err(unsupported::<Self>("options"))
    }

    /// A new tensor of `sizes` with `options` (unset fields take
    /// [`TensorOptions`]' defaults): contiguous when `strides` is `None`, else with those
    /// strides. On the `Meta` device, a tensor without data. Its values are unspecified.
    fn empty(
        sizes: &[i64],
        strides: Option<&[i64]>,
        options: &TensorOptions,
    ) -> Result<Self, Error> {
        let _ = (sizes, strides, options);
        Err(unsupported::<Self>("empty"))
    }

    /// Gives the tensor the shape `sizes` (contiguous strides), keeping its dtype and device;
    /// its values are unspecified afterwards unless the shape is unchanged. Used on out
    /// arguments, which other handles may share.
    fn resize_(&mut self, sizes: &[i64]) -> Result<(), Error> {
        let _ = sizes;
        Err(unsupported::<Self>("resize_"))
    }

    /// Copies the values of `src`, which has this tensor's shape, into this tensor
    /// (converting the dtype if needed).
    fn copy_(&mut self, src: &Self) -> Result<(), Error> {
        let _ = src;
        Err(unsupported::<Self>("copy_"))
    }

    /// A copy of this tensor on `device` (a new tensor; the same handle if already there).
    fn to_device(&self, device: Device) -> Result<Self, Error> {
        let _ = device;
        Err(unsupported::<Self>("to_device"))
    }

    /// The value of the tensor's version counter, which in-place operations bump.
    fn version(&self) -> Result<u64, Error> {
        Err(unsupported::<Self>("version"))
    }

    /// Bumps the version counter: called after an operator wrote into the tensor.
    fn bump_version(&self) -> Result<(), Error> {
        Err(unsupported::<Self>("bump_version"))
    }

    /// Records that this tensor (the output of a view operator) is a view of `base`.
    fn set_view_of(&self, base: &Self) -> Result<(), Error> {
        let _ = base;
        Err(unsupported::<Self>("set_view_of"))
    }

    /// Whether `self` and `other` are handles of the same tensor.
    fn is_same(&self, other: &Self) -> Result<bool, Error> {
        let _ = other;
        Err(unsupported::<Self>("is_same"))
    }

    /// Whether this is an *inference tensor* (PyTorch's `Tensor::is_inference()`): one made
    /// while inference mode was on, or a view of one. The default, `false`, costs nothing.
    ///
    /// A type that supports inference tensors does what c10's `TensorImpl` does: a tensor
    /// it creates while [`is_inference_mode_enabled`] is true gets this flag and a key set
    /// without the autograd keys ([`INFERENCE_EXCLUDED`]); a view inherits its base's flag
    /// and keys; and [`Tensor::version`] of an inference tensor is the error
    /// [`AutogradErrorKind::InferenceVersion`]. It may keep `ADInplaceOrView`: the runtime
    /// then skips an inference tensor's version bump and view record inside inference mode
    /// and refuses an in-place update of it outside ("Inplace update to inference tensor
    /// outside InferenceMode is not allowed..."), as c10 does. Saving one for backward and
    /// making one require grad outside inference mode are refused too.
    ///
    /// [`is_inference_mode_enabled`]: crate::autograd::is_inference_mode_enabled
    /// [`INFERENCE_EXCLUDED`]: crate::autograd::INFERENCE_EXCLUDED
    /// [`AutogradErrorKind::InferenceVersion`]: crate::autograd::AutogradErrorKind::InferenceVersion
    ///
    /// ```
    /// use opgen_core::autograd::{is_inference_mode_enabled, InferenceModeGuard, INFERENCE_EXCLUDED};
    /// use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Tensor};
    ///
    /// #[derive(Clone)]
    /// struct MyTensor { keys: DispatchKeySet, inference: bool }
    /// impl MyTensor {
    ///     fn new() -> MyTensor {
    ///         let keys = DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU]);
    ///         match is_inference_mode_enabled() {
    ///             true => MyTensor { keys: keys - INFERENCE_EXCLUDED, inference: true },
    ///             false => MyTensor { keys, inference: false },
    ///         }
    ///     }
    /// }
    /// impl Tensor for MyTensor {
    ///     fn key_set(&self) -> DispatchKeySet { self.keys }
    ///     fn is_inference(&self) -> bool { self.inference }
    /// }
    /// assert!(!MyTensor::new().is_inference());
    /// let _inference = InferenceModeGuard::new();
    /// let t = MyTensor::new();
    /// assert!(t.is_inference() && !t.key_set().contains(DispatchKey::AutogradCPU));
    /// ```
    #[inline(always)]
    fn is_inference(&self) -> bool {
        false
    }

    /// The tensor's autograd state, for a type that takes part in autograd (it also
    /// implements [`Differentiable`](crate::autograd::Differentiable); see
    /// [`crate::autograd`]). The default, `None`, costs nothing: Autograd kernels see that no
    /// input requires grad and run the operator below autograd.
    #[inline(always)]
    fn autograd_meta(&self) -> Option<&crate::autograd::AutogradMeta<Self>> {
        None
    }

    /// The tensor's autograd state, made now if the tensor has none yet (PyTorch's
    /// `materialize_autograd_meta`). The runtime calls it where it writes the state: a leaf
    /// marked as requiring grad, a gradient set, an output given its `grad_fn`, a view
    /// recorded. A type that makes the state only when needed, as PyTorch's tensors do
    /// (tensors that never require grad then hold nothing), returns `None` from
    /// [`Tensor::autograd_meta`] until this hook made it; the default suits a type that
    /// stores it in every tensor.
    ///
    /// ```
    /// use std::sync::{Arc, OnceLock};
    /// use opgen_core::autograd::{AutogradMeta, AutogradTensor, Differentiable};
    /// use opgen_core::dispatch::{DispatchKey, DispatchKeySet, Error, Tensor};
    ///
    /// #[derive(Clone)]
    /// struct Lazy(Arc<(f64, OnceLock<Box<AutogradMeta<Lazy>>>)>);
    /// impl Lazy {
    ///     fn new(x: f64) -> Lazy { Lazy(Arc::new((x, OnceLock::new()))) }
    /// }
    /// impl Tensor for Lazy {
    ///     fn key_set(&self) -> DispatchKeySet {
    ///         DispatchKeySet::from_keys(&[DispatchKey::CPU, DispatchKey::AutogradCPU])
    ///     }
    ///     fn autograd_meta(&self) -> Option<&AutogradMeta<Self>> { self.0.1.get().map(|m| &**m) }
    ///     fn materialize_autograd_meta(&self) -> Option<&AutogradMeta<Self>> {
    ///         Some(self.0.1.get_or_init(|| Box::new(AutogradMeta::new())))
    ///     }
    /// }
    /// # impl Differentiable for Lazy {
    /// #     fn detach(&self) -> Result<Lazy, Error> { Ok(Lazy::new(self.0.0)) }
    /// #     fn ones_like(&self) -> Result<Lazy, Error> { Ok(Lazy::new(1.0)) }
    /// #     fn zeros_like(&self) -> Result<Lazy, Error> { Ok(Lazy::new(0.0)) }
    /// #     fn accumulate(&self, o: &Lazy) -> Result<Lazy, Error> { Ok(Lazy::new(self.0.0 + o.0.0)) }
    /// #     fn sum_to(&self, _: &[i64]) -> Result<Lazy, Error> { Ok(self.clone()) }
    /// # }
    /// let x = Lazy::new(2.0);
    /// assert!(!x.requires_grad() && x.autograd_meta().is_none()); // nothing made by a query
    /// x.set_requires_grad(true)?;
    /// assert!(x.requires_grad() && x.autograd_meta().is_some());
    /// # Ok::<(), Error>(())
    /// ```
    #[inline(always)]
    fn materialize_autograd_meta(&self) -> Option<&crate::autograd::AutogradMeta<Self>> {
        self.autograd_meta()
    }
}

/// The error of a hook the tensor type does not implement.
#[cold]
fn unsupported<T>(hook: &'static str) -> Error {
    ErrorKind::Unsupported {
        tensor_type: type_name::<T>(),
        hook,
    }
    .into()
}

/// The options of a new tensor, as PyTorch's `TensorOptions`: the four schema arguments
/// `ScalarType? dtype, Layout? layout, Device? device, bool? pin_memory` of a factory
/// function as one value. Unset fields take the defaults (`Float`, `Strided`, `cpu`,
/// `false`).
///
/// ```
/// use opgen_core::dispatch::{Device, Layout, ScalarType, TensorOptions};
/// let options = TensorOptions::new().dtype(ScalarType::Long);
/// assert_eq!(options.dtype, Some(ScalarType::Long));
/// assert_eq!(options.dtype_or_default(), ScalarType::Long);
/// assert_eq!(options.layout_or_default(), Layout::Strided);
/// assert_eq!(options.device_or_default(), Device::CPU);
/// assert_eq!(TensorOptions::default().dtype_or_default(), ScalarType::Float);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TensorOptions {
    /// `ScalarType? dtype`.
    pub dtype: Option<ScalarType>,
    /// `Layout? layout`.
    pub layout: Option<Layout>,
    /// `Device? device`.
    pub device: Option<Device>,
    /// `bool? pin_memory`.
    pub pin_memory: Option<bool>,
}

impl TensorOptions {
    /// No field set.
    pub const fn new() -> TensorOptions {
        TensorOptions {
            dtype: None,
            layout: None,
            device: None,
            pin_memory: None,
        }
    }

    /// From the four schema arguments, in schema order.
    pub const fn from_parts(
        dtype: Option<ScalarType>,
        layout: Option<Layout>,
        device: Option<Device>,
        pin_memory: Option<bool>,
    ) -> TensorOptions {
        TensorOptions {
            dtype,
            layout,
            device,
            pin_memory,
        }
    }

    /// The four schema arguments, in schema order.
    pub const fn into_parts(
        self,
    ) -> (
        Option<ScalarType>,
        Option<Layout>,
        Option<Device>,
        Option<bool>,
    ) {
        (self.dtype, self.layout, self.device, self.pin_memory)
    }

    /// With `dtype` set.
    pub const fn dtype(mut self, dtype: ScalarType) -> TensorOptions {
        self.dtype = Some(dtype);
        self
    }

    /// With `layout` set.
    pub const fn layout(mut self, layout: Layout) -> TensorOptions {
        self.layout = Some(layout);
        self
    }

    /// With `device` set.
    pub const fn device(mut self, device: Device) -> TensorOptions {
        self.device = Some(device);
        self
    }

    /// With `pin_memory` set.
    pub const fn pin_memory(mut self, pin_memory: bool) -> TensorOptions {
        self.pin_memory = Some(pin_memory);
        self
    }

    /// Each field of `self` that is unset, taken from `other` (`self` wins).
    pub const fn merge(self, other: TensorOptions) -> TensorOptions {
        TensorOptions {
            dtype: match self.dtype {
                Some(v) => Some(v),
                None => other.dtype,
            },
            layout: match self.layout {
                Some(v) => Some(v),
                None => other.layout,
            },
            device: match self.device {
                Some(v) => Some(v),
                None => other.device,
            },
            pin_memory: match self.pin_memory {
                Some(v) => Some(v),
                None => other.pin_memory,
            },
        }
    }

    /// The dtype, or PyTorch's default `Float`.
    pub fn dtype_or_default(&self) -> ScalarType {
        self.dtype.unwrap_or(ScalarType::Float)
    }

    /// The layout, or `Strided`.
    pub fn layout_or_default(&self) -> Layout {
        self.layout.unwrap_or(Layout::Strided)
    }

    /// The device, or the CPU.
    pub fn device_or_default(&self) -> Device {
        self.device.unwrap_or(Device::CPU)
    }

    /// Whether the device is the `Meta` device (shapes and dtypes, no data).
    pub fn is_meta(&self) -> bool {
        self.device.is_some_and(|d| d.kind == DeviceType::Meta)
    }

    /// `pin_memory`, or `false`.
    pub fn pin_memory_or_default(&self) -> bool {
        self.pin_memory.unwrap_or(false)
    }
}
