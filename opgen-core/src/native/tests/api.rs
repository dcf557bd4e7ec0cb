//! The API around the loader: `from_fields`, error rendering, positions in quoted values.

use crate::native::{EntryFields, Field, NativeFunction, Site, Tags};
use crate::schema::Rule;

use super::{errors, load};

#[test]
fn from_fields_reports_sites_and_ranges() {
    let fields = EntryFields {
        func: "foo(Tensor self) -> Tensor".into(),
        variants: Some("function, methd".into()),
        tags: Some(vec!["core".into(), "pointwize".into()]),
        ..EntryFields::default()
    };
    let errors = NativeFunction::from_fields(&fields, &Tags::pytorch()).unwrap_err();
    let got: Vec<_> = errors
        .iter()
        .map(|e| (e.site, e.error.rule, e.error.range.clone()))
        .collect();
    assert_eq!(
        got,
        [
            (Site::Value(Field::Variants), Rule::BadVariants, 10..15),
            (Site::Element(Field::Tags, 1), Rule::UnknownTag, 0..0),
        ]
    );
    let fields = EntryFields {
        func: "ns::foo(Tensr self) -> Tensor".into(),
        ..EntryFields::default()
    };
    let errors = NativeFunction::from_fields(&fields, &Tags::pytorch()).unwrap_err();
    assert_eq!(
        (
            errors[0].site,
            errors[0].error.rule,
            errors[0].error.range.clone()
        ),
        (Site::Value(Field::Func), Rule::UnknownType, 8..13)
    );
}

#[test]
fn from_fields_fills_defaults_and_facts() {
    let fields = EntryFields {
        func: "foo(Tensor self) -> Tensor".into(),
        ..EntryFields::default()
    };
    let f = NativeFunction::from_fields(&fields, &Tags::pytorch()).unwrap();
    assert!(f.variants.function && !f.variants.method && f.device_guard && !f.is_abstract);
    assert!(f.has_composite_implicit_kernel() && !f.is_view_op() && f.has_tag("pt2_compliant_tag"));
    assert_eq!(f.dispatch.entries[0].1.name, "foo");
    let fields = EntryFields {
        func: "foo_(Tensor(a!) self) -> Tensor(a!)".into(),
        dispatch: Some(vec![]),
        ..EntryFields::default()
    };
    let f = NativeFunction::from_fields(&fields, &Tags::pytorch()).unwrap();
    assert!(f.dispatch.entries.is_empty() && f.is_abstract && f.has_tag("inplace"));
}

#[test]
fn render_points_at_the_offending_text() {
    let e = &errors("- func: foo(Tensor self) -> Tensor\n  variants: function, methd\n")[0];
    let expected = [
        "native_functions.yaml:2:23: error[R39]: unknown variant `methd` in `variants`",
        "    variants: function, methd",
        &format!("  {}^^^^^", " ".repeat(22)),
        "help: write `function`, `method` or `function, method` (comma and one space)",
        "for more information about this error, run `opgen explain R39`",
    ];
    assert_eq!(e.render(), expected.join("\n") + "\n");
}

#[test]
fn positions_inside_quoted_values() {
    let e = &errors("- func: 'foo(Tensr self) -> Tensor'\n")[0];
    assert_eq!((e.line, e.column, e.width), (1, 14, 5));
    // An escape before the offending text: the text is not verbatim in the file there, and
    // the error points at the value.
    let e = &errors("- func: \"foo(Tensor \\x73elf, Tensr x) -> Tensor\"\n")[0];
    assert_eq!((e.line, e.column), (1, 9));
    // An escape after it: the part up to the offending text is verbatim.
    let e = &errors("- func: \"foo(Tensr \\x73elf) -> Tensor\"\n")[0];
    assert_eq!((e.line, e.column, e.width), (1, 14, 5));
}

#[test]
fn syntax_errors_and_bad_tags_yaml() {
    let e = &errors("- func: [\n")[0];
    assert!(e.rule.is_none() && e.to_string().starts_with("native_functions.yaml:"));
    let e = &crate::native::load_native_functions("", "- tag: core\n").unwrap_err()[0];
    assert_eq!(
        (e.file.as_str(), e.rule),
        ("tags.yaml", Some(Rule::UnknownTag))
    );
    assert_eq!(load("").unwrap().functions().len(), 0);
}
