//! Structured kernels (`opgen_tests::structured`): functional, in-place and out variants
//! agree; Meta kernels infer shapes and dtypes without data; out tensors are resized or
//! rejected with PyTorch's messages; a backend with only a functional kernel gets out and
//! in-place variants.

use opgen::prelude::*;
use opgen_tests::DenseTensor;
use opgen_tests::structured::{self as st, StAdd};

fn long(sizes: &[i64], data: &[f64]) -> DenseTensor {
    DenseTensor::new(DispatchKey::CPU, ScalarType::Long, sizes, data)
}

#[test]
fn add_functional_inplace_and_out_agree() {
    let a = DenseTensor::cpu(&[1.0, 2.0, 3.0]);
    let b = DenseTensor::cpu(&[10.0, 20.0, 30.0]);
    let args = st::AddArgs { alpha: 2.into() };
    let functional = st::add_with(&a, &b, args.clone());
    assert_eq!(functional.values(), [21.0, 42.0, 63.0]);
    assert_eq!(a.add(&b).values(), [11.0, 22.0, 33.0]);

    let mut out = DenseTensor::cpu(&[0.0, 0.0, 0.0]);
    let returned = st::add_out_with(&mut out, &a, &b, st::AddOutArgs { alpha: 2.into() });
    assert_eq!(out, functional);
    assert!(returned.same(&out));

    let mut inplace = DenseTensor::cpu(&[1.0, 2.0, 3.0]);
    let alias = inplace.clone();
    let returned = st::add_with_(&mut inplace, &b, st::AddInplaceArgs { alpha: 2.into() });
    assert_eq!(inplace, functional);
    assert!(
        returned.same(&alias),
        "in-place writes into the tensor `self` shares"
    );
}

#[test]
fn abs_and_sum_and_max_agree_across_variants() {
    let x = DenseTensor::cpu_shaped(&[2, 3], &[-1.0, 2.0, -3.0, 4.0, -5.0, 6.0]);
    let abs = st::abs(&x);
    assert_eq!(abs.values(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let mut out = DenseTensor::cpu(&[]);
    st::abs_out(&mut out, &x);
    assert_eq!(out, abs);
    let mut y = DenseTensor::cpu_shaped(&[2, 3], &x.values());
    st::abs_(&mut y);
    assert_eq!(y, abs);

    // The impl receives the normalized dims (`precomputed`).
    let sum = st::sum_dim_int_list(&abs, Some(&[-1]));
    assert_eq!((sum.shape(), sum.values()), (vec![2], vec![6.0, 15.0]));
    let kept = st::sum_dim_int_list_with(
        &abs,
        Some(&[0]),
        st::SumDimIntListArgs {
            keepdim: true,
            dtype: None,
        },
    );
    assert_eq!(
        (kept.shape(), kept.values()),
        (vec![1, 3], vec![5.0, 7.0, 9.0])
    );
    let all = st::sum_dim_int_list(&abs, None);
    assert_eq!((all.shape(), all.values()), (vec![], vec![21.0]));
    let mut out = DenseTensor::cpu(&[0.0, 0.0]);
    st::sum_int_list_out(&mut out, &abs, Some(&[1]));
    assert_eq!(out, sum);
    let as_long = st::sum_dim_int_list_with(
        &abs,
        Some(&[1]),
        st::SumDimIntListArgs {
            keepdim: false,
            dtype: Some(ScalarType::Long),
        },
    );
    assert_eq!(as_long.dtype(), ScalarType::Long);

    let m = DenseTensor::cpu_shaped(&[2, 3], &[1.0, 9.0, 3.0, 7.0, 5.0, 6.0]);
    let (values, indices) = st::max_dim(&m, 1);
    assert_eq!(values.values(), [9.0, 7.0]);
    assert_eq!(
        (indices.values(), indices.dtype()),
        (vec![1.0, 0.0], ScalarType::Long)
    );
    let (mut max, mut at) = (DenseTensor::cpu(&[]), long(&[0], &[]));
    let (v, i) = st::max_dim_max_out(&mut max, &mut at, &m, 1);
    assert_eq!((max.clone(), at.clone()), (values, indices));
    assert!(v.same(&max) && i.same(&at));
}

#[test]
fn meta_kernels_infer_shapes_and_dtypes_without_data() {
    let a = DenseTensor::meta(&[4, 1, 3], ScalarType::Float);
    let b = DenseTensor::meta(&[5, 1], ScalarType::Float);
    let c = st::add(&a, &b);
    assert_eq!(
        (c.device(), c.shape(), c.dtype()),
        (DispatchKey::Meta, vec![4, 5, 3], ScalarType::Float)
    );
    assert!(c.values().is_empty());

    let s = st::sum_dim_int_list_with(
        &a,
        Some(&[0, 2]),
        st::SumDimIntListArgs {
            keepdim: true,
            dtype: Some(ScalarType::Double),
        },
    );
    assert_eq!((s.shape(), s.dtype()), (vec![1, 1, 1], ScalarType::Double));
    let (values, indices) = st::max_dim_with(&a, 2, st::MaxDimArgs { keepdim: true });
    assert_eq!(
        (values.shape(), indices.shape(), indices.dtype()),
        (vec![4, 1, 1], vec![4, 1, 1], ScalarType::Long)
    );

    // Out on Meta resizes the out tensor; in-place on Meta checks shapes.
    let mut out = DenseTensor::meta(&[1], ScalarType::Float);
    st::abs_out(&mut out, &a);
    assert_eq!(out.shape(), [4, 1, 3]);
    let mut small = DenseTensor::meta(&[3], ScalarType::Float);
    let err = st::try_add_(&mut small, &a).unwrap_err().to_string();
    assert!(
        err.contains(
            "Bad in-place call: input tensor size [3] and output tensor size [4, 1, 3] should match"
        ),
        "{err}"
    );

    // Meta kernels exist for the out operator and every delegate.
    for (name, overload) in [
        ("st::add", "out"),
        ("st::add", "Tensor"),
        ("st::add_", "Tensor"),
        ("st::max", "dim"),
    ] {
        let op = Dispatcher::global().find(name, overload).unwrap();
        assert!(
            op.keys_with_kernels().contains(&DispatchKey::Meta),
            "{name}.{overload}"
        );
    }
}

#[test]
fn out_resizes_only_when_the_shape_differs_and_checks_dtype_and_device() {
    let a = DenseTensor::cpu_shaped(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let mut out = DenseTensor::cpu(&[7.0]);
    st::add_out(&mut out, &a, &a);
    assert_eq!(
        (out.shape(), out.values()),
        (vec![2, 2], vec![2.0, 4.0, 6.0, 8.0])
    );

    let mut wrong_dtype = long(&[2, 2], &[0.0; 4]);
    let err = st::try_add_out(&mut wrong_dtype, &a, &a)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "Expected out tensor to have dtype Double, but got Long instead (`st::add.out` at `CPU`)"
    );

    // Meta is the higher key: a call with any meta tensor runs the Meta kernel, whose meta
    // function takes the device of `self`.
    let meta_in = DenseTensor::meta(&[2, 2], ScalarType::Double);
    let mut meta_out = DenseTensor::meta(&[1], ScalarType::Double);
    let err = st::try_abs_out(&mut meta_out, &a).unwrap_err().to_string();
    assert_eq!(
        err,
        "Expected out tensor to have device cpu, but got meta instead (`st::abs.out` at `Meta`)"
    );
    let mut cpu_out = DenseTensor::cpu_shaped(&[2, 2], &[0.0; 4]);
    let err = st::try_abs_out(&mut cpu_out, &meta_in)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "Expected out tensor to have device meta, but got cpu instead (`st::abs.out` at `Meta`)"
    );
    st::abs_out(&mut meta_out, &meta_in);
    assert_eq!(meta_out.shape(), [2, 2]);
}

#[test]
fn in_place_never_resizes() {
    let mut row = DenseTensor::cpu(&[1.0, 2.0]);
    let m = DenseTensor::cpu_shaped(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let err = st::try_add_(&mut row, &m).unwrap_err().to_string();
    assert_eq!(
        err,
        "Bad in-place call: input tensor size [2] and output tensor size [2, 2] should match (`st::add.out` at `CPU`)"
    );
    assert_eq!(
        row.values(),
        [1.0, 2.0],
        "a failed in-place call leaves `self` alone"
    );
}

#[test]
fn a_functional_only_backend_gets_derived_out_and_inplace() {
    let private = |data: &[f64]| {
        DenseTensor::new(
            DispatchKey::PrivateUse1,
            ScalarType::Double,
            &[data.len() as i64],
            data,
        )
    };
    let x = private(&[1.0, -2.0, 3.0]);
    assert_eq!(st::neg(&x).values(), [-1.0, 2.0, -3.0]);

    let mut out = private(&[0.0]);
    let returned = st::neg_out(&mut out, &x);
    assert_eq!(
        (out.shape(), out.values()),
        (vec![3], vec![-1.0, 2.0, -3.0])
    );
    assert!(returned.same(&out));

    let mut y = private(&[4.0, 5.0]);
    let alias = y.clone();
    st::neg_(&mut y);
    assert_eq!(alias.values(), [-4.0, -5.0]);

    // In-place on Meta without a Meta kernel: `self` comes back unchanged (§5.8).
    let mut m = DenseTensor::meta(&[2, 3], ScalarType::Float);
    let back = st::neg_(&mut m);
    assert!(back.same(&m));
    let table = Dispatcher::global()
        .find("st::neg_", "")
        .unwrap()
        .dispatch_table()
        .to_string();
    assert!(
        table.contains("PrivateUse1") && table.contains("Meta"),
        "{table}"
    );
    // CPU has no functional kernel, so nothing is derived there.
    let err =
        st::try_neg_out(&mut DenseTensor::cpu(&[0.0]), &DenseTensor::cpu(&[1.0])).unwrap_err();
    assert!(
        err.to_string().starts_with("Could not run 'st::neg.out'"),
        "{err}"
    );
}

#[test]
fn boxed_calls_reach_structured_kernels() {
    let op = Dispatcher::global().find("st::add", "Tensor").unwrap();
    let a = DenseTensor::cpu(&[1.0, 2.0]);
    let mut stack = Stack::from(vec![IValue::Tensor(a.clone()), IValue::Tensor(a)]);
    op.fill_defaults(&mut stack).unwrap();
    op.call_boxed(&mut stack).unwrap();
    let sum = stack.pop().and_then(IValue::into_tensor).unwrap();
    assert_eq!(sum.values(), [2.0, 4.0]);
    assert!(
        Dispatcher::global_errors()
            .iter()
            .all(|e| !e.to_string().contains("st::")),
        "{:?}",
        Dispatcher::global_errors()
    );
}

#[test]
fn a_custom_meta_base_sees_every_output_and_reaches_the_impl() {
    let a = DenseTensor::cpu_shaped(&[2, 2], &[1.0, 2.0, 3.0, 4.0]);
    let b = DenseTensor::cpu(&[10.0]);
    let product = st::mul(&a, &b);
    assert_eq!(
        (product.shape(), product.values()),
        (vec![2, 2], vec![10.0, 20.0, 30.0, 40.0])
    );
    let mut out = DenseTensor::cpu(&[]);
    st::mul_out(&mut out, &a, &b);
    assert_eq!(out, product);
    let mut inplace = DenseTensor::cpu_shaped(&[2, 2], &a.values());
    st::mul_(&mut inplace, &b);
    assert_eq!(inplace, product);
    // On Meta the base is told too, and no impl runs.
    let meta = st::mul(&DenseTensor::meta(&[3, 1], ScalarType::Double), &b);
    assert_eq!(meta.shape(), [3, 1]);
}

#[test]
fn composite_from_out_serves_a_backend_with_only_an_out_kernel() {
    let pu1 = |data: &[f64]| {
        DenseTensor::new(
            DispatchKey::PrivateUse1,
            ScalarType::Double,
            &[data.len() as i64],
            data,
        )
    };
    let (a, b) = (pu1(&[5.0, 7.0]), pu1(&[1.0, 2.0]));
    let difference = st::sub(&a, &b);
    assert_eq!(difference.values(), [4.0, 5.0]);
    assert_eq!(difference.device(), DispatchKey::PrivateUse1);
    let mut inplace = pu1(&[5.0, 7.0]);
    st::sub_(&mut inplace, &b);
    assert_eq!(inplace.values(), [4.0, 5.0]);
    // The composite kernels sit at CompositeExplicitAutograd.
    let op = Dispatcher::global().find("st::sub", "Tensor").unwrap();
    assert!(
        op.keys_with_kernels()
            .contains(&DispatchKey::CompositeExplicitAutograd),
        "{:?}",
        op.keys_with_kernels()
    );
}
