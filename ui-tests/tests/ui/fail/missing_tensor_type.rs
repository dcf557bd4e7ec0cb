#![allow(unused)]

use opgen::prelude::*;

#[native_function("ones_count(int[] size) -> int", dispatch = "CompositeExplicitAutograd")]
fn ones_count_kernel(size: &[i64]) -> i64 {
    size.iter().product()
}

fn main() {}
