//! Autograd's errors, in PyTorch's words.

use std::fmt;

/// What autograd refused. Each variant's message is PyTorch's (the `Display` of
/// [`AutogradError`]), with the operator or backward node appended when one is known.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AutogradErrorKind {
    /// `backward`/`grad` on an output without a gradient edge.
    NoGradFn {
        /// The output's position.
        index: usize,
    },
    /// A saved value was used after the graph was freed.
    BackwardTwice,
    /// A saved tensor was modified in place after it was saved.
    ModifiedInplace {
        /// `torch.FloatTensor [2, 3]`-style description of the tensor.
        tensor: String,
        /// `(output_nr, node name)` when the tensor is the output of a node.
        output_of: Option<(u32, String)>,
        /// Its version now.
        version: u64,
        /// Its version when saved.
        expected: u64,
    },
    /// An in-place operation on a leaf that requires grad.
    LeafInplace,
    /// An in-place operation on a view of a leaf that requires grad.
    ViewOfLeafInplace,
    /// An `out=` operator called with an argument that requires grad.
    OutRequiresGrad {
        /// The operator's base name (`mul`).
        op: String,
    },
    /// An input without a derivative formula that requires grad.
    NotDifferentiable {
        /// The operator's name.
        op: String,
        /// The argument's name.
        argument: String,
    },
    /// A formula marked `not_implemented(...)`.
    NotImplemented {
        /// The name given to `not_implemented`.
        name: String,
        /// The reason, if any.
        reason: String,
    },
    /// An implicit gradient for an output with more than one element.
    ImplicitGradNotScalar,
    /// Different numbers of outputs and of gradients.
    GradCount {
        /// Outputs.
        outputs: usize,
        /// Gradients.
        grads: usize,
    },
    /// A gradient whose shape differs from its output's.
    ShapeMismatch {
        /// The position.
        index: usize,
        /// The gradient's shape.
        grad: Vec<i64>,
        /// The output's shape.
        output: Vec<i64>,
    },
    /// A backward node returned a gradient of a shape its input cannot take.
    InvalidGradient {
        /// The node's name.
        node: String,
        /// The gradient's position.
        index: usize,
        /// Its shape.
        got: Vec<i64>,
        /// The input's shape.
        expected: Vec<i64>,
    },
    /// A backward node returned the wrong number of gradients.
    InvalidGradientCount {
        /// The node's name.
        node: String,
        /// How many it should return.
        expected: usize,
        /// How many it returned.
        got: usize,
    },
    /// A custom function's backward returned the wrong number of gradients.
    FunctionGradientCount {
        /// The node's name (`MyFunctionBackward`).
        node: String,
        /// One per forward argument.
        expected: usize,
        /// How many it returned.
        got: usize,
    },
    /// A custom function's backward returned a gradient for an argument that is not a
    /// tensor.
    FunctionGradientForNonTensor {
        /// The node's name.
        node: String,
        /// The argument's position, from 1.
        position: usize,
    },
    /// `grad(..., inputs)` with an input that does not require grad.
    InputDoesNotRequireGrad,
    /// `grad(..., inputs)` with an input the outputs do not depend on.
    UnusedInput,
    /// `requires_grad_` on a tensor that is not a leaf.
    NonLeafRequiresGrad {
        /// Whether the call tried to set it to `false`.
        to_false: bool,
    },
    /// `requires_grad_` on a tensor whose dtype is neither floating point nor complex.
    RequiresGradDtype,
    /// `retain_grad` on a tensor that does not require grad.
    RetainGradWithoutGrad,
    /// `register_hook` on a tensor that does not require grad.
    HookWithoutGrad,
    /// An in-place operation on a view that may not be modified in place.
    ViewInplace {
        /// PyTorch's full message.
        message: String,
    },
    /// A leaf's accumulator found the leaf moved into the graph.
    LeafMovedIntoGraph,
    /// An in-place operation on an inference tensor outside inference mode (PyTorch raises
    /// it in `VariableVersion::bump`).
    InferenceInplace,
    /// An inference tensor saved for backward.
    InferenceSaved,
    /// The version counter of an inference tensor read (a tensor type's
    /// [`Tensor::version`](crate::dispatch::Tensor::version) returns it for an inference
    /// tensor).
    InferenceVersion,
    /// `requires_grad_(true)` on an inference tensor outside inference mode.
    InferenceRequiresGrad,
    /// The tensor type does not take part in autograd.
    NoAutogradMeta {
        /// The tensor type's name.
        tensor_type: &'static str,
    },
}

/// An autograd error: its kind and, when known, the operator or backward node it happened in.
///
/// ```
/// use opgen_core::autograd::{AutogradError, AutogradErrorKind};
/// let e = AutogradError::new(AutogradErrorKind::NoGradFn { index: 0 });
/// assert_eq!(e.to_string(), "element 0 of tensors does not require grad and does not have a grad_fn");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutogradError {
    kind: AutogradErrorKind,
    context: Option<String>,
}

impl AutogradError {
    /// An error of `kind`.
    pub fn new(kind: AutogradErrorKind) -> AutogradError {
        AutogradError {
            kind,
            context: None,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &AutogradErrorKind {
        &self.kind
    }

    /// The operator (`test::mul_`) or backward node (`MulBackward0`) it happened in.
    pub fn context(&self) -> Option<&str> {
        self.context.as_deref()
    }

    /// Names the operator or node, unless one is named already.
    #[must_use]
    pub fn in_context(mut self, context: impl Into<String>) -> AutogradError {
        self.context.get_or_insert_with(|| context.into());
        self
    }
}

/// The message of a saved value used after `backward` freed it (PyTorch's
/// `ERR_BACKWARD_TWICE`).
pub const ERR_BACKWARD_TWICE: &str = "Trying to backward through the graph a second time (or \
directly access saved tensors after they have already been freed). Saved intermediate values \
of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True \
if you need to backward through the graph a second time or if you need to access saved tensors \
after calling backward.";

fn shape(s: &[i64]) -> String {
    let items: Vec<String> = s.iter().map(i64::to_string).collect();
    format!("[{}]", items.join(", "))
}

impl fmt::Display for AutogradErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use AutogradErrorKind as K;
        match self {
            K::NoGradFn { index } => write!(
                f,
                "element {index} of tensors does not require grad and does not have a grad_fn"
            ),
            K::BackwardTwice => f.write_str(ERR_BACKWARD_TWICE),
            K::ModifiedInplace {
                tensor,
                output_of,
                version,
                expected,
            } => {
                write!(
                    f,
                    "one of the variables needed for gradient computation has been modified by \
                     an inplace operation: [{tensor}]"
                )?;
                if let Some((nr, node)) = output_of {
                    write!(f, ", which is output {nr} of {node},")?;
                }
                write!(
                    f,
                    " is at version {version}; expected version {expected} instead. Hint: enable \
                     anomaly detection to find the operation that failed to compute its \
                     gradient, with torch.autograd.set_detect_anomaly(True)."
                )
            }
            K::LeafInplace => f.write_str(
                "a leaf Variable that requires grad is being used in an in-place operation.",
            ),
            K::ViewOfLeafInplace => f.write_str(
                "a view of a leaf Variable that requires grad is being used in an in-place \
                 operation.",
            ),
            K::OutRequiresGrad { op } => write!(
                f,
                "{op}(): functions with out=... arguments don't support automatic \
                 differentiation, but one of the arguments requires grad."
            ),
            K::NotDifferentiable { op, argument } => write!(
                f,
                "The function '{op}' is not differentiable with respect to argument \
                 '{argument}'. This input cannot have requires_grad True."
            ),
            K::NotImplemented { name, reason } => {
                write!(f, "the derivative for '{name}' is not implemented.")?;
                if !reason.is_empty() {
                    write!(f, " {reason}")?;
                }
                Ok(())
            }
            K::ImplicitGradNotScalar => {
                f.write_str("grad can be implicitly created only for scalar outputs")
            }
            K::GradCount { outputs, grads } => {
                write!(f, "got {outputs} tensors and {grads} gradients")
            }
            K::ShapeMismatch {
                index,
                grad,
                output,
            } => write!(
                f,
                "Mismatch in shape: grad_output[{index}] has a shape of torch.Size({}) and \
                 output[{index}] has a shape of torch.Size({}).",
                shape(grad),
                shape(output)
            ),
            K::InvalidGradient {
                node,
                index,
                got,
                expected,
            } => write!(
                f,
                "Function {node} returned an invalid gradient at index {index} - got {} but \
                 expected shape compatible with {}",
                shape(got),
                shape(expected)
            ),
            K::InvalidGradientCount {
                node,
                expected,
                got,
            } => write!(
                f,
                "Function {node} returned an invalid number of gradients - expected \
                 {expected}, but got {got}"
            ),
            K::FunctionGradientCount {
                node,
                expected,
                got,
            } => write!(
                f,
                "function {node} returned an incorrect number of gradients (expected \
                 {expected}, got {got})"
            ),
            K::FunctionGradientForNonTensor { node, position } => write!(
                f,
                "function {node} returned a gradient different than None at position \
                 {position}, but the corresponding forward input was not a Variable"
            ),
            K::InputDoesNotRequireGrad => {
                f.write_str("One of the differentiated Tensors does not require grad")
            }
            K::InferenceInplace => f.write_str(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can \
                 make a clone to get a normal tensor before doing inplace update.See \
                 https://github.com/pytorch/rfcs/pull/17 for more details.",
            ),
            K::InferenceSaved => f.write_str(
                "Inference tensors cannot be saved for backward. To work around you can make a \
                 clone to get a normal tensor and use it in autograd.",
            ),
            K::InferenceVersion => f.write_str("Inference tensors do not track version counter."),
            K::InferenceRequiresGrad => f.write_str(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not \
                 allowed.",
            ),
            K::UnusedInput => f.write_str(
                "One of the differentiated Tensors appears to not have been used in the graph. \
                 Set allow_unused=True if this is the desired behavior.",
            ),
            K::NonLeafRequiresGrad { to_false } => {
                f.write_str("you can only change requires_grad flags of leaf variables.")?;
                if *to_false {
                    f.write_str(
                        " If you want to use a computed variable in a subgraph that doesn't \
                         require differentiation use var_no_grad = var.detach().",
                    )?;
                }
                Ok(())
            }
            K::RequiresGradDtype => f.write_str(
                "only Tensors of floating point and complex dtype can require gradients",
            ),
            K::RetainGradWithoutGrad => {
                f.write_str("can't retain_grad on Tensor that has requires_grad=False")
            }
            K::HookWithoutGrad => {
                f.write_str("cannot register a hook on a tensor that doesn't require gradient")
            }
            K::ViewInplace { message } => f.write_str(message),
            K::LeafMovedIntoGraph => {
                f.write_str("leaf variable has been moved into the graph interior")
            }
            K::NoAutogradMeta { tensor_type } => write!(
                f,
                "tensor type `{tensor_type}` does not take part in autograd; return its \
                 metadata from `Tensor::autograd_meta`"
            ),
        }
    }
}

impl fmt::Display for AutogradError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.kind, f)?;
        if let Some(context) = &self.context {
            write!(f, " (in `{context}`)")?;
        }
        Ok(())
    }
}

impl std::error::Error for AutogradError {}

impl From<AutogradErrorKind> for AutogradError {
    fn from(kind: AutogradErrorKind) -> AutogradError {
        AutogradError::new(kind)
    }
}

impl From<AutogradError> for crate::dispatch::Error {
    fn from(e: AutogradError) -> crate::dispatch::Error {
        crate::dispatch::ErrorKind::Autograd(e).into()
    }
}

impl From<AutogradErrorKind> for crate::dispatch::Error {
    fn from(kind: AutogradErrorKind) -> crate::dispatch::Error {
        AutogradError::new(kind).into()
    }
}

/// The autograd error inside `e`, if it is one.
pub fn as_autograd_error(e: &crate::dispatch::Error) -> Option<&AutogradError> {
    match e.kind() {
        crate::dispatch::ErrorKind::Autograd(a) => Some(a),
        _ => None,
    }
}
