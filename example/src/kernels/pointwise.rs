//! Pointwise operators: arithmetic (`add`, `sub`, `mul`, `div` with a tensor or a `Scalar`
//! operand), unary operators (`neg`, `abs`, `relu`, `exp`), `clamp`, the comparisons
//! (`eq`, `lt`, `gt`) and `where`. Operands broadcast and promote by PyTorch's rules.
//!
//! Structured in PyTorch (meta + impl below): `add.out`, `sub.out`, `mul.out`, `div.out`,
//! `neg.out`, `exp.out`, `clamp.out`, `eq/lt/gt.Tensor_out` and `.Scalar_out`.
//! Not structured: `abs.out` (a CPU kernel), `relu` (CPU), `where.self` (CPU), and the
//! `Scalar` overloads of the arithmetic operators (CompositeExplicitAutograd).

use std::cmp::Ordering;

use opgen::prelude::*;

use super::{Num, OutputMeta, common_device, with_dtype, with_numeric};
use crate::promote::{DEFAULT_FLOAT, ResultType, is_floating, is_integral_or_bool};
use crate::shape::{broadcast_shapes, numel};
use crate::{Element, MiniTensor};

/// The second operand of a binary operator: a tensor, or a `Scalar` (a wrapped number).
#[derive(Debug, Clone, Copy)]
pub enum Operand<'a> {
    /// A tensor.
    Tensor(&'a MiniTensor),
    /// A `Scalar` argument.
    Scalar(Scalar),
}

impl Operand<'_> {
    fn add_to(self, state: ResultType) -> Result<ResultType, Error> {
        match self {
            Operand::Tensor(t) => Ok(state.tensor(t)),
            Operand::Scalar(s) => state.scalar(s),
        }
    }

    fn is_bool(self) -> bool {
        match self {
            Operand::Tensor(t) => t.dtype() == ScalarType::Bool,
            Operand::Scalar(s) => matches!(s, Scalar::Bool(_)),
        }
    }

    fn sizes(self) -> Vec<i64> {
        match self {
            Operand::Tensor(t) => t.shape(),
            Operand::Scalar(_) => Vec::new(),
        }
    }

    fn broadcast_values<E: Element>(self, shape: &[i64]) -> Result<Vec<E>, Error> {
        match self {
            Operand::Tensor(t) => t.broadcast_values(shape),
            Operand::Scalar(s) => Ok(vec![E::from_scalar(s); numel(shape) as usize]),
        }
    }
}

/// The binary arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    /// `self + alpha * other`.
    Add,
    /// `self - alpha * other`.
    Sub,
    /// `self * other`.
    Mul,
    /// `self / other` (true division).
    Div,
}

/// The dtype a binary arithmetic operator computes in (its result dtype), after PyTorch's
/// checks on bool operands and `alpha`.
fn arith_dtype(
    op: Arith,
    self_: &MiniTensor,
    other: Operand<'_>,
    alpha: Option<Scalar>,
) -> Result<ScalarType, Error> {
    let common = other.add_to(ResultType::new().tensor(self_))?.finish()?;
    if op == Arith::Sub && (self_.dtype() == ScalarType::Bool || other.is_bool()) {
        return Err(Error::from(
            if self_.dtype() == ScalarType::Bool && other.is_bool() {
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the \
                 `^` or `logical_xor()` operator instead."
            } else {
                "Subtraction, the `-` operator, with a bool tensor is not supported. If you are \
                 trying to invert a mask, use the `~` or `logical_not()` operator instead."
            },
        ));
    }
    if let Some(alpha) = alpha {
        if matches!(alpha, Scalar::Bool(_)) && common != ScalarType::Bool {
            return Err(Error::from(
                "Boolean alpha only supported for Boolean results.",
            ));
        }
        if !is_floating(common) && matches!(alpha, Scalar::Float(_) | Scalar::Complex(_)) {
            return Err(Error::from(
                "For integral input tensors, argument alpha must not be a floating point number.",
            ));
        }
    }
    Ok(match op {
        Arith::Div if is_integral_or_bool(common) => DEFAULT_FLOAT,
        _ => common,
    })
}

/// The meta of a binary arithmetic operator: the broadcast shape, the result dtype, the
/// common device.
pub fn arith_meta(
    op: Arith,
    self_: &MiniTensor,
    other: Operand<'_>,
    alpha: Option<Scalar>,
) -> Result<OutputMeta, Error> {
    let dtype = arith_dtype(op, self_, other, alpha)?;
    let sizes = broadcast_shapes(&self_.shape(), &other.sizes())?;
    let device = match other {
        Operand::Tensor(t) => common_device(&[self_, t])?,
        Operand::Scalar(_) => self_.device(),
    };
    Ok(OutputMeta::new(sizes, dtype, device))
}

/// The impl of a binary arithmetic operator: computes into `out` (whose shape is the
/// broadcast shape), converting to `out`'s dtype.
pub fn arith_impl(
    op: Arith,
    self_: &MiniTensor,
    other: Operand<'_>,
    alpha: Option<Scalar>,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let dtype = arith_dtype(op, self_, other, alpha)?;
    let shape = out.shape();
    let alpha = alpha.unwrap_or(Scalar::Int(1));
    with_numeric!(dtype, |E| {
        let a: Vec<E> = self_.broadcast_values(&shape)?;
        let b: Vec<E> = other.broadcast_values(&shape)?;
        let alpha = E::from_scalar(alpha);
        let f = |x: E, y: E| match op {
            Arith::Add => x.add(alpha.mul(y)),
            Arith::Sub => x.sub(alpha.mul(y)),
            Arith::Mul => x.mul(y),
            Arith::Div => x.div(y),
        };
        out.scatter(&a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect::<Vec<E>>())
    }, bool => {
        // Bool results: `+` is "or" (with a bool alpha), `*` is "and".
        let a: Vec<bool> = self_.broadcast_values(&shape)?;
        let b: Vec<bool> = other.broadcast_values(&shape)?;
        let alpha = bool::from_scalar(alpha);
        let f = |x: bool, y: bool| match op {
            Arith::Mul => x && y,
            _ => x || (alpha && y),
        };
        out.scatter(&a.iter().zip(&b).map(|(&x, &y)| f(x, y)).collect::<Vec<bool>>())
    })
}

/// `add.out`'s meta (structured in PyTorch).
pub fn add_meta(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
) -> Result<OutputMeta, Error> {
    arith_meta(Arith::Add, self_, Operand::Tensor(other), Some(alpha))
}

/// `add.out`'s impl (structured in PyTorch).
pub fn add_impl(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    arith_impl(Arith::Add, self_, Operand::Tensor(other), Some(alpha), out)
}

/// `sub.out`'s meta (structured in PyTorch).
pub fn sub_meta(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
) -> Result<OutputMeta, Error> {
    arith_meta(Arith::Sub, self_, Operand::Tensor(other), Some(alpha))
}

/// `sub.out`'s impl (structured in PyTorch).
pub fn sub_impl(
    self_: &MiniTensor,
    other: &MiniTensor,
    alpha: Scalar,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    arith_impl(Arith::Sub, self_, Operand::Tensor(other), Some(alpha), out)
}

/// `mul.out`'s meta (structured in PyTorch).
pub fn mul_meta(self_: &MiniTensor, other: &MiniTensor) -> Result<OutputMeta, Error> {
    arith_meta(Arith::Mul, self_, Operand::Tensor(other), None)
}

/// `mul.out`'s impl (structured in PyTorch).
pub fn mul_impl(self_: &MiniTensor, other: &MiniTensor, out: &mut MiniTensor) -> Result<(), Error> {
    arith_impl(Arith::Mul, self_, Operand::Tensor(other), None, out)
}

/// `div.out`'s meta (structured in PyTorch).
pub fn div_meta(self_: &MiniTensor, other: &MiniTensor) -> Result<OutputMeta, Error> {
    arith_meta(Arith::Div, self_, Operand::Tensor(other), None)
}

/// `div.out`'s impl (structured in PyTorch).
pub fn div_impl(self_: &MiniTensor, other: &MiniTensor, out: &mut MiniTensor) -> Result<(), Error> {
    arith_impl(Arith::Div, self_, Operand::Tensor(other), None, out)
}

/// The unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unary {
    /// `-x`.
    Neg,
    /// `|x|`.
    Abs,
    /// `max(x, 0)`.
    Relu,
    /// `e^x` (integer inputs give the default float dtype).
    Exp,
    /// The sign: -1, 0 or 1 (0 for NaN, as PyTorch's `sgn` of a real tensor).
    Sgn,
}

fn unary_dtype(op: Unary, self_: &MiniTensor) -> Result<ScalarType, Error> {
    let dtype = self_.dtype();
    match (op, dtype) {
        (Unary::Neg, ScalarType::Bool) => Err(Error::from(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying \
             to invert a mask, use the `~` or `logical_not()` operator instead.",
        )),
        (Unary::Abs, ScalarType::Bool) => {
            Err(Error::from("\"abs_cpu\" not implemented for 'Bool'"))
        }
        (Unary::Relu, ScalarType::Bool) => {
            Err(Error::from("Boolean inputs not supported for relu"))
        }
        (Unary::Exp, d) if is_integral_or_bool(d) => Ok(DEFAULT_FLOAT),
        (_, d) => Ok(d),
    }
}

/// The meta of a unary operator (`neg.out` and `exp.out` are structured in PyTorch).
pub fn unary_meta(op: Unary, self_: &MiniTensor) -> Result<OutputMeta, Error> {
    Ok(OutputMeta::new(
        self_.shape(),
        unary_dtype(op, self_)?,
        self_.device(),
    ))
}

/// The impl of a unary operator.
pub fn unary_impl(op: Unary, self_: &MiniTensor, out: &mut MiniTensor) -> Result<(), Error> {
    let dtype = unary_dtype(op, self_)?;
    let shape = out.shape();
    with_numeric!(dtype, |E| {
        let a: Vec<E> = self_.broadcast_values(&shape)?;
        let f = |x: E| match op {
            Unary::Neg => x.neg(),
            Unary::Abs => Num::abs(x),
            // NaN stays NaN, as `clamp_min(x, 0)` keeps it.
            Unary::Relu => if x < E::ZERO { E::ZERO } else { x },
            Unary::Exp => Num::exp(x),
            Unary::Sgn => match x.partial_cmp(&E::ZERO) {
                Some(Ordering::Greater) => E::cast(1i64),
                Some(Ordering::Less) => E::cast(-1i64),
                _ => E::ZERO,
            },
        };
        out.scatter(&a.into_iter().map(f).collect::<Vec<E>>())
    }, bool => match op {
        // The sign of a boolean is itself.
        Unary::Sgn => out.copy_values_from(self_),
        _ => Err(Error::from(format!("{op:?} is not supported for Bool"))),
    })
}

/// `clamp`'s result dtype: `self` promoted with the bounds as wrapped numbers.
fn clamp_dtype(
    self_: &MiniTensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<ScalarType, Error> {
    if min.is_none() && max.is_none() {
        return Err(Error::from(
            "torch.clamp: At least one of 'min' or 'max' must not be None",
        ));
    }
    let mut state = ResultType::new().tensor(self_);
    for bound in min.into_iter().chain(max) {
        state = state.scalar(bound)?;
    }
    match state.finish()? {
        ScalarType::Bool => Err(Error::from(
            "\"clamp_scalar_cpu\" not implemented for 'Bool'",
        )),
        dtype => Ok(dtype),
    }
}

/// `clamp.out`'s meta (structured in PyTorch): optional `Scalar` bounds, at least one.
pub fn clamp_meta(
    self_: &MiniTensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
) -> Result<OutputMeta, Error> {
    Ok(OutputMeta::new(
        self_.shape(),
        clamp_dtype(self_, min, max)?,
        self_.device(),
    ))
}

/// `clamp.out`'s impl (structured in PyTorch): `min(max(x, min), max)`; NaN stays NaN, and
/// `min > max` gives `max` everywhere.
pub fn clamp_impl(
    self_: &MiniTensor,
    min: Option<Scalar>,
    max: Option<Scalar>,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let dtype = clamp_dtype(self_, min, max)?;
    let shape = out.shape();
    with_numeric!(dtype, |E| {
        let a: Vec<E> = self_.broadcast_values(&shape)?;
        let (lo, hi) = (min.map(E::from_scalar), max.map(E::from_scalar));
        let f = |mut x: E| {
            if let Some(lo) = lo
                && (lo.is_nan() || x < lo)
            {
                x = lo
            }
            if let Some(hi) = hi
                && (hi.is_nan() || x > hi)
            {
                x = hi
            }
            x
        };
        out.scatter(&a.into_iter().map(f).collect::<Vec<E>>())
    }, bool => Err(Error::from("\"clamp_scalar_cpu\" not implemented for 'Bool'")))
}

/// The comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// `==`.
    Eq,
    /// `<`.
    Lt,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `<=`.
    Le,
}

/// The meta of a comparison (`eq`, `lt`, `gt` `.Tensor_out` / `.Scalar_out`, structured in
/// PyTorch): the broadcast shape, `Bool`.
pub fn compare_meta(self_: &MiniTensor, other: Operand<'_>) -> Result<OutputMeta, Error> {
    other.add_to(ResultType::new().tensor(self_))?.finish()?;
    let sizes = broadcast_shapes(&self_.shape(), &other.sizes())?;
    let device = match other {
        Operand::Tensor(t) => common_device(&[self_, t])?,
        Operand::Scalar(_) => self_.device(),
    };
    Ok(OutputMeta::new(sizes, ScalarType::Bool, device))
}

/// The impl of a comparison: compares in the operands' promoted dtype.
pub fn compare_impl(
    op: Compare,
    self_: &MiniTensor,
    other: Operand<'_>,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let dtype = other.add_to(ResultType::new().tensor(self_))?.finish()?;
    let shape = out.shape();
    with_dtype!(dtype, |E| {
        let a: Vec<E> = self_.broadcast_values(&shape)?;
        let b: Vec<E> = other.broadcast_values(&shape)?;
        let f = |x: E, y: E| match op {
            Compare::Eq => x == y,
            Compare::Lt => x.partial_cmp(&y) == Some(Ordering::Less),
            Compare::Gt => x.partial_cmp(&y) == Some(Ordering::Greater),
            Compare::Ge => matches!(x.partial_cmp(&y), Some(Ordering::Greater | Ordering::Equal)),
            Compare::Le => matches!(x.partial_cmp(&y), Some(Ordering::Less | Ordering::Equal)),
        };
        out.scatter(
            &a.iter()
                .zip(&b)
                .map(|(&x, &y)| f(x, y))
                .collect::<Vec<bool>>(),
        )
    })
}

/// `where.self`'s meta: a `Bool` condition; the three shapes broadcast; `self` and `other`
/// promote.
pub fn where_meta(
    condition: &MiniTensor,
    self_: &MiniTensor,
    other: &MiniTensor,
) -> Result<OutputMeta, Error> {
    if condition.dtype() != ScalarType::Bool {
        return Err(Error::from(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            condition.dtype()
        )));
    }
    let dtype = ResultType::new().tensor(self_).tensor(other).finish()?;
    let sizes = broadcast_shapes(
        &broadcast_shapes(&condition.shape(), &self_.shape())?,
        &other.shape(),
    )?;
    let device = common_device(&[condition, self_, other])?;
    Ok(OutputMeta::new(sizes, dtype, device))
}

/// `where.self`'s impl: `self` where `condition`, else `other`.
pub fn where_impl(
    condition: &MiniTensor,
    self_: &MiniTensor,
    other: &MiniTensor,
    out: &mut MiniTensor,
) -> Result<(), Error> {
    let dtype = ResultType::new().tensor(self_).tensor(other).finish()?;
    let shape = out.shape();
    let c: Vec<bool> = condition.broadcast_values(&shape)?;
    with_dtype!(dtype, |E| {
        let a: Vec<E> = self_.broadcast_values(&shape)?;
        let b: Vec<E> = other.broadcast_values(&shape)?;
        out.scatter(
            &c.iter()
                .zip(a.iter().zip(&b))
                .map(|(&c, (&x, &y))| if c { x } else { y })
                .collect::<Vec<E>>(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(meta: OutputMeta, f: impl FnOnce(&mut MiniTensor) -> Result<(), Error>) -> MiniTensor {
        let mut out = meta.allocate().unwrap();
        f(&mut out).unwrap();
        out
    }

    #[test]
    fn add_broadcasts_promotes_and_scales() {
        let a = MiniTensor::from_vec(vec![1i64, 2, 3], &[3, 1]).unwrap();
        let b = MiniTensor::from_vec(vec![0.5f32, 1.5], &[2]).unwrap();
        let meta = add_meta(&a, &b, Scalar::Int(2)).unwrap();
        assert_eq!(
            meta,
            OutputMeta::new(vec![3, 2], ScalarType::Float, Device::CPU)
        );
        let out = run(meta, |o| add_impl(&a, &b, Scalar::Int(2), o));
        assert_eq!(out.to_vec::<f32>().unwrap(), [2.0, 4.0, 3.0, 5.0, 4.0, 6.0]);
    }

    #[test]
    fn arithmetic_errors_are_pytorchs() {
        let l = MiniTensor::from_vec(vec![1i64], &[1]).unwrap();
        let b = MiniTensor::from_vec(vec![true], &[1]).unwrap();
        let err = |r: Result<OutputMeta, Error>| r.unwrap_err().to_string();
        assert!(
            err(add_meta(&l, &l, Scalar::Float(0.5)))
                .contains("alpha must not be a floating point")
        );
        assert!(err(add_meta(&l, &l, Scalar::Bool(true))).contains("Boolean alpha only supported"));
        assert!(err(sub_meta(&b, &b, Scalar::Int(1))).contains("with two bool tensors"));
        assert!(err(sub_meta(&l, &b, Scalar::Int(1))).contains("with a bool tensor"));
        assert!(err(unary_meta(Unary::Neg, &b)).contains("Negation"));
        let c = MiniTensor::from_vec(vec![1i64, 2], &[2]).unwrap();
        let d = MiniTensor::from_vec(vec![1i64, 2, 3], &[3]).unwrap();
        assert!(err(mul_meta(&c, &d)).contains("must match the size of tensor b (3)"));
    }

    #[test]
    fn div_is_true_division_and_bool_add_is_or() {
        let a = MiniTensor::from_vec(vec![1i64, 3], &[2]).unwrap();
        let b = MiniTensor::from_vec(vec![2i64, 2], &[2]).unwrap();
        let meta = div_meta(&a, &b).unwrap();
        assert_eq!(meta.dtype(), ScalarType::Float);
        assert_eq!(
            run(meta, |o| div_impl(&a, &b, o)).to_vec::<f32>().unwrap(),
            [0.5, 1.5]
        );
        let x = MiniTensor::from_vec(vec![true, false, false], &[3]).unwrap();
        let y = MiniTensor::from_vec(vec![false, true, false], &[3]).unwrap();
        let meta = add_meta(&x, &y, Scalar::Int(1)).unwrap();
        assert_eq!(meta.dtype(), ScalarType::Bool);
        assert_eq!(
            run(meta, |o| add_impl(&x, &y, Scalar::Int(1), o))
                .to_vec::<bool>()
                .unwrap(),
            [true, true, false]
        );
    }

    #[test]
    fn unary_clamp_compare_where() {
        let a = MiniTensor::from_vec(vec![-1.0f64, 0.5, f64::NAN], &[3]).unwrap();
        let relu = run(unary_meta(Unary::Relu, &a).unwrap(), |o| {
            unary_impl(Unary::Relu, &a, o)
        });
        let v = relu.to_vec::<f64>().unwrap();
        assert_eq!(&v[..2], [0.0, 0.5]);
        assert!(v[2].is_nan());
        let l = MiniTensor::from_vec(vec![0i64, 1], &[2]).unwrap();
        let e = run(unary_meta(Unary::Exp, &l).unwrap(), |o| {
            unary_impl(Unary::Exp, &l, o)
        });
        assert_eq!(e.dtype(), ScalarType::Float);
        assert_eq!(e.to_vec::<f32>().unwrap(), [1.0, std::f32::consts::E]);
        let c = run(
            clamp_meta(&l, None, Some(Scalar::Float(0.5))).unwrap(),
            |o| clamp_impl(&l, None, Some(Scalar::Float(0.5)), o),
        );
        assert_eq!(
            (c.dtype(), c.to_vec::<f32>().unwrap()),
            (ScalarType::Float, vec![0.0, 0.5])
        );
        assert!(
            clamp_meta(&l, None, None)
                .unwrap_err()
                .to_string()
                .contains("At least one of 'min' or 'max'")
        );
        let gt = run(
            compare_meta(&l, Operand::Scalar(Scalar::Float(0.5))).unwrap(),
            |o| compare_impl(Compare::Gt, &l, Operand::Scalar(Scalar::Float(0.5)), o),
        );
        assert_eq!(gt.to_vec::<bool>().unwrap(), [false, true]);
        let f = MiniTensor::from_vec(vec![-1.0f64, -2.0], &[2]).unwrap();
        let w = run(where_meta(&gt, &l, &f).unwrap(), |o| {
            where_impl(&gt, &l, &f, o)
        });
        assert_eq!(w.dtype(), ScalarType::Double);
        assert_eq!(w.to_vec::<f64>().unwrap(), [-1.0, 1.0]);
        assert!(
            where_meta(&l, &l, &l)
                .unwrap_err()
                .to_string()
                .contains("boolean tensor")
        );
    }
}
