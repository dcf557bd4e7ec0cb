/// Adds `other`, scaled by `alpha`, to `self`.
pub fn add_cpu(self_: &MyTensor, other: &MyTensor, alpha: Scalar) -> MyTensor {
    self_.clone()
}
/// Adds `other`, scaled by `alpha`, to `self`.
///
/// `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor` Panics on error; [`try_add`] returns it. Defaults in [`AddArgs`]. Kernel `add_cpu` at `CPU`.
#[inline]
#[track_caller]
pub fn add(self_: &MyTensor, other: &MyTensor) -> MyTensor {
    ::opgen::__private::unwrap(try_add(self_, other))
}
/// [`add`] with the defaulted arguments given in [`AddArgs`].
#[inline]
#[track_caller]
pub fn add_with(self_: &MyTensor, other: &MyTensor, args: AddArgs) -> MyTensor {
    ::opgen::__private::unwrap(try_add_with(self_, other, args))
}
/// [`add`], returning errors instead of panicking.
#[inline]
pub fn try_add(self_: &MyTensor, other: &MyTensor) -> ::opgen::Result<MyTensor> {
    try_add_with(self_, other, ::core::default::Default::default())
}
/// [`add`] with the defaulted arguments given, returning errors instead of panicking.
#[inline]
pub fn try_add_with(
    self_: &MyTensor,
    other: &MyTensor,
    args: AddArgs,
) -> ::opgen::Result<MyTensor> {
    ::opgen::__private::call::<add, MyTensor, _, _>((self_, other, args.alpha))
}
/// The defaulted arguments of [`add_with`]; `Default` gives the schema's.
#[derive(::core::clone::Clone)]
pub struct AddArgs {
    /// `Scalar alpha=1`
    pub alpha: ::opgen::Scalar,
}
#[automatically_derived]
impl ::core::default::Default for AddArgs {
    fn default() -> Self {
        AddArgs {
            alpha: ::opgen::Scalar::Int(1),
        }
    }
}
impl MyTensor {
    /// [`add`] as a method.
    #[inline]
    #[track_caller]
    pub fn add(&self, other: &MyTensor) -> MyTensor {
        add(self, other)
    }
    /// [`add`], returning errors instead of panicking.
    #[inline]
    pub fn try_add(&self, other: &MyTensor) -> ::opgen::Result<MyTensor> {
        try_add(self, other)
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
pub struct add {}
const _: () = {
    ::opgen::__private::op_table!(__OPGEN_TABLE, __OPGEN_LINK, 1);
    impl ::opgen::dispatch::Operator for add {
        type Tensor = MyTensor;
        type Args = (&'static MyTensor, &'static MyTensor, ::opgen::Scalar);
        type Returns = MyTensor;
        type Table = __OPGEN_TABLE;
        const INDEX: usize = 0;
    }
    #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: ::opgen::__private::require_version!("0.1.0") = &[
        ::opgen::__private::LinkEntry::def(
                "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            )
            .variants(true, true)
            .with_kernel(
                &[::opgen::DispatchKey::CPU],
                |lib, key, site| lib.impl_of::<add, _>(key, add_cpu, site),
            ),
    ];
};
