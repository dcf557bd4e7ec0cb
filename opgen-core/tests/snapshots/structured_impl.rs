fn sum_out_cpu(self_: &MyTensor, dims: &[i64], keepdim: bool, out: &mut MyTensor) {}
const _: () = {
    #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: ::opgen::__private::require_version!("0.1.0") = &[
        ::opgen::__private::LinkEntry::kernel_of::<
            sum_int_list_out,
        >(
            &[::opgen::DispatchKey::CPU],
            |lib, key, site| ::opgen::structured::register_out::<
                sum_int_list_out,
            >(
                lib,
                key,
                ::core::option::Option::Some({
                    let imp: <sum_int_list_out as ::opgen::structured::StructuredOp>::Impl = |
                        a0,
                        a1,
                        a2,
                        a3|
                    ::opgen::__private::impl_result(sum_out_cpu(a0, a1, a2, a3));
                    imp
                }),
                site,
            ),
        ),
    ];
    const _: <sum_int_list_out as ::opgen::structured::StructuredOp>::ImplSignature<
        (),
    > = sum_out_cpu;
};
