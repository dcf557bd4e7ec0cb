//! One row of sample inputs per operator schema of the library, each with the same call
//! made through the generated typed API, and the OpCheck checks expected to run.

use std::sync::Arc;

use opgen::dispatch::MemoryFormat;
use opgen::prelude::*;

use crate::MiniTensor;
use crate::ops::{self, *};

/// Boxed values, in schema order.
pub type Values = Vec<IValue<MiniTensor>>;

/// The typed call of a row: the arguments (defaults filled) in, the returns out.
pub type Typed = fn(&Args<'_>) -> Result<Values, Error>;

/// One operator schema's sample call.
pub struct Sample {
    /// `aten::name.overload`.
    pub op: &'static str,
    /// The arguments, in schema order; trailing defaulted ones may be left out.
    pub inputs: Values,
    /// The same call through the generated functions and methods.
    pub typed: Typed,
    /// The OpCheck checks expected to pass: `s`chema, `m`eta, `t`yped, `v`ariants.
    pub checks: &'static str,
}

impl Sample {
    /// The operator's name and overload, for `Dispatcher::find`.
    pub fn name(&self) -> (&'static str, &'static str) {
        self.op.split_once('.').unwrap_or((self.op, ""))
    }
}

/// Typed access to boxed arguments.
pub struct Args<'a>(pub &'a [IValue<MiniTensor>]);

fn mismatch(i: usize, want: &str, got: &IValue<MiniTensor>) -> Error {
    Error::from(format!("argument {i}: expected {want}, got {}", got.kind()))
}

impl Args<'_> {
    fn get(&self, i: usize) -> Result<&IValue<MiniTensor>, Error> {
        self.0
            .get(i)
            .ok_or_else(|| Error::from(format!("no argument {i}")))
    }

    /// A tensor argument (another handle to it).
    pub fn t(&self, i: usize) -> Result<MiniTensor, Error> {
        match self.get(i)? {
            IValue::Tensor(t) => Ok(t.share()),
            v => Err(mismatch(i, "Tensor", v)),
        }
    }

    /// A `Tensor[]` argument.
    pub fn ts(&self, i: usize) -> Result<Vec<MiniTensor>, Error> {
        match self.get(i)? {
            IValue::TensorList(ts) => Ok(ts.to_vec()),
            v => Err(mismatch(i, "Tensor[]", v)),
        }
    }

    pub fn int(&self, i: usize) -> Result<i64, Error> {
        match self.get(i)? {
            IValue::Int(x) => Ok(*x),
            v => Err(mismatch(i, "int", v)),
        }
    }

    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, Error> {
        match self.get(i)? {
            IValue::None => Ok(None),
            _ => self.int(i).map(Some),
        }
    }

    pub fn bool(&self, i: usize) -> Result<bool, Error> {
        match self.get(i)? {
            IValue::Bool(x) => Ok(*x),
            v => Err(mismatch(i, "bool", v)),
        }
    }

    pub fn opt_bool(&self, i: usize) -> Result<Option<bool>, Error> {
        match self.get(i)? {
            IValue::None => Ok(None),
            _ => self.bool(i).map(Some),
        }
    }

    pub fn scalar(&self, i: usize) -> Result<Scalar, Error> {
        match self.get(i)? {
            IValue::Int(x) => Ok(Scalar::Int(*x)),
            IValue::Float(x) => Ok(Scalar::Float(*x)),
            IValue::Bool(x) => Ok(Scalar::Bool(*x)),
            v => Err(mismatch(i, "Scalar", v)),
        }
    }

    pub fn opt_scalar(&self, i: usize) -> Result<Option<Scalar>, Error> {
        match self.get(i)? {
            IValue::None => Ok(None),
            _ => self.scalar(i).map(Some),
        }
    }

    pub fn ints(&self, i: usize) -> Result<Vec<i64>, Error> {
        match self.get(i)? {
            IValue::IntList(x) => Ok(x.to_vec()),
            v => Err(mismatch(i, "int[]", v)),
        }
    }

    pub fn opt_ints(&self, i: usize) -> Result<Option<Vec<i64>>, Error> {
        match self.get(i)? {
            IValue::None => Ok(None),
            _ => self.ints(i).map(Some),
        }
    }

    pub fn opt_dtype(&self, i: usize) -> Result<Option<ScalarType>, Error> {
        match self.get(i)? {
            IValue::None => Ok(None),
            IValue::ScalarType(x) => Ok(Some(*x)),
            v => Err(mismatch(i, "ScalarType?", v)),
        }
    }

    pub fn opt_layout(&self, i: usize) -> Result<Option<Layout>, Error> {
        match self.get(i)? {
            IValue::None => Ok(None),
            IValue::Layout(x) => Ok(Some(*x)),
            v => Err(mismatch(i, "Layout?", v)),
        }
    }

    pub fn opt_device(&self, i: usize) -> Result<Option<Device>, Error> {
        match self.get(i)? {
            IValue::None => Ok(None),
            IValue::Device(x) => Ok(Some(*x)),
            v => Err(mismatch(i, "Device?", v)),
        }
    }

    pub fn opt_memory_format(&self, i: usize) -> Result<Option<MemoryFormat>, Error> {
        match self.get(i)? {
            IValue::None => Ok(None),
            IValue::MemoryFormat(x) => Ok(Some(*x)),
            v => Err(mismatch(i, "MemoryFormat?", v)),
        }
    }

    /// The four TensorOptions arguments starting at `i`.
    pub fn options(&self, i: usize) -> Result<TensorOptions, Error> {
        Ok(TensorOptions::from_parts(
            self.opt_dtype(i)?,
            self.opt_layout(i + 1)?,
            self.opt_device(i + 2)?,
            self.opt_bool(i + 3)?,
        ))
    }
}

pub(super) fn one(t: MiniTensor) -> Values {
    vec![IValue::Tensor(t)]
}

fn two((a, b): (MiniTensor, MiniTensor)) -> Values {
    vec![IValue::Tensor(a), IValue::Tensor(b)]
}

pub(super) fn t(t: MiniTensor) -> IValue<MiniTensor> {
    IValue::Tensor(t)
}

fn list(ts: Vec<MiniTensor>) -> IValue<MiniTensor> {
    IValue::TensorList(Arc::new(ts))
}

pub(super) fn ints(v: &[i64]) -> IValue<MiniTensor> {
    IValue::IntList(Arc::new(v.to_vec()))
}

pub(super) fn f32s(v: &[f32], s: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(v.to_vec(), s).expect("sample tensor")
}

pub(super) fn i64s(v: &[i64], s: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(v.to_vec(), s).expect("sample tensor")
}

/// An empty out tensor of `dtype` (the out kernels resize it).
fn out(dtype: ScalarType) -> IValue<MiniTensor> {
    t(MiniTensor::new_empty(&[0], &TensorOptions::new().dtype(dtype)).expect("out tensor"))
}

/// `Float [2, 3]`, with a negative value and a tie-free maximum per row and column.
pub(super) fn a() -> MiniTensor {
    f32s(&[1.0, -2.0, 3.5, 4.0, 0.5, -6.0], &[2, 3])
}

/// `Long [3]`, broadcasting against [`a`].
pub(super) fn b() -> MiniTensor {
    i64s(&[2, -1, 3], &[3])
}

/// `Float [2, 3]`, transposed from `[3, 2]` (not contiguous).
pub(super) fn at() -> MiniTensor {
    f32s(&[1.0, 4.0, -2.0, 0.5, 3.5, -6.0], &[3, 2]).transpose(0, 1)
}

pub(super) fn row(op: &'static str, inputs: Values, checks: &'static str, typed: Typed) -> Sample {
    Sample {
        op,
        inputs,
        typed,
        checks,
    }
}

/// The sample of every operator schema of the library.
pub fn samples() -> Vec<Sample> {
    use IValue::{Bool, Float, Int, ScalarType as Dtype};
    use ScalarType::{Double, Long};
    vec![
        // ---- factories (BackendSelect, then CPU or Meta)
        row(
            "aten::empty.memory_format",
            vec![ints(&[2, 3])],
            "smt",
            |x| Ok(one(ops::try_empty(&x.ints(0)?, x.options(1)?)?)),
        ),
        row("aten::zeros", vec![ints(&[2]), Dtype(Long)], "smt", |x| {
            Ok(one(ops::try_zeros(&x.ints(0)?, x.options(1)?)?))
        }),
        row("aten::ones", vec![ints(&[3, 1])], "smt", |x| {
            Ok(one(ops::try_ones(&x.ints(0)?, x.options(1)?)?))
        }),
        row("aten::full", vec![ints(&[2, 2]), Float(1.5)], "smt", |x| {
            Ok(one(ops::try_full(
                &x.ints(0)?,
                x.scalar(1)?,
                x.options(2)?,
            )?))
        }),
        row("aten::arange", vec![Int(4)], "smt", |x| {
            let (d, l, dev, p) = x.options(1)?.into_parts();
            Ok(one(ops::arange::call((x.scalar(0)?, d, l, dev, p))?))
        }),
        row("aten::arange.start", vec![Int(2), Float(4.5)], "smt", |x| {
            Ok(one(ops::try_arange_start(
                x.scalar(0)?,
                x.scalar(1)?,
                x.options(2)?,
            )?))
        }),
        row(
            "aten::arange.start_step",
            vec![Int(1), Int(10), Int(3)],
            "smt",
            |x| {
                let args = ops::ArangeStartStepArgs {
                    step: x.scalar(2)?,
                    options: x.options(3)?,
                };
                Ok(one(ops::try_arange_start_step_with(
                    x.scalar(0)?,
                    x.scalar(1)?,
                    args,
                )?))
            },
        ),
        // ---- pointwise, Tensor overloads (structured groups)
        row(
            "aten::add.Tensor",
            vec![t(a()), t(b()), Int(2)],
            "smtv",
            |x| {
                let alpha = x.scalar(2)?;
                Ok(one(ops::try_add_with(
                    &x.t(0)?,
                    &x.t(1)?,
                    AddArgs { alpha },
                )?))
            },
        ),
        row(
            "aten::add_.Tensor",
            vec![t(a()), t(b()), Int(2)],
            "smtv",
            |x| {
                let alpha = x.scalar(2)?;
                let mut s = x.t(0)?;
                Ok(one(s.try_add_with_(&x.t(1)?, AddInplaceArgs { alpha })?))
            },
        ),
        row(
            "aten::add.out",
            vec![t(a()), t(b()), Int(2), out(ScalarType::Float)],
            "smtv",
            |x| {
                let alpha = x.scalar(2)?;
                let mut o = x.t(3)?;
                Ok(one(ops::try_add_out_with(
                    &mut o,
                    &x.t(0)?,
                    &x.t(1)?,
                    AddOutArgs { alpha },
                )?))
            },
        ),
        row("aten::sub.Tensor", vec![t(a()), t(b())], "smtv", |x| {
            let alpha = x.scalar(2)?;
            Ok(one(ops::try_sub_with(
                &x.t(0)?,
                &x.t(1)?,
                SubArgs { alpha },
            )?))
        }),
        row("aten::sub_.Tensor", vec![t(a()), t(b())], "smtv", |x| {
            let alpha = x.scalar(2)?;
            let mut s = x.t(0)?;
            Ok(one(s.try_sub_with_(&x.t(1)?, SubInplaceArgs { alpha })?))
        }),
        row(
            "aten::sub.out",
            vec![t(a()), t(b()), Int(1), out(ScalarType::Float)],
            "smtv",
            |x| {
                let alpha = x.scalar(2)?;
                let mut o = x.t(3)?;
                Ok(one(ops::try_sub_out_with(
                    &mut o,
                    &x.t(0)?,
                    &x.t(1)?,
                    SubOutArgs { alpha },
                )?))
            },
        ),
        row("aten::mul.Tensor", vec![t(a()), t(b())], "smtv", |x| {
            Ok(one(ops::try_mul(&x.t(0)?, &x.t(1)?)?))
        }),
        row("aten::mul_.Tensor", vec![t(a()), t(b())], "smtv", |x| {
            Ok(one(x.t(0)?.try_mul_(&x.t(1)?)?))
        }),
        row(
            "aten::mul.out",
            vec![t(a()), t(b()), out(ScalarType::Float)],
            "smtv",
            |x| Ok(one(ops::try_mul_out(&mut x.t(2)?, &x.t(0)?, &x.t(1)?)?)),
        ),
        row("aten::div.Tensor", vec![t(a()), t(b())], "smtv", |x| {
            Ok(one(ops::try_div(&x.t(0)?, &x.t(1)?)?))
        }),
        row("aten::div_.Tensor", vec![t(a()), t(b())], "smtv", |x| {
            Ok(one(x.t(0)?.try_div_(&x.t(1)?)?))
        }),
        row(
            "aten::div.out",
            vec![t(a()), t(b()), out(ScalarType::Float)],
            "smtv",
            |x| Ok(one(ops::try_div_out(&mut x.t(2)?, &x.t(0)?, &x.t(1)?)?)),
        ),
        row("aten::neg", vec![t(at())], "smtv", |x| {
            Ok(one(ops::try_neg(&x.t(0)?)?))
        }),
        row("aten::neg_", vec![t(at())], "smtv", |x| {
            Ok(one(ops::try_neg_(&mut x.t(0)?)?))
        }),
        row(
            "aten::neg.out",
            vec![t(at()), out(ScalarType::Float)],
            "smtv",
            |x| Ok(one(ops::try_neg_out(&mut x.t(1)?, &x.t(0)?)?)),
        ),
        row("aten::exp", vec![t(a())], "smtv", |x| {
            Ok(one(x.t(0)?.try_exp()?))
        }),
        row("aten::exp_", vec![t(a())], "smtv", |x| {
            Ok(one(x.t(0)?.try_exp_()?))
        }),
        row(
            "aten::exp.out",
            vec![t(a()), out(ScalarType::Float)],
            "smtv",
            |x| Ok(one(ops::try_exp_out(&mut x.t(1)?, &x.t(0)?)?)),
        ),
        row(
            "aten::clamp",
            vec![t(a()), Int(-1), Float(3.0)],
            "smtv",
            |x| {
                let args = ClampArgs {
                    min: x.opt_scalar(1)?,
                    max: x.opt_scalar(2)?,
                };
                Ok(one(ops::try_clamp_with(&x.t(0)?, args)?))
            },
        ),
        row(
            "aten::clamp_",
            vec![t(a()), IValue::None, Int(2)],
            "smtv",
            |x| {
                let args = ClampInplaceArgs {
                    min: x.opt_scalar(1)?,
                    max: x.opt_scalar(2)?,
                };
                Ok(one(ops::try_clamp_with_(&mut x.t(0)?, args)?))
            },
        ),
        row(
            "aten::clamp.out",
            vec![t(a()), Int(0), IValue::None, out(ScalarType::Float)],
            "smtv",
            |x| {
                let args = ClampOutArgs {
                    min: x.opt_scalar(1)?,
                    max: x.opt_scalar(2)?,
                };
                Ok(one(ops::try_clamp_out_with(&mut x.t(3)?, &x.t(0)?, args)?))
            },
        ),
        // ---- comparisons
        row("aten::eq.Tensor", vec![t(a()), t(at())], "smtv", |x| {
            Ok(one(x.t(0)?.try_eq(&x.t(1)?)?))
        }),
        row("aten::eq.Scalar", vec![t(b()), Int(3)], "smtv", |x| {
            Ok(one(ops::try_eq_scalar(&x.t(0)?, x.scalar(1)?)?))
        }),
        row(
            "aten::eq.Tensor_out",
            vec![t(a()), t(at()), out(ScalarType::Bool)],
            "smtv",
            |x| {
                Ok(one(ops::try_eq_tensor_out(
                    &mut x.t(2)?,
                    &x.t(0)?,
                    &x.t(1)?,
                )?))
            },
        ),
        row(
            "aten::eq.Scalar_out",
            vec![t(b()), Int(3), out(ScalarType::Bool)],
            "smtv",
            |x| {
                Ok(one(ops::try_eq_scalar_out(
                    &mut x.t(2)?,
                    &x.t(0)?,
                    x.scalar(1)?,
                )?))
            },
        ),
        row("aten::lt.Tensor", vec![t(a()), t(b())], "smtv", |x| {
            Ok(one(ops::try_lt(&x.t(0)?, &x.t(1)?)?))
        }),
        row("aten::lt.Scalar", vec![t(a()), Float(0.5)], "smtv", |x| {
            Ok(one(x.t(0)?.try_lt_scalar(x.scalar(1)?)?))
        }),
        row(
            "aten::lt.Tensor_out",
            vec![t(a()), t(b()), out(ScalarType::Bool)],
            "smtv",
            |x| {
                Ok(one(ops::try_lt_tensor_out(
                    &mut x.t(2)?,
                    &x.t(0)?,
                    &x.t(1)?,
                )?))
            },
        ),
        row(
            "aten::lt.Scalar_out",
            vec![t(a()), Float(0.5), out(ScalarType::Bool)],
            "smtv",
            |x| {
                Ok(one(ops::try_lt_scalar_out(
                    &mut x.t(2)?,
                    &x.t(0)?,
                    x.scalar(1)?,
                )?))
            },
        ),
        row("aten::gt.Tensor", vec![t(b()), t(a())], "smtv", |x| {
            Ok(one(ops::try_gt(&x.t(0)?, &x.t(1)?)?))
        }),
        row("aten::gt.Scalar", vec![t(b()), Int(0)], "smtv", |x| {
            Ok(one(ops::try_gt_scalar(&x.t(0)?, x.scalar(1)?)?))
        }),
        row(
            "aten::gt.Tensor_out",
            vec![t(b()), t(a()), out(ScalarType::Bool)],
            "smtv",
            |x| {
                Ok(one(ops::try_gt_tensor_out(
                    &mut x.t(2)?,
                    &x.t(0)?,
                    &x.t(1)?,
                )?))
            },
        ),
        row(
            "aten::gt.Scalar_out",
            vec![t(b()), Int(0), out(ScalarType::Bool)],
            "smtv",
            |x| {
                Ok(one(ops::try_gt_scalar_out(
                    &mut x.t(2)?,
                    &x.t(0)?,
                    x.scalar(1)?,
                )?))
            },
        ),
        // ---- pointwise, Scalar overloads and ungrouped
        row(
            "aten::add.Scalar",
            vec![t(b()), Float(0.5), Int(3)],
            "smt",
            |x| {
                let alpha = x.scalar(2)?;
                Ok(one(ops::try_add_scalar_with(
                    &x.t(0)?,
                    x.scalar(1)?,
                    AddScalarArgs { alpha },
                )?))
            },
        ),
        row("aten::sub.Scalar", vec![t(a()), Int(1)], "smt", |x| {
            let alpha = x.scalar(2)?;
            Ok(one(ops::try_sub_scalar_with(
                &x.t(0)?,
                x.scalar(1)?,
                SubScalarArgs { alpha },
            )?))
        }),
        row("aten::mul.Scalar", vec![t(b()), Int(-2)], "smt", |x| {
            Ok(one(ops::try_mul_scalar(&x.t(0)?, x.scalar(1)?)?))
        }),
        row("aten::div.Scalar", vec![t(b()), Int(2)], "smt", |x| {
            Ok(one(ops::try_div_scalar(&x.t(0)?, x.scalar(1)?)?))
        }),
        row("aten::abs", vec![t(b())], "smtv", |x| {
            Ok(one(ops::try_abs(&x.t(0)?)?))
        }),
        row("aten::abs_", vec![t(b())], "smtv", |x| {
            Ok(one(x.t(0)?.try_abs_()?))
        }),
        row("aten::abs.out", vec![t(b()), out(Long)], "smtv", |x| {
            Ok(one(ops::try_abs_out(&mut x.t(1)?, &x.t(0)?)?))
        }),
        row("aten::relu", vec![t(at())], "smtv", |x| {
            Ok(one(ops::try_relu(&x.t(0)?)?))
        }),
        row("aten::relu_", vec![t(at())], "smtv", |x| {
            Ok(one(x.t(0)?.try_relu_()?))
        }),
        row(
            "aten::where.self",
            vec![
                t(MiniTensor::from_vec(vec![true, false, true], &[3]).expect("condition")),
                t(a()),
                t(b()),
            ],
            "smt",
            |x| Ok(one(ops::try_where_self(&x.t(0)?, &x.t(1)?, &x.t(2)?)?)),
        ),
        // ---- reductions
        row("aten::sum", vec![t(b()), Dtype(Double)], "smt", |x| {
            let dtype = x.opt_dtype(1)?;
            Ok(one(ops::try_sum_with(&x.t(0)?, SumArgs { dtype })?))
        }),
        row("aten::mean", vec![t(a())], "smt", |x| {
            let dtype = x.opt_dtype(1)?;
            Ok(one(ops::try_mean_with(&x.t(0)?, MeanArgs { dtype })?))
        }),
        row(
            "aten::sum.dim_IntList",
            vec![t(a()), ints(&[0]), Bool(true)],
            "smtv",
            |x| {
                let dim = x.opt_ints(1)?;
                let args = SumDimIntListArgs {
                    keepdim: x.bool(2)?,
                    dtype: x.opt_dtype(3)?,
                };
                Ok(one(ops::try_sum_dim_int_list_with(
                    &x.t(0)?,
                    dim.as_deref(),
                    args,
                )?))
            },
        ),
        row(
            "aten::sum.IntList_out",
            vec![
                t(a()),
                IValue::None,
                Bool(false),
                IValue::None,
                out(ScalarType::Float),
            ],
            "smtv",
            |x| {
                let dim = x.opt_ints(1)?;
                let args = SumIntListOutArgs {
                    keepdim: x.bool(2)?,
                    dtype: x.opt_dtype(3)?,
                };
                Ok(one(ops::try_sum_int_list_out_with(
                    &mut x.t(4)?,
                    &x.t(0)?,
                    dim.as_deref(),
                    args,
                )?))
            },
        ),
        row("aten::mean.dim", vec![t(a()), ints(&[-1])], "smtv", |x| {
            let dim = x.opt_ints(1)?;
            let args = MeanDimArgs {
                keepdim: x.bool(2)?,
                dtype: x.opt_dtype(3)?,
            };
            Ok(one(ops::try_mean_dim_with(&x.t(0)?, dim.as_deref(), args)?))
        }),
        row(
            "aten::mean.out",
            vec![t(a()), ints(&[1]), Bool(true), IValue::None, out(Double)],
            "smtv",
            |x| {
                let dim = x.opt_ints(1)?;
                let args = MeanOutArgs {
                    keepdim: x.bool(2)?,
                    dtype: x.opt_dtype(3)?,
                };
                Ok(one(ops::try_mean_out_with(
                    &mut x.t(4)?,
                    &x.t(0)?,
                    dim.as_deref(),
                    args,
                )?))
            },
        ),
        row("aten::max.dim", vec![t(a()), Int(1)], "smtv", |x| {
            let args = MaxDimArgs {
                keepdim: x.bool(2)?,
            };
            Ok(two(ops::try_max_dim_with(&x.t(0)?, x.int(1)?, args)?))
        }),
        row(
            "aten::max.dim_max",
            vec![
                t(a()),
                Int(0),
                Bool(true),
                out(ScalarType::Float),
                out(Long),
            ],
            "smtv",
            |x| {
                let args = MaxDimMaxOutArgs {
                    keepdim: x.bool(2)?,
                };
                Ok(two(ops::try_max_dim_max_out_with(
                    &mut x.t(3)?,
                    &mut x.t(4)?,
                    &x.t(0)?,
                    x.int(1)?,
                    args,
                )?))
            },
        ),
        row("aten::argmax", vec![t(at())], "smtv", |x| {
            let args = ArgmaxArgs {
                dim: x.opt_int(1)?,
                keepdim: x.bool(2)?,
            };
            Ok(one(ops::try_argmax_with(&x.t(0)?, args)?))
        }),
        row(
            "aten::argmax.out",
            vec![t(at()), Int(0), Bool(false), out(Long)],
            "smtv",
            |x| {
                let args = ArgmaxOutArgs {
                    dim: x.opt_int(1)?,
                    keepdim: x.bool(2)?,
                };
                Ok(one(ops::try_argmax_out_with(&mut x.t(3)?, &x.t(0)?, args)?))
            },
        ),
        row("aten::topk", vec![t(a()), Int(2)], "smtv", |x| {
            let args = TopkArgs {
                dim: x.int(2)?,
                largest: x.bool(3)?,
                sorted: x.bool(4)?,
            };
            Ok(two(ops::try_topk_with(&x.t(0)?, x.int(1)?, args)?))
        }),
        row(
            "aten::topk.values",
            vec![
                t(a()),
                Int(1),
                Int(0),
                Bool(false),
                Bool(true),
                out(ScalarType::Float),
                out(Long),
            ],
            "smtv",
            |x| {
                let args = TopkValuesOutArgs {
                    dim: x.int(2)?,
                    largest: x.bool(3)?,
                    sorted: x.bool(4)?,
                };
                Ok(two(ops::try_topk_values_out_with(
                    &mut x.t(5)?,
                    &mut x.t(6)?,
                    &x.t(0)?,
                    x.int(1)?,
                    args,
                )?))
            },
        ),
        // ---- linear algebra and joins
        row(
            "aten::mm",
            vec![t(a()), t(at().transpose(0, 1))],
            "smtv",
            |x| Ok(one(ops::try_mm(&x.t(0)?, &x.t(1)?)?)),
        ),
        row(
            "aten::mm.out",
            vec![t(a()), t(at().transpose(0, 1)), out(ScalarType::Float)],
            "smtv",
            |x| Ok(one(ops::try_mm_out(&mut x.t(2)?, &x.t(0)?, &x.t(1)?)?)),
        ),
        row(
            "aten::matmul",
            vec![t(f32s(&[1.0, 2.0, 3.0], &[3])), t(at().transpose(0, 1))],
            "smt",
            |x| Ok(one(ops::try_matmul(&x.t(0)?, &x.t(1)?)?)),
        ),
        row(
            "aten::cat",
            vec![list(vec![a(), i64s(&[7, 8, 9], &[1, 3])])],
            "smtva",
            |x| {
                let args = CatArgs { dim: x.int(1)? };
                Ok(one(ops::try_cat_with(&x.ts(0)?, args)?))
            },
        ),
        row(
            "aten::cat.out",
            vec![list(vec![a(), at()]), Int(1), out(ScalarType::Float)],
            "smtva",
            |x| {
                let args = CatOutArgs { dim: x.int(1)? };
                Ok(one(ops::try_cat_out_with(&mut x.t(2)?, &x.ts(0)?, args)?))
            },
        ),
        row(
            "aten::stack",
            vec![list(vec![a(), at()]), Int(2)],
            "smtva",
            |x| {
                let args = StackArgs { dim: x.int(1)? };
                Ok(one(ops::try_stack_with(&x.ts(0)?, args)?))
            },
        ),
        row(
            "aten::stack.out",
            vec![list(vec![b(), b()]), Int(0), out(Long)],
            "smtv",
            |x| {
                let args = StackOutArgs { dim: x.int(1)? };
                Ok(one(ops::try_stack_out_with(&mut x.t(2)?, &x.ts(0)?, args)?))
            },
        ),
        // ---- copies and fills
        row("aten::clone", vec![t(at())], "smt", |x| {
            let args = CloneArgs {
                memory_format: x.opt_memory_format(1)?,
            };
            Ok(one(ops::try_clone_with(&x.t(0)?, args)?))
        }),
        row("aten::contiguous", vec![t(at())], "smt", |x| {
            Ok(one(x.t(0)?.try_contiguous()?))
        }),
        row("aten::fill_.Scalar", vec![t(a()), Int(7)], "smt", |x| {
            Ok(one(ops::try_fill_(&mut x.t(0)?, x.scalar(1)?)?))
        }),
        row("aten::zero_", vec![t(b())], "smt", |x| {
            Ok(one(x.t(0)?.try_zero_()?))
        }),
        row("aten::copy_", vec![t(a()), t(b())], "smt", |x| {
            let args = CopyInplaceArgs {
                non_blocking: x.bool(2)?,
            };
            Ok(one(x.t(0)?.try_copy_with_(&x.t(1)?, args)?))
        }),
        // ---- views
        row("aten::view", vec![t(a()), ints(&[3, -1])], "smt", |x| {
            Ok(one(x.t(0)?.try_view(&x.ints(1)?)?))
        }),
        row(
            "aten::transpose.int",
            vec![t(a()), Int(0), Int(-1)],
            "smt",
            |x| Ok(one(ops::try_transpose(&x.t(0)?, x.int(1)?, x.int(2)?)?)),
        ),
        row(
            "aten::select.int",
            vec![t(at()), Int(1), Int(-1)],
            "smt",
            |x| Ok(one(x.t(0)?.try_select(x.int(1)?, x.int(2)?)?)),
        ),
        row("aten::unbind.int", vec![t(at()), Int(1)], "smt", |x| {
            let args = UnbindArgs { dim: x.int(1)? };
            Ok(vec![list(ops::try_unbind_with(&x.t(0)?, args)?)])
        }),
        row("aten::alias", vec![t(at())], "smt", |x| {
            Ok(one(ops::try_alias(&x.t(0)?)?))
        }),
        row(
            "aten::as_strided",
            vec![t(a()), ints(&[2, 2]), ints(&[1, 3]), Int(1)],
            "smt",
            |x| {
                let args = AsStridedArgs {
                    storage_offset: x.opt_int(3)?,
                };
                Ok(one(ops::try_as_strided_with(
                    &x.t(0)?,
                    &x.ints(1)?,
                    &x.ints(2)?,
                    args,
                )?))
            },
        ),
        row("aten::reshape", vec![t(at()), ints(&[6])], "smt", |x| {
            Ok(one(ops::try_reshape(&x.t(0)?, &x.ints(1)?)?))
        }),
    ]
    .into_iter()
    .chain(super::samples_grad::samples())
    .collect()
}
