//! Expansion speed of `#[native_function]`, in process: parse, check and expand every one
//! of the corpus's 2,590 schemas, each on a kernel of its dispatcher signature (`T` =
//! `MyTensor`) with the entry's yaml fields as options. Criterion reports the time per
//! iteration over the whole corpus; divided by 2,590 it is the time per operator (target
//! ≤ 100 µs). Run with `cargo bench -p opgen-core --features codegen --bench codegen`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use opgen_core::codegen::native_function;
use opgen_core::native::{DeviceCheck, DispatchOrigin, NativeFunction, load_native_functions};
use opgen_core::plan::{dispatcher_signature, returns_type};
use proc_macro2::TokenStream;

#[path = "support/corpus_kernels.rs"]
mod corpus_kernels;

const YAML: &str = include_str!("../tests/data/native_functions.yaml");
const TAGS: &str = include_str!("../tests/data/tags.yaml");

fn corpus() -> Vec<(TokenStream, TokenStream)> {
    let Ok(nfs) = load_native_functions(YAML, TAGS) else {
        panic!("the corpus loads");
    };
    let cases: Vec<(TokenStream, TokenStream)> = nfs
        .entries()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let (args, kernel) = corpus_kernels::corpus_case(i, f);
            (
                args.parse().expect("attribute lexes"),
                kernel.parse().expect("kernel lexes"),
            )
        })
        .collect();
    assert_eq!(cases.len(), 2590, "the corpus has 2,590 schemas");
    // Every schema expands without error (the unit test `every_corpus_schema_expands` says
    // the same); a failure would make the timing meaningless.
    for (args, kernel) in &cases {
        let out = native_function(args.clone(), kernel.clone()).to_string();
        assert!(!out.contains("compile_error"), "{args}: {out}");
    }
    cases
}

fn expand(c: &mut Criterion) {
    let cases = corpus();
    let mut group = c.benchmark_group("codegen");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.sample_size(20);
    group.bench_function("expand_all", |b| {
        b.iter(|| {
            for (args, kernel) in &cases {
                black_box(native_function(args.clone(), kernel.clone()));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, expand);
criterion_main!(benches);
