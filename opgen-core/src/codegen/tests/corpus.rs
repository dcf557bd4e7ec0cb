//! Every corpus entry, with a kernel of its dispatcher signature, expands without error:
//! the macro supports the whole of ATen.

use std::time::Instant;

use crate::native::{DeviceCheck, DispatchOrigin, NativeFunction, load_native_functions};
use crate::plan::{dispatcher_signature, returns_type};

#[path = "../../../benches/support/corpus_kernels.rs"]
mod corpus_kernels;

// The shared file names the runtime crate as `opgen_core`.
use crate as opgen_core;

#[test]
fn every_corpus_schema_expands() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
    let read = |f: &str| std::fs::read_to_string(format!("{dir}{f}")).expect("corpus file");
    let Ok(nfs) = load_native_functions(&read("native_functions.yaml"), &read("tags.yaml")) else {
        panic!("the corpus loads");
    };
    assert_eq!(nfs.entries().len(), 2_590);
    let start = Instant::now();
    let mut failures = Vec::new();
    for (i, f) in nfs.entries().iter().enumerate() {
        let (args, kernel) = corpus_kernels::corpus_case(i, f);
        let (Ok(args), Ok(kernel)) = (args.parse(), kernel.parse()) else {
            failures.push(format!("{f}: the synthesized tokens do not lex"));
            continue;
        };
        if let Err(e) = super::super::run(args, kernel) {
            failures.push(format!(
                "{f}:\n  {}",
                e.into_iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
    }
    let per_op = start.elapsed().as_micros() as f64 / 2590.0;
    assert!(
        failures.is_empty(),
        "{} of 2590 fail (first 10):\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
    eprintln!("{per_op:.1} µs per operator (unoptimized test build)");
}
