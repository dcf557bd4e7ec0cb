//! Factory functions (`empty`, `zeros`, `ones`, `full`, `arange`) and filling.

use opgen::prelude::*;

use super::{OutputMeta, with_dtype};
use crate::MiniTensor;
use crate::promote::{DEFAULT_FLOAT, scalar_dtype};
use crate::storage::Element;
use crate::tensor::check_options;

/// The meta of a factory: `size` with the TensorOptions parts (checked, defaults filled).
pub fn factory_meta(
    size: &[i64],
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<OutputMeta, Error> {
    crate::shape::check_sizes(size)?;
    let options = check_options(&TensorOptions::from_parts(
        dtype, layout, device, pin_memory,
    ))?;
    Ok(OutputMeta {
        sizes: size.to_vec(),
        options,
    })
}

/// Writes `value` (converted) into every element of `t` (no version bump; a no-op on meta).
pub fn fill(t: &MiniTensor, value: Scalar) -> Result<(), Error> {
    if t.is_meta() {
        return Ok(());
    }
    let n = t.numel() as usize;
    with_dtype!(t.dtype(), |E| t.scatter(&vec![E::from_scalar(value); n]))
}

/// `full`'s dtype when none is given: `Bool`, `Long`, or the default float, from the fill
/// value.
pub fn full_dtype(fill_value: Scalar) -> Result<ScalarType, Error> {
    Ok(match scalar_dtype(fill_value)? {
        ScalarType::Double => DEFAULT_FLOAT,
        d => d,
    })
}

/// `arange`'s meta: the number of elements of `start, start + step, ...` below `end`
/// (above, for a negative step), and the dtype: given, else `Long` when all three are
/// integers, else the default float.
pub fn arange_meta(
    start: Scalar,
    end: Scalar,
    step: Scalar,
    dtype: Option<ScalarType>,
    layout: Option<Layout>,
    device: Option<Device>,
    pin_memory: Option<bool>,
) -> Result<OutputMeta, Error> {
    let all_int = [start, end, step]
        .iter()
        .all(|s| matches!(s, Scalar::Int(_) | Scalar::Bool(_)));
    let dtype = dtype.unwrap_or(if all_int {
        ScalarType::Long
    } else {
        DEFAULT_FLOAT
    });
    if dtype == ScalarType::Bool {
        return Err(Error::from("\"arange_cpu\" not implemented for 'Bool'"));
    }
    let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
    if st == 0.0 {
        return Err(Error::from("step must be nonzero"));
    }
    if !s.is_finite() || !e.is_finite() {
        return Err(Error::from(format!("unsupported range: {s} -> {e}")));
    }
    if !(st > 0.0 && e >= s || st < 0.0 && e <= s) {
        return Err(Error::from(
            "upper bound and larger bound inconsistent with step sign",
        ));
    }
    let len = if dtype == ScalarType::Long {
        let (s, e, st) = (start_i(start), start_i(end), start_i(step));
        (e - s + st - st.signum()) / st
    } else {
        ((e - s) / st).ceil() as i64
    };
    factory_meta(&[len], Some(dtype), layout, device, pin_memory)
}

fn start_i(s: Scalar) -> i64 {
    s.to_i64().unwrap_or(s.to_f64() as i64)
}

/// `arange`'s impl: element `i` is `start + i * step`, computed in the output's dtype.
pub fn arange_impl(start: Scalar, step: Scalar, out: &mut MiniTensor) -> Result<(), Error> {
    let n = out.numel();
    if out.dtype() == ScalarType::Long {
        let (s, st) = (start_i(start), start_i(step));
        out.scatter(&(0..n).map(|i| s + i * st).collect::<Vec<i64>>())
    } else {
        let (s, st) = (start.to_f64(), step.to_f64());
        out.scatter(&(0..n).map(|i| s + i as f64 * st).collect::<Vec<f64>>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arange_lengths_and_dtypes() {
        let m = |a: Scalar, b: Scalar, c: Scalar| arange_meta(a, b, c, None, None, None, None);
        let meta = m(Scalar::Int(0), Scalar::Int(10), Scalar::Int(3)).unwrap();
        assert_eq!(
            (meta.sizes.clone(), meta.dtype()),
            (vec![4], ScalarType::Long)
        );
        let mut out = meta.allocate().unwrap();
        arange_impl(Scalar::Int(0), Scalar::Int(3), &mut out).unwrap();
        assert_eq!(out.to_vec::<i64>().unwrap(), [0, 3, 6, 9]);
        let meta = m(Scalar::Float(1.0), Scalar::Float(2.0), Scalar::Float(0.25)).unwrap();
        assert_eq!(
            (meta.sizes.clone(), meta.dtype()),
            (vec![4], ScalarType::Float)
        );
        let meta = m(Scalar::Int(5), Scalar::Int(0), Scalar::Int(-2)).unwrap();
        assert_eq!(meta.sizes, [3]);
        assert!(
            m(Scalar::Int(0), Scalar::Int(1), Scalar::Int(0))
                .unwrap_err()
                .to_string()
                .contains("step must be nonzero")
        );
        assert!(
            m(Scalar::Int(0), Scalar::Int(-1), Scalar::Int(1))
                .unwrap_err()
                .to_string()
                .contains("inconsistent with step sign")
        );
    }

    #[test]
    fn factory_options_are_checked() {
        let err = |r: Result<OutputMeta, Error>| r.unwrap_err().to_string();
        assert!(
            err(factory_meta(&[2], Some(ScalarType::Half), None, None, None)).contains("got Half")
        );
        assert!(
            err(factory_meta(&[2], None, Some(Layout::Sparse), None, None))
                .contains("strided layout")
        );
        assert!(
            err(factory_meta(
                &[2],
                None,
                None,
                Some("cuda".parse().unwrap()),
                None
            ))
            .contains("got cuda")
        );
        assert!(err(factory_meta(&[2], None, None, None, Some(true))).contains("pin_memory"));
        assert!(err(factory_meta(&[-1], None, None, None, None)).contains("negative dimension -1"));
        assert_eq!(full_dtype(Scalar::Float(1.5)).unwrap(), ScalarType::Float);
        assert_eq!(full_dtype(Scalar::Bool(true)).unwrap(), ScalarType::Bool);
    }
}
