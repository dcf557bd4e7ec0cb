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
/** The defaulted arguments of [`sum_int_list_out_with`]; `Default` gives the schema's defaults.
 Name only what changes: `SumIntListOutArgs { keepdim: ..., ..Default::default() }`.*/
/**
 # Schema
 ```text
 aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Structured: the meta function is `sum_meta`; kernels at the keys of its impls (`op = "sum.IntList_out", structured`) and at `Meta`.*/
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
/** Calls the operator, with the schema's defaults for `keepdim`.

 # Panics
 On error, with its message; [`try_sum_int_list_out`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Structured: the meta function is `sum_meta`; kernels at the keys of its impls (`op = "sum.IntList_out", structured`) and at `Meta`.*/
#[inline]
#[track_caller]
pub fn sum_int_list_out(
    out: &mut MyTensor,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_sum_int_list_out(out, self_, dim))
}
/** Calls the operator, with the defaulted arguments given in [`SumIntListOutArgs`].

 # Panics
 On error, with its message; [`try_sum_int_list_out_with`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Structured: the meta function is `sum_meta`; kernels at the keys of its impls (`op = "sum.IntList_out", structured`) and at `Meta`.*/
#[inline]
#[track_caller]
pub fn sum_int_list_out_with(
    out: &mut MyTensor,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
    args: SumIntListOutArgs,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_sum_int_list_out_with(out, self_, dim, args))
}
/** Calls the operator, with the schema's defaults for `keepdim`.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Structured: the meta function is `sum_meta`; kernels at the keys of its impls (`op = "sum.IntList_out", structured`) and at `Meta`.*/
#[inline]
pub fn try_sum_int_list_out(
    out: &mut MyTensor,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    try_sum_int_list_out_with(out, self_, dim, ::core::default::Default::default())
}
/** Calls the operator, with the defaulted arguments given in [`SumIntListOutArgs`].
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Structured: the meta function is `sum_meta`; kernels at the keys of its impls (`op = "sum.IntList_out", structured`) and at `Meta`.*/
#[inline]
pub fn try_sum_int_list_out_with(
    out: &mut MyTensor,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
    args: SumIntListOutArgs,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    let SumIntListOutArgs { keepdim } = args;
    __opgen_call_sum_int_list_out(self_, dim, keepdim, out)
}
/** Calls the operator with every argument in schema order, without defaults.

 # Panics
 On error, with its message; [`try_sum_int_list_outf`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Structured: the meta function is `sum_meta`; kernels at the keys of its impls (`op = "sum.IntList_out", structured`) and at `Meta`.*/
#[inline]
#[track_caller]
pub fn sum_int_list_outf(
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
    keepdim: bool,
    out: &mut MyTensor,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_sum_int_list_outf(self_, dim, keepdim, out))
}
/** Calls the operator with every argument in schema order, without defaults.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Structured: the meta function is `sum_meta`; kernels at the keys of its impls (`op = "sum.IntList_out", structured`) and at `Meta`.*/
#[inline]
pub fn try_sum_int_list_outf(
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
    keepdim: bool,
    out: &mut MyTensor,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __opgen_call_sum_int_list_out(self_, dim, keepdim, out)
}
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.

 # Panics
 On error, with its message; [`try_sum_int_list_out_redispatch`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Structured: the meta function is `sum_meta`; kernels at the keys of its impls (`op = "sum.IntList_out", structured`) and at `Meta`.*/
#[inline]
#[track_caller]
pub fn sum_int_list_out_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
    keepdim: bool,
    out: &mut MyTensor,
) -> MyTensor {
    ::opgen::__private::panic_on_error(
        try_sum_int_list_out_redispatch(key_set, self_, dim, keepdim, out),
    )
}
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)
 ```
 Variants: `function`. Structured: the meta function is `sum_meta`; kernels at the keys of its impls (`op = "sum.IntList_out", structured`) and at `Meta`.*/
#[inline]
pub fn try_sum_int_list_out_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
    keepdim: bool,
    out: &mut MyTensor,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_SUM_INT_LIST_OUT.try_redispatch(key_set, self_, dim, keepdim, out)
}
#[doc(hidden)]
#[allow(dead_code)]
static __OPGEN_OP_SUM_INT_LIST_OUT: ::opgen::__private::Op<
    MyTensor,
    (
        &'static MyTensor,
        ::core::option::Option<&'static [i64]>,
        bool,
        &'static mut MyTensor,
    ),
    MyTensor,
> = ::opgen::__private::Op::new("aten::sum", "IntList_out");
#[doc(hidden)]
#[inline]
#[allow(dead_code, non_snake_case, unexpected_cfgs, clippy::too_many_arguments)]
fn __opgen_call_sum_int_list_out(
    self_: &MyTensor,
    dim: ::core::option::Option<&[i64]>,
    keepdim: bool,
    out: &mut MyTensor,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_SUM_INT_LIST_OUT
        .try_call(
            ::core::cfg!(feature = "opgen-static-dispatch"),
            self_,
            dim,
            keepdim,
            out,
        )
}
/// The structured operator `sum.IntList_out`: its meta function is `sum_meta`; impls (`#[native_function(op = "sum.IntList_out", structured, dispatch = "CPU")]`) and delegates (`structured_delegate = "sum.IntList_out"`) name it.
pub struct StructuredSumIntListOut;
#[automatically_derived]
impl ::opgen::structured::StructuredOp for StructuredSumIntListOut {
    type Tensor = MyTensor;
    type Base = ();
    type Impl = fn(
        &MyTensor,
        &[i64],
        bool,
        &mut MyTensor,
    ) -> ::core::result::Result<(), ::opgen::dispatch::Error>;
    type ImplSignature<R> = fn(&MyTensor, &[i64], bool, &mut MyTensor) -> R;
    const OPERATOR: &'static str = "aten::sum.IntList_out";
    const OUTPUTS: &'static [&'static str] = &["out"];
    fn register_out(
        lib: &::opgen::dispatch::Library,
        key: ::opgen::dispatch::DispatchKey,
        imp: ::core::option::Option<Self::Impl>,
        site: ::opgen::dispatch::Site,
    ) -> ::core::result::Result<
        ::opgen::dispatch::Registration,
        ::opgen::dispatch::Error,
    > {
        ::opgen::structured::register_structured_out::<
            Self,
            _,
        >(
            lib,
            key,
            move |
                self_: &MyTensor,
                dim: ::core::option::Option<&[i64]>,
                keepdim: bool,
                out: &mut MyTensor,
            | -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
                let _guard = if ::opgen::dispatch::DispatchKey::is_device_guarded(key) {
                    ::opgen::__private::check_same_device::<
                        MyTensor,
                    >(
                        "aten::sum.IntList_out",
                        "structured sum.IntList_out",
                        ::opgen::dispatch::DispatchKeySet::from_key(key),
                        &[
                            (
                                "out",
                                &out as &dyn ::opgen::__private::TensorArg<MyTensor>,
                            ),
                            (
                                "self",
                                &self_ as &dyn ::opgen::__private::TensorArg<MyTensor>,
                            ),
                        ],
                    )?;
                    ::opgen::__private::DeviceGuard::of(
                        ::opgen::__private::TensorArg::<MyTensor>::first(&self_),
                    )?
                } else {
                    ::opgen::__private::DeviceGuard::optional(
                        ::core::option::Option::None,
                    )
                };
                let [__opgen_out0] = Self::__run(
                    ::opgen::structured::Mode::Out,
                    key,
                    imp,
                    ::std::vec![::core::clone::Clone::clone(& * out)],
                    self_,
                    dim,
                    keepdim,
                )?;
                *out = __opgen_out0;
                ::core::result::Result::Ok(::core::clone::Clone::clone(&*out))
            },
            imp,
            site,
        )
    }
}
impl StructuredSumIntListOut {
    /// Runs the meta function in `mode`, then the impl (if any) into the outputs.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, non_snake_case)]
    pub fn __run(
        mode: ::opgen::structured::Mode,
        key: ::opgen::dispatch::DispatchKey,
        imp: ::core::option::Option<<Self as ::opgen::structured::StructuredOp>::Impl>,
        given: ::std::vec::Vec<MyTensor>,
        self_: &MyTensor,
        dim: ::core::option::Option<&[i64]>,
        keepdim: bool,
    ) -> ::core::result::Result<[MyTensor; 1], ::opgen::dispatch::Error> {
        let mut __opgen_meta = ::opgen::structured::StructuredMeta::<
            MyTensor,
            (),
        >::new(
            <Self as ::opgen::structured::StructuredOp>::OPERATOR,
            key,
            mode,
            <Self as ::opgen::structured::StructuredOp>::OUTPUTS,
            given,
        )?;
        let __opgen_pre = match sum_meta(
            &mut __opgen_meta,
            self_,
            dim,
            ::core::clone::Clone::clone(&keepdim),
        ) {
            ::core::result::Result::Ok(v) => v,
            ::core::result::Result::Err(e) => {
                return ::core::result::Result::Err(::core::convert::Into::into(e));
            }
        };
        let (__opgen_base, __opgen_outs) = __opgen_meta.finish()?;
        let [mut __opgen_out0] = ::opgen::structured::outputs_array::<
            MyTensor,
            1,
        >(<Self as ::opgen::structured::StructuredOp>::OPERATOR, key, __opgen_outs)?;
        match imp {
            ::core::option::Option::Some(__opgen_impl) => {
                let SumIntListOutPrecompute { dims: __opgen_pre_dims } = __opgen_pre;
                __opgen_impl(self_, &__opgen_pre_dims, keepdim, &mut __opgen_out0)?;
            }
            ::core::option::Option::None => {
                let _ = __opgen_pre;
                let _ = __opgen_base;
            }
        }
        ::core::result::Result::Ok([__opgen_out0])
    }
    /// Runs the meta function in `mode`, then the out operator through the
    /// dispatcher into the outputs (`composite_from_out` delegates).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, non_snake_case, dead_code)]
    pub fn __run_composite(
        mode: ::opgen::structured::Mode,
        key: ::opgen::dispatch::DispatchKey,
        given: ::std::vec::Vec<MyTensor>,
        self_: &MyTensor,
        dim: ::core::option::Option<&[i64]>,
        keepdim: bool,
    ) -> ::core::result::Result<[MyTensor; 1], ::opgen::dispatch::Error> {
        let [mut __opgen_out0] = Self::__run(
            mode,
            key,
            ::core::option::Option::None,
            given,
            self_,
            dim,
            ::core::clone::Clone::clone(&keepdim),
        )?;
        let _ = __opgen_call_sum_int_list_out(self_, dim, keepdim, &mut __opgen_out0)?;
        ::core::result::Result::Ok([__opgen_out0])
    }
}
/** The values the meta function `sum_meta` of `sum.IntList_out` computes for its impls: `dim -> int[] dims`.

 The meta function returns it, so a value it forgets does not compile.*/
#[allow(dead_code)]
pub struct SumIntListOutPrecompute {
    pub dims: ::std::vec::Vec<i64>,
}
#[doc(hidden)]
const _: () = {
    let _ = ::opgen::__private::VERSION_0_1_0;
    #[::opgen::__private::linkme::distributed_slice(::opgen::__private::REGISTRATIONS)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_REGISTRATION: ::opgen::__private::Registration = ::opgen::__private::Registration {
        namespace: "aten",
        schema: ::core::option::Option::Some(
            "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)",
        ),
        name: "sum.IntList_out",
        keys: &[::opgen::dispatch::DispatchKey::Meta],
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: |lib, key, site| <StructuredSumIntListOut as ::opgen::structured::StructuredOp>::register_out(
            lib,
            key,
            ::core::option::Option::None,
            site,
        ),
        variants: ::core::option::Option::Some(::opgen::native::Variants {
            function: true,
            method: false,
        }),
        device: ::core::option::Option::Some(::opgen::dispatch::DeviceChecks::DEFAULT),
        backend_select: ::core::option::Option::None,
    };
};
