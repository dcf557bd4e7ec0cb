//! Expansion speed of `include_native_functions!` on the whole corpus (2,590 entries and
//! the variants `autogen` generates), in process: read and load the yaml, select, plan
//! and expand every function. `load` is the yaml loading alone, for the split. Target:
//! `expand_corpus` ≤ 0.5 s. Run with
//! `cargo bench -p opgen-core --features codegen --bench include`.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use opgen_core::codegen::include_native_functions_in;
use opgen_core::native::load_native_functions;
use proc_macro2::TokenStream;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

fn include(c: &mut Criterion) {
    let input: TokenStream = r#""native_functions.yaml", tensor = "MyTensor""#
        .parse()
        .expect("input lexes");
    let out = include_native_functions_in(Path::new(DATA), input.clone()).to_string();
    assert!(!out.contains("compile_error"), "the corpus expands");
    let yaml = std::fs::read_to_string(format!("{DATA}/native_functions.yaml")).expect("yaml");
    let tags = std::fs::read_to_string(format!("{DATA}/tags.yaml")).expect("tags");
    let mut group = c.benchmark_group("include");
    group.sample_size(10);
    group.bench_function("expand_corpus", |b| {
        b.iter(|| black_box(include_native_functions_in(Path::new(DATA), input.clone())))
    });
    group.bench_function("load", |b| {
        b.iter(|| black_box(load_native_functions(&yaml, &tags).is_ok()))
    });
    group.finish();
}

criterion_group!(benches, include);
criterion_main!(benches);
