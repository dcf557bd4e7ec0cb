//! R91 and R92: names are ASCII identifiers, overloads are not reserved, names are unique
//! (opgen's rules; torchgen checks none of them, SCHEMA.md §6.1).

use super::rejects;
use crate::schema::{Rule, parse_schema};

#[test]
fn r91_names_are_ascii_identifiers() {
    rejects("ädd(Tensor self) -> Tensor", Rule::BadName, 0..4, "ädd");
    rejects("1add(Tensor self) -> Tensor", Rule::BadName, 0..4, "1add");
    rejects("a-b(Tensor self) -> Tensor", Rule::BadName, 0..3, "a-b");
    rejects(
        "add.Tensor-x(Tensor self) -> Tensor",
        Rule::BadName,
        4..12,
        "Tensor-x",
    );
    rejects("add.a.b(Tensor self) -> Tensor", Rule::BadName, 4..7, "a.b");
    rejects("add.1(Tensor self) -> Tensor", Rule::BadName, 4..5, "1");
    rejects("ñs::add(Tensor self) -> Tensor", Rule::BadName, 0..3, "ñs");
    rejects(
        "ns-x::add(Tensor self) -> Tensor",
        Rule::BadName,
        0..4,
        "ns-x",
    );
    let e = rejects("add(Tensor sélf) -> Tensor", Rule::BadName, 11..16, "sélf");
    assert_eq!(e[0].message, "argument `sélf` is not an ASCII identifier");
    rejects(
        "add(Tensor self, int x-y=1) -> Tensor",
        Rule::BadName,
        21..24,
        "x-y",
    );
    rejects(
        "add(Tensor self) -> (Tensor a, Tensor b-c)",
        Rule::BadName,
        38..41,
        "b-c",
    );
}

#[test]
fn r91_reserved_overloads() {
    let e = rejects(
        "add.default(Tensor self) -> Tensor",
        Rule::BadName,
        4..11,
        "default",
    );
    assert_eq!(e[0].message, "overload name `default` is reserved");
    rejects(
        "ns::add.__name__(Tensor self) -> Tensor",
        Rule::BadName,
        8..16,
        "__name__",
    );
}

#[test]
fn r92_names_are_unique() {
    let e = rejects(
        "add(Tensor self, Tensor self) -> Tensor",
        Rule::DuplicateName,
        24..28,
        "self",
    );
    assert_eq!(e[0].message, "argument `self` is declared twice");
    rejects(
        "add(Tensor self, *, int a, int a=1) -> Tensor",
        Rule::DuplicateName,
        31..32,
        "a",
    );
    rejects(
        "add(Tensor self) -> (Tensor a, Tensor a)",
        Rule::DuplicateName,
        38..39,
        "a",
    );
}

/// Several name problems are reported together, with the other rules' errors.
#[test]
fn every_name_problem_is_reported() {
    let errors =
        parse_schema("a-b.default(Tensor self, int x, int x, int y-z) -> Tensor").unwrap_err();
    let rules: Vec<Rule> = errors.iter().map(|e| e.rule).collect();
    assert_eq!(
        rules,
        [
            Rule::BadName,
            Rule::BadName,
            Rule::DuplicateName,
            Rule::BadName
        ],
        "{errors:#?}"
    );
}

#[test]
fn names_that_pytorch_accepts_pass() {
    for text in [
        "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
        "_foo2.out_3(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        "my_ns::Add(Tensor self, int Dim_0) -> (Tensor values, Tensor indices)",
        "add(Tensor self, Tensor other) -> (Tensor self, Tensor other)",
    ] {
        assert!(parse_schema(text).is_ok(), "{text}");
    }
}
