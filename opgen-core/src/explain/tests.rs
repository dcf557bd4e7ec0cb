//! Every rule has an entry whose broken example breaks that rule (and no other) and whose
//! fixed example passes; `docs/ERRORS.md` is the index's markdown.

use super::{Example, all, markdown};
use crate::schema::Rule;

#[test]
fn every_rule_has_one_entry_in_rule_order() {
    let rules: Vec<Rule> = all().iter().map(|e| e.rule).collect();
    assert_eq!(rules, Rule::ALL);
    for rule in Rule::ALL {
        assert_eq!(rule.explain().rule, *rule);
    }
}

#[test]
fn every_broken_example_breaks_its_rule_and_only_it() {
    let mut wrong = Vec::new();
    for e in all() {
        let errors = e.broken.errors();
        let rules: Vec<String> = (errors.iter())
            .map(|(r, _)| r.map_or("syntax".to_string(), |r| r.id().to_string()))
            .collect();
        if rules.is_empty() || rules.iter().any(|r| r != e.rule.id()) {
            wrong.push(format!("{}: broken example gives {rules:?}", e.rule.id()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_fixed_example_passes() {
    let mut wrong = Vec::new();
    for e in all() {
        let errors = e.fixed.errors();
        if !errors.is_empty() {
            let messages: Vec<&str> = errors.iter().map(|(_, m)| m.as_str()).collect();
            wrong.push(format!(
                "{}: fixed example fails:\n{}",
                e.rule.id(),
                messages.join("")
            ));
        }
        // The fix changes the input it explains.
        assert_ne!(e.broken.text(), e.fixed.text(), "{}", e.rule.id());
        assert_eq!(
            std::mem::discriminant(&e.broken),
            std::mem::discriminant(&e.fixed),
            "{}: the fix is the same kind of input",
            e.rule.id()
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn schema_examples_are_schemas_and_yaml_examples_are_files() {
    for e in all() {
        if let Example::Yaml(text) = e.broken {
            assert!(text.starts_with("- func: "), "{}: {text}", e.rule.id());
            assert!(text.ends_with('\n'), "{}", e.rule.id());
        }
        assert!(!e.meaning.contains("SCHEMA.md"), "{}", e.rule.id());
        assert!(!e.meaning.contains("../shared"), "{}", e.rule.id());
    }
}

#[test]
fn the_text_shows_the_rule_the_example_the_error_and_the_fix() {
    let text = Rule::UnknownType.explain().to_text();
    assert!(
        text.starts_with("R16: every type is a known schema type\n\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "This breaks it:\n\n    lerp(Tensor self, Tensr end, Scalar weight) -> Tensor\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("opgen reports:\n\n    error[R16]: unknown type `Tensr`"),
        "{text}"
    );
    assert!(
        text.contains("The fix: spell the type as the schema language does.\n\n    lerp(Tensor self, Tensor end, Scalar weight) -> Tensor\n"),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
}

/// `docs/ERRORS.md` is [`markdown`]'s output; `OPGEN_BLESS=1` rewrites it.
#[test]
fn docs_errors_md_is_the_generated_index() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/ERRORS.md");
    let generated = markdown();
    if std::env::var_os("OPGEN_BLESS").is_some() {
        std::fs::write(path, &generated).expect("docs/ERRORS.md is writable");
    }
    let on_disk = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/ERRORS.md is not the generated index; run `OPGEN_BLESS=1 cargo test -p opgen-core --lib explain`"
    );
    for rule in Rule::ALL {
        assert!(
            generated.contains(&format!("\n## {}\n", rule.id())),
            "{rule}"
        );
    }
    assert!(!generated.contains("../shared") && !generated.contains("SCHEMA.md"));
}

#[test]
fn every_derivative_rule_has_one_entry_whose_examples_break_it_and_pass() {
    use crate::formula::DerivativeRule;
    let rules: Vec<DerivativeRule> = super::derivatives().iter().map(|e| e.rule).collect();
    assert_eq!(rules, DerivativeRule::ALL);
    let mut wrong = Vec::new();
    for e in super::derivatives() {
        assert_eq!(e.rule.explain().rule, e.rule);
        let broken = super::derivative_rules::errors(e.broken);
        let ids: Vec<&str> = broken
            .iter()
            .map(|(r, _)| r.map_or("syntax", |r| r.id()))
            .collect();
        // R106 comes with R111 (torchgen reports both): the rule's error comes first.
        let only = e.rule != DerivativeRule::Overlap;
        if ids.first() != Some(&e.rule.id()) || (only && ids.iter().any(|r| *r != e.rule.id())) {
            wrong.push(format!("{}: broken example gives {ids:?}", e.rule.id()));
        }
        let fixed = super::derivative_rules::errors(e.fixed);
        if !fixed.is_empty() {
            wrong.push(format!("{}: fixed example fails: {fixed:?}", e.rule.id()));
        }
        assert_ne!(e.broken, e.fixed, "{}", e.rule.id());
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let text = DerivativeRule::UnknownVariable.explain().to_text();
    assert!(
        text.contains(
            "opgen reports:\n\n    derivatives.yaml:2:16: error[R110]: unknown variable `othr`"
        ),
        "{text}"
    );
}
