//! Structured operators on [`DenseTensor`], in the namespace `st`: each group is one meta
//! function and one CPU impl on the out operator, with functional and in-place delegates
//! (docs/STRUCTURED.md). A `PrivateUse1` backend has only functional kernels of `neg`,
//! whose out and in-place variants the runtime derives.

use opgen::prelude::*;
use opgen::structured::StructuredMeta;

use crate::{DenseTensor, broadcast_shapes, numel};

fn shape_error(message: String) -> Error {
    Error::from(message)
}

/// `self + alpha * other`, broadcasting.
#[native_function(
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    structured,
    namespace = "st"
)]
pub fn add_meta(
    meta: &mut StructuredMeta<'_, DenseTensor>,
    self_: &DenseTensor,
    other: &DenseTensor,
    alpha: Scalar,
) -> Result<(), Error> {
    let _ = alpha;
    let sizes = broadcast_shapes(&self_.sizes()?, &other.sizes()?).map_err(shape_error)?;
    meta.set_output(0, &sizes, self_.options()?)
}

/// The CPU impl of `st::add.out`.
#[native_function(op = "st::add.out", structured, dispatch = "CPU")]
pub fn add_out_cpu(
    self_: &DenseTensor,
    other: &DenseTensor,
    alpha: Scalar,
    out: &mut DenseTensor,
) -> Result<(), Error> {
    let alpha = alpha.to_f64();
    let (a, b) = (self_.values(), other.values());
    let n = numel(&out.shape());
    let at = |v: &[f64], i: usize| v.get(if v.len() == 1 { 0 } else { i }).copied();
    let values = (0..n)
        .map(|i| Some(at(&a, i)? + alpha * at(&b, i)?))
        .collect::<Option<Vec<f64>>>()
        .ok_or("add: only equal shapes or one-element operands")?;
    out.set_values(values)
}

/// The functional and in-place delegates of `st::add.out`.
#[native_function(
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    structured_delegate = "add.out",
    namespace = "st",
    variants = "function, method",
    methods = "trait StAdd",
    tensor = "DenseTensor"
)]
#[native_function(
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    structured_delegate = "add.out",
    namespace = "st"
)]
pub fn add();

/// `|self|`.
#[native_function(
    "abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    namespace = "st"
)]
#[native_function(
    "abs(Tensor self) -> Tensor",
    structured_delegate = "abs.out",
    namespace = "st"
)]
#[native_function(
    "abs_(Tensor(a!) self) -> Tensor(a!)",
    structured_delegate = "abs.out",
    namespace = "st"
)]
pub fn abs_meta(
    meta: &mut StructuredMeta<'_, DenseTensor>,
    self_: &DenseTensor,
) -> Result<(), Error> {
    meta.set_output(0, &self_.sizes()?, self_.options()?)
}

/// The CPU impl of `st::abs.out`.
#[native_function(op = "st::abs.out", structured, dispatch = "CPU")]
pub fn abs_out_cpu(self_: &DenseTensor, out: &mut DenseTensor) -> Result<(), Error> {
    out.set_values(self_.values().iter().map(|v| v.abs()).collect())
}

/// The sum over `dim` (all dimensions when `None`), keeping reduced dimensions with
/// `keepdim`, in `dtype` (default: `self`'s, `Long` for integral inputs). Meta normalizes
/// the dimensions and hands them to the impl (`precomputed`).
#[native_function(
    "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
    structured,
    precomputed = "dim -> int[] dims; int reduced",
    namespace = "st"
)]
pub fn sum_meta(
    meta: &mut StructuredMeta<'_, DenseTensor>,
    self_: &DenseTensor,
    dim: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<ScalarType>,
) -> Result<SumIntListOutPrecompute, Error> {
    let sizes = self_.sizes()?;
    let rank = sizes.len() as i64;
    let mut dims: Vec<i64> = match dim {
        None | Some([]) => (0..rank).collect(),
        Some(dims) => dims
            .iter()
            .map(|&d| {
                let wrapped = if d < 0 { d + rank } else { d };
                if (0..rank.max(1)).contains(&wrapped) {
                    Ok(wrapped)
                } else {
                    Err(Error::from(format!(
                        "Dimension out of range (expected to be in range of [{}, {}], but got {d})",
                        -rank.max(1),
                        rank.max(1) - 1
                    )))
                }
            })
            .collect::<Result<_, _>>()?,
    };
    dims.sort_unstable();
    dims.dedup();
    let mut out_sizes = Vec::new();
    let mut reduced = 1;
    for (i, &s) in sizes.iter().enumerate() {
        if dims.contains(&(i as i64)) {
            reduced *= s;
            if keepdim {
                out_sizes.push(1);
            }
        } else {
            out_sizes.push(s);
        }
    }
    let input = self_.options()?;
    let default = if crate::dense::is_integral(self_.dtype()) {
        ScalarType::Long
    } else {
        input.dtype_or_default()
    };
    meta.set_output(0, &out_sizes, input.dtype(dtype.unwrap_or(default)))?;
    Ok(SumIntListOutPrecompute { dims, reduced })
}

/// The CPU impl of `st::sum.IntList_out`: receives the normalized `dims` instead of `dim`.
#[native_function(op = "st::sum.IntList_out", structured, dispatch = "CPU")]
pub fn sum_out_cpu(
    self_: &DenseTensor,
    dims: &[i64],
    keepdim: bool,
    dtype: Option<ScalarType>,
    reduced: i64,
    out: &mut DenseTensor,
) -> Result<(), Error> {
    let _ = (keepdim, dtype, reduced);
    let sizes = self_.sizes()?;
    let values = self_.values();
    let strides = crate::dense::contiguous_strides(&sizes);
    let kept: Vec<usize> = (0..sizes.len())
        .filter(|i| !dims.contains(&(*i as i64)))
        .collect();
    let mut sums = vec![0.0; numel(&out.shape()).max(1)];
    for (flat, v) in values.iter().enumerate() {
        // The output index: the kept coordinates, row-major.
        let mut index = 0usize;
        for &k in &kept {
            let coord = (flat as i64 / strides[k]) % sizes[k];
            index = index * sizes[k] as usize + coord as usize;
        }
        sums[index] += v;
    }
    sums.truncate(numel(&out.shape()));
    out.set_values(sums)
}

/// The functional delegate of `st::sum.IntList_out`.
#[native_function(
    "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    structured_delegate = "sum.IntList_out",
    namespace = "st"
)]
pub fn sum();

/// The maximum over `dim` and its index (`Long`), two outputs.
#[native_function(
    "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
    structured,
    namespace = "st"
)]
#[native_function(
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    structured_delegate = "max.dim_max",
    namespace = "st"
)]
pub fn max_meta(
    meta: &mut StructuredMeta<'_, DenseTensor>,
    self_: &DenseTensor,
    dim: i64,
    keepdim: bool,
) -> Result<(), Error> {
    let sizes = self_.sizes()?;
    let d = dim_index(dim, sizes.len())?;
    let mut out = sizes.clone();
    if keepdim {
        out[d] = 1;
    } else {
        out.remove(d);
    }
    let options = self_.options()?;
    meta.set_output(0, &out, options)?;
    meta.set_output(1, &out, options.dtype(ScalarType::Long))
}

fn dim_index(dim: i64, rank: usize) -> Result<usize, Error> {
    let rank = rank as i64;
    let wrapped = if dim < 0 { dim + rank } else { dim };
    if (0..rank).contains(&wrapped) {
        Ok(wrapped as usize)
    } else {
        Err(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -rank,
            rank - 1
        )
        .into())
    }
}

/// The CPU impl of `st::max.dim_max`.
#[native_function(op = "st::max.dim_max", structured, dispatch = "CPU")]
pub fn max_out_cpu(
    self_: &DenseTensor,
    dim: i64,
    keepdim: bool,
    max: &mut DenseTensor,
    max_values: &mut DenseTensor,
) -> Result<(), Error> {
    let _ = keepdim;
    let sizes = self_.sizes()?;
    let d = dim_index(dim, sizes.len())?;
    let values = self_.values();
    let inner: i64 = sizes[d + 1..].iter().product();
    let outer: i64 = sizes[..d].iter().product();
    let (mut best, mut index) = (Vec::new(), Vec::new());
    for o in 0..outer {
        for i in 0..inner {
            let mut arg = 0;
            let mut m = f64::NEG_INFINITY;
            for k in 0..sizes[d] {
                let v = values[((o * sizes[d] + k) * inner + i) as usize];
                if v > m {
                    (m, arg) = (v, k);
                }
            }
            best.push(m);
            index.push(arg as f64);
        }
    }
    max.set_values(best)?;
    max_values.set_values(index)
}

/// `-self` on `PrivateUse1`: only the functional kernel, so the runtime derives `neg.out`
/// (copy and resize) and `neg_` (copy, never resize) there, and the in-place-on-Meta short
/// circuit for `neg_`.
#[native_function(
    "neg(Tensor self) -> Tensor",
    dispatch = "PrivateUse1",
    namespace = "st"
)]
pub fn neg_private(self_: &DenseTensor) -> Result<DenseTensor, Error> {
    let out = DenseTensor::new(
        DispatchKey::PrivateUse1,
        self_.dtype(),
        &self_.shape(),
        &self_.values().iter().map(|v| -v).collect::<Vec<_>>(),
    );
    Ok(out)
}

/// `neg.out`, defined without kernels.
#[native_function(
    "neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
    manual_kernel_registration = true,
    namespace = "st"
)]
pub fn neg_out_unused(self_: &DenseTensor, out: &mut DenseTensor) -> DenseTensor {
    let _ = self_;
    out.clone()
}

/// `neg_`, defined without kernels.
#[native_function(
    "neg_(Tensor(a!) self) -> Tensor(a!)",
    manual_kernel_registration = true,
    namespace = "st"
)]
pub fn neg_inplace_unused(self_: &mut DenseTensor) -> DenseTensor {
    self_.clone()
}

/// The meta step's base of `st::mul.out` (`structured_inherits`), as `TensorIteratorBase`
/// is for PyTorch's pointwise operators: it learns about every output `set_output` makes,
/// and the impl reads what it learnt.
#[derive(Default, Debug)]
pub struct Elementwise {
    /// The shape of each output, in the order they were set.
    pub outputs: Vec<Vec<i64>>,
}

impl opgen::structured::MetaBase<DenseTensor> for Elementwise {
    fn on_output(&mut self, index: usize, output: &DenseTensor) -> Result<(), Error> {
        if index != self.outputs.len() {
            return Err(Error::from(format!("output {index} set out of order")));
        }
        self.outputs.push(output.sizes()?);
        Ok(())
    }
}

/// `self * other`, broadcasting; the meta step has a custom base (`structured_inherits`).
#[native_function(
    "mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    structured_inherits = "Elementwise",
    namespace = "st"
)]
#[native_function(
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    structured_delegate = "mul.out",
    namespace = "st"
)]
#[native_function(
    "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    structured_delegate = "mul.out",
    namespace = "st"
)]
pub fn mul_meta(
    meta: &mut StructuredMeta<'_, DenseTensor, Elementwise>,
    self_: &DenseTensor,
    other: &DenseTensor,
) -> Result<(), Error> {
    let sizes = broadcast_shapes(&self_.sizes()?, &other.sizes()?).map_err(shape_error)?;
    meta.set_output(0, &sizes, self_.options()?)
}

/// The CPU impl of `st::mul.out`: the output's shape comes from the base.
#[native_function(op = "st::mul.out", structured, dispatch = "CPU")]
pub fn mul_out_cpu(
    base: &Elementwise,
    self_: &DenseTensor,
    other: &DenseTensor,
    out: &mut DenseTensor,
) -> Result<(), Error> {
    let [shape] = base.outputs.as_slice() else {
        return Err(Error::from("the base did not see exactly one output"));
    };
    let n = numel(shape);
    let (a, b) = (self_.values(), other.values());
    let at = |v: &[f64], i: usize| v.get(if v.len() == 1 { 0 } else { i }).copied();
    let values = (0..n)
        .map(|i| Some(at(&a, i)? * at(&b, i)?))
        .collect::<Option<Vec<f64>>>()
        .ok_or("mul: only equal shapes or one-element operands")?;
    out.set_values(values)
}

/// `self - other`: structured, with `CompositeExplicitAutograd` functional and in-place
/// kernels derived from the out operator (`composite_from_out`), so a backend with only an
/// out kernel (here `PrivateUse1`, unstructured) serves all three.
#[native_function(
    "sub.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    namespace = "st"
)]
#[native_function(
    "sub.Tensor(Tensor self, Tensor other) -> Tensor",
    structured_delegate = "sub.out",
    composite_from_out,
    namespace = "st"
)]
#[native_function(
    "sub_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
    structured_delegate = "sub.out",
    composite_from_out,
    namespace = "st"
)]
pub fn sub_meta(
    meta: &mut StructuredMeta<'_, DenseTensor>,
    self_: &DenseTensor,
    other: &DenseTensor,
) -> Result<(), Error> {
    let sizes = broadcast_shapes(&self_.sizes()?, &other.sizes()?).map_err(shape_error)?;
    meta.set_output(0, &sizes, self_.options()?)
}

/// An ordinary (unstructured) out kernel of `st::sub.out` on `PrivateUse1`.
#[native_function(op = "st::sub.out", dispatch = "PrivateUse1")]
pub fn sub_out_privateuse1(
    self_: &DenseTensor,
    other: &DenseTensor,
    out: &mut DenseTensor,
) -> Result<DenseTensor, Error> {
    let values: Vec<f64> = self_
        .values()
        .iter()
        .zip(other.values())
        .map(|(a, b)| a - b)
        .collect();
    if out.shape() != self_.shape() {
        out.resize_(&self_.shape())?;
    }
    out.set_values(values)?;
    Ok(out.clone())
}
