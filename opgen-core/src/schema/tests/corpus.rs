//! The corpus: every `func` of `native_functions.yaml` parses and prints back byte for byte,
//! the layout points at the right text, and the figures SCHEMA.md gives (§1.4–1.9, §3.1)
//! come out of the parsed schemas.

use std::collections::BTreeMap;

use crate::schema::{ArgType, BaseType, Schema, SchemaKind, layout, parse_schema};

const YAML: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/native_functions.yaml"
));

/// Every schema string: the text after `- func: ` on the yaml's lines.
pub(crate) fn corpus() -> Vec<&'static str> {
    YAML.lines()
        .filter_map(|line| line.strip_prefix("- func: "))
        .collect()
}

fn parsed() -> Vec<Schema> {
    corpus()
        .iter()
        .map(|text| parse_schema(text).unwrap_or_else(|e| panic!("`{text}`: {e:#?}")))
        .collect()
}

/// Counts of each key, sorted, for comparing with a table.
fn tally<K: Ord>(keys: impl IntoIterator<Item = K>) -> BTreeMap<K, usize> {
    let mut counts = BTreeMap::new();
    for k in keys {
        *counts.entry(k).or_insert(0) += 1;
    }
    counts
}

fn table<'a>(rows: &[(&'a str, usize)]) -> BTreeMap<&'a str, usize> {
    rows.iter().copied().filter(|(_, n)| *n > 0).collect()
}

/// A type as written (annotation left out): `int[2]?`.
fn type_string(ty: &ArgType) -> String {
    ty.to_string()
}

/// The type's form with its base replaced by `T`: `T[2]?`.
fn form(ty: &ArgType) -> String {
    match ty {
        ArgType::Base(_) | ArgType::CustomClass(_) => "T".into(),
        ArgType::Optional(t) => format!("{}?", form(t)),
        ArgType::List { elem, size: None } => format!("{}[]", form(elem)),
        ArgType::List {
            elem,
            size: Some(n),
        } => format!("{}[{n}]", form(elem)),
    }
}

#[test]
fn every_corpus_schema_parses_and_prints_back() {
    let texts = corpus();
    assert_eq!(texts.len(), 2590);
    for text in texts {
        match parse_schema(text) {
            Ok(schema) => assert_eq!(schema.to_string(), text),
            Err(errors) => panic!("`{text}`: {errors:#?}"),
        }
    }
}

#[test]
fn layout_ranges_point_at_each_part_of_every_corpus_schema() {
    for (text, schema) in corpus().into_iter().zip(parsed()) {
        let at = layout(&schema);
        assert_eq!(&text[at.name.clone()], schema.name.to_string());
        assert_eq!(at.returns_all.end, text.len());
        for (arg, place) in schema.arguments.iter().zip(&at.arguments) {
            assert_eq!(&text[place.whole.clone()], arg.to_string(), "{text}");
            assert_eq!(&text[place.name.clone()], arg.name, "{text}");
            let default = place.default.clone().map(|r| &text[r]);
            assert_eq!(
                default,
                arg.default.as_ref().map(|d| d.text.as_str()),
                "{text}"
            );
            if arg.annotation.is_none() {
                assert_eq!(&text[place.ty.clone()], arg.ty.to_string(), "{text}");
            }
        }
        for (ret, place) in schema.returns.iter().zip(&at.returns) {
            assert_eq!(&text[place.whole.clone()], ret.to_string(), "{text}");
            assert_eq!(place.name.clone().map(|r| &text[r]), ret.name.as_deref());
        }
    }
}

#[test]
fn kinds() {
    // SCHEMA.md §3.1
    let kinds = tally(parsed().iter().map(Schema::kind));
    let expected = BTreeMap::from([
        (SchemaKind::Functional, 1608),
        (SchemaKind::Inplace, 339),
        (SchemaKind::Out, 632),
        (SchemaKind::Mutable, 11),
    ]);
    assert_eq!(kinds, expected);
}

#[test]
fn mutable_schemas_are_the_eleven_listed() {
    let mut names: Vec<String> = parsed()
        .iter()
        .filter(|s| s.kind() == SchemaKind::Mutable)
        .map(|s| s.name.full_name())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "_batch_norm_with_update",
            "_cudnn_attention_forward_no_dropout_inplace",
            "_cummax_helper",
            "_cummin_helper",
            "_flash_attention_forward_no_dropout_inplace",
            "_fused_moving_avg_obs_fq_helper",
            "_native_batch_norm_legit",
            "fbgemm_linear_fp16_weight.out",
            "fbgemm_linear_fp16_weight_fp32_activation.out",
            "fused_moving_avg_obs_fake_quant",
            "rrelu_with_noise",
        ]
    );
}

#[test]
fn base_type_occurrences() {
    // SCHEMA.md §1.5: the innermost base of every argument and return type.
    let schemas = parsed();
    let types = schemas.iter().flat_map(|s| {
        s.arguments
            .iter()
            .map(|a| &a.ty)
            .chain(s.returns.iter().map(|r| &r.ty))
    });
    let counts = tally(types.map(|t| t.base().map_or("custom class", BaseType::as_str)));
    let expected = table(&[
        ("Tensor", 7971),
        ("int", 1095),
        ("bool", 878),
        ("SymInt", 665),
        ("Scalar", 563),
        ("float", 419),
        ("ScalarType", 203),
        ("str", 124),
        ("Device", 107),
        ("Layout", 106),
        ("Generator", 50),
        ("MemoryFormat", 33),
        ("DeviceIndex", 4),
        ("Storage", 2),
        ("QScheme", 1),
        ("Stream", 1),
        ("SymBool", 1),
        ("DimVector", 0),
        ("GraphModule", 0),
    ]);
    assert_eq!(counts, expected);
    assert_eq!(counts.values().sum::<usize>(), 12_223);
    let arguments: usize = schemas.iter().map(|s| s.arguments.len()).sum();
    let returns: usize = schemas.iter().map(|s| s.returns.len()).sum();
    assert_eq!((arguments, returns), (9306, 2917));
}

#[test]
fn type_forms() {
    let schemas = parsed();
    let types = schemas.iter().flat_map(|s| {
        s.arguments
            .iter()
            .map(|a| &a.ty)
            .chain(s.returns.iter().map(|r| &r.ty))
    });
    let forms = tally(types.map(form));
    let forms: BTreeMap<&str, usize> = forms.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let expected = table(&[
        ("T", 9571),
        ("T?", 1314),
        ("T[]", 778),
        ("T[2]", 185),
        ("T[3]", 135),
        ("T[1]", 73),
        ("T[1]?", 66),
        ("T[]?", 49),
        ("T[4]", 26),
        ("T?[]", 9),
        ("T[6]", 8),
        ("T[5]", 6),
        ("T[2]?", 3),
    ]);
    assert_eq!(forms, expected);
}

#[test]
fn every_type_string_with_its_argument_and_return_counts() {
    // SCHEMA.md §1.5, the 51 distinct type strings: (type, arguments, returns).
    let expected: BTreeMap<&str, (usize, usize)> = [
        ("Tensor", 4436, 2711),
        ("bool", 698, 31),
        ("int", 627, 24),
        ("Scalar", 502, 2),
        ("Tensor[]", 326, 123),
        ("Tensor?", 366, 0),
        ("float", 237, 3),
        ("SymInt", 166, 16),
        ("SymInt[]", 180, 0),
        ("ScalarType?", 164, 0),
        ("float?", 158, 0),
        ("bool?", 127, 0),
        ("int[]", 123, 0),
        ("Device?", 105, 0),
        ("Layout?", 105, 0),
        ("SymInt[2]", 97, 0),
        ("int[2]", 82, 0),
        ("int?", 76, 0),
        ("SymInt[3]", 65, 0),
        ("str", 64, 0),
        ("str?", 60, 0),
        ("int[3]", 58, 0),
        ("int[1]", 51, 0),
        ("Generator?", 50, 0),
        ("int[1]?", 42, 0),
        ("SymInt?", 40, 0),
        ("ScalarType", 34, 5),
        ("Scalar?", 33, 0),
        ("MemoryFormat?", 30, 0),
        ("Scalar[]", 26, 0),
        ("SymInt[1]?", 24, 0),
        ("SymInt[1]", 22, 0),
        ("SymInt[4]", 22, 0),
        ("float[]?", 21, 0),
        ("SymInt[]?", 19, 0),
        ("bool[3]", 12, 0),
        ("Tensor?[]", 9, 0),
        ("int[]?", 9, 0),
        ("SymInt[6]", 8, 0),
        ("SymInt[5]", 6, 0),
        ("bool[2]", 6, 0),
        ("DeviceIndex", 4, 0),
        ("bool[4]", 4, 0),
        ("MemoryFormat", 3, 0),
        ("int[2]?", 3, 0),
        ("Device", 2, 0),
        ("Storage", 2, 0),
        ("Layout", 1, 0),
        ("QScheme", 0, 1),
        ("Stream", 1, 0),
        ("SymBool", 0, 1),
    ]
    .into_iter()
    .map(|(t, a, r)| (t, (a, r)))
    .collect();
    assert_eq!(expected.len(), 51);
    let schemas = parsed();
    let mut found: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for s in &schemas {
        for a in &s.arguments {
            found.entry(type_string(&a.ty)).or_default().0 += 1;
        }
        for r in &s.returns {
            found.entry(type_string(&r.ty)).or_default().1 += 1;
        }
    }
    let found: BTreeMap<&str, (usize, usize)> =
        found.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(found, expected);
    // "Return types are limited to 10 strings."
    assert_eq!(found.values().filter(|(_, r)| *r > 0).count(), 10);
}

#[test]
fn arguments_by_position() {
    // SCHEMA.md §1.7
    let schemas = parsed();
    let (mut positional, mut kwarg_only, mut out, mut with_default) = (0, 0, 0, 0);
    for s in &schemas {
        positional += s.positional().count();
        kwarg_only += s.kwarg_only().count();
        out += s.out_arguments().len();
        with_default += s.arguments.iter().filter(|a| a.default.is_some()).count();
    }
    assert_eq!(
        (positional, kwarg_only, out, with_default),
        (7565, 1031, 710, 2205)
    );
}

#[test]
fn tensor_options_groups() {
    // SCHEMA.md §1.7: 100 entries, 77 with every default `None`, 15 with
    // `pin_memory=False`, 8 with `dtype=long`; all four types optional.
    let schemas = parsed();
    let groups: Vec<_> = schemas
        .iter()
        .filter_map(|s| s.tensor_options_start().map(|t| &s.arguments[t..t + 4]))
        .collect();
    assert_eq!(groups.len(), 100);
    assert!(
        groups
            .iter()
            .flat_map(|g| g.iter())
            .all(|a| a.ty.is_optional())
    );
    let defaults = tally(groups.iter().map(|g| {
        g.iter()
            .map(|a| a.default.as_ref().map_or("-", |d| d.text.as_str()))
            .collect::<Vec<_>>()
            .join(",")
    }));
    let expected = BTreeMap::from([
        ("None,None,None,None".to_string(), 77),
        ("None,None,None,False".to_string(), 15),
        ("long,None,None,None".to_string(), 8),
    ]);
    assert_eq!(defaults, expected);
    // Keyword-only arguments after the group ("post-TensorOptions", e.g. `memory_format`):
    // 25 entries have some, 21 of them a `memory_format`.
    let after: Vec<&[crate::schema::Argument]> = schemas
        .iter()
        .filter_map(|s| s.tensor_options_start().map(|t| &s.arguments[t + 4..]))
        .filter(|rest| !rest.is_empty())
        .collect();
    let memory_format = after
        .iter()
        .filter(|rest| rest.iter().any(|a| a.name == "memory_format"))
        .count();
    assert_eq!((after.len(), memory_format), (25, 21));
}

#[test]
fn returns() {
    // SCHEMA.md §1.9
    let schemas = parsed();
    let none = schemas.iter().filter(|s| s.returns.is_empty()).count();
    let single = schemas.iter().filter(|s| s.returns.len() == 1).count();
    let multiple = schemas.iter().filter(|s| s.returns.len() > 1).count();
    let named = schemas
        .iter()
        .filter(|s| s.returns.iter().any(|r| r.name.is_some()))
        .count();
    let most = schemas.iter().map(|s| s.returns.len()).max();
    assert_eq!(
        (none, single, multiple, named, most),
        (107, 2235, 248, 115, Some(9))
    );
}

#[test]
fn annotations() {
    // SCHEMA.md §1.6: annotated forms on arguments and returns.
    fn written(ty: &ArgType, a: &crate::schema::AliasAnnotation) -> String {
        let suffix = match ty {
            ArgType::Optional(_) => "?",
            ArgType::List { .. } => "[]",
            _ => "",
        };
        let letters = |l: &[char]| if l.len() > 1 { "x|y" } else { "x" };
        let mut s = format!("Tensor({}", letters(&a.before));
        if a.is_write {
            s.push('!');
        }
        if !a.after.is_empty() {
            s.push_str(if a.has_wildcard_after() {
                " -> *"
            } else {
                " -> y"
            });
        }
        format!("{s}){suffix}")
    }
    let schemas = parsed();
    let arguments = tally(schemas.iter().flat_map(|s| {
        s.arguments
            .iter()
            .filter_map(|a| a.annotation.as_ref().map(|ann| written(&a.ty, ann)))
    }));
    let returns = tally(schemas.iter().flat_map(|s| {
        s.returns
            .iter()
            .filter_map(|r| r.annotation.as_ref().map(|ann| written(&r.ty, ann)))
    }));
    let owned = |rows: &[(&str, usize)]| -> BTreeMap<String, usize> {
        rows.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };
    assert_eq!(
        arguments,
        owned(&[
            ("Tensor(x)", 77),
            ("Tensor(x!)", 998),
            ("Tensor(x!)[]", 108),
            ("Tensor(x -> *)", 14)
        ])
    );
    assert_eq!(
        returns,
        owned(&[("Tensor(x)", 77), ("Tensor(x!)", 966), ("Tensor(x)[]", 14)])
    );
    // Letters used on the argument side.
    let letters = tally(schemas.iter().flat_map(|s| {
        s.arguments
            .iter()
            .filter_map(|a| a.annotation.as_ref())
            .flat_map(|a| a.before.iter().copied())
    }));
    let expected = BTreeMap::from([
        ('a', 1075),
        ('b', 75),
        ('c', 25),
        ('d', 13),
        ('e', 6),
        ('f', 2),
        ('g', 1),
    ]);
    assert_eq!(letters, expected);
}

#[test]
fn name_forms() {
    // SCHEMA.md §1.4
    let schemas = parsed();
    let forms = tally(schemas.iter().map(|s| {
        let n = &s.name.name;
        match (n.dunder, n.inplace, n.functional_overload) {
            (true, true, _) => "dunder in-place",
            (true, false, _) => "dunder",
            (false, true, _) => "trailing _",
            (false, false, true) => "_functional",
            (false, false, false) => "plain",
        }
    }));
    let expected = table(&[
        ("plain", 2240),
        ("trailing _", 329),
        ("dunder", 10),
        ("dunder in-place", 10),
        ("_functional", 1),
    ]);
    assert_eq!(forms, expected);
    assert!(schemas.iter().all(|s| s.name.namespace.is_none()));
    let dunders: std::collections::BTreeSet<&str> = schemas
        .iter()
        .filter(|s| s.name.name.dunder)
        .map(|s| s.name.name.base.as_str())
        .collect();
    assert_eq!(dunders, ["and", "lshift", "or", "rshift", "xor"].into());
}

#[test]
fn overload_names() {
    let schemas = parsed();
    let overloads = tally(schemas.iter().filter_map(|s| s.name.overload.as_deref()));
    let without = schemas.iter().filter(|s| s.name.overload.is_none()).count();
    assert_eq!((without, overloads.len()), (1380, 194));
    let top = [
        ("out", 399),
        ("Tensor", 120),
        ("Scalar", 106),
        ("grad_input", 52),
        ("Tensor_out", 28),
    ];
    for (name, n) in top {
        assert_eq!(overloads[name], n, "{name}");
    }
    assert_eq!(overloads.values().sum::<usize>(), 1210);
}

#[test]
fn self_arguments() {
    // SCHEMA.md §1.7
    let schemas = parsed();
    let selves = tally(schemas.iter().map(|s| {
        s.self_arg()
            .map_or("none".to_string(), |a| a.ty.to_string())
    }));
    let expected = BTreeMap::from([
        ("Tensor".to_string(), 1754),
        ("Tensor[]".to_string(), 155),
        ("Scalar".to_string(), 26),
        ("none".to_string(), 655),
    ]);
    assert_eq!(selves, expected);
    let pre_self = schemas
        .iter()
        .filter(|s| {
            s.self_index()
                .is_some_and(|i| s.positional().any(|(j, _)| j < i))
        })
        .count();
    assert_eq!(pre_self, 106);
}

#[test]
fn default_spellings() {
    // SCHEMA.md §1.8: the 41 distinct spellings and how often each occurs.
    let schemas = parsed();
    let spellings = tally(
        schemas
            .iter()
            .flat_map(|s| s.arguments.iter().filter_map(|a| a.default.as_ref()))
            .map(|d| d.text.as_str()),
    );
    let expected = table(&[
        ("None", 1122),
        ("False", 356),
        ("1", 230),
        ("0", 130),
        ("True", 77),
        ("-1", 56),
        ("[]", 37),
        ("Mean", 33),
        ("2", 19),
        ("0.0", 17),
        ("1.0", 16),
        ("[-2,-1]", 16),
        ("10.0", 8),
        ("long", 8),
        ("'linear'", 8),
        ("-100", 6),
        ("\"L\"", 6),
        ("0.5", 5),
        ("0.125", 5),
        ("0.3333333333333333", 5),
        ("'none'", 5),
        ("1e-05", 4),
        ("contiguous_format", 4),
        ("100", 4),
        ("1e-08", 3),
        ("\"valid\"", 3),
        ("0.01", 3),
        ("-2", 2),
        ("1e-06", 2),
        ("20", 2),
        ("'fro'", 2),
        ("'reduced'", 2),
        ("\"\"", 1),
        ("1e-15", 1),
        ("\"reflect\"", 1),
        ("[0,1]", 1),
        ("\"constant\"", 1),
        ("\"\\\"'\\\\\"", 1),
        ("'\"\\'\\\\'", 1),
        ("\"2\"", 1),
        ("\"right\"", 1),
    ]);
    assert_eq!(expected.len(), 41);
    assert_eq!(spellings, expected);
    assert_eq!(spellings.values().sum::<usize>(), 2205);
    // `int[1] dim=[-2,-1]` occurs 12 times (SCHEMA.md §1.8, §6.1).
    let dims = schemas
        .iter()
        .flat_map(|s| &s.arguments)
        .filter(|a| {
            a.ty.to_string() == "int[1]" && a.default.as_ref().is_some_and(|d| d.text == "[-2,-1]")
        })
        .count();
    assert_eq!(dims, 12);
}

#[test]
fn inplace_and_out_schemas_that_also_write_positional_arguments() {
    // SCHEMA.md §3.1: the name or out rule wins over the written positional (14 entries).
    let schemas = parsed();
    let also_mutable: Vec<String> = schemas
        .iter()
        .filter(|s| matches!(s.kind(), SchemaKind::Inplace | SchemaKind::Out))
        .filter(|s| s.post_self_positional().any(|(_, a)| a.is_write()))
        .map(|s| s.name.full_name())
        .collect();
    assert_eq!(also_mutable.len(), 14, "{also_mutable:?}");
    for name in ["_amp_update_scale_", "rrelu_with_noise.out"] {
        assert!(also_mutable.iter().any(|n| n == name), "{name}");
    }
    assert!(also_mutable.iter().any(|n| n.starts_with("_fused_adam_")));
}
