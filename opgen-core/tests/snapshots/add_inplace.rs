pub fn add_cpu_(
    self_: &mut MyTensor,
    other: &MyTensor,
    alpha: Scalar,
) -> Result<(), String> {
    Ok(())
}
/// The defaulted arguments of [`MyTensor::add_with_`]; `Default` gives the schema's.
#[derive(::core::clone::Clone)]
pub struct AddInplaceArgs {
    /// `Scalar alpha=1`
    pub alpha: ::opgen::Scalar,
}
#[automatically_derived]
impl ::core::default::Default for AddInplaceArgs {
    fn default() -> Self {
        AddInplaceArgs {
            alpha: ::opgen::Scalar::Int(1),
        }
    }
}
impl MyTensor {
    /// `aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)` Panics on error; [`Self::try_add_`] returns it. Defaults in [`AddInplaceArgs`]. Kernel `add_cpu_` at `CPU`, `Meta`.
    #[inline]
    #[track_caller]
    pub fn add_(&mut self, other: &MyTensor) -> MyTensor {
        ::opgen::__private::unwrap({
            let args: AddInplaceArgs = ::core::default::Default::default();
            ::opgen::__private::call::<add_, MyTensor, _, _>((self, other, args.alpha))
        })
    }
    /// [`Self::add_`] with the defaulted arguments given in [`AddInplaceArgs`].
    #[inline]
    #[track_caller]
    pub fn add_with_(&mut self, other: &MyTensor, args: AddInplaceArgs) -> MyTensor {
        ::opgen::__private::unwrap(
            ::opgen::__private::call::<add_, MyTensor, _, _>((self, other, args.alpha)),
        )
    }
    /// [`Self::add_`], returning errors instead of panicking.
    #[inline]
    pub fn try_add_(&mut self, other: &MyTensor) -> ::opgen::Result<MyTensor> {
        let args: AddInplaceArgs = ::core::default::Default::default();
        ::opgen::__private::call::<add_, MyTensor, _, _>((self, other, args.alpha))
    }
    /// [`Self::add_`] with the defaulted arguments given, returning errors instead of panicking.
    #[inline]
    pub fn try_add_with_(
        &mut self,
        other: &MyTensor,
        args: AddInplaceArgs,
    ) -> ::opgen::Result<MyTensor> {
        ::opgen::__private::call::<add_, MyTensor, _, _>((self, other, args.alpha))
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
pub struct add_ {}
const _: () = {
    ::opgen::__private::op_table!(__OPGEN_TABLE, __OPGEN_LINK, 1);
    impl ::opgen::dispatch::Operator for add_ {
        type Tensor = MyTensor;
        type Args = (&'static mut MyTensor, &'static MyTensor, ::opgen::Scalar);
        type Returns = MyTensor;
        type Table = __OPGEN_TABLE;
        const INDEX: usize = 0;
    }
    #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: ::opgen::__private::require_version!("0.1.0") = &[
        ::opgen::__private::LinkEntry::def(
                "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
            )
            .variants(false, true)
            .with_kernel(
                &[::opgen::DispatchKey::CPU, ::opgen::DispatchKey::Meta],
                |lib, key, site| ::opgen::__private::impl_named_of::<
                    add_,
                    _,
                    _,
                >(
                    lib,
                    key,
                    |
                        self_: &mut MyTensor,
                        other: &MyTensor,
                        alpha: ::opgen::Scalar,
                    | -> ::opgen::Result<MyTensor> {
                        match add_cpu_(self_, other, alpha) {
                            ::core::result::Result::Ok(()) => {
                                ::core::result::Result::Ok(
                                    <MyTensor as ::core::clone::Clone>::clone(self_),
                                )
                            }
                            ::core::result::Result::Err(error) => {
                                ::core::result::Result::Err(
                                    ::core::convert::Into::into(error),
                                )
                            }
                        }
                    },
                    ::core::concat!(::core::module_path!(), "::add_cpu_"),
                    site,
                ),
            ),
    ];
};
