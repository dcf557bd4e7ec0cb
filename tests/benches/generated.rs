//! The cost of the generated layer: one no-op kernel (`aten::identity`, returning a clone of
//! its tensor argument) called three ways in one run:
//!
//! * `direct`: the kernel through an opaque function pointer (no dispatch at all);
//! * `typed_handle`: the runtime's typed call through a `TypedOperator` looked up once;
//! * `generated`: the free function `#[native_function]` generated (`ops::identity`).
//!
//! Run with `cargo bench -p opgen-tests --bench generated`. The target: `generated` within
//! noise of `typed_handle`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use opgen::prelude::*;
use opgen_tests::{TestTensor, ops};

fn identity(c: &mut Criterion) {
    let t = TestTensor::cpu(&[1.0]);
    let direct: fn(&TestTensor) -> TestTensor = black_box(ops::identity_cpu);
    let typed = Dispatcher::global()
        .typed::<_, (&TestTensor,), TestTensor>("aten::identity", "")
        .expect("aten::identity is registered at link time");
    assert!(ops::identity(&t).same(&t));

    let mut group = c.benchmark_group("identity");
    group.bench_function("direct", |b| b.iter(|| direct(black_box(&t))));
    group.bench_function("typed_handle", |b| b.iter(|| typed.call(black_box(&t))));
    group.bench_function("generated", |b| b.iter(|| ops::identity(black_box(&t))));
    group.finish();
}

criterion_group!(benches, identity);
criterion_main!(benches);
