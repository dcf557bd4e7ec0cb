//! The sample rows of the operators the derivative formulas call (`expand`, `scatter`,
//! `threshold_backward`, ...): part of [`super::samples::samples`].

use opgen::prelude::*;

use super::samples::{Sample, a, at, f32s, i64s, ints, one, row, t};
use crate::MiniTensor;
use crate::ops::{self, *};

/// Their samples.
pub fn samples() -> Vec<Sample> {
    use IValue::{Float, Int};
    let index = || i64s(&[2, 0, 1, 1], &[2, 2]);
    vec![
        row("aten::sgn", vec![t(a())], "smt", |x| {
            Ok(one(ops::try_sgn(&x.t(0)?)?))
        }),
        row(
            "aten::threshold_backward",
            vec![t(a()), t(at()), Float(0.25)],
            "smt",
            |x| {
                Ok(one(ops::try_threshold_backward(
                    &x.t(0)?,
                    &x.t(1)?,
                    x.scalar(2)?,
                )?))
            },
        ),
        row("aten::ge.Scalar", vec![t(a()), Float(0.5)], "smt", |x| {
            Ok(one(x.t(0)?.try_ge_scalar(x.scalar(1)?)?))
        }),
        row("aten::le.Scalar", vec![t(a()), Int(1)], "smt", |x| {
            Ok(one(ops::try_le_scalar(&x.t(0)?, x.scalar(1)?)?))
        }),
        row("aten::logical_and", vec![t(a()), t(at())], "smt", |x| {
            Ok(one(x.t(0)?.try_logical_and(&x.t(1)?)?))
        }),
        row(
            "aten::where.ScalarOther",
            vec![
                t(MiniTensor::from_vec(vec![true, false, true], &[3]).expect("condition")),
                t(a()),
                Float(2.0),
            ],
            "smt",
            |x| {
                Ok(one(ops::try_where_scalar_other(
                    &x.t(0)?,
                    &x.t(1)?,
                    x.scalar(2)?,
                )?))
            },
        ),
        row(
            "aten::where.ScalarSelf",
            vec![
                t(MiniTensor::from_vec(vec![true, false, true], &[3]).expect("condition")),
                Int(3),
                t(a()),
            ],
            "smt",
            |x| {
                Ok(one(ops::try_where_scalar_self(
                    &x.t(0)?,
                    x.scalar(1)?,
                    &x.t(2)?,
                )?))
            },
        ),
        row("aten::zeros_like", vec![t(a())], "smt", |x| {
            Ok(one(ops::try_zeros_like(&x.t(0)?, x.options(1)?)?))
        }),
        row("aten::scalar_tensor", vec![Float(2.5)], "smt", |x| {
            Ok(one(ops::try_scalar_tensor(x.scalar(0)?, x.options(1)?)?))
        }),
        row(
            "aten::_efficientzerotensor",
            vec![ints(&[2, 2])],
            "smt",
            |x| {
                Ok(one(ops::_try_efficientzerotensor(
                    &x.ints(0)?,
                    x.options(1)?,
                )?))
            },
        ),
        row(
            "aten::expand",
            vec![t(f32s(&[1.0, 2.0, 3.0], &[3])), ints(&[2, -1])],
            "smt",
            |x| Ok(one(x.t(0)?.try_expand(&x.ints(1)?)?)),
        ),
        row("aten::unsqueeze", vec![t(at()), Int(-1)], "smt", |x| {
            Ok(one(ops::try_unsqueeze(&x.t(0)?, x.int(1)?)?))
        }),
        row(
            "aten::squeeze.dim",
            vec![t(f32s(&[1.0, 2.0], &[2, 1])), Int(1)],
            "smt",
            |x| Ok(one(x.t(0)?.try_squeeze_dim(x.int(1)?)?)),
        ),
        row(
            "aten::slice.Tensor",
            vec![t(a()), Int(1), Int(-2)],
            "smt",
            |x| {
                let args = SliceArgs {
                    dim: x.int(1)?,
                    start: x.opt_int(2)?,
                    end: None,
                    step: 1,
                };
                Ok(one(ops::try_slice_with(&x.t(0)?, args)?))
            },
        ),
        row(
            "aten::narrow",
            vec![t(at()), Int(1), Int(1), Int(2)],
            "smt",
            |x| {
                Ok(one(ops::try_narrow(
                    &x.t(0)?,
                    x.int(1)?,
                    x.int(2)?,
                    x.int(3)?,
                )?))
            },
        ),
        row("aten::t", vec![t(a())], "smt", |x| {
            Ok(one(x.t(0)?.try_t()?))
        }),
        row(
            "aten::gather",
            vec![t(a()), Int(1), t(index())],
            "smt",
            |x| Ok(one(ops::try_gather(&x.t(0)?, x.int(1)?, &x.t(2)?)?)),
        ),
        // A `src` of the index's shape (the gradient of a larger `src` has the index's shape,
        // which autograd refuses, as in PyTorch), and no repeated index (where one element
        // overwrites another, the gradient is PyTorch's, not the finite differences').
        row(
            "aten::scatter.src",
            vec![
                t(a()),
                Int(1),
                t(i64s(&[2, 0, 1, 0], &[2, 2])),
                t(f32s(&[1.0, 2.0, 3.0, 4.0], &[2, 2])),
            ],
            "smt",
            |x| {
                Ok(one(ops::try_scatter_src(
                    &x.t(0)?,
                    x.int(1)?,
                    &x.t(2)?,
                    &x.t(3)?,
                )?))
            },
        ),
        row(
            "aten::scatter.value",
            vec![t(a()), Int(1), t(index()), Float(9.0)],
            "smt",
            |x| {
                Ok(one(x.t(0)?.try_scatter_value(
                    x.int(1)?,
                    &x.t(2)?,
                    x.scalar(3)?,
                )?))
            },
        ),
        row(
            "aten::scatter_add",
            vec![
                t(a()),
                Int(0),
                t(i64s(&[1, 0, 1], &[1, 3])),
                t(f32s(&[1.0, 2.0, 3.0], &[1, 3])),
            ],
            "smt",
            |x| {
                Ok(one(ops::try_scatter_add(
                    &x.t(0)?,
                    x.int(1)?,
                    &x.t(2)?,
                    &x.t(3)?,
                )?))
            },
        ),
        row(
            "aten::select_backward",
            vec![
                t(f32s(&[1.0, 2.0, 3.0], &[3])),
                ints(&[2, 3]),
                Int(0),
                Int(1),
            ],
            "smt",
            |x| {
                Ok(one(ops::try_select_backward(
                    &x.t(0)?,
                    &x.ints(1)?,
                    x.int(2)?,
                    x.int(3)?,
                )?))
            },
        ),
        row(
            "aten::slice_backward",
            vec![t(a()), ints(&[2, 5]), Int(1), Int(1), Int(4), Int(1)],
            "smt",
            |x| {
                Ok(one(ops::try_slice_backward(
                    &x.t(0)?,
                    &x.ints(1)?,
                    x.int(2)?,
                    x.int(3)?,
                    x.int(4)?,
                    x.int(5)?,
                )?))
            },
        ),
    ]
}
