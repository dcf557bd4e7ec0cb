//! The kernels of structured operators, the same for every operator: the out kernel at each
//! impl's key (and the meta-only kernel at `Meta`), and a delegate's functional or in-place
//! kernel at every key where its out operator has one, each running [`run`] in its mode.
//! At device-guarded keys they check devices and guard as every generated registration
//! does, with the delegate's (or out operator's) own `device_check`/`device_guard`.

use std::any::Any;
use std::sync::Arc;

use super::{Args, Inputs, Mode, StructuredOp, run, run_composite};
use crate::dispatch::device::DevicePlan;
use crate::dispatch::{
    ArgList, ArgTuple, DispatchKey, DispatchKeySet, Error, Library, Operator, Registration, Site,
    Tensor,
};

/// Returns of a structured operator made of its outputs: one tensor, a tuple of them, or
/// nothing.
pub trait FromOutputs<T>: Sized {
    /// From the outputs the kernel made (functional mode).
    fn from_owned(outs: Vec<T>) -> Result<Self, Error>;
    /// From the out arguments the kernel wrote (clones of their handles).
    fn from_written(outs: &[&mut T]) -> Result<Self, Error>;
}

fn count<X>(n: usize, found: usize) -> Result<(), Error> {
    if n == found {
        Ok(())
    } else {
        Err(Error::internal(format!(
            "a structured kernel of {n} returns got {found} outputs ({})",
            std::any::type_name::<X>()
        )))
    }
}

impl<T: Tensor> FromOutputs<T> for () {
    fn from_owned(_: Vec<T>) -> Result<(), Error> {
        Ok(())
    }
    fn from_written(_: &[&mut T]) -> Result<(), Error> {
        Ok(())
    }
}

impl<T: Tensor> FromOutputs<T> for T {
    fn from_owned(outs: Vec<T>) -> Result<T, Error> {
        count::<T>(1, outs.len())?;
        outs.into_iter()
            .next()
            .ok_or_else(|| Error::internal("no output"))
    }
    fn from_written(outs: &[&mut T]) -> Result<T, Error> {
        count::<T>(1, outs.len())?;
        outs.first()
            .map(|t| (**t).clone())
            .ok_or_else(|| Error::internal("no output"))
    }
}

macro_rules! tuple_outputs {
    ($n:literal; $($t:ident)*) => {
        impl<T: Tensor> FromOutputs<T> for ($($t,)*) {
            fn from_owned(outs: Vec<T>) -> Result<Self, Error> {
                count::<Self>($n, outs.len())?;
                let mut outs = outs.into_iter();
                Ok(($({
                    let _: Option<$t> = None;
                    outs.next().ok_or_else(|| Error::internal("no output"))?
                },)*))
            }
            fn from_written(outs: &[&mut T]) -> Result<Self, Error> {
                count::<Self>($n, outs.len())?;
                let mut outs = outs.iter();
                Ok(($({
                    let _: Option<$t> = None;
                    (**outs.next().ok_or_else(|| Error::internal("no output"))?).clone()
                },)*))
            }
        }
    };
}

tuple_outputs!(2; T T);
tuple_outputs!(3; T T T);
tuple_outputs!(4; T T T T);
tuple_outputs!(5; T T T T T);
tuple_outputs!(6; T T T T T T);

/// How [`InPlace::in_place`] runs structured operator `S`: with the outputs given and the
/// inputs, returning the outputs.
pub type Run<'r, S> = dyn for<'b> Fn(
        Vec<<S as Operator>::Tensor>,
        Inputs<'b, S>,
    ) -> Result<Vec<<S as Operator>::Tensor>, Error>
    + 'r;

/// The in-place delegate `Self` of structured operator `S`: the glue (generated with the
/// delegate) that runs `S` with `self` as the output and writes the result into it.
pub trait InPlace<S: StructuredOp>: Operator<Tensor = S::Tensor> {
    /// Calls `run` with `self`'s handle as the given output and the arguments as `S`'s
    /// inputs (`self` read-only), then writes the output into `self` and returns it.
    fn in_place(args: Args<'_, Self>, run: &Run<'_, S>) -> Result<Self::Returns, Error>;
}

/// `f` with its signature inferred as a kernel over the arguments of `O`.
fn kernel_fn<O: Operator, F>(f: F) -> F
where
    F: for<'a> Fn(DispatchKeySet, Args<'a, O>) -> Result<O::Returns, Error>,
{
    f
}

/// The device check and guard of a structured kernel of operator `O` at `key` (none at
/// other keys), named `structured <out operator>` in its errors.
fn device_plan<O: Operator, S: StructuredOp>(
    lib: &Library,
    key: DispatchKey,
) -> Option<DevicePlan> {
    if !key.is_device_guarded() {
        return None;
    }
    let kernel = format!("structured {}", S::name().full);
    DevicePlan::for_kernel(
        lib,
        O::name().full,
        &kernel,
        <O::Args as ArgList<O::Tensor>>::LEN,
    )
}

/// Registers an erased kernel over `O`'s arguments at `key`, with a device plan's check and
/// guard around it when there is one.
fn register<O: Operator, F>(
    lib: &Library,
    key: DispatchKey,
    plan: Option<DevicePlan>,
    f: F,
    record: Option<Arc<dyn Any + Send + Sync>>,
    site: Site,
) -> Result<Registration, Error>
where
    F: for<'a> Fn(DispatchKeySet, Args<'a, O>) -> Result<O::Returns, Error> + Send + Sync + 'static,
{
    let operator: Arc<str> = Arc::from(O::name().operator);
    let mut erased = match plan {
        None => <O::Args as ArgTuple<O::Tensor>>::erase_tuple(f, operator),
        Some(plan) => {
            let f = kernel_fn::<O, _>(move |ks, args| {
                let _guard =
                    plan.enter(ks, &<O::Args as ArgTuple<O::Tensor>>::device_args(&args))?;
                f(ks, args)
            });
            <O::Args as ArgTuple<O::Tensor>>::erase_tuple(f, operator)
        }
    };
    erased.structured = record;
    lib.impl_erased(O::name().full, key, erased, site)
}

/// Registers the out kernel of `S` at `key`: meta in [`Mode::Out`] (checks dtype and device,
/// resizes the outs when their shape differs), then `imp` (`None`: meta only, the `Meta`
/// kernel); records `imp` for the delegates ([`structured_impls`]).
pub fn register_out<S>(
    lib: &Library,
    key: DispatchKey,
    imp: Option<S::Impl>,
    site: Site,
) -> Result<Registration, Error>
where
    S: StructuredOp,
    S::Returns: FromOutputs<S::Tensor>,
{
    let f = kernel_fn::<S, _>(move |_ks, args| {
        let (inputs, mut outs) = S::split(args);
        let given = outs.iter().map(|o| (**o).clone()).collect();
        let results = run::<S>(Mode::Out, key, imp, given, inputs)?;
        for (out, result) in outs.iter_mut().zip(results) {
            **out = result;
        }
        S::Returns::from_written(&outs)
    });
    let record: Arc<dyn Any + Send + Sync> = Arc::new(imp);
    register::<S, _>(
        lib,
        key,
        device_plan::<S, S>(lib, key),
        f,
        Some(record),
        site,
    )
}

/// The keys at which `S` has an out kernel registered by [`register_out`], with its impl
/// (`None` at `Meta`), in key order: where delegates register their kernels.
pub fn structured_impls<S: StructuredOp>(lib: &Library) -> Vec<(DispatchKey, Option<S::Impl>)> {
    let dispatcher = lib.dispatcher();
    (dispatcher.kernels_of(S::name().operator).into_iter())
        .filter_map(|(key, kernel)| {
            let record = kernel.structured.as_ref()?;
            let imp = record.downcast_ref::<Option<S::Impl>>()?;
            Some((key, *imp))
        })
        .collect()
}

/// Registers the functional delegate `D` of `S` at every key where `S` has an out kernel:
/// meta in [`Mode::Functional`] (allocates the outputs), then the impl into them; with
/// `composite`, also a `CompositeExplicitAutograd` kernel that runs meta and then the out
/// operator through the dispatcher.
pub fn register_functional<S, D>(
    lib: &Library,
    site: Site,
    composite: bool,
) -> Result<Vec<Registration>, Error>
where
    S: StructuredOp,
    D: Operator<Tensor = S::Tensor, Args = S::Inputs>,
    D::Returns: FromOutputs<S::Tensor>,
{
    let mut out = Vec::new();
    for (key, imp) in structured_impls::<S>(lib) {
        let f = kernel_fn::<D, _>(move |_ks, args| {
            D::Returns::from_owned(run::<S>(Mode::Functional, key, imp, Vec::new(), args)?)
        });
        out.push(register::<D, _>(
            lib,
            key,
            device_plan::<D, S>(lib, key),
            f,
            None,
            site,
        )?);
    }
    if composite {
        let key = DispatchKey::CompositeExplicitAutograd;
        let f = kernel_fn::<D, _>(move |_ks, args| {
            D::Returns::from_owned(run_composite::<S>(Mode::Functional, key, Vec::new(), args)?)
        });
        out.push(register::<D, _>(lib, key, None, f, None, site)?);
    }
    Ok(out)
}

/// Registers the in-place delegate `D` of `S` at every key where `S` has an out kernel:
/// meta in [`Mode::InPlace`] (checks `self`, never resizes), then the impl into `self`;
/// with `composite`, also a `CompositeExplicitAutograd` kernel through the out operator.
pub fn register_in_place<S, D>(
    lib: &Library,
    site: Site,
    composite: bool,
) -> Result<Vec<Registration>, Error>
where
    S: StructuredOp,
    D: InPlace<S>,
{
    let mut out = Vec::new();
    for (key, imp) in structured_impls::<S>(lib) {
        let f = kernel_fn::<D, _>(move |_ks, args| {
            D::in_place(args, &|given, inputs| {
                run::<S>(Mode::InPlace, key, imp, given, inputs)
            })
        });
        out.push(register::<D, _>(
            lib,
            key,
            device_plan::<D, S>(lib, key),
            f,
            None,
            site,
        )?);
    }
    if composite {
        let key = DispatchKey::CompositeExplicitAutograd;
        let f = kernel_fn::<D, _>(move |_ks, args| {
            D::in_place(args, &|given, inputs| {
                run_composite::<S>(Mode::InPlace, key, given, inputs)
            })
        });
        out.push(register::<D, _>(lib, key, None, f, None, site)?);
    }
    Ok(out)
}
