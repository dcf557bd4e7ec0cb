//! Hygiene of the generated code. `generated.rs` (written by `opgen-core`'s test
//! `codegen::tests::hygiene`) declares operators whose arguments carry every argument name
//! of the corpus and every identifier the generator emits, with kernels named like the
//! generator's identifiers. They expand here, in a crate without the implicit prelude whose
//! root shadows `core`, `std`, `alloc`, `opgen`, the prelude's types, traits and variants and
//! the std macros: the crate compiling shows that no user-chosen name collides with a
//! generated one and that generated code names nothing through the user's scope.

#![no_implicit_prelude]

/// Decoys for every name generated code could wrongly take from the user's scope.
pub mod core {}
/// A decoy.
pub mod std {}
/// A decoy.
pub mod alloc {}
/// A decoy.
pub mod opgen {}
/// A decoy.
pub mod __private {}

macro_rules! decoy_types {
    ($($name:ident)*) => { $(
        /// A decoy.
        pub struct $name;
    )* };
}
decoy_types!(Result Option Box Vec String Ok Err Some None Tensor Scalar Error Self_ T U);

macro_rules! decoy_traits {
    ($($name:ident)*) => { $(
        /// A decoy.
        pub trait $name {}
    )* };
}
decoy_traits!(Clone Copy Default Send Sync Sized Fn FnMut FnOnce From Into Drop Iterator IntoIterator ToOwned AsRef Operator ArgTuple);

macro_rules! decoy_macros {
    ($d:tt $($name:ident)*) => { $(
        #[allow(unused_macros)]
        macro_rules! $name { ($d($d t:tt)*) => { ::core::compile_error!("a decoy macro") } }
    )* };
}
decoy_macros!($ panic assert assert_eq unreachable line file column concat stringify env cfg format vec todo);

/// A tensor type named `$name`: its key set, `Clone` and `Tensor`.
macro_rules! tensor_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[allow(non_camel_case_types)]
        pub struct $name {
            keys: ::opgen::DispatchKeySet,
        }

        impl ::core::clone::Clone for $name {
            fn clone(&self) -> Self {
                $name { keys: self.keys }
            }
        }

        impl ::opgen::dispatch::Tensor for $name {
            fn key_set(&self) -> ::opgen::DispatchKeySet {
                self.keys
            }
        }
    };
}

tensor_type!(
    /// The tensor type of the hygiene operators.
    R
);

// `#[rustfmt::skip]` does not resolve without the implicit prelude.
#[allow(clippy::deprecated_cfg_attr)]
#[cfg_attr(rustfmt, rustfmt::skip)]
pub mod generated;

/// Operators of the corpus whose names or arguments meet std's (`clone`, `max`, `eq`, `sum`
/// with `dtype` options), the decoys in scope, methods in an extension trait.
pub mod included {
    use super::*;

    ::opgen::include_native_functions!(
        "../../opgen-core/tests/data/native_functions.yaml",
        tensor = "R",
        methods = "trait AtenMethods",
        include = "add, add_, sum, clone, max, eq, zeros, where, split, _foreach_add, cat, index.Tensor, max_pool2d_with_indices"
    );
}

/// Tensor types named like the hidden items of an expansion's block (its table and its link
/// group): the block takes other names.
pub mod hidden_names {
    /// Operators on a tensor type named like an expansion's table.
    pub mod table {
        tensor_type!(
            /// A tensor type named like a generated item.
            __OPGEN_TABLE
        );
        ::opgen::include_native_functions!(
            "../../opgen-core/tests/data/native_functions.yaml",
            tensor = "__OPGEN_TABLE",
            methods = "trait TableMethods",
            include = "add, sum"
        );
    }

    /// Operators on a tensor type named like an expansion's link group.
    pub mod link {
        tensor_type!(
            /// A tensor type named like a generated item.
            __OPGEN_LINK
        );
        ::opgen::include_native_functions!(
            "../../opgen-core/tests/data/native_functions.yaml",
            tensor = "__OPGEN_LINK",
            methods = "trait LinkMethods",
            include = "add, sum"
        );
    }
}
