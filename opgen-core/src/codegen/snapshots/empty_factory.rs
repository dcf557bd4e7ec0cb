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
/** The defaulted arguments of [`empty_memory_format_with`]; `Default` gives the schema's defaults.
 Name only what changes: `EmptyMemoryFormatArgs { options: ..., ..Default::default() }`.*/
/**
 # Schema
 ```text
 aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
 ```
 Variants: `function`. Kernels in this crate: `CompositeExplicitAutograd` (`empty_kernel`).*/
#[derive(::core::clone::Clone)]
#[allow(dead_code)]
pub(crate) struct EmptyMemoryFormatArgs {
    /** `ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None`, as one value.
 `Default` gives the schema's defaults; an unset field is passed as `None`.*/
    pub options: ::opgen::dispatch::TensorOptions,
    /// `MemoryFormat? memory_format=None`
    pub memory_format: ::core::option::Option<::opgen::dispatch::MemoryFormat>,
}
#[automatically_derived]
impl ::core::default::Default for EmptyMemoryFormatArgs {
    fn default() -> Self {
        EmptyMemoryFormatArgs {
            options: ::opgen::dispatch::TensorOptions::from_parts(
                ::core::option::Option::None,
                ::core::option::Option::None,
                ::core::option::Option::None,
                ::core::option::Option::None,
            ),
            memory_format: ::core::option::Option::None,
        }
    }
}
/** Calls the operator, with the schema's defaults for `memory_format`.

 `options` gathers the schema's `dtype`, `layout`, `device`, `pin_memory` (unset fields are passed as `None`); the faithful form takes them separately.

 # Panics
 On error, with its message; [`try_empty_memory_format`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
 ```
 Variants: `function`. Kernels in this crate: `CompositeExplicitAutograd` (`empty_kernel`).*/
#[inline]
#[track_caller]
#[allow(dead_code)]
pub(crate) fn empty_memory_format(
    size: &[i64],
    options: ::opgen::dispatch::TensorOptions,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_empty_memory_format(size, options))
}
/** Calls the operator, with the defaulted arguments given in [`EmptyMemoryFormatArgs`].

 `options` gathers the schema's `dtype`, `layout`, `device`, `pin_memory` (unset fields are passed as `None`); the faithful form takes them separately.

 # Panics
 On error, with its message; [`try_empty_memory_format_with`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
 ```
 Variants: `function`. Kernels in this crate: `CompositeExplicitAutograd` (`empty_kernel`).*/
#[inline]
#[track_caller]
#[allow(dead_code)]
pub(crate) fn empty_memory_format_with(
    size: &[i64],
    args: EmptyMemoryFormatArgs,
) -> MyTensor {
    ::opgen::__private::panic_on_error(try_empty_memory_format_with(size, args))
}
/** Calls the operator, with the schema's defaults for `memory_format`.

 `options` gathers the schema's `dtype`, `layout`, `device`, `pin_memory` (unset fields are passed as `None`); the faithful form takes them separately.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
 ```
 Variants: `function`. Kernels in this crate: `CompositeExplicitAutograd` (`empty_kernel`).*/
#[inline]
#[allow(dead_code)]
pub(crate) fn try_empty_memory_format(
    size: &[i64],
    options: ::opgen::dispatch::TensorOptions,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    try_empty_memory_format_with(
        size,
        EmptyMemoryFormatArgs {
            options,
            ..::core::default::Default::default()
        },
    )
}
/** Calls the operator, with the defaulted arguments given in [`EmptyMemoryFormatArgs`].

 `options` gathers the schema's `dtype`, `layout`, `device`, `pin_memory` (unset fields are passed as `None`); the faithful form takes them separately.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
 ```
 Variants: `function`. Kernels in this crate: `CompositeExplicitAutograd` (`empty_kernel`).*/
#[inline]
#[allow(dead_code)]
pub(crate) fn try_empty_memory_format_with(
    size: &[i64],
    args: EmptyMemoryFormatArgs,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    let EmptyMemoryFormatArgs { options, memory_format } = args;
    let (dtype, layout, device, pin_memory) = ::opgen::dispatch::TensorOptions::into_parts(
        options,
    );
    __opgen_call_empty_memory_format(
        size,
        dtype,
        layout,
        device,
        pin_memory,
        memory_format,
    )
}
/** Calls the operator with every argument in schema order, without defaults.

 # Panics
 On error, with its message; [`try_empty_memory_format_faithful`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
 ```
 Variants: `function`. Kernels in this crate: `CompositeExplicitAutograd` (`empty_kernel`).*/
#[inline]
#[track_caller]
#[allow(dead_code)]
pub(crate) fn empty_memory_format_faithful(
    size: &[i64],
    dtype: ::core::option::Option<::opgen::dispatch::ScalarType>,
    layout: ::core::option::Option<::opgen::dispatch::Layout>,
    device: ::core::option::Option<::opgen::dispatch::Device>,
    pin_memory: ::core::option::Option<bool>,
    memory_format: ::core::option::Option<::opgen::dispatch::MemoryFormat>,
) -> MyTensor {
    ::opgen::__private::panic_on_error(
        try_empty_memory_format_faithful(
            size,
            dtype,
            layout,
            device,
            pin_memory,
            memory_format,
        ),
    )
}
/** Calls the operator with every argument in schema order, without defaults.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
 ```
 Variants: `function`. Kernels in this crate: `CompositeExplicitAutograd` (`empty_kernel`).*/
#[inline]
#[allow(dead_code)]
pub(crate) fn try_empty_memory_format_faithful(
    size: &[i64],
    dtype: ::core::option::Option<::opgen::dispatch::ScalarType>,
    layout: ::core::option::Option<::opgen::dispatch::Layout>,
    device: ::core::option::Option<::opgen::dispatch::Device>,
    pin_memory: ::core::option::Option<bool>,
    memory_format: ::core::option::Option<::opgen::dispatch::MemoryFormat>,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __opgen_call_empty_memory_format(
        size,
        dtype,
        layout,
        device,
        pin_memory,
        memory_format,
    )
}
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.

 # Panics
 On error, with its message; [`try_empty_memory_format_redispatch`] returns the error instead.*/
/**
 # Schema
 ```text
 aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
 ```
 Variants: `function`. Kernels in this crate: `CompositeExplicitAutograd` (`empty_kernel`).*/
#[inline]
#[track_caller]
#[allow(dead_code)]
pub(crate) fn empty_memory_format_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    size: &[i64],
    dtype: ::core::option::Option<::opgen::dispatch::ScalarType>,
    layout: ::core::option::Option<::opgen::dispatch::Layout>,
    device: ::core::option::Option<::opgen::dispatch::Device>,
    pin_memory: ::core::option::Option<bool>,
    memory_format: ::core::option::Option<::opgen::dispatch::MemoryFormat>,
) -> MyTensor {
    ::opgen::__private::panic_on_error(
        try_empty_memory_format_redispatch(
            key_set,
            size,
            dtype,
            layout,
            device,
            pin_memory,
            memory_format,
        ),
    )
}
/** Calls the operator with the key set given (in a kernel, typically its own key set below its key), every argument in schema order; the thread-local key sets are not applied again.
 Errors are returned.*/
/**
 # Schema
 ```text
 aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor
 ```
 Variants: `function`. Kernels in this crate: `CompositeExplicitAutograd` (`empty_kernel`).*/
#[inline]
#[allow(dead_code)]
pub(crate) fn try_empty_memory_format_redispatch(
    key_set: ::opgen::dispatch::DispatchKeySet,
    size: &[i64],
    dtype: ::core::option::Option<::opgen::dispatch::ScalarType>,
    layout: ::core::option::Option<::opgen::dispatch::Layout>,
    device: ::core::option::Option<::opgen::dispatch::Device>,
    pin_memory: ::core::option::Option<bool>,
    memory_format: ::core::option::Option<::opgen::dispatch::MemoryFormat>,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_EMPTY_MEMORY_FORMAT
        .try_redispatch(key_set, size, dtype, layout, device, pin_memory, memory_format)
}
#[doc(hidden)]
#[allow(dead_code)]
static __OPGEN_OP_EMPTY_MEMORY_FORMAT: ::opgen::__private::Op<
    MyTensor,
    (
        &'static [i64],
        ::core::option::Option<::opgen::dispatch::ScalarType>,
        ::core::option::Option<::opgen::dispatch::Layout>,
        ::core::option::Option<::opgen::dispatch::Device>,
        ::core::option::Option<bool>,
        ::core::option::Option<::opgen::dispatch::MemoryFormat>,
    ),
    MyTensor,
> = ::opgen::__private::Op::new("aten::empty", "memory_format");
#[doc(hidden)]
#[inline]
#[allow(dead_code, non_snake_case, unexpected_cfgs, clippy::too_many_arguments)]
fn __opgen_call_empty_memory_format(
    size: &[i64],
    dtype: ::core::option::Option<::opgen::dispatch::ScalarType>,
    layout: ::core::option::Option<::opgen::dispatch::Layout>,
    device: ::core::option::Option<::opgen::dispatch::Device>,
    pin_memory: ::core::option::Option<bool>,
    memory_format: ::core::option::Option<::opgen::dispatch::MemoryFormat>,
) -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
    __OPGEN_OP_EMPTY_MEMORY_FORMAT
        .try_call_with_options(
            ::core::cfg!(feature = "opgen-static-dispatch"),
            (dtype, layout, device),
            size,
            dtype,
            layout,
            device,
            pin_memory,
            memory_format,
        )
}
#[doc(hidden)]
const _: () = {
    let _ = ::opgen::__private::VERSION_0_1_0;
    #[::opgen::__private::linkme::distributed_slice(::opgen::__private::REGISTRATIONS)]
    #[linkme(crate = ::opgen::__private::linkme)]
    static __OPGEN_REGISTRATION: ::opgen::__private::Registration = ::opgen::__private::Registration {
        namespace: "aten",
        schema: ::core::option::Option::Some(
            "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
        ),
        name: "empty.memory_format",
        keys: &[::opgen::dispatch::DispatchKey::CompositeExplicitAutograd],
        file: ::core::file!(),
        line: ::core::line!(),
        site: ::core::panic::Location::caller(),
        register: |lib, key, site| {
            lib.impl_at("empty.memory_format", key, empty_kernel, site)
        },
        variants: ::core::option::Option::Some(::opgen::native::Variants {
            function: true,
            method: false,
        }),
        device: ::core::option::Option::Some(::opgen::dispatch::DeviceChecks::DEFAULT),
        backend_select: ::core::option::Option::Some(__opgen_backend_select),
    };
    fn __opgen_backend_select(
        lib: &::opgen::dispatch::Library,
        site: ::opgen::dispatch::Site,
    ) -> ::core::result::Result<
        ::opgen::dispatch::Registration,
        ::opgen::dispatch::Error,
    > {
        let op: ::opgen::__private::Redispatch<
            MyTensor,
            (
                &'static [i64],
                ::core::option::Option<::opgen::dispatch::ScalarType>,
                ::core::option::Option<::opgen::dispatch::Layout>,
                ::core::option::Option<::opgen::dispatch::Device>,
                ::core::option::Option<bool>,
                ::core::option::Option<::opgen::dispatch::MemoryFormat>,
            ),
            MyTensor,
        > = ::opgen::__private::Redispatch::new(lib, "aten::empty", "memory_format")?;
        let kernel = move |
            key_set: ::opgen::dispatch::DispatchKeySet,
            size: &[i64],
            dtype: ::core::option::Option<::opgen::dispatch::ScalarType>,
            layout: ::core::option::Option<::opgen::dispatch::Layout>,
            device: ::core::option::Option<::opgen::dispatch::Device>,
            pin_memory: ::core::option::Option<bool>,
            memory_format: ::core::option::Option<::opgen::dispatch::MemoryFormat>,
        | -> ::core::result::Result<MyTensor, ::opgen::dispatch::Error> {
            let key_set = ::opgen::__private::backend_select_keys(
                "aten::empty.memory_format",
                key_set,
                false,
                dtype,
                layout,
                device,
            )?;
            op.get()?
                .try_redispatch(
                    key_set,
                    size,
                    dtype,
                    layout,
                    device,
                    pin_memory,
                    memory_format,
                )
        };
        ::opgen::__private::register_kernel::<
            MyTensor,
            _,
            _,
        >(
            lib,
            "empty.memory_format",
            ::opgen::dispatch::DispatchKey::BackendSelect,
            kernel,
            site,
        )
    }
};
