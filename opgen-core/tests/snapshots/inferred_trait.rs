/// Scales a tensor.
pub fn scale_cpu(
    self_: &MyTensor,
    factor: f64,
    dims: Option<&[i64]>,
) -> anyhow::Result<MyTensor> {
    Ok(self_.clone())
}
/// Scales a tensor.
///
/// `vision::scale(Tensor self, float factor, int[]? dims) -> Tensor` Panics on error; [`try_scale`] returns it. Kernel `scale_cpu` at `CPU` (the schema is inferred from `scale_cpu`).
#[inline]
#[track_caller]
pub fn scale(
    self_: &MyTensor,
    factor: f64,
    dims: ::core::option::Option<&[i64]>,
) -> MyTensor {
    ::opgen::__private::unwrap(try_scale(self_, factor, dims))
}
/// [`scale`], returning errors instead of panicking.
#[inline]
pub fn try_scale(
    self_: &MyTensor,
    factor: f64,
    dims: ::core::option::Option<&[i64]>,
) -> ::opgen::Result<MyTensor> {
    ::opgen::__private::call::<scale, MyTensor, _, _>((self_, factor, dims))
}
/// The methods of `vision::scale`, for a tensor type of another crate.
pub trait ScaleExt {
    /// [`scale`] as a method.
    fn scale(&self, factor: f64, dims: ::core::option::Option<&[i64]>) -> MyTensor;
    /// [`scale`], returning errors instead of panicking.
    fn try_scale(
        &self,
        factor: f64,
        dims: ::core::option::Option<&[i64]>,
    ) -> ::opgen::Result<MyTensor>;
}
#[automatically_derived]
impl ScaleExt for MyTensor {
    #[inline]
    #[track_caller]
    fn scale(&self, factor: f64, dims: ::core::option::Option<&[i64]>) -> MyTensor {
        scale(self, factor, dims)
    }
    #[inline]
    fn try_scale(
        &self,
        factor: f64,
        dims: ::core::option::Option<&[i64]>,
    ) -> ::opgen::Result<MyTensor> {
        try_scale(self, factor, dims)
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
pub struct scale {}
const _: () = {
    ::opgen::__private::op_table!(__OPGEN_TABLE, __OPGEN_LINK, 1);
    impl ::opgen::dispatch::Operator for scale {
        type Tensor = MyTensor;
        type Args = (&'static MyTensor, f64, ::core::option::Option<&'static [i64]>);
        type Returns = MyTensor;
        type Table = __OPGEN_TABLE;
        const INDEX: usize = 0;
    }
    #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: ::opgen::__private::require_version!("0.1.0") = &[
        ::opgen::__private::LinkEntry::def(
                "vision::scale(Tensor self, float factor, int[]? dims) -> Tensor",
            )
            .variants(true, true)
            .with_kernel(
                &[::opgen::DispatchKey::CPU],
                |lib, key, site| lib.impl_of::<scale, _>(key, scale_cpu, site),
            ),
    ];
};
