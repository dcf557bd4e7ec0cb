//! Tests of the native-function model: the corpus figures, each rule with a minimal bad
//! example from SCHEMA.md, the YAML readers and the error positions.

mod api;
mod corpus;
mod entry_rules;
mod file_rules;
mod hostile;

use crate::native::{LoadError, NativeFunctions, Tags, load_native_functions};

/// A `tags.yaml` declaring PyTorch's 20 tags.
fn tags_yaml() -> String {
    Tags::pytorch()
        .iter()
        .map(|t| format!("- tag: {t}\n  desc: the {t} tag\n"))
        .collect()
}

fn load(yaml: &str) -> Result<NativeFunctions, Vec<LoadError>> {
    load_native_functions(yaml, &tags_yaml())
}

/// The errors of a file that must not load.
fn errors(yaml: &str) -> Vec<LoadError> {
    match load(yaml) {
        Ok(_) => panic!("expected errors for:\n{yaml}"),
        Err(e) => e,
    }
}

/// The rule ids of a file's errors.
fn rules(yaml: &str) -> Vec<&'static str> {
    errors(yaml)
        .iter()
        .map(|e| e.rule.map_or("-", |r| r.id()))
        .collect()
}

/// Line and column of the first error.
fn at(yaml: &str) -> (usize, usize, usize) {
    let e = &errors(yaml)[0];
    (e.line, e.column, e.width)
}
