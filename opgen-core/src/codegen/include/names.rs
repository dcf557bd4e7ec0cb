//! Unique Rust names for a whole file's operators.
//!
//! `plan::rust_fn_name` drops the overload `Tensor` and `plan::args_struct_name` drops
//! leading underscores, so a few operators of a file meet on a name (`clamp` and
//! `clamp.Tensor` are both `clamp`; `stack` and `_stack` both have `StackArgs`).
//!
//! 1. A function whose name starts with `_` and whose arguments struct would be another
//!    selected function's keeps its underscores in the struct's name (`_StackArgs`), so
//!    that the public operator keeps the usual one.
//! 2. Then, in file order, the first operator keeps its names; a later one that would
//!    clash, in any of the names its expansion defines (free functions, methods, the
//!    arguments struct, the hidden items), is named with its overload spelled out
//!    (`clamp_tensor`, struct `ClampTensorArgs`), and if that clashes too, with a number
//!    (`clamp_tensor_2`).

use std::collections::HashSet;

use crate::codegen::expand::OpPlan;

/// The names an operator's expansion claims, by namespace.
#[derive(Default)]
pub(crate) struct Claims {
    /// Functions and statics of the module.
    values: Vec<String>,
    /// Types of the module.
    types: Vec<String>,
    /// Methods of the tensor type.
    methods: Vec<String>,
}

/// The names taken so far.
#[derive(Default)]
pub(crate) struct Taken {
    values: HashSet<String>,
    types: HashSet<String>,
    methods: HashSet<String>,
}

impl Taken {
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

/// Every name `plan`'s expansion defines (`include` expands these items, see `mod.rs`).
pub(crate) fn claims(plan: &OpPlan<'_>) -> Claims {
    let mut c = Claims::default();
    let mut forms = vec![plan.form("", ""), plan.form("try_", "")];
    if plan.args_struct.is_some() {
        forms.push(plan.form("", "_with"));
        forms.push(plan.form("try_", "_with"));
    }
    let forms: Vec<String> = forms.iter().map(ToString::to_string).collect();
    if plan.function {
        c.values.extend(forms.iter().cloned());
        if let Some(suffix) = plan.faithful {
            c.values.push(plan.form("", suffix).to_string());
            c.values.push(plan.form("try_", suffix).to_string());
        }
    }
    if plan.receiver.is_some() {
        // Inherent or trait: either way one name per form on the tensor type.
        c.methods = forms;
    }
    c.values.push(plan.form("", "_redispatch").to_string());
    c.values.push(plan.form("try_", "_redispatch").to_string());
    c.values.push(plan.handle.to_string());
    c.values.push(plan.call_fn.to_string());
    if let Some(s) = &plan.args_struct {
        c.types.push(s.to_string());
    }
    c
}

/// The names of candidate `level` (from 1) for an operator: (function name, arguments
/// struct name).
pub(crate) fn candidate(schema: &crate::schema::Schema, level: usize) -> (String, String) {
    let usual = crate::plan::rust_fn_name(schema);
    let usual = usual.strip_prefix("r#").unwrap_or(&usual);
    let mut suffix = String::new();
    if schema.name.overload.as_deref() == Some("Tensor") {
        suffix.push_str("_tensor");
    }
    if level > 1 {
        suffix.push_str(&format!("_{level}"));
    }
    let name = insert_suffix(usual, &suffix);
    let args = crate::plan::args_struct_name_for(schema, &name);
    (name, args)
}

/// `suffix` before the trailing underscores of `name` (`clamp_` + `_tensor` → `clamp_tensor_`).
fn insert_suffix(name: &str, suffix: &str) -> String {
    let core_end = name.trim_end_matches('_').len();
    if core_end == 0 {
        return format!("{name}{suffix}");
    }
    format!("{}{suffix}{}", &name[..core_end], &name[core_end..])
}

#[cfg(test)]
mod tests {
    use super::candidate;
    use crate::schema::parse_schema;

    fn names(schema: &str, level: usize) -> (String, String) {
        candidate(&parse_schema(schema).unwrap(), level)
    }

    #[test]
    fn candidates_spell_out_the_overload_then_count() {
        let clamp =
            "clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)";
        assert_eq!(
            names(clamp, 1),
            ("clamp_tensor_".into(), "ClampTensorInplaceArgs".into())
        );
        assert_eq!(
            names(clamp, 2),
            ("clamp_tensor_2_".into(), "ClampTensor2InplaceArgs".into())
        );
        let stack = "_stack(Tensor[] tensors, int dim=0) -> Tensor";
        assert_eq!(names(stack, 1), ("_stack".into(), "_StackArgs".into()));
    }
}
