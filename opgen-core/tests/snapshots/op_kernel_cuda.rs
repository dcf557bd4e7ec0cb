fn add_cuda(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
    self_.clone()
}
const _: () = {
    #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: ::opgen::__private::require_version!("0.1.0") = &[
        ::opgen::__private::LinkEntry::kernel(
            "aten::add.Tensor",
            &[::opgen::DispatchKey::CPU, ::opgen::DispatchKey::CUDA],
            |lib, key, site| ::opgen::__private::impl_kernel(
                lib,
                "add.Tensor",
                key,
                add_cuda,
                site,
            ),
        ),
    ];
};
