//! Matrix products: `mm` (structured in PyTorch: `mm.out`). `matmul` is
//! CompositeImplicitAutograd and lives in [`crate::ops`], built from other operators.

use opgen::prelude::*;

use super::{Num, OutputMeta, common_device, with_numeric};
use crate::MiniTensor;

/// `mm.out`'s meta (structured in PyTorch): two matrices of one dtype whose inner sizes
/// agree.
pub fn mm_meta(self_: &MiniTensor, mat2: &MiniTensor) -> Result<OutputMeta, Error> {
    let (a, b) = (self_.shape(), mat2.shape());
    if a.len() != 2 {
        return Err(Error::from("self must be a matrix"));
    }
    if b.len() != 2 {
        return Err(Error::from("mat2 must be a matrix"));
    }
    if a[1] != b[0] {
        return Err(Error::from(format!(
            "mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            a[0], a[1], b[0], b[1]
        )));
    }
    if self_.dtype() != mat2.dtype() {
        return Err(Error::from(format!(
            "expected m1 and m2 to have the same dtype, but got: {} != {}",
            self_.dtype(),
            mat2.dtype()
        )));
    }
    if self_.dtype() == ScalarType::Bool {
        return Err(Error::from(
            "\"addmm_impl_cpu_\" not implemented for 'Bool'",
        ));
    }
    let device = common_device(&[self_, mat2])?;
    Ok(OutputMeta::new(vec![a[0], b[1]], self_.dtype(), device))
}

/// `mm.out`'s impl (structured in PyTorch): the naive triple loop over strided inputs.
pub fn mm_impl(self_: &MiniTensor, mat2: &MiniTensor, out: &mut MiniTensor) -> Result<(), Error> {
    let (a, b) = (self_.shape(), mat2.shape());
    let (n, k, m) = (a[0] as usize, a[1] as usize, b[1] as usize);
    with_numeric!(self_.dtype(), |E| {
        let x: Vec<E> = self_.broadcast_values(&a)?;
        let y: Vec<E> = mat2.broadcast_values(&b)?;
        let mut z = vec![E::ZERO; n * m];
        for i in 0..n {
            for p in 0..k {
                let xv = x[i * k + p];
                for j in 0..m {
                    z[i * m + j] = z[i * m + j].add(xv.mul(y[p * m + j]));
                }
            }
        }
        out.scatter(&z)
    }, bool => Err(Error::from("\"addmm_impl_cpu_\" not implemented for 'Bool'")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mm_of_a_transposed_view() {
        let a = MiniTensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]).unwrap();
        let at = crate::kernels::views::transpose(&a, 0, 1).unwrap(); // [[1,3,5],[2,4,6]]
        let meta = mm_meta(&at, &a).unwrap();
        assert_eq!(meta.sizes, [2, 2]);
        let mut out = meta.allocate().unwrap();
        mm_impl(&at, &a, &mut out).unwrap();
        assert_eq!(out.to_vec::<f32>().unwrap(), [35.0, 44.0, 44.0, 56.0]);
        let err = mm_meta(&a, &a).unwrap_err().to_string();
        assert_eq!(
            err,
            "kernel failed: mat1 and mat2 shapes cannot be multiplied (3x2 and 3x2)"
        );
        let d = MiniTensor::from_vec(vec![1.0f64, 2.0], &[2, 1]).unwrap();
        assert!(
            mm_meta(&a, &d)
                .unwrap_err()
                .to_string()
                .contains("Float != Double")
        );
    }
}
