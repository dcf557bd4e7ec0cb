//! Registering a typed kernel with its operator's device check and guard: what torchgen's
//! registration wrappers do for CUDA-like kernels, and what every kernel generated code
//! registers goes through (`Library::impl_of` and `opgen_core::__private`'s registration
//! functions call it).

use std::sync::Arc;

use super::DevicePlan;
use crate::dispatch::kernel::ArgList;
use crate::dispatch::kernel_name;
use crate::dispatch::{
    ArgTuple, DispatchKey, DispatchKeySet, Error, Library, Registration, Site, Tensor, TupleCall,
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

/// Registers `kernel` (shown as `shown` in dumps and warnings, by its last segment in
/// messages) for the operator `name` (`add.Tensor`, in `lib`'s namespace) at `key`. At a
/// device-guarded key ([`DispatchKey::is_device_guarded`]: the CUDA-like and XPU-like keys)
/// the kernel runs inside the device check and guard its operator's `def` asks for
/// (`device_check`, `device_guard`), computed from the schema when it registers: one
/// mechanism for kernels whose schema is written, attached with `op =`, or structured. At
/// other keys the kernel is registered as it is.
pub(crate) fn impl_guarded<T: Tensor, M, K: TupleCall<T, M>>(
    lib: &Library,
    name: &str,
    key: DispatchKey,
    kernel: K,
    shown: &'static str,
    site: Site,
) -> Result<Registration, Error> {
    let operator = Arc::from(format!("{}::{name}", lib.namespace()));
    let plan = key.is_device_guarded().then(|| {
        DevicePlan::for_kernel(lib, name, kernel_name(shown), <K::Args as ArgList<T>>::LEN)
    });
    let mut erased = match plan.flatten() {
        Some(plan) => {
            let wrapped = tuple_fn::<T, K::Args, K::Value, _>(move |ks, args| {
                let _guard = plan.enter(ks, &<K::Args as ArgTuple<T>>::device_args(&args))?;
                kernel.call_tuple(ks, args)
            });
            <K::Args as ArgTuple<T>>::erase_tuple(wrapped, operator)
        }
        None => kernel.erase(operator),
    };
    // Dumps and warnings name the user's kernel, not a wrapper or an adapter.
    erased.name = shown;
    lib.impl_erased(name, key, erased, site)
}
