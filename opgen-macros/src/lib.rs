//! The `#[native_function]` attribute of [opgen](https://docs.rs/opgen).
//!
//! Depend on `opgen` rather than on this crate: it re-exports the attribute
//! (`opgen::native_function`, also in `opgen::prelude`) together with the runtime that the
//! expansion calls, and locks the two to the same version. This crate is a shim: the
//! attribute's body is one call into `opgen_core::codegen` (feature `codegen`), where the
//! parsing, the checks and the expansion live as an ordinary, unit-tested library.
//!
//! The [`opgen` crate documentation](https://docs.rs/opgen/0.1.0/opgen/) starts with a
//! complete example, compiled and run as a doctest: an operator defined by its schema on a
//! CPU kernel, then called through the generated function, method and boxed call.
#![deny(unsafe_code)]

use proc_macro::TokenStream;

/// Defines an operator from its schema on a kernel function, or registers a kernel for an
/// operator defined elsewhere, and generates its typed Rust API.
///
/// The [`opgen` crate documentation](https://docs.rs/opgen/0.1.0/opgen/) has the complete,
/// compiled example; the attribute's documentation there (`opgen::native_function`) repeats
/// it next to this reference.
///
/// # Forms
///
/// 1. **Define and implement**: the schema string comes first, then options; the annotated
///    function is the operator's kernel for the `dispatch` keys (default
///    `CompositeImplicitAutograd`).
/// 2. **Implement an operator defined elsewhere**: `op = "ns::name.overload"` instead of the
///    schema (namespace optional, default `aten`); only the registration is generated, and the
///    kernel is checked against the defining schema when it registers.
/// 3. **Inferred schema**: neither schema nor `op`: the schema is inferred from the Rust
///    signature (`&T` is `Tensor`, `&mut T` is `Tensor(a!)`, `i64` is `int`, `f64` is `float`,
///    `Option<X>` is `X?`, `&[i64]` is `int[]`, ...), named after the function.
///
/// # Options
///
/// `variants` (`"function"`, `"method"`, `"function, method"`), `dispatch` (keys such as
/// `"CPU, Meta"` or `"CompositeExplicitAutograd"`), `name` (the Rust name), `namespace`,
/// `methods` (`"inherent"` or `"trait NAME"` for an extension trait), `tensor` (the tensor
/// type when no parameter names it), `crate` (the runtime path, for frameworks that re-export
/// opgen), `op` (form 2), and the `native_functions.yaml` fields (`structured`,
/// `structured_delegate`, `device_guard`, `tags`, ...). An unknown option is an error with a
/// suggestion.
///
/// # What is generated
///
/// Next to the unchanged kernel: free functions (`add`, `add_with` taking an `AddArgs`
/// struct of the defaulted arguments, and `try_` forms returning `Result`; the plain forms
/// panic with the error's message), methods when `variants` has `method`, a redispatch
/// function (`add_redispatch`), and a link-time registration that takes effect on the first
/// use of `Dispatcher::global()`, so every linked kernel is callable by name too. With the
/// user crate's feature `opgen-static-dispatch`, the free functions call the kernels directly
/// (static dispatch).
///
/// # Errors
///
/// Every problem is a compile error at the smallest span: a schema that breaks a rule (with
/// its rule id and a caret under the offending text), a kernel signature that does not fit
/// the schema (per parameter), a `Tensor(a!)` argument taken by `&`, an unknown option.
#[proc_macro_attribute]
pub fn native_function(args: TokenStream, item: TokenStream) -> TokenStream {
    opgen_core::codegen::native_function(args.into(), item.into()).into()
}

/// Declares every operator of a `native_functions.yaml` file, with its typed Rust API and
/// its schema registration, as `#[native_function]` declares one operator without a
/// kernel. Kernels attach later, from any crate, with
/// `#[native_function(op = "aten::add.Tensor", dispatch = "CPU")]`; calling an operator
/// without one fails with the dispatcher's missing-kernel error.
///
/// The [`opgen` documentation](https://docs.rs/opgen/0.1.0/opgen/macro.include_native_functions.html)
/// of the re-export has the options and a compiled example.
#[proc_macro]
pub fn include_native_functions(input: TokenStream) -> TokenStream {
    opgen_core::codegen::include_native_functions(input.into()).into()
}
