pub(crate) fn empty_kernel(
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
    memory_format: Option<MemoryFormat>,
) -> MyTensor {
    MyTensor::empty(size)
}
/// `aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor` Panics on error; [`try_empty_memory_format`] returns it. Defaults in [`EmptyMemoryFormatArgs`]. Kernel `empty_kernel` at `CompositeExplicitAutograd`.
#[inline]
#[track_caller]
#[allow(dead_code)]
pub(crate) fn empty_memory_format(
    size: &[i64],
    options: ::opgen::TensorOptions,
) -> MyTensor {
    ::opgen::__private::unwrap(try_empty_memory_format(size, options))
}
/// [`empty_memory_format`] with the defaulted arguments given in [`EmptyMemoryFormatArgs`].
#[inline]
#[track_caller]
#[allow(dead_code)]
pub(crate) fn empty_memory_format_with(
    size: &[i64],
    args: EmptyMemoryFormatArgs,
) -> MyTensor {
    ::opgen::__private::unwrap(try_empty_memory_format_with(size, args))
}
/// [`empty_memory_format`], returning errors instead of panicking.
#[inline]
#[allow(dead_code)]
pub(crate) fn try_empty_memory_format(
    size: &[i64],
    options: ::opgen::TensorOptions,
) -> ::opgen::Result<MyTensor> {
    try_empty_memory_format_with(
        size,
        EmptyMemoryFormatArgs {
            options: options,
            ..::core::default::Default::default()
        },
    )
}
/// [`empty_memory_format`] with the defaulted arguments given, returning errors instead of panicking.
#[inline]
#[allow(dead_code)]
pub(crate) fn try_empty_memory_format_with(
    size: &[i64],
    args: EmptyMemoryFormatArgs,
) -> ::opgen::Result<MyTensor> {
    ::opgen::__private::call::<
        empty_memory_format,
        MyTensor,
        _,
        _,
    >((
        size,
        args.options.dtype,
        args.options.layout,
        args.options.device,
        args.options.pin_memory,
        args.memory_format,
    ))
}
/// The defaulted arguments of [`empty_memory_format_with`]; `Default` gives the schema's.
#[derive(::core::clone::Clone)]
#[allow(dead_code)]
pub(crate) struct EmptyMemoryFormatArgs {
    /// `ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None`, as one value.
    pub options: ::opgen::TensorOptions,
    /// `MemoryFormat? memory_format=None`
    pub memory_format: ::core::option::Option<::opgen::MemoryFormat>,
}
#[automatically_derived]
impl ::core::default::Default for EmptyMemoryFormatArgs {
    fn default() -> Self {
        EmptyMemoryFormatArgs {
            options: ::opgen::TensorOptions::from_parts(
                ::core::option::Option::None,
                ::core::option::Option::None,
                ::core::option::Option::None,
                ::core::option::Option::None,
            ),
            memory_format: ::core::option::Option::None,
        }
    }
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub(crate) struct empty_memory_format {}
const _: () = {
    ::opgen::__private::op_table!(__OPGEN_TABLE, __OPGEN_LINK, 1);
    impl ::opgen::dispatch::Operator for empty_memory_format {
        type Tensor = MyTensor;
        type Args = (
            &'static [i64],
            ::core::option::Option<::opgen::ScalarType>,
            ::core::option::Option<::opgen::Layout>,
            ::core::option::Option<::opgen::Device>,
            ::core::option::Option<bool>,
            ::core::option::Option<::opgen::MemoryFormat>,
        );
        type Returns = MyTensor;
        type Table = __OPGEN_TABLE;
        const INDEX: usize = 0;
    }
    #[::opgen::__private::distributed_slice(::opgen::__private::LINK_ENTRIES_0_1_0)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_LINK: ::opgen::__private::require_version!("0.1.0") = &[
        ::opgen::__private::LinkEntry::def(
                "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
            )
            .backend_select(::opgen::__private::backend_select::<empty_memory_format>)
            .with_kernel(
                &[::opgen::DispatchKey::CompositeExplicitAutograd],
                |lib, key, site| {
                    lib.impl_of::<empty_memory_format, _>(key, empty_kernel, site)
                },
            ),
    ];
};
