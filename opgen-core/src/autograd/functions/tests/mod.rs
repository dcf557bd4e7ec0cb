//! The helpers on `TT`, with the ATen operators they call registered for it on the global
//! dispatcher (namespace `aten`, which no other test of this crate uses there).

use std::sync::OnceLock;

use super::*;
use crate::autograd::tests::tensor::{TT, contiguous_strides};
use crate::dispatch::{
    Device, DispatchKey as K, Dispatcher, Error, Layout, Registration, Scalar, ScalarType,
};

fn setup() {
    static REGS: OnceLock<Vec<Registration>> = OnceLock::new();
    REGS.get_or_init(|| register().expect("aten operators for TT"));
}

fn geometry_view(t: &TT, sizes: Vec<i64>, strides: Vec<i64>, offset: i64) -> TT {
    t.view_with(sizes, strides, t.offset() + offset)
}

fn wrap(d: i64, n: usize) -> usize {
    wrap_dim(d, n).expect("dim")
}

fn register() -> Result<Vec<Registration>, Error> {
    let d = Dispatcher::global();
    let lib = d.library("aten")?;
    let mut r: Vec<Registration> = Vec::new();
    for schema in [
        "mul.Tensor(Tensor self, Tensor other) -> Tensor",
        "mul.Scalar(Tensor self, Scalar other) -> Tensor",
        "div.Tensor(Tensor self, Tensor other) -> Tensor",
        "div.Scalar(Tensor self, Scalar other) -> Tensor",
        "neg(Tensor self) -> Tensor",
        "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
        "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
        "squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
        "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
        "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
        "mm(Tensor self, Tensor mat2) -> Tensor",
        "t(Tensor(a) self) -> Tensor(a)",
        "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
        "matmul(Tensor self, Tensor other) -> Tensor",
        "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
        "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
        "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
        "ge.Scalar(Tensor self, Scalar other) -> Tensor",
        "le.Scalar(Tensor self, Scalar other) -> Tensor",
        "logical_and(Tensor self, Tensor other) -> Tensor",
        "scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    ] {
        r.push(lib.def(schema)?);
    }
    // Operators without kernels of these features skip them (kept if a test registered
    // them before).
    for key in [K::Autograd, K::ADInplaceOrView] {
        if let Ok(fallback) = d.impls("_").fallback_fallthrough(key) {
            r.push(fallback);
        }
    }
    let cpu = K::CPU;
    r.push(lib.impl_("mul.Tensor", cpu, |a: &TT, b: &TT| {
        TT::zip(a, b, |x, y| x * y)
    })?);
    r.push(lib.impl_("mul.Scalar", cpu, |a: &TT, s: Scalar| {
        a.map(|x| x * s.to_f64())
    })?);
    r.push(lib.impl_("div.Tensor", cpu, |a: &TT, b: &TT| {
        TT::zip(a, b, |x, y| x / y)
    })?);
    r.push(lib.impl_("div.Scalar", cpu, |a: &TT, s: Scalar| {
        a.map(|x| x / s.to_f64())
    })?);
    r.push(lib.impl_("neg", cpu, |a: &TT| a.map(|x| -x))?);
    r.push(lib.impl_("expand", cpu, |a: &TT, size: &[i64], _: bool| {
        let skip = size.len() - a.shape().len();
        let strides = (0..size.len())
            .map(|i| {
                if i < skip || a.shape()[i - skip] != size[i] {
                    0
                } else {
                    a.stride()[i - skip]
                }
            })
            .collect();
        geometry_view(a, size.to_vec(), strides, 0)
    })?);
    r.push(lib.impl_("unsqueeze", cpu, |a: &TT, dim: i64| {
        let d = wrap(dim, a.shape().len() + 1);
        let (mut sizes, mut strides) = (a.shape().to_vec(), a.stride().to_vec());
        let stride = if d < strides.len() {
            strides[d] * sizes[d]
        } else {
            1
        };
        sizes.insert(d, 1);
        strides.insert(d, stride);
        geometry_view(a, sizes, strides, 0)
    })?);
    r.push(lib.impl_("squeeze.dim", cpu, |a: &TT, dim: i64| {
        let d = wrap(dim, a.shape().len());
        let (mut sizes, mut strides) = (a.shape().to_vec(), a.stride().to_vec());
        if sizes[d] == 1 {
            sizes.remove(d);
            strides.remove(d);
        }
        geometry_view(a, sizes, strides, 0)
    })?);
    r.push(lib.impl_("sum", cpu, |a: &TT, _: Option<ScalarType>| {
        TT::scalar(a.values().iter().sum())
    })?);
    r.push(lib.impl_(
        "sum.dim_IntList",
        cpu,
        |a: &TT, dims: Option<&[i64]>, keepdim: bool, _: Option<ScalarType>| {
            sum_dims(a, dims.unwrap_or(&[]), keepdim)
        },
    )?);
    r.push(lib.impl_("view", cpu, |a: &TT, size: &[i64]| {
        TT::new(size, a.values())
    })?);
    r.push(lib.impl_("mm", cpu, |a: &TT, b: &TT| mm2(a, b))?);
    r.push(lib.impl_("t", cpu, |a: &TT| transpose(a, 0, 1))?);
    r.push(lib.impl_("transpose.int", cpu, |a: &TT, d0: i64, d1: i64| {
        let n = a.shape().len();
        transpose(a, wrap(d0, n), wrap(d1, n))
    })?);
    r.push(lib.impl_("matmul", cpu, |a: &TT, b: &TT| mm2(a, b))?);
    // Factories have no tensor argument: their calls carry only the default `BackendSelect`.
    r.push(lib.impl_(
        "zeros",
        K::BackendSelect,
        |size: &[i64],
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>| {
            TT::new(size, vec![0.0; size.iter().product::<i64>() as usize])
        },
    )?);
    r.push(lib.impl_(
        "scatter.src",
        cpu,
        |a: &TT, dim: i64, index: &TT, src: &TT| {
            let mut out = a.values();
            let (ashape, ishape) = (a.shape().to_vec(), index.shape().to_vec());
            let d = wrap(dim, ashape.len());
            let (iv, sv) = (index.values(), src.values());
            for (k, &i) in iv.iter().enumerate() {
                let mut pos = unravel(k, &ishape);
                pos[d] = i as i64;
                out[ravel(&pos, &ashape)] = sv[k];
            }
            TT::new(&ashape, out)
        },
    )?);
    r.push(lib.impl_(
        "narrow",
        cpu,
        |a: &TT, dim: i64, start: i64, length: i64| {
            let d = wrap(dim, a.shape().len());
            let mut sizes = a.shape().to_vec();
            sizes[d] = length;
            geometry_view(a, sizes, a.stride().to_vec(), start * a.stride()[d])
        },
    )?);
    r.push(
        lib.impl_("select.int", cpu, |a: &TT, dim: i64, index: i64| {
            let d = wrap(dim, a.shape().len());
            let (mut sizes, mut strides) = (a.shape().to_vec(), a.stride().to_vec());
            let offset = index * strides[d];
            sizes.remove(d);
            strides.remove(d);
            geometry_view(a, sizes, strides, offset)
        })?,
    );
    r.push(lib.impl_("ge.Scalar", cpu, |a: &TT, s: Scalar| {
        a.map(|x| f64::from(u8::from(x >= s.to_f64())))
    })?);
    r.push(lib.impl_("le.Scalar", cpu, |a: &TT, s: Scalar| {
        a.map(|x| f64::from(u8::from(x <= s.to_f64())))
    })?);
    r.push(lib.impl_("logical_and", cpu, |a: &TT, b: &TT| {
        TT::zip(a, b, |x, y| f64::from(u8::from(x != 0.0 && y != 0.0)))
    })?);
    r.push(lib.impl_(
        "scalar_tensor",
        K::BackendSelect,
        |s: Scalar,
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>| { TT::scalar(s.to_f64()) },
    )?);
    r.push(lib.impl_("where.self", cpu, |c: &TT, a: &TT, b: &TT| {
        let picked = TT::zip(c, a, |c, x| if c != 0.0 { x } else { f64::NAN })?;
        TT::zip(&picked, b, |x, y| if x.is_nan() { y } else { x })
    })?);
    Ok(r)
}

fn unravel(mut i: usize, sizes: &[i64]) -> Vec<i64> {
    let mut index = vec![0; sizes.len()];
    for d in (0..sizes.len()).rev() {
        let n = sizes[d].max(1) as usize;
        index[d] = (i % n) as i64;
        i /= n;
    }
    index
}

fn ravel(index: &[i64], sizes: &[i64]) -> usize {
    (index.iter().zip(contiguous_strides(sizes)))
        .map(|(i, s)| (i * s) as usize)
        .sum()
}

fn transpose(a: &TT, d0: usize, d1: usize) -> TT {
    let (mut sizes, mut strides) = (a.shape().to_vec(), a.stride().to_vec());
    sizes.swap(d0, d1);
    strides.swap(d0, d1);
    geometry_view(a, sizes, strides, 0)
}

fn mm2(a: &TT, b: &TT) -> Result<TT, Error> {
    let (n, k, m) = (
        a.shape()[0] as usize,
        a.shape()[1] as usize,
        b.shape()[1] as usize,
    );
    if b.shape()[0] as usize != k {
        return Err(Error::from("mm: shapes do not match"));
    }
    let (av, bv) = (a.values(), b.values());
    let out = (0..n * m)
        .map(|ij| {
            (0..k)
                .map(|l| av[(ij / m) * k + l] * bv[l * m + ij % m])
                .sum()
        })
        .collect();
    Ok(TT::new(&[n as i64, m as i64], out))
}

fn sum_dims(a: &TT, dims: &[i64], keepdim: bool) -> TT {
    let shape = a.shape().to_vec();
    let dims: Vec<usize> = if dims.is_empty() {
        (0..shape.len()).collect()
    } else {
        dims.iter().map(|&d| wrap(d, shape.len())).collect()
    };
    let kept: Vec<i64> = (shape.iter().enumerate())
        .map(|(i, &n)| if dims.contains(&i) { 1 } else { n })
        .collect();
    let mut out = vec![0.0; kept.iter().product::<i64>() as usize];
    for (k, v) in a.values().into_iter().enumerate() {
        let mut pos = unravel(k, &shape);
        for &d in &dims {
            pos[d] = 0;
        }
        out[ravel(&pos, &kept)] += v;
    }
    let final_shape: Vec<i64> = if keepdim {
        kept
    } else {
        (shape.iter().enumerate())
            .filter(|(i, _)| !dims.contains(i))
            .map(|(_, &n)| n)
            .collect()
    };
    TT::new(&final_shape, out)
}

fn m(rows: i64, cols: i64, values: &[f64]) -> TT {
    TT::new(&[rows, cols], values.to_vec())
}

#[test]
fn scalar_helpers() {
    setup();
    let x = TT::vec(&[1.0, -2.0]);
    assert!(maybe_multiply(&x, Scalar::Int(1)).expect("one").same(&x));
    assert_eq!(
        maybe_multiply(&x, Scalar::Float(2.0))
            .expect("two")
            .values(),
        [2.0, -4.0]
    );
    assert!(
        handle_r_to_c(ScalarType::Double, &x)
            .expect("real")
            .same(&x)
    );
    let g = TT::vec(&[3.0, 3.0]);
    assert_eq!(
        mul_tensor_backward(&g, &x, ScalarType::Double)
            .expect("mul")
            .values(),
        [3.0, -6.0]
    );
    assert_eq!(
        mul_tensor_backward_scalar(&g, Scalar::Int(2), ScalarType::Double)
            .expect("mul")
            .values(),
        [6.0, 6.0]
    );
    assert_eq!(
        div_tensor_self_backward(&g, &x, ScalarType::Double, None)
            .expect("div")
            .values(),
        [3.0, -1.5]
    );
    // d(a/b)/db = -a/b²
    let other = div_tensor_other_backward(&g, &TT::vec(&[4.0, 4.0]), &x, None).expect("div other");
    assert_eq!(other.values(), [-12.0, -3.0]);
    assert!(scalar_conj(Scalar::Int(3)) == Scalar::Int(3));
}

#[test]
fn clamp_backward_passes_the_gradient_inside_the_bounds() {
    setup();
    let (g, x) = (
        TT::vec(&[1.0, 1.0, 1.0, 1.0]),
        TT::vec(&[-2.0, 0.0, 1.0, 3.0]),
    );
    let both = clamp_backward(&g, &x, Some(Scalar::Int(0)), Some(Scalar::Int(1))).expect("clamp");
    assert_eq!(both.values(), [0.0, 1.0, 1.0, 0.0]);
    let lo = clamp_backward(&g, &x, Some(Scalar::Int(0)), None).expect("clamp");
    assert_eq!(lo.values(), [0.0, 1.0, 1.0, 1.0]);
    assert!(clamp_backward(&g, &x, None, None).expect("clamp").same(&g));
}

#[test]
fn sum_and_mean_backward_restore_the_reduced_dimensions() {
    setup();
    let g = TT::vec(&[1.0, 2.0]);
    let full = sum_backward(&g, &[2, 3], Some(&[1]), false).expect("sum");
    assert_eq!(
        (full.shape(), full.values()),
        (&[2i64, 3][..], vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    );
    let mean = mean_backward(&g, &[2, 3], Some(&[-1]), 6, false).expect("mean");
    assert_eq!(
        mean.values(),
        [
            1.0 / 3.0,
            1.0 / 3.0,
            1.0 / 3.0,
            2.0 / 3.0,
            2.0 / 3.0,
            2.0 / 3.0
        ]
    );
    let all = mean_backward(&TT::scalar(6.0), &[2, 3], None, 6, false).expect("mean");
    assert_eq!(all.values(), [1.0; 6]);
    let two = unsqueeze_multiple(&TT::vec(&[5.0]), Some(&[0, 2]), 3).expect("unsqueeze");
    assert_eq!(two.shape(), [1, 1, 1]);
}

#[test]
fn mm_and_matmul_backward() {
    setup();
    let (a, b) = (
        m(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        m(3, 2, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
    );
    let g = m(2, 2, &[1.0, 1.0, 1.0, 1.0]);
    let strided = Layout::Strided;
    let ga = mm_mat1_backward(&g, &b, &[2, 3], &[3, 1], strided, Scalar::Int(1)).expect("mat1");
    assert_eq!(ga.values(), [1.0, 1.0, 2.0, 1.0, 1.0, 2.0]);
    let gb = mm_mat2_backward(&g, &a, &[3, 2], &[2, 1], strided, Scalar::Int(2)).expect("mat2");
    assert_eq!(gb.values(), [10.0, 10.0, 14.0, 14.0, 18.0, 18.0]);
    // The column-major shortcut gives the same values.
    let ga_col = mm_mat1_backward(&g, &b, &[2, 3], &[1, 2], strided, Scalar::Int(1)).expect("mat1");
    assert_eq!(ga_col.values(), ga.values());
    let (gs, go) = matmul_backward(Some(&g), &a, &b, [true, true]).expect("matmul");
    assert_eq!(gs.expect("self").values(), ga.values());
    assert_eq!(go.expect("other").values(), [5.0, 5.0, 7.0, 7.0, 9.0, 9.0]);
    // Matrix times vector: the vector's gradient is a vector again.
    let v = TT::vec(&[1.0, 1.0, 1.0]);
    let (_, gv) =
        matmul_backward(Some(&TT::vec(&[1.0, 1.0])), &a, &v, [false, true]).expect("matmul");
    let gv = gv.expect("vector");
    assert_eq!(
        (gv.shape(), gv.values()),
        (&[3i64][..], vec![5.0, 7.0, 9.0])
    );
    assert!(
        matmul_backward::<TT>(None, &a, &b, [true, true])
            .expect("none")
            .0
            .is_none()
    );
}

#[test]
fn sum_to_and_selection_backward() {
    setup();
    let g = TT::new(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(sum_to(&g, &[3]).expect("sum_to").values(), [5.0, 7.0, 9.0]);
    assert_eq!(sum_to(&g, &[2, 1]).expect("sum_to").values(), [6.0, 15.0]);
    assert_eq!(sum_to(&g, &[]).expect("sum_to").values(), [21.0]);
    let picked = value_selecting_reduction_backward(
        &TT::vec(&[7.0, 8.0]),
        1,
        &TT::vec(&[2.0, 0.0]),
        &[2, 3],
        false,
    )
    .expect("max backward");
    assert_eq!(picked.values(), [0.0, 0.0, 7.0, 8.0, 0.0, 0.0]);
}

#[test]
fn cat_and_stack_backward_split_the_gradient() {
    setup();
    let g = TT::vec(&[1.0, 2.0, 3.0, 4.0, 5.0]);
    let parts = cat_tensors_backward(
        Some(&g),
        &[vec![2], vec![0], vec![3]],
        &[ScalarType::Double; 3],
        0,
    )
    .expect("cat");
    let values: Vec<Vec<f64>> = parts
        .iter()
        .map(|p| p.as_ref().expect("part").values())
        .collect();
    assert_eq!(values, [vec![1.0, 2.0], vec![], vec![3.0, 4.0, 5.0]]);
    let g = TT::new(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]);
    let rows = stack_tensors_backward(Some(&g), 0, &[ScalarType::Double; 2]).expect("stack");
    assert_eq!(rows[1].as_ref().expect("row").values(), [3.0, 4.0]);
    let cols = stack_tensors_backward(Some(&g), -1, &[ScalarType::Double; 2]).expect("stack");
    assert_eq!(cols[0].as_ref().expect("col").values(), [1.0, 3.0]);
    assert!(
        cat_tensors_backward::<TT>(None, &[vec![1]], &[ScalarType::Double], 0).expect("none")[0]
            .is_none()
    );
}

#[test]
fn accessors_and_saved_geometry() {
    setup();
    let x = TT::new(&[2, 3], vec![0.0; 6]);
    assert_eq!(
        (
            size(&x, -1).expect("size"),
            dim(&x).expect("dim"),
            numel(&x).expect("numel")
        ),
        (3, 2, 6)
    );
    assert_eq!(scalar_type(&x).expect("dtype"), ScalarType::Double);
    assert!(!is_complex(&x).expect("complex") && is_floating_type(ScalarType::Double));
    assert_eq!(TensorGeometry::of(&x).expect("geometry").strides, [3, 1]);
    let info = TypeAndSize::of(&x).expect("info");
    assert_eq!(info.zeros::<TT>().expect("zeros").shape(), [2, 3]);
    assert_eq!(
        to_args_sizes(&[x.clone(), TT::vec(&[1.0])]).expect("sizes"),
        [vec![2, 3], vec![1]]
    );
    assert_eq!(
        to_args_scalartypes(&[x]).expect("dtypes"),
        [ScalarType::Double]
    );
    assert_eq!(
        wrap_dim(3, 2).unwrap_err().to_string(),
        "kernel failed: Dimension out of range (expected to be in range of [-2, 1], but got 3)"
    );
}

#[test]
fn every_helper_row_names_a_function_of_its_signature() {
    // The rows are checked at compile time; this counts them.
    assert_eq!(super::table::check_signatures(), HELPERS.len());
    for h in HELPERS {
        assert!(h.defaults.len() <= h.params.len(), "{}", h.cpp);
    }
}

#[test]
fn every_aten_operator_the_helpers_call_has_the_corpus_signature() {
    let natives = crate::native::derivatives::tests::corpus();
    let schema_of = |name: &str, overload: &str| {
        (natives.functions().iter())
            .find(|f| f.func.name.name.to_string() == name && f.func.name.overload.as_deref().unwrap_or("") == overload)
            .map(|f| f.func.clone())
    };
    let bad = super::ops::check_families::<TT>(schema_of);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
