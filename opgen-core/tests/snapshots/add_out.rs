pub fn add_out_cpu(
    self_: &MyTensor,
    other: &MyTensor,
    alpha: Scalar,
    out: &mut MyTensor,
) {}
/// `aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)` Panics on error; [`try_add_out`] returns it. Defaults in [`AddOutArgs`]. Kernel `add_out_cpu` at `CPU`.
#[inline]
#[track_caller]
pub fn add_out(out: &mut MyTensor, self_: &MyTensor, other: &MyTensor) -> MyTensor {
    ::opgen::__private::unwrap(try_add_out(out, self_, other))
}
/// [`add_out`] with the defaulted arguments given in [`AddOutArgs`].
#[inline]
#[track_caller]
pub fn add_out_with(
    out: &mut MyTensor,
    self_: &MyTensor,
    other: &MyTensor,
    args: AddOutArgs,
) -> MyTensor {
    ::opgen::__private::unwrap(try_add_out_with(out, self_, other, args))
}
/// [`add_out`], returning errors instead of panicking.
#[inline]
pub fn try_add_out(
    out: &mut MyTensor,
    self_: &MyTensor,
    other: &MyTensor,
) -> ::opgen::Result<MyTensor> {
    try_add_out_with(out, self_, other, ::core::default::Default::default())
}
/// [`add_out`] with the defaulted arguments given, returning errors instead of panicking.
#[inline]
pub fn try_add_out_with(
    out: &mut MyTensor,
    self_: &MyTensor,
    other: &MyTensor,
    args: AddOutArgs,
) -> ::opgen::Result<MyTensor> {
    ::opgen::__private::call::<add_out, MyTensor, _, _>((self_, other, args.alpha, out))
}
/// The defaulted arguments of [`add_out_with`]; `Default` gives the schema's.
#[derive(::core::clone::Clone)]
pub struct AddOutArgs {
    /// `Scalar alpha=1`
    pub alpha: ::opgen::Scalar,
}
#[automatically_derived]
impl ::core::default::Default for AddOutArgs {
    fn default() -> Self {
        AddOutArgs {
            alpha: ::opgen::Scalar::Int(1),
        }
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
pub struct add_out {}
const _: () = {
    ::opgen::__private::op_table!(__OPGEN_TABLE, __OPGEN_LINK, 1);
    impl ::opgen::dispatch::Operator for add_out {
        type Tensor = MyTensor;
        type Args = (
            &'static MyTensor,
            &'static MyTensor,
            ::opgen::Scalar,
            &'static mut MyTensor,
        );
        type Returns = MyTensor;
        type Table = __OPGEN_TABLE;
        const INDEX: usize = 0;
    }
    #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: ::opgen::__private::require_version!("0.1.0") = &[
        ::opgen::__private::LinkEntry::def(
                "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
            )
            .with_kernel(
                &[::opgen::DispatchKey::CPU],
                |lib, key, site| ::opgen::__private::impl_named_of::<
                    add_out,
                    _,
                    _,
                >(
                    lib,
                    key,
                    |
                        self_: &MyTensor,
                        other: &MyTensor,
                        alpha: ::opgen::Scalar,
                        out: &mut MyTensor,
                    | -> MyTensor {
                        add_out_cpu(self_, other, alpha, out);
                        <MyTensor as ::core::clone::Clone>::clone(out)
                    },
                    ::core::concat!(::core::module_path!(), "::add_out_cpu"),
                    site,
                ),
            ),
    ];
};
