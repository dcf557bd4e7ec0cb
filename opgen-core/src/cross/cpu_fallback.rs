//! The CPU fallback of an external backend (PyTorch's `at::native::cpu_fallback`): run an
//! operator the backend has no kernel for on the CPU, and bring the results back.

use std::panic::Location;
use std::sync::Arc;

use super::{Installed, Scope, args_base, hook_error, schema_of};
use crate::dispatch::{
    Device, DeviceType, DispatchKey, DispatchKeySet, Dispatcher, Error, IValue, OperatorHandle,
    Stack, Tensor,
};
use crate::schema::Schema;

const FEATURE: &str = "CPU fallback";

/// Registers a boxed backend fallback at `key` (an external backend such as `PrivateUse1`)
/// that runs the operators of `scope` without a kernel at `key` on the CPU:
///
/// 1. every tensor argument (`Tensor`, `Tensor?`, `Tensor[]`, `Tensor?[]`) is moved to the
///    CPU with [`Tensor::to_device`], and a `Device` argument is replaced by the CPU;
/// 2. the operator's CPU kernel runs (a redispatch with the key set `{CPU}`, as PyTorch does);
/// 3. every tensor passed to a written argument (`Tensor(a!)`, `Tensor(a!)?`,
///    `Tensor(a!)[]`) gets the CPU result copied back with [`Tensor::copy_`], after a
///    [`Tensor::resize_`] when its shape ([`Tensor::sizes`]) differs (an out argument);
/// 4. a return that aliases a written argument (`-> Tensor(a!)`) is that original argument;
///    every other tensor return is moved to the target device: the `Device` argument if the
///    operator has one, else the device ([`Tensor::options`]) of the first tensor argument
///    not on the CPU. Without either, results stay on the CPU.
///
/// View operators (a return that aliases an argument without writing it, `-> Tensor(a)`)
/// are refused with an error naming the operator, before anything runs, as PyTorch's
/// `cpu_fallback` refuses them: a result computed on the CPU cannot share its base's
/// storage on the device, so the backend needs its own kernels for views.
///
/// A fallback serves every operator, those defined later included; operators outside
/// `scope` get the usual missing-kernel error. At most one fallback per key: an error if
/// `key` has one. A hook the tensor type does not implement is an error naming the operator
/// and the hook.
///
/// ```
/// use opgen_core::cross::{install_cpu_fallback, Scope};
/// # use opgen_core::dispatch::*;
/// #[derive(Clone, Debug)]
/// struct MyTensor { device: DeviceType, value: f64 }
/// impl Tensor for MyTensor {
///     fn key_set(&self) -> DispatchKeySet {
///         match self.device { DeviceType::CPU => DispatchKey::CPU, _ => DispatchKey::PrivateUse1 }.into()
///     }
///     fn options(&self) -> Result<TensorOptions, Error> {
///         Ok(TensorOptions::new().device(Device { kind: self.device, index: None }))
///     }
///     fn to_device(&self, device: Device) -> Result<Self, Error> {
///         Ok(MyTensor { device: device.kind, ..self.clone() })
///     }
/// }
/// let d = Dispatcher::new();
/// let lib = d.library("demo")?;
/// let _def = lib.def("neg(Tensor self) -> Tensor")?;
/// let _cpu = lib.impl_("neg", DispatchKey::CPU, |t: &MyTensor| MyTensor { value: -t.value, ..t.clone() })?;
/// let _fallback = install_cpu_fallback::<MyTensor>(&d, DispatchKey::PrivateUse1, Scope::All)?;
/// let neg = d.typed::<_, (&MyTensor,), MyTensor>("demo::neg", "")?;
/// let y = neg.call(&MyTensor { device: DeviceType::PrivateUse1, value: 2.0 });
/// assert_eq!((y.device, y.value), (DeviceType::PrivateUse1, -2.0));
/// # Ok::<(), Error>(())
/// ```
#[track_caller]
pub fn install_cpu_fallback<T: Tensor>(
    dispatcher: &Dispatcher,
    key: DispatchKey,
    scope: impl Into<Scope>,
) -> Result<Installed, Error> {
    let scope = scope.into();
    let mut installed = Installed::new(key.name(), dispatcher, scope.clone(), None);
    let scope = Arc::new(scope);
    let registration = dispatcher.impls("_").fallback_at(
        key,
        move |op: &OperatorHandle, ks: DispatchKeySet, stack: &mut Stack<T>| {
            if !scope.covers(op.namespace()) {
                return Err(op.missing_kernel_error(ks));
            }
            cpu_fallback(op, key, stack)
        },
        Location::caller(),
    )?;
    installed.registrations.push(registration);
    Ok(installed)
}

fn cpu_fallback<T: Tensor>(
    op: &OperatorHandle,
    key: DispatchKey,
    stack: &mut Stack<T>,
) -> Result<(), Error> {
    let hook = hook_error(FEATURE);
    let schema = schema_of(op)?;
    if is_view(&schema) {
        return Err(view_error(op, key));
    }
    let base = args_base(op, schema.arguments.len(), stack)?;
    let mut target: Option<Device> = None;
    let mut device_arg: Option<Device> = None;
    // (argument position, original tensors, their CPU copies) of the written arguments.
    let mut written: Vec<(usize, Vec<T>, Vec<T>)> = Vec::new();
    for (i, arg) in schema.arguments.iter().enumerate() {
        let Some(value) = stack.get_mut(base + i) else {
            continue;
        };
        if let IValue::Device(device) = value {
            device_arg = device_arg.or(Some(*device));
            *device = Device::CPU;
            continue;
        }
        let mut originals = Vec::new();
        let mut copies = Vec::new();
        map_tensors(value, &mut |t: &T| {
            if target.is_none() {
                let device = t.options()?.device_or_default();
                target = (device.kind != DeviceType::CPU).then_some(device);
            }
            let cpu = t.to_device(Device::CPU)?;
            if arg.is_write() {
                originals.push(t.clone());
                copies.push(cpu.clone());
            }
            Ok(cpu)
        })
        .map_err(&hook)?;
        if arg.is_write() {
            written.push((i, originals, copies));
        }
    }
    op.redispatch_boxed(DispatchKeySet::from_key(DispatchKey::CPU), stack)?;

    for (_, originals, copies) in &mut written {
        for (original, cpu) in originals.iter_mut().zip(copies.iter()) {
            copy_back(original, cpu).map_err(&hook)?;
        }
    }
    let target = device_arg.or(target);
    for (j, ret) in schema.returns.iter().enumerate() {
        let Some(value) = stack.get_mut(base + j) else {
            continue;
        };
        if let Some(originals) = aliased_argument(&schema, j).and_then(|i| {
            (written.iter()).find_map(|(k, originals, _)| (*k == i).then_some(originals))
        }) {
            *value = match (value.clone(), originals.as_slice()) {
                (IValue::Tensor(_), [original]) => IValue::Tensor(original.clone()),
                (IValue::TensorList(_), originals) => {
                    IValue::TensorList(Arc::new(originals.to_vec()))
                }
                (other, _) => other,
            };
            continue;
        }
        if let (Some(device), true) = (target, ret.ty.is_tensor_like()) {
            map_tensors(value, &mut |t: &T| t.to_device(device)).map_err(&hook)?;
        }
    }
    Ok(())
}

/// Whether a return aliases an argument without writing it (`-> Tensor(a)`, `-> Tensor(a)[]`):
/// a view operator, in PyTorch's `cpu_fallback` test.
fn is_view(schema: &Schema) -> bool {
    (schema.returns.iter()).any(|r| r.annotation.as_ref().is_some_and(|a| !a.is_write))
}

/// PyTorch's refusal of a view operator, with the key to register a kernel at.
fn view_error(op: &OperatorHandle, key: DispatchKey) -> Error {
    Error::kernel(format!(
        "the CPU fallback of `{key}` cannot run `{op}`: it appears to be a view operator, and \
         view operators don't support falling back to run on the CPU, since the tensor's storage \
         cannot be shared across devices; view operators need a kernel on the backend \
         (register one for `{op}` at `{key}`)"
    ))
}

/// The argument a return aliases with a write (`-> Tensor(a!)`), if any.
fn aliased_argument(schema: &Schema, j: usize) -> Option<usize> {
    let alias = schema.returns.get(j)?.annotation.as_ref()?;
    if !alias.is_write {
        return None;
    }
    (schema.arguments.iter()).position(|a| {
        a.annotation
            .as_ref()
            .is_some_and(|b| b.is_write && b.before == alias.before)
    })
}

/// Writes `cpu` (the result the CPU kernel wrote) into `original`.
fn copy_back<T: Tensor>(original: &mut T, cpu: &T) -> Result<(), Error> {
    let moved = cpu.to_device(original.options()?.device_or_default())?;
    if let (Ok(want), Ok(have)) = (moved.sizes(), original.sizes())
        && want != have
    {
        original.resize_(&want)?;
    }
    original.copy_(&moved)
}

/// Replaces every tensor a value holds by `f` of it.
fn map_tensors<T: Tensor>(
    value: &mut IValue<T>,
    f: &mut impl FnMut(&T) -> Result<T, Error>,
) -> Result<(), Error> {
    match value {
        IValue::Tensor(t) => *t = f(t)?,
        IValue::TensorList(ts) => {
            let mapped = ts.iter().map(&mut *f).collect::<Result<Vec<T>, Error>>()?;
            *ts = Arc::new(mapped);
        }
        IValue::OptionalTensorList(ts) => {
            let mapped = (ts.iter())
                .map(|t| t.as_ref().map(&mut *f).transpose())
                .collect::<Result<Vec<Option<T>>, Error>>()?;
            *ts = Arc::new(mapped);
        }
        _ => {}
    }
    Ok(())
}
