//! Property tests: generated valid schemas round-trip through the printer and the parser, and
//! no input makes the parser (or the rendering of its errors) panic.
//!
//! The generator builds a [`Schema`] model that satisfies R1–R35 by construction, one
//! strategy per kind (SCHEMA.md §3.1): functional (optionally with TensorOptions), in-place
//! (`Tensor` or tensor-list `self`), out (plain or tensor-list outs, returns matching them)
//! and mutable. Names cover overloads (with dots), namespaces, dunders, in-place and
//! `_functional` forms; types cover every base type, custom classes and nested `?`/`[]`/`[N]`
//! forms; annotations, named returns, and defaults of every literal kind.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use smallvec::smallvec;

use crate::schema::{
    AliasAnnotation, ArgType, Argument, BaseOperatorName, BaseType, DefaultValue, Float, Literal,
    OperatorName, Return, Schema, layout, parse_schema,
};
use crate::validate::check_rust_mapping;

const AUGMENTED: [&str; 11] = [
    "add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or",
];
/// Names the generator keeps for itself: `self`, and the TensorOptions quartet (an accidental
/// group in a non-functional schema would break R33).
const RESERVED: [&str; 5] = ["self", "dtype", "layout", "device", "pin_memory"];

// Names

fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9]{0,5}(_[a-z0-9]{1,4}){0,2}"
        .prop_filter("`_out` is reserved (R4)", |w| !w.ends_with("_out"))
}

fn base_name(
    base: String,
    inplace: bool,
    dunder: bool,
    functional_overload: bool,
) -> BaseOperatorName {
    BaseOperatorName {
        base: base.into(),
        inplace,
        dunder,
        functional_overload,
    }
}

/// A name for a schema that is not in-place: plain, `_functional`, or a dunder whose word does
/// not start with `i` (R5).
fn not_inplace_name() -> impl Strategy<Value = BaseOperatorName> {
    prop_oneof![
        4 => word().prop_map(|w| base_name(w, false, false, false)),
        1 => word().prop_map(|w| base_name(w, false, false, true)),
        1 => "[a-hj-z][a-z]{0,5}".prop_map(|w| base_name(w, false, true, false)),
    ]
}

fn inplace_name() -> impl Strategy<Value = BaseOperatorName> {
    prop_oneof![
        3 => word().prop_map(|w| base_name(w, true, false, false)),
        1 => select(&AUGMENTED[..]).prop_map(|w| base_name(w.to_string(), true, true, false)),
    ]
}

fn operator_name(
    name: impl Strategy<Value = BaseOperatorName>,
    overload: BoxedStrategy<String>,
) -> impl Strategy<Value = OperatorName> {
    (
        option::weighted(0.1, "[a-z]{1,4}"),
        name,
        option::of(overload),
    )
        .prop_map(|(namespace, name, overload)| OperatorName {
            namespace: namespace.map(Into::into),
            name,
            overload: overload.map(Into::into),
        })
}

/// Overload names: identifiers, neither reserved (R91) nor containing `functional` (R34).
fn overload() -> BoxedStrategy<String> {
    "[A-Za-z_][A-Za-z0-9_]{0,7}"
        .prop_filter("reserved (R91)", |o| o != "default" && o != "__name__")
        .boxed()
}

/// Functional schemas may use the reserved word in their overload.
fn functional_overload() -> BoxedStrategy<String> {
    prop_oneof![4 => overload(), 1 => Just("functional".to_string())].boxed()
}

fn argument_name() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,7}".prop_filter("reserved", |n| !RESERVED.contains(&n.as_str()))
}

// Types and annotations

fn base(b: BaseType) -> ArgType {
    ArgType::Base(b)
}

fn optional(t: ArgType) -> ArgType {
    ArgType::optional(t)
}

fn list(t: ArgType, size: Option<u32>) -> ArgType {
    ArgType::list(t, size)
}

fn arg_type() -> impl Strategy<Value = ArgType> {
    let leaf = prop_oneof![
        12 => select(&BaseType::ALL[..]).prop_map(base),
        1 => "[A-Za-z_][A-Za-z0-9_]{0,6}(\\.[A-Za-z_][A-Za-z0-9_]{0,6})?".prop_map(|c| ArgType::CustomClass(c.into())),
    ];
    leaf.prop_recursive(3, 6, 1, |inner| {
        prop_oneof![
            inner.clone().prop_map(optional),
            (inner, option::of(1u32..=99)).prop_map(|(t, n)| list(t, n)),
        ]
    })
}

/// A non-written annotation: one or two letters, optionally an after-set (`*` or letters),
/// never both sides larger than one (R21).
fn view_annotation(arrow: bool) -> impl Strategy<Value = AliasAnnotation> {
    let after = prop_oneof![Just(vec!['*']), vec(proptest::char::range('a', 'z'), 1..3),];
    (
        vec(proptest::char::range('a', 'z'), 1..3),
        option::weighted(0.4, after),
    )
        .prop_map(move |(before, after)| {
            let mut after = after.filter(|_| arrow).unwrap_or_default();
            if before.len() > 1 {
                after.truncate(1);
            }
            AliasAnnotation {
                before: before.into(),
                is_write: false,
                after: after.into(),
            }
        })
}

fn written(letter: char) -> Option<AliasAnnotation> {
    Some(AliasAnnotation {
        before: smallvec![letter],
        is_write: true,
        after: smallvec![],
    })
}

/// A type with an optional non-written annotation: annotations go only on `Tensor`,
/// `Tensor?` and `Tensor[]` (R18). `arrow` allows ` -> ` (not on unnamed returns).
fn annotated_type(arrow: bool) -> impl Strategy<Value = (ArgType, Option<AliasAnnotation>)> {
    let tensor = select(vec![
        base(BaseType::Tensor),
        optional(base(BaseType::Tensor)),
        list(base(BaseType::Tensor), None),
    ]);
    prop_oneof![
        4 => arg_type().prop_map(|t| (t, None)),
        1 => (tensor, view_annotation(arrow)).prop_map(|(t, a)| (t, Some(a))),
    ]
}

// Defaults: (text, literal) pairs of every literal kind

fn string_default() -> impl Strategy<Value = (String, Literal)> {
    // Each piece is (text, value): a plain character or an escape.
    let piece = prop_oneof![
        4 => "[a-z0-9 _.-]".prop_map(|c| (c.clone(), c)),
        1 => select(vec![
            ("\\\\", "\\"),
            ("\\n", "\n"),
            ("\\t", "\t"),
            ("\\'", "'"),
            ("\\\"", "\""),
        ])
        .prop_map(|(t, v)| (t.to_string(), v.to_string())),
    ];
    (any::<bool>(), vec(piece, 0..6)).prop_map(|(single, pieces)| {
        let quote = if single { '\'' } else { '"' };
        let text: String = pieces.iter().map(|(t, _)| t.as_str()).collect();
        let value: String = pieces.iter().map(|(_, v)| v.as_str()).collect();
        (format!("{quote}{text}{quote}"), Literal::Str(value.into()))
    })
}

fn default_value() -> impl Strategy<Value = DefaultValue> {
    let literal = prop_oneof![
        Just(("None".to_string(), Literal::None)),
        any::<bool>().prop_map(|b| (
            if b { "True" } else { "False" }.to_string(),
            Literal::Bool(b)
        )),
        (-1000i64..1000).prop_map(|n| (n.to_string(), Literal::Int(n))),
        // `{:?}` prints the shortest text that reads back as the same float, always with a
        // `.` or an exponent (`1.0`, `1e-5`), so it is never read as an int.
        (-1e6f64..1e6).prop_map(|f| (format!("{f:?}"), Literal::Float(Float(f)))),
        prop_oneof![
            Just(1e-5),
            Just(1e-8),
            Just(1e-15),
            Just(0.3333333333333333)
        ]
        .prop_map(|f| (format!("{f:?}"), Literal::Float(Float(f)))),
        string_default(),
        vec(-100i64..100, 0..4).prop_map(|items| {
            let text = items
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",");
            (
                format!("[{text}]"),
                Literal::List(items.into_iter().map(Literal::Int).collect()),
            )
        }),
        "[A-Za-z_][A-Za-z0-9_]{0,10}"
            .prop_filter("keywords", |w| !["None", "True", "False"]
                .contains(&w.as_str()))
            .prop_map(|w| (w.clone(), Literal::Ident(w.into()))),
    ];
    literal.prop_map(|(text, value)| DefaultValue {
        text: text.into(),
        value,
    })
}

// Arguments and returns

/// An argument that is not written, with any type, maybe a default.
fn plain_argument() -> impl Strategy<Value = Argument> {
    (
        argument_name(),
        annotated_type(true),
        option::weighted(0.3, default_value()),
    )
        .prop_map(|(name, (ty, annotation), default)| Argument {
            name: name.into(),
            ty,
            annotation,
            default,
            kwarg_only: false,
        })
}

fn kwarg(mut a: Argument) -> Argument {
    a.kwarg_only = true;
    a
}

fn tensor_self(ty: ArgType, annotation: Option<AliasAnnotation>) -> Argument {
    Argument {
        name: "self".into(),
        ty,
        annotation,
        default: None,
        kwarg_only: false,
    }
}

/// A return that is not written: named or not (only named returns may carry ` -> `).
fn fresh_return() -> impl Strategy<Value = Return> {
    prop_oneof![
        annotated_type(false).prop_map(|(ty, annotation)| Return {
            name: None,
            ty,
            annotation,
        }),
        ("[a-z_][a-z0-9_]{0,5}", annotated_type(true)).prop_map(|(name, (ty, annotation))| {
            Return {
                name: Some(name.into()),
                ty,
                annotation,
            }
        }),
    ]
}

fn tensor_options() -> impl Strategy<Value = Vec<Argument>> {
    let names = [
        ("dtype", BaseType::ScalarType),
        ("layout", BaseType::Layout),
        ("device", BaseType::Device),
        ("pin_memory", BaseType::Bool),
    ];
    (vec(any::<bool>(), 4), select(vec!["None", "False", "long"])).prop_map(move |(opt, d)| {
        names
            .iter()
            .zip(opt)
            .map(|((name, b), opt)| Argument {
                name: (*name).into(),
                ty: if opt { optional(base(*b)) } else { base(*b) },
                annotation: None,
                default: Some(DefaultValue {
                    text: d.into(),
                    value: match d {
                        "None" => Literal::None,
                        "False" => Literal::Bool(false),
                        _ => Literal::Ident(d.into()),
                    },
                }),
                kwarg_only: true,
            })
            .collect()
    })
}

/// Distinct alias letters for written arguments.
fn letters() -> impl Strategy<Value = Vec<char>> {
    Just(('a'..='z').collect::<Vec<_>>()).prop_shuffle()
}

fn insert_at<T>(items: &mut Vec<T>, at: Option<Index>, item: T) {
    let i = at.map_or(0, |at| at.index(items.len() + 1));
    items.insert(i, item);
}

// Schemas, one strategy per kind

fn functional() -> impl Strategy<Value = Schema> {
    (
        operator_name(not_inplace_name(), functional_overload()),
        vec(plain_argument(), 0..4),
        option::of(any::<Index>()),
        vec(plain_argument(), 0..3),
        option::weighted(0.2, tensor_options()),
        vec(fresh_return(), 0..4),
    )
        .prop_map(
            |(name, mut positional, self_at, kwargs, options, returns)| {
                if let Some(at) = self_at {
                    insert_at(
                        &mut positional,
                        Some(at),
                        tensor_self(base(BaseType::Tensor), None),
                    );
                }
                let mut arguments = positional;
                arguments.extend(kwargs.into_iter().map(kwarg));
                arguments.extend(options.into_iter().flatten());
                Schema {
                    name,
                    arguments,
                    returns,
                }
            },
        )
}

fn inplace() -> impl Strategy<Value = Schema> {
    let self_type = select(vec![
        base(BaseType::Tensor),
        list(base(BaseType::Tensor), None),
        optional(base(BaseType::Tensor)),
    ]);
    (
        operator_name(inplace_name(), overload()),
        vec(plain_argument(), 0..2),
        self_type,
        letters(),
        vec(plain_argument(), 0..3),
        vec(plain_argument(), 0..2),
        option::of("[a-z]{1,5}"),
    )
        .prop_map(|(name, pre, self_ty, letters, post, kwargs, ret_name)| {
            let annotation = written(letters[0]);
            // R31/R32: a `Tensor` self is returned, any other self is not.
            let returns = if self_ty.is_plain_tensor() {
                vec![Return {
                    name: ret_name.map(Into::into),
                    ty: self_ty.clone(),
                    annotation: annotation.clone(),
                }]
            } else {
                vec![]
            };
            let mut arguments = pre;
            arguments.push(tensor_self(self_ty, annotation));
            arguments.extend(post);
            arguments.extend(kwargs.into_iter().map(kwarg));
            Schema {
                name,
                arguments,
                returns,
            }
        })
}

fn out() -> impl Strategy<Value = Schema> {
    (
        operator_name(not_inplace_name(), overload()),
        vec(plain_argument(), 0..3),
        option::of(any::<Index>()),
        vec(plain_argument(), 0..2),
        vec((argument_name(), option::of("[a-z]{1,5}")), 1..4),
        letters(),
        any::<bool>(),
    )
        .prop_map(
            |(name, mut positional, self_at, kwargs, outs, letters, list_outs)| {
                if let Some(at) = self_at {
                    insert_at(
                        &mut positional,
                        Some(at),
                        tensor_self(base(BaseType::Tensor), None),
                    );
                }
                let mut arguments = positional;
                arguments.extend(kwargs.into_iter().map(kwarg));
                let mut returns = Vec::new();
                for ((out, ret_name), letter) in outs.into_iter().zip(letters) {
                    let ty = if list_outs {
                        list(base(BaseType::Tensor), None)
                    } else {
                        base(BaseType::Tensor)
                    };
                    // R24/R29: one return per plain out, annotated alike; R28: none for lists.
                    if !list_outs {
                        returns.push(Return {
                            name: ret_name.map(Into::into),
                            ty: ty.clone(),
                            annotation: written(letter),
                        });
                    }
                    arguments.push(Argument {
                        name: out.into(),
                        ty,
                        annotation: written(letter),
                        default: None,
                        kwarg_only: true,
                    });
                }
                Schema {
                    name,
                    arguments,
                    returns,
                }
            },
        )
}

fn mutable() -> impl Strategy<Value = Schema> {
    (
        operator_name(not_inplace_name(), overload()),
        any::<bool>(),
        argument_name(),
        letters(),
        vec(plain_argument(), 0..3),
        vec(plain_argument(), 0..2),
        vec(fresh_return(), 0..3),
    )
        .prop_map(
            |(name, with_self, buffer, letters, post, kwargs, returns)| {
                let mut arguments = Vec::new();
                if with_self {
                    arguments.push(tensor_self(base(BaseType::Tensor), None));
                }
                // Written after `self` (R14), and not returned (R25): fresh returns only.
                arguments.push(Argument {
                    name: buffer.into(),
                    ty: base(BaseType::Tensor),
                    annotation: written(letters[0]),
                    default: None,
                    kwarg_only: false,
                });
                arguments.extend(post);
                arguments.extend(kwargs.into_iter().map(kwarg));
                Schema {
                    name,
                    arguments,
                    returns,
                }
            },
        )
}

fn schema() -> impl Strategy<Value = Schema> {
    prop_oneof![3 => functional(), 2 => inplace(), 2 => out(), 1 => mutable()]
        .prop_map(unique_names)
}

/// `s` with a suffix on each argument or return whose name an earlier one has (R92).
fn unique_names(mut s: Schema) -> Schema {
    fn fresh(taken: &mut Vec<String>, name: &str) -> String {
        let mut unique = name.to_string();
        let mut n = 1;
        while taken.contains(&unique) {
            unique = format!("{name}_{n}");
            n += 1;
        }
        taken.push(unique.clone());
        unique
    }
    let mut taken = Vec::new();
    for a in &mut s.arguments {
        a.name = fresh(&mut taken, &a.name).into();
    }
    let mut taken = Vec::new();
    for r in &mut s.returns {
        if let Some(name) = &r.name {
            r.name = Some(fresh(&mut taken, name).into());
        }
    }
    s
}

/// Text near schemas: a generated schema with a few bytes inserted, removed or replaced,
/// so that mutations reach deep into the parser.
fn near_schema() -> impl Strategy<Value = String> {
    let edit = (
        any::<Index>(),
        0usize..3,
        "[ -~]{0,3}|(, |\\) -> |\\(|\\)|!|\\*|\\?|\\[\\]|=|é|\n)",
    );
    (schema(), vec(edit, 1..4)).prop_map(|(s, edits)| {
        let mut text = s.to_string();
        for (at, remove, insert) in edits {
            let mut i = at.index(text.len() + 1);
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            let mut j = (i + remove).min(text.len());
            while !text.is_char_boundary(j) {
                j += 1;
            }
            text.replace_range(i..j, &insert);
        }
        text
    })
}

/// What must hold for any input: errors point into the text and render; an accepted
/// schema prints back as written.
fn check_any_input(text: &str) -> Result<(), TestCaseError> {
    match parse_schema(text) {
        Ok(schema) => {
            prop_assert_eq!(schema.to_string(), text);
            for e in check_rust_mapping(&schema, true) {
                prop_assert!(text.get(e.range.clone()).is_some(), "{:?}", e);
                let _ = e.render(text);
            }
        }
        Err(errors) => {
            prop_assert!(!errors.is_empty());
            for e in &errors {
                prop_assert!(
                    e.range.start <= e.range.end && text.get(e.range.clone()).is_some(),
                    "range {:?} of {:?} is not a slice of {:?}",
                    e.range,
                    e,
                    text
                );
                let rendered = e.render(text);
                prop_assert!(rendered.starts_with("error[R"), "{}", rendered);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn generated_schemas_round_trip(s in schema()) {
        let text = s.to_string();
        let parsed = parse_schema(&text);
        prop_assert_eq!(parsed.as_ref(), Ok(&s), "{}", text);
        let parsed = parsed.unwrap();
        prop_assert_eq!(parsed.to_string(), text.clone());
        prop_assert_eq!(parse_schema(&parsed.to_string()), Ok(parsed));
    }

    #[test]
    fn layout_points_at_each_part_of_generated_schemas(s in schema()) {
        let text = s.to_string();
        let at = layout(&s);
        prop_assert_eq!(&text[at.name.clone()], s.name.to_string());
        for (arg, place) in s.arguments.iter().zip(&at.arguments) {
            prop_assert_eq!(&text[place.whole.clone()], arg.to_string());
            prop_assert_eq!(&text[place.name.clone()], arg.name.as_str());
            prop_assert_eq!(place.default.clone().map(|r| &text[r]), arg.default.as_ref().map(|d| d.text.as_str()));
        }
        for (ret, place) in s.returns.iter().zip(&at.returns) {
            prop_assert_eq!(&text[place.whole.clone()], ret.to_string());
        }
        prop_assert_eq!(at.returns_all.end, text.len());
    }

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>()) {
        check_any_input(&text)?;
    }

    #[test]
    fn near_schema_strings_never_panic(text in near_schema()) {
        check_any_input(&text)?;
    }
}
