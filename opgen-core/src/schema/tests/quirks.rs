//! What parses: the quirks torchgen accepts (SCHEMA.md §6.1; those opgen rejects by its name
//! rules R91, R92 are shown rejected), printing round trips, the
//! default spellings of §1.8 read as typed literals, and the layout of a printed schema.

use smallvec::smallvec;

use super::rejects;
use crate::schema::{
    AliasAnnotation, ArgType, Argument, BaseOperatorName, BaseType, DefaultValue, Float, Literal,
    OperatorName, Return, Rule, Schema, SchemaKind, layout, parse_schema,
};

#[track_caller]
fn parses(text: &str) -> Schema {
    let schema = parse_schema(text).unwrap_or_else(|e| panic!("`{text}` must parse: {e:#?}"));
    assert_eq!(
        schema.to_string(),
        text,
        "`{text}` must print back as written"
    );
    schema
}

fn base(b: BaseType) -> ArgType {
    ArgType::Base(b)
}

fn optional(t: ArgType) -> ArgType {
    ArgType::optional(t)
}

fn list(t: ArgType, size: Option<u32>) -> ArgType {
    ArgType::list(t, size)
}

// §6.1: inputs torchgen accepts although they look wrong

/// torchgen reads the overload of `foo.a.b` as `a.b`; PyTorch's schema parser and the
/// dispatcher's lookup by name do not, so opgen rejects it (R91, a documented deviation).
#[test]
fn an_overload_with_dots_is_rejected() {
    rejects("foo.a.b(Tensor self) -> Tensor", Rule::BadName, 4..7, "a.b");
}

#[test]
fn dunder_word_with_underscore_is_a_plain_inplace_name() {
    let s = parses("__foo_bar__(Tensor(a!) self) -> Tensor(a!)");
    assert_eq!(
        s.name.name,
        BaseOperatorName {
            base: "__foo_bar_".into(),
            inplace: true,
            dunder: false,
            functional_overload: false,
        }
    );
    assert_eq!(s.kind(), SchemaKind::Inplace);
}

#[test]
fn keyword_only_self_is_no_self_argument() {
    let s = parses("foo(*, Tensor self) -> Tensor");
    assert_eq!(s.self_index(), None);
    assert!(s.arguments[0].kwarg_only);
}

#[test]
fn wildcard_annotation_is_accepted_on_a_named_return() {
    let s = parses("foo(Tensor(a -> *) self) -> Tensor(a -> *) y");
    let wildcard = Some(AliasAnnotation {
        before: smallvec!['a'],
        is_write: false,
        after: smallvec!['*'],
    });
    assert_eq!(s.arguments[0].annotation, wildcard);
    assert_eq!(
        s.returns,
        [Return {
            name: Some("y".into()),
            ty: base(BaseType::Tensor),
            annotation: wildcard,
        }]
    );
    assert!(s.is_view_op_by_schema());
}

#[test]
fn nested_optional_and_nested_list_types() {
    let s = parses("foo(Tensor self, int?? x, int[][] y, int[2]?[] z) -> Tensor");
    assert_eq!(s.arguments[1].ty, optional(optional(base(BaseType::Int))));
    assert_eq!(
        s.arguments[2].ty,
        list(list(base(BaseType::Int), None), None)
    );
    assert_eq!(
        s.arguments[3].ty,
        list(optional(list(base(BaseType::Int), Some(2))), None)
    );
}

#[test]
fn defaults_are_not_checked_against_their_types() {
    let s = parses("foo(Tensor self, int[1] dim=[-2,-1]) -> Tensor");
    assert_eq!(s.arguments[1].ty, list(base(BaseType::Int), Some(1)));
    assert_eq!(
        s.arguments[1].default.as_ref().map(|d| &d.value),
        Some(&Literal::List(vec![Literal::Int(-2), Literal::Int(-1)]))
    );
}

/// torchgen validates no argument name and detects no duplicate; opgen rejects both (R91,
/// R92), which no generated function could spell.
#[test]
fn argument_names_are_validated() {
    rejects(
        "foo(Tensor self, int x-y) -> Tensor",
        Rule::BadName,
        21..24,
        "x-y",
    );
    rejects(
        "foo(Tensor self, int x, int x) -> Tensor",
        Rule::DuplicateName,
        28..29,
        "x",
    );
}

/// torchgen keeps the leading space in the operator name ` foo`; opgen rejects it (R91).
#[test]
fn a_leading_space_is_rejected() {
    rejects(" foo(Tensor self) -> Tensor", Rule::BadName, 0..4, " foo");
}

/// torchgen names the return `x=1`; opgen rejects the name (R91).
#[test]
fn a_return_named_like_a_default_is_rejected() {
    rejects(
        "foo(Tensor self) -> Tensor x=1",
        Rule::BadName,
        27..30,
        "x=1",
    );
}

// Names, types and annotations that parse

#[test]
fn operator_name_forms() {
    let cases: [(&str, &str, bool, bool, bool); 6] = [
        ("add.Tensor", "add", false, false, false),
        ("add_.Tensor", "add", true, false, false),
        ("__and__.Scalar", "and", false, true, false),
        ("__iand__.Scalar", "and", true, true, false),
        ("normal_functional", "normal", false, false, true),
        ("aten::add.out", "add", false, false, false),
    ];
    for (name, b, inplace, dunder, functional) in cases {
        let op = crate::schema::parse_operator_name(name).unwrap();
        assert_eq!(
            (
                op.name.base.as_str(),
                op.name.inplace,
                op.name.dunder,
                op.name.functional_overload
            ),
            (b, inplace, dunder, functional),
            "{name}"
        );
        assert_eq!(op.to_string(), name);
    }
    let op = crate::schema::parse_operator_name("aten::add.out").unwrap();
    assert_eq!(op.namespace.as_deref(), Some("aten"));
}

#[test]
fn every_base_type_parses() {
    for b in BaseType::ALL {
        let text = format!("foo(Tensor self, {b} x) -> Tensor");
        assert_eq!(parses(&text).arguments[1].ty, base(b));
    }
    let s = parses(
        "foo(Tensor self, __torch__.torch.classes.quantized.Conv2dPackedParamsBase p) -> Tensor",
    );
    assert_eq!(
        s.arguments[1].ty,
        ArgType::CustomClass("quantized.Conv2dPackedParamsBase".into())
    );
}

#[test]
fn annotation_forms() {
    let s = parses(
        "foo(Tensor(a) self, Tensor(b!)? x, Tensor(c!)[] y, Tensor(d|e) z, Tensor(f! -> g) w) -> Tensor(a)",
    );
    let ann = |i: usize| s.arguments[i].annotation.clone().unwrap();
    assert_eq!(ann(1).before[..], ['b']);
    assert!(ann(1).is_write && s.arguments[1].ty.is_optional());
    assert_eq!(s.arguments[2].ty, list(base(BaseType::Tensor), None));
    assert_eq!(ann(3).before[..], ['d', 'e']);
    assert_eq!(
        (ann(4).is_write, ann(4).after.clone()),
        (true, smallvec!['g'])
    );
}

// Printing

#[test]
fn printing_round_trips() {
    let texts = [
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
        "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
        "is_vulkan_available() -> bool",
        "_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
        "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
        "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
        "aten::normal_functional(Tensor self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor",
        "_test_string_default(Tensor dummy, str a=\"\\\"'\\\\\", str b='\"\\'\\\\') -> Tensor",
        "foo(*, Tensor a) -> (Tensor, Tensor, Tensor)",
    ];
    for text in texts {
        let s = parses(text);
        assert_eq!(parse_schema(&s.to_string()), Ok(s));
    }
}

#[test]
fn printer_puts_keyword_only_arguments_after_the_star() {
    let arg = |name: &str, kwarg_only: bool| Argument {
        name: name.into(),
        ty: base(BaseType::Int),
        annotation: None,
        default: None,
        kwarg_only,
    };
    let schema = Schema {
        name: OperatorName {
            namespace: None,
            name: BaseOperatorName {
                base: "f".into(),
                inplace: false,
                dunder: false,
                functional_overload: false,
            },
            overload: None,
        },
        // Out of order on purpose: the printer still writes positional arguments first.
        arguments: vec![arg("k", true), arg("p", false)],
        returns: vec![],
    };
    assert_eq!(schema.to_string(), "f(int p, *, int k) -> ()");
    let at = layout(&schema);
    assert_eq!(at.arguments[0].whole, 12..17);
    assert_eq!(at.arguments[1].whole, 2..7);
    assert_eq!(at.star, Some(9..10));
}

// Default values (SCHEMA.md §1.8): all 41 spellings of the corpus, read as literals

#[test]
fn all_default_spellings_are_read_as_typed_literals() {
    let float = |f: f64| Literal::Float(Float(f));
    let string = |s: &str| Literal::Str(s.into());
    let ident = |s: &str| Literal::Ident(s.into());
    let cases: Vec<(&str, &str, Literal)> = vec![
        ("Tensor?", "None", Literal::None),
        ("bool", "False", Literal::Bool(false)),
        ("Scalar", "1", Literal::Int(1)),
        ("int", "0", Literal::Int(0)),
        ("bool", "True", Literal::Bool(true)),
        ("int", "-1", Literal::Int(-1)),
        ("int[]", "[]", Literal::List(vec![])),
        ("int", "Mean", ident("Mean")),
        ("float", "2", Literal::Int(2)),
        ("float", "0.0", float(0.0)),
        ("Scalar", "1.0", float(1.0)),
        (
            "int[1]",
            "[-2,-1]",
            Literal::List(vec![Literal::Int(-2), Literal::Int(-1)]),
        ),
        ("float", "10.0", float(10.0)),
        ("ScalarType?", "long", ident("long")),
        ("str", "'linear'", string("linear")),
        ("int", "-100", Literal::Int(-100)),
        ("str", "\"L\"", string("L")),
        ("float", "0.5", float(0.5)),
        ("float", "0.125", float(0.125)),
        (
            "float",
            "0.3333333333333333",
            float(0.333_333_333_333_333_3),
        ),
        ("str", "'none'", string("none")),
        ("float", "1e-05", float(1e-5)),
        (
            "MemoryFormat",
            "contiguous_format",
            ident("contiguous_format"),
        ),
        ("int", "100", Literal::Int(100)),
        ("float", "1e-08", float(1e-8)),
        ("str", "\"valid\"", string("valid")),
        ("float", "0.01", float(0.01)),
        ("int", "-2", Literal::Int(-2)),
        ("float", "1e-06", float(1e-6)),
        ("int", "20", Literal::Int(20)),
        ("str", "'fro'", string("fro")),
        ("str", "'reduced'", string("reduced")),
        ("str", "\"\"", string("")),
        ("float", "1e-15", float(1e-15)),
        ("str", "\"reflect\"", string("reflect")),
        (
            "int[]",
            "[0,1]",
            Literal::List(vec![Literal::Int(0), Literal::Int(1)]),
        ),
        ("str", "\"constant\"", string("constant")),
        // The two escape cases of `_test_string_default`: both read as `"'\`.
        ("str", "\"\\\"'\\\\\"", string("\"'\\")),
        ("str", "'\"\\'\\\\'", string("\"'\\")),
        ("str", "\"2\"", string("2")),
        ("str", "\"right\"", string("right")),
    ];
    assert_eq!(cases.len(), 41);
    for (ty, spelling, value) in cases {
        let text = format!("foo(Tensor self, {ty} x={spelling}) -> Tensor");
        let s = parses(&text);
        assert_eq!(
            s.arguments[1].default,
            Some(DefaultValue {
                text: spelling.into(),
                value
            }),
            "{text}"
        );
    }
}

#[test]
fn unrecognised_default_text_is_kept_verbatim() {
    let s = parses("foo(Tensor self, int x=1+2, str y='unterminated) -> Tensor");
    assert_eq!(
        s.arguments[1].default.as_ref().unwrap().value,
        Literal::Other("1+2".into())
    );
    assert_eq!(
        s.arguments[2].default.as_ref().unwrap().value,
        Literal::Other("'unterminated".into())
    );
}

// Layout

#[test]
fn layout_points_at_every_part() {
    let text = "aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)";
    let s = parses(text);
    let at = layout(&s);
    let t = |r: std::ops::Range<usize>| &text[r];
    assert_eq!(t(at.name.clone()), "aten::max.dim_max");
    assert_eq!(t(at.overload.clone().unwrap()), "dim_max");
    assert_eq!(
        t(at.argument_list.clone()),
        "(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values)"
    );
    assert_eq!(t(at.star.clone().unwrap()), "*");
    let keepdim = &at.arguments[2];
    assert_eq!(
        (
            t(keepdim.whole.clone()),
            t(keepdim.ty.clone()),
            t(keepdim.name.clone())
        ),
        ("bool keepdim=False", "bool", "keepdim")
    );
    assert_eq!(t(keepdim.default.clone().unwrap()), "False");
    assert_eq!(t(at.arguments[3].ty.clone()), "Tensor(a!)");
    assert_eq!(at.arguments[3].default, None);
    assert_eq!(
        t(at.returns_all.clone()),
        "(Tensor(a!) values, Tensor(b!) indices)"
    );
    let indices = &at.returns[1];
    assert_eq!(
        (
            t(indices.whole.clone()),
            t(indices.ty.clone()),
            t(indices.name.clone().unwrap())
        ),
        ("Tensor(b!) indices", "Tensor(b!)", "indices")
    );
}

#[test]
fn layout_of_no_arguments_and_no_returns() {
    let text = "foo() -> ()";
    let at = layout(&parses(text));
    assert_eq!(
        (at.argument_list, at.star, at.returns_all),
        (3..5, None, 9..11)
    );
    let text = "foo(*, int x) -> int";
    let at = layout(&parses(text));
    assert_eq!(
        (
            at.star,
            at.arguments[0].whole.clone(),
            at.returns[0].whole.clone()
        ),
        (Some(4..5), 7..12, 17..20)
    );
}
