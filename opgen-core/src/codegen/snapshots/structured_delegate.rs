/** The defaulted arguments of the `add_with_` method; `Default` gives the schema's defaults.
 Name only what changes: `AddInplaceArgs { alpha: ..., ..Default::default() }`.*/
/**
 # Schema
 ```text
 aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
 ```
 Variants: `method`. Structured delegate of `add.out`: kernels at every key where `add.out` has an impl, and at `Meta`.*/
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
 Variants: `method`. Structured delegate of `add.out`: kernels at every key where `add.out` has an impl, and at `Meta`.*/
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
 Variants: `method`. Structured delegate of `add.out`: kernels at every key where `add.out` has an impl, and at `Meta`.*/
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
 Variants: `method`. Structured delegate of `add.out`: kernels at every key where `add.out` has an impl, and at `Meta`.*/
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
 Variants: `method`. Structured delegate of `add.out`: kernels at every key where `add.out` has an impl, and at `Meta`.*/
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
 Variants: `method`. Structured delegate of `add.out`: kernels at every key where `add.out` has an impl, and at `Meta`.*/
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
 Variants: `method`. Structured delegate of `add.out`: kernels at every key where `add.out` has an impl, and at `Meta`.*/
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
    const _: () = ::opgen::__private::assert_structured::<StructuredAddOut>();
    #[::opgen::__private::linkme::distributed_slice(::opgen::__private::REGISTRATIONS)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_REGISTRATION: ::opgen::__private::Registration = ::opgen::__private::Registration {
        namespace: "aten",
        schema: ::core::option::Option::Some(
            "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        ),
        name: "add_.Tensor",
        keys: &[],
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: |_, _, _| ::core::result::Result::Err(
            ::opgen::dispatch::Error::from("a definition without kernels"),
        ),
        variants: ::core::option::Option::Some(::opgen::native::Variants {
            function: false,
            method: true,
        }),
        device: ::core::option::Option::Some(::opgen::dispatch::DeviceChecks::DEFAULT),
        backend_select: ::core::option::Option::None,
    };
    #[::opgen::__private::linkme::distributed_slice(::opgen::__private::DEFERRED)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_DEFERRED: ::opgen::__private::Deferred = ::opgen::__private::Deferred {
        namespace: "aten",
        name: "add_.Tensor",
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: __opgen_register_delegate,
    };
    fn __opgen_register_delegate(
        lib: &::opgen::dispatch::Library,
        site: ::opgen::dispatch::Site,
    ) -> ::core::result::Result<
        ::std::vec::Vec<::opgen::dispatch::Registration>,
        ::opgen::dispatch::Error,
    > {
        let mut registrations = ::std::vec::Vec::new();
        for (key, imp) in ::opgen::structured::structured_impls::<
            StructuredAddOut,
        >(lib) {
            registrations
                .push(
                    lib
                        .impl_at(
                            "add_.Tensor",
                            key,
                            move |
                                self_: &mut MyTensor,
                                other: &MyTensor,
                                alpha: ::opgen::dispatch::Scalar,
                            | -> ::core::result::Result<
                                MyTensor,
                                ::opgen::dispatch::Error,
                            > {
                                let _guard = if ::opgen::dispatch::DispatchKey::is_device_guarded(
                                    key,
                                ) {
                                    ::opgen::__private::check_same_device::<
                                        MyTensor,
                                    >(
                                        "aten::add_.Tensor",
                                        "structured add.out",
                                        ::opgen::dispatch::DispatchKeySet::from_key(key),
                                        &[
                                            (
                                                "self",
                                                &self_ as &dyn ::opgen::__private::TensorArg<MyTensor>,
                                            ),
                                            (
                                                "other",
                                                &other as &dyn ::opgen::__private::TensorArg<MyTensor>,
                                            ),
                                        ],
                                    )?;
                                    ::opgen::__private::DeviceGuard::of(
                                        ::opgen::__private::TensorArg::<MyTensor>::first(&self_),
                                    )?
                                } else {
                                    ::opgen::__private::DeviceGuard::optional(
                                        ::core::option::Option::None,
                                    )
                                };
                                let [__opgen_out0] = StructuredAddOut::__run(
                                    ::opgen::structured::Mode::InPlace,
                                    key,
                                    imp,
                                    ::std::vec![::core::clone::Clone::clone(& * self_)],
                                    &*self_,
                                    other,
                                    alpha,
                                )?;
                                *self_ = __opgen_out0;
                                ::core::result::Result::Ok(
                                    ::core::clone::Clone::clone(&*self_),
                                )
                            },
                            site,
                        )?,
                );
        }
        ::core::result::Result::Ok(registrations)
    }
};
