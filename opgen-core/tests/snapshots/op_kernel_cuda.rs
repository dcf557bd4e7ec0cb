fn add_cuda(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
    self_.clone()
}
#[doc(hidden)]
const _: () = {
    let _ = ::opgen::__private::VERSION_0_1_0;
    use ::opgen::dispatch::Operator as _;
    #[::opgen::__private::linkme::distributed_slice(::opgen::__private::LINK_ENTRIES)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: &[::opgen::__private::LinkEntry] = &[
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
