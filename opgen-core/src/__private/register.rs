//! The registration functions generated code calls: a kernel at a key (with the device
//! check and guard of its operator at device-guarded keys), and an operator's generated
//! `BackendSelect` kernel. Both are generic over the kernel or the operator's marker, so an
//! expansion only names them.

use std::sync::Arc;

use crate::dispatch::device::{DeviceArg, DevicePlan, backend_select_keys};
use crate::dispatch::registry::link::is_global;
use crate::dispatch::{
    ArgList, ArgTuple, DispatchKey, DispatchKeySet, Error, Library, Operator, Registration,
    RetValue, Site, Stack, Tensor, TupleCall, WeakTypedOperator, kernel_name, options_at,
};

/// `f`, with its signature inferred as a kernel over the argument tuple `L`.
fn tuple_fn<T, L, R, F>(f: F) -> F
where
    T: Tensor,
    L: ArgTuple<T>,
    F: for<'a> Fn(DispatchKeySet, L::Borrowed<'a>) -> Result<R, Error>,
{
    f
}

/// Registers `kernel` for the operator `name` (`add.Tensor`, in `lib`'s namespace) at `key`:
/// what every generated registration calls. At a device-guarded key
/// ([`DispatchKey::is_device_guarded`]: the CUDA-like and XPU-like keys) the kernel runs
/// inside the device check and guard its operator's `def` asks for (`device_check`,
/// `device_guard`), computed from the schema when it registers (torchgen's registration
/// wrappers): one mechanism for kernels whose schema is written, attached with `op =`, or
/// structured.
pub fn impl_kernel<T: Tensor, M, K: TupleCall<T, M>>(
    lib: &Library,
    name: &str,
    key: DispatchKey,
    kernel: K,
    site: Site,
) -> Result<Registration, Error> {
    impl_named(lib, name, key, kernel, kernel_name::<K>(), site)
}

/// [`impl_kernel`], with the kernel's name for messages given.
fn impl_named<T: Tensor, M, K: TupleCall<T, M>>(
    lib: &Library,
    name: &str,
    key: DispatchKey,
    kernel: K,
    kernel_name: &'static str,
    site: Site,
) -> Result<Registration, Error> {
    if key.is_device_guarded()
        && let Some(plan) =
            DevicePlan::for_kernel(lib, name, kernel_name, <K::Args as ArgList<T>>::LEN)
    {
        let wrapped = tuple_fn::<T, K::Args, K::Value, _>(move |ks, args| {
            let _guard = plan.enter(ks, &<K::Args as ArgTuple<T>>::device_args(&args))?;
            kernel.call_tuple(ks, args)
        });
        let operator = Arc::from(format!("{}::{name}", lib.namespace()));
        let erased = <K::Args as ArgTuple<T>>::erase_tuple(wrapped, operator);
        return lib.impl_erased(name, key, erased, site);
    }
    lib.impl_at(name, key, kernel, site)
}

/// [`impl_kernel`] for the operator with marker `O`, whose argument families and returns
/// the kernel must have.
pub fn impl_kernel_of<O, M, K>(
    lib: &Library,
    key: DispatchKey,
    kernel: K,
    site: Site,
) -> Result<Registration, Error>
where
    O: Operator,
    K: TupleCall<O::Tensor, M, Args = O::Args, Value = O::Returns>,
{
    impl_kernel(lib, O::name().full, key, kernel, site)
}

/// [`impl_kernel_of`] for an adapter the expansion wraps around the kernel `name` (one that
/// returns `()` where the schema returns the arguments it writes).
pub fn impl_adapter_of<O, M, K>(
    lib: &Library,
    key: DispatchKey,
    kernel: K,
    name: &'static str,
    site: Site,
) -> Result<Registration, Error>
where
    O: Operator,
    K: TupleCall<O::Tensor, M, Args = O::Args, Value = O::Returns>,
{
    impl_named(lib, O::name().full, key, kernel, name, site)
}

/// Registers the generated `BackendSelect` kernel of the operator with marker `O` (a schema
/// with TensorOptions, but for `*_like` and `new_*`: torchgen's `RegisterBackendSelect.cpp`):
/// it computes the backend key of `dtype`, `layout` and `device`, joins the keys of the
/// tensor arguments below `BackendSelect`, and redispatches. In the global dispatcher it
/// redispatches through the cached typed handle; in another, boxed, through a weak handle
/// (the kernel lives in the operator's own table).
pub fn backend_select<O: Operator>(lib: &Library, site: Site) -> Result<Registration, Error> {
    let name = O::name();
    let handle = lib.dispatcher().find(name.qualified, name.overload)?;
    let schema = handle
        .schema()
        .ok_or_else(|| Error::internal("a BackendSelect kernel for an operator without schema"))?;
    let start = schema.tensor_options_start().ok_or_else(|| {
        Error::internal(format!(
            "a BackendSelect kernel for `{}`, which has no TensorOptions",
            name.full
        ))
    })?;
    let has_tensors = schema.arguments.iter().any(|a| a.ty.is_tensor_like());
    let operator = format!("{}::{}", name.namespace, name.full);
    let keys = move |ks: DispatchKeySet, devices: &[DeviceArg<'_, O::Tensor>]| {
        let (dtype, layout, device) = options_at::<O::Tensor>(devices, start);
        backend_select_keys(&operator, ks, has_tensors, dtype, layout, device)
    };
    let qualified: Arc<str> = Arc::from(format!("{}::{}", name.namespace, name.full));
    let erased = if is_global(&lib.dispatcher()) {
        let f = tuple_fn::<O::Tensor, O::Args, O::Returns, _>(move |ks, args| {
            let ks = keys(ks, &<O::Args as ArgTuple<O::Tensor>>::device_args(&args))?;
            O::redispatch(ks, args)
        });
        <O::Args as ArgTuple<O::Tensor>>::erase_tuple(f, qualified)
    } else {
        let op = WeakTypedOperator::<O::Tensor, O::Args, O::Returns>::new(&handle)?;
        let f = tuple_fn::<O::Tensor, O::Args, O::Returns, _>(move |ks, args| {
            let ks = keys(ks, &<O::Args as ArgTuple<O::Tensor>>::device_args(&args))?;
            let mut stack = Stack::new();
            <O::Args as ArgTuple<O::Tensor>>::push(args, &mut stack);
            op.upgrade()?.handle().redispatch_boxed(ks, &mut stack)?;
            <O::Returns as RetValue<O::Tensor>>::pop(&mut stack).map_err(Error::internal)
        });
        <O::Args as ArgTuple<O::Tensor>>::erase_tuple(f, qualified)
    };
    lib.impl_erased(name.full, DispatchKey::BackendSelect, erased, site)
}
