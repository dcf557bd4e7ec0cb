//! The ATen operators the helpers call, as typed functions over the global dispatcher: one
//! line per operator overload (its argument families and result, checked against the
//! operator's schema on first use), and the shorthands the helpers write C++'s operators
//! with (`a * b` is [`mul`], `a / 2` is [`div_s`]).

use super::aten;
use crate::dispatch::TensorOptions;
use crate::dispatch::{ArgFamily, Device, Error, Layout, MemoryFormat, Scalar, ScalarType, Tensor};

macro_rules! aten_ops {
    ($( $name:ident = $op:literal $(. $ov:literal)? ($($a:ident: $f:ty),* $(,)?) -> $r:ty; )*) => {
        $(
            #[doc = concat!("`aten::", $op, $(".", $ov,)? "`.")]
            #[allow(clippy::too_many_arguments)]
            pub(crate) fn $name<'a, T: Tensor>(
                $($a: <$f as ArgFamily<T>>::Arg<'a>),*
            ) -> Result<$r, Error> {
                aten::<T, ($($f,)*), $r>($op, aten_ops!(@ov $($ov)?))?.try_call($($a),*)
            }
        )*

        /// Each operator's name, overload and Rust signature (for tensor type `T`), checked
        /// against `schema_of(name, overload)`: the mismatches.
        #[cfg(test)]
        pub(crate) fn check_families<T: Tensor>(
            schema_of: impl Fn(&str, &str) -> Option<crate::schema::Schema>,
        ) -> Vec<String> {
            let mut bad = Vec::new();
            $(
                let (op, ov) = ($op, aten_ops!(@ov $($ov)?));
                match schema_of(op, ov) {
                    None => bad.push(format!("{op}.{ov}: no such operator")),
                    Some(schema) => {
                        let check = crate::dispatch::kernel::check_signature::<T, ($($f,)*), $r, false>;
                        if let Err(m) = check(&schema) {
                            bad.push(format!("{op}.{ov}: {} vs {} ({})", m.found, m.expected, m.detail));
                        }
                    }
                }
            )*
            bad
        }
    };
    (@ov) => { "" };
    (@ov $ov:literal) => { $ov };
}

type Opt<F> = Option<F>;
type R<T> = &'static T;
type Ints = &'static [i64];
type Tensors<T> = &'static [T];

aten_ops! {
    add_tensor = "add"."Tensor"(a: R<T>, b: R<T>, alpha: Scalar) -> T;
    add_scalar = "add"."Scalar"(a: R<T>, b: Scalar, alpha: Scalar) -> T;
    sub_tensor = "sub"."Tensor"(a: R<T>, b: R<T>, alpha: Scalar) -> T;
    sub_scalar = "sub"."Scalar"(a: R<T>, b: Scalar, alpha: Scalar) -> T;
    rsub_scalar = "rsub"."Scalar"(a: R<T>, b: Scalar, alpha: Scalar) -> T;
    mul = "mul"."Tensor"(a: R<T>, b: R<T>) -> T;
    mul_s = "mul"."Scalar"(a: R<T>, s: Scalar) -> T;
    div = "div"."Tensor"(a: R<T>, b: R<T>) -> T;
    div_s = "div"."Scalar"(a: R<T>, s: Scalar) -> T;
    neg = "neg"(a: R<T>) -> T;
    abs = "abs"(a: R<T>) -> T;
    sgn = "sgn"(a: R<T>) -> T;
    pow_s = "pow"."Tensor_Scalar"(a: R<T>, exponent: Scalar) -> T;
    pow_t = "pow"."Tensor_Tensor"(a: R<T>, exponent: R<T>) -> T;
    exp = "exp"(a: R<T>) -> T;
    log = "log"(a: R<T>) -> T;
    log1p = "log1p"(a: R<T>) -> T;
    sqrt = "sqrt"(a: R<T>) -> T;
    reciprocal = "reciprocal"(a: R<T>) -> T;
    sigmoid = "sigmoid"(a: R<T>) -> T;
    tanh = "tanh"(a: R<T>) -> T;
    cosh = "cosh"(a: R<T>) -> T;
    cos = "cos"(a: R<T>) -> T;
    sin = "sin"(a: R<T>) -> T;
    i0 = "i0"(a: R<T>) -> T;
    special_i0e = "special_i0e"(a: R<T>) -> T;
    digamma = "digamma"(a: R<T>) -> T;
    logit = "logit"(a: R<T>, eps: Opt<f64>) -> T;
    log_sigmoid = "log_sigmoid"(a: R<T>) -> T;
    real = "real"(a: R<T>) -> T;
    imag = "imag"(a: R<T>) -> T;
    conj_op = "conj"(a: R<T>) -> T;
    where_ = "where"."self"(cond: R<T>, a: R<T>, b: R<T>) -> T;
    where_s = "where"."ScalarOther"(cond: R<T>, a: R<T>, b: Scalar) -> T;
    where_ss = "where"."Scalar"(cond: R<T>, a: Scalar, b: Scalar) -> T;
    masked_fill_s = "masked_fill"."Scalar"(a: R<T>, mask: R<T>, value: Scalar) -> T;
    masked_fill_t = "masked_fill"."Tensor"(a: R<T>, mask: R<T>, value: R<T>) -> T;
    masked_select = "masked_select"(a: R<T>, mask: R<T>) -> T;
    eq = "eq"."Tensor"(a: R<T>, b: R<T>) -> T;
    eq_s = "eq"."Scalar"(a: R<T>, b: Scalar) -> T;
    gt = "gt"."Tensor"(a: R<T>, b: R<T>) -> T;
    gt_s = "gt"."Scalar"(a: R<T>, b: Scalar) -> T;
    lt = "lt"."Tensor"(a: R<T>, b: R<T>) -> T;
    lt_s = "lt"."Scalar"(a: R<T>, b: Scalar) -> T;
    ge = "ge"."Tensor"(a: R<T>, b: R<T>) -> T;
    ge_s = "ge"."Scalar"(a: R<T>, b: Scalar) -> T;
    le = "le"."Tensor"(a: R<T>, b: R<T>) -> T;
    le_s = "le"."Scalar"(a: R<T>, b: Scalar) -> T;
    logical_and = "logical_and"(a: R<T>, b: R<T>) -> T;
    logical_or = "logical_or"(a: R<T>, b: R<T>) -> T;
    logical_not = "logical_not"(a: R<T>) -> T;
    bitwise_and = "bitwise_and"."Tensor"(a: R<T>, b: R<T>) -> T;
    isnan = "isnan"(a: R<T>) -> T;
    result_type = "result_type"."Tensor"(a: R<T>, b: R<T>) -> ScalarType;
    sum_all = "sum"(a: R<T>, dtype: Opt<ScalarType>) -> T;
    sum_dims = "sum"."dim_IntList"(a: R<T>, dim: Opt<Ints>, keepdim: bool, dtype: Opt<ScalarType>) -> T;
    mean_all = "mean"(a: R<T>, dtype: Opt<ScalarType>) -> T;
    mean_dims = "mean"."dim"(a: R<T>, dim: Opt<Ints>, keepdim: bool, dtype: Opt<ScalarType>) -> T;
    count_nonzero = "count_nonzero"."dim_IntList"(a: R<T>, dim: Ints) -> T;
    amax = "amax"(a: R<T>, dim: Ints, keepdim: bool) -> T;
    max_dim = "max"."dim"(a: R<T>, dim: i64, keepdim: bool) -> (T, T);
    all_dims = "all"."dims"(a: R<T>, dim: Opt<Ints>, keepdim: bool) -> T;
    nonzero = "nonzero"(a: R<T>) -> T;
    cumsum = "cumsum"(a: R<T>, dim: i64, dtype: Opt<ScalarType>) -> T;
    cumprod = "cumprod"(a: R<T>, dim: i64, dtype: Opt<ScalarType>) -> T;
    logcumsumexp = "logcumsumexp"(a: R<T>, dim: i64) -> T;
    flip = "flip"(a: R<T>, dims: Ints) -> T;
    cat = "cat"(tensors: Tensors<T>, dim: i64) -> T;
    stack = "stack"(tensors: Tensors<T>, dim: i64) -> T;
    narrow = "narrow"(a: R<T>, dim: i64, start: i64, length: i64) -> T;
    select = "select"."int"(a: R<T>, dim: i64, index: i64) -> T;
    slice = "slice"."Tensor"(a: R<T>, dim: i64, start: Opt<i64>, end: Opt<i64>, step: i64) -> T;
    squeeze_dim = "squeeze"."dim"(a: R<T>, dim: i64) -> T;
    unsqueeze = "unsqueeze"(a: R<T>, dim: i64) -> T;
    expand_ = "expand"(a: R<T>, size: Ints, implicit: bool) -> T;
    expand_as = "expand_as"(a: R<T>, other: R<T>) -> T;
    view = "view"(a: R<T>, size: Ints) -> T;
    view_as = "view_as"(a: R<T>, other: R<T>) -> T;
    reshape = "reshape"(a: R<T>, shape: Ints) -> T;
    reshape_as = "reshape_as"(a: R<T>, other: R<T>) -> T;
    permute = "permute"(a: R<T>, dims: Ints) -> T;
    transpose = "transpose"."int"(a: R<T>, dim0: i64, dim1: i64) -> T;
    t = "t"(a: R<T>) -> T;
    m_t = "mT"(a: R<T>) -> T;
    m_h = "mH"(a: R<T>) -> T;
    as_strided = "as_strided"(a: R<T>, size: Ints, stride: Ints, offset: Opt<i64>) -> T;
    as_strided_scatter = "as_strided_scatter"(a: R<T>, src: R<T>, size: Ints, stride: Ints, offset: Opt<i64>) -> T;
    diagonal = "diagonal"(a: R<T>, offset: i64, dim1: i64, dim2: i64) -> T;
    diagonal_scatter = "diagonal_scatter"(a: R<T>, src: R<T>, offset: i64, dim1: i64, dim2: i64) -> T;
    slice_scatter = "slice_scatter"(a: R<T>, src: R<T>, dim: i64, start: Opt<i64>, end: Opt<i64>, step: i64) -> T;
    diag_embed = "diag_embed"(a: R<T>, offset: i64, dim1: i64, dim2: i64) -> T;
    tril = "tril"(a: R<T>, diagonal: i64) -> T;
    triu = "triu"(a: R<T>, diagonal: i64) -> T;
    mm = "mm"(a: R<T>, b: R<T>) -> T;
    matmul = "matmul"(a: R<T>, b: R<T>) -> T;
    gather = "gather"(a: R<T>, dim: i64, index: R<T>, sparse_grad: bool) -> T;
    scatter_src = "scatter"."src"(a: R<T>, dim: i64, index: R<T>, src: R<T>) -> T;
    scatter_value = "scatter"."value"(a: R<T>, dim: i64, index: R<T>, value: Scalar) -> T;
    scatter_add = "scatter_add"(a: R<T>, dim: i64, index: R<T>, src: R<T>) -> T;
    scatter_reduce = "scatter_reduce"."two"(a: R<T>, dim: i64, index: R<T>, src: R<T>, reduce: &'static str, include_self: bool) -> T;
    index_select = "index_select"(a: R<T>, dim: i64, index: R<T>) -> T;
    index_add = "index_add"(a: R<T>, dim: i64, index: R<T>, source: R<T>, alpha: Scalar) -> T;
    index_fill = "index_fill"."int_Scalar"(a: R<T>, dim: i64, index: R<T>, value: Scalar) -> T;
    index_reduce = "index_reduce"(a: R<T>, dim: i64, index: R<T>, source: R<T>, reduce: &'static str, include_self: bool) -> T;
    index_put = "index_put"(a: R<T>, indices: &'static [Option<T>], values: R<T>, accumulate: bool) -> T;
    put = "put"(a: R<T>, index: R<T>, source: R<T>, accumulate: bool) -> T;
    zeros_parts = "zeros"(size: Ints, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>) -> T;
    ones_parts = "ones"(size: Ints, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>) -> T;
    scalar_tensor_parts = "scalar_tensor"(s: Scalar, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>) -> T;
    arange_parts = "arange"."start_step"(start: Scalar, end: Scalar, step: Scalar, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>) -> T;
    zeros_like_parts = "zeros_like"(a: R<T>, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>, memory_format: Opt<MemoryFormat>) -> T;
    ones_like_parts = "ones_like"(a: R<T>, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>, memory_format: Opt<MemoryFormat>) -> T;
    empty_like_parts = "empty_like"(a: R<T>, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>, memory_format: Opt<MemoryFormat>) -> T;
    new_zeros_parts = "new_zeros"(a: R<T>, size: Ints, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>) -> T;
    to_copy_parts = "_to_copy"(a: R<T>, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>, non_blocking: bool, memory_format: Opt<MemoryFormat>) -> T;
    contiguous = "contiguous"(a: R<T>, memory_format: MemoryFormat) -> T;
    clone = "clone"(a: R<T>, memory_format: Opt<MemoryFormat>) -> T;
    to_dtype = "to"."dtype"(a: R<T>, dtype: ScalarType, non_blocking: bool, copy: bool, memory_format: Opt<MemoryFormat>) -> T;
    type_as = "type_as"(a: R<T>, other: R<T>) -> T;
    to_dense = "to_dense"(a: R<T>, dtype: Opt<ScalarType>, masked_grad: Opt<bool>) -> T;
    to_sparse = "to_sparse"(a: R<T>, layout: Opt<Layout>, blocksize: Opt<Ints>, dense_dim: Opt<i64>) -> T;
    clamp_min = "clamp_min"(a: R<T>, min: Scalar) -> T;
    sigmoid_backward = "sigmoid_backward"(grad: R<T>, output: R<T>) -> T;
    elu_backward = "elu_backward"(grad: R<T>, alpha: Scalar, scale: Scalar, input_scale: Scalar, is_result: bool, self_or_result: R<T>) -> T;
    glu_backward = "glu_backward"(grad: R<T>, a: R<T>, dim: i64) -> T;
    huber_loss_backward = "huber_loss_backward"(grad: R<T>, a: R<T>, target: R<T>, reduction: i64, delta: f64) -> T;
    soft_margin_loss_backward = "soft_margin_loss_backward"(grad: R<T>, a: R<T>, target: R<T>, reduction: i64) -> T;
    slice_backward = "slice_backward"(grad: R<T>, input_sizes: Ints, dim: i64, start: i64, end: i64, step: i64) -> T;
    constant_pad_nd = "constant_pad_nd"(a: R<T>, pad: Ints, value: Scalar) -> T;
    linalg_vector_norm = "linalg_vector_norm"(a: R<T>, ord: Scalar, dim: Opt<Ints>, keepdim: bool, dtype: Opt<ScalarType>) -> T;
    masked_scale = "_masked_scale"(a: R<T>, mask: R<T>, scale: f64) -> T;
    linalg_solve_triangular = "linalg_solve_triangular"(a: R<T>, b: R<T>, upper: bool, left: bool, unitriangular: bool) -> T;
    linalg_solve = "linalg_solve"(a: R<T>, b: R<T>, left: bool) -> T;
    linalg_lu_solve = "linalg_lu_solve"(lu: R<T>, pivots: R<T>, b: R<T>, left: bool, adjoint: bool) -> T;
    lu_unpack = "lu_unpack"(lu: R<T>, pivots: R<T>, unpack_data: bool, unpack_pivots: bool) -> (T, T, T);
    cholesky_solve = "cholesky_solve"(a: R<T>, b: R<T>, upper: bool) -> T;
    triangular_solve = "triangular_solve"(a: R<T>, b: R<T>, upper: bool, transpose: bool, unitriangular: bool) -> (T, T);
    linalg_pinv = "linalg_pinv"."atol_rtol_tensor"(a: R<T>, atol: Opt<R<T>>, rtol: Opt<R<T>>, hermitian: bool) -> T;
    allclose = "allclose"(a: R<T>, b: R<T>, rtol: f64, atol: f64, equal_nan: bool) -> bool;
    linalg_det = "linalg_det"(a: R<T>) -> T;
    linalg_svd = "linalg_svd"(a: R<T>, full_matrices: bool, driver: Opt<&'static str>) -> (T, T, T);
    linalg_matrix_exp = "linalg_matrix_exp"(a: R<T>) -> T;
    index = "index"."Tensor"(a: R<T>, indices: &'static [Option<T>]) -> T;
    efficientzerotensor_parts = "_efficientzerotensor"(size: Ints, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>) -> T;
    fft_r2c = "_fft_r2c"(a: R<T>, dim: Ints, normalization: i64, onesided: bool) -> T;
    fft_c2c = "_fft_c2c"(a: R<T>, dim: Ints, normalization: i64, forward: bool) -> T;
    convolution_backward = "convolution_backward"(grad: R<T>, input: R<T>, weight: R<T>, bias_sizes: Opt<Ints>, stride: Ints, padding: Ints, dilation: Ints, transposed: bool, output_padding: Ints, groups: i64, output_mask: [bool; 3]) -> (T, T, T);
    convolution = "convolution"(input: R<T>, weight: R<T>, bias: Opt<R<T>>, stride: Ints, padding: Ints, dilation: Ints, transposed: bool, output_padding: Ints, groups: i64) -> T;
    convolution_full = "_convolution"(input: R<T>, weight: R<T>, bias: Opt<R<T>>, stride: Ints, padding: Ints, dilation: Ints, transposed: bool, output_padding: Ints, groups: i64, benchmark: bool, deterministic: bool, cudnn_enabled: bool, allow_tf32: bool) -> T;
    grouped_mm = "_grouped_mm"(a: R<T>, b: R<T>, offs: Opt<R<T>>, bias: Opt<R<T>>, out_dtype: Opt<ScalarType>) -> T;
    ormqr = "ormqr"(a: R<T>, input2: R<T>, input3: R<T>, left: bool, transpose: bool) -> T;
    detach = "detach"(a: R<T>) -> T;
    is_coalesced = "is_coalesced"(a: R<T>) -> bool;
    nnz = "_nnz"(a: R<T>) -> i64;
    coalesce = "coalesce"(a: R<T>) -> T;
    sparse_mask = "sparse_mask"(a: R<T>, mask: R<T>) -> T;
    sparse_mask_projection = "_sparse_mask_projection"(a: R<T>, mask: R<T>, accumulate_matches: bool) -> T;
    sparse_sparse_matmul = "_sparse_sparse_matmul"(a: R<T>, b: R<T>) -> T;
    sparse_sampled_addmm = "sparse_sampled_addmm"(a: R<T>, mat1: R<T>, mat2: R<T>, beta: Scalar, alpha: Scalar) -> T;
    sparse_coo_tensor_unsafe_parts = "_sparse_coo_tensor_unsafe"(indices: R<T>, values: R<T>, size: Ints, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>, is_coalesced: Opt<bool>) -> T;
    sparse_compressed_tensor_unsafe_parts = "_sparse_compressed_tensor_unsafe"(compressed: R<T>, plain: R<T>, values: R<T>, size: Ints, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>) -> T;
    indices = "indices"(a: R<T>) -> T;
    values = "values"(a: R<T>) -> T;
    crow_indices = "crow_indices"(a: R<T>) -> T;
    col_indices = "col_indices"(a: R<T>) -> T;
    ccol_indices = "ccol_indices"(a: R<T>) -> T;
    row_indices = "row_indices"(a: R<T>) -> T;
    linear = "linear"(input: R<T>, weight: R<T>, bias: Opt<R<T>>) -> T;
    unsafe_chunk = "unsafe_chunk"(a: R<T>, chunks: i64, dim: i64) -> Vec<T>;
    trilinear = "_trilinear"(i1: R<T>, i2: R<T>, i3: R<T>, expand1: Ints, expand2: Ints, expand3: Ints, sumdim: Ints, unroll_dim: i64) -> T;
    special_bessel_j0 = "special_bessel_j0"(a: R<T>) -> T;
    special_bessel_y0 = "special_bessel_y0"(a: R<T>) -> T;
    block_diag = "block_diag"(tensors: Tensors<T>) -> T;
    to_padded_tensor = "to_padded_tensor"(a: R<T>, padding: f64, output_size: Opt<Ints>) -> T;
    nested_tensor_from_tensor_list = "_nested_tensor_from_tensor_list"(list: Tensors<T>, dtype: Opt<ScalarType>, layout: Opt<Layout>, device: Opt<Device>, pin: Opt<bool>) -> T;
    local_scalar_dense = "_local_scalar_dense"(a: R<T>) -> Scalar;
    chunk = "chunk"(a: R<T>, chunks: i64, dim: i64) -> Vec<T>;
    linalg_eigh = "linalg_eigh"(a: R<T>, uplo: &'static str) -> (T, T);
}

// C++'s operators on tensors and the factories with `TensorOptions`.

/// `a + b`.
pub(crate) fn add<T: Tensor>(a: &T, b: &T) -> Result<T, Error> {
    add_tensor(a, b, Scalar::Int(1))
}

/// `a + s`.
pub(crate) fn add_s<T: Tensor>(a: &T, s: impl Into<Scalar>) -> Result<T, Error> {
    add_scalar(a, s.into(), Scalar::Int(1))
}

/// `a - b`.
pub(crate) fn sub<T: Tensor>(a: &T, b: &T) -> Result<T, Error> {
    sub_tensor(a, b, Scalar::Int(1))
}

/// `a - s`.
pub(crate) fn sub_s<T: Tensor>(a: &T, s: impl Into<Scalar>) -> Result<T, Error> {
    sub_scalar(a, s.into(), Scalar::Int(1))
}

/// `s - a`.
pub(crate) fn rsub_s<T: Tensor>(s: impl Into<Scalar>, a: &T) -> Result<T, Error> {
    rsub_scalar(a, s.into(), Scalar::Int(1))
}

/// `a * s` for any number.
pub(crate) fn mul_n<T: Tensor>(a: &T, s: impl Into<Scalar>) -> Result<T, Error> {
    mul_s(a, s.into())
}

/// `a / s` for any number.
pub(crate) fn div_n<T: Tensor>(a: &T, s: impl Into<Scalar>) -> Result<T, Error> {
    div_s(a, s.into())
}

/// `t.sum(dim, keepdim)`.
pub(crate) fn sum_dim<T: Tensor>(a: &T, dim: &[i64], keepdim: bool) -> Result<T, Error> {
    sum_dims(a, Some(dim), keepdim, None)
}

/// `t.sum()`.
pub(crate) fn sum<T: Tensor>(a: &T) -> Result<T, Error> {
    sum_all(a, None)
}

/// `t.mean(dim, keepdim)`.
pub(crate) fn mean_dim<T: Tensor>(a: &T, dim: &[i64], keepdim: bool) -> Result<T, Error> {
    mean_dims(a, Some(dim), keepdim, None)
}

/// `t.expand(size)`.
pub(crate) fn expand<T: Tensor>(a: &T, size: &[i64]) -> Result<T, Error> {
    expand_(a, size, false)
}

/// `t.to(dtype)`.
pub(crate) fn to<T: Tensor>(a: &T, dtype: ScalarType) -> Result<T, Error> {
    to_dtype(a, dtype, false, false, None)
}

/// `t.squeeze(dim)`.
pub(crate) fn squeeze<T: Tensor>(a: &T, dim: i64) -> Result<T, Error> {
    squeeze_dim(a, dim)
}

/// `t.diagonal(0, -2, -1)`: the diagonals of a batch of matrices.
pub(crate) fn diag<T: Tensor>(a: &T) -> Result<T, Error> {
    diagonal(a, 0, -2, -1)
}

/// `at::diag_embed(t)`: vectors into diagonal matrices.
pub(crate) fn embed_diag<T: Tensor>(a: &T) -> Result<T, Error> {
    diag_embed(a, 0, -2, -1)
}

/// `at::zeros(size, options)`.
pub(crate) fn zeros_o<T: Tensor>(size: &[i64], o: TensorOptions) -> Result<T, Error> {
    let (dtype, layout, device, pin) = o.into_parts();
    zeros_parts(size, dtype, layout, device, pin)
}

/// `at::ones(size, options)`.
pub(crate) fn ones_o<T: Tensor>(size: &[i64], o: TensorOptions) -> Result<T, Error> {
    let (dtype, layout, device, pin) = o.into_parts();
    ones_parts(size, dtype, layout, device, pin)
}

/// `at::scalar_tensor(s, options)`.
pub(crate) fn scalar_tensor<T: Tensor>(s: impl Into<Scalar>, o: TensorOptions) -> Result<T, Error> {
    let (dtype, layout, device, pin) = o.into_parts();
    scalar_tensor_parts(s.into(), dtype, layout, device, pin)
}

/// `at::arange(start, end, step, options)`.
pub(crate) fn arange<T: Tensor>(
    start: impl Into<Scalar>,
    end: impl Into<Scalar>,
    step: impl Into<Scalar>,
    o: TensorOptions,
) -> Result<T, Error> {
    let (dtype, layout, device, pin) = o.into_parts();
    arange_parts(
        start.into(),
        end.into(),
        step.into(),
        dtype,
        layout,
        device,
        pin,
    )
}

/// `at::zeros_like(t)`.
pub(crate) fn zeros_like<T: Tensor>(a: &T) -> Result<T, Error> {
    zeros_like_parts(a, None, None, None, None, None)
}

/// `at::zeros_like(t, options)`.
pub(crate) fn zeros_like_o<T: Tensor>(a: &T, o: TensorOptions) -> Result<T, Error> {
    let (dtype, layout, device, pin) = o.into_parts();
    zeros_like_parts(a, dtype, layout, device, pin, None)
}

/// `at::ones_like(t)`.
pub(crate) fn ones_like<T: Tensor>(a: &T) -> Result<T, Error> {
    ones_like_parts(a, None, None, None, None, None)
}

/// `at::empty_like(t, options)`.
pub(crate) fn empty_like_o<T: Tensor>(a: &T, o: TensorOptions) -> Result<T, Error> {
    let (dtype, layout, device, pin) = o.into_parts();
    empty_like_parts(a, dtype, layout, device, pin, None)
}

/// `t.new_zeros(size)`.
pub(crate) fn new_zeros<T: Tensor>(a: &T, size: &[i64]) -> Result<T, Error> {
    new_zeros_parts(a, size, None, None, None, None)
}

/// `at::_efficientzerotensor(size, options)`.
pub(crate) fn efficientzerotensor<T: Tensor>(size: &[i64], o: TensorOptions) -> Result<T, Error> {
    let (dtype, layout, device, pin) = o.into_parts();
    efficientzerotensor_parts(size, dtype, layout, device, pin)
}

/// `t.to(options)` (`aten::_to_copy`, as `Tensor::to` with `copy=false` does when something
/// changes; the tensor itself when nothing would).
pub(crate) fn to_options<T: Tensor>(a: &T, o: TensorOptions) -> Result<T, Error> {
    let current = a.options()?;
    let same = o.dtype.is_none_or(|d| Some(d) == current.dtype)
        && o.layout.is_none_or(|l| Some(l) == current.layout)
        && o.device.is_none_or(|d| Some(d) == current.device);
    if same {
        return Ok(a.clone());
    }
    let (dtype, layout, device, pin) = o.into_parts();
    to_copy_parts(a, dtype, layout, device, pin, false, None)
}
