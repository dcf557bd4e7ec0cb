//! Unique Rust names for a whole file's operators, claimed from their plans.
//!
//! `plan::rust_fn_name` drops the overload `Tensor` and `plan::args_struct_name` drops
//! leading underscores, so a few operators of a file meet on a name (`clamp` and
//! `clamp.Tensor` are both `clamp`; `stack` and `_stack` both have `StackArgs`).
//!
//! 1. A function whose name starts with `_` and whose arguments struct would be another
//!    selected function's keeps its underscores in the struct's name (`_StackArgs`), so
//!    that the public operator keeps the usual one.
//! 2. Then, in file order, the first operator keeps its names; a later one that would
//!    clash, in any name its plan claims (free functions, methods, marker, arguments
//!    struct), takes `plan::rename_candidate`'s names (`clamp_tensor`, `ClampTensorArgs`;
//!    then `clamp_tensor_2`, ...).
//!
//! The tensor type's name is taken from the start, so no generated type shadows it.

use std::collections::HashSet;

use crate::plan::Claims;

/// The names taken so far, by namespace.
#[derive(Default)]
pub(crate) struct Taken {
    values: HashSet<String>,
    types: HashSet<String>,
    methods: HashSet<String>,
}

impl Taken {
    /// Names the user's code has in the module already (the tensor type).
    pub fn with_types(types: impl IntoIterator<Item = String>) -> Taken {
        Taken {
            types: types.into_iter().collect(),
            ..Taken::default()
        }
    }

    /// Whether none of `claims` is taken.
    pub fn is_free(&self, claims: &Claims) -> bool {
        !(claims.values.iter().any(|n| self.values.contains(n))
            || claims.types.iter().any(|n| self.types.contains(n))
            || claims.methods.iter().any(|n| self.methods.contains(n)))
    }

    /// Takes every name of `claims`.
    pub fn take(&mut self, claims: Claims) {
        self.values.extend(claims.values);
        self.types.extend(claims.types);
        self.methods.extend(claims.methods);
    }
}
