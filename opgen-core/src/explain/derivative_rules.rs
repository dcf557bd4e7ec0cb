//! R100–R119: derivative formulas (`derivatives.yaml` entries, and `derivatives(...)` on
//! `#[native_function]`). Each example is a `derivatives.yaml` text checked against
//! [`NATIVES`], as `opgen check --derivatives` and the attribute check it.

use std::fmt::Write as _;
use std::sync::LazyLock;

use super::{capitalized, indent, wrap};
use crate::formula::DerivativeRule;
use crate::native::derivatives::{inputs_without_formula, load_derivatives};
use crate::native::{NativeFunctions, load_native_functions};

/// The native functions the examples name.
pub const NATIVES: &str = "\
- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
- func: mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
- func: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
- func: pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
- func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
- func: sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
- func: mm(Tensor self, Tensor mat2) -> Tensor
- func: renorm(Tensor self, Tensor result) -> Tensor
- func: unique(Tensor self) -> (Tensor self, Tensor counts)
";

/// One rule's entry in the error index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DerivativeExplanation {
    /// The rule.
    pub rule: DerivativeRule,
    /// What the rule requires and why, in paragraphs separated by blank lines.
    pub meaning: &'static str,
    /// A `derivatives.yaml` text that breaks the rule (and no other).
    pub broken: &'static str,
    /// What to change.
    pub fix: &'static str,
    /// The text with the fix applied.
    pub fixed: &'static str,
}

fn natives() -> Option<&'static NativeFunctions> {
    static N: LazyLock<Option<NativeFunctions>> =
        LazyLock::new(|| load_native_functions(NATIVES, "").ok());
    N.as_ref()
}

/// The errors the checks report for a `derivatives.yaml` text: its rule and rendered
/// message; R115 as `#[native_function]` reports it (a `derivatives.yaml` leaves it to the
/// run-time check).
pub fn errors(text: &str) -> Vec<(Option<DerivativeRule>, String)> {
    let Some(natives) = natives() else {
        return vec![(None, "the examples' native functions failed to load".into())];
    };
    match load_derivatives("derivatives.yaml", text, natives) {
        Err(errors) => errors.iter().map(|e| (e.rule, e.render())).collect(),
        Ok(d) => (d.entries.iter())
            .flat_map(|e| e.infos.iter().map(|(_, i)| i))
            .flat_map(|info| {
                inputs_without_formula(info).into_iter().map(|name| {
                    let message = format!(
                        "error[R115]: input `{name}` of `{}` has no derivative formula and is not marked non-differentiable",
                        info.func.name
                    );
                    (Some(DerivativeRule::MissingFormula), message)
                })
            })
            .collect(),
    }
}

impl DerivativeRule {
    /// The rule's entry in the error index (`opgen explain R110`).
    ///
    /// ```
    /// use opgen_core::formula::DerivativeRule;
    /// let text = DerivativeRule::UnknownVariable.explain().to_text();
    /// assert!(text.starts_with("R110: every variable a formula names is in scope"));
    /// ```
    pub fn explain(self) -> &'static DerivativeExplanation {
        let at = DerivativeRule::ALL
            .iter()
            .position(|r| *r == self)
            .unwrap_or(0);
        &EXPLANATIONS[at]
    }

    /// The rule of an id (`R110`).
    pub fn from_id(id: &str) -> Option<DerivativeRule> {
        DerivativeRule::ALL.iter().copied().find(|r| r.id() == id)
    }
}

impl DerivativeExplanation {
    /// The entry as `opgen explain` prints it, with the errors of the broken example.
    pub fn to_text(&self) -> String {
        let mut s = format!("{}: {}\n\n", self.rule.id(), self.rule.summary());
        for paragraph in self.meaning.split("\n\n") {
            s.push_str(&wrap(paragraph, 88));
            s.push('\n');
        }
        s.push_str("This breaks it (derivatives.yaml):\n\n");
        s.push_str(&indent(self.broken));
        s.push_str("\nopgen reports:\n\n");
        for (_, message) in errors(self.broken) {
            s.push_str(&indent(&message));
        }
        let _ = write!(
            s,
            "\n{}\n\n",
            wrap(&format!("The fix: {}", self.fix), 88).trim_end()
        );
        s.push_str(&indent(self.fixed));
        s
    }

    /// The entry as a section of `docs/ERRORS.md`.
    pub fn to_markdown(&self) -> String {
        let mut s = format!("## {}\n\n", self.rule.id());
        let _ = write!(s, "**{}.**\n\n", capitalized(self.rule.summary()));
        for paragraph in self.meaning.split("\n\n") {
            let words: Vec<&str> = paragraph.split_whitespace().collect();
            let _ = write!(s, "{}\n\n", words.join(" "));
        }
        let _ = write!(
            s,
            "This breaks it:\n\n```yaml\n{}\n```\n\n",
            self.broken.trim_end()
        );
        let _ = write!(s, "The fix: {}\n\n", self.fix);
        let _ = write!(s, "```yaml\n{}\n```\n", self.fixed.trim_end());
        s
    }
}

/// Every entry, in rule order (R100 first).
pub fn all() -> &'static [DerivativeExplanation] {
    &EXPLANATIONS
}

macro_rules! mul {
    ($($rest:literal),*) => { concat!("- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n", $($rest),*) };
}

const EXPLANATIONS: [DerivativeExplanation; 20] = [
    DerivativeExplanation {
        rule: DerivativeRule::EntryShape,
        meaning: "Each item of `derivatives.yaml` is a mapping whose `name` is the schema of the \
            function its formulas differentiate, as a string.",
        broken: "- self: grad * other\n  other: grad * self\n",
        fix: "name the function.",
        fixed: mul!("  self: grad * other\n  other: grad * self\n"),
    },
    DerivativeExplanation {
        rule: DerivativeRule::UnknownSchema,
        meaning: "`name` is the schema of a native function exactly as `native_functions.yaml` \
            writes it: same overload, argument names, types and defaults. torchgen matches \
            entries to functions by that text.\n\nOn `#[native_function]`, the formulas are \
            those of the attribute's own schema, so this rule cannot break there.",
        broken: "- name: mul.Tensor(Tensor self, Tensor othr) -> Tensor\n  self: grad * othr\n  othr: grad * self\n",
        fix: "copy the schema from `native_functions.yaml` (the message shows the signatures of \
            that name).",
        fixed: mul!("  self: grad * other\n  other: grad * self\n"),
    },
    DerivativeExplanation {
        rule: DerivativeRule::FieldType,
        meaning: "Formulas are strings, `dispatch` maps keys to formulas, and \
            `output_differentiability` is a list of booleans (or one condition); a formula may \
            not stand next to `dispatch`.",
        broken: mul!(
            "  self: grad * other\n  other: grad * self\n  output_differentiability: yes\n"
        ),
        fix: "write one boolean per return.",
        fixed: mul!(
            "  self: grad * other\n  other: grad * self\n  output_differentiability: [True]\n"
        ),
    },
    DerivativeExplanation {
        rule: DerivativeRule::DispatchKey,
        meaning: "The keys of `dispatch` are `Default` (the `Autograd` alias) or autograd keys \
            (`AutogradCPU`, `AutogradNestedTensor`, ...): the formulas of an operator may \
            differ per backend only at those keys.",
        broken: mul!(
            "  dispatch:\n    AutogradCUDAX:\n      self: grad * other\n      other: grad * self\n"
        ),
        fix: "name an autograd key.",
        fixed: mul!(
            "  dispatch:\n    AutogradCUDA:\n      self: grad * other\n      other: grad * self\n"
        ),
    },
    DerivativeExplanation {
        rule: DerivativeRule::UnknownKey,
        meaning: "A formula's key names the arguments it gives the gradient of (`self`, or \
            `self, other` for one formula of several), or, for a forward formula, outputs \
            (`result`, `result0`, a return's name).",
        broken: mul!(
            "  self: grad * other\n  other: grad * self\n  reslt: self_t * other_p + self_p * other_t\n"
        ),
        fix: "name the output as the schema does (`result` for its one unnamed return).",
        fixed: mul!(
            "  self: grad * other\n  other: grad * self\n  result: self_t * other_p + self_p * other_t\n"
        ),
    },
    DerivativeExplanation {
        rule: DerivativeRule::OutputDifferentiability,
        meaning: "`output_differentiability` has one boolean per return, and an in-place \
            operator's output, which is its `self`, is differentiable.",
        broken: "- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n  self: grad\n  output_differentiability: [True]\n",
        fix: "give a flag for each return.",
        fixed: "- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n  self: grad\n  output_differentiability: [True, False]\n",
    },
    DerivativeExplanation {
        rule: DerivativeRule::Overlap,
        meaning: "An argument either has a formula or is marked `non_differentiable`, not both. \
            (The formula of an input marked `non_differentiable` is then also one of an input \
            that is not differentiable, R111.)",
        broken: mul!("  self: grad * other\n  self, other: non_differentiable\n"),
        fix: "keep one of the two.",
        fixed: mul!("  self: grad * other\n  other: non_differentiable\n"),
    },
    DerivativeExplanation {
        rule: DerivativeRule::GradUsage,
        meaning: "The formulas of an entry name the output gradients one way: `grad` (the first \
            differentiable output's), `grads[i]`, or `grad_<return name>`; `grads` indices are \
            in range, and `grads[0]` alone is written `grad`.",
        broken: "- name: sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)\n  self: grad + grads[1]\n",
        fix: "use `grads[0]` for `grad`.",
        fixed: "- name: sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)\n  self: grads[0] + grads[1]\n",
    },
    DerivativeExplanation {
        rule: DerivativeRule::SymSizes,
        meaning: "Formulas read shapes with `.sym_sizes()`, `.sym_size(i)`, `.sym_strides()` \
            (symbolic sizes), not `.sizes()`, `.size(i)`, `.strides()`: torchgen saves these \
            values rather than the tensor.",
        broken: "- name: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor\n  self: grad.expand(self.sizes())\n",
        fix: "use the symbolic accessor.",
        fixed: "- name: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor\n  self: grad.expand_symint(self.sym_sizes())\n",
    },
    DerivativeExplanation {
        rule: DerivativeRule::Syntax,
        meaning: "A formula is one C++ expression of the formula language (calls, methods, \
            operators, the ternary, literals), or Rust written after `rust:`.",
        broken: mul!("  self: grad * (other\n  other: grad * self\n"),
        fix: "close the expression.",
        fixed: mul!("  self: grad * (other)\n  other: grad * self\n"),
    },
    DerivativeExplanation {
        rule: DerivativeRule::UnknownVariable,
        meaning: "Every variable a formula names is in its scope: the arguments, `result` (or \
            the returns' names), `grad`, `grads`, `grad_<name>`, `grad_input_mask` and \
            `retain_variables`.",
        broken: mul!("  self: grad * othr\n  other: grad * self\n"),
        fix: "spell the variable as the schema does.",
        fixed: mul!("  self: grad * other\n  other: grad * self\n"),
    },
    DerivativeExplanation {
        rule: DerivativeRule::NotDifferentiableInput,
        meaning: "Formula keys name differentiable inputs: tensors (not a `Scalar`, an `int`), \
            not marked `non_differentiable`.",
        broken: "- name: pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor\n  self: grad * exponent\n  exponent: grad\n",
        fix: "remove the formula of the number.",
        fixed: "- name: pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor\n  self: grad * exponent\n",
    },
    DerivativeExplanation {
        rule: DerivativeRule::ForwardFormula,
        meaning: "Forward-mode formulas (keyed by outputs) use the inputs' primals and tangents, \
            `x_p` and `x_t`, not `x`; `auto_element_wise` and `auto_linear` only where they \
            apply (one differentiable input, element-wise or linear).",
        broken: mul!("  self: grad * other\n  other: grad * self\n  result: self * other_t\n"),
        fix: "use the primal.",
        fixed: mul!(
            "  self: grad * other\n  other: grad * self\n  result: self_p * other_t + self_t * other_p\n"
        ),
    },
    DerivativeExplanation {
        rule: DerivativeRule::IgnoredDerivative,
        meaning: "An entry with formulas has a differentiable input and a differentiable output; \
            otherwise torchgen would ignore its formulas.",
        broken: "- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n  self: grad\n  output_differentiability: [False, False]\n",
        fix: "mark the output that has a gradient.",
        fixed: "- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n  self: grad\n  output_differentiability: [True, False]\n",
    },
    DerivativeExplanation {
        rule: DerivativeRule::ReservedName,
        meaning: "No argument of a differentiable function is named `grad_input_mask` or \
            `result`: formulas use those names.",
        broken: "- name: renorm(Tensor self, Tensor result) -> Tensor\n  self: grad\n",
        fix: "rename the argument in the schema (here, in `native_functions.yaml`).",
        fixed: mul!("  self: grad * other\n  other: grad * self\n"),
    },
    DerivativeExplanation {
        rule: DerivativeRule::MissingFormula,
        meaning: "Each differentiable tensor input has a formula or is marked \
            `non_differentiable`. On `#[native_function]` this is a compile error. In \
            `derivatives.yaml` torchgen leaves it to the Autograd kernel, which refuses such \
            an input when it requires grad (\"The function 'f' is not differentiable with \
            respect to argument 'other'\").",
        broken: mul!("  self: grad * other\n"),
        fix: "give the input its formula, or mark it `non_differentiable`.",
        fixed: mul!("  self: grad * other\n  other: grad * self\n"),
    },
    DerivativeExplanation {
        rule: DerivativeRule::ArgAndReturn,
        meaning: "A formula key is not both an argument and a named return: it would be unclear \
            whether the formula is a backward or a forward one.",
        broken: "- name: unique(Tensor self) -> (Tensor self, Tensor counts)\n  self: grads[0] + grads[1]\n",
        fix: "name the return otherwise (in `native_functions.yaml`).",
        fixed: "- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n  self: grad\n  output_differentiability: [True, False]\n",
    },
    DerivativeExplanation {
        rule: DerivativeRule::Strides,
        meaning: "`.sym_strides()` of a tensor is replaced by a saved value only in the \
            derivative of that tensor itself (torchgen's rule): it may be a tensor the \
            operation overwrites.",
        broken: "- name: mm(Tensor self, Tensor mat2) -> Tensor\n  self: f(grad, mat2.sym_strides())\n  mat2: grad\n",
        fix: "read the strides in the tensor's own derivative.",
        fixed: "- name: mm(Tensor self, Tensor mat2) -> Tensor\n  self: f(grad, self.sym_strides())\n  mat2: grad\n",
    },
    DerivativeExplanation {
        rule: DerivativeRule::DuplicateEntry,
        meaning: "Each schema has one entry; its formulas are all in it.",
        broken: mul!(
            "  self: grad * other\n",
            "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n  other: grad * self\n"
        ),
        fix: "merge the entries.",
        fixed: mul!("  self: grad * other\n  other: grad * self\n"),
    },
    DerivativeExplanation {
        rule: DerivativeRule::EmptyFormula,
        meaning: "A formula is not empty: an input without gradient is marked \
            `non_differentiable` instead.",
        broken: mul!("  self: grad * other\n  other: \"\"\n"),
        fix: "write the formula, or `non_differentiable`.",
        fixed: mul!("  self: grad * other\n  other: non_differentiable\n"),
    },
];
