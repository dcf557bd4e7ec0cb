//! `derivatives.yaml`: PyTorch's derivative formulas, loaded and checked as torchgen's
//! `load_derivatives` does, against the native functions they name.
//!
//! Each entry names a schema exactly as `native_functions.yaml` writes it, then gives, for
//! each differentiable input, a formula (a C++ expression, see [`crate::formula`]) for its
//! gradient: `self: grad * other`, several inputs at once (`self, other: f(grad_input_mask)`),
//! `non_differentiable` inputs, `output_differentiability`, forward formulas for outputs
//! (`result: ...`), and optionally per-key formulas under `dispatch` (`Default` and autograd
//! keys). [`load_derivatives`] reads the file and computes torchgen's facts per entry
//! ([`DifferentiabilityInfo`]): the node's name (`MulBackward0`), the inputs with formulas,
//! the values each formula saves (`self.sym_sizes()` is saved as `self_sym_sizes`, not the
//! tensor), the output gradients used. Every problem is an error located in the file, with
//! a rule id (R100–R119, [`DerivativeRule`]).
//!
//! ```
//! use opgen_core::native::{derivatives::load_derivatives, load_native_functions};
//! let natives = load_native_functions("
//! - func: mul.Tensor(Tensor self, Tensor other) -> Tensor
//!   variants: function, method
//! - func: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
//! ", "").unwrap();
//! let yaml = "
//! - name: mul.Tensor(Tensor self, Tensor other) -> Tensor
//!   self: mul_tensor_backward(grad, other, self.scalar_type())
//!   other: mul_tensor_backward(grad, self, other.scalar_type())
//!   result: other_t * self_p + self_t * other_p
//!
//! - name: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
//!   self: grad.expand_symint(self.sym_sizes())
//! ";
//! let d = load_derivatives("derivatives.yaml", yaml, &natives).unwrap();
//! let mul = d.entries[0].default_info().unwrap();
//! assert_eq!(mul.op.as_deref(), Some("MulBackward0"));
//! assert_eq!(mul.args_with_derivatives, ["self", "other"]);
//! let saved: Vec<&str> = mul.all_saved_inputs.iter().map(|s| s.name.as_str()).collect();
//! // Formulas run in key order (`other`, then `self`), each saving what it uses.
//! assert_eq!(saved, ["self", "other_scalar_type", "self_scalar_type", "other"]);
//! let sum = d.entries[1].default_info().unwrap();
//! assert_eq!(sum.all_saved_inputs[0].name, "self_sym_sizes");
//!
//! let bad = "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  self: grad * othr\n";
//! let errors = load_derivatives("derivatives.yaml", bad, &natives).unwrap_err();
//! assert_eq!(errors[0].to_string(),
//!     "derivatives.yaml:2:16: error[R110]: unknown variable `othr` in the formula of `self`");
//! ```

mod catalog;
mod checks;
mod forward;
mod info;
mod matching;
mod model;
mod read;
mod saved;
mod scope;
mod text;

#[cfg(test)]
pub(crate) mod tests;

use std::collections::HashMap;

pub use catalog::{catalog_json, inputs_without_formula};
pub use checks::differentiable_outputs;
pub use info::{AUTOGRAD_KEYS, return_names};
pub use matching::{MatchKind, Matched, match_functions, node_name};
pub use model::{
    Derivative, DerivativeEntry, DerivativeError, DifferentiabilityInfo, ForwardDerivative,
    OutputDifferentiability, SavedAttribute, SavedType,
};

use super::NativeFunctions;
use super::source::SourceFile;
use crate::formula::DerivativeRule;

/// The loaded file: one [`DerivativeEntry`] per entry, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derivatives {
    /// The entries.
    pub entries: Vec<DerivativeEntry>,
}

/// Loads `derivatives.yaml` (named `name` in errors) against `natives`, with torchgen's
/// checks.
///
/// # Errors
/// Every problem found, each located at the offending text: YAML syntax, entry shape,
/// schemas that name no native function exactly, invalid keys and formulas.
pub fn load_derivatives(
    name: &str,
    text: &str,
    natives: &NativeFunctions,
) -> Result<Derivatives, Vec<DerivativeError>> {
    let file = SourceFile::new(name, text);
    let mut reader = read::Reader {
        file: &file,
        errors: Vec::new(),
    };
    let raw = read::read(&mut reader);
    let mut ctx = info::Context::new(natives);
    let mut entries = Vec::with_capacity(raw.len());
    let mut seen: HashMap<&str, super::Position> = HashMap::new();
    for entry in &raw {
        if let Some(first) = seen.insert(&entry.name.text, entry.name.position) {
            let msg = format!("`{}` has a second entry", entry.name.text);
            let hint = format!("merge it into the entry at line {}", first.line);
            reader.error(
                DerivativeRule::DuplicateEntry,
                entry.name.position,
                Some(&entry.name.text),
                0..0,
                msg,
                Some(hint),
            );
            continue;
        }
        entries.extend(info::load_entry(&mut ctx, entry, &mut reader));
    }
    if reader.errors.is_empty() {
        Ok(Derivatives { entries })
    } else {
        Err(reader.errors)
    }
}

/// Loads a `derivatives.yaml` text of one entry against the one function it names, with
/// the same rules: what the formulas written on `#[native_function]` go through.
#[cfg(feature = "codegen")]
pub(crate) fn load_for_function(
    name: &str,
    text: &str,
    f: &super::NativeFunction,
) -> Result<Derivatives, Vec<DerivativeError>> {
    load_derivatives(name, text, &NativeFunctions::single(f.clone()))
}
