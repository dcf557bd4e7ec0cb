//! Derivatives of spectral decompositions and of least squares: SVD, eigendecompositions,
//! QR, `lstsq`.

use super::Gradients3;
use super::accessors::is_complex;
use super::decompositions::{missing, with_diag};
use super::linalg::{pinv_backward, pinv_jvp};
use super::ops::*;
use super::solves::is_vector_rhs;
use super::{conj, scalar_type, size};
use crate::dispatch::{Error, ScalarType, Tensor};

/// `E` with `E_jk = S_k² - S_j²` off the diagonal and 1 on it.
fn singular_gaps<T: Tensor>(s: &T) -> Result<T, Error> {
    let s2 = mul(s, s)?;
    let e = sub(&unsqueeze(&s2, -2)?, &unsqueeze(&s2, -1)?)?;
    with_diag(&e, &ones_like(&diag(&e)?)?)
}

/// `linalg_svd`'s derivative, for distinct singular values (full rank for rectangular or
/// complex inputs); complex inputs are checked for a loss independent of the singular
/// vectors' phases (`svd_backward`).
pub fn svd_backward<T: Tensor>(
    gu: Option<&T>,
    gs: Option<&T>,
    gvh: Option<&T>,
    u: &T,
    s: &T,
    vh: &T,
) -> Result<Option<T>, Error> {
    if gs.is_none() && gu.is_none() && gvh.is_none() {
        return Ok(None);
    }
    let (m, n) = (size(u, -2)?, size(vh, -1)?);
    if gu.is_none() && gvh.is_none() {
        let gs = gs.ok_or_else(missing)?;
        let out = if m >= n {
            matmul(u, &mul(&unsqueeze(gs, -1)?, vh)?)?
        } else {
            matmul(&mul(u, &unsqueeze(gs, -2)?)?, vh)?
        };
        return Ok(Some(out));
    }
    let complex = is_complex(u)?;
    let skew = |x: &T| sub(x, &m_h(x)?);
    let uhgu = gu.map(|g| skew(&matmul(&m_h(u)?, g)?)).transpose()?;
    let vhgv = gvh.map(|g| skew(&matmul(vh, &m_h(g)?)?)).transpose()?;
    if complex {
        let im = |x: &Option<T>| match x {
            Some(x) => imag(&diag(x)?),
            None => zeros_like(s),
        };
        let phases_cancel = allclose(&im(&uhgu)?, &neg(&im(&vhgv)?)?, 1e-2, 1e-2, false)?;
        if !phases_cancel {
            return Err(Error::from(
                "svd_backward: The singular vectors in the complex case are specified up to multiplication by e^{i phi}. \
                 The specified loss function depends on this phase term, making it ill-defined.",
            ));
        }
    }
    let e = singular_gaps(s)?;
    let mut ga = match (&uhgu, &vhgv) {
        (Some(a), Some(b)) => div(
            &add(&mul(a, &unsqueeze(s, -2)?)?, &mul(&unsqueeze(s, -1)?, b)?)?,
            &e,
        )?,
        (Some(a), None) => mul(&div(a, &e)?, &unsqueeze(s, -2)?)?,
        (None, Some(b)) => mul(&unsqueeze(s, -1)?, &div(b, &e)?)?,
        (None, None) => return Err(missing()),
    };
    if let Some(gs) = gs {
        ga = add(&ga, &embed_diag(gs)?)?;
    }
    if let (true, Some(a), Some(_)) = (complex, &uhgu, &vhgv) {
        ga = add(&ga, &embed_diag(&div(&diag(a)?, &mul_n(s, 2.0)?)?)?)?;
    }
    let ga = match (gu, gvh) {
        (Some(gu), _) if m > n => {
            let ga = matmul(u, &ga)?;
            let gu_sinv = div(gu, &unsqueeze(s, -2)?)?;
            let ga = sub(
                &add(&ga, &gu_sinv)?,
                &matmul(u, &matmul(&m_h(u)?, &gu_sinv)?)?,
            )?;
            matmul(&ga, vh)?
        }
        (_, Some(gvh)) if m < n => {
            let ga = matmul(&ga, vh)?;
            let sinv_gvh = div(gvh, &unsqueeze(s, -1)?)?;
            let ga = sub(
                &add(&ga, &sinv_gvh)?,
                &matmul(&matmul(&sinv_gvh, &m_h(vh)?)?, vh)?,
            )?;
            matmul(u, &ga)?
        }
        _ if m >= n => matmul(u, &matmul(&ga, vh)?)?,
        _ => matmul(&matmul(u, &ga)?, vh)?,
    };
    Ok(Some(ga))
}

/// `linalg_svd`'s forward derivative (`linalg_svd_jvp`): with `dP = Uᴴ dA V`, `dS =
/// Re(diag dP)`, `dU = U (sym(dX S) / E + i Im(diag dX) / 2S)` and `dVh = (-sym(S dX) / E
/// + i Im(diag dX) / 2S) Vh`, plus the components outside the span for rectangular inputs.
pub fn linalg_svd_jvp<T: Tensor>(
    da: &T,
    u_: &T,
    s: &T,
    vh_: &T,
    full_matrices: bool,
) -> Result<Gradients3<T>, Error> {
    let complex = is_complex(da)?;
    let (m, n, k) = (size(da, -2)?, size(da, -1)?, size(s, -1)?);
    let u = if full_matrices {
        narrow(u_, -1, 0, k)?
    } else {
        u_.clone()
    };
    let vh = if full_matrices {
        narrow(vh_, -2, 0, k)?
    } else {
        vh_.clone()
    };
    let v = m_h(&vh)?;
    let dp = if m < n {
        matmul(&m_h(&u)?, &matmul(da, &v)?)?
    } else {
        matmul(&matmul(&m_h(&u)?, da)?, &v)?
    };
    let ds = if complex {
        real(&diag(&dp)?)?
    } else {
        diag(&dp)?
    };
    let dp = sub(&dp, &embed_diag(&ds)?)?;
    let e = singular_gaps(s)?;
    let sym = |x: &T| add(x, &m_h(x)?);
    let diag_dp_2s = if complex {
        Some(div(&diag(&dp)?, &mul_n(s, 2.0)?)?)
    } else {
        None
    };
    let with_imag = |x: T| match &diag_dp_2s {
        Some(d) => add(&x, &embed_diag(d)?),
        None => Ok(x),
    };
    let mut du = matmul(
        &u,
        &with_imag(div(&sym(&mul(&dp, &unsqueeze(s, -2)?)?)?, &e)?)?,
    )?;
    if m > n {
        let davs = matmul(da, &div(&v, &unsqueeze(s, -2)?)?)?;
        du = sub(&add(&du, &davs)?, &matmul(&u, &matmul(&m_h(&u)?, &davs)?)?)?;
        if full_matrices {
            let mut shape = du.sizes()?;
            let last = shape.len() - 1;
            shape[last] = m - n;
            du = cat(&[du.clone(), new_zeros(&du, &shape)?], -1)?;
        }
    }
    let mut dvh = matmul(
        &with_imag(div(&sym(&mul(&dp, &unsqueeze(&neg(s)?, -1)?)?)?, &e)?)?,
        &vh,
    )?;
    if m < n {
        let uhdas = matmul(&div(&m_h(&u)?, &unsqueeze(s, -1)?)?, da)?;
        dvh = sub(&add(&dvh, &uhdas)?, &matmul(&matmul(&uhdas, &v)?, &vh)?)?;
        if full_matrices {
            let mut shape = dvh.sizes()?;
            let at = shape.len() - 2;
            shape[at] = n - m;
            dvh = cat(&[dvh.clone(), new_zeros(&dvh, &shape)?], -2)?;
        }
    }
    Ok((Some(du), Some(ds), Some(dvh)))
}

/// Checks that the loss does not depend on the eigenvectors' phases (complex case).
fn check_phase_invariance<T: Tensor>(diag_vhgv: &T, is_hermitian: bool) -> Result<(), Error> {
    let im = imag(diag_vhgv)?;
    if allclose(&im, &zeros_like(&im)?, 1e-2, 1e-2, false)? {
        return Ok(());
    }
    let name = if is_hermitian {
        "linalg_eigh_backward"
    } else {
        "linalg_eig_backward"
    };
    Err(Error::from(format!(
        "{name}: The eigenvectors in the complex case are specified up to multiplication by e^{{i phi}}. \
         The specified loss function depends on this quantity, so it is ill-defined."
    )))
}

/// `linalg_eig`'s and `linalg_eigh`'s derivative: `V⁻ᴴ (diag(gL) + (Vᴴ gV - Vᴴ V diag(Re(Vᴴ
/// gV))) / E*) Vᴴ` (the skew-Hermitian part of `Vᴴ gV` for `eigh`), with `E_ij = L_j - L_i`
/// (`linalg_eig_backward`).
pub fn linalg_eig_backward<T: Tensor>(
    gl: Option<&T>,
    gv: Option<&T>,
    l: &T,
    v: &T,
    is_hermitian: bool,
    symeig_eigenvectors: bool,
) -> Result<Option<T>, Error> {
    if !symeig_eigenvectors {
        return Err(Error::from(
            "linalg_eig_backward: torch.symeig(A, eigenvectors=False) is not differentiable. \
             Use torch.linalg.eigvalsh(A) instead.",
        ));
    }
    let Some(gv) = gv else {
        let Some(gl) = gl else { return Ok(None) };
        let out = if is_hermitian {
            matmul(&mul(v, &unsqueeze(gl, -2)?)?, &m_h(v)?)?
        } else {
            linalg_solve(&m_h(v)?, &mul(&unsqueeze(gl, -1)?, &m_h(v)?)?, true)?
        };
        return Ok(Some(out));
    };
    let vhgv = matmul(&m_h(v)?, gv)?;
    let diag_vhgv = diag(&vhgv)?;
    if is_complex(v)? {
        check_phase_invariance(&diag_vhgv, is_hermitian)?;
    }
    let vhgv = if is_hermitian {
        mul_n(&sub(&vhgv, &m_h(&vhgv)?)?, 0.5)?
    } else {
        let re = if is_complex(&diag_vhgv)? {
            real(&diag_vhgv)?
        } else {
            diag_vhgv.clone()
        };
        sub(&vhgv, &matmul(&m_h(v)?, &mul(v, &unsqueeze(&re, -2)?)?)?)?
    };
    let lconj = conj(l)?;
    let econj = sub(&unsqueeze(&lconj, -2)?, &unsqueeze(&lconj, -1)?)?;
    let econj = with_diag(&econj, &ones_like(&diag(&econj)?)?)?;
    let mut ga = div(&vhgv, &econj)?;
    if let Some(gl) = gl {
        ga = with_diag(&ga, gl)?;
    }
    let out = if is_hermitian {
        matmul(v, &matmul(&ga, &m_h(v)?)?)?
    } else {
        linalg_solve(&m_h(v)?, &matmul(&ga, &m_h(v)?)?, true)?
    };
    Ok(Some(out))
}

/// `c10::toComplexType`.
fn complex_type(dtype: ScalarType) -> ScalarType {
    match dtype {
        ScalarType::Half => ScalarType::ComplexHalf,
        ScalarType::Float => ScalarType::ComplexFloat,
        ScalarType::Double => ScalarType::ComplexDouble,
        other => other,
    }
}

/// `linalg_eig`'s and `linalg_eigh`'s forward derivative: `dL = diag(V⁻¹ dA V)`, `dV = V
/// (offdiag(V⁻¹ dA V) / E)` normalized (`linalg_eig_jvp`).
pub fn linalg_eig_jvp<T: Tensor>(
    da: &T,
    l: &T,
    v: &T,
    is_hermitian: bool,
) -> Result<(Option<T>, Option<T>), Error> {
    let dp = if is_hermitian {
        matmul(&matmul(&m_h(v)?, da)?, v)?
    } else {
        let da_c = to(da, complex_type(scalar_type(da)?))?;
        linalg_solve(v, &matmul(&da_c, v)?, true)?
    };
    let dl = if is_hermitian && is_complex(da)? {
        real(&diag(&dp)?)?
    } else {
        diag(&dp)?
    };
    let dx = div(&dp, &sub(&unsqueeze(l, -2)?, &unsqueeze(l, -1)?)?)?;
    let dx = with_diag(&dx, &zeros_like(&diag(&dx)?)?)?;
    let dx = matmul(v, &dx)?;
    let dv = if is_hermitian {
        dx
    } else {
        let d = diag(&matmul(&m_h(v)?, &dx)?)?;
        let re = if is_complex(&d)? { real(&d)? } else { d };
        sub(&dx, &mul(v, &unsqueeze(&re, -2)?)?)?
    };
    Ok((Some(dl), Some(dv)))
}

/// `at::native::_parse_qr_mode`: whether Q is computed, and whether it is reduced.
fn parse_qr_mode(mode: &str) -> Result<(bool, bool), Error> {
    match mode {
        "reduced" => Ok((true, true)),
        "complete" => Ok((true, false)),
        "r" => Ok((false, true)),
        other => Err(Error::from(format!(
            "qr received unrecognized mode '{other}' but expected one of 'reduced' (default), 'r', or 'complete'"
        ))),
    }
}

/// Checks that the QR decomposition of an `m × n` input is differentiable in `mode`.
fn check_qr_mode(mode: &str, m: i64, n: i64) -> Result<(), Error> {
    let (compute_q, reduced) = parse_qr_mode(mode)?;
    if !compute_q {
        return Err(Error::from(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. \
             Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.",
        ));
    }
    if !reduced && m > n {
        return Err(Error::from(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.",
        ));
    }
    Ok(())
}

/// `X` with its diagonal's real part scaled by `factor` (`real(X.diagonal()).mul_(factor)`).
fn scale_real_diag<T: Tensor>(x: &T, factor: f64) -> Result<T, Error> {
    let d = diag(x)?;
    let re = if is_complex(&d)? { real(&d)? } else { d };
    sub(x, &embed_diag(&mul_n(&re, 1.0 - factor)?)?)
}

/// `linalg_qr`'s derivative (`linalg_qr_backward`): for `m ≥ n`, `(gQ + Q syminvadj(triu(gR
/// Rᴴ - Qᴴ gQ))) R⁻ᴴ`; for `m < n`, through the leading square block of `R`.
pub fn linalg_qr_backward<T: Tensor>(
    gq: Option<&T>,
    gr: Option<&T>,
    q: &T,
    r: &T,
    mode: &str,
) -> Result<Option<T>, Error> {
    let (m, n) = (size(q, -2)?, size(r, -1)?);
    check_qr_mode(mode, m, n)?;
    let ga = match (gq, gr) {
        (None, None) => return Ok(None),
        (Some(gq), Some(gr)) => sub(&matmul(gr, &m_h(r)?)?, &matmul(&m_h(q)?, gq)?)?,
        (Some(gq), None) => neg(&matmul(&m_h(q)?, gq)?)?,
        (None, Some(gr)) => matmul(gr, &m_h(r)?)?,
    };
    if m >= n {
        let triu_ga = triu(&ga, 0)?;
        let mut ga = matmul(q, &scale_real_diag(&add(&triu_ga, &m_h(&triu_ga)?)?, 0.5)?)?;
        if let Some(gq) = gq {
            ga = add(&ga, gq)?;
        }
        return linalg_solve_triangular(&m_h(r)?, &ga, false, false, false).map(Some);
    }
    let x = neg(&ga)?;
    let mut skew = tril(&sub(&x, &m_h(&x)?)?, 0)?;
    if is_complex(&x)? {
        let half_imag = mul_n(&imag(&diag(&skew)?)?, 0.5)?;
        skew = sub(
            &skew,
            &embed_diag(&mul_s(&half_imag, super::pointwise::I)?)?,
        )?;
    }
    let ga = matmul(q, &skew)?;
    let ga = linalg_solve_triangular(&m_h(&narrow(r, -1, 0, m)?)?, &ga, false, false, false)?;
    let mut shape = r.sizes()?;
    let last = shape.len() - 1;
    shape[last] = n - m;
    let mut ga = cat(&[ga.clone(), new_zeros(&ga, &shape)?], -1)?;
    if let Some(gr) = gr {
        ga = add(&ga, &matmul(q, gr)?)?;
    }
    Ok(Some(ga))
}

/// `linalg_qr`'s forward derivative (`linalg_qr_jvp`).
pub fn linalg_qr_jvp<T: Tensor>(
    da: &T,
    q: &T,
    r: &T,
    mode: &str,
) -> Result<(Option<T>, Option<T>), Error> {
    let (m, n) = (size(da, -2)?, size(da, -1)?);
    check_qr_mode(mode, m, n)?;
    if m >= n {
        let da_rinv = linalg_solve_triangular(r, da, true, false, false)?;
        let x = matmul(&m_h(q)?, &da_rinv)?;
        let sym = add(&x, &m_h(&x)?)?;
        let triu_sym = triu(&sym, 0)?;
        let dr = sub(&triu_sym, &embed_diag(&mul_n(&diag(&triu_sym)?, 0.5)?)?)?;
        let dq = sub(&da_rinv, &matmul(q, &dr)?)?;
        return Ok((Some(dq), Some(matmul(&dr, r)?)));
    }
    let qhda = matmul(&m_h(q)?, da)?;
    let x = linalg_solve_triangular(
        &narrow(r, -1, 0, m)?,
        &narrow(&qhda, -1, 0, m)?,
        true,
        false,
        false,
    )?;
    let dq = if is_complex(&x)? {
        let trilim = tril(&x, 0)?;
        let trilim = sub(&trilim, &embed_diag(&real(&diag(&trilim)?)?)?)?;
        let inv = sub(&trilim, &m_h(&trilim)?)?;
        sub(&inv, &embed_diag(&mul_n(&diag(&inv)?, 0.5)?)?)?
    } else {
        let trilim = tril(&x, -1)?;
        sub(&trilim, &m_t(&trilim)?)?
    };
    let dr = sub(&qhda, &matmul(&dq, r)?)?;
    Ok((Some(matmul(q, &dq)?), Some(dr)))
}

/// `linalg_lstsq`'s derivatives, from the solution (through the pseudo-inverse) and from the
/// residuals (`linalg_lstsq_backward`).
pub fn linalg_lstsq_backward<T: Tensor>(
    gx: Option<&T>,
    gl: Option<&T>,
    a: &T,
    b_: &T,
    x_: &T,
    grad_input_mask: [bool; 2],
) -> Result<(Option<T>, Option<T>), Error> {
    let (a_requires, b_requires) = (grad_input_mask[0], grad_input_mask[1]);
    let gl = match gl {
        Some(g) if super::numel(g)? > 0 => Some(g),
        _ => None,
    };
    if (gx.is_none() && gl.is_none()) || (!a_requires && !b_requires) {
        return Ok((None, None));
    }
    let vector_case = is_vector_rhs(a, b_)?;
    let to_matrix = |t: &T| {
        if vector_case {
            unsqueeze(t, -1)
        } else {
            Ok(t.clone())
        }
    };
    let to_vector = |t: T| if vector_case { squeeze(&t, -1) } else { Ok(t) };
    let b = to_matrix(b_)?;
    let (mut a_grad, mut b_grad) = (None, None);
    if let Some(gx) = gx {
        let gx = to_matrix(gx)?;
        let pinv_a = linalg_pinv(a, None, None, false)?;
        if a_requires {
            a_grad = Some(pinv_backward(&matmul(&gx, &m_h(&b)?)?, &pinv_a, a)?);
        }
        if b_requires {
            b_grad = Some(to_vector(matmul(&m_h(&pinv_a)?, &gx)?)?);
        }
    }
    if let Some(gl) = gl {
        let x = to_matrix(x_)?;
        let r = sub(&matmul(a, &x)?, &b)?;
        let gl = unsqueeze(gl, -2)?;
        let plus = |acc: Option<T>, term: T| acc.map_or(Ok(term.clone()), |acc| add(&acc, &term));
        if a_requires {
            a_grad = Some(plus(
                a_grad,
                mul_n(&matmul(&mul(&gl, &r)?, &m_h(&x)?)?, 2.0)?,
            )?);
        }
        if b_requires {
            b_grad = Some(plus(b_grad, to_vector(mul_n(&mul(&gl, &r)?, -2.0)?)?)?);
        }
    }
    Ok((a_grad, b_grad))
}

/// `linalg_lstsq`'s forward derivative for the solution: `dpinv(A) B + pinv(A) dB`
/// (`linalg_lstsq_solution_jvp`).
pub fn linalg_lstsq_solution_jvp<T: Tensor>(a: &T, b_: &T, da: &T, db_: &T) -> Result<T, Error> {
    let vector_case = is_vector_rhs(a, b_)?;
    let to_matrix = |t: &T| {
        if vector_case {
            unsqueeze(t, -1)
        } else {
            Ok(t.clone())
        }
    };
    let (b, db) = (to_matrix(b_)?, to_matrix(db_)?);
    let pinv_a = linalg_pinv(a, None, None, false)?;
    let dpinv_a = pinv_jvp(a, &pinv_a, da)?;
    let dx = add(&matmul(&dpinv_a, &b)?, &matmul(&pinv_a, &db)?)?;
    if vector_case {
        squeeze(&dx, -1)
    } else {
        Ok(dx)
    }
}

/// `linalg_lstsq`'s forward derivative for the residuals: `2 Re(r * dr.conj()).sum(-2)`
/// with `r = A X - B`, `dr = dA X - dB` (Danskin) (`linalg_lstsq_residuals_jvp`).
pub fn linalg_lstsq_residuals_jvp<T: Tensor>(
    a: &T,
    b_: &T,
    da: &T,
    db_: &T,
    x_: &T,
    l: &T,
) -> Result<T, Error> {
    if super::numel(l)? == 0 {
        return clone(l, None);
    }
    let vector_case = is_vector_rhs(a, b_)?;
    let to_matrix = |t: &T| {
        if vector_case {
            unsqueeze(t, -1)
        } else {
            Ok(t.clone())
        }
    };
    let (b, db, x) = (to_matrix(b_)?, to_matrix(db_)?, to_matrix(x_)?);
    let r = sub(&matmul(a, &x)?, &b)?;
    let dr = sub(&matmul(da, &x)?, &db)?;
    let prod = mul(&r, &conj(&dr)?)?;
    let re = if is_complex(&prod)? {
        real(&prod)?
    } else {
        prod
    };
    mul_n(&sum_dim(&re, &[-2], false)?, 2.0)
}
