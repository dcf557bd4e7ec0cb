/// Adds `other`, scaled by `alpha`, to `self`.
pub fn add_cpu(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
    self_.clone()
}
/// Adds `other`, scaled by `alpha`, to `self`.
///
/** The defaulted arguments of [`add_with`]; `Default` gives the schema's defaults.
 Name only what changes: `AddArgs { alpha: ..., ..Default::default() }`.*/
/**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
#[derive(::core::clone::Clone)]
pub struct AddArgs {
    /// `Scalar alpha=1`
    pub alpha: ::opgen::dispatch::Scalar,
}
#[automatically_derived]
impl ::core::default::Default for AddArgs {
    fn default() -> Self {
        AddArgs {
            alpha: ::opgen::dispatch::Scalar::Int(1),
        }
    }
}
/// Adds `other`, scaled by `alpha`, to `self`.
///
/** Calls the operator, with the schema's defaults for `alpha`.

 # Panics
 On error, with its message; [`try_add`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
#[inline]
#[track_caller]
pub fn add(self_: &MyTensor, other: &MyTensor) -> MyTensor {
    ::opgen::__private::panic_on_error(try_add(self_, other))
}
/// Adds `other`, scaled by `alpha`, to `self`.
///
/** Calls the operator, with the defaulted arguments given in [`AddArgs`].

 # Panics
 On error, with its message; [`try_add_with`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
#[inline]
#[track_caller]
pub fn add_with(self_: &MyTensor, other: &MyTensor, args: AddArgs) -> MyTensor {
    ::opgen::__private::panic_on_error(try_add_with(self_, other, args))
}
/// Adds `other`, scaled by `alpha`, to `self`.
///
/** Calls the operator, with the schema's defaults for `alpha`.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
#[inline]
pub fn try_add(
    self_: &MyTensor,
    other: &MyTensor,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    try_add_with(self_, other, ::core::default::Default::default())
}
/// Adds `other`, scaled by `alpha`, to `self`.
///
/** Calls the operator, with the defaulted arguments given in [`AddArgs`].
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
#[inline]
pub fn try_add_with(
    self_: &MyTensor,
    other: &MyTensor,
    args: AddArgs,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    let AddArgs { alpha } = args;
    __opgen_call_add(self_, other, alpha)
}
impl MyTensor {
    /// Adds `other`, scaled by `alpha`, to `self`.
    ///
    /** Calls the operator, with the schema's defaults for `alpha`.

 # Panics
 On error, with its message; [`Self::try_add`] returns the error instead.*/
    /**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
    #[inline]
    #[track_caller]
    pub fn add(&self, other: &MyTensor) -> MyTensor {
        ::opgen::__private::panic_on_error(Self::try_add(self, other))
    }
    /// Adds `other`, scaled by `alpha`, to `self`.
    ///
    /** Calls the operator, with the defaulted arguments given in [`AddArgs`].

 # Panics
 On error, with its message; [`Self::try_add_with`] returns the error instead.*/
    /**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
    #[inline]
    #[track_caller]
    pub fn add_with(&self, other: &MyTensor, args: AddArgs) -> MyTensor {
        ::opgen::__private::panic_on_error(Self::try_add_with(self, other, args))
    }
    /// Adds `other`, scaled by `alpha`, to `self`.
    ///
    /** Calls the operator, with the schema's defaults for `alpha`.
 Errors are returned.*/
    /**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
    #[inline]
    pub fn try_add(
        &self,
        other: &MyTensor,
    ) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
        Self::try_add_with(self, other, ::core::default::Default::default())
    }
    /// Adds `other`, scaled by `alpha`, to `self`.
    ///
    /** Calls the operator, with the defaulted arguments given in [`AddArgs`].
 Errors are returned.*/
    /**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
    #[inline]
    pub fn try_add_with(
        &self,
        other: &MyTensor,
        args: AddArgs,
    ) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
        let AddArgs { alpha } = args;
        __opgen_call_add(self, other, alpha)
    }
}
/// Adds `other`, scaled by `alpha`, to `self`.
///
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.

 # Panics
 On error, with its message; [`try_add_redispatch`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
#[inline]
#[track_caller]
pub fn add_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_add_redispatch(key_set, self_, other, alpha))
}
/// Adds `other`, scaled by `alpha`, to `self`.
///
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
 ```
 Variants: `function, method`. Kernels in this crate: `CPU` (`add_cpu`).*/
#[inline]
pub fn try_add_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_ADD.try_redispatch(key_set, self_, other, alpha)
}
#[doc(hidden)]
#[allow(dead_code)]
static __OPGEN_OP_ADD: ::opgen::__private::Op<
    MyTensor,
    (&'static MyTensor, &'static MyTensor, ::opgen::dispatch::Scalar),
    MyTensor,
> = ::opgen::__private::Op::new("aten::add", "Tensor");
#[doc(hidden)]
#[inline]
#[allow(dead_code, non_snake_case, unexpected_cfgs, clippy::too_many_arguments)]
fn __opgen_call_add(
    self_: &MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_ADD
        .try_call(::core::cfg!(feature = "opgen-static-dispatch"), self_, other, alpha)
}
#[doc(hidden)]
const _: () = {
    let _ = ::opgen::__private::VERSION_0_1_0;
    #[::opgen::__private::linkme::distributed_slice(::opgen::__private::REGISTRATIONS)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_REGISTRATION: ::opgen::__private::Registration = ::opgen::__private::Registration {
        namespace: "aten",
        schema: ::core::option::Option::Some(
            "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        ),
        name: "add.Tensor",
        keys: &[::opgen::dispatch::DispatchKey::CPU],
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: |lib, key, site| lib.impl_at("add.Tensor", key, add_cpu, site),
        variants: ::core::option::Option::Some(::opgen::native::Variants {
            function: true,
            method: true,
        }),
        device: ::core::option::Option::Some(::opgen::dispatch::DeviceChecks::DEFAULT),
        backend_select: ::core::option::Option::None,
    };
};
