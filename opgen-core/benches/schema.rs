//! Schema parsing speed on the whole corpus (SCHEMA.md §6.4: torchgen takes ≈39 µs per
//! schema). Run with `cargo bench -p opgen-core --bench schema`; criterion reports the time
//! per iteration over all 2,590 schemas and, through its throughput, schemas per second.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use opgen_core::native::load_native_functions;
use opgen_core::schema::parse_schema;
use opgen_core::validate::check_rust_mapping;

const YAML: &str = include_str!("../tests/data/native_functions.yaml");
const TAGS: &str = include_str!("../tests/data/tags.yaml");

fn corpus_schemas() -> Vec<&'static str> {
    YAML.lines()
        .filter_map(|line| line.strip_prefix("- func: "))
        .collect()
}

fn parse(c: &mut Criterion) {
    let schemas = corpus_schemas();
    assert_eq!(schemas.len(), 2590, "the corpus has 2,590 schemas");
    let mut group = c.benchmark_group("schema");
    group.throughput(Throughput::Elements(schemas.len() as u64));
    group.bench_function("parse_all", |b| {
        b.iter(|| {
            for s in &schemas {
                black_box(parse_schema(black_box(s)).is_ok());
            }
        })
    });
    let parsed: Vec<_> = schemas
        .iter()
        .filter_map(|s| parse_schema(s).ok())
        .collect();
    // Not parsing: building the same models by cloning them, the floor for any parser that
    // returns this model (its strings, boxes and vectors are ~10 allocations per schema).
    group.bench_function("clone_all", |b| {
        b.iter(|| {
            for s in &parsed {
                black_box(s.clone());
            }
        })
    });
    group.bench_function("print_all", |b| {
        b.iter(|| {
            for s in &parsed {
                black_box(s.to_string());
            }
        })
    });
    group.bench_function("check_rust_mapping_all", |b| {
        b.iter(|| {
            for s in &parsed {
                black_box(check_rust_mapping(black_box(s), true));
            }
        })
    });
    group.finish();
}

/// "Load + validate + group the whole yaml" with the native-function loader (YAML reading,
/// entry fields, file checks, autogen, grouping). torchgen's `parse_native_yaml` takes
/// 0.40–0.46 s for the same work (SCHEMA.md §6.4). The loader is another engineer's work in
/// progress: extend this group as its API settles (e.g. a separate "group only" timing).
fn load_native_yaml(c: &mut Criterion) {
    if let Err(errors) = load_native_functions(YAML, TAGS) {
        // Time nothing rather than the path that fails early.
        eprintln!(
            "skipping native/load_all: the corpus does not load ({} errors)",
            errors.len()
        );
        return;
    }
    let mut group = c.benchmark_group("native");
    group.throughput(Throughput::Elements(2590));
    group.sample_size(20);
    group.bench_function("load_all", |b| {
        b.iter(|| black_box(load_native_functions(black_box(YAML), TAGS).is_ok()))
    });
    group.finish();
}

criterion_group!(benches, parse, load_native_yaml);
criterion_main!(benches);
