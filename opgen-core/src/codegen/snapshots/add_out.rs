pub fn add_out_cpu(
    self_: &MyTensor,
    other: &MyTensor,
    alpha: Scalar,
    out: &mut MyTensor,
) {}
/** The defaulted arguments of [`add_out_with`]; `Default` gives the schema's defaults.
 Name only what changes: `AddOutArgs { alpha: ..., ..Default::default() }`.*/
/**
 # Schema
 ```text
 aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Kernels in this crate: `CPU` (`add_out_cpu`).*/
#[derive(::core::clone::Clone)]
pub struct AddOutArgs {
    /// `Scalar alpha=1`
    pub alpha: ::opgen::dispatch::Scalar,
}
#[automatically_derived]
impl ::core::default::Default for AddOutArgs {
    fn default() -> Self {
        AddOutArgs {
            alpha: ::opgen::dispatch::Scalar::Int(1),
        }
    }
}
/** Calls the operator, with the schema's defaults for `alpha`.

 # Panics
 On error, with its message; [`try_add_out`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Kernels in this crate: `CPU` (`add_out_cpu`).*/
#[inline]
#[track_caller]
pub fn add_out(out: &mut MyTensor, self_: &MyTensor, other: &MyTensor) -> MyTensor {
    ::opgen::__private::panic_on_error(try_add_out(out, self_, other))
}
/** Calls the operator, with the defaulted arguments given in [`AddOutArgs`].

 # Panics
 On error, with its message; [`try_add_out_with`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Kernels in this crate: `CPU` (`add_out_cpu`).*/
#[inline]
#[track_caller]
pub fn add_out_with(
    out: &mut MyTensor,
    self_: &MyTensor,
    other: &MyTensor,
    args: AddOutArgs,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_add_out_with(out, self_, other, args))
}
/** Calls the operator, with the schema's defaults for `alpha`.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Kernels in this crate: `CPU` (`add_out_cpu`).*/
#[inline]
pub fn try_add_out(
    out: &mut MyTensor,
    self_: &MyTensor,
    other: &MyTensor,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    try_add_out_with(out, self_, other, ::core::default::Default::default())
}
/** Calls the operator, with the defaulted arguments given in [`AddOutArgs`].
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Kernels in this crate: `CPU` (`add_out_cpu`).*/
#[inline]
pub fn try_add_out_with(
    out: &mut MyTensor,
    self_: &MyTensor,
    other: &MyTensor,
    args: AddOutArgs,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    let AddOutArgs { alpha } = args;
    __opgen_call_add_out(self_, other, alpha, out)
}
/** Calls the operator with every argument in schema order, without defaults.

 # Panics
 On error, with its message; [`try_add_outf`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Kernels in this crate: `CPU` (`add_out_cpu`).*/
#[inline]
#[track_caller]
pub fn add_outf(
    self_: &MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
    out: &mut MyTensor,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_add_outf(self_, other, alpha, out))
}
/** Calls the operator with every argument in schema order, without defaults.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Kernels in this crate: `CPU` (`add_out_cpu`).*/
#[inline]
pub fn try_add_outf(
    self_: &MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
    out: &mut MyTensor,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __opgen_call_add_out(self_, other, alpha, out)
}
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.

 # Panics
 On error, with its message; [`try_add_out_redispatch`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Kernels in this crate: `CPU` (`add_out_cpu`).*/
#[inline]
#[track_caller]
pub fn add_out_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
    out: &mut MyTensor,
) -> MyTensor {
    ::opgen::__private::panic_on_error(
        try_add_out_redispatch(key_set, self_, other, alpha, out),
    )
}
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Kernels in this crate: `CPU` (`add_out_cpu`).*/
#[inline]
pub fn try_add_out_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
    out: &mut MyTensor,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_ADD_OUT.try_redispatch(key_set, self_, other, alpha, out)
}
#[doc(hidden)]
#[allow(dead_code)]
static __OPGEN_OP_ADD_OUT: ::opgen::__private::Op<
    MyTensor,
    (
        &'static MyTensor,
        &'static MyTensor,
        ::opgen::dispatch::Scalar,
        &'static mut MyTensor,
    ),
    MyTensor,
> = ::opgen::__private::Op::new("aten::add", "out");
#[doc(hidden)]
#[inline]
#[allow(dead_code, non_snake_case, unexpected_cfgs, clippy::too_many_arguments)]
fn __opgen_call_add_out(
    self_: &MyTensor,
    other: &MyTensor,
    alpha: ::opgen::dispatch::Scalar,
    out: &mut MyTensor,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_ADD_OUT
        .try_call(
            ::core::cfg!(feature = "opgen-static-dispatch"),
            self_,
            other,
            alpha,
            out,
        )
}
#[doc(hidden)]
const _: () = {
    let _ = ::opgen::__private::VERSION_0_1_0;
    #[::opgen::__private::linkme::distributed_slice(::opgen::__private::REGISTRATIONS)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_REGISTRATION: ::opgen::__private::Registration = ::opgen::__private::Registration {
        namespace: "aten",
        schema: ::core::option::Option::Some(
            "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
        ),
        name: "add.out",
        keys: &[::opgen::dispatch::DispatchKey::CPU],
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: |lib, key, site| lib.impl_at("add.out", key, __opgen_kernel, site),
        variants: ::core::option::Option::Some(::opgen::native::Variants {
            function: true,
            method: false,
        }),
        device: ::core::option::Option::Some(::opgen::dispatch::DeviceChecks::DEFAULT),
        backend_select: ::core::option::Option::None,
    };
    fn __opgen_kernel(
        self_: &MyTensor,
        other: &MyTensor,
        alpha: Scalar,
        out: &mut MyTensor,
    ) -> MyTensor {
        add_out_cpu(self_, other, alpha, out);
        <MyTensor as ::core::clone::Clone>::clone(out)
    }
};
