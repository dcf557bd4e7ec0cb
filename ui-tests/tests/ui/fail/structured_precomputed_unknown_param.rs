#![allow(unused)]

use opgen::prelude::*;
use opgen::structured::StructuredMeta;
use opgen_ui_tests::MyTensor;

#[native_function(
    "sum.IntList_out(Tensor self, int[1]? dim, *, Tensor(a!) out) -> Tensor(a!)",
    structured,
    precomputed = "dims -> int[] normalized"
)]
fn sum_meta(
    meta: &mut StructuredMeta<'_, MyTensor>,
    self_: &MyTensor,
    dim: Option<&[i64]>,
) -> Result<SumIntListOutPrecompute, Error> {
    Err(Error::from("never runs: the attribute is rejected"))
}

fn main() {}
