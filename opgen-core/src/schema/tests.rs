//! Unit tests of the schema language, one per rule of SCHEMA.md §2.1–2.4 (every bad example
//! the document lists), each with the smallest offending text its error points at. In
//! `tests/`: R84–R89 (`rust_mapping.rs`), several errors at once and the caret rendering
//! (`errors.rs`), hostile inputs: deep nesting and huge errors (`hostile.rs`), the quirks torchgen accepts, printing and literals (`quirks.rs`), the corpus
//! figures (`corpus.rs`) and the property tests (`proptests.rs`).

mod corpus;
mod errors;
pub(crate) mod hostile;
mod names;
mod proptests;
mod quirks;
mod rust_mapping;

use std::ops::Range;

use super::{Rule, SchemaError, parse_schema};

/// Asserts that `text` is rejected, that the first error is `rule` at `range`, and that the
/// range covers `fragment` (so each case reads as "R16 points at `Tensr`").
#[track_caller]
pub(super) fn rejects(
    text: &str,
    rule: Rule,
    range: Range<usize>,
    fragment: &str,
) -> Vec<SchemaError> {
    let errors = match parse_schema(text) {
        Ok(schema) => panic!("`{text}` parsed as {schema:?}; expected {rule}"),
        Err(errors) => errors,
    };
    let first = &errors[0];
    assert_eq!(
        (first.rule, first.range.clone()),
        (rule, range.clone()),
        "`{text}`: {errors:#?}"
    );
    assert_eq!(&text[range], fragment, "`{text}`");
    errors
}

// §2.1 Overall shape and names

#[test]
fn r1_shape() {
    rejects("add(Tensor self)", Rule::Shape, 16..16, "");
    rejects("add(Tensor self)->Tensor", Rule::Shape, 16..18, "->");
    rejects("(Tensor self) -> Tensor", Rule::Shape, 0..1, "(");
}

#[test]
fn r1_line_break() {
    rejects(
        "add(Tensor self,\n Tensor other) -> Tensor",
        Rule::Shape,
        16..17,
        "\n",
    );
}

#[test]
fn r1_line_break_anywhere() {
    let text = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
    for i in 0..=text.len() {
        for line_break in ["\n", "\r"] {
            let broken = format!("{}{line_break}{}", &text[..i], &text[i..]);
            rejects(&broken, Rule::Shape, i..i + 1, line_break);
        }
    }
    // Other control characters are no line break: this tab leaves an argument without a space.
    let errors = parse_schema("relu(Tensor\tself) -> Tensor").unwrap_err();
    assert_eq!(errors[0].rule, Rule::ArgumentShape);
}

#[test]
fn r2_not_canonical() {
    let e = rejects(
        "add(Tensor self) -> (Tensor)",
        Rule::NotCanonical,
        20..28,
        "(Tensor)",
    );
    assert_eq!(e[0].hint.as_deref(), Some("write `-> Tensor`"));
    rejects(
        "add(Tensor self) -> Tensor, Tensor",
        Rule::NotCanonical,
        20..34,
        "Tensor, Tensor",
    );
    rejects(
        "add(Tensor self, *) -> Tensor",
        Rule::NotCanonical,
        17..18,
        "*",
    );
    rejects(
        "add(Tensor self, , Tensor other) -> Tensor",
        Rule::NotCanonical,
        15..19,
        ", , ",
    );
}

#[test]
fn r3_empty_name() {
    rejects(".Tensor(Tensor self) -> Tensor", Rule::EmptyName, 0..0, "");
    // torchgen crashes with an IndexError here; opgen reports R3 where the name is missing.
    rejects(
        "aten::.Tensor(Tensor self) -> Tensor",
        Rule::EmptyName,
        6..6,
        "",
    );
}

#[test]
fn r4_out_suffix() {
    let e = rejects(
        "add_out(Tensor self, Tensor other) -> Tensor",
        Rule::OutSuffix,
        3..7,
        "_out",
    );
    assert_eq!(
        e[0].hint.as_deref(),
        Some("name out variants with an overload: `add.out`")
    );
}

#[test]
fn r5_bad_dunder() {
    rejects(
        "__invert__(Tensor self) -> Tensor",
        Rule::BadDunder,
        0..10,
        "__invert__",
    );
    rejects(
        "__imatmul__(Tensor(a!) self, Tensor other) -> Tensor(a!)",
        Rule::BadDunder,
        0..11,
        "__imatmul__",
    );
}

#[test]
fn r6_functional_suffix() {
    rejects(
        "foo_functional_(Tensor(a!) self) -> Tensor(a!)",
        Rule::FunctionalSuffix,
        0..15,
        "foo_functional_",
    );
}

#[test]
fn r7_empty_overload() {
    rejects(
        "add.(Tensor self) -> Tensor",
        Rule::EmptyOverload,
        3..4,
        ".",
    );
}

#[test]
fn r8_empty_namespace() {
    rejects(
        "::add(Tensor self) -> Tensor",
        Rule::EmptyNamespace,
        0..2,
        "::",
    );
}

// §2.2 Argument list

#[test]
fn r9_argument_shape() {
    rejects(
        "add(Tensor) -> Tensor",
        Rule::ArgumentShape,
        4..10,
        "Tensor",
    );
    rejects(
        "foo(Tensor self, *, int) -> Tensor",
        Rule::ArgumentShape,
        20..23,
        "int",
    );
    // torchgen crashes with a ValueError on a name after the default.
    rejects(
        "foo(Tensor self, int=1 x) -> Tensor",
        Rule::ArgumentShape,
        17..24,
        "int=1 x",
    );
}

/// Deviation from torchgen (SCHEMA.md §6.1): torchgen reads `Tensor ` as an argument with an
/// empty name and accepts the schema; opgen rejects it with R9.
#[test]
fn r9_empty_argument_name_is_rejected_unlike_torchgen() {
    rejects(
        "foo(Tensor ) -> Tensor",
        Rule::ArgumentShape,
        4..11,
        "Tensor ",
    );
}

#[test]
fn r10_multiple_equals() {
    rejects(
        "foo(Tensor self, str mode=\"a=b\") -> Tensor",
        Rule::MultipleEquals,
        28..29,
        "=",
    );
    rejects(
        "foo(Tensor self, int x==1) -> Tensor",
        Rule::MultipleEquals,
        23..24,
        "=",
    );
}

#[test]
fn r11_empty_default() {
    rejects(
        "foo(Tensor self, int x=) -> Tensor",
        Rule::EmptyDefault,
        22..23,
        "=",
    );
}

#[test]
fn r12_duplicate_star() {
    rejects(
        "foo(Tensor self, *, int a, *, int b) -> Tensor",
        Rule::DuplicateStar,
        27..28,
        "*",
    );
}

#[test]
fn r13_non_out_after_out() {
    rejects(
        "foo(Tensor self, *, Tensor(a!) out, int x=0) -> Tensor(a!)",
        Rule::NonOutAfterOut,
        36..43,
        "int x=0",
    );
}

#[test]
fn r14_written_pre_self() {
    rejects(
        "foo(Tensor(a!) buf, Tensor self) -> ()",
        Rule::WrittenPreSelf,
        4..18,
        "Tensor(a!) buf",
    );
}

#[test]
fn r15_duplicate_tensor_options() {
    let group =
        "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None";
    let text = format!("foo(*, {group}, {group}) -> Tensor");
    // The second group is the offending one.
    let start = "foo(*, ".len() + group.len() + 2;
    rejects(
        &text,
        Rule::DuplicateTensorOptions,
        start..start + group.len(),
        group,
    );
}

// §2.3 Types, annotations, returns

#[test]
fn r16_unknown_type() {
    let e = rejects(
        "foo(Tensor self, Foo x) -> Tensor",
        Rule::UnknownType,
        17..20,
        "Foo",
    );
    assert_eq!(e[0].message, "unknown type `Foo`");
    let e = rejects(
        "foo(tensor self) -> Tensor",
        Rule::UnknownType,
        4..10,
        "tensor",
    );
    assert_eq!(e[0].hint.as_deref(), Some("did you mean `Tensor`?"));
    // No space after the comma: torchgen sees one argument whose type is `Tensor self,int`.
    rejects(
        "foo(Tensor self,int x) -> Tensor",
        Rule::UnknownType,
        4..19,
        "Tensor self,int",
    );
    // An unnamed return is split at its last space, so the arrow breaks it.
    rejects(
        "foo(Tensor(a -> *) self) -> Tensor(a -> *)",
        Rule::UnknownType,
        28..39,
        "Tensor(a ->",
    );
}

#[test]
fn r17_bad_list_size() {
    rejects(
        "foo(Tensor self, int[0] x) -> Tensor",
        Rule::BadListSize,
        21..22,
        "0",
    );
    rejects(
        "foo(Tensor self, int[02] x) -> Tensor",
        Rule::BadListSize,
        21..23,
        "02",
    );
}

#[test]
fn r18_annotation_position() {
    rejects(
        "foo(Tensor(a)[2] self) -> Tensor",
        Rule::AnnotationPosition,
        13..16,
        "[2]",
    );
    rejects(
        "foo(Tensor(a)?[] self) -> Tensor",
        Rule::AnnotationPosition,
        13..16,
        "?[]",
    );
    let e = rejects(
        "foo(Tensor?(a!) self) -> ()",
        Rule::AnnotationPosition,
        4..15,
        "Tensor?(a!)",
    );
    assert!(
        e[0].hint
            .as_deref()
            .unwrap()
            .ends_with("write `Tensor(...)?`")
    );
    rejects(
        "foo(Tensor self, int(a) x) -> Tensor",
        Rule::AnnotationPosition,
        17..23,
        "int(a)",
    );
}

#[test]
fn r19_annotation_syntax() {
    // The argument and the return are both wrong: two errors.
    let e = rejects(
        "foo(Tensor(A) self) -> Tensor(A)",
        Rule::AnnotationSyntax,
        11..12,
        "A",
    );
    assert_eq!((e.len(), e[1].range.clone()), (2, 30..31));
    rejects(
        "foo(Tensor(ab) self) -> Tensor(ab)",
        Rule::AnnotationSyntax,
        11..13,
        "ab",
    );
    rejects(
        "foo(Tensor(a->b) self) -> Tensor",
        Rule::AnnotationSyntax,
        11..15,
        "a->b",
    );
    rejects(
        "foo(Tensor(a!!) self) -> Tensor(a!!)",
        Rule::AnnotationSyntax,
        11..14,
        "a!!",
    );
}

#[test]
fn r20_write_alias_set_size() {
    rejects(
        "foo(Tensor(a|b!) self) -> Tensor(a|b!)",
        Rule::WriteAliasSetSize,
        11..15,
        "a|b!",
    );
}

#[test]
fn r21_alias_sets_both_large() {
    rejects(
        "foo(Tensor(a|b -> c|d) self) -> Tensor",
        Rule::AliasSetsBothLarge,
        11..21,
        "a|b -> c|d",
    );
}

#[test]
fn r22_too_many_alias_letters() {
    rejects(
        "foo(Tensor(a|b|c) self) -> Tensor(a|b|c)",
        Rule::TooManyAliasLetters,
        11..16,
        "a|b|c",
    );
}

#[test]
fn r23_empty_returns() {
    // torchgen crashes with an IndexError; opgen points at the space after `->`.
    rejects("foo(Tensor self) -> ", Rule::EmptyReturns, 19..20, " ");
}

// §2.4 Schema invariants

#[test]
fn r24_out_return_mismatch() {
    rejects(
        "foo.out(Tensor self, *, Tensor(a!) out) -> Tensor",
        Rule::OutReturnMismatch,
        43..49,
        "Tensor",
    );
    let e = rejects(
        "foo.out(Tensor self, *, Tensor(a!) out, Tensor(b!) out2) -> (Tensor(b!), Tensor(a!))",
        Rule::OutReturnMismatch,
        61..71,
        "Tensor(b!)",
    );
    // Each mismatched pair is reported.
    assert_eq!(
        (e.len(), e[1].rule, e[1].range.clone()),
        (2, Rule::OutReturnMismatch, 73..83)
    );
}

#[test]
fn r25_returned_mutable_positional() {
    rejects(
        "foo(Tensor self, Tensor(a!) buf) -> Tensor(a!)",
        Rule::ReturnedMutablePositional,
        17..31,
        "Tensor(a!) buf",
    );
}

#[test]
fn r26_mixed_returns() {
    rejects(
        "foo(Tensor(a!) self) -> (Tensor(a!), Tensor)",
        Rule::MixedReturns,
        24..44,
        "(Tensor(a!), Tensor)",
    );
    let e = rejects(
        "foo.out(Tensor self, *, Tensor(a!) out) -> (Tensor(a!), int)",
        Rule::MixedReturns,
        43..60,
        "(Tensor(a!), int)",
    );
    assert_eq!(e[1].rule, Rule::OutReturnCount);
}

#[test]
fn r27_unaliased_mutable_return() {
    rejects(
        "foo(Tensor self) -> Tensor(a!)",
        Rule::UnaliasedMutableReturn,
        20..30,
        "Tensor(a!)",
    );
}

#[test]
fn r28_tensor_list_out_returns() {
    rejects(
        "foo.out(Tensor self, *, Tensor(a!)[] out) -> Tensor(a!)[]",
        Rule::TensorListOutReturns,
        45..57,
        "Tensor(a!)[]",
    );
}

#[test]
fn r29_out_return_count() {
    rejects(
        "foo.out(Tensor self, *, Tensor(a!) out) -> ()",
        Rule::OutReturnCount,
        43..45,
        "()",
    );
    rejects(
        "foo.out(Tensor self, *, Tensor(a!) out, Tensor(b!) out2) -> Tensor(a!)",
        Rule::OutReturnCount,
        60..70,
        "Tensor(a!)",
    );
}

#[test]
fn r30_inplace_without_mutable_self() {
    rejects(
        "foo_(Tensor self) -> Tensor",
        Rule::InplaceWithoutMutableSelf,
        5..16,
        "Tensor self",
    );
    // No `self` at all: the name is what is wrong.
    rejects(
        "foo_(Tensor(a!) input) -> ()",
        Rule::InplaceWithoutMutableSelf,
        0..4,
        "foo_",
    );
    rejects(
        "__iand__.Tensor(Tensor self, Tensor other) -> Tensor",
        Rule::InplaceWithoutMutableSelf,
        16..27,
        "Tensor self",
    );
}

#[test]
fn r31_inplace_must_return_self() {
    let e = rejects(
        "foo_(Tensor(a!) self) -> Tensor",
        Rule::InplaceMustReturnSelf,
        25..31,
        "Tensor",
    );
    assert_eq!(e[0].hint.as_deref(), Some("write `-> Tensor(a!)`"));
    rejects(
        "foo_(Tensor(a!) self) -> ()",
        Rule::InplaceMustReturnSelf,
        25..27,
        "()",
    );
}

#[test]
fn r32_inplace_non_tensor_self() {
    rejects(
        "_foo_(Tensor(a!)[] self) -> Tensor(a!)[]",
        Rule::InplaceNonTensorSelf,
        28..40,
        "Tensor(a!)[]",
    );
}

#[test]
fn r33_tensor_options_not_functional() {
    let group =
        "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None";
    rejects(
        &format!("foo.out(*, {group}, Tensor(a!) out) -> Tensor(a!)"),
        Rule::TensorOptionsNotFunctional,
        11..11 + group.len(),
        group,
    );
}

#[test]
fn r34_functional_overload() {
    rejects(
        "foo.functional_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        Rule::FunctionalOverload,
        4..18,
        "functional_out",
    );
    rejects(
        "foo_.nonfunctional(Tensor(a!) self) -> Tensor(a!)",
        Rule::FunctionalOverload,
        5..18,
        "nonfunctional",
    );
}

#[test]
fn r35_inplace_and_out() {
    rejects(
        "foo_.functional(Tensor(a!) self, *, Tensor(a!) out) -> Tensor(a!)",
        Rule::InplaceAndOut,
        0..15,
        "foo_.functional",
    );
    // torchgen notices this one only when it groups the file; opgen at parse time.
    rejects(
        "foo_(Tensor(a!) self, *, Tensor(a!) out) -> Tensor(a!)",
        Rule::InplaceAndOut,
        0..4,
        "foo_",
    );
}
