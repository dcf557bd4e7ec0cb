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

/// One mutation of a corpus case (chosen by the case's index, at pseudo-random places): a
/// schema with a character dropped, inserted or cut off, a kernel with a parameter's
/// mutability, integer type or presence changed, a return type dropped, an attribute
/// misspelt or given a bad value. The expansion must report or expand, never panic; an
/// expansion without errors must be valid Rust; a kernel with a parameter too few or too
/// many is always an error (but under `structured_delegate`, whose item is not a kernel).
#[test]
fn mutated_corpus_cases_are_errors_or_expansions_never_panics() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/");
    let read = |f: &str| std::fs::read_to_string(format!("{dir}{f}")).expect("corpus file");
    let Ok(nfs) = load_native_functions(&read("native_functions.yaml"), &read("tags.yaml")) else {
        panic!("the corpus loads");
    };
    const INSERTED: [&str; 10] = ["(", ")", "!", "?", "[", "]", ",", "=", "*", "->"];
    const ATTRS: [&str; 8] = [
        "dispach = \"CPU\"",
        "dispatch = \"CPU, Bogus\"",
        "structured",
        "variants = \"method\"",
        "precomputed = \"self -> int x\"",
        "device_check = \"Sometimes\"",
        "structured_delegate = \"nope.out\"",
        "name = \"not an ident\"",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |bound: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % bound.max(1)
    };
    let (mut errors, mut expansions) = (0usize, 0usize);
    let mut problems = Vec::new();
    for (i, f) in nfs.entries().iter().enumerate() {
        let (mut args, mut kernel) = corpus_kernels::corpus_case(i, f);
        let schema = f.to_string();
        let chars: Vec<char> = schema.chars().collect();
        let at = next(chars.len());
        let kind = i % 11;
        let mut must_fail = false;
        let params_start = kernel.find('(').unwrap_or(0);
        match kind {
            0..=2 => {
                let mut m = chars.clone();
                match kind {
                    0 => {
                        m.remove(at);
                    }
                    1 => {
                        let s = INSERTED[next(INSERTED.len())];
                        for (k, c) in s.chars().enumerate() {
                            m.insert(at + k, c);
                        }
                    }
                    _ => m.truncate(at),
                }
                let m: String = m.into_iter().collect();
                args = args.replacen(&format!("{schema:?}"), &format!("{m:?}"), 1);
            }
            3 => kernel = kernel.replacen("&mut ", "&", 1),
            4 => kernel = kernel.replacen(": &", ": &mut ", 1),
            5 => {
                kernel = ["i64", "f64", "bool", "Scalar"]
                    .iter()
                    .find(|t| kernel.contains(*t))
                    .map_or(kernel.clone(), |t| kernel.replacen(t, "i32", 1));
            }
            6 => {
                // Drop the last parameter (if any): always a mismatch.
                let close = kernel.find(") ->").unwrap_or(kernel.len());
                let params = &kernel[params_start + 1..close];
                if !params.trim().is_empty() {
                    let cut = params.rfind(", ").map_or(0, |c| c);
                    kernel = format!(
                        "{}{}{}",
                        &kernel[..params_start + 1],
                        &params[..cut],
                        &kernel[close..]
                    );
                    must_fail = !f.structured && f.structured_delegate.is_none();
                }
            }
            7 => {
                let close = kernel.find(") ->").unwrap_or(kernel.len());
                let sep = if kernel[params_start + 1..close].trim().is_empty() {
                    ""
                } else {
                    ", "
                };
                kernel.insert_str(close, &format!("{sep}extra_param: u128"));
                // A delegate's item is not its kernel (it may be the meta function).
                must_fail = f.structured_delegate.is_none();
            }
            8 => {
                let (open, close) = (kernel.find(") ->"), kernel.rfind(" {"));
                if let (Some(open), Some(close)) = (open, close) {
                    kernel.replace_range(open + 1..close, "");
                }
            }
            _ => args.push_str(&format!(", {}", ATTRS[next(ATTRS.len())])),
        }
        let (Ok(args_ts), Ok(kernel_ts)) = (
            args.parse::<proc_macro2::TokenStream>(),
            kernel.parse::<proc_macro2::TokenStream>(),
        ) else {
            continue;
        };
        let run = std::panic::catch_unwind(|| super::super::run(args_ts, kernel_ts));
        match run {
            Err(_) => problems.push(format!("panicked on\n  {args}\n  {kernel}")),
            Ok(Err(_)) => errors += 1,
            Ok(Ok(tokens)) if must_fail => {
                problems.push(format!(
                    "expanded a mismatched kernel\n  {args}\n  {kernel}"
                ));
                drop(tokens);
            }
            Ok(Ok(tokens)) => {
                expansions += 1;
                if let Err(e) = syn::parse2::<syn::File>(tokens) {
                    problems.push(format!("invalid expansion ({e})\n  {args}\n  {kernel}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems (first 5):\n{}",
        problems.len(),
        problems[..problems.len().min(5)].join("\n")
    );
    // Most mutations break something; a few (a dropped `?` of a default, ...) do not.
    assert!(
        errors > 1_500 && expansions > 100,
        "{errors} errors, {expansions} expansions"
    );
}

/// Inputs on which the fuzzer (`fuzz/`, target `native_function`) found the expansion
/// panicking, kept so that it does not again.
#[test]
fn fuzzer_findings_expand_or_report() {
    let cases = [(
        // A precomputed name that is not an identifier.
        r#""sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", structured, precomputed = "dim -> int[] dims; int reduc@d""#,
        "pub fn sum_meta(meta: &mut StructuredMeta<'_, MyTensor>, self_: &MyTensor, dim: Option<&[i64]>, keepdim: bool, dtype: Option<ScalarType>) -> Result<SumIntListOutPrecompute, Error> { ::core::panic!(\"expanded, never run\") }",
    )];
    for (args, item) in cases {
        let (Ok(args), Ok(item)) = (args.parse(), item.parse()) else {
            panic!("the case lexes: {args}");
        };
        let out = std::panic::catch_unwind(|| super::super::native_function(args, item));
        let out = out.unwrap_or_else(|_| panic!("the expansion panicked"));
        assert!(syn::parse2::<syn::File>(out).is_ok());
    }
}
