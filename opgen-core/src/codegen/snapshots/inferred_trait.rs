/// Scales a tensor.
pub fn scale_cpu(
    self_: &MyTensor,
    factor: f64,
    dims: Option<&[i64]>,
) -> anyhow::Result<MyTensor> {
    Ok(self_.clone())
}
/// Scales a tensor.
///
/** Calls the operator.

 # Panics
 On error, with its message; [`try_scale`] returns the error instead.*/
/**
 # Schema
 ```text
 vision::scale(Tensor self, float factor, int[]? dims) -> Tensor
 ```
 Inferred from the signature of the kernel `scale_cpu`.

 Variants: `function, method`. Kernels in this crate: `CPU` (`scale_cpu`).*/
#[inline]
#[track_caller]
pub fn scale(
    self_: &MyTensor,
    factor: f64,
    dims: ::core::option::Option<&[i64]>,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_scale(self_, factor, dims))
}
/// Scales a tensor.
///
/** Calls the operator.
 Errors are returned.*/
/**
 # Schema
 ```text
 vision::scale(Tensor self, float factor, int[]? dims) -> Tensor
 ```
 Inferred from the signature of the kernel `scale_cpu`.

 Variants: `function, method`. Kernels in this crate: `CPU` (`scale_cpu`).*/
#[inline]
pub fn try_scale(
    self_: &MyTensor,
    factor: f64,
    dims: ::core::option::Option<&[i64]>,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __opgen_call_scale(self_, factor, dims)
}
/// Scales a tensor.
///
/// Methods of `vision::scale` on [`MyTensor`], for a tensor type defined in another crate.
/**
 # Schema
 ```text
 vision::scale(Tensor self, float factor, int[]? dims) -> Tensor
 ```
 Inferred from the signature of the kernel `scale_cpu`.

 Variants: `function, method`. Kernels in this crate: `CPU` (`scale_cpu`).*/
pub trait ScaleExt {
    /// Scales a tensor.
    ///
    /** Calls the operator.

 # Panics
 On error, with its message; [`Self::try_scale`] returns the error instead.*/
    /**
 # Schema
 ```text
 vision::scale(Tensor self, float factor, int[]? dims) -> Tensor
 ```
 Inferred from the signature of the kernel `scale_cpu`.

 Variants: `function, method`. Kernels in this crate: `CPU` (`scale_cpu`).*/
    fn scale(&self, factor: f64, dims: ::core::option::Option<&[i64]>) -> MyTensor;
    /// Scales a tensor.
    ///
    /** Calls the operator.
 Errors are returned.*/
    /**
 # Schema
 ```text
 vision::scale(Tensor self, float factor, int[]? dims) -> Tensor
 ```
 Inferred from the signature of the kernel `scale_cpu`.

 Variants: `function, method`. Kernels in this crate: `CPU` (`scale_cpu`).*/
    fn try_scale(
        &self,
        factor: f64,
        dims: ::core::option::Option<&[i64]>,
    ) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error>;
}
#[automatically_derived]
impl ScaleExt for MyTensor {
    #[inline]
    #[track_caller]
    fn scale(&self, factor: f64, dims: ::core::option::Option<&[i64]>) -> MyTensor {
        ::opgen::__private::panic_on_error(
            <Self as ScaleExt>::try_scale(self, factor, dims),
        )
    }
    #[inline]
    fn try_scale(
        &self,
        factor: f64,
        dims: ::core::option::Option<&[i64]>,
    ) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
        __opgen_call_scale(self, factor, dims)
    }
}
/// Scales a tensor.
///
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.

 # Panics
 On error, with its message; [`try_scale_redispatch`] returns the error instead.*/
/**
 # Schema
 ```text
 vision::scale(Tensor self, float factor, int[]? dims) -> Tensor
 ```
 Inferred from the signature of the kernel `scale_cpu`.

 Variants: `function, method`. Kernels in this crate: `CPU` (`scale_cpu`).*/
#[inline]
#[track_caller]
pub fn scale_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &MyTensor,
    factor: f64,
    dims: ::core::option::Option<&[i64]>,
) -> MyTensor {
    ::opgen::__private::panic_on_error(
        try_scale_redispatch(key_set, self_, factor, dims),
    )
}
/// Scales a tensor.
///
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.
 Errors are returned.*/
/**
 # Schema
 ```text
 vision::scale(Tensor self, float factor, int[]? dims) -> Tensor
 ```
 Inferred from the signature of the kernel `scale_cpu`.

 Variants: `function, method`. Kernels in this crate: `CPU` (`scale_cpu`).*/
#[inline]
pub fn try_scale_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &MyTensor,
    factor: f64,
    dims: ::core::option::Option<&[i64]>,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_SCALE.try_redispatch(key_set, self_, factor, dims)
}
#[doc(hidden)]
#[allow(dead_code)]
static __OPGEN_OP_SCALE: ::opgen::__private::Op<
    MyTensor,
    (&'static MyTensor, f64, ::core::option::Option<&'static [i64]>),
    MyTensor,
> = ::opgen::__private::Op::new("vision::scale", "");
#[doc(hidden)]
#[inline]
#[allow(dead_code, non_snake_case, unexpected_cfgs, clippy::too_many_arguments)]
fn __opgen_call_scale(
    self_: &MyTensor,
    factor: f64,
    dims: ::core::option::Option<&[i64]>,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_SCALE
        .try_call(::core::cfg!(feature = "opgen-static-dispatch"), self_, factor, dims)
}
#[doc(hidden)]
const _: () = {
    let _ = ::opgen::__private::VERSION_0_1_0;
    #[::opgen::__private::linkme::distributed_slice(::opgen::__private::REGISTRATIONS)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_REGISTRATION: ::opgen::__private::Registration = ::opgen::__private::Registration {
        namespace: "vision",
        schema: ::core::option::Option::Some(
            "scale(Tensor self, float factor, int[]? dims) -> Tensor",
        ),
        name: "scale",
        keys: &[::opgen::dispatch::DispatchKey::CPU],
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: |lib, key, site| lib.impl_at("scale", key, scale_cpu, site),
        variants: ::core::option::Option::Some(::opgen::native::Variants {
            function: true,
            method: true,
        }),
        device: ::core::option::Option::Some(::opgen::dispatch::DeviceChecks::DEFAULT),
        backend_select: ::core::option::Option::None,
    };
};
