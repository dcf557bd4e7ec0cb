//! Several errors at once, and how an error is shown (`SchemaError::render`, `Display`).

use crate::schema::{Rule, SchemaError, parse_schema};

#[test]
fn two_bad_arguments_give_two_errors() {
    let errors = parse_schema("foo(Tensr self, Scalr other) -> Tensor").unwrap_err();
    let found: Vec<_> = errors.iter().map(|e| (e.rule, e.range.clone())).collect();
    assert_eq!(
        found,
        [(Rule::UnknownType, 4..9), (Rule::UnknownType, 16..21)]
    );
}

#[test]
fn bad_name_arguments_and_returns_are_all_reported() {
    let text = "add_out(Tensor self, int[0] x) -> Tensr";
    let errors = parse_schema(text).unwrap_err();
    let found: Vec<_> = errors
        .iter()
        .map(|e| (e.rule, &text[e.range.clone()]))
        .collect();
    assert_eq!(
        found,
        [
            (Rule::OutSuffix, "_out"),
            (Rule::BadListSize, "0"),
            (Rule::UnknownType, "Tensr")
        ]
    );
}

// Rendering

#[test]
fn render_puts_carets_under_the_range() {
    let text = "add.Tensor(Tensor self, Tensr other) -> Tensor";
    let errors = parse_schema(text).unwrap_err();
    assert_eq!(
        errors[0].render(text),
        "error[R16]: unknown type `Tensr`\n\
         \x20 add.Tensor(Tensor self, Tensr other) -> Tensor\n\
         \x20                         ^^^^^\n\
         help: did you mean `Tensor`?\n\
         for more information about this error, run `opgen explain R16`\n"
    );
}

#[test]
fn render_shows_one_caret_for_an_empty_range() {
    let text = "add(Tensor self)";
    let errors = parse_schema(text).unwrap_err();
    assert_eq!(errors[0].range, 16..16);
    let rendered = errors[0].render(text);
    assert!(rendered.ends_with("  add(Tensor self)\n                  ^\nhelp: write the schema as `NAME(ARGS) -> RETURNS`, e.g. `relu(Tensor self) -> Tensor`\nfor more information about this error, run `opgen explain R1`\n"), "{rendered}");
}

#[test]
fn render_counts_columns_in_characters() {
    // `é` is two bytes; the caret must still sit under `Foo`.
    let text = "fé(Tensor self, Foo x) -> Tensor";
    let errors = parse_schema(text).unwrap_err();
    assert_eq!(&text[errors[0].range.clone()], "Foo");
    let rendered = errors[0].render(text);
    let lines: Vec<&str> = rendered.lines().collect();
    assert_eq!(lines[1], "  fé(Tensor self, Foo x) -> Tensor");
    assert_eq!(lines[2], "                  ^^^");
}

#[test]
fn render_shows_the_line_of_the_error() {
    let text = "add(Tensor self,\n Tensor other) -> Tensor";
    let errors = parse_schema(text).unwrap_err();
    let rendered = errors[0].render(text);
    assert!(rendered.starts_with("error[R1]: a schema is one line; found a line break\n  add(Tensor self,\n                  ^\n"), "{rendered}");
}

#[test]
fn render_clamps_a_range_beyond_the_text() {
    let e = SchemaError::new(Rule::Shape, 40..90, "oops");
    assert_eq!(
        e.render("relu"),
        "error[R1]: oops\n  relu\n      ^\nfor more information about this error, run `opgen explain R1`\n"
    );
}

#[test]
fn display_shows_message_rule_and_hint() {
    let errors = parse_schema("relu(Tensr self) -> Tensor").unwrap_err();
    assert_eq!(
        errors[0].to_string(),
        "unknown type `Tensr` [R16]; did you mean `Tensor`?"
    );
}
