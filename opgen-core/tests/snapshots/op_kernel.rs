fn add_meta(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
    self_.clone()
}
const _: () = {
    #[::my_framework::opgen::__private::distributed_slice(
        ::my_framework::opgen::__private::LINK_ENTRIES_0_1_0
    )]
    #[linkme(crate = ::my_framework::opgen::__private::linkme)]
    static __OPGEN_LINK: ::my_framework::opgen::__private::require_version!("0.1.0") = &[
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
