//! The dtypes [`MiniTensor`] supports and PyTorch's type promotion over
//! them (`torch.result_type`), including the lower priority of zero-dim tensors and of
//! `Scalar` arguments ("wrapped numbers").

use opgen::prelude::*;

use crate::MiniTensor;

/// The dtypes a [`MiniTensor`] can hold, in promotion order.
pub const SUPPORTED: [ScalarType; 4] = [
    ScalarType::Bool,
    ScalarType::Long,
    ScalarType::Float,
    ScalarType::Double,
];

/// PyTorch's default floating-point dtype.
pub const DEFAULT_FLOAT: ScalarType = ScalarType::Float;

/// `dtype`, if a [`MiniTensor`] can hold it; else an error naming the
/// supported ones.
pub fn check_supported(dtype: ScalarType) -> Result<ScalarType, Error> {
    if SUPPORTED.contains(&dtype) {
        Ok(dtype)
    } else {
        Err(Error::from(format!(
            "MiniTensor supports the dtypes Bool, Long, Float and Double; got {dtype}"
        )))
    }
}

/// Whether `dtype` is a floating-point type.
pub fn is_floating(dtype: ScalarType) -> bool {
    matches!(dtype, ScalarType::Float | ScalarType::Double)
}

/// Whether `dtype` is an integer type or `Bool`.
pub fn is_integral_or_bool(dtype: ScalarType) -> bool {
    matches!(dtype, ScalarType::Long | ScalarType::Bool)
}

fn rank(dtype: ScalarType) -> usize {
    SUPPORTED.iter().position(|&d| d == dtype).unwrap_or(0)
}

/// The smallest supported dtype both `a` and `b` convert to (`torch.promote_types`).
pub fn promote_types(a: ScalarType, b: ScalarType) -> ScalarType {
    if rank(a) >= rank(b) { a } else { b }
}

/// Whether a value of dtype `from` may be written into a tensor of dtype `to` by an
/// operator (`torch.can_cast`): no floating point into integers, nothing but `Bool` into
/// `Bool`.
pub fn can_cast(from: ScalarType, to: ScalarType) -> bool {
    !(is_floating(from) && !is_floating(to) || from != ScalarType::Bool && to == ScalarType::Bool)
}

/// The error of an operator whose result cannot be written into its output.
pub fn cast_error(from: ScalarType, to: ScalarType) -> Error {
    Error::from(format!(
        "result type {from} can't be cast to the desired output type {to}"
    ))
}

/// The dtype of a `Scalar` argument taken on its own: `Bool`, `Long` or `Double`.
pub fn scalar_dtype(value: Scalar) -> Result<ScalarType, Error> {
    match value {
        Scalar::Bool(_) => Ok(ScalarType::Bool),
        Scalar::Int(_) => Ok(ScalarType::Long),
        Scalar::Float(_) => Ok(ScalarType::Double),
        Scalar::Complex(_) => Err(Error::from(
            "MiniTensor has no complex dtype; a complex Scalar is not supported",
        )),
    }
}

/// Accumulates the operands of an operator and gives its result dtype, as PyTorch's
/// `ResultTypeState`: tensors with dimensions take precedence over zero-dim tensors, which
/// take precedence over `Scalar` arguments, except that a lower class of a higher
/// category (bool < integer < floating) promotes the result to its category.
///
/// ```
/// use opgen::prelude::*;
/// use opgen_example::{MiniTensor, promote::ResultType};
/// # fn main() -> Result<(), Error> {
/// let longs = MiniTensor::from_vec(vec![1i64, 2], &[2])?;
/// // A float Scalar makes an integer tensor's result Float (the default dtype).
/// let dtype = ResultType::new().tensor(&longs).scalar(Scalar::Float(0.5))?.finish()?;
/// assert_eq!(dtype, ScalarType::Float);
/// // A zero-dim Double tensor does not widen a Float tensor.
/// let floats = MiniTensor::from_vec(vec![1.0f32], &[1])?;
/// let zero_dim = MiniTensor::scalar(2.0f64);
/// let dtype = ResultType::new().tensor(&floats).tensor(&zero_dim).finish()?;
/// assert_eq!(dtype, ScalarType::Float);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResultType {
    dim: Option<ScalarType>,
    zero_dim: Option<ScalarType>,
    wrapped: Option<ScalarType>,
}

fn promote_opt(a: Option<ScalarType>, b: ScalarType) -> Option<ScalarType> {
    Some(a.map_or(b, |a| promote_types(a, b)))
}

/// c10's `combine_categories`.
fn combine(higher: Option<ScalarType>, lower: Option<ScalarType>) -> Option<ScalarType> {
    match (higher, lower) {
        (Some(h), _) if is_floating(h) => Some(h),
        (Some(h), Some(l)) if h == ScalarType::Bool || is_floating(l) => Some(promote_types(h, l)),
        (Some(h), _) => Some(h),
        (None, l) => l,
    }
}

impl ResultType {
    /// No operand yet.
    pub fn new() -> ResultType {
        ResultType::default()
    }

    /// Adds a tensor operand.
    pub fn tensor(mut self, t: &MiniTensor) -> ResultType {
        if t.dim() == 0 {
            self.zero_dim = promote_opt(self.zero_dim, t.dtype());
        } else {
            self.dim = promote_opt(self.dim, t.dtype());
        }
        self
    }

    /// Adds a `Scalar` operand (a wrapped number: a float counts as the default dtype).
    pub fn scalar(mut self, value: Scalar) -> Result<ResultType, Error> {
        let mut dtype = scalar_dtype(value)?;
        if is_floating(dtype) {
            dtype = DEFAULT_FLOAT;
        }
        self.wrapped = promote_opt(self.wrapped, dtype);
        Ok(self)
    }

    /// The result dtype; an error when no operand was added.
    pub fn finish(self) -> Result<ScalarType, Error> {
        combine(self.dim, combine(self.zero_dim, self.wrapped))
            .ok_or_else(|| Error::from("result_type: no operands"))
    }
}

/// The result dtype of `tensors` and `scalars` together ([`ResultType`]).
pub fn result_type(tensors: &[&MiniTensor], scalars: &[Scalar]) -> Result<ScalarType, Error> {
    let mut state = ResultType::new();
    for t in tensors {
        state = state.tensor(t);
    }
    for &s in scalars {
        state = state.scalar(s)?;
    }
    state.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarType::{Bool, Double, Float, Long};

    fn t(dtype: ScalarType, sizes: &[i64]) -> MiniTensor {
        MiniTensor::meta(sizes, dtype).unwrap()
    }

    #[test]
    fn promotion_table() {
        assert_eq!(promote_types(Bool, Long), Long);
        assert_eq!(promote_types(Long, Float), Float);
        assert_eq!(promote_types(Double, Float), Double);
        assert!(can_cast(Long, Double) && can_cast(Bool, Long) && can_cast(Double, Float));
        assert!(!can_cast(Float, Long) && !can_cast(Long, Bool));
    }

    #[test]
    fn categories_of_zero_dim_tensors_and_scalars() {
        let r = |ts: &[&MiniTensor], ss: &[Scalar]| result_type(ts, ss).unwrap();
        let (f, d, l, b) = (
            t(Float, &[2]),
            t(Double, &[2]),
            t(Long, &[2]),
            t(Bool, &[2]),
        );
        let (d0, l0) = (t(Double, &[]), t(Long, &[]));
        assert_eq!(r(&[&f, &d], &[]), Double);
        assert_eq!(r(&[&f, &d0], &[]), Float);
        assert_eq!(r(&[&l, &d0], &[]), Double);
        assert_eq!(r(&[&b, &l0], &[]), Long);
        assert_eq!(r(&[&l], &[Scalar::Float(2.5)]), Float);
        assert_eq!(r(&[&d], &[Scalar::Float(2.5)]), Double);
        assert_eq!(r(&[&b], &[Scalar::Int(1)]), Long);
        assert_eq!(r(&[&b], &[Scalar::Bool(true)]), Bool);
        assert_eq!(r(&[&l], &[Scalar::Int(1)]), Long);
        assert_eq!(r(&[&d0], &[Scalar::Float(1.0)]), Double);
        assert_eq!(r(&[&l0], &[Scalar::Float(1.0)]), Float);
        assert!(result_type(&[], &[]).is_err());
        assert!(scalar_dtype(Scalar::Complex(Default::default())).is_err());
        assert!(
            check_supported(ScalarType::Half)
                .unwrap_err()
                .to_string()
                .contains("got Half")
        );
    }
}
