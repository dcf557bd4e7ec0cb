//! The helpers as data: for each C++ name a formula calls, the Rust function and its
//! parameters, so that the formula translator resolves calls and converts their arguments.
//! One row per C++ overload; a parameter written `Kind = "code"` may be omitted by the
//! caller (C++'s default argument), the Rust code standing in for it.
//!
//! The test build checks every row against the function it names: the row's parameter
//! kinds, spelt as Rust types, must be the function's signature.

/// The kind of a helper's parameter, in the translator's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelperParam {
    /// `&T`.
    Tensor,
    /// `Option<&T>` (a tensor that may be undefined).
    OptionalTensor,
    /// `&[T]`.
    TensorList,
    /// `&[Option<T>]` (`grads`, a `variable_list` whose tensors may be undefined).
    OptionalTensorList,
    /// `&[Option<T>]`: the tangents of the list passed as the previous argument, which the
    /// C++ helper reads itself (`t._fw_grad(level)`): a formula does not write it, the
    /// translator passes the list's tangents (`tensors_t` after `tensors`).
    Tangents,
    /// `Scalar`.
    Scalar,
    /// `Option<Scalar>`.
    OptionalScalar,
    /// `i64`.
    Int,
    /// `Option<i64>`.
    OptionalInt,
    /// `f64`.
    Float,
    /// `Option<f64>`.
    OptionalFloat,
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
    /// `TensorOptions`.
    Options,
    /// `&TensorGeometry`.
    Geometry,
    /// `&str`.
    Str,
    /// `Option<&str>`.
    OptionalStr,
    /// `bool`.
    Bool,
    /// `[bool; 2]`.
    BoolPair,
    /// `[bool; 3]`.
    BoolTriple,
}

/// What a helper returns (always in a `Result<_, Error>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HelperReturn {
    /// `T`.
    Tensor,
    /// `Option<T>`: C++ returns an undefined tensor in some cases.
    OptionalTensor,
    /// `(Option<T>, Option<T>)`.
    TensorPair,
    /// `(Option<T>, Option<T>, Option<T>)`.
    TensorTriple,
    /// Seven `Option<T>`s (an LSTM layer's gradients).
    TensorSeven,
    /// `Vec<Option<T>>`.
    TensorList,
    /// `Vec<i64>`.
    IntList,
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
    /// The Rust code of C++'s default arguments of the last parameters, which a call may
    /// omit (`["&[]", "true"]`: the last two).
    pub defaults: &'static [&'static str],
    /// Its result.
    pub returns: HelperReturn,
}

macro_rules! helpers {
    ($( $cpp:ident $(as $rust:ident)? ( $($p:ident $(= $d:literal)?),* ) -> $r:ident; )*) => {
        /// Every helper, C++ overloads as separate rows (same `cpp`, another `rust`).
        pub const HELPERS: &[Helper] = &[$(
            Helper {
                cpp: stringify!($cpp),
                rust: helpers!(@rust $cpp $($rust)?),
                params: &[$(HelperParam::$p),*],
                defaults: &[$($($d,)?)*],
                returns: HelperReturn::$r,
            },
        )*];

        /// Each row's parameter and result kinds, as Rust types, are its function's.
        #[cfg(test)]
        pub(crate) fn check_signatures() -> usize {
            #[allow(unused_imports)]
            use crate::dispatch::{Error, Layout, Scalar, ScalarType, TensorOptions};
            #[allow(unused_imports)]
            use super::TensorGeometry;
            use crate::autograd::tests::tensor::TT;
            let mut rows = 0;
            $(
                let _: fn($(helpers!(@ty $p)),*) -> Result<helpers!(@ret $r), Error> =
                    helpers!(@path $cpp $($rust)?);
                rows += 1;
            )*
            rows
        }
    };
    (@rust $cpp:ident) => { stringify!($cpp) };
    (@rust $cpp:ident $rust:ident) => { stringify!($rust) };
    (@path $cpp:ident) => { super::$cpp };
    (@path $cpp:ident $rust:ident) => { super::$rust };
    (@ty Tensor) => { &TT };
    (@ty OptionalTensor) => { Option<&TT> };
    (@ty TensorList) => { &[TT] };
    (@ty OptionalTensorList) => { &[Option<TT>] };
    (@ty Tangents) => { &[Option<TT>] };
    (@ty Scalar) => { Scalar };
    (@ty OptionalScalar) => { Option<Scalar> };
    (@ty Int) => { i64 };
    (@ty OptionalInt) => { Option<i64> };
    (@ty Float) => { f64 };
    (@ty OptionalFloat) => { Option<f64> };
    (@ty IntList) => { &[i64] };
    (@ty OptionalIntList) => { Option<&[i64]> };
    (@ty IntListList) => { &[Vec<i64>] };
    (@ty ScalarType) => { ScalarType };
    (@ty ScalarTypeList) => { &[ScalarType] };
    (@ty Layout) => { Layout };
    (@ty Options) => { TensorOptions };
    (@ty Geometry) => { &TensorGeometry };
    (@ty Str) => { &str };
    (@ty OptionalStr) => { Option<&str> };
    (@ty Bool) => { bool };
    (@ty BoolPair) => { [bool; 2] };
    (@ty BoolTriple) => { [bool; 3] };
    (@ret Tensor) => { TT };
    (@ret OptionalTensor) => { Option<TT> };
    (@ret TensorPair) => { (Option<TT>, Option<TT>) };
    (@ret TensorTriple) => { (Option<TT>, Option<TT>, Option<TT>) };
    (@ret TensorSeven) => { super::LstmGradients<TT> };
    (@ret TensorList) => { Vec<Option<TT>> };
    (@ret IntList) => { Vec<i64> };
}

helpers! {
    // Pointwise.
    maybe_multiply(Tensor, Scalar) -> Tensor;
    handle_r_to_c(ScalarType, Tensor) -> Tensor;
    mul_tensor_backward(Tensor, Tensor, ScalarType) -> Tensor;
    mul_tensor_backward as mul_tensor_backward_scalar(Tensor, Scalar, ScalarType) -> Tensor;
    div_tensor_self_backward(Tensor, Tensor, ScalarType, OptionalStr = "::core::option::Option::None") -> Tensor;
    div_tensor_self_backward as div_tensor_self_backward_scalar(Tensor, Scalar, ScalarType, OptionalStr = "::core::option::Option::None") -> Tensor;
    div_tensor_other_backward(Tensor, Tensor, Tensor, OptionalStr = "::core::option::Option::None") -> Tensor;
    clamp_backward(Tensor, Tensor, OptionalScalar, OptionalScalar) -> Tensor;
    clamp_backward as clamp_backward_tensor(Tensor, Tensor, OptionalTensor, OptionalTensor) -> Tensor;
    clamp_backward_min_max(Tensor, Tensor, OptionalTensor, OptionalTensor, BoolPair) -> TensorPair;
    clamp_jvp(Tensor, Tensor, OptionalTensor, OptionalTensor, OptionalTensor, OptionalTensor) -> Tensor;
    copysign_tensor_self_backward(Tensor, Tensor, Tensor) -> Tensor;
    pow_backward(Tensor, Tensor, Scalar) -> Tensor;
    pow_backward_self(Tensor, Tensor, Tensor) -> Tensor;
    pow_backward_exponent(Tensor, Tensor, Tensor, Tensor) -> Tensor;
    pow_backward_exponent as pow_backward_exponent_scalar(Tensor, Scalar, Tensor, Tensor) -> Tensor;
    angle_backward(Tensor, Tensor) -> Tensor;
    mvlgamma_backward(Tensor, Tensor, Int) -> Tensor;
    sgn_backward(Tensor, Tensor, Tensor) -> Tensor;
    masked_fill_backward(Tensor, Tensor) -> Tensor;
    masked_fill_inplace_if_safe(Tensor, Tensor, Scalar) -> Tensor;
    deg2rad_backward(Tensor) -> Tensor;
    rad2deg_backward(Tensor) -> Tensor;
    log1p_backward(Tensor, Tensor) -> Tensor;
    sinc_backward(Tensor, Tensor) -> Tensor;
    i1_backward(Tensor, Tensor, Tensor) -> Tensor;
    i1e_backward(Tensor, Tensor, Tensor) -> Tensor;
    bessel_j1_backward(Tensor, Tensor, Tensor) -> Tensor;
    bessel_y1_backward(Tensor, Tensor, Tensor) -> Tensor;
    warn_backwards(Tensor) -> Tensor;
    infinitely_differentiable_logit_backward(Tensor, Tensor, OptionalFloat) -> Tensor;
    atan2_backward(Tensor, Tensor, Tensor, BoolPair) -> TensorPair;
    polar_backward(Tensor, Tensor) -> TensorPair;
    wrap_opt_if(Tensor, Bool) -> OptionalTensor;
    // Activations and dropout.
    infinitely_differentiable_silu_backward(Tensor, Tensor) -> Tensor;
    infinitely_differentiable_mish_backward(Tensor, Tensor) -> Tensor;
    gelu_double_backward(Tensor, Tensor, Tensor, Str) -> Tensor;
    elu_double_backward(Tensor, Tensor, Scalar, Scalar, Scalar, Bool, Tensor) -> Tensor;
    softplus_double_backward(Tensor, Tensor, Scalar, Scalar) -> Tensor;
    log_sigmoid_double_backward(Tensor, Tensor) -> Tensor;
    glu_double_backward(Tensor, Tensor, Tensor, Int) -> Tensor;
    glu_double_backward_grad_output(Tensor, Tensor, Int) -> Tensor;
    softmax_double_backward(Tensor, Tensor, Int, Tensor) -> Tensor;
    _fused_dropout_backward(Tensor, Tensor, Float) -> Tensor;
    infinitely_differentiable_native_dropout_backward(Tensor, Tensor, Float) -> Tensor;
    native_dropout_double_backward(Tensor, Tensor, Tensor, Float) -> Tensor;
    // Reductions.
    unsqueeze_multiple(Tensor, OptionalIntList, Int) -> Tensor;
    sum_backward(Tensor, IntList, OptionalIntList, Bool) -> Tensor;
    mean_backward(Tensor, IntList, OptionalIntList, Int, Bool) -> Tensor;
    sum_to(Tensor, IntList) -> Tensor;
    value_selecting_reduction_backward_symint as value_selecting_reduction_backward(Tensor, Int, Tensor, IntList, Bool) -> Tensor;
    value_selecting_reduction_backward(Tensor, Int, Tensor, IntList, Bool) -> Tensor;
    restore_reduced_dims(Tensor, IntList, Bool) -> Tensor;
    scale_grad_by_count(Tensor, Tensor, IntList) -> Tensor;
    amaxamin_jvp(Tensor, Tensor, Tensor, IntList, Bool) -> Tensor;
    aminmax_backward(Tensor, OptionalInt, Bool, OptionalTensor, OptionalTensor, Tensor, Tensor) -> OptionalTensor;
    aminmax_jvp(Tensor, Tensor, Tensor, OptionalInt, Bool) -> Tensor;
    evenly_distribute_backward(Tensor, Tensor, Tensor) -> Tensor;
    evenly_read_jvp(Tensor, Tensor, Tensor) -> Tensor;
    prod_backward(Tensor, Tensor, Tensor) -> Tensor;
    prod_backward as prod_backward_dim(Tensor, Tensor, Tensor, Int, Bool) -> Tensor;
    var_backward(Tensor, Tensor, OptionalIntList, OptionalScalar, Bool) -> Tensor;
    std_backward(Tensor, Tensor, Tensor, OptionalIntList, OptionalScalar, Bool) -> Tensor;
    var_mean_backward(OptionalTensor, OptionalTensor, Tensor, OptionalIntList, OptionalScalar, Bool) -> OptionalTensor;
    std_mean_backward(OptionalTensor, OptionalTensor, Tensor, Tensor, OptionalIntList, OptionalScalar, Bool) -> OptionalTensor;
    nansum_backward(Tensor, Tensor, OptionalIntList, Bool) -> Tensor;
    logsumexp_backward(Tensor, Tensor, Tensor, OptionalIntList, Bool) -> Tensor;
    logsumexp_jvp(Tensor, Tensor, OptionalIntList, Bool) -> Tensor;
    safe_logsumexp_jvp(Tensor, Tensor, IntList, Bool) -> Tensor;
    logcumsumexp_backward(Tensor, Tensor, Tensor, Int) -> Tensor;
    logcumsumexp_jvp(Tensor, Tensor, Int) -> Tensor;
    cumsum_backward(Tensor, Int) -> Tensor;
    cumprod_jvp(Tensor, Tensor, Tensor, Int) -> Tensor;
    gather_with_keepdimed_indices(Tensor, Int, Tensor, Bool) -> Tensor;
    // Vector norms.
    norm_backward(Tensor, Tensor, OptionalScalar, Tensor, IntList = "&[]", Bool = "true") -> OptionalTensor;
    norm_jvp(Tensor, Tensor, OptionalScalar, Tensor, IntList = "&[]", Bool = "true") -> Tensor;
    linalg_vector_norm_backward(Tensor, Tensor, Scalar, Tensor, OptionalIntList, Bool) -> OptionalTensor;
    linalg_vector_norm_jvp(Tensor, Tensor, Scalar, Tensor, OptionalIntList, Bool) -> Tensor;
    renorm_backward(Tensor, Tensor, Scalar, Int, Scalar) -> Tensor;
    renorm_jvp(Tensor, Tensor, Scalar, Int, Scalar) -> Tensor;
    // Shapes.
    cat_tensors_backward(OptionalTensor, IntListList, ScalarTypeList, Int) -> TensorList;
    stack_tensors_backward(OptionalTensor, Int, ScalarTypeList) -> TensorList;
    block_diag_backward(OptionalTensor, IntListList, ScalarTypeList) -> TensorList;
    cat_jvp(TensorList, Tangents, Int) -> OptionalTensor;
    stack_jvp(TensorList, Tangents, Int) -> OptionalTensor;
    block_diag_jvp(TensorList, Tangents) -> OptionalTensor;
    _nested_from_padded_backward(Tensor, Tensor, Bool) -> Tensor;
    unbind_backward_nested(OptionalTensorList, Tensor, Int, Options) -> Tensor;
    chunk_backward_nested(OptionalTensorList, Tensor, Int, Int) -> Tensor;
    _nested_split_with_sizes_backward(OptionalTensorList, IntList, Int, Tensor, Options) -> Tensor;
    split_with_sizes_backward(OptionalTensorList, IntList, Int, IntList, Options) -> Tensor;
    split_backward(OptionalTensorList, Int, Int, IntList, Options) -> Tensor;
    unbind_backward(OptionalTensorList, Int) -> Tensor;
    unsqueeze_to(Tensor, IntList) -> Tensor;
    unsqueeze_to as unsqueeze_to_dims(Tensor, IntList, IntList) -> Tensor;
    unsqueeze_to as unsqueeze_to_dim(Tensor, Int, IntList) -> Tensor;
    permute_backwards(Tensor, IntList) -> Tensor;
    repeat_backward(Tensor, IntList, IntList) -> Tensor;
    slice_backward_wrapper(Tensor, IntList, Int, OptionalInt, OptionalInt, Int) -> Tensor;
    constant_pad_nd_backward(Tensor, IntList) -> Tensor;
    reverse_list(IntList) -> IntList;
    reverse_list_symint as reverse_list(IntList) -> IntList;
    _to_copy_backward(Tensor, Options) -> Tensor;
    to_sparse_backward(Tensor, Layout, OptionalIntList) -> Tensor;
    as_strided_backward(Tensor, Geometry, IntList, IntList, OptionalInt) -> Tensor;
    as_strided_scatter_backward(Tensor, Geometry, Geometry, IntList, IntList, OptionalInt) -> Tensor;
    // Linear algebra.
    mm_mat1_backward(Tensor, Tensor, IntList, IntList, Layout, Scalar) -> Tensor;
    mm_mat2_backward(Tensor, Tensor, IntList, IntList, Layout, Scalar) -> Tensor;
    matmul_backward(OptionalTensor, Tensor, Tensor, BoolPair) -> TensorPair;
    linear_double_backward(OptionalTensorList, Tensor, OptionalTensor, Tensor) -> TensorTriple;
    _euclidean_dist_backward(OptionalTensor, Tensor, Tensor, Tensor) -> TensorPair;
    pinv_backward(Tensor, Tensor, Tensor) -> Tensor;
    pinv_jvp(Tensor, Tensor, Tensor) -> Tensor;
    cholesky_jvp(Tensor, Tensor, Bool) -> Tensor;
    cholesky_backward(Tensor, Bool, Tensor) -> Tensor;
    cholesky_inverse_backward(OptionalTensor, Tensor, Bool, Tensor) -> OptionalTensor;
    cholesky_inverse_jvp(Tensor, Tensor, Tensor, Bool) -> Tensor;
    cholesky_solve_backward(OptionalTensor, Tensor, Tensor, Tensor, Bool, BoolPair) -> TensorPair;
    cholesky_solve_jvp(Tensor, Tensor, Tensor, Tensor, Bool) -> Tensor;
    triangular_solve_backward(OptionalTensor, OptionalTensor, Tensor, Tensor, Tensor, Bool, Bool, Bool, BoolPair) -> TensorPair;
    triangular_solve_jvp(Tensor, Tensor, Tensor, Tensor, Bool, Bool, Bool) -> Tensor;
    linalg_solve_triangular_forward_AD(Tensor, Tensor, Tensor, Tensor, Bool, Bool, Bool) -> Tensor;
    linalg_solve_triangular_backward(OptionalTensor, Tensor, Tensor, Bool, Bool, Bool, BoolPair) -> TensorPair;
    linalg_solve_backward(OptionalTensor, Tensor, Tensor, Tensor, Tensor, Bool, Bool) -> TensorPair;
    lu_unpack_backward(OptionalTensor, OptionalTensor, Int, Int) -> OptionalTensor;
    linalg_matrix_exp_differential(Tensor, Tensor, Bool) -> Tensor;
    linalg_matrix_sqrth_differential(Tensor, Tensor) -> Tensor;
    _grouped_mm_mat1_backward(Tensor, Tensor, IntList, IntList, Layout, OptionalTensor, Scalar) -> Tensor;
    _grouped_mm_mat2_backward(Tensor, Tensor, IntList, IntList, Layout, OptionalTensor, Scalar) -> Tensor;
    householder_product_backward(OptionalTensor, Tensor, Tensor, Tensor, Bool = "false") -> TensorPair;
    householder_product_jvp(Tensor, Tensor, Tensor, Tensor, Tensor) -> Tensor;
    ormqr_backward(OptionalTensor, Tensor, Tensor, Tensor, Tensor, Bool, Bool, BoolTriple) -> TensorTriple;
    // Sparse layouts.
    mm_mat1_sparse_backward(Tensor, Tensor, Tensor, Scalar) -> Tensor;
    sparse_mask_backward(Tensor, Tensor, Layout) -> Tensor;
    sparse_sparse_matmul_backward(Tensor, Tensor, Tensor, Int) -> Tensor;
    sparse_sampled_addmm_backward(OptionalTensor, Tensor, OptionalTensor, OptionalTensor, Scalar, Scalar, BoolTriple) -> TensorTriple;
    values_backward(OptionalTensor, Tensor) -> OptionalTensor;
    // Decompositions.
    linalg_lu_backward(OptionalTensor, OptionalTensor, Tensor, Tensor, Tensor, Bool) -> OptionalTensor;
    lu_factor_ex_backward(Tensor, Tensor, Tensor, Bool) -> OptionalTensor;
    linalg_lu_jvp(Tensor, Tensor, Tensor, Tensor, Bool) -> TensorPair;
    lu_factor_ex_jvp(Tensor, Tensor, Tensor, Bool) -> Tensor;
    linalg_lu_solve_LU(Tensor, Tensor, Tensor, Tensor, Bool, Bool) -> Tensor;
    linalg_lu_solve_jvp(Tensor, Tensor, Tensor, Tensor, Tensor, Bool, Bool) -> Tensor;
    linalg_det_backward(OptionalTensor, Tensor, Tensor, Tensor, Tensor) -> OptionalTensor;
    linalg_det_jvp(Tensor, Tensor, Tensor, Tensor, Tensor, Bool) -> Tensor;
    slogdet_jvp(Tensor, Tensor, Tensor, Tensor, Tensor, Bool) -> TensorPair;
    linalg_solve_jvp(Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Bool) -> Tensor;
    slogdet_backward(OptionalTensor, OptionalTensor, Tensor, Tensor, Tensor, Tensor) -> OptionalTensor;
    svd_backward(OptionalTensor, OptionalTensor, OptionalTensor, Tensor, Tensor, Tensor) -> OptionalTensor;
    linalg_svd_jvp(Tensor, Tensor, Tensor, Tensor, Bool) -> TensorTriple;
    linalg_eig_backward(OptionalTensor, OptionalTensor, Tensor, Tensor, Bool, Bool = "true") -> OptionalTensor;
    linalg_eig_jvp(Tensor, Tensor, Tensor, Bool) -> TensorPair;
    linalg_qr_backward(OptionalTensor, OptionalTensor, Tensor, Tensor, Str) -> OptionalTensor;
    linalg_qr_jvp(Tensor, Tensor, Tensor, Str) -> TensorPair;
    linalg_lstsq_backward(OptionalTensor, OptionalTensor, Tensor, Tensor, Tensor, BoolPair) -> TensorPair;
    linalg_lstsq_solution_jvp(Tensor, Tensor, Tensor, Tensor) -> Tensor;
    linalg_lstsq_residuals_jvp(Tensor, Tensor, Tensor, Tensor, Tensor, Tensor) -> Tensor;
    // Losses.
    apply_loss_reduction(Tensor, Int) -> Tensor;
    binary_cross_entropy_target_backward(Tensor, Tensor, Tensor, OptionalTensor, Int) -> Tensor;
    binary_cross_entropy_double_backward_target(Tensor, Tensor, Tensor, Tensor, OptionalTensor, Int) -> Tensor;
    binary_cross_entropy_with_logits_backward(Tensor, Tensor, Tensor, OptionalTensor, OptionalTensor, Int) -> Tensor;
    binary_cross_entropy_with_logits_target_backward(Tensor, Tensor, Tensor, OptionalTensor, OptionalTensor, Int) -> Tensor;
    binary_cross_entropy_double_backward(Tensor, Tensor, Tensor, Tensor, OptionalTensor, Int) -> Tensor;
    binary_cross_entropy_double_backward_grad_output(Tensor, Tensor, Tensor, OptionalTensor, Int) -> Tensor;
    smooth_l1_loss_double_backward(Tensor, Tensor, Tensor, Int, Float) -> Tensor;
    huber_loss_double_backward(Tensor, Tensor, Tensor, Int, Float) -> Tensor;
    huber_loss_double_backward_grad_output(Tensor, Tensor, Tensor, Tensor, Int, Float) -> Tensor;
    mse_loss_double_backward(Tensor, Tensor, Int) -> Tensor;
    soft_margin_loss_double_backward(Tensor, Tensor, Tensor, Int) -> Tensor;
    soft_margin_loss_double_backward_grad_output(Tensor, Tensor, Tensor, Tensor, Int) -> Tensor;
    _cudnn_ctc_loss_backward(Tensor, Tensor, Tensor, Bool) -> Tensor;
    _miopen_ctc_loss_backward(Tensor, Tensor, Tensor, Bool) -> Tensor;
    // Recurrent layers.
    mkldnn_rnn_layer_differentiable_backward(Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, OptionalTensor, OptionalTensor, OptionalTensor, Bool, Int, Int, Int, Bool, Bool, Bool, IntList, Bool, Tensor) -> TensorSeven;
    // Normalization.
    batchnorm_double_backward(Tensor, OptionalTensor, OptionalTensor, OptionalTensor, OptionalTensor, Tensor, OptionalTensor, OptionalTensor, Bool, Float, OptionalTensor, OptionalTensor, BoolTriple) -> TensorTriple;
    layer_norm_double_backward(Tensor, OptionalTensor, OptionalTensor, OptionalTensor, OptionalTensor, Tensor, Tensor, Tensor, IntList, BoolTriple) -> TensorTriple;
    infinitely_differentiable_native_rms_norm_backward(OptionalTensor, OptionalTensor, Tensor, IntList, Tensor, OptionalTensor, BoolPair) -> TensorPair;
    native_group_norm_backward_dispatcher(OptionalTensor, OptionalTensor, OptionalTensor, Tensor, Tensor, Tensor, OptionalTensor, Int, Int, Int, Int, BoolTriple) -> TensorTriple;
    batch_norm_jvp(Tensor, Tensor, OptionalTensor, OptionalTensor, OptionalTensor, OptionalTensor, OptionalTensor, OptionalTensor, Tensor, Tensor, Bool, Float) -> Tensor;
    layer_norm_jvp(Tensor, Tensor, OptionalTensor, OptionalTensor, OptionalTensor, OptionalTensor, Tensor, Tensor, IntList) -> Tensor;
    group_norm_jvp(Tensor, Tensor, OptionalTensor, OptionalTensor, OptionalTensor, OptionalTensor, Tensor, Tensor, Int) -> Tensor;
    group_norm_mean_jvp(Tensor, Tensor, Int) -> Tensor;
    group_norm_invstd_jvp(Tensor, Tensor, Tensor, Tensor, Int) -> Tensor;
    rms_norm_jvp(Tensor, Tensor, OptionalTensor, OptionalTensor, Tensor, IntList) -> Tensor;
    rms_norm_rstd_jvp(Tensor, Tensor, Tensor, IntList) -> Tensor;
    // Indexing, pooling, convolution, FFT.
    max_pool_double_backward(Tensor, Tensor, Int) -> Tensor;
    error_for_max_pool2d_double_backward() -> Tensor;
    index_backward(Tensor, OptionalTensorList, Tensor) -> Tensor;
    take_backward(Tensor, Tensor, Tensor) -> Tensor;
    scatter_reduce_backward(OptionalTensor, Tensor, Int, Tensor, Tensor, Str, Bool, Tensor) -> TensorPair;
    index_reduce_backward(OptionalTensor, Tensor, Int, Tensor, Tensor, Str, Bool, Tensor) -> TensorPair;
    scatter_reduce_jvp(Tensor, Tensor, Int, Tensor, Tensor, Tensor, Str, Bool, Tensor) -> OptionalTensor;
    embedding_dense_double_backward_symint(Tensor, Tensor, Int) -> Tensor;
    _cudnn_convolution_backward(Tensor, OptionalTensor, Tensor, IntList, IntList, IntList, IntList, Bool, Int, BoolPair) -> TensorPair;
    convolution_jvp(Tensor, Tensor, Tensor, Tensor, OptionalTensor, OptionalTensor, IntList, IntList, IntList, Bool, IntList, Int) -> Tensor;
    _convolution_jvp(Tensor, Tensor, Tensor, Tensor, OptionalTensor, OptionalTensor, IntList, IntList, IntList, Bool, IntList, Int, Bool, Bool, Bool, Bool) -> Tensor;
    convolution_backward_jvp_grad_bias(Tensor, OptionalTensor) -> OptionalTensor;
    fft_r2c_backward(Tensor, IntList, Int, Bool, Int) -> Tensor;
    fft_c2r_backward(Tensor, IntList, Int) -> Tensor;
    _trilinear_backward(OptionalTensor, OptionalTensor, OptionalTensor, OptionalTensor, IntList, IntList, IntList, IntList, BoolTriple) -> TensorTriple;
}
