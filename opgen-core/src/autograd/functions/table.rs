//! The helpers as data: for each C++ name a formula calls, the Rust function and its
//! parameters, so that the formula translator resolves calls and checks their arity.

/// The kind of a helper's parameter or result, in the translator's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelperParam {
    /// `&T`.
    Tensor,
    /// `Option<&T>` (a tensor that may be undefined).
    OptionalTensor,
    /// `&[T]`.
    TensorList,
    /// `Scalar`.
    Scalar,
    /// `Option<Scalar>`.
    OptionalScalar,
    /// `i64`.
    Int,
    /// `&[i64]`.
    IntList,
    /// `Option<&[i64]>`.
    OptionalIntList,
    /// `&[Vec<i64>]`.
    IntListList,
    /// `ScalarType`.
    ScalarType,
    /// `&[ScalarType]`.
    ScalarTypeList,
    /// `Layout`.
    Layout,
    /// `bool`.
    Bool,
    /// `[bool; 2]`.
    BoolPair,
    /// `Result<T, Error>`.
    ReturnsTensor,
    /// `Result<(Option<T>, Option<T>), Error>`.
    ReturnsTensorPair,
    /// `Result<Vec<Option<T>>, Error>`.
    ReturnsTensorList,
}

/// One helper: the name formulas use, the Rust function (in
/// `opgen_core::autograd::functions`), its parameters and result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Helper {
    /// The C++ name (`maybe_multiply`, `sum_backward`).
    pub cpp: &'static str,
    /// The Rust function.
    pub rust: &'static str,
    /// Its parameters.
    pub params: &'static [HelperParam],
    /// Its result.
    pub returns: HelperParam,
}

use HelperParam as P;

const fn h(
    cpp: &'static str,
    rust: &'static str,
    params: &'static [HelperParam],
    returns: HelperParam,
) -> Helper {
    Helper {
        cpp,
        rust,
        params,
        returns,
    }
}

/// Every helper, C++ overloads as separate rows (same `cpp`, another `rust`).
pub const HELPERS: &[Helper] = &[
    h(
        "maybe_multiply",
        "maybe_multiply",
        &[P::Tensor, P::Scalar],
        P::ReturnsTensor,
    ),
    h(
        "handle_r_to_c",
        "handle_r_to_c",
        &[P::ScalarType, P::Tensor],
        P::ReturnsTensor,
    ),
    h(
        "mul_tensor_backward",
        "mul_tensor_backward",
        &[P::Tensor, P::Tensor, P::ScalarType],
        P::ReturnsTensor,
    ),
    h(
        "mul_tensor_backward",
        "mul_tensor_backward_scalar",
        &[P::Tensor, P::Scalar, P::ScalarType],
        P::ReturnsTensor,
    ),
    h(
        "div_tensor_self_backward",
        "div_tensor_self_backward",
        &[P::Tensor, P::Tensor, P::ScalarType],
        P::ReturnsTensor,
    ),
    h(
        "div_tensor_self_backward",
        "div_tensor_self_backward_scalar",
        &[P::Tensor, P::Scalar, P::ScalarType],
        P::ReturnsTensor,
    ),
    h(
        "div_tensor_other_backward",
        "div_tensor_other_backward",
        &[P::Tensor, P::Tensor, P::Tensor],
        P::ReturnsTensor,
    ),
    h(
        "clamp_backward",
        "clamp_backward",
        &[P::Tensor, P::Tensor, P::OptionalScalar, P::OptionalScalar],
        P::ReturnsTensor,
    ),
    h(
        "unsqueeze_multiple",
        "unsqueeze_multiple",
        &[P::Tensor, P::OptionalIntList, P::Int],
        P::ReturnsTensor,
    ),
    h(
        "sum_backward",
        "sum_backward",
        &[P::Tensor, P::IntList, P::OptionalIntList, P::Bool],
        P::ReturnsTensor,
    ),
    h(
        "mean_backward",
        "mean_backward",
        &[P::Tensor, P::IntList, P::OptionalIntList, P::Int, P::Bool],
        P::ReturnsTensor,
    ),
    h(
        "mm_mat1_backward",
        "mm_mat1_backward",
        &[
            P::Tensor,
            P::Tensor,
            P::IntList,
            P::IntList,
            P::Layout,
            P::Scalar,
        ],
        P::ReturnsTensor,
    ),
    h(
        "mm_mat2_backward",
        "mm_mat2_backward",
        &[
            P::Tensor,
            P::Tensor,
            P::IntList,
            P::IntList,
            P::Layout,
            P::Scalar,
        ],
        P::ReturnsTensor,
    ),
    h(
        "matmul_backward",
        "matmul_backward",
        &[P::OptionalTensor, P::Tensor, P::Tensor, P::BoolPair],
        P::ReturnsTensorPair,
    ),
    h(
        "sum_to",
        "sum_to",
        &[P::Tensor, P::IntList],
        P::ReturnsTensor,
    ),
    h(
        "value_selecting_reduction_backward_symint",
        "value_selecting_reduction_backward",
        &[P::Tensor, P::Int, P::Tensor, P::IntList, P::Bool],
        P::ReturnsTensor,
    ),
    h(
        "value_selecting_reduction_backward",
        "value_selecting_reduction_backward",
        &[P::Tensor, P::Int, P::Tensor, P::IntList, P::Bool],
        P::ReturnsTensor,
    ),
    h(
        "cat_tensors_backward",
        "cat_tensors_backward",
        &[P::OptionalTensor, P::IntListList, P::ScalarTypeList, P::Int],
        P::ReturnsTensorList,
    ),
    h(
        "stack_tensors_backward",
        "stack_tensors_backward",
        &[P::OptionalTensor, P::Int, P::ScalarTypeList],
        P::ReturnsTensorList,
    ),
];
