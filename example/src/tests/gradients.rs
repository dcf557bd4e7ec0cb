//! The library's operators get their Autograd kernels from derivative formulas on their
//! attributes (PyTorch's, from `derivatives.yaml`): every differentiable operator passes
//! gradcheck (the backward pass against finite differences, in double precision), the
//! table below covers every operator with an Autograd kernel, out operators refuse inputs
//! that require grad, and Meta tensors get gradients' shapes.

use std::collections::BTreeSet;

use opgen::autograd::{AutogradTensor, backward};
use opgen::prelude::*;
use opgen::testing::{GradcheckOptions, gradcheck};

use crate::MiniTensor;
use crate::ops::{self, *};

type F = Box<dyn Fn(&[MiniTensor]) -> Result<Vec<MiniTensor>, Error>>;

/// One gradcheck: the operators it exercises (`name.overload`), the function, its inputs.
struct Case {
    ops: &'static [&'static str],
    f: F,
    inputs: Vec<MiniTensor>,
}

fn doubles(values: &[f64], sizes: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(values.to_vec(), sizes).expect("a tensor")
}

fn leaf(values: &[f64], sizes: &[i64]) -> MiniTensor {
    let t = doubles(values, sizes);
    t.set_requires_grad(true).expect("requires_grad");
    t
}

fn longs(values: &[i64], sizes: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(values.to_vec(), sizes).expect("a tensor")
}

/// A 2x3 input away from 0 and from the bounds the cases use (kinks of abs, relu, clamp).
fn x23() -> MiniTensor {
    leaf(&[0.7, -1.3, 2.1, -0.4, 1.6, -2.2], &[2, 3])
}

fn y3() -> MiniTensor {
    leaf(&[1.5, -0.8, 0.9], &[3])
}

fn case(ops: &'static [&'static str], inputs: Vec<MiniTensor>, f: F) -> Case {
    Case { ops, f, inputs }
}

/// `f` applied in place to a copy of `t[0]` (a non-leaf, so that it may be modified).
fn in_place(f: impl Fn(&mut MiniTensor, &[MiniTensor]) -> Result<(), Error> + 'static) -> F {
    Box::new(move |t| {
        let mut a = t[0].try_clone()?;
        f(&mut a, t)?;
        Ok(vec![a])
    })
}

fn pointwise_cases() -> Vec<Case> {
    let two = Scalar::Int(2);
    vec![
        case(
            &["abs", "sgn"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_abs(&t[0])?])),
        ),
        case(
            &["abs_"],
            vec![x23()],
            in_place(|a, _| a.try_abs_().map(drop)),
        ),
        case(
            &["sgn"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_sgn(&t[0])?])),
        ),
        case(
            &["add.Tensor"],
            vec![x23(), y3()],
            Box::new(move |t| Ok(vec![try_add_with(&t[0], &t[1], AddArgs { alpha: two })?])),
        ),
        case(
            &["add_.Tensor"],
            vec![x23(), y3()],
            in_place(move |a, t| {
                a.try_add_with_(&t[1], AddInplaceArgs { alpha: two })
                    .map(drop)
            }),
        ),
        case(
            &["add.Scalar"],
            vec![x23()],
            Box::new(|t| {
                Ok(vec![try_add_scalar_with(
                    &t[0],
                    Scalar::Float(0.5),
                    AddScalarArgs {
                        alpha: Scalar::Int(3),
                    },
                )?])
            }),
        ),
        case(
            &["sub.Tensor"],
            vec![x23(), y3()],
            Box::new(move |t| Ok(vec![try_sub_with(&t[0], &t[1], SubArgs { alpha: two })?])),
        ),
        case(
            &["sub_.Tensor"],
            vec![x23(), y3()],
            in_place(|a, t| a.try_sub_(&t[1]).map(drop)),
        ),
        case(
            &["sub.Scalar"],
            vec![x23()],
            Box::new(|t| {
                Ok(vec![try_sub_scalar_with(
                    &t[0],
                    Scalar::Float(0.5),
                    SubScalarArgs {
                        alpha: Scalar::Int(3),
                    },
                )?])
            }),
        ),
        case(
            &["mul.Tensor"],
            vec![x23(), y3()],
            Box::new(|t| Ok(vec![try_mul(&t[0], &t[1])?])),
        ),
        case(
            &["mul_.Tensor"],
            vec![x23(), y3()],
            in_place(|a, t| a.try_mul_(&t[1]).map(drop)),
        ),
        case(
            &["mul.Scalar"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_mul_scalar(&t[0], Scalar::Float(-1.5))?])),
        ),
        case(
            &["div.Tensor"],
            vec![x23(), y3()],
            Box::new(|t| Ok(vec![try_div(&t[0], &t[1])?])),
        ),
        case(
            &["div_.Tensor"],
            vec![x23(), y3()],
            in_place(|a, t| a.try_div_(&t[1]).map(drop)),
        ),
        case(
            &["div.Scalar"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_div_scalar(&t[0], Scalar::Float(4.0))?])),
        ),
        case(
            &["neg"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_neg(&t[0])?])),
        ),
        case(
            &["neg_"],
            vec![x23()],
            in_place(|a, _| a.try_neg_().map(drop)),
        ),
        case(
            &["exp"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_exp(&t[0])?])),
        ),
        case(
            &["exp_"],
            vec![x23()],
            in_place(|a, _| a.try_exp_().map(drop)),
        ),
        case(
            &["clamp"],
            vec![x23()],
            Box::new(|t| {
                Ok(vec![try_clamp_with(
                    &t[0],
                    ClampArgs {
                        min: Some(Scalar::Float(-1.0)),
                        max: Some(Scalar::Float(1.0)),
                    },
                )?])
            }),
        ),
        case(
            &["clamp_"],
            vec![x23()],
            in_place(|a, _| {
                ops::try_clamp_with_(
                    a,
                    ClampInplaceArgs {
                        min: Some(Scalar::Float(0.0)),
                        max: None,
                    },
                )
                .map(drop)
            }),
        ),
        case(
            &["relu", "threshold_backward"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_relu(&t[0])?])),
        ),
        case(
            &["relu_"],
            vec![x23()],
            in_place(|a, _| a.try_relu_().map(drop)),
        ),
        case(
            &["threshold_backward"],
            vec![x23(), x23()],
            Box::new(|t| {
                Ok(vec![try_threshold_backward(
                    &t[0],
                    &t[1],
                    Scalar::Float(0.5),
                )?])
            }),
        ),
        case(
            &["where.self"],
            vec![x23(), y3()],
            Box::new(|t| {
                let c = MiniTensor::from_vec(vec![true, false, true], &[3])?;
                Ok(vec![try_where_self(&c, &t[0], &t[1])?])
            }),
        ),
        case(
            &["where.ScalarOther", "where.ScalarSelf"],
            vec![x23()],
            Box::new(|t| {
                let c = MiniTensor::from_vec(vec![true, false, true], &[3])?;
                let a = try_where_scalar_other(&c, &t[0], Scalar::Float(2.0))?;
                Ok(vec![try_where_scalar_self(&c, Scalar::Int(1), &a)?])
            }),
        ),
    ]
}

fn reduction_cases() -> Vec<Case> {
    vec![
        case(
            &["sum", "expand"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_sum(&t[0])?])),
        ),
        case(
            &["sum.dim_IntList", "unsqueeze"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_sum_dim_int_list(&t[0], Some(&[1]))?])),
        ),
        case(
            &["mean"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_mean(&t[0])?])),
        ),
        case(
            &["mean.dim"],
            vec![x23()],
            Box::new(|t| {
                Ok(vec![try_mean_dim_with(
                    &t[0],
                    Some(&[0]),
                    MeanDimArgs {
                        keepdim: true,
                        dtype: None,
                    },
                )?])
            }),
        ),
        case(
            &["max.dim", "scatter.src"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_max_dim(&t[0], 1)?.0])),
        ),
        case(
            &["topk"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_topk(&t[0], 2)?.0])),
        ),
        case(
            &["mm", "t"],
            vec![x23(), leaf(&[0.5, -1.0, 2.0, 1.5, -0.3, 0.8], &[3, 2])],
            Box::new(|t| Ok(vec![try_mm(&t[0], &t[1])?])),
        ),
        case(
            &["matmul"],
            vec![x23(), y3()],
            Box::new(|t| Ok(vec![try_matmul(&t[0], &t[1])?])),
        ),
        case(
            &["cat", "narrow", "slice.Tensor"],
            vec![x23(), y3()],
            Box::new(|t| {
                let row = t[1].try_view(&[1, 3])?;
                Ok(vec![try_cat(&[t[0].share(), row])?])
            }),
        ),
        case(
            &["unbind.int"],
            vec![x23()],
            Box::new(|t| try_unbind_with(&t[0], UnbindArgs { dim: 1 })),
        ),
        case(
            &["stack", "select.int"],
            vec![y3(), y3()],
            Box::new(|t| Ok(vec![try_stack(&[t[0].share(), t[1].share()])?])),
        ),
    ]
}

fn shape_cases() -> Vec<Case> {
    vec![
        case(
            &["clone"],
            vec![x23()],
            Box::new(|t| Ok(vec![t[0].try_clone()?])),
        ),
        case(
            &["fill_.Scalar"],
            vec![x23()],
            in_place(|a, _| a.try_fill_(Scalar::Float(2.0)).map(drop)),
        ),
        case(
            &["zero_"],
            vec![x23()],
            in_place(|a, _| a.try_zero_().map(drop)),
        ),
        case(
            &["copy_"],
            vec![x23(), y3()],
            in_place(|a, t| a.try_copy_(&t[1]).map(drop)),
        ),
        case(
            &["view"],
            vec![x23()],
            Box::new(|t| Ok(vec![t[0].try_view(&[3, 2])?])),
        ),
        case(
            &["reshape", "transpose.int"],
            vec![x23()],
            Box::new(|t| Ok(vec![t[0].try_transpose(0, 1)?.try_reshape(&[6])?])),
        ),
        case(
            &["select.int", "select_backward"],
            vec![x23()],
            Box::new(|t| Ok(vec![t[0].try_select(1, 2)?])),
        ),
        case(
            &["alias"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_alias(&t[0])?])),
        ),
        case(
            &["as_strided"],
            vec![x23()],
            Box::new(|t| {
                Ok(vec![try_as_strided_with(
                    &t[0],
                    &[2, 2],
                    &[1, 2],
                    AsStridedArgs {
                        storage_offset: Some(1),
                    },
                )?])
            }),
        ),
        case(
            &["expand"],
            vec![y3()],
            Box::new(|t| Ok(vec![t[0].try_expand(&[2, 3])?])),
        ),
        case(
            &["unsqueeze", "squeeze.dim"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_unsqueeze(&t[0], 1)?])),
        ),
        case(
            &["squeeze.dim"],
            vec![leaf(&[1.0, 2.0], &[2, 1])],
            Box::new(|t| Ok(vec![try_squeeze_dim(&t[0], 1)?])),
        ),
        case(
            &["slice.Tensor", "slice_backward"],
            vec![x23()],
            Box::new(|t| {
                Ok(vec![try_slice_with(
                    &t[0],
                    SliceArgs {
                        dim: 1,
                        start: Some(1),
                        end: None,
                        step: 2,
                    },
                )?])
            }),
        ),
        case(
            &["t", "contiguous"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_t(&t[0])?.contiguous()])),
        ),
        case(
            &["slice_backward"],
            vec![x23()],
            Box::new(|t| Ok(vec![try_slice_backward(&t[0], &[2, 5], 1, 1, 4, 1)?])),
        ),
        case(
            &["select_backward"],
            vec![y3()],
            Box::new(|t| Ok(vec![try_select_backward(&t[0], &[2, 3], 0, 1)?])),
        ),
    ]
}

fn index_cases() -> Vec<Case> {
    let index = || longs(&[2, 0, 1, 1], &[2, 2]);
    vec![
        case(
            &["gather", "scatter_add"],
            vec![x23()],
            Box::new(move |t| Ok(vec![t[0].try_gather(1, &index())?])),
        ),
        case(
            &["scatter.src", "gather"],
            vec![x23(), leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2])],
            Box::new(move |t| {
                Ok(vec![t[0].try_scatter_src(
                    1,
                    &longs(&[2, 0, 1, 0], &[2, 2]),
                    &t[1],
                )?])
            }),
        ),
        case(
            &["scatter.value"],
            vec![x23()],
            Box::new(move |t| {
                Ok(vec![t[0].try_scatter_value(
                    1,
                    &index(),
                    Scalar::Float(3.0),
                )?])
            }),
        ),
        case(
            &["scatter_add"],
            vec![x23(), leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2])],
            Box::new(move |t| Ok(vec![t[0].try_scatter_add(1, &index(), &t[1])?])),
        ),
    ]
}

fn all_cases() -> Vec<Case> {
    let mut all = pointwise_cases();
    all.extend(reduction_cases());
    all.extend(shape_cases());
    all.extend(index_cases());
    all
}

#[test]
fn every_differentiable_operator_passes_gradcheck() {
    crate::install().unwrap();
    let mut failed = Vec::new();
    for c in all_cases() {
        if let Err(e) = gradcheck(&c.f, &c.inputs, GradcheckOptions::default()) {
            failed.push(format!("{:?}: {e}", c.ops));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// Every operator of the library with an Autograd kernel is checked above; out operators
/// are checked below, as they refuse.
#[test]
fn the_gradcheck_table_covers_every_autograd_kernel() {
    crate::install().unwrap();
    let covered: BTreeSet<&str> = all_cases()
        .iter()
        .flat_map(|c| c.ops.iter().copied())
        .collect();
    let mut missing = Vec::new();
    for op in Dispatcher::global().operators() {
        let Some(schema) = op.schema() else { continue };
        let autograd = op.keys_with_kernels().contains(&DispatchKey::Autograd);
        if op.namespace() != "aten" || schema.is_out_fn() || !autograd {
            continue;
        }
        let name = schema.name.full_name();
        if !covered.contains(name.as_str()) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "no gradcheck for {missing:?}");
}

#[test]
fn out_operators_refuse_inputs_that_require_grad() {
    crate::install().unwrap();
    let (x, y) = (x23(), y3());
    let mut out = doubles(&[0.0; 6], &[2, 3]);
    let err = ops::try_mul_out(&mut out, &x, &y).unwrap_err().to_string();
    assert!(
        err.starts_with("mul(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."),
        "{err}"
    );
    let err = ops::try_abs_out(&mut out, &x).unwrap_err().to_string();
    assert!(err.starts_with("abs(): functions with out="), "{err}");
    // Without grad they run as before.
    let plain = doubles(&[1.0, -2.0], &[2]);
    let mut out = doubles(&[0.0; 2], &[2]);
    ops::try_abs_out(&mut out, &plain).unwrap();
    assert_eq!(out.to_vec::<f64>().unwrap(), [1.0, 2.0]);
}

#[test]
fn meta_tensors_compute_gradient_shapes_through_generated_kernels() {
    let x = MiniTensor::meta(&[2, 3], ScalarType::Float).unwrap();
    let w = MiniTensor::meta(&[3, 4], ScalarType::Float).unwrap();
    x.set_requires_grad(true).unwrap();
    w.set_requires_grad(true).unwrap();
    let h = try_relu(&try_mm(&x, &w).unwrap()).unwrap();
    let loss = try_mean(&try_exp(&h.try_transpose(0, 1).unwrap()).unwrap()).unwrap();
    assert!(loss.is_meta() && loss.shape().is_empty() && loss.requires_grad());
    backward(&[loss], &[], None, false).unwrap();
    let (gx, gw) = (x.grad().unwrap(), w.grad().unwrap());
    assert!(gx.is_meta() && gw.is_meta());
    assert_eq!((gx.shape(), gw.shape()), (vec![2, 3], vec![3, 4]));
    assert_eq!(
        (gx.dtype(), gw.dtype()),
        (ScalarType::Float, ScalarType::Float)
    );
}

#[test]
fn an_in_place_operator_on_a_view_rewrites_the_base_history() {
    crate::install().unwrap();
    let x = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let base = x.try_clone().unwrap();
    let mut row = base.try_select(0, 1).unwrap();
    row.try_mul_(&doubles(&[2.0], &[])).unwrap();
    // PyTorch's CopySlices: the base's history now goes through the in-place operator.
    assert_eq!(base.grad_fn().map(|n| n.name()), Some("CopySlices"));
    // The view's own history: the view replayed on the base's new history.
    assert_eq!(row.grad_fn().map(|n| n.name()), Some("SelectBackward0"));
    let loss = try_sum(&try_mul(&base, &base).unwrap()).unwrap();
    backward(&[loss], &[], None, false).unwrap();
    // d/dx sum(b²) with b = x except row 1 doubled: 2x on row 0, 8x on row 1.
    let g = x.grad().unwrap().to_vec::<f64>().unwrap();
    assert_eq!(g, [2.0, 4.0, 6.0, 32.0, 40.0, 48.0]);
}
