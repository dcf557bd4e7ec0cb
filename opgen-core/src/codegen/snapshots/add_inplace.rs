pub fn add_cpu_(
    self_: &mut MyTensor,
    other: &MyTensor,
    alpha: Scalar,
) -> Result<(), String> {
    Ok(())
}
/** The defaulted arguments of the `add_with_` method; `Default` gives the schema's defaults.
 Name only what changes: `AddInplaceArgs { alpha: ..., ..Default::default() }`.*/
/**
 # Schema
 ```text
 aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
 ```
 Variants: `method`. Kernels in this crate: `CPU`, `Meta` (`add_cpu_`).*/
#[derive(::core::clone::Clone)]
pub struct AddInplaceArgs {
    /// `Scalar alpha=1`
    pub alpha: ::opgen::dispatch::Scalar,
}
#[automatically_derived]
impl ::core::default::Default for AddInplaceArgs {
    fn default() -> Self {
        AddInplaceArgs {
            alpha: ::opgen::dispatch::Scalar::Int(1),
        }
    }
}
impl MyTensor {
    /** Calls the operator, with the schema's defaults for `alpha`.

 # Panics
 On error, with its message; [`Self::try_add_`] returns the error instead.*/
    /**
 # Schema
 ```text
 aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
 ```
 Variants: `method`. Kernels in this crate: `CPU`, `Meta` (`add_cpu_`).*/
    #[inline]
    #[track_caller]
    pub fn add_(&mut self, other: &MyTensor) -> MyTensor {
        ::opgen::__private::panic_on_error(Self::try_add_(self, other))
    }
    /** Calls the operator, with the defaulted arguments given in [`AddInplaceArgs`].

 # Panics
 On error, with its message; [`Self::try_add_with_`] returns the error instead.*/
    /**
 # Schema
 ```text
 aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
 ```
 Variants: `method`. Kernels in this crate: `CPU`, `Meta` (`add_cpu_`).*/
    #[inline]
    #[track_caller]
    pub fn add_with_(&mut self, other: &MyTensor, args: AddInplaceArgs) -> MyTensor {
        ::opgen::__private::panic_on_error(Self::try_add_with_(self, other, args))
    }
    /** Calls the operator, with the schema's defaults for `alpha`.
 Errors are returned.*/
    /**
 # Schema
 ```text
 aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
 ```
 Variants: `method`. Kernels in this crate: `CPU`, `Meta` (`add_cpu_`).*/
    #[inline]
    pub fn try_add_(
        &mut self,
        other: &MyTensor,
    ) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
        Self::try_add_with_(self, other, ::core::default::Default::default())
    }
    /** Calls the operator, with the defaulted arguments given in [`AddInplaceArgs`].
 Errors are returned.*/
    /**
 # Schema
 ```text
 aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
 ```
 Variants: `method`. Kernels in this crate: `CPU`, `Meta` (`add_cpu_`).*/
    #[inline]
    pub fn try_add_with_(
        &mut self,
        other: &MyTensor,
        args: AddInplaceArgs,
    ) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
        let AddInplaceArgs { alpha } = args;
        __opgen_call_add_(self, other, alpha)
    }
}
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.

 # Panics
 On error, with its message; [`try_add_redispatch_`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
 ```
 Variants: `method`. Kernels in this crate: `CPU`, `Meta` (`add_cpu_`).*/
#[inline]
#[track_caller]
pub fn add_redispatch_(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &mut MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_add_redispatch_(key_set, self_, other, alpha))
}
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
 ```
 Variants: `method`. Kernels in this crate: `CPU`, `Meta` (`add_cpu_`).*/
#[inline]
pub fn try_add_redispatch_(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &mut MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_ADD_.try_redispatch(key_set, self_, other, alpha)
}
#[doc(hidden)]
#[allow(dead_code)]
static __OPGEN_OP_ADD_: ::opgen::__private::Op<
    MyTensor,
    (&'static mut MyTensor, &'static MyTensor, ::opgen::dispatch::Scalar),
    MyTensor,
> = ::opgen::__private::Op::new("aten::add_", "Tensor");
#[doc(hidden)]
#[inline]
#[allow(dead_code, non_snake_case, unexpected_cfgs, clippy::too_many_arguments)]
fn __opgen_call_add_(
    self_: &mut MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_ADD_
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
            "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        ),
        name: "add_.Tensor",
        keys: &[
            ::opgen::dispatch::DispatchKey::CPU,
            ::opgen::dispatch::DispatchKey::Meta,
        ],
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: |lib, key, site| lib.impl_at("add_.Tensor", key, __opgen_kernel, site),
        variants: ::core::option::Option::Some(::opgen::native::Variants {
            function: false,
            method: true,
        }),
        device: ::core::option::Option::Some(::opgen::dispatch::DeviceChecks::DEFAULT),
        backend_select: ::core::option::Option::None,
    };
    fn __opgen_kernel(
        self_: &mut MyTensor,
        other: &MyTensor,
        alpha: Scalar,
    ) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
        match add_cpu_(self_, other, alpha) {
            ::core::result::Result::Ok(()) => {
                ::core::result::Result::Ok(
                    <MyTensor as ::core::clone::Clone>::clone(self_),
                )
            }
            ::core::result::Result::Err(e) => {
                ::core::result::Result::Err(::core::convert::Into::into(e))
            }
        }
    }
};
