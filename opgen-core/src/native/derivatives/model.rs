//! What loading `derivatives.yaml` gives: per entry, the facts torchgen derives
//! (`DifferentiabilityInfo`), and the positioned errors of the loader.

use std::fmt;

use crate::formula::DerivativeRule;
use crate::native::{LoadError, Position};
use crate::schema::{ArgType, Schema};

/// The type of a value a backward node saves (torchgen's `NamedCType` of a
/// `SavedAttribute`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SavedType {
    /// An argument, as its schema type.
    Argument(ArgType),
    /// A return, as its schema type.
    Return(ArgType),
    /// The gathered `TensorOptions` argument (`options`).
    Options,
    /// `self.sym_sizes()`, `self.sym_strides()`: `SymInt[]`.
    SymIntArrayRef,
    /// `bias->sym_sizes()` of an optional tensor: `SymInt[]?`.
    OptionalSymIntArrayRef,
    /// `self.sym_size(2)`, `self.sym_numel()`: `SymInt`.
    SymInt,
    /// `self.numel()`, `self.dim()`: `int`.
    Int,
    /// `self.options()`: `TensorOptions`.
    TensorOptions,
    /// `zeros_like(self)`: the shape and options, to make zeros later (`TypeAndSize`).
    TypeAndSize,
    /// `to_args_sizes(tensors)`: one shape per tensor of a list.
    ArgsSizes,
    /// `to_args_sizes_symint(tensors)`: one `SymInt` shape per tensor of a list.
    ArgsSizesSymInt,
    /// `to_args_scalartypes(tensors)`: one dtype per tensor of a list.
    ArgsScalarTypes,
    /// `TensorGeometry(self)`: sizes, strides and storage offset.
    TensorGeometry,
    /// `self.scalar_type()`.
    ScalarType,
    /// `self.layout()`.
    Layout,
    /// `self.is_conj()`.
    Bool,
}

impl SavedType {
    /// The C++ type torchgen gives the saved value (for catalogs and messages).
    pub fn cpp_type(&self) -> String {
        match self {
            SavedType::Argument(t) | SavedType::Return(t) => t.to_string(),
            SavedType::Options | SavedType::TensorOptions => "TensorOptions".into(),
            SavedType::SymIntArrayRef => "SymInt[]".into(),
            SavedType::OptionalSymIntArrayRef => "SymInt[]?".into(),
            SavedType::SymInt => "SymInt".into(),
            SavedType::Int => "int".into(),
            SavedType::TypeAndSize => "TypeAndSize".into(),
            SavedType::ArgsSizes => "int[][]".into(),
            SavedType::ArgsSizesSymInt => "SymInt[][]".into(),
            SavedType::ArgsScalarTypes => "ScalarType[]".into(),
            SavedType::TensorGeometry => "TensorGeometry".into(),
            SavedType::ScalarType => "ScalarType".into(),
            SavedType::Layout => "Layout".into(),
            SavedType::Bool => "bool".into(),
        }
    }
}

/// A value a backward node saves when the forward runs: `self_sym_sizes` saved as
/// `self.sym_sizes()`, or `other` saved as itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedAttribute {
    /// The name the rewritten formula uses (`self`, `self_sym_sizes`, `result`).
    pub name: String,
    /// Its type.
    pub ty: SavedType,
    /// The expression that computes it at save time (`self.sym_sizes()`, `self`).
    pub expr: String,
}

/// A backward formula (torchgen's `Derivative`): the gradients of `var_names` (one or several
/// inputs) in terms of the output gradients and saved values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derivative {
    /// The formula as torchgen rewrites it: saved expressions replaced by their names
    /// (`grad.expand_symint(self_sym_sizes)`).
    pub formula: String,
    /// The formula as written.
    pub original_formula: String,
    /// The inputs it computes the gradients of (`self`, or `self, other` for one formula of
    /// several).
    pub var_names: Vec<String>,
    /// The inputs (and values computed from them) it saves.
    pub saved_inputs: Vec<SavedAttribute>,
    /// The outputs (and values computed from them) it saves.
    pub saved_outputs: Vec<SavedAttribute>,
    /// The `grad_<name>` gradients it uses.
    pub named_gradients: Vec<String>,
    /// Where the formula is in the file.
    pub position: Position,
}

/// A forward-mode formula (torchgen's `ForwardDerivative`), kept for completeness: the
/// tangent of outputs `var_names` from the inputs' primals (`x_p`) and tangents (`x_t`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardDerivative {
    /// The formula, with `auto_element_wise` and `auto_linear` expanded as torchgen does.
    pub formula: String,
    /// The outputs it gives the tangent of.
    pub var_names: Vec<String>,
    /// The inputs whose tangents it uses.
    pub required_inputs_fw_grad: Vec<String>,
    /// The inputs whose primal values it uses.
    pub required_inputs_primal: Vec<String>,
    /// Where the formula is in the file.
    pub position: Position,
}

/// Whether each output is differentiable, as written in `output_differentiability`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputDifferentiability {
    /// One boolean per return.
    Flags(Vec<bool>),
    /// One condition (a C++ expression) for the single return.
    Condition(String),
}

/// What torchgen knows about one operator's derivatives for one dispatch key
/// (`DifferentiabilityInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DifferentiabilityInfo {
    /// The operator's name without overload (`add`, `add_`).
    pub name: String,
    /// The function the formulas are attached to (the entry's schema, or the first
    /// non-out, non-`functional` function of its signature group with the same name).
    pub func: Schema,
    /// The backward node's name (`AddBackward0`), if some input has a formula.
    pub op: Option<String>,
    /// The backward formulas, in the order of their keys sorted by name (as torchgen).
    pub derivatives: Vec<Derivative>,
    /// The forward formulas.
    pub forward_derivatives: Vec<ForwardDerivative>,
    /// Every input value the node saves, once each.
    pub all_saved_inputs: Vec<SavedAttribute>,
    /// Every output value the node saves, once each.
    pub all_saved_outputs: Vec<SavedAttribute>,
    /// The `grad_<name>` gradients the formulas may use.
    pub available_named_gradients: Vec<String>,
    /// Those they use.
    pub used_named_gradients: Vec<String>,
    /// The inputs with a formula, in argument order.
    pub args_with_derivatives: Vec<String>,
    /// The inputs marked `non_differentiable`.
    pub non_differentiable_arg_names: Vec<String>,
    /// As written, if written.
    pub output_differentiability: Option<OutputDifferentiability>,
}

impl DifferentiabilityInfo {
    /// Whether some input has a formula (torchgen's `has_derivatives`).
    pub fn has_derivatives(&self) -> bool {
        !self.args_with_derivatives.is_empty()
    }

    /// Whether some formula uses `grad` (then only the first differentiable output gets a
    /// gradient, unless `output_differentiability` says otherwise).
    pub fn uses_single_grad(&self) -> bool {
        self.derivatives
            .iter()
            .any(|d| super::text::has_ident(&d.formula, "grad"))
    }

    /// Whether some formula uses `retain_variables`.
    pub fn uses_retain_variables(&self) -> bool {
        self.derivatives
            .iter()
            .any(|d| super::text::has_ident(&d.formula, "retain_variables"))
    }
}

/// One entry of `derivatives.yaml`, loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivativeEntry {
    /// The schema as written in `name`.
    pub name: String,
    /// The position of the `name` value.
    pub position: Position,
    /// The index of the named function in the native functions' list.
    pub function: usize,
    /// The information per dispatch key: `Default` (the `Autograd` alias) first, then keys
    /// such as `AutogradNestedTensor`.
    pub infos: Vec<(String, DifferentiabilityInfo)>,
}

impl DerivativeEntry {
    /// The information for the `Autograd` alias key.
    pub fn default_info(&self) -> Option<&DifferentiabilityInfo> {
        self.infos
            .iter()
            .find(|(k, _)| k == "Default")
            .map(|(_, i)| i)
    }
}

/// A problem found while loading `derivatives.yaml`, located at the offending text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivativeError {
    /// The broken rule; `None` for YAML syntax errors.
    pub rule: Option<DerivativeRule>,
    /// The message and the position (its `rule` is unset).
    pub error: LoadError,
}

impl DerivativeError {
    /// The error as a block of text: `FILE:LINE:COL: error[R1xx]: message`, the line, a caret
    /// line under the offending part, and `help: hint`.
    pub fn render(&self) -> String {
        let rendered = self.error.render();
        let rest = rendered.split_once('\n').map_or("", |(_, r)| r);
        format!("{self}\n{rest}")
    }
}

impl fmt::Display for DerivativeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.error;
        write!(f, "{}:{}:{}: error", e.file, e.line, e.column)?;
        if let Some(rule) = self.rule {
            write!(f, "[{}]", rule.id())?;
        }
        write!(f, ": {}", e.message)
    }
}

impl std::error::Error for DerivativeError {}
