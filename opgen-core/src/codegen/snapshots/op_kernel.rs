fn add_meta(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
    self_.clone()
}
#[doc(hidden)]
const _: () = {
    let _ = ::my_framework::opgen::__private::VERSION_0_1_0;
    #[::my_framework::opgen::__private::linkme::distributed_slice(
        ::my_framework::opgen::__private::REGISTRATIONS
    )]
    #[linkme(crate = ::my_framework::opgen::__private::linkme)]
    static __OPGEN_REGISTRATION: ::my_framework::opgen::__private::Registration = ::my_framework::opgen::__private::Registration {
        namespace: "aten",
        schema: ::core::option::Option::None,
        name: "add.Tensor",
        keys: &[::my_framework::opgen::dispatch::DispatchKey::Meta],
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: |lib, key, site| lib.impl_at("add.Tensor", key, add_meta, site),
        variants: ::core::option::Option::None,
        device: ::core::option::Option::None,
        backend_select: ::core::option::Option::None,
    };
};
