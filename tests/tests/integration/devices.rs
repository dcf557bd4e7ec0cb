//! Factories and devices: the generated `BackendSelect` kernels (a factory reaches the
//! backend of its `device`), the TensorOptions forms, and the device check and device guard
//! of kernels at device-guarded keys, on a fake tensor type whose tensors live on any
//! device (`cuda:1` included) and remember the current device their kernel ran under.

use opgen::dispatch::{DeviceType, current_device};
use opgen::prelude::*;
use opgen::structured::StructuredMeta;

/// A tensor with a device and a fill value; it records which kernel made it and the
/// thread's current device while that kernel ran.
#[derive(Clone, Debug, PartialEq)]
pub struct DevTensor {
    device: Device,
    size: Vec<i64>,
    value: f64,
    made_by: &'static str,
    made_under: Option<Device>,
}

impl DevTensor {
    fn on(device: &str, size: &[i64]) -> DevTensor {
        DevTensor {
            device: dev(device),
            size: size.to_vec(),
            value: 0.0,
            made_by: "test",
            made_under: None,
        }
    }

    fn made(device: Device, size: &[i64], value: f64, by: &'static str) -> DevTensor {
        DevTensor {
            device,
            size: size.to_vec(),
            value,
            made_by: by,
            made_under: current_device(),
        }
    }
}

impl Tensor for DevTensor {
    fn key_set(&self) -> DispatchKeySet {
        self.device.backend_key().into()
    }

    fn options(&self) -> Result<TensorOptions, Error> {
        Ok(TensorOptions::new().device(self.device))
    }

    fn sizes(&self) -> Result<Vec<i64>, Error> {
        Ok(self.size.clone())
    }

    /// Records the current device at allocation: a structured functional kernel allocates
    /// under its guard.
    fn empty(
        sizes: &[i64],
        _strides: Option<&[i64]>,
        options: &TensorOptions,
    ) -> Result<Self, Error> {
        Ok(DevTensor::made(
            options.device_or_default(),
            sizes,
            0.0,
            "empty",
        ))
    }

    fn resize_(&mut self, sizes: &[i64]) -> Result<(), Error> {
        self.size = sizes.to_vec();
        Ok(())
    }
}

fn dev(name: &str) -> Device {
    name.parse().expect("a device")
}

// ---- a factory with CPU, Meta and CUDA kernels

/// Fills a new tensor of `size` with `value`.
#[native_function(
    "fill(int[] size, float value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    namespace = "devtest",
    dispatch = "CPU, CUDA",
    tensor = "DevTensor"
)]
pub fn fill_kernel(
    size: &[i64],
    value: f64,
    _dtype: Option<ScalarType>,
    _layout: Option<Layout>,
    device: Option<Device>,
    _pin_memory: Option<bool>,
) -> DevTensor {
    let device = device.unwrap_or(Device::CPU);
    let by = if device.kind == DeviceType::CUDA {
        "cuda"
    } else {
        "cpu"
    };
    DevTensor::made(device, size, value, by)
}

/// The Meta kernel of `fill`.
#[native_function(op = "devtest::fill", dispatch = "Meta")]
pub fn fill_meta(
    size: &[i64],
    _value: f64,
    _dtype: Option<ScalarType>,
    _layout: Option<Layout>,
    device: Option<Device>,
    _pin_memory: Option<bool>,
) -> DevTensor {
    DevTensor::made(device.unwrap_or(dev("meta")), size, 0.0, "meta")
}

/// `fill_like`: a `*_like` operator takes the backend of its tensor, so it gets no
/// `BackendSelect` kernel.
#[native_function(
    "fill_like(Tensor self, float value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    namespace = "devtest",
    dispatch = "CPU, Meta"
)]
pub fn fill_like_kernel(
    self_: &DevTensor,
    value: f64,
    _dtype: Option<ScalarType>,
    _layout: Option<Layout>,
    _device: Option<Device>,
    _pin_memory: Option<bool>,
) -> DevTensor {
    DevTensor::made(self_.device, &self_.size, value, "like")
}

#[test]
fn a_factory_dispatches_on_its_device_argument() {
    // device=None is the CPU, through the faithful form, the typed handle and by name.
    let t = fill::call((&[2], 1.5, None, None, None, None)).unwrap();
    assert_eq!((t.made_by, t.device, t.value), ("cpu", Device::CPU, 1.5));
    let meta = fill::call((&[3], 1.0, None, None, Some(dev("meta")), None)).unwrap();
    assert_eq!((meta.made_by, meta.size.as_slice()), ("meta", &[3][..]));
    let op = Dispatcher::global().find("devtest::fill", "").unwrap();
    assert!(op.keys_with_kernels().contains(&DispatchKey::BackendSelect));
    let devices: [(IValue<DevTensor>, &str); 2] =
        [(IValue::None, "cpu"), (IValue::Device(dev("meta")), "meta")];
    for (device, by) in devices {
        let mut stack = Stack::from(vec![IValue::from(vec![4i64]), IValue::Float(2.0)]);
        op.fill_defaults(&mut stack).unwrap();
        stack[4] = device;
        op.call_boxed(&mut stack).unwrap();
        let t = stack.pop().and_then(IValue::into_tensor).unwrap();
        assert_eq!((t.made_by, t.size.as_slice()), (by, &[4][..]));
    }
    // A layout no backend has is an error value naming the operator.
    let err = message(fill::call((
        &[1],
        0.0,
        None,
        Some(Layout::Sparse),
        Some(dev("fpga")),
        None,
    )));
    assert!(
        err.contains("BackendSelect of `devtest::fill` found no backend key for layout `Sparse` on device `fpga`"),
        "{err}"
    );
}

#[test]
fn like_operators_get_no_backend_select_kernel() {
    let op = Dispatcher::global().find("devtest::fill_like", "").unwrap();
    assert!(!op.keys_with_kernels().contains(&DispatchKey::BackendSelect));
    // The tensor's backend wins over `device`.
    let cpu = DevTensor::on("cpu", &[2]);
    let t = fill_like::call((&cpu, 3.0, None, None, Some(dev("meta")), None)).unwrap();
    assert_eq!((t.made_by, t.device), ("like", Device::CPU));
}

fn message<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
    result.expect_err("expected an error").to_string()
}

// ---- device check and device guard at CUDA

/// `mix` on CUDA: records the current device it ran under.
#[native_function(
    "mix(Tensor self, Tensor other, *, Tensor? weight=None) -> Tensor",
    namespace = "devtest",
    dispatch = "CPU, CUDA"
)]
pub fn mix_kernel(self_: &DevTensor, _other: &DevTensor, _weight: Option<&DevTensor>) -> DevTensor {
    DevTensor::made(self_.device, &self_.size, 0.0, "mix")
}

/// `mix.out`: out arguments are checked first.
#[native_function(
    "mix.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    namespace = "devtest",
    dispatch = "CUDA"
)]
pub fn mix_out_kernel(_self: &DevTensor, _other: &DevTensor, out: &mut DevTensor) {
    out.made_under = current_device();
}

/// `loose` on CUDA, without the device check.
#[native_function(
    "loose(Tensor self, Tensor other) -> Tensor",
    namespace = "devtest",
    dispatch = "CUDA",
    device_check = "NoCheck"
)]
pub fn loose_kernel(self_: &DevTensor, _other: &DevTensor) -> DevTensor {
    DevTensor::made(self_.device, &self_.size, 0.0, "loose")
}

/// `unguarded` on CUDA, without the device guard.
#[native_function(
    "unguarded(Tensor self) -> Tensor",
    namespace = "devtest",
    dispatch = "CUDA",
    device_guard = false
)]
pub fn unguarded_kernel(self_: &DevTensor) -> DevTensor {
    DevTensor::made(self_.device, &self_.size, 0.0, "unguarded")
}

#[test]
fn cuda_kernels_run_under_a_guard_on_their_first_tensor() {
    let (a, b) = (DevTensor::on("cuda:1", &[2]), DevTensor::on("cuda:1", &[2]));
    assert_eq!(current_device(), None);
    let t = try_mix(&a, &b).unwrap();
    assert_eq!((t.made_by, t.made_under), ("mix", Some(dev("cuda:1"))));
    assert_eq!(
        current_device(),
        None,
        "the guard is dropped after the call"
    );
    // The CPU kernel gets no guard.
    let c = DevTensor::on("cpu", &[2]);
    assert_eq!(try_mix(&c, &c).unwrap().made_under, None);
    // Nor does a kernel with `device_guard = false`.
    assert_eq!(try_unguarded(&a).unwrap().made_under, None);
    // A factory is guarded on its `device` argument.
    let f = fill::call((&[1], 0.0, None, None, Some(dev("cuda:1")), None)).unwrap();
    assert_eq!((f.made_by, f.made_under), ("cuda", Some(dev("cuda:1"))));
}

#[test]
fn cuda_kernels_check_that_tensors_share_a_device() {
    let (a, b) = (DevTensor::on("cuda:0", &[2]), DevTensor::on("cuda:1", &[2]));
    let err = message(try_mix(&a, &b));
    assert_eq!(
        err,
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 \
         and cuda:1! (kernel `mix_kernel` of `devtest::mix` at `CUDA`: `self` on cuda:0, `other` \
         on cuda:1); move them to one device, or declare the operator with `device_check = \
         \"NoCheck\"`"
    );
    // Keyword-only arguments that are not outs are not checked.
    let w = DevTensor::on("cuda:1", &[2]);
    let ok = try_mix_with(&a, &a, MixArgs { weight: Some(&w) }).unwrap();
    assert_eq!(ok.made_under, Some(dev("cuda:0")));
    // Out arguments come first, and the guard takes `self` first.
    let mut out = DevTensor::on("cuda:1", &[2]);
    let err = message(try_mix_out(&mut out, &a, &a));
    assert!(
        err.contains("(kernel `mix_out_kernel` of `devtest::mix.out` at `CUDA`: `out` on cuda:1, `self` on cuda:0, `other` on cuda:0)"),
        "{err}"
    );
    let mut out = DevTensor::on("cuda:0", &[2]);
    let r = try_mix_out(&mut out, &a, &a).unwrap();
    assert_eq!(r.made_under, Some(dev("cuda:0")));
    // `device_check = "NoCheck"`: no check.
    assert_eq!(try_loose(&a, &b).unwrap().made_under, Some(dev("cuda:0")));
    // By name too: the registered kernel is the wrapper.
    let op = Dispatcher::global().find("devtest::mix", "").unwrap();
    let mut stack = Stack::from(vec![IValue::Tensor(a), IValue::Tensor(b)]);
    op.fill_defaults(&mut stack).unwrap();
    assert!(message(op.call_boxed(&mut stack)).contains("at least two devices"));
}

// ---- kernels attached at CUDA with `op = ` (as an extension crate would)

/// `blend`, defined with a CPU kernel; its CUDA kernel comes with `op = `.
#[native_function(
    "blend(Tensor self, Tensor other, *, Tensor? weight=None) -> Tensor",
    namespace = "devtest",
    dispatch = "CPU"
)]
pub fn blend_cpu(self_: &DevTensor, _other: &DevTensor, _weight: Option<&DevTensor>) -> DevTensor {
    DevTensor::made(self_.device, &self_.size, 0.0, "blend_cpu")
}

/// The CUDA kernel of `devtest::blend`: checked and guarded by the operator's defaults.
#[native_function(op = "devtest::blend", dispatch = "CUDA")]
pub fn blend_cuda(self_: &DevTensor, _other: &DevTensor, _weight: Option<&DevTensor>) -> DevTensor {
    DevTensor::made(self_.device, &self_.size, 0.0, "blend_cuda")
}

/// `blend_loose`: its `def` says no check and no guard, which its `op = ` kernel follows.
#[native_function(
    "blend_loose(Tensor self, Tensor other) -> Tensor",
    namespace = "devtest",
    dispatch = "CPU",
    device_check = "NoCheck",
    device_guard = false
)]
pub fn blend_loose_cpu(self_: &DevTensor, _other: &DevTensor) -> DevTensor {
    DevTensor::made(self_.device, &self_.size, 0.0, "loose_cpu")
}

/// The CUDA kernel of `devtest::blend_loose`.
#[native_function(op = "devtest::blend_loose", dispatch = "CUDA")]
pub fn blend_loose_cuda(self_: &DevTensor, _other: &DevTensor) -> DevTensor {
    DevTensor::made(self_.device, &self_.size, 0.0, "loose_cuda")
}

/// `spread`, a factory defined with a CPU kernel; its CUDA kernel comes with `op = `.
#[native_function(
    "spread(int n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
    namespace = "devtest",
    dispatch = "CPU",
    tensor = "DevTensor"
)]
pub fn spread_cpu(
    n: i64,
    _dtype: Option<ScalarType>,
    _layout: Option<Layout>,
    _device: Option<Device>,
    _pin_memory: Option<bool>,
) -> DevTensor {
    DevTensor::made(Device::CPU, &[n], 0.0, "spread_cpu")
}

/// The CUDA kernel of `devtest::spread`: guarded on its `device`.
#[native_function(op = "devtest::spread", dispatch = "CUDA", tensor = "DevTensor")]
pub fn spread_cuda(
    n: i64,
    _dtype: Option<ScalarType>,
    _layout: Option<Layout>,
    device: Option<Device>,
    _pin_memory: Option<bool>,
) -> DevTensor {
    DevTensor::made(device.unwrap_or(Device::CPU), &[n], 0.0, "spread_cuda")
}

#[test]
fn kernels_attached_by_name_at_cuda_follow_the_defs_device_check_and_guard() {
    use opgen::dispatch::DeviceChecks;
    let (a, b) = (DevTensor::on("cuda:1", &[2]), DevTensor::on("cuda:1", &[2]));
    let t = try_blend(&a, &b).unwrap();
    assert_eq!(
        (t.made_by, t.made_under),
        ("blend_cuda", Some(dev("cuda:1")))
    );
    assert_eq!(
        current_device(),
        None,
        "the guard is dropped after the call"
    );
    let c = DevTensor::on("cuda:0", &[2]);
    assert_eq!(
        message(try_blend(&c, &a)),
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 \
         and cuda:1! (kernel `blend_cuda` of `devtest::blend` at `CUDA`: `self` on cuda:0, \
         `other` on cuda:1); move them to one device, or declare the operator with \
         `device_check = \"NoCheck\"`"
    );
    // Keyword-only `weight` is not checked; the guard is on `self`.
    let w = BlendArgs { weight: Some(&a) };
    assert_eq!(
        try_blend_with(&c, &c, w).unwrap().made_under,
        Some(dev("cuda:0"))
    );
    // The def's `NoCheck` and `device_guard = false` are recorded and followed.
    let d = Dispatcher::global();
    let loose = DeviceChecks {
        check: false,
        guard: false,
    };
    assert_eq!(
        d.find("devtest::blend_loose", "").unwrap().device_checks(),
        Some(loose)
    );
    assert_eq!(
        d.find("devtest::blend", "").unwrap().device_checks(),
        Some(DeviceChecks::DEFAULT)
    );
    let t = try_blend_loose(&c, &a).unwrap();
    assert_eq!((t.made_by, t.made_under), ("loose_cuda", None));
    // A factory's kernel is guarded on its `device`.
    let f = try_spread(3, TensorOptions::new().device(dev("cuda:1"))).unwrap();
    assert_eq!(
        (f.made_by, f.made_under),
        ("spread_cuda", Some(dev("cuda:1")))
    );
    // The CPU kernels get nothing.
    let cpu = DevTensor::on("cpu", &[1]);
    assert_eq!(try_blend(&cpu, &cpu).unwrap().made_under, None);
}

// ---- device check and device guard of a structured operator at CUDA

/// `shift.out`: structured, with a CUDA impl; `shift` delegates to it.
#[native_function(
    "shift.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    namespace = "devtest"
)]
#[native_function(
    "shift(Tensor self, Tensor other) -> Tensor",
    structured_delegate = "shift.out",
    namespace = "devtest"
)]
pub fn shift_meta(
    meta: &mut StructuredMeta<'_, DevTensor>,
    self_: &DevTensor,
    _other: &DevTensor,
) -> Result<(), Error> {
    meta.set_output(0, &self_.size, self_.options()?)
}

/// The CUDA impl of `devtest::shift.out`: records the current device it ran under.
#[native_function(op = "devtest::shift.out", structured, dispatch = "CUDA")]
pub fn shift_out_cuda(
    self_: &DevTensor,
    _other: &DevTensor,
    out: &mut DevTensor,
) -> Result<(), Error> {
    out.value = self_.value + 1.0;
    out.made_by = "shift";
    out.made_under = current_device();
    Ok(())
}

#[test]
fn structured_kernels_at_cuda_are_checked_and_guarded_too() {
    let (a, b) = (DevTensor::on("cuda:1", &[2]), DevTensor::on("cuda:1", &[2]));
    // The functional delegate: allocated and computed under the guard of `self`.
    let t = try_shift(&a, &b).unwrap();
    assert_eq!(
        (t.made_by, t.value, t.made_under),
        ("shift", 1.0, Some(dev("cuda:1")))
    );
    assert_eq!(
        current_device(),
        None,
        "the guard is dropped after the call"
    );
    // The out operator: guarded on `self` too.
    let mut out = DevTensor::on("cuda:1", &[2]);
    let _ = try_shift_out(&mut out, &a, &b).unwrap();
    assert_eq!(
        (out.made_by, out.made_under),
        ("shift", Some(dev("cuda:1")))
    );
    // Tensors on two devices: the device check's error, naming the structured kernel.
    let c = DevTensor::on("cuda:0", &[2]);
    assert_eq!(
        message(try_shift(&c, &a)),
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 \
         and cuda:1! (kernel `structured shift.out` of `devtest::shift` at `CUDA`: `self` on \
         cuda:0, `other` on cuda:1); move them to one device, or declare the operator with \
         `device_check = \"NoCheck\"`"
    );
    let mut out = DevTensor::on("cuda:0", &[2]);
    let err = message(try_shift_out(&mut out, &a, &b));
    assert!(
        err.contains("(kernel `structured shift.out` of `devtest::shift.out` at `CUDA`: `out` on cuda:0, `self` on cuda:1, `other` on cuda:1)"),
        "{err}"
    );
}

// ---- the TensorOptions forms, and the names of the forms under `manual_cpp_binding`

#[test]
fn factories_take_one_options_value_in_the_convenient_forms() {
    let t = fill(&[2], 1.5, TensorOptions::new());
    assert_eq!((t.made_by, t.value), ("cpu", 1.5));
    let meta = TensorOptions::new().device(dev("meta"));
    assert_eq!(try_fill(&[2], 0.0, meta).unwrap().made_by, "meta");
    // The arguments struct holds the options as one field, defaulting to the schema's.
    assert_eq!(FillArgs::default().options, TensorOptions::new());
    let t = fill_with(&[3], 1.0, FillArgs { options: meta });
    assert_eq!((t.made_by, t.size.as_slice()), ("meta", &[3][..]));
    // The faithful form (the marker's `call`) takes the four separately, in schema order.
    let f = fill::call((&[1], 0.0, None, None, Some(dev("meta")), None)).unwrap();
    assert_eq!(f.made_by, "meta");
}

/// `ramp`: bound by hand (`manual_cpp_binding`), so the generated forms are `__dispatch_*`.
#[native_function(
    "ramp(int n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=False) -> Tensor",
    namespace = "devtest",
    dispatch = "CPU",
    manual_cpp_binding = true,
    tensor = "DevTensor"
)]
pub fn ramp_kernel(
    n: i64,
    _dtype: Option<ScalarType>,
    _layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> DevTensor {
    let by = if pin_memory == Some(false) {
        "unpinned"
    } else {
        "ramp"
    };
    DevTensor::made(device.unwrap_or(Device::CPU), &[n], 0.0, by)
}

#[test]
fn every_form_follows_one_naming_rule_under_manual_cpp_binding() {
    let o = TensorOptions::new();
    // prefix + `__dispatch_ramp` + suffix, leading underscores kept outside.
    assert_eq!(__dispatch_ramp(2, o).size, [2]);
    assert_eq!(__try_dispatch_ramp(2, o).unwrap().size, [2]);
    let args = __DispatchRampArgs::default();
    // The schema's `pin_memory=False` is the default of the options field.
    assert_eq!(args.options, TensorOptions::new().pin_memory(false));
    assert_eq!(__dispatch_ramp_with(1, args.clone()).made_by, "unpinned");
    assert_eq!(
        __try_dispatch_ramp_with(1, args).unwrap().made_by,
        "unpinned"
    );
    // The marker is named as the plain form: its `call` is the faithful form, in schema
    // order, and its `redispatch` the redispatch form.
    let t = __dispatch_ramp::call((3, None, None, None, Some(false))).unwrap();
    assert_eq!((t.size.as_slice(), t.made_by), (&[3][..], "unpinned"));
    let ks = DispatchKeySet::from_key(DispatchKey::CPU);
    let t = __dispatch_ramp::redispatch(ks, (1, None, None, None, None)).unwrap();
    assert_eq!(t.size, [1]);
}

#[test]
fn variants_are_known_at_run_time() {
    use opgen::native::Variants;
    let d = Dispatcher::global();
    let function = Variants {
        function: true,
        method: false,
    };
    assert_eq!(
        d.find("devtest::fill", "").unwrap().variants(),
        Some(function)
    );
    let both = Variants {
        function: true,
        method: true,
    };
    assert_eq!(
        d.find("aten::add", "Tensor").unwrap().variants(),
        Some(both)
    );
    let catalog = d.catalog_json();
    let fill = catalog["functions"]
        .as_array()
        .and_then(|fs| {
            fs.iter().find(|f| {
                f["func"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("devtest::fill("))
            })
        })
        .expect("devtest::fill in the catalog");
    assert_eq!(fill["variants"].to_string(), r#"["function"]"#);
}
