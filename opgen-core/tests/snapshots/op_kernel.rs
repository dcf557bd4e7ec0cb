fn add_meta(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
    self_.clone()
}
#[doc(hidden)]
const _: () = {
    let _ = ::my_framework::opgen::__private::VERSION_0_1_0;
    use ::my_framework::opgen::dispatch::Operator as _;
    #[::my_framework::opgen::__private::linkme::distributed_slice(
        ::my_framework::opgen::__private::LINK_ENTRIES
    )]
    #[linkme(crate = ::my_framework::opgen::__private::linkme)]
    static __OPGEN_LINK: &[::my_framework::opgen::__private::LinkEntry] = &[
        ::my_framework::opgen::__private::LinkEntry::kernel(
            "aten::add.Tensor",
            &[::my_framework::opgen::DispatchKey::Meta],
            |lib, key, site| ::my_framework::opgen::__private::impl_kernel(
                lib,
                "add.Tensor",
                key,
                add_meta,
                site,
            ),
        ),
    ];
};
