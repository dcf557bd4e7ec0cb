pub fn sum_meta(
    meta: &mut StructuredMeta<'_, MyTensor>,
    self_: &MyTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
) -> Result<SumIntListOutPrecompute, Error> {
    let _ = (keepdim, meta);
    let dims = dim.map_or_else(Vec::new, <[i64]>::to_vec);
    let _ = self_;
    Ok(SumIntListOutPrecompute { dims })
}
/// `aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)` Panics on error; [`try_sum_int_list_out`] returns it. Defaults in [`SumIntListOutArgs`]. Structured: meta function `sum_meta`; kernels at `Meta` and at the keys of the impls (`op = "sum.IntList_out", structured`).
#[inline]
#[track_caller]
pub fn sum_int_list_out(
    out: &mut MyTensor,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
) -> MyTensor {
    ::opgen::__private::unwrap(try_sum_int_list_out(out, self_, dim))
}
/// [`sum_int_list_out`] with the defaulted arguments given in [`SumIntListOutArgs`].
#[inline]
#[track_caller]
pub fn sum_int_list_out_with(
    out: &mut MyTensor,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
    args: SumIntListOutArgs,
) -> MyTensor {
    ::opgen::__private::unwrap(try_sum_int_list_out_with(out, self_, dim, args))
}
/// [`sum_int_list_out`], returning errors instead of panicking.
#[inline]
pub fn try_sum_int_list_out(
    out: &mut MyTensor,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
) -> ::opgen::Result<MyTensor> {
    try_sum_int_list_out_with(out, self_, dim, ::core::default::Default::default())
}
/// [`sum_int_list_out`] with the defaulted arguments given, returning errors instead of panicking.
#[inline]
pub fn try_sum_int_list_out_with(
    out: &mut MyTensor,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
    args: SumIntListOutArgs,
) -> ::opgen::Result<MyTensor> {
    ::opgen::__private::call::<
        sum_int_list_out,
        MyTensor,
        _,
        _,
    >((self_, dim, args.keepdim, out))
}
/// The defaulted arguments of [`sum_int_list_out_with`]; `Default` gives the schema's.
#[derive(::core::clone::Clone)]
pub struct SumIntListOutArgs {
    /// `bool keepdim=False`
    pub keepdim: bool,
}
#[automatically_derived]
impl ::core::default::Default for SumIntListOutArgs {
    fn default() -> Self {
        SumIntListOutArgs {
            keepdim: false,
        }
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types)]
pub struct sum_int_list_out {}
#[automatically_derived]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
impl ::opgen::structured::StructuredOp for sum_int_list_out {
    type Base = ();
    type Impl = fn(&MyTensor, &[i64], bool, &mut MyTensor) -> ::opgen::Result<()>;
    type ImplSignature<R> = fn(&MyTensor, &[i64], bool, &mut MyTensor) -> R;
    type Inputs = (&'static MyTensor, ::core::option::Option<&'static [i64]>, bool);
    type Precompute = SumIntListOutPrecompute;
    const OUTPUTS: &'static [&'static str] = &["out"];
    fn meta(
        meta: &mut ::opgen::structured::StructuredMeta<'_, MyTensor, ()>,
        inputs: &::opgen::structured::Inputs<'_, Self>,
    ) -> ::opgen::Result<SumIntListOutPrecompute> {
        ::core::result::Result::map_err(
            sum_meta(
                meta,
                ::core::clone::Clone::clone(&inputs.0),
                ::core::clone::Clone::clone(&inputs.1),
                ::core::clone::Clone::clone(&inputs.2),
            ),
            ::core::convert::Into::into,
        )
    }
    fn imp(
        imp: Self::Impl,
        _: &(),
        pre: SumIntListOutPrecompute,
        inputs: ::opgen::structured::Inputs<'_, Self>,
        outs: &mut [MyTensor],
    ) -> ::opgen::Result<()> {
        let [out0] = ::opgen::structured::outputs("aten::sum.IntList_out", outs)?;
        imp(inputs.0, &pre.dims, inputs.2, out0)
    }
    fn split(
        args: ::opgen::structured::Args<'_, Self>,
    ) -> (::opgen::structured::Inputs<'_, Self>, ::std::vec::Vec<&mut MyTensor>) {
        ((args.0, args.1, args.2), ::std::vec![args.3])
    }
    fn call_out(
        inputs: ::opgen::structured::Inputs<'_, Self>,
        outs: &mut [MyTensor],
    ) -> ::opgen::Result<()> {
        let [out0] = ::opgen::structured::outputs("aten::sum.IntList_out", outs)?;
        ::opgen::__private::call::<
            sum_int_list_out,
            MyTensor,
            _,
            MyTensor,
        >((inputs.0, inputs.1, inputs.2, out0))?;
        ::core::result::Result::Ok(())
    }
}
/// The values the meta function of `sum.IntList_out` computes for its impls: `dim -> int[] dims`. The meta function returns it, so a value it forgets does not compile.
#[allow(dead_code)]
pub struct SumIntListOutPrecompute {
    /// `int[] dims`
    pub dims: ::std::vec::Vec<i64>,
}
const _: () = {
    ::opgen::__private::op_table!(__OPGEN_TABLE, __OPGEN_LINK, 1);
    impl ::opgen::dispatch::Operator for sum_int_list_out {
        type Tensor = MyTensor;
        type Args = (
            &'static MyTensor,
            ::core::option::Option<&'static [i64]>,
            bool,
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
                "aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
            )
            .with_kernel(
                &[::opgen::DispatchKey::Meta],
                |lib, key, site| ::opgen::structured::register_out::<
                    sum_int_list_out,
                >(lib, key, ::core::option::Option::None, site),
            ),
    ];
};
