//! The derivative of oneDNN's LSTM layer, in differentiable operators.

use super::ops::*;
use super::{options, size};
use crate::dispatch::{Error, MemoryFormat, Tensor};

/// The gradients of the inputs of an LSTM layer: the input, the four weights (the two bias
/// gradients are the same), the initial hidden and cell states.
pub type LstmGradients<T> = (
    Option<T>,
    Option<T>,
    Option<T>,
    Option<T>,
    Option<T>,
    Option<T>,
    Option<T>,
);

/// One step's gates `(i, f, g, o)`.
type Gates<T> = (T, T, T, T);

/// `mkldnn_rnn_layer`'s derivatives in differentiable operators, for double backward: the
/// gates are recomputed step by step from the inputs, then the gradients flow back through
/// time (`mkldnn_rnn_layer_differentiable_backward`).
#[allow(clippy::too_many_arguments)]
pub fn mkldnn_rnn_layer_differentiable_backward<T: Tensor>(
    input: &T,
    weight0: &T,
    weight1: &T,
    weight2: &T,
    weight3: &T,
    hx: &T,
    cx: &T,
    output: &T,
    _hy: &T,
    _cy: &T,
    grad_output: Option<&T>,
    grad_hy: Option<&T>,
    grad_cy: Option<&T>,
    reverse: bool,
    _mode: i64,
    hidden_size: i64,
    _num_layers: i64,
    has_biases: bool,
    _train: bool,
    _bidirectional: bool,
    _batch_sizes: &[i64],
    _batch_first: bool,
    _workspace: &T,
) -> Result<LstmGradients<T>, Error> {
    if grad_output.is_none() && grad_hy.is_none() && grad_cy.is_none() {
        return Ok((None, None, None, None, None, None, None));
    }
    let contiguous_or_zeros = |g: Option<&T>, like: &T| match g {
        Some(g) => contiguous(g, MemoryFormat::Contiguous),
        None => zeros_like(like),
    };
    let grad_output = contiguous_or_zeros(grad_output, output)?;
    let mut grad_h = contiguous_or_zeros(grad_hy, hx)?;
    let mut grad_c = contiguous_or_zeros(grad_cy, cx)?;
    let (bias_ih, bias_hh) = if has_biases {
        (weight2.clone(), weight3.clone())
    } else {
        let o = options(weight0)?;
        (
            zeros_o(&[4 * hidden_size], o)?,
            zeros_o(&[4 * hidden_size], o)?,
        )
    };
    let steps = size(input, 0)?;
    let index = |seq: i64| if reverse { steps - seq } else { seq - 1 };
    // Forward again: the gates of each input position and the states after each step.
    let mut gates: Vec<Option<Gates<T>>> = (0..steps).map(|_| None).collect();
    let mut states: Vec<(T, T)> = vec![(hx.clone(), cx.clone())];
    for seq in 1..=steps {
        let (h, c) = states[seq as usize - 1].clone();
        let x = select(input, 0, index(seq))?;
        let gate = add(
            &linear(&x, weight0, Some(&bias_ih))?,
            &linear(&h, weight1, Some(&bias_hh))?,
        )?;
        let chunks = unsafe_chunk(&gate, 4, 1)?;
        let [ci, cf, cg, co] = chunks.as_slice() else {
            return Err(Error::from(
                "mkldnn_rnn_layer_differentiable_backward: expected 4 gates",
            ));
        };
        let (i, f, g, o) = (sigmoid(ci)?, sigmoid(cf)?, tanh(cg)?, sigmoid(co)?);
        let cy = add(&mul(&f, &c)?, &mul(&i, &g)?)?;
        let hy = mul(&o, &tanh(&cy)?)?;
        gates[index(seq) as usize] = Some((i, f, g, o));
        states.push((hy, cy));
    }
    let one_minus = |x: &T| rsub_s(1, x);
    let (mut dwx, mut dwh, mut db): (Option<T>, Option<T>, Option<T>) = (None, None, None);
    let mut layer_dx: Vec<Option<T>> = (0..steps).map(|_| None).collect();
    let plus = |acc: Option<T>, x: T| acc.map_or(Ok(x.clone()), |a| add(&a, &x));
    for seq in (0..steps).rev() {
        let x_index = if reverse { steps - seq - 1 } else { seq };
        let (i, f, g, o) = gates[x_index as usize]
            .clone()
            .ok_or_else(|| Error::from("a gate is missing"))?;
        let cy = &states[seq as usize + 1].1;
        let (h_prev, c_prev) = &states[seq as usize];
        let new_grad_hy = add(&select(&grad_output, 0, x_index)?, &grad_h)?;
        let tanh_cy = tanh(cy)?;
        let d1 = add(
            &grad_c,
            &mul(
                &mul(&new_grad_hy, &o)?,
                &one_minus(&mul(&tanh_cy, &tanh_cy)?)?,
            )?,
        )?;
        let (dgp, dip, dprev_c, dfp) = (
            mul(&d1, &i)?,
            mul(&d1, &g)?,
            mul(&d1, &f)?,
            mul(&d1, c_prev)?,
        );
        let dop = mul(&new_grad_hy, &tanh_cy)?;
        let do_ = mul(&mul(&dop, &o)?, &one_minus(&o)?)?;
        let dg = mul(&dgp, &one_minus(&mul(&g, &g)?)?)?;
        let df = mul(&mul(&dfp, &f)?, &one_minus(&f)?)?;
        let di = mul(&mul(&dip, &i)?, &one_minus(&i)?)?;
        let da = cat(&[di, df, dg, do_], 1)?;
        let da_t = transpose(&da, 0, 1)?;
        db = Some(plus(db, sum_dim(&da, &[0], false)?)?);
        dwx = Some(plus(dwx, matmul(&da_t, &select(input, 0, x_index)?)?)?);
        dwh = Some(plus(dwh, matmul(&da_t, h_prev)?)?);
        layer_dx[x_index as usize] = Some(unsqueeze(&matmul(&da, weight0)?, 0)?);
        grad_h = matmul(&da, weight1)?;
        grad_c = dprev_c;
    }
    let layer_dx: Vec<T> = layer_dx.into_iter().flatten().collect();
    let dx = cat(&layer_dx, 0)?;
    Ok((
        Some(dx),
        dwx,
        dwh,
        db.clone(),
        db,
        Some(grad_h),
        Some(grad_c),
    ))
}
