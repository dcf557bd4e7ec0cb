//! The corpus passes R84–R89: torchgen generates C++ signatures for all of it. (The rule
//! by rule cases are in `schema/tests.rs`, next to R1–R35.)

use yaml_rust2::{Yaml, YamlLoader};

use super::check_rust_mapping;
use crate::schema::parse_schema;

const YAML: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/native_functions.yaml"
));

#[test]
fn every_corpus_entry_maps_onto_rust() {
    let docs = YamlLoader::load_from_str(YAML).expect("the corpus is valid yaml");
    let entries = docs[0].as_vec().expect("a list of entries");
    assert_eq!(entries.len(), 2590);
    let mut methods = 0;
    for entry in entries {
        let func = entry["func"].as_str().expect("a string `func`");
        let variants = match &entry["variants"] {
            Yaml::String(v) => v.as_str(),
            Yaml::BadValue => "function",
            other => panic!("`variants` of `{func}` is {other:?}"),
        };
        let method = variants.split(',').any(|v| v.trim() == "method");
        methods += usize::from(method);
        let schema = parse_schema(func).unwrap_or_else(|e| panic!("`{func}`: {e:#?}"));
        let errors = check_rust_mapping(&schema, method);
        assert!(
            errors.is_empty(),
            "`{func}` (method: {method}): {errors:#?}"
        );
    }
    // 375 `function, method`, 114 `method, function`, 237 `method`.
    assert_eq!(methods, 726);
}

#[test]
fn errors_point_into_the_schema_text() {
    let text = "foo(Tensor other, bool[] a, GraphModule g, int[]? b=1) -> (Scalar? c, int[3] d)";
    let schema = parse_schema(text).unwrap();
    let errors = check_rust_mapping(&schema, true);
    let found: Vec<_> = errors
        .iter()
        .map(|e| (e.rule.id(), &text[e.range.clone()]))
        .collect();
    assert_eq!(
        found,
        [
            ("R84", "(Tensor other, bool[] a, GraphModule g, int[]? b=1)"),
            ("R85", "bool[]"),
            ("R89", "GraphModule"),
            ("R86", "1"),
            ("R87", "Scalar?"),
            ("R87", "int[3]"),
        ]
    );
    for e in &errors {
        let rendered = e.render(text);
        assert!(
            rendered.starts_with(&format!("error[{}]: ", e.rule.id())),
            "{rendered}"
        );
        assert!(e.hint.is_some(), "{e:?}");
    }
}
