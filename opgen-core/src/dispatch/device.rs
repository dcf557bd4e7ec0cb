//! Devices and backends: the backend key of a device or of a factory's options (c10's
//! `computeDispatchKey`), which `BackendSelect` kernels dispatch to, and the thread's current
//! device, which device-guarded kernels (CUDA-like and XPU-like keys) run under.

use std::cell::Cell;
use std::marker::PhantomData;

use super::error::{Error, ErrorKind};
use super::keys::{BackendComponent, DispatchKey};
use super::keyset::DispatchKeySet;
use super::tensor::{Tensor, TensorOptions};
use super::value::{Device, DeviceType, Layout, ScalarType};

impl DeviceType {
    /// The dense backend key of the device type: `CPU` for `cpu`, `CUDA` for `cuda`, `Meta`
    /// for `meta`, `PrivateUse1` for `privateuseone`, `FPGA` for `fpga`, ...
    ///
    /// ```
    /// use opgen_core::dispatch::{DeviceType, DispatchKey};
    /// assert_eq!(DeviceType::Meta.backend_key(), DispatchKey::Meta);
    /// assert_eq!(DeviceType::PrivateUse1.backend_key(), DispatchKey::PrivateUse1);
    /// assert_eq!(DeviceType::Lazy.backend_key(), DispatchKey::Lazy);
    /// ```
    pub const fn backend_key(self) -> DispatchKey {
        use DeviceType as D;
        use DispatchKey as K;
        match self {
            D::CPU => K::CPU,
            D::CUDA => K::CUDA,
            D::MPS => K::MPS,
            D::XPU => K::XPU,
            D::HPU => K::HPU,
            D::MTIA => K::MTIA,
            D::Meta => K::Meta,
            D::PrivateUse1 => K::PrivateUse1,
            D::HIP => K::HIP,
            D::XLA => K::XLA,
            D::Lazy => K::Lazy,
            D::IPU => K::IPU,
            D::VE => K::VE,
            D::MAIA => K::MAIA,
            D::FPGA => K::FPGA,
            D::Vulkan => K::Vulkan,
            D::Metal => K::Metal,
        }
    }

    /// The backend component of the device type: every device type but `fpga`, `vulkan` and
    /// `metal`, whose tensors have a single key (mapped to `AutogradOther`).
    ///
    /// ```
    /// use opgen_core::dispatch::{BackendComponent, DeviceType};
    /// assert_eq!(DeviceType::XLA.backend_component(), Some(BackendComponent::XLA));
    /// assert_eq!(DeviceType::FPGA.backend_component(), None);
    /// ```
    pub const fn backend_component(self) -> Option<BackendComponent> {
        self.backend_key().backend()
    }
}

impl Device {
    /// The dense backend key of the device (its index does not matter): what a factory
    /// call with `device=` this device and the default dtype and layout dispatches to.
    ///
    /// ```
    /// use opgen_core::dispatch::{Device, DispatchKey};
    /// let cuda: Device = "cuda:1".parse().unwrap();
    /// assert_eq!(cuda.backend_key(), DispatchKey::CUDA);
    /// assert_eq!(Device::CPU.backend_key(), DispatchKey::CPU);
    /// ```
    pub const fn backend_key(self) -> DispatchKey {
        self.kind.backend_key()
    }
}

/// The backend key of a new tensor with these options (c10's `computeDispatchKey`): the
/// device (default `cpu`) picks the backend, the layout (default strided; jagged counts as
/// strided) its sparse, compressed-sparse or MKL-DNN form, and a quantized dtype its
/// quantized form. A combination without a key (a sparse layout on `fpga`, `vulkan` or
/// `metal`, `Mkldnn` off the CPU) is an [`ErrorKind::NoBackendKey`] error.
///
/// ```
/// use opgen_core::dispatch::{compute_dispatch_key, Device, DeviceType, DispatchKey, Layout, ScalarType};
/// let device = |kind| Some(Device { kind, index: None });
/// assert_eq!(compute_dispatch_key(None, None, None)?, DispatchKey::CPU);
/// assert_eq!(compute_dispatch_key(None, None, device(DeviceType::Meta))?, DispatchKey::Meta);
/// assert_eq!(compute_dispatch_key(None, Some(Layout::Sparse), None)?, DispatchKey::SparseCPU);
/// assert_eq!(compute_dispatch_key(None, Some(Layout::Sparse), device(DeviceType::XLA))?, DispatchKey::SparseXLA);
/// assert_eq!(compute_dispatch_key(Some(ScalarType::QInt8), None, None)?, DispatchKey::QuantizedCPU);
/// assert_eq!(compute_dispatch_key(None, Some(Layout::Jagged), None)?, DispatchKey::CPU);
/// assert!(compute_dispatch_key(None, Some(Layout::Sparse), device(DeviceType::FPGA)).is_err());
/// # Ok::<(), opgen_core::dispatch::Error>(())
/// ```
pub fn compute_dispatch_key(
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
) -> Result<DispatchKey, Error> {
    use DispatchKey as K;
    let device = device.unwrap_or(Device::CPU);
    let layout = layout.unwrap_or(Layout::Strided);
    let backend = device.kind.backend_component();
    let on_backend = |first: DispatchKey| backend.and_then(|b| first.for_backend(b));
    let key = match layout {
        Layout::Strided | Layout::Jagged if dtype.is_some_and(is_quantized) => {
            on_backend(K::QuantizedCPU).or(Some(device.kind.backend_key()))
        }
        Layout::Strided | Layout::Jagged => Some(device.kind.backend_key()),
        Layout::Sparse => on_backend(K::SparseCPU),
        Layout::SparseCsr | Layout::SparseCsc | Layout::SparseBsr | Layout::SparseBsc => {
            on_backend(K::SparseCsrCPU)
        }
        Layout::Mkldnn => (device.kind == DeviceType::CPU).then_some(K::MkldnnCPU),
    };
    key.ok_or_else(|| {
        ErrorKind::NoBackendKey {
            operator: None,
            dtype,
            layout,
            device,
        }
        .into()
    })
}

fn is_quantized(dtype: ScalarType) -> bool {
    use ScalarType as S;
    matches!(
        dtype,
        S::QInt8 | S::QUInt8 | S::QInt32 | S::QUInt4x2 | S::QUInt2x4
    )
}

impl TensorOptions {
    /// The backend key of a new tensor with these options: [`compute_dispatch_key`].
    pub fn backend_key(&self) -> Result<DispatchKey, Error> {
        compute_dispatch_key(self.dtype, self.layout, self.device)
    }
}

/// The key set a `BackendSelect` kernel of `operator` redispatches with (torchgen's
/// BackendSelect kernels): the backend key of `dtype`, `layout` and `device`; for an operator
/// with tensor arguments, together with the call's own keys `ks` (which hold theirs), all
/// masked to the keys below `BackendSelect`.
pub fn backend_select_keys(
    operator: &str,
    ks: DispatchKeySet,
    has_tensors: bool,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
) -> Result<DispatchKeySet, Error> {
    let key = match compute_dispatch_key(dtype, layout, device) {
        Ok(key) => key,
        Err(error) => return Err(error.for_operator(operator)),
    };
    if !has_tensors {
        return Ok(DispatchKeySet::from_key(key));
    }
    // As c10's `computeDispatchKeySet`: the thread's excluded keys apply to the backend too.
    let backend = DispatchKeySet::from_key(key).difference(super::tls::excluded());
    Ok((ks | backend).below(DispatchKey::BackendSelect))
}

thread_local! {
    static CURRENT: Cell<Option<Device>> = const { Cell::new(None) };
}

/// The device this thread's device-guarded kernels run on: the device set by the innermost
/// live [`DeviceGuard`], or `None` outside any (PyTorch's current CUDA or XPU device).
///
/// Kernels registered by `#[native_function]` at a CUDA-like or XPU-like key run under a
/// guard set from their `device` argument (factories) or from their first tensor argument,
/// unless the operator says `device_guard = false`.
///
/// ```
/// use opgen_core::dispatch::{current_device, Device, DeviceGuard};
/// assert_eq!(current_device(), None);
/// let cuda1: Device = "cuda:1".parse().unwrap();
/// {
///     let _guard = DeviceGuard::new(cuda1);
///     assert_eq!(current_device(), Some(cuda1));
/// }
/// assert_eq!(current_device(), None);
/// ```
pub fn current_device() -> Option<Device> {
    CURRENT.get()
}

/// While alive, makes a device this thread's [`current_device`] (PyTorch's `DeviceGuard`
/// and `OptionalDeviceGuard`); dropping it restores the previous one.
#[must_use = "the device is current only while the guard is alive"]
pub struct DeviceGuard {
    /// The device before the guard, if the guard set one.
    previous: Option<Option<Device>>,
    _not_send: PhantomData<*const ()>,
}

impl DeviceGuard {
    /// Makes `device` current until the guard is dropped.
    pub fn new(device: Device) -> DeviceGuard {
        DeviceGuard {
            previous: Some(CURRENT.replace(Some(device))),
            _not_send: PhantomData,
        }
    }

    /// [`DeviceGuard::new`] for `Some(device)`; for `None`, a guard that changes nothing
    /// (PyTorch's `OptionalDeviceGuard`).
    pub fn optional(device: Option<Device>) -> DeviceGuard {
        match device {
            Some(device) => DeviceGuard::new(device),
            None => DeviceGuard {
                previous: None,
                _not_send: PhantomData,
            },
        }
    }

    /// A guard on the device of `tensor` (its [`Tensor::options`]), or on none for `None`.
    pub fn of<T: Tensor>(tensor: Option<&T>) -> Result<DeviceGuard, Error> {
        match tensor {
            Some(t) => Ok(DeviceGuard::new(device_of(t)?)),
            None => Ok(DeviceGuard::optional(None)),
        }
    }
}

impl Drop for DeviceGuard {
    fn drop(&mut self) {
        if let Some(previous) = self.previous {
            CURRENT.set(previous);
        }
    }
}

/// The device of a tensor: [`Tensor::options`]' device, the CPU if unset.
pub(crate) fn device_of<T: Tensor>(tensor: &T) -> Result<Device, Error> {
    Ok(tensor.options()?.device_or_default())
}

/// What a kernel registered at a device-guarded key does before it runs: the yaml's
/// `device_check` (`check`: ExactSame) and `device_guard` (`guard`), recorded with the
/// operator's `def` ([`Library::def_native_at`](super::Library::def_native_at)) so that
/// kernels attached later (`#[native_function(op = ...)]`, from any crate) follow them.
///
/// ```
/// # use opgen_core::dispatch::*;
/// let d = Dispatcher::new();
/// let lib = d.library("demo")?;
/// let no_check = DeviceChecks { check: false, guard: true };
/// let _def = lib.def_native_at("neg(Tensor self) -> Tensor", None, Some(no_check), std::panic::Location::caller())?;
/// assert_eq!(d.find("demo::neg", "")?.device_checks(), Some(no_check));
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceChecks {
    /// `device_check: ExactSame` (the default): the tensors must share a device.
    pub check: bool,
    /// `device_guard: True` (the default): the kernel runs under a [`DeviceGuard`].
    pub guard: bool,
}

impl DeviceChecks {
    /// PyTorch's defaults: check and guard.
    pub const DEFAULT: DeviceChecks = DeviceChecks {
        check: true,
        guard: true,
    };
}

impl Default for DeviceChecks {
    fn default() -> DeviceChecks {
        DeviceChecks::DEFAULT
    }
}

/// A tensor-like kernel argument (`Tensor`, `Tensor?`, `Tensor[]`, `Tensor?[]`, written or
/// not), seen as the tensors it holds: what device checks and guards look at.
pub trait TensorArg<T: Tensor> {
    /// Calls `f` on each tensor, in order, until it fails.
    fn try_for_each(&self, f: &mut dyn FnMut(&T) -> Result<(), Error>) -> Result<(), Error>;

    /// The first tensor, if any (for a list, its first element: c10's `device_of`).
    fn first(&self) -> Option<&T>;
}

impl<T: Tensor> TensorArg<T> for &T {
    fn try_for_each(&self, f: &mut dyn FnMut(&T) -> Result<(), Error>) -> Result<(), Error> {
        f(self)
    }
    fn first(&self) -> Option<&T> {
        Some(self)
    }
}

impl<T: Tensor> TensorArg<T> for &mut T {
    fn try_for_each(&self, f: &mut dyn FnMut(&T) -> Result<(), Error>) -> Result<(), Error> {
        f(self)
    }
    fn first(&self) -> Option<&T> {
        Some(self)
    }
}

impl<T: Tensor> TensorArg<T> for Option<&T> {
    fn try_for_each(&self, f: &mut dyn FnMut(&T) -> Result<(), Error>) -> Result<(), Error> {
        self.map_or(Ok(()), f)
    }
    fn first(&self) -> Option<&T> {
        *self
    }
}

impl<T: Tensor> TensorArg<T> for Option<&mut T> {
    fn try_for_each(&self, f: &mut dyn FnMut(&T) -> Result<(), Error>) -> Result<(), Error> {
        self.as_deref().map_or(Ok(()), f)
    }
    fn first(&self) -> Option<&T> {
        self.as_deref()
    }
}

impl<T: Tensor> TensorArg<T> for &[T] {
    fn try_for_each(&self, f: &mut dyn FnMut(&T) -> Result<(), Error>) -> Result<(), Error> {
        self.iter().try_for_each(f)
    }
    fn first(&self) -> Option<&T> {
        <[T]>::first(self)
    }
}

impl<T: Tensor> TensorArg<T> for &mut [T] {
    fn try_for_each(&self, f: &mut dyn FnMut(&T) -> Result<(), Error>) -> Result<(), Error> {
        self.iter().try_for_each(f)
    }
    fn first(&self) -> Option<&T> {
        <[T]>::first(self)
    }
}

impl<T: Tensor> TensorArg<T> for &[Option<T>] {
    fn try_for_each(&self, f: &mut dyn FnMut(&T) -> Result<(), Error>) -> Result<(), Error> {
        self.iter().flatten().try_for_each(f)
    }
    fn first(&self) -> Option<&T> {
        self.iter().flatten().next()
    }
}

/// Checks that every tensor of `args` (name, argument) is on one device (torchgen's
/// `check_and_update_common_device`, `device_check: ExactSame`); else a
/// [`ErrorKind::DeviceMismatch`] naming `operator`, `kernel`, the key served (the highest of
/// `ks`) and each argument's device.
pub fn check_same_device<T: Tensor>(
    operator: &str,
    kernel: &str,
    ks: DispatchKeySet,
    args: &[(&str, &dyn TensorArg<T>)],
) -> Result<(), Error> {
    let mut common: Option<Device> = None;
    let mut same = true;
    for (_, arg) in args {
        arg.try_for_each(&mut |t| {
            let device = device_of(t)?;
            match common {
                None => common = Some(device),
                Some(c) => same &= c == device,
            }
            Ok(())
        })?;
    }
    if same {
        return Ok(());
    }
    device_mismatch(operator, kernel, ks, args)
}

#[cold]
#[inline(never)]
fn device_mismatch<T: Tensor>(
    operator: &str,
    kernel: &str,
    ks: DispatchKeySet,
    args: &[(&str, &dyn TensorArg<T>)],
) -> Result<(), Error> {
    let mut devices = Vec::new();
    for (name, arg) in args {
        arg.try_for_each(&mut |t| {
            devices.push((name.to_string(), device_of(t)?));
            Ok(())
        })?;
    }
    Err(ErrorKind::DeviceMismatch {
        operator: operator.to_string(),
        kernel: kernel.to_string(),
        key: ks.highest().unwrap_or(DispatchKey::CPU),
        devices,
    }
    .into())
}

/// One argument of a kernel as device checks, device guards and `BackendSelect` see it
/// ([`ArgFamily::device_arg`](super::ArgFamily::device_arg)).
pub enum DeviceArg<'a, T: Tensor> {
    /// A tensor-like argument (`&T`, `&mut T`, `Option<&T>`, `&[T]`, ...).
    Tensor(&'a dyn TensorArg<T>),
    /// A `Device` or `Device?` argument (a factory's `device`).
    Device(Option<Device>),
    /// A `ScalarType` or `ScalarType?` argument (a factory's `dtype`).
    ScalarType(Option<ScalarType>),
    /// A `Layout` or `Layout?` argument (a factory's `layout`).
    Layout(Option<Layout>),
    /// Anything else.
    Other,
}

/// Where a kernel's guard takes its device from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GuardOn {
    Nothing,
    /// The first tensor of any parameter (no schema to tell `self` from the others).
    FirstTensor,
    /// The first tensor of this parameter.
    Tensor(usize),
    /// This `Device?` parameter.
    Device(usize),
}

/// The device check and guard of a kernel attached at a device-guarded key without its
/// schema at hand (`#[native_function(op = ...)]`): computed when the kernel registers, from
/// the operator's schema and the [`DeviceChecks`] recorded with its `def`, with the rules of
/// the wrappers generated for kernels that state their schema (out arguments then
/// positional ones checked; the guard on `device` for TensorOptions schemas, else on the
/// first tensor among `self`, the outs and the positional arguments).
#[derive(Clone, Debug)]
pub struct DevicePlan {
    operator: String,
    kernel: String,
    /// Parameter index and schema name of each checked argument, in order.
    checked: Vec<(usize, String)>,
    guard: GuardOn,
}

impl DevicePlan {
    /// The plan of kernel `kernel` for the operator `name` (`add.Tensor`, in `lib`'s
    /// namespace), whose parameters are `params` (schema order) of which `tensors` are
    /// tensor-like. Without a `def` in `lib`'s dispatcher yet, every tensor parameter is
    /// checked and the guard takes the first (PyTorch's defaults).
    pub fn new(lib: &super::Library, name: &str, kernel: &str, params: &[&str]) -> DevicePlan {
        let kernel = kernel.to_string();
        let (op, overload) = name.split_once('.').unwrap_or((name, ""));
        let operator = format!("{}::{name}", lib.namespace());
        let handle = (lib.dispatcher())
            .find(&format!("{}::{op}", lib.namespace()), overload)
            .ok();
        let schema = handle.as_ref().and_then(super::OperatorHandle::schema);
        let Some(schema) = schema.filter(|s| s.arguments.len() == params.len()) else {
            return DevicePlan {
                operator,
                kernel,
                checked: params
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (i, p.to_string()))
                    .collect(),
                guard: GuardOn::FirstTensor,
            };
        };
        let checks = handle
            .as_ref()
            .and_then(super::OperatorHandle::device_checks)
            .unwrap_or_default();
        let is_tensor = |i: &usize| {
            schema
                .arguments
                .get(*i)
                .is_some_and(|a| a.ty.is_tensor_like())
        };
        let out_start = schema.out_start();
        let checked = if checks.check {
            (out_start..schema.arguments.len())
                .chain(schema.positional().map(|(i, _)| i))
                .filter(is_tensor)
                .filter_map(|i| Some((i, schema.arguments.get(i)?.name.to_string())))
                .collect()
        } else {
            Vec::new()
        };
        let guard = if !checks.guard {
            GuardOn::Nothing
        } else if let Some(start) = schema.tensor_options_start() {
            GuardOn::Device(start + 2)
        } else {
            (schema.self_index().into_iter())
                .chain(out_start..schema.arguments.len())
                .chain(schema.positional().map(|(i, _)| i))
                .find(is_tensor)
                .map_or(GuardOn::Nothing, GuardOn::Tensor)
        };
        DevicePlan {
            operator,
            kernel,
            checked,
            guard,
        }
    }

    /// The plan of a kernel of `arity` parameters registered by generated code at a
    /// device-guarded key ([`DevicePlan::new`] without parameter names); `None` when neither
    /// the check nor the guard has anything to do.
    pub(crate) fn for_kernel(
        lib: &super::Library,
        name: &str,
        kernel: &str,
        arity: usize,
    ) -> Option<DevicePlan> {
        let names: Vec<String> = (0..arity).map(|i| format!("arg{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let plan = DevicePlan::new(lib, name, kernel, &names);
        (!plan.checked.is_empty() || plan.guard != GuardOn::Nothing).then_some(plan)
    }

    /// Checks the devices of `args` (the kernel's parameters), then returns the guard the
    /// kernel runs under; `ks` is the call's key set (the error names its highest key).
    pub fn enter<T: Tensor>(
        &self,
        ks: DispatchKeySet,
        args: &[DeviceArg<'_, T>],
    ) -> Result<DeviceGuard, Error> {
        let tensor = |i: usize| match args.get(i) {
            Some(DeviceArg::Tensor(t)) => Some(*t),
            _ => None,
        };
        if !self.checked.is_empty() {
            let pairs: smallvec::SmallVec<[(&str, &dyn TensorArg<T>); 8]> = (self.checked.iter())
                .filter_map(|(i, name)| Some((name.as_str(), tensor(*i)?)))
                .collect();
            check_same_device(&self.operator, &self.kernel, ks, &pairs)?;
        }
        match self.guard {
            GuardOn::Nothing => Ok(DeviceGuard::optional(None)),
            GuardOn::FirstTensor => {
                let first = (0..args.len()).find_map(|i| tensor(i)?.first());
                DeviceGuard::of(first)
            }
            GuardOn::Tensor(i) => DeviceGuard::of(tensor(i).and_then(|t| t.first())),
            GuardOn::Device(i) => match args.get(i) {
                Some(DeviceArg::Device(device)) => Ok(DeviceGuard::optional(*device)),
                _ => Ok(DeviceGuard::optional(None)),
            },
        }
    }
}

mod guarded;
#[cfg(test)]
mod tests;

pub(crate) use guarded::impl_guarded;
