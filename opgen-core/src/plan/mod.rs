//! Planning: what code generation derives from a valid schema, decided in one place so that
//! the macros, the runtime's signature checks and the JSON catalog agree. Plans are plain
//! values; a schema that cannot be planned is rejected earlier, by `validate`.

mod autograd;
mod defaults;
mod names;
mod op;
mod signature;
mod types;

pub use autograd::{
    AutogradInput, AutogradKind, AutogradPlan, Binding, DerivativeStep, SavedField, SavedValue,
    TranslatedFormula, ValueSource, owned_type,
};
pub use defaults::{ArgDefault, MAX_REPEATED_DEFAULT, arg_default, repeats_too_far, rust_default};
pub use names::{
    PRELUDE_METHODS, arg_ident, args_struct_name, args_struct_name_for, cpp_api_name, form_name,
    fresh_name, functional_marker_of, marker_name, marker_of, method_name, native_name,
    precompute_struct_name, rename_candidate, rust_fn_name, rust_ident, snake_case,
    structured_marker_name,
};
pub use op::{
    Api, ArgPlan, ArgsStruct, Blocker, Body, Claims, Form, MAX_ARGUMENTS, MAX_RETURNS, MethodsKind,
    OpPlan, Param, PlanInput, Source, blockers, has_mut, has_reference,
};
pub use signature::{
    ArgRole, Family, Signature, SignatureArgument, dispatcher_signature, faithful_signature,
    method_receiver, native_signature, redispatch_signature, returns_type, rust_api_signature,
};
pub use types::{RustType, ValueType, argument_type, return_type};

#[cfg(test)]
mod tests;
