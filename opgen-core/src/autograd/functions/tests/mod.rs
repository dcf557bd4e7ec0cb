//! The helpers on `TT`, with the ATen operators they call registered for it on the global
//! dispatcher (see `kernels`). Values are checked against PyTorch's results worked out by
//! hand, and derivatives against central finite differences of the function they
//! differentiate, written out in plain Rust.

#![allow(clippy::needless_range_loop)] // index arithmetic reads best as loops over indices

mod decompositions;
mod householder;
mod jvps;
mod kernels;
mod kernels_index;
mod kernels_shape;
mod linalg;
mod losses;
mod nd;
mod normalization;
mod pointwise;
mod reductions;
mod reference;
mod shape;
mod solves;

use std::sync::OnceLock;

use super::*;
use crate::autograd::tests::tensor::TT;
use crate::dispatch::{
    DispatchKey as K, Dispatcher, Error, Layout, Registration, Scalar, ScalarType,
};

pub(crate) fn setup() {
    static REGS: OnceLock<Vec<Registration>> = OnceLock::new();
    REGS.get_or_init(|| register().expect("aten operators for TT"));
}

fn register() -> Result<Vec<Registration>, Error> {
    let d = Dispatcher::global();
    let lib = d.library("aten")?;
    let mut r: Vec<Registration> = Vec::new();
    kernels::register_pointwise(&mut r, &lib)?;
    kernels::register_reductions(&mut r, &lib)?;
    kernels::register_factories(&mut r, &lib)?;
    kernels_shape::register_views(&mut r, &lib)?;
    kernels_shape::register_shapes(&mut r, &lib)?;
    kernels_index::register_indexing(&mut r, &lib)?;
    kernels_index::register_index_ops(&mut r, &lib)?;
    kernels_index::register_linalg(&mut r, &lib)?;
    kernels_index::register_backwards(&mut r, &lib)?;
    // Operators without kernels of these features skip them (kept if a test registered
    // them before).
    for key in [K::Autograd, K::ADInplaceOrView] {
        if let Ok(fallback) = d.impls("_").fallback_fallthrough(key) {
            r.push(fallback);
        }
    }
    Ok(r)
}

fn m(rows: i64, cols: i64, values: &[f64]) -> TT {
    TT::new(&[rows, cols], values.to_vec())
}

/// `J(x)ᵀ g` of `f` at `x` by central differences.
pub(crate) fn numeric_vjp(f: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], g: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|i| {
            let (mut plus, mut minus) = (x.to_vec(), x.to_vec());
            plus[i] += h;
            minus[i] -= h;
            let (fp, fm) = (f(&plus), f(&minus));
            (fp.iter().zip(&fm).zip(g))
                .map(|((p, m), g)| g * (p - m) / (2.0 * h))
                .sum()
        })
        .collect()
}

/// Asserts `actual` is `expected` within `1e-6` (relative for large values).
#[track_caller]
pub(crate) fn assert_close(actual: &[f64], expected: &[f64]) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        let ok = (a.is_nan() && e.is_nan()) || a == e || (a - e).abs() <= 1e-6 * (1.0 + e.abs());
        assert!(ok, "{actual:?}\n    vs expected\n{expected:?}");
    }
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
            .find(|f| {
                f.func.name.name.to_string() == name
                    && f.func.name.overload.as_deref().unwrap_or("") == overload
            })
            .map(|f| f.func.clone())
    };
    let bad = super::ops::check_families::<TT>(schema_of);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
