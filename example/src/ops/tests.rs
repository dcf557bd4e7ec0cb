//! The operators through the dispatcher: values on CPU (views, non-contiguous inputs,
//! broadcasting, promotion), in-place and out variants, shapes and dtypes on Meta, errors.

use opgen::dispatch::{IValue, MemoryFormat, Stack};
use opgen::prelude::*;

use super::*;
use crate::{META, MiniTensor, PRIVATE_USE1};

fn f32s(v: &[f32], s: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(v.to_vec(), s).unwrap()
}

fn i64s(v: &[i64], s: &[i64]) -> MiniTensor {
    MiniTensor::from_vec(v.to_vec(), s).unwrap()
}

fn meta(s: &[i64], dtype: ScalarType) -> MiniTensor {
    MiniTensor::meta(s, dtype).unwrap()
}

#[test]
fn every_registration_succeeded() {
    crate::install().unwrap();
    let _ = Dispatcher::global();
    let errors: Vec<String> = Dispatcher::global_errors()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn arithmetic_broadcasts_promotes_and_defaults_alpha() {
    crate::install().unwrap();
    let a = i64s(&[1, 2, 3], &[3, 1]);
    let b = f32s(&[10.0, 20.0], &[2]);
    let r = add(&a, &b);
    assert_eq!((r.shape(), r.dtype()), (vec![3, 2], ScalarType::Float));
    assert_eq!(
        r.to_vec::<f32>().unwrap(),
        [11.0, 21.0, 12.0, 22.0, 13.0, 23.0]
    );
    let r = add_with(&a, &a, AddArgs { alpha: 10.into() });
    assert_eq!(r.to_vec::<i64>().unwrap(), [11, 22, 33]);
    assert_eq!(a.sub(&a).to_vec::<i64>().unwrap(), [0, 0, 0]);
    assert_eq!(a.mul(&a).dtype(), ScalarType::Long);
    assert_eq!(
        a.div(&i64s(&[2], &[1])).to_vec::<f32>().unwrap(),
        [0.5, 1.0, 1.5]
    );
    // Scalar overloads: a float Scalar makes Long Float; alpha is positional there.
    let r = add_scalar_with(&a, Scalar::Float(0.5), AddScalarArgs { alpha: 2.into() });
    assert_eq!(
        (r.dtype(), r.to_vec::<f32>().unwrap()),
        (ScalarType::Float, vec![2.0, 3.0, 4.0])
    );
    assert_eq!(
        a.mul_scalar(Scalar::Int(2)).to_vec::<i64>().unwrap(),
        [2, 4, 6]
    );
    assert_eq!(
        sub_scalar(&a, Scalar::Int(1)).to_vec::<i64>().unwrap(),
        [0, 1, 2]
    );
    assert_eq!(div_scalar(&a, Scalar::Int(2)).dtype(), ScalarType::Float);
    // A zero-dim Double tensor does not widen a Float tensor.
    let r = add(&b, &MiniTensor::scalar(1.0f64));
    assert_eq!(r.dtype(), ScalarType::Float);
}

#[test]
fn non_contiguous_inputs_and_views() {
    crate::install().unwrap();
    let base = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let t = base.transpose(0, 1); // [3, 2], strides [1, 3]
    assert!(!t.is_contiguous());
    let r = t.add(&f32s(&[100.0, 200.0], &[2]));
    assert_eq!(
        r.to_vec::<f32>().unwrap(),
        [101.0, 204.0, 102.0, 205.0, 103.0, 206.0]
    );
    let col = t.select(1, 0); // = row 0 of base
    assert_eq!(col.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0]);
    assert_eq!(neg(&col).to_vec::<f32>().unwrap(), [-1.0, -2.0, -3.0]);
    // reshape of a non-viewable tensor copies; of a viewable one aliases.
    let flat = t.reshape(&[6]);
    assert!(!flat.shares_storage(&base));
    assert_eq!(
        flat.to_vec::<f32>().unwrap(),
        [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    );
    assert!(base.reshape(&[3, -1]).shares_storage(&base));
    assert!(
        t.try_view(&[6])
            .unwrap_err()
            .to_string()
            .contains("Use .reshape(...) instead")
    );
    // contiguous: the same handle when already contiguous, else a copy.
    assert!(base.contiguous().is_same(&base).unwrap());
    let c = t.contiguous();
    assert!(c.is_contiguous() && !c.shares_storage(&base));
    // clone preserves a dense transposed layout, or makes it contiguous on request.
    assert_eq!(t.clone().stride(), [1, 3]);
    let cc = clone_with(
        &t,
        CloneArgs {
            memory_format: Some(MemoryFormat::Contiguous),
        },
    );
    assert_eq!(cc.stride(), [2, 1]);
    let s = base.as_strided(&[2], &[4]);
    assert_eq!(s.to_vec::<f32>().unwrap(), [1.0, 5.0]);
    assert!(alias(&base).shares_storage(&base));
}

#[test]
fn in_place_on_views_bumps_the_shared_version() {
    crate::install().unwrap();
    let base = f32s(&[1.0, -2.0, 3.0, -4.0], &[2, 2]);
    let mut row = base.select(0, 1);
    let v0 = base.version().unwrap();
    row.add_(&f32s(&[10.0, 10.0], &[2]));
    assert_eq!(base.to_vec::<f32>().unwrap(), [1.0, -2.0, 13.0, 6.0]);
    assert_eq!(base.version().unwrap(), v0 + 1);
    assert_eq!(row.version().unwrap(), v0 + 1);
    let mut t = base.transpose(0, 1);
    t.relu_();
    t.mul_(&f32s(&[2.0], &[1]));
    assert_eq!(base.to_vec::<f32>().unwrap(), [2.0, 0.0, 26.0, 12.0]);
    assert_eq!(base.version().unwrap(), v0 + 3);
    let mut b2 = base.share();
    b2.fill_(Scalar::Float(1.5));
    zero_(&mut b2.select(1, 0));
    assert_eq!(base.to_vec::<f32>().unwrap(), [0.0, 1.5, 0.0, 1.5]);
    clamp_with_(
        &mut b2,
        ClampInplaceArgs {
            min: Some(Scalar::Int(1)),
            max: None,
        },
    );
    assert_eq!(base.to_vec::<f32>().unwrap(), [1.0, 1.5, 1.0, 1.5]);
    assert_eq!(base.version().unwrap(), v0 + 6);
    // An in-place result must fit self: no broadcasting self, no float into Long.
    let mut small = f32s(&[1.0], &[1]);
    let err = small.try_add_(&base).unwrap_err().to_string();
    assert!(
        err.contains("output with shape [1] doesn't match the broadcast shape [2, 2]"),
        "{err}"
    );
    let mut longs = i64s(&[1, 2], &[2]);
    let err = longs.try_exp_().unwrap_err().to_string();
    assert!(
        err.contains("result type Float can't be cast to the desired output type Long"),
        "{err}"
    );
    assert_eq!(longs.version().unwrap(), 0);
}

#[test]
fn out_variants_resize_and_check() {
    crate::install().unwrap();
    let a = f32s(&[1.0, 2.0, 3.0], &[3]);
    let mut out =
        MiniTensor::new_empty(&[0], &TensorOptions::new().dtype(ScalarType::Double)).unwrap();
    let r = add_out(&mut out, &a, &a);
    assert!(r.is_same(&out).unwrap());
    assert_eq!(
        (out.shape(), out.to_vec::<f64>().unwrap()),
        (vec![3], vec![2.0, 4.0, 6.0])
    );
    assert_eq!(out.version().unwrap(), 1);
    let mut long_out = i64s(&[0], &[1]);
    let err = try_div_out(&mut long_out, &a, &a).unwrap_err().to_string();
    assert!(
        err.contains("result type Float can't be cast to the desired output type Long"),
        "{err}"
    );
    // Reductions into an out argument compute in its dtype (the inputs become 1 and 2).
    let mut s = i64s(&[0], &[]);
    sum_int_list_out(&mut s, &f32s(&[1.5, 2.5], &[2]), None);
    assert_eq!(s.item::<i64>().unwrap(), 3);
    let (mut v, mut i) = (f32s(&[], &[0]), i64s(&[], &[0]));
    max_dim_max_out(&mut v, &mut i, &f32s(&[1.0, 5.0, 3.0, 2.0], &[2, 2]), 1);
    assert_eq!(
        (v.to_vec::<f32>().unwrap(), i.to_vec::<i64>().unwrap()),
        (vec![5.0, 3.0], vec![1, 0])
    );
    let mut o = i64s(&[], &[0]);
    abs_out(&mut o, &i64s(&[-1, 2], &[2]));
    assert_eq!(o.to_vec::<i64>().unwrap(), [1, 2]);
    let mut eqo = MiniTensor::from_vec(vec![false], &[1]).unwrap();
    eq_scalar_out(&mut eqo, &a, Scalar::Int(2));
    assert_eq!(eqo.to_vec::<bool>().unwrap(), [false, true, false]);
    let mut c = f32s(&[], &[0]);
    cat_out(&mut c, &[a.share(), a.share()]);
    assert_eq!(c.shape(), [6]);
    let mut st = f32s(&[], &[0]);
    stack_out_with(&mut st, &[a.share(), a.share()], StackOutArgs { dim: 1 });
    assert_eq!(st.shape(), [3, 2]);
}

#[test]
fn reductions_and_named_tuples() {
    crate::install().unwrap();
    let x = f32s(&[1.0, 7.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    assert_eq!(x.sum().item::<f32>().unwrap(), 26.0);
    assert_eq!(
        sum_with(
            &i64s(&[1, 2], &[2]),
            SumArgs {
                dtype: Some(ScalarType::Double)
            }
        )
        .dtype(),
        ScalarType::Double
    );
    let s = sum_dim_int_list_with(
        &x,
        Some(&[0]),
        SumDimIntListArgs {
            keepdim: true,
            dtype: None,
        },
    );
    assert_eq!(
        (s.shape(), s.to_vec::<f32>().unwrap()),
        (vec![1, 3], vec![5.0, 12.0, 9.0])
    );
    assert_eq!(
        mean_dim(&x, Some(&[1])).to_vec::<f32>().unwrap(),
        [11.0 / 3.0, 5.0]
    );
    assert_eq!(x.mean().item::<f32>().unwrap(), 26.0 / 6.0);
    assert!(
        i64s(&[1], &[1])
            .try_mean()
            .unwrap_err()
            .to_string()
            .contains("could not infer output dtype")
    );
    let (values, indices) = max_dim(&x.transpose(0, 1), 1);
    assert_eq!(values.to_vec::<f32>().unwrap(), [4.0, 7.0, 6.0]);
    assert_eq!(indices.to_vec::<i64>().unwrap(), [1, 0, 1]);
    let (v, i) = x.topk(2);
    assert_eq!(
        (v.to_vec::<f32>().unwrap(), i.to_vec::<i64>().unwrap()),
        (vec![7.0, 3.0, 6.0, 5.0], vec![1, 2, 2, 1])
    );
    let (v, _) = topk_with(
        &x,
        1,
        TopkArgs {
            dim: 0,
            largest: false,
            sorted: true,
        },
    );
    assert_eq!(v.to_vec::<f32>().unwrap(), [1.0, 5.0, 3.0]);
    assert_eq!(x.argmax().item::<i64>().unwrap(), 1);
    assert_eq!(
        argmax_with(
            &x,
            ArgmaxArgs {
                dim: Some(1),
                keepdim: true
            }
        )
        .shape(),
        [2, 1]
    );
}

#[test]
fn comparisons_where_clamp_and_unary() {
    crate::install().unwrap();
    let a = i64s(&[1, 5, 3], &[3]);
    let b = f32s(&[2.0, 2.0, 3.0], &[3]);
    assert_eq!(a.eq(&b).to_vec::<bool>().unwrap(), [false, false, true]);
    assert_eq!(lt(&a, &b).to_vec::<bool>().unwrap(), [true, false, false]);
    assert_eq!(
        a.gt_scalar(Scalar::Float(2.5)).to_vec::<bool>().unwrap(),
        [false, true, true]
    );
    let c = a.gt(&b);
    let w = where_self(&c, &a, &b);
    assert_eq!(
        (w.dtype(), w.to_vec::<f32>().unwrap()),
        (ScalarType::Float, vec![2.0, 5.0, 3.0])
    );
    let cl = clamp_with(
        &a,
        ClampArgs {
            min: Some(Scalar::Int(2)),
            max: Some(Scalar::Int(4)),
        },
    );
    assert_eq!(cl.to_vec::<i64>().unwrap(), [2, 4, 3]);
    assert_eq!(
        a.try_clamp().unwrap_err().to_string(),
        "kernel for `aten::clamp` failed: torch.clamp: At least one of 'min' or 'max' must not be None"
    );
    assert_eq!(abs(&i64s(&[-3], &[1])).to_vec::<i64>().unwrap(), [3]);
    assert_eq!(exp(&f32s(&[0.0], &[1])).to_vec::<f32>().unwrap(), [1.0]);
    let bools = MiniTensor::from_vec(vec![true], &[1]).unwrap();
    assert!(
        try_neg(&bools)
            .unwrap_err()
            .to_string()
            .contains("Negation, the `-` operator, on a bool tensor")
    );
}

#[test]
fn matrix_products_and_joins() {
    crate::install().unwrap();
    let a = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let b = a.transpose(0, 1);
    assert_eq!(
        mm(&a, &b).to_vec::<f32>().unwrap(),
        [14.0, 32.0, 32.0, 77.0]
    );
    let v = f32s(&[1.0, 1.0, 1.0], &[3]);
    assert_eq!(matmul(&a, &v).to_vec::<f32>().unwrap(), [6.0, 15.0]);
    let dot = matmul(&v, &v);
    assert_eq!((dot.shape(), dot.item::<f32>().unwrap()), (vec![], 3.0));
    assert_eq!(
        matmul(&f32s(&[1.0, 1.0], &[2]), &a)
            .to_vec::<f32>()
            .unwrap(),
        [5.0, 7.0, 9.0]
    );
    let batch = stack(&[a.share(), a.mul_scalar(Scalar::Int(2))]); // [2, 2, 3]
    let r = batch.matmul(&b); // [2, 2, 2], b broadcast over the batch
    assert_eq!(r.shape(), [2, 2, 2]);
    assert_eq!(r.to_vec::<f32>().unwrap()[4..], [28.0, 64.0, 64.0, 154.0]);
    let err = try_mm(&a, &a).unwrap_err().to_string();
    assert!(
        err.contains("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
        "{err}"
    );
    let c = cat_with(&[a.share(), i64s(&[7, 8, 9], &[1, 3])], CatArgs { dim: 0 });
    assert_eq!((c.shape(), c.dtype()), (vec![3, 3], ScalarType::Float));
    assert_eq!(
        stack_with(&[v.share(), v.share()], StackArgs { dim: -1 }).shape(),
        [3, 2]
    );
}

#[test]
fn factories_take_tensor_options() {
    crate::install().unwrap();
    let z = zeros(&[2, 3], TensorOptions::new().dtype(ScalarType::Long));
    assert_eq!(
        (z.shape(), z.to_vec::<i64>().unwrap()),
        (vec![2, 3], vec![0; 6])
    );
    assert_eq!(
        ones(&[2], TensorOptions::new()).to_vec::<f32>().unwrap(),
        [1.0, 1.0]
    );
    let f = full(&[2], Scalar::Bool(true), TensorOptions::new());
    assert_eq!(f.dtype(), ScalarType::Bool);
    assert_eq!(
        full(&[1], Scalar::Int(7), TensorOptions::new()).dtype(),
        ScalarType::Long
    );
    let r = arange_start_step_with(
        Scalar::Int(1),
        Scalar::Int(10),
        ArangeStartStepArgs {
            step: Scalar::Int(4),
            ..Default::default()
        },
    );
    assert_eq!(r.to_vec::<i64>().unwrap(), [1, 5, 9]);
    let r = arange_start_step_with(
        Scalar::Int(0),
        Scalar::Float(1.0),
        ArangeStartStepArgs {
            step: Scalar::Float(0.5),
            options: TensorOptions::new().dtype(ScalarType::Double),
        },
    );
    assert_eq!(r.to_vec::<f64>().unwrap(), [0.0, 0.5]);
    assert_eq!(empty(&[4], TensorOptions::new()).shape(), [4]);
    assert_eq!(
        empty_with(
            &[4],
            EmptyArgs {
                memory_format: Some(MemoryFormat::Contiguous),
                ..Default::default()
            }
        )
        .shape(),
        [4]
    );
    // The other overloads, and the faithful form.
    assert_eq!(
        arange(Scalar::Int(3), TensorOptions::new())
            .to_vec::<i64>()
            .unwrap(),
        [0, 1, 2]
    );
    assert_eq!(
        arange_start(Scalar::Int(2), Scalar::Int(4), TensorOptions::new()).shape(),
        [2]
    );
    let z = zeros::call((&[3], Some(ScalarType::Long), None, Some(META), None)).unwrap();
    assert_eq!(
        (z.shape(), z.dtype(), z.is_meta()),
        (vec![3], ScalarType::Long, true)
    );
    // Options: meta device, and errors as values.
    let m = zeros(&[5, 2], TensorOptions::new().device(META));
    assert!(m.is_meta() && m.to_vec::<f32>().is_err());
    let e = |r: Result<MiniTensor, Error>| r.unwrap_err().to_string();
    assert!(e(try_zeros(&[2], TensorOptions::new().pin_memory(true))).contains("pin_memory"));
    // A sparse layout selects `SparseCPU`, where MiniTensor has no kernels (as PyTorch).
    let sparse = e(try_ones(&[2], TensorOptions::new().layout(Layout::Sparse)));
    assert!(sparse.contains("from the 'SparseCPU' backend"), "{sparse}");
    let sparse = ones_kernel(&[2], None, Some(Layout::Sparse), None, None);
    assert!(e(sparse).contains("strided layout"));
    assert!(
        e(try_full(&[-1], Scalar::Int(0), TensorOptions::new())).contains("negative dimension")
    );
    assert!(
        e(try_zeros(
            &[1],
            TensorOptions::new().dtype(ScalarType::Half)
        ))
        .contains("got Half")
    );
    // No kernels on PrivateUse1: the CPU fallback makes the tensor on the CPU and moves it.
    let z = zeros(&[2], TensorOptions::new().device(PRIVATE_USE1));
    assert_eq!(
        (z.device(), z.to_vec::<f32>().unwrap()),
        (PRIVATE_USE1, vec![0.0; 2])
    );
    // Without BackendSelect, a factory has no key to dispatch on.
    let _g = opgen::dispatch::ExcludeDispatchKeyGuard::new(DispatchKey::BackendSelect);
    assert!(
        e(try_zeros(&[1], TensorOptions::new()))
            .starts_with("There were no tensor arguments to this function")
    );
}

#[test]
fn meta_tensors_get_shapes_and_dtypes() {
    crate::install().unwrap();
    let a = meta(&[4, 1, 3], ScalarType::Long);
    let b = meta(&[2, 1], ScalarType::Float);
    let check = |t: MiniTensor, shape: &[i64], dtype: ScalarType| {
        assert!(t.is_meta(), "{t:?}");
        assert_eq!((t.shape(), t.dtype()), (shape.to_vec(), dtype));
    };
    check(add(&a, &b), &[4, 2, 3], ScalarType::Float);
    check(a.div(&a), &[4, 1, 3], ScalarType::Float);
    check(
        a.mul_scalar(Scalar::Float(2.0)),
        &[4, 1, 3],
        ScalarType::Float,
    );
    check(exp(&a), &[4, 1, 3], ScalarType::Float);
    check(a.relu(), &[4, 1, 3], ScalarType::Long);
    check(a.eq(&b), &[4, 2, 3], ScalarType::Bool);
    check(
        clamp_with(
            &a,
            ClampArgs {
                min: Some(Scalar::Int(0)),
                max: None,
            },
        ),
        &[4, 1, 3],
        ScalarType::Long,
    );
    check(a.sum(), &[], ScalarType::Long);
    check(b.mean_dim(Some(&[0])), &[1], ScalarType::Float);
    let (v, i) = a.max_dim(0);
    check(v, &[1, 3], ScalarType::Long);
    check(i, &[1, 3], ScalarType::Long);
    let (v, _) = a.topk(2);
    check(v, &[4, 1, 2], ScalarType::Long);
    check(a.argmax(), &[], ScalarType::Long);
    let m = meta(&[5, 3], ScalarType::Double);
    check(mm(&m, &m.transpose(0, 1)), &[5, 5], ScalarType::Double);
    check(
        matmul(&m, &meta(&[3], ScalarType::Double)),
        &[5],
        ScalarType::Double,
    );
    check(cat(&[m.share(), m.share()]), &[10, 3], ScalarType::Double);
    check(
        stack(&[m.share(), m.share()]),
        &[2, 5, 3],
        ScalarType::Double,
    );
    check(m.view(&[15]), &[15], ScalarType::Double);
    check(m.select(1, 2), &[5], ScalarType::Double);
    check(m.clone(), &[5, 3], ScalarType::Double);
    check(
        where_self(
            &meta(&[3], ScalarType::Bool),
            &m,
            &meta(&[5, 1], ScalarType::Float),
        ),
        &[5, 3],
        ScalarType::Double,
    );
    // In place and out on meta: checks and version bumps, no data.
    let mut mm_ = m.share();
    mm_.add_(&meta(&[3], ScalarType::Double));
    assert_eq!(m.version().unwrap(), 1);
    let mut out = meta(&[0], ScalarType::Float);
    add_out(&mut out, &b, &b);
    assert_eq!(out.shape(), [2, 1]);
    // Errors are the same as on CPU.
    assert!(
        try_add(&a, &meta(&[5], ScalarType::Long))
            .unwrap_err()
            .to_string()
            .contains("must match the size")
    );
    // Mixing devices is an error.
    let cpu = f32s(&[1.0], &[1]);
    let err = try_mm(&meta(&[1, 1], ScalarType::Float), &cpu.view(&[1, 1]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Expected all tensors to be on the same device"),
        "{err}"
    );
}

#[test]
fn copy_across_devices_and_the_cpu_fallback_of_private_use1() {
    crate::install().unwrap();
    let cpu = f32s(&[1.0, 2.0], &[2]);
    let dev = cpu.to_device(PRIVATE_USE1).unwrap();
    assert_eq!(dev.device(), PRIVATE_USE1);
    assert!(dev.key_set().contains(DispatchKey::PrivateUse1));
    // copy_ is CompositeExplicitAutograd: it serves PrivateUse1 itself.
    let mut back = f32s(&[0.0, 0.0], &[2]);
    back.copy_(&dev.mul_scalar(Scalar::Int(2)));
    assert_eq!(back.to_vec::<f32>().unwrap(), [2.0, 4.0]);
    assert_eq!(back.version().unwrap(), 1);
    // The other operators have no PrivateUse1 kernel: the CPU fallback runs them.
    let r = add(&dev, &dev);
    assert_eq!(
        (r.device(), r.to_vec::<f32>().unwrap()),
        (PRIVATE_USE1, vec![2.0, 4.0])
    );
    // In place: the CPU result is copied back into the device tensor, one version bump.
    let mut d2 = dev.share();
    d2.neg_();
    assert_eq!(dev.to_vec::<f32>().unwrap(), [-1.0, -2.0]);
    assert_eq!(dev.version().unwrap(), 1);
    // Out: the out tensor is resized and written on the device.
    let mut out = MiniTensor::from_vec_on(Vec::<f32>::new(), &[0], PRIVATE_USE1).unwrap();
    add_out(&mut out, &dev, &dev);
    assert_eq!(
        (out.device(), out.to_vec::<f32>().unwrap()),
        (PRIVATE_USE1, vec![-2.0, -4.0])
    );
    // Views have PrivateUse1 kernels of their own (the fallback refuses views, as in
    // PyTorch): they share the device tensor's storage and version counter, and an
    // in-place operator on a view, run by the fallback, writes through to its base.
    let base = MiniTensor::from_vec_on(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2], PRIVATE_USE1).unwrap();
    let views = [
        base.alias(),
        base.view(&[4]),
        base.transpose(0, 1),
        base.select(0, 1),
        base.as_strided(&[2], &[2]),
    ];
    for v in &views {
        assert_eq!(v.device(), PRIVATE_USE1);
        assert!(v.shares_storage(&base), "{v:?}");
        assert!(v.view_base().unwrap().is_same(&base).unwrap());
    }
    let mut row = base.select(0, 1);
    row.neg_();
    assert_eq!(base.to_vec::<f32>().unwrap(), [1.0, 2.0, -3.0, -4.0]);
    assert_eq!((base.version().unwrap(), row.version().unwrap()), (1, 1));
    // reshape (CompositeImplicitAutograd) reaches the view kernel: a view of the device
    // tensor too.
    assert!(base.reshape(&[4]).shares_storage(&base));
    // A copy out of a meta tensor is an error; into one, a shape check.
    let mut m = meta(&[2], ScalarType::Float);
    m.copy_(&cpu);
    assert!(
        back.try_copy_(&m)
            .unwrap_err()
            .to_string()
            .contains("Cannot copy out of meta tensor")
    );
}

#[test]
fn boxed_calls_by_name() {
    crate::install().unwrap();
    let x = f32s(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let op = Dispatcher::global()
        .find("aten::sum", "dim_IntList")
        .unwrap();
    let mut stack = Stack::from(vec![
        IValue::Tensor(x.share()),
        IValue::IntList(std::sync::Arc::new(vec![1])),
    ]);
    op.fill_defaults(&mut stack).unwrap();
    op.call_boxed(&mut stack).unwrap();
    let r = stack.pop().and_then(IValue::into_tensor).unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), [3.0, 7.0]);
    let op = Dispatcher::global().find("aten::max", "dim").unwrap();
    let mut stack = Stack::from(vec![IValue::Tensor(x), IValue::Int(0)]);
    op.fill_defaults(&mut stack).unwrap();
    op.call_boxed(&mut stack).unwrap();
    assert_eq!(stack.len(), 2);
}

#[test]
fn views_share_the_version_counter_through_in_place_or_view() {
    crate::install().unwrap();
    let base = f32s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    // A view of a view: both share the root's counter and record the root as base.
    let t = base.transpose(0, 1);
    let mut col = t.select(1, 0); // row 0 of base
    assert!(col.view_base().unwrap().is_same(&base).unwrap());
    col.mul_(&f32s(&[10.0], &[1]));
    assert_eq!(base.to_vec::<f32>().unwrap()[..3], [10.0, 20.0, 30.0]);
    let versions = |ts: &[&MiniTensor]| ts.iter().map(|t| t.version().unwrap()).collect::<Vec<_>>();
    assert_eq!(versions(&[&base, &t, &col]), [1, 1, 1]);
    // An out argument that is a view: the base's counter moves too.
    let mut row = base.select(0, 1);
    mul_out(&mut row, &f32s(&[1.0, 1.0, 1.0], &[3]), &f32s(&[2.0], &[1]));
    assert_eq!(base.to_vec::<f32>().unwrap()[3..], [2.0, 2.0, 2.0]);
    assert_eq!(versions(&[&base, &row]), [2, 2]);
    // Functional operators and reads bump nothing.
    let _ = add(&base, &t.transpose(0, 1));
    let _ = base.sum();
    assert_eq!(base.version().unwrap(), 2);
    // reshape (CompositeImplicitAutograd) is a view when it can be, else a copy of its own.
    let viewed = base.reshape(&[3, 2]);
    assert!(viewed.view_base().unwrap().is_same(&base).unwrap());
    let copied = t.reshape(&[6]);
    assert!(!copied.shares_storage(&base)); // (a view of the copy, as in PyTorch)
    assert!(!copied.view_base().unwrap().shares_storage(&base));
    assert_eq!(copied.version().unwrap(), 0);
    // The same on Meta: no data, the same bookkeeping.
    let m = meta(&[2, 3], ScalarType::Float);
    let mut mv = m.select(0, 0);
    mv.zero_();
    assert_eq!(versions(&[&m, &mv]), [1, 1]);
    assert!(mv.view_base().unwrap().is_same(&m).unwrap());
}

#[test]
fn structured_groups_follow_pytorchs_output_rules() {
    crate::install().unwrap();
    // TensorIterator groups cast into `self` and into out arguments of another dtype.
    let mut x = f32s(&[1.0, 2.0], &[2]);
    x.add_(&MiniTensor::from_vec(vec![0.5f64, 0.25], &[2]).unwrap());
    assert_eq!(
        (x.dtype(), x.to_vec::<f32>().unwrap()),
        (ScalarType::Float, vec![1.5, 2.25])
    );
    let mut as_float = f32s(&[], &[0]);
    gt_scalar_out(&mut as_float, &x, Scalar::Float(2.0));
    assert_eq!(as_float.to_vec::<f32>().unwrap(), [0.0, 1.0]);
    // Others need the exact dtype, as in PyTorch (opgen's structured out check).
    let m = f32s(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let mut double =
        MiniTensor::new_empty(&[0], &TensorOptions::new().dtype(ScalarType::Double)).unwrap();
    let err = try_mm_out(&mut double, &m, &m).unwrap_err().to_string();
    assert!(
        err.contains("Expected out tensor to have dtype Float, but got Double instead"),
        "{err}"
    );
    // cat casts into its out argument, with its own message.
    cat_out(&mut double, &[m.share(), m.share()]);
    assert_eq!(
        (double.shape(), double.dtype()),
        (vec![4, 2], ScalarType::Double)
    );
    let mut long = i64s(&[], &[0]);
    let err = try_cat_out(&mut long, &[m.share()])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("torch.cat(): input types can't be cast to the desired output type Long"),
        "{err}"
    );
    // cat's precomputed values: the one-pass path (dim 0, contiguous, one dtype) and the
    // general one agree; a list of skipped tensors gives an empty tensor.
    let t = m.transpose(0, 1);
    let rows = cat(&[m.share(), m.share()]);
    assert_eq!(
        rows.to_vec::<f32>().unwrap(),
        [1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0]
    );
    let general = cat(&[m.share(), t.share()]); // `t` is not contiguous
    assert_eq!(
        general.to_vec::<f32>().unwrap(),
        [1.0, 2.0, 3.0, 4.0, 1.0, 3.0, 2.0, 4.0]
    );
    assert_eq!(
        cat_with(&[m.share(), t.share()], CatArgs { dim: -1 })
            .to_vec::<f32>()
            .unwrap(),
        [1.0, 2.0, 1.0, 3.0, 3.0, 4.0, 2.0, 4.0]
    );
    let skipped = cat(&[f32s(&[], &[0]), f32s(&[], &[0])]);
    assert_eq!(skipped.shape(), [0]);
    // max.dim's meta hands the wrapped dim to the impl.
    let (v, i) = max_dim(&m, -1);
    assert_eq!(
        (v.to_vec::<f32>().unwrap(), i.to_vec::<i64>().unwrap()),
        (vec![2.0, 4.0], vec![1, 1])
    );
    // The Meta kernels come from the structured machinery: no Meta kernel is written here,
    // yet the out operator and its delegates have one.
    for (name, overload) in [
        ("aten::add", "out"),
        ("aten::add", "Tensor"),
        ("aten::add_", "Tensor"),
    ] {
        let op = Dispatcher::global().find(name, overload).unwrap();
        assert!(
            op.keys_with_kernels().contains(&DispatchKey::Meta),
            "{name}.{overload}"
        );
    }
}
