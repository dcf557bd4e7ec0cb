//! R84–R89 (SCHEMA.md §2.8): schemas that parse but have no Rust signature, every bad example
//! of the document, each with the smallest offending text its error points at.

use std::ops::Range;

use crate::schema::{Rule, SchemaError, parse_schema};
use crate::validate::check_rust_mapping;

/// `text` parses, and the Rust mapping check rejects it: the first error is `rule` at
/// `range`, which covers `fragment`.
#[track_caller]
fn unmappable(
    text: &str,
    method: bool,
    rule: Rule,
    range: Range<usize>,
    fragment: &str,
) -> Vec<SchemaError> {
    let schema = parse_schema(text).unwrap_or_else(|e| panic!("`{text}` must parse: {e:#?}"));
    let errors = check_rust_mapping(&schema, method);
    assert!(
        !errors.is_empty(),
        "`{text}` maps onto Rust; expected {rule}"
    );
    assert_eq!(
        (errors[0].rule, errors[0].range.clone()),
        (rule, range.clone()),
        "`{text}`: {errors:#?}"
    );
    assert_eq!(&text[range], fragment, "`{text}`");
    errors
}

#[test]
fn r84_method_without_self() {
    let e = unmappable(
        "foo(Tensor other) -> Tensor",
        true,
        Rule::MethodWithoutSelf,
        3..17,
        "(Tensor other)",
    );
    assert!(e[0].hint.as_deref().unwrap().contains("drop `method`"));
    // Without a method variant there is nothing to check.
    assert!(
        check_rust_mapping(&parse_schema("foo(Tensor other) -> Tensor").unwrap(), false).is_empty()
    );
    // A keyword-only `self` is not a self argument (SCHEMA.md §6.1); point at it.
    let e = unmappable(
        "foo(*, Tensor self) -> Tensor",
        true,
        Rule::MethodWithoutSelf,
        7..18,
        "Tensor self",
    );
    assert_eq!(
        e[0].hint.as_deref(),
        Some("move `self` before `*`, or drop `method` from `variants`")
    );
    unmappable("foo() -> Tensor", true, Rule::MethodWithoutSelf, 3..5, "()");
}

#[test]
fn r85_unsized_bool_list() {
    unmappable(
        "foo(Tensor self, bool[] mask) -> Tensor",
        false,
        Rule::UnsizedBoolList,
        17..23,
        "bool[]",
    );
    // Anywhere inside a type, and in returns too.
    unmappable(
        "foo(Tensor self, bool[]? mask) -> Tensor",
        false,
        Rule::UnsizedBoolList,
        17..23,
        "bool[]",
    );
    unmappable(
        "foo(Tensor self) -> bool[]",
        false,
        Rule::UnsizedBoolList,
        20..26,
        "bool[]",
    );
    let ok = [
        "foo(Tensor self, bool[3] mask) -> Tensor",
        "foo(Tensor self, bool?[] m) -> bool[2]",
    ];
    for text in ok {
        assert_eq!(
            check_rust_mapping(&parse_schema(text).unwrap(), false),
            vec![],
            "{text}"
        );
    }
}

#[test]
fn r86_list_default() {
    let e = unmappable(
        "foo(Tensor self, int[] dims=1) -> Tensor",
        false,
        Rule::ListDefault,
        28..29,
        "1",
    );
    assert!(e[0].hint.as_deref().unwrap().starts_with("write `[1]`"));
    unmappable(
        "foo(Tensor self, SymInt[]? size=0) -> Tensor",
        false,
        Rule::ListDefault,
        32..33,
        "0",
    );
    let ok = [
        "foo(Tensor self, int[2] padding=0) -> Tensor",
        "foo(Tensor self, int[] dims=[]) -> Tensor",
        "foo(Tensor self, int[]? dims=None) -> Tensor",
        "foo(Tensor self, int[1] dim=[-2,-1]) -> Tensor",
    ];
    for text in ok {
        assert_eq!(
            check_rust_mapping(&parse_schema(text).unwrap(), false),
            vec![],
            "{text}"
        );
    }
}

/// One value repeats into a fixed-size list of at most 64 items: a larger size would make
/// every call that leaves the argument out build that many (`int[4294967295] x=0`).
#[test]
fn r86_a_repeated_default_is_bounded() {
    let e = unmappable(
        "foo(Tensor self, int[4294967295] x=0) -> Tensor",
        false,
        Rule::ListDefault,
        35..36,
        "0",
    );
    assert!(
        e[0].message.contains("repeats into more than 64 items"),
        "{}",
        e[0].message
    );
    unmappable(
        "foo(Tensor self, bool[65]? mask=True) -> Tensor",
        false,
        Rule::ListDefault,
        32..36,
        "True",
    );
    let ok = [
        "foo(Tensor self, int[64] x=0) -> Tensor",
        "foo(Tensor self, int[4294967295] x=[]) -> Tensor",
        "foo(Tensor self, int[4294967295]? x=None) -> Tensor",
        "foo(Tensor self, int[4294967295] x) -> Tensor",
    ];
    for text in ok {
        assert_eq!(
            check_rust_mapping(&parse_schema(text).unwrap(), false),
            vec![],
            "{text}"
        );
    }
}

#[test]
fn r87_return_type() {
    unmappable(
        "foo(Tensor self) -> int[2]",
        false,
        Rule::ReturnType,
        20..26,
        "int[2]",
    );
    unmappable(
        "foo(Tensor self) -> Scalar?",
        false,
        Rule::ReturnType,
        20..27,
        "Scalar?",
    );
    unmappable(
        "foo(Tensor self) -> Tensor[]?",
        false,
        Rule::ReturnType,
        20..29,
        "Tensor[]?",
    );
    // The element of a list return is checked as well.
    unmappable(
        "foo(Tensor self) -> (Tensor, int[2][] sizes)",
        false,
        Rule::ReturnType,
        29..35,
        "int[2]",
    );
    let ok = [
        "foo(Tensor self) -> Tensor?",
        "foo(Tensor self) -> (int? a, bool[2] b, Tensor?[] c, Scalar[] d)",
    ];
    for text in ok {
        assert_eq!(
            check_rust_mapping(&parse_schema(text).unwrap(), false),
            vec![],
            "{text}"
        );
    }
}

#[test]
fn r88_mutable_list_return() {
    unmappable(
        "_foo(Tensor(a!)[] self, Scalar s) -> Tensor(a!)[]",
        false,
        Rule::MutableListReturn,
        37..49,
        "Tensor(a!)[]",
    );
}

#[test]
fn r89_unmappable_type() {
    let text = "foo(Tensor self, __torch__.torch.classes.quantized.Foo x) -> Tensor";
    unmappable(
        text,
        false,
        Rule::UnmappableType,
        17..54,
        "__torch__.torch.classes.quantized.Foo",
    );
    unmappable(
        "foo(Tensor self, GraphModule g) -> Tensor",
        false,
        Rule::UnmappableType,
        17..28,
        "GraphModule",
    );
    unmappable(
        "foo(Tensor self, GraphModule?[] g) -> Tensor",
        false,
        Rule::UnmappableType,
        17..28,
        "GraphModule",
    );
    unmappable(
        "foo(Tensor self) -> GraphModule",
        false,
        Rule::UnmappableType,
        20..31,
        "GraphModule",
    );
}

#[test]
fn every_rust_mapping_problem_is_reported_in_order() {
    let text = "foo(Tensor other, bool[] a, int[] b=1) -> (int[2] c, Scalar? d)";
    let schema = parse_schema(text).unwrap();
    let found: Vec<_> = check_rust_mapping(&schema, true)
        .iter()
        .map(|e| (e.rule, &text[e.range.clone()]))
        .collect();
    assert_eq!(
        found,
        [
            (
                Rule::MethodWithoutSelf,
                "(Tensor other, bool[] a, int[] b=1)"
            ),
            (Rule::UnsizedBoolList, "bool[]"),
            (Rule::ListDefault, "1"),
            (Rule::ReturnType, "int[2]"),
            (Rule::ReturnType, "Scalar?"),
        ]
    );
}
