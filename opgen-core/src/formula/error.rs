//! The rules of derivative formulas and of `derivatives.yaml` (R100–R119), and the error of a
//! formula: a rule, a message, the byte range of the offending text, a hint.

use std::fmt;
use std::ops::Range;

macro_rules! rules {
    ($($variant:ident = $id:literal : $summary:literal,)*) => {
        /// The rules of derivative formulas and `derivatives.yaml` entries, one variant per rule
        /// id (torchgen's `load_derivatives` and the checks of its autograd code generation).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum DerivativeRule {
            $(#[doc = $summary] $variant,)*
        }

        impl DerivativeRule {
            /// Every rule, in id order.
            pub const ALL: &'static [DerivativeRule] = &[$(DerivativeRule::$variant,)*];

            /// The rule id: `R100`.
            pub fn id(self) -> &'static str {
                match self { $(DerivativeRule::$variant => $id,)* }
            }

            /// One line saying what the rule requires.
            pub fn summary(self) -> &'static str {
                match self { $(DerivativeRule::$variant => $summary,)* }
            }
        }
    };
}

rules! {
    EntryShape = "R100": "an entry is a mapping with a string `name`",
    UnknownSchema = "R101": "`name` is the exact schema of a native function",
    FieldType = "R102": "formulas are strings, `dispatch` a mapping, `output_differentiability` a list of booleans or one condition",
    DispatchKey = "R103": "`dispatch` keys are `Default` or autograd keys",
    UnknownKey = "R104": "a formula key names arguments, or outputs for forward formulas",
    OutputDifferentiability = "R105": "`output_differentiability` has one entry per return and is not `False` on in-place operators",
    Overlap = "R106": "an argument is not both differentiable and `non_differentiable`",
    GradUsage = "R107": "formulas use one of `grad`, `grads[i]` or `grad_<name>`, with indices in range",
    SymSizes = "R108": "formulas use `.sym_sizes()`, `.sym_size(i)`, `.sym_strides()`, not their int forms",
    Syntax = "R109": "a formula is a well-formed expression",
    UnknownVariable = "R110": "every variable a formula names is in scope",
    NotDifferentiableInput = "R111": "formula keys name differentiable inputs",
    ForwardFormula = "R112": "forward formulas use `x_p` and `x_t`, and `auto_element_wise`/`auto_linear` only where they apply",
    IgnoredDerivative = "R113": "an entry with formulas has a differentiable input and output",
    ReservedName = "R114": "no argument is named `grad_input_mask` or `result`",
    MissingFormula = "R115": "each differentiable tensor input has a formula or is `non_differentiable`",
    ArgAndReturn = "R116": "a formula key is not both an argument and a named return",
    Strides = "R117": "`.sym_strides()` is used only in the derivative of the tensor itself, not of an in-place `self`",
    DuplicateEntry = "R118": "each schema has one entry",
    EmptyFormula = "R119": "a formula is not empty",
}

/// A problem in one formula: the rule, what is wrong (lowercase, the offending text in
/// backticks), the byte range in the formula, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormulaError {
    /// The broken rule.
    pub rule: DerivativeRule,
    /// What is wrong.
    pub message: String,
    /// Where, in bytes of the formula (empty: the whole formula).
    pub range: Range<usize>,
    /// How to fix it.
    pub hint: Option<String>,
}

impl FormulaError {
    /// An error of `rule` at `range`.
    pub fn new(rule: DerivativeRule, range: Range<usize>, message: impl Into<String>) -> Self {
        FormulaError {
            rule,
            message: message.into(),
            range,
            hint: None,
        }
    }

    /// The same error with a hint.
    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// The error with the formula and a caret line under the offending part.
    pub fn render(&self, formula: &str) -> String {
        let mut out = format!("{self}\n  {formula}\n");
        let start = formula[..self.range.start.min(formula.len())]
            .chars()
            .count();
        let width = formula
            .get(self.range.clone())
            .map_or(1, |s| s.chars().count().max(1));
        out.push_str(&format!("  {}{}\n", " ".repeat(start), "^".repeat(width)));
        if let Some(hint) = &self.hint {
            out.push_str(&format!("help: {hint}\n"));
        }
        out
    }
}

impl fmt::Display for FormulaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.rule.id(), self.message)
    }
}

impl std::error::Error for FormulaError {}
