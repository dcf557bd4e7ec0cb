fn add_cpu(
    self_: &MyTensor,
    other: &MyTensor,
    alpha: Scalar,
) -> Result<MyTensor, Error> {
    Ok(self_.clone())
}
const _: () = {
    #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: ::opgen::__private::require_version!("0.1.0") = &[
        ::opgen::__private::LinkEntry::kernel_of::<
            aten::add,
        >(
            &[::opgen::DispatchKey::CPU],
            |lib, key, site| {
                use ::opgen::__private::{RegisterByPath as _, RegisterUnfit as _};
                (&&::opgen::__private::ByPath::<aten::add, _>::new(add_cpu))
                    .register(lib, key, site)
            },
        ),
    ];
    #[allow(dead_code)]
    fn __opgen_check() {
        ::opgen::__private::check_arity::<aten::add, 3>();
        ::opgen::__private::check_param::<aten::add, &MyTensor, 0>();
        ::opgen::__private::check_param::<aten::add, &MyTensor, 1>();
        ::opgen::__private::check_param::<aten::add, Scalar, 2>();
        ::opgen::__private::check_return::<aten::add, Result<MyTensor, Error>>();
    }
};
