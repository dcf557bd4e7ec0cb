//! The figure of PyTorch's formulas against the corpus crate's API: how many entries of
//! `derivatives.yaml` translate (every backward formula) and type-check (every translated
//! function compiles), and what keeps the rest. Builds `examples/formulas.rs` with cargo, so
//! it is ignored by default:
//!
//! ```text
//! cargo test -p opgen-tests-corpus --features translated-formulas --test formulas -- --ignored --nocapture
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use opgen::formula::translate::corpus_report;
use opgen::native::derivatives::load_derivatives;
use opgen::native::load_native_functions_from_paths;

/// For each line of the generated module, the entry (schema) of the function it is in.
fn entries_by_line(module: &str) -> Vec<Option<String>> {
    let mut current = None;
    module
        .lines()
        .map(|line| {
            if let Some(doc) = line.strip_prefix("/// `") {
                current = doc.split("`: `").next().map(str::to_string);
            }
            current.clone()
        })
        .collect()
}

#[test]
#[ignore = "builds the corpus crate's formulas example (minutes)"]
fn formulas_translate_and_type_check() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "check",
            "-p",
            "opgen-tests-corpus",
            "--features",
            "translated-formulas",
            "--example",
            "formulas",
            "--message-format=json",
        ])
        .output()
        .expect("runs cargo");
    let mut module_path = None;
    let mut errors: Vec<(usize, String)> = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let m = &msg["message"];
        if msg["reason"] != "compiler-message" || m["level"] != "error" {
            continue;
        }
        let text = m["message"].as_str().unwrap_or("").to_string();
        for span in m["spans"].as_array().into_iter().flatten() {
            let file = span["file_name"].as_str().unwrap_or("");
            if span["is_primary"] == true && file.ends_with("formulas.rs") && file.contains("out") {
                module_path = Some(file.to_string());
                errors.push((
                    span["line_start"].as_u64().unwrap_or(0) as usize,
                    text.clone(),
                ));
            }
        }
    }
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../opgen-core/tests/data");
    let natives = load_native_functions_from_paths(
        &data.join("native_functions.yaml"),
        &data.join("tags.yaml"),
    )
    .expect("the corpus loads");
    let text = std::fs::read_to_string(data.join("derivatives.yaml")).expect("derivatives.yaml");
    let d = load_derivatives("derivatives.yaml", &text, &natives).expect("loads");
    let report = corpus_report(&d, &natives);
    let translated: BTreeSet<String> = (report.entries.iter())
        .filter(|e| e.backward_translates)
        .map(|e| e.name.clone())
        .collect();
    let mut failing: BTreeSet<String> = BTreeSet::new();
    let mut why: BTreeMap<String, usize> = BTreeMap::new();
    if let Some(path) = &module_path {
        let module = std::fs::read_to_string(path).expect("the generated module");
        let by_line = entries_by_line(&module);
        for (line, text) in &errors {
            if let Some(Some(entry)) = by_line.get(line.saturating_sub(1)) {
                failing.insert(entry.clone());
            }
            *why.entry(text.clone()).or_default() += 1;
        }
    } else {
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let type_check = translated.iter().filter(|e| !failing.contains(*e)).count();
    println!(
        "{} entries; {} translate; {} translate and type-check; {} errors",
        report.entries.len(),
        translated.len(),
        type_check,
        errors.len()
    );
    let mut why: Vec<(String, usize)> = why.into_iter().collect();
    why.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (text, n) in why.iter().take(25) {
        println!("{n:5}  {text}");
    }
    for entry in failing.iter().take(400) {
        println!("fails: {entry}");
    }
    // Every entry whose backward formulas translate type-checks (the module is compiled
    // without the prelude: translated code is hygienic).
    assert_eq!(
        (report.entries.len(), translated.len(), type_check),
        (688, 680, 680)
    );
    assert!(errors.is_empty(), "{errors:?}");
}
