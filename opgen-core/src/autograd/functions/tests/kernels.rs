//! `TT` kernels of the ATen operators the helpers call, on the global dispatcher (namespace
//! `aten`, which no other test of this crate uses there), each `def`ined with the corpus'
//! schema: pointwise arithmetic, comparisons, reductions, factories and conversions.
//! Booleans are 0/1 values; every tensor is `double`.

use super::nd::*;
use crate::autograd::tests::tensor::TT;
use crate::dispatch::{
    Device, DispatchKey as K, Error, Layout, Library, MemoryFormat, Registration, Scalar,
    ScalarType,
};

/// The corpus' schema of `name` (`mul.Tensor`).
pub(crate) fn schema(name: &str) -> String {
    let natives = crate::native::derivatives::tests::corpus();
    let (base, overload) = name.split_once('.').unwrap_or((name, ""));
    (natives.functions().iter())
        .find(|f| {
            f.func.name.name.to_string() == base
                && f.func.name.overload.as_deref().unwrap_or("") == overload
        })
        .map(|f| f.func.to_string())
        .unwrap_or_else(|| panic!("no corpus schema {name}"))
}

/// `def`s `$name` from the corpus and registers `$f` at `$key` (CPU by default).
macro_rules! k {
    ($r:ident, $lib:ident, $name:literal, $f:expr) => {
        k!($r, $lib, $name, K::CPU, $f)
    };
    ($r:ident, $lib:ident, $name:literal, $key:expr, $f:expr) => {
        $r.push($lib.def(&schema($name))?);
        $r.push($lib.impl_($name, $key, $f)?);
    };
}
pub(crate) use k;

pub(crate) fn b(x: bool) -> f64 {
    f64::from(u8::from(x))
}

fn unary(
    r: &mut Vec<Registration>,
    lib: &Library,
    name: &str,
    f: fn(f64) -> f64,
) -> Result<(), Error> {
    r.push(lib.def(&schema(name))?);
    r.push(lib.impl_(name, K::CPU, move |a: &TT| a.map(f))?);
    Ok(())
}

fn binary(
    r: &mut Vec<Registration>,
    lib: &Library,
    name: &str,
    f: fn(f64, f64) -> f64,
) -> Result<(), Error> {
    r.push(lib.def(&schema(name))?);
    r.push(lib.impl_(name, K::CPU, move |a: &TT, c: &TT| TT::zip(a, c, f))?);
    Ok(())
}

fn with_scalar(
    r: &mut Vec<Registration>,
    lib: &Library,
    name: &str,
    f: fn(f64, f64) -> f64,
) -> Result<(), Error> {
    r.push(lib.def(&schema(name))?);
    r.push(lib.impl_(name, K::CPU, move |a: &TT, s: Scalar| {
        a.map(|x| f(x, s.to_f64()))
    })?);
    Ok(())
}

/// `I₀(x)` by its power series.
pub(crate) fn bessel_i0(x: f64) -> f64 {
    let (mut term, mut sum) = (1.0, 1.0);
    for k in 1..60 {
        term *= (x / 2.0) * (x / 2.0) / f64::from(k * k);
        sum += term;
    }
    sum
}

/// `I₁(x)` by its power series.
pub(crate) fn bessel_i1(x: f64) -> f64 {
    let (mut term, mut sum) = (x / 2.0, x / 2.0);
    for k in 1..60 {
        term *= (x / 2.0) * (x / 2.0) / f64::from(k * (k + 1));
        sum += term;
    }
    sum
}

pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

pub(crate) fn register_pointwise(r: &mut Vec<Registration>, lib: &Library) -> Result<(), Error> {
    for (name, f) in [
        ("neg", (|x: f64| -x) as fn(f64) -> f64),
        ("abs", f64::abs),
        ("sgn", |x| if x == 0.0 { 0.0 } else { x.signum() }),
        ("exp", f64::exp),
        ("log", f64::ln),
        ("log1p", f64::ln_1p),
        ("sqrt", f64::sqrt),
        ("reciprocal", f64::recip),
        ("sigmoid", sigmoid),
        ("tanh", f64::tanh),
        ("cosh", f64::cosh),
        ("cos", f64::cos),
        ("sin", f64::sin),
        ("i0", bessel_i0),
        ("special_i0e", |x| bessel_i0(x) * (-x.abs()).exp()),
        ("log_sigmoid", |x| -(-x).exp().ln_1p()),
        ("isnan", |x| b(x.is_nan())),
        ("logical_not", |x| b(x == 0.0)),
        ("real", |x| x),
        ("conj", |x| x),
    ] {
        unary(r, lib, name, f)?;
    }
    for (name, f) in [
        (
            "mul.Tensor",
            (|x: f64, y: f64| x * y) as fn(f64, f64) -> f64,
        ),
        ("div.Tensor", |x, y| x / y),
        ("pow.Tensor_Tensor", f64::powf),
        ("eq.Tensor", |x, y| b(x == y)),
        ("gt.Tensor", |x, y| b(x > y)),
        ("lt.Tensor", |x, y| b(x < y)),
        ("ge.Tensor", |x, y| b(x >= y)),
        ("le.Tensor", |x, y| b(x <= y)),
        ("logical_and", |x, y| b(x != 0.0 && y != 0.0)),
        ("logical_or", |x, y| b(x != 0.0 || y != 0.0)),
        ("bitwise_and.Tensor", |x, y| b(x != 0.0 && y != 0.0)),
        ("sigmoid_backward", |g, o| g * o * (1.0 - o)),
    ] {
        binary(r, lib, name, f)?;
    }
    for (name, f) in [
        (
            "mul.Scalar",
            (|x: f64, s: f64| x * s) as fn(f64, f64) -> f64,
        ),
        ("div.Scalar", |x, s| x / s),
        ("pow.Tensor_Scalar", f64::powf),
        ("eq.Scalar", |x, s| b(x == s)),
        ("gt.Scalar", |x, s| b(x > s)),
        ("lt.Scalar", |x, s| b(x < s)),
        ("ge.Scalar", |x, s| b(x >= s)),
        ("le.Scalar", |x, s| b(x <= s)),
        ("clamp_min", f64::max),
    ] {
        with_scalar(r, lib, name, f)?;
    }
    k!(r, lib, "add.Tensor", |a: &TT, c: &TT, alpha: Scalar| {
        TT::zip(a, c, |x, y| x + alpha.to_f64() * y)
    });
    k!(r, lib, "sub.Tensor", |a: &TT, c: &TT, alpha: Scalar| {
        TT::zip(a, c, |x, y| x - alpha.to_f64() * y)
    });
    k!(r, lib, "add.Scalar", |a: &TT, s: Scalar, alpha: Scalar| a
        .map(|x| x + alpha.to_f64() * s.to_f64()));
    k!(r, lib, "sub.Scalar", |a: &TT, s: Scalar, alpha: Scalar| a
        .map(|x| x - alpha.to_f64() * s.to_f64()));
    k!(r, lib, "rsub.Scalar", |a: &TT, s: Scalar, alpha: Scalar| a
        .map(|x| s.to_f64() - alpha.to_f64() * x));
    k!(r, lib, "logit", |a: &TT, eps: Option<f64>| {
        a.map(|x| {
            let x = eps.map_or(x, |e| x.clamp(e, 1.0 - e));
            (x / (1.0 - x)).ln()
        })
    });
    k!(r, lib, "where.self", |c: &TT, a: &TT, o: &TT| zip3(
        c,
        a,
        o,
        |c, x, y| if c != 0.0 { x } else { y }
    ));
    k!(r, lib, "where.ScalarOther", |c: &TT, a: &TT, o: Scalar| {
        TT::zip(c, a, |c, x| if c != 0.0 { x } else { o.to_f64() })
    });
    k!(r, lib, "where.Scalar", |c: &TT, a: Scalar, o: Scalar| {
        c.map(|c| if c != 0.0 { a.to_f64() } else { o.to_f64() })
    });
    k!(r, lib, "masked_fill.Scalar", |a: &TT, m: &TT, v: Scalar| {
        TT::zip(a, m, |x, m| if m != 0.0 { v.to_f64() } else { x })
    });
    k!(r, lib, "masked_fill.Tensor", |a: &TT, m: &TT, v: &TT| {
        let v = v.values()[0];
        TT::zip(a, m, |x, m| if m != 0.0 { v } else { x })
    });
    k!(r, lib, "result_type.Tensor", |_: &TT, _: &TT| {
        ScalarType::Double
    });
    k!(r, lib, "_masked_scale", |a: &TT, m: &TT, s: f64| TT::zip(
        a,
        m,
        |x, m| x * m * s
    ));
    Ok(())
}

pub(crate) fn register_reductions(r: &mut Vec<Registration>, lib: &Library) -> Result<(), Error> {
    let dims = |d: Option<&[i64]>| d.unwrap_or(&[]).to_vec();
    let total = |v: &[f64]| v.iter().sum::<f64>();
    k!(r, lib, "sum", move |a: &TT, _: Option<ScalarType>| reduce(
        a,
        &[],
        false,
        total
    ));
    k!(
        r,
        lib,
        "sum.dim_IntList",
        move |a: &TT, d: Option<&[i64]>, keep: bool, _: Option<ScalarType>| {
            reduce(a, &dims(d), keep, total)
        }
    );
    let average = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    k!(r, lib, "mean", move |a: &TT, _: Option<ScalarType>| reduce(
        a,
        &[],
        false,
        average
    ));
    k!(
        r,
        lib,
        "mean.dim",
        move |a: &TT, d: Option<&[i64]>, keep: bool, _: Option<ScalarType>| {
            reduce(a, &dims(d), keep, average)
        }
    );
    k!(r, lib, "amax", |a: &TT, d: &[i64], keep: bool| {
        reduce(a, d, keep, |v| {
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        })
    });
    k!(r, lib, "count_nonzero.dim_IntList", |a: &TT, d: &[i64]| {
        reduce(a, d, false, |v| {
            v.iter().filter(|x| **x != 0.0).count() as f64
        })
    });
    k!(
        r,
        lib,
        "all.dims",
        move |a: &TT, d: Option<&[i64]>, keep: bool| {
            reduce(a, &dims(d), keep, |v| b(v.iter().all(|x| *x != 0.0)))
        }
    );
    k!(r, lib, "max.dim", |a: &TT, d: i64, keep: bool| {
        let argmax = |v: &[f64]| {
            (0..v.len()).fold(0, |best, i| if v[i] > v[best] { i } else { best }) as f64
        };
        let values = reduce(a, &[d], keep, |v| {
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        });
        let indices = reduce(a, &[d], keep, argmax);
        (values, indices)
    });
    k!(r, lib, "nonzero", |a: &TT| {
        let found: Vec<Vec<i64>> = (a.values().into_iter().enumerate())
            .filter(|(_, v)| *v != 0.0)
            .map(|(k, _)| unravel(k, a.shape()))
            .collect();
        TT::new(
            &[found.len() as i64, a.shape().len() as i64],
            found.concat().into_iter().map(|i| i as f64).collect(),
        )
    });
    let scan = |v: &[f64], f: fn(f64, f64) -> f64| -> Vec<f64> {
        let mut acc = Vec::with_capacity(v.len());
        for (i, x) in v.iter().enumerate() {
            acc.push(if i == 0 { *x } else { f(acc[i - 1], *x) });
        }
        acc
    };
    k!(
        r,
        lib,
        "cumsum",
        move |a: &TT, d: i64, _: Option<ScalarType>| along(a, d, |v| scan(v, |p, x| p + x))
    );
    k!(
        r,
        lib,
        "cumprod",
        move |a: &TT, d: i64, _: Option<ScalarType>| along(a, d, |v| scan(v, |p, x| p * x))
    );
    k!(r, lib, "logcumsumexp", move |a: &TT, d: i64| {
        along(a, d, |v| {
            scan(v, |p, x| p.max(x) + (-(p - x).abs()).exp().ln_1p())
        })
    });
    k!(
        r,
        lib,
        "linalg_vector_norm",
        |a: &TT, ord: Scalar, d: Option<&[i64]>, keep: bool, _: Option<ScalarType>| {
            let p = ord.to_f64();
            reduce(a, d.unwrap_or(&[]), keep, move |v| {
                if p.is_infinite() {
                    v.iter().fold(0.0f64, |m, x| m.max(x.abs()))
                } else {
                    v.iter().map(|x| x.abs().powf(p)).sum::<f64>().powf(1.0 / p)
                }
            })
        }
    );
    Ok(())
}

pub(crate) fn register_factories(r: &mut Vec<Registration>, lib: &Library) -> Result<(), Error> {
    k!(
        r,
        lib,
        "zeros",
        K::BackendSelect,
        |s: &[i64],
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>| { TT::new(s, vec![0.0; numel(s)]) }
    );
    k!(
        r,
        lib,
        "ones",
        K::BackendSelect,
        |s: &[i64],
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>| { TT::new(s, vec![1.0; numel(s)]) }
    );
    k!(
        r,
        lib,
        "_efficientzerotensor",
        K::BackendSelect,
        |s: &[i64],
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>| { TT::new(s, vec![0.0; numel(s)]) }
    );
    k!(r, lib, "scalar_tensor", K::BackendSelect, |v: Scalar,
                                                   _: Option<
        ScalarType,
    >,
                                                   _: Option<
        Layout,
    >,
                                                   _: Option<
        Device,
    >,
                                                   _: Option<
        bool,
    >| {
        TT::scalar(v.to_f64())
    });
    k!(
        r,
        lib,
        "arange.start_step",
        K::BackendSelect,
        |a: Scalar,
         e: Scalar,
         s: Scalar,
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>| {
            let (a, e, s) = (a.to_f64(), e.to_f64(), s.to_f64());
            let n = ((e - a) / s).ceil().max(0.0) as usize;
            TT::vec(&(0..n).map(|i| a + i as f64 * s).collect::<Vec<_>>())
        }
    );
    k!(
        r,
        lib,
        "zeros_like",
        |a: &TT,
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>,
         _: Option<MemoryFormat>| a.map(|_| 0.0)
    );
    k!(
        r,
        lib,
        "ones_like",
        |a: &TT,
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>,
         _: Option<MemoryFormat>| a.map(|_| 1.0)
    );
    k!(
        r,
        lib,
        "empty_like",
        |a: &TT,
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>,
         _: Option<MemoryFormat>| a.map(|_| 0.0)
    );
    k!(
        r,
        lib,
        "new_zeros",
        |_: &TT,
         s: &[i64],
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>| { TT::new(s, vec![0.0; numel(s)]) }
    );
    k!(
        r,
        lib,
        "to.dtype",
        |a: &TT, _: ScalarType, _: bool, _: bool, _: Option<MemoryFormat>| a.map(|x| x)
    );
    k!(r, lib, "type_as", |a: &TT, _: &TT| a.map(|x| x));
    k!(
        r,
        lib,
        "_to_copy",
        |a: &TT,
         _: Option<ScalarType>,
         _: Option<Layout>,
         _: Option<Device>,
         _: Option<bool>,
         _: bool,
         _: Option<MemoryFormat>| a.map(|x| x)
    );
    k!(r, lib, "contiguous", |a: &TT, _: MemoryFormat| a.map(|x| x));
    k!(r, lib, "clone", |a: &TT, _: Option<MemoryFormat>| a
        .map(|x| x));
    k!(
        r,
        lib,
        "to_dense",
        |a: &TT, _: Option<ScalarType>, _: Option<bool>| a.map(|x| x)
    );
    Ok(())
}
