//! Timing in wall-clock time, shared by the autograd benches of `opgen-core` and
//! `opgen-example` (each includes this file with `#[path]`): a best-of-7 loop, and a paired
//! measurement of two cases in one run.

use std::time::Instant;

/// Wall-clock ns since the first call. Thread CPU time (`/proc/thread-self/schedstat`) was used
/// before, but the kernel updates that figure only at scheduler ticks and switches: on a quiet
/// machine it moved in steps of 20-40 ns per call, coarser than the figures measured. Run the
/// benches on a quiet machine; the paired rounds alternate their order, so that a drift of the
/// machine's speed falls on both cases.
pub fn now_ns() -> f64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e9
}

/// ns per call of `n` calls of `body`.
fn per_call(body: &mut dyn FnMut(), n: u32) -> f64 {
    let start = now_ns();
    for _ in 0..n {
        body();
    }
    (now_ns() - start) / f64::from(n)
}

/// ns per call: the best of 7 runs of `n` calls.
pub fn time(body: &mut dyn FnMut(), n: u32) -> f64 {
    (0..7)
        .map(|_| per_call(body, n))
        .fold(f64::INFINITY, f64::min)
}

/// A paired measurement of `b` against `a` in one run: `rounds` rounds (usually `ROUNDS`), each timing `n`
/// calls of one then `n` of the other (the order alternating between rounds, so that a
/// drift of the machine's speed falls on both), in wall-clock time.
pub struct Paired {
    /// ns per call of `a` and `b`: the best round.
    pub best: (f64, f64),
    /// ns per call of `b` minus `a`, per round, sorted.
    pub diffs: Vec<f64>,
}

/// The rounds of a paired measurement, unless a figure needs more.
pub const ROUNDS: usize = 41;

impl Paired {
    pub fn run(a: &mut dyn FnMut(), b: &mut dyn FnMut(), n: u32, rounds: usize) -> Paired {
        let one = |body: &mut dyn FnMut()| per_call(body, n);
        let (mut best, mut diffs) = ((f64::INFINITY, f64::INFINITY), Vec::with_capacity(rounds));
        for round in 0..rounds {
            let (ta, tb) = if round % 2 == 0 {
                let ta = one(a);
                (ta, one(b))
            } else {
                let tb = one(b);
                (one(a), tb)
            };
            best = (best.0.min(ta), best.1.min(tb));
            diffs.push(tb - ta);
        }
        diffs.sort_by(f64::total_cmp);
        Paired { best, diffs }
    }

    /// The median difference and its interquartile range.
    pub fn median(&self) -> (f64, f64, f64) {
        let q = |f: f64| self.diffs[((self.diffs.len() - 1) as f64 * f).round() as usize];
        (q(0.5), q(0.25), q(0.75))
    }
}
