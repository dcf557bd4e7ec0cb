fn add_cuda(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
    self_.clone()
}
#[doc(hidden)]
const _: () = {
    let _ = ::opgen::__private::VERSION_0_1_0;
    #[::opgen::__private::linkme::distributed_slice(::opgen::__private::REGISTRATIONS)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_REGISTRATION: ::opgen::__private::Registration = ::opgen::__private::Registration {
        namespace: "aten",
        schema: ::core::option::Option::None,
        name: "add.Tensor",
        keys: &[
            ::opgen::dispatch::DispatchKey::CPU,
            ::opgen::dispatch::DispatchKey::CUDA,
        ],
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: |lib, key, site| match key {
            ::opgen::dispatch::DispatchKey::CUDA => {
                __opgen_device_register(lib, key, site)
            }
            _ => lib.impl_at("add.Tensor", key, add_cuda, site),
        },
        variants: ::core::option::Option::None,
        device: ::core::option::Option::None,
        backend_select: ::core::option::Option::None,
    };
    fn __opgen_device_register(
        lib: &::opgen::dispatch::Library,
        key: ::opgen::dispatch::DispatchKey,
        site: ::opgen::dispatch::Site,
    ) -> ::core::result::Result<
        ::opgen::dispatch::Registration,
        ::opgen::dispatch::Error,
    > {
        let __opgen_plan = ::opgen::__private::DevicePlan::new(
            lib,
            "add.Tensor",
            "add_cuda",
            &["self", "other", "alpha"],
        );
        ::opgen::__private::register_kernel::<
            MyTensor,
            _,
            _,
        >(
            lib,
            "add.Tensor",
            key,
            move |
                __opgen_keys: ::opgen::dispatch::DispatchKeySet,
                __opgen_a0: &MyTensor,
                __opgen_a1: &MyTensor,
                __opgen_a2: Scalar|
            {
                let _guard = match __opgen_plan
                    .enter::<
                        MyTensor,
                    >(
                        __opgen_keys,
                        &[
                            ::opgen::__private::DeviceArg::Tensor(&__opgen_a0),
                            ::opgen::__private::DeviceArg::Tensor(&__opgen_a1),
                            ::opgen::__private::DeviceArg::Other,
                        ],
                    )
                {
                    ::core::result::Result::Ok(guard) => guard,
                    ::core::result::Result::Err(e) => {
                        return ::core::result::Result::Err(e);
                    }
                };
                ::opgen::__private::kernel_result::<
                    MyTensor,
                    _,
                    _,
                >(add_cuda(__opgen_a0, __opgen_a1, __opgen_a2))
            },
            site,
        )
    }
};
