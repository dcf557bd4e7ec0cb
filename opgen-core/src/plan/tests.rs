use crate::schema::parse_schema;

use super::*;

fn schema(s: &str) -> crate::schema::Schema {
    parse_schema(s).unwrap_or_else(|e| panic!("{s}: {e:?}"))
}

#[test]
fn rust_names_follow_the_documented_rule() {
    let cases = [
        (
            "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            "add",
        ),
        (
            "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
            "add_scalar",
        ),
        (
            "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
            "add_",
        ),
        (
            "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
            "add_out",
        ),
        (
            "max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)",
            "max_dim_max_out",
        ),
        (
            "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
            "sum_int_list_out",
        ),
        (
            "__iand__.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
            "__iand___scalar",
        ),
        (
            "normal_functional(Tensor self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor",
            "normal_functional",
        ),
        ("abs_(Tensor(a!) self) -> Tensor(a!)", "abs_"),
        ("where(Tensor condition) -> Tensor[]", "r#where"),
        (
            "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
            "pow_tensor_scalar",
        ),
    ];
    for (s, expected) in cases {
        assert_eq!(rust_fn_name(&schema(s)), expected, "{s}");
    }
    assert_eq!(args_struct_name(&schema(cases[0].0)), "AddArgs");
    assert_eq!(args_struct_name(&schema(cases[2].0)), "AddInplaceArgs");
    assert_eq!(snake_case("dim_IntList"), "dim_int_list");
    assert_eq!(snake_case("SymInt"), "sym_int");
    assert_eq!(snake_case("Tensor_Scalar_out"), "tensor_scalar_out");
}

#[test]
fn torchgen_names() {
    let s = schema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
    assert_eq!(cpp_api_name(&s), "add_");
    assert_eq!(native_name(&s), "add__Tensor");
    assert_eq!(s.name.unambiguous_name(), "add__Tensor");
    let s = schema(
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    );
    assert_eq!(cpp_api_name(&s), "add_out");
    assert_eq!(native_name(&s), "add_out_out");
}

#[test]
fn signature_families_of_a_factory() {
    let s = schema(
        "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    );
    assert_eq!(
        dispatcher_signature(&s).to_string(),
        "fn empty(size: &[i64], dtype: Option<ScalarType>, layout: Option<Layout>, device: Option<Device>, pin_memory: Option<bool>, memory_format: Option<MemoryFormat>) -> T"
    );
    assert_eq!(
        rust_api_signature(&s, &[]).to_string(),
        "fn empty_memory_format(size: &[i64], options: TensorOptions = {}, memory_format: Option<MemoryFormat> = None) -> T"
    );
    assert_eq!(
        faithful_signature(&s).unwrap().to_string(),
        "fn empty_memory_format_faithful(size: &[i64], dtype: Option<ScalarType>, layout: Option<Layout>, device: Option<Device>, pin_memory: Option<bool>, memory_format: Option<MemoryFormat>) -> T"
    );
    assert_eq!(
        redispatch_signature(&s).arguments[0].ty.to_string(),
        "DispatchKeySet"
    );
}

#[test]
fn signature_families_of_an_out_schema() {
    let s = schema(
        "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    );
    assert_eq!(
        rust_api_signature(&s, &[]).to_string(),
        "fn add_out(out: &mut T, self_: &T, other: &T, alpha: Scalar = 1) -> T"
    );
    assert_eq!(
        native_signature(&s).to_string(),
        "fn add_out_out(self_: &T, other: &T, alpha: Scalar, out: &mut T) -> T"
    );
    assert_eq!(
        faithful_signature(&s).unwrap().to_string(),
        "fn add_outf(self_: &T, other: &T, alpha: Scalar, out: &mut T) -> T"
    );
    assert_eq!(method_receiver(&s), None);
    let s = schema("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor");
    let sig = rust_api_signature(&s, &["min".to_string()]);
    assert_eq!(
        sig.to_string(),
        "fn clamp(self_: &T, min: Option<Scalar>, max: Option<Scalar> = None) -> T"
    );
    assert_eq!(method_receiver(&s), Some(0));
}

#[test]
fn type_mapping_covers_every_form() {
    let cases = [
        ("Tensor", false, "&T"),
        ("Tensor", true, "&mut T"),
        ("Tensor?", false, "Option<&T>"),
        ("Tensor?", true, "Option<&mut T>"),
        ("Tensor[]", false, "&[T]"),
        ("Tensor[]", true, "&mut [T]"),
        ("Tensor?[]", false, "&[Option<T>]"),
        ("SymInt", false, "i64"),
        ("SymInt[]?", false, "Option<&[i64]>"),
        ("int[2]", false, "&[i64]"),
        ("float[]?", false, "Option<&[f64]>"),
        ("bool[3]", false, "[bool; 3]"),
        ("str?", false, "Option<&str>"),
        ("Scalar[]", false, "&[Scalar]"),
        ("Generator?", false, "Option<Generator>"),
        ("DeviceIndex", false, "i8"),
        ("SymBool", false, "bool"),
        ("MemoryFormat?", false, "Option<MemoryFormat>"),
    ];
    for (t, w, expected) in cases {
        let ty = crate::schema::parse_type(t).unwrap();
        assert_eq!(
            argument_type(&ty, w).map(|r| r.to_string()).as_deref(),
            Some(expected),
            "{t}"
        );
    }
    for bad in [
        "bool[]",
        "int??",
        "int[][]",
        "GraphModule",
        "__torch__.torch.classes.a.B",
    ] {
        let ty = crate::schema::parse_type(bad).unwrap();
        assert_eq!(argument_type(&ty, false), None, "{bad}");
    }
    for (t, expected) in [
        ("Tensor", "T"),
        ("Tensor[]", "Vec<T>"),
        ("Tensor?", "Option<T>"),
        ("SymInt", "i64"),
        ("QScheme", "QScheme"),
    ] {
        let ty = crate::schema::parse_type(t).unwrap();
        assert_eq!(return_type(&ty).unwrap().to_string(), expected);
    }
    for bad in ["int[2]", "Scalar?", "Tensor[]?"] {
        assert_eq!(
            return_type(&crate::schema::parse_type(bad).unwrap()),
            None,
            "{bad}"
        );
    }
}

#[test]
fn every_corpus_schema_has_a_rust_mapping() {
    let text = include_str!("../../tests/data/native_functions.yaml");
    let mut n = 0;
    for line in text.lines() {
        let Some(f) = line.strip_prefix("- func: ") else {
            continue;
        };
        let s = schema(f);
        for a in &s.arguments {
            assert!(
                argument_type(&a.ty, a.is_write()).is_some(),
                "{f}: {}",
                a.ty
            );
        }
        for r in &s.returns {
            assert!(return_type(&r.ty).is_some(), "{f}: {}", r.ty);
        }
        n += 1;
    }
    assert_eq!(n, 2590);
}

mod op_plans {
    use std::collections::BTreeSet;

    use crate::native::{EntryFields, NativeFunction, Tags};
    use crate::plan::*;

    fn function(schema: &str, variants: &str) -> NativeFunction {
        let name = schema
            .split(['.', '('])
            .next()
            .unwrap_or_default()
            .to_string();
        let fields = EntryFields {
            func: schema.to_string(),
            variants: Some(variants.to_string()),
            // Factories need an explicit table (R-rule); naming the kernel as the operator.
            dispatch: Some(vec![("CompositeExplicitAutograd".to_string(), name)]),
            ..EntryFields::default()
        };
        NativeFunction::from_fields(&fields, &Tags::pytorch())
            .unwrap_or_else(|e| panic!("{schema}: {e:?}"))
    }

    fn plan_with(schema: &str, variants: &str, methods: MethodsKind, reserved: &[&str]) -> OpPlan {
        let f = function(schema, variants);
        OpPlan::new(&PlanInput {
            function: &f,
            namespace: "aten",
            name: None,
            args_struct: None,
            methods,
            reserved: reserved
                .iter()
                .map(|s| s.to_string())
                .collect::<BTreeSet<_>>(),
        })
    }

    fn plan(schema: &str, variants: &str) -> OpPlan {
        plan_with(schema, variants, MethodsKind::Inherent, &[])
    }

    fn names(forms: &[Form]) -> Vec<&str> {
        forms.iter().map(|f| f.name.as_str()).collect()
    }

    const ADD: &str = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";

    #[test]
    fn add_tensor_has_four_forms_a_struct_and_two_methods() {
        let p = plan(ADD, "function, method");
        let api = p.api.as_ref().unwrap();
        assert_eq!(api.marker, "add");
        assert_eq!(
            names(&api.functions),
            ["add", "add_with", "try_add", "try_add_with"]
        );
        // With free functions, the methods are the plain and fallible forms, calling them.
        assert_eq!(names(&api.methods), ["add", "try_add"]);
        let s = api.args_struct.as_ref().unwrap();
        assert_eq!(
            (s.name.as_str(), &s.fields[..], s.lifetime, s.clone),
            ("AddArgs", &[2][..], false, true)
        );
        assert_eq!(
            p.args[2].default,
            Some(ArgDefault::Scalar(Box::new(ArgDefault::Int(1))))
        );
        // The plain form panics through the fallible one; the fallible `_with` form calls.
        let add = &api.functions[0];
        assert_eq!(add.params, [Param::Arg(0), Param::Arg(1)]);
        assert_eq!(
            add.body,
            Body::Unwrap {
                sibling: "try_add".into()
            }
        );
        assert_eq!(
            api.functions[2].body,
            Body::Defaults {
                sibling: "try_add_with".into()
            }
        );
        assert_eq!(
            api.functions[3].body,
            Body::Call(vec![Source::Param(0), Source::Param(1), Source::Field(2)])
        );
        // Methods take `self` for the receiver.
        let m = &api.methods[1];
        assert_eq!(
            (m.receiver, m.fallible, &m.params[..]),
            (Some(false), true, &[Param::Arg(1)][..])
        );
        assert_eq!(
            m.body,
            Body::Function {
                name: "try_add".into()
            }
        );
        let claims = p.claims();
        assert_eq!(claims.types, ["add", "AddArgs"]);
        assert_eq!(
            claims.values,
            ["add", "add_with", "try_add", "try_add_with"]
        );
        assert_eq!(claims.methods, ["add", "try_add"]);
    }

    #[test]
    fn method_only_operators_keep_the_four_forms_as_methods() {
        let p = plan(
            "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
            "method",
        );
        let api = p.api.as_ref().unwrap();
        assert!(api.functions.is_empty());
        assert_eq!(
            names(&api.methods),
            ["add_", "add_with_", "try_add_", "try_add_with_"]
        );
        let m = &api.methods[3];
        assert_eq!(
            (m.receiver, &m.params[..]),
            (Some(true), &[Param::Arg(1), Param::Struct][..])
        );
        assert_eq!(
            m.body,
            Body::Call(vec![Source::Receiver, Source::Param(1), Source::Field(2)])
        );
        assert_eq!(
            p.claims().methods,
            ["add_", "add_with_", "try_add_", "try_add_with_"]
        );
        // In an extension trait as well; with free functions, the trait has two methods.
        let in_trait = |variants| {
            let p = plan_with(ADD, variants, MethodsKind::Trait("AddExt".into()), &[]);
            let api = p.api.unwrap();
            api.methods.into_iter().map(|f| f.name).collect::<Vec<_>>()
        };
        assert_eq!(
            in_trait("method"),
            ["add", "add_with", "try_add", "try_add_with"]
        );
        assert_eq!(in_trait("function, method"), ["add", "try_add"]);
    }

    #[test]
    fn operators_without_defaults_have_two_forms() {
        let p = plan("relu(Tensor self) -> Tensor", "function, method");
        let api = p.api.as_ref().unwrap();
        assert_eq!(names(&api.functions), ["relu", "try_relu"]);
        assert_eq!(api.functions[1].body, Body::Call(vec![Source::Param(0)]));
        assert!(api.args_struct.is_none());
        // In-place: `&mut self`, the trailing `_` last.
        let p = plan("relu_(Tensor(a!) self) -> Tensor(a!)", "function, method");
        let api = p.api.as_ref().unwrap();
        assert_eq!(names(&api.functions), ["relu_", "try_relu_"]);
        assert_eq!(api.methods[0].receiver, Some(true));
    }

    #[test]
    fn tensor_options_are_gathered() {
        let p = plan(
            "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, \
             Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
            "function",
        );
        let api = p.api.as_ref().unwrap();
        assert!(p.backend_select);
        assert_eq!((api.options, api.options_in_struct), (Some(1), true));
        assert_eq!(api.args_struct.as_ref().unwrap().fields, [1, 5]);
        assert_eq!(api.functions[0].params, [Param::Arg(0), Param::Options]);
        assert_eq!(api.functions[1].params, [Param::Arg(0), Param::Struct]);
        let Body::Call(sources) = &api.functions[3].body else {
            panic!("try_empty_memory_format_with calls")
        };
        assert_eq!(
            sources[2],
            Source::OptionsPart {
                part: 1,
                in_struct: true
            }
        );
        assert_eq!(sources[5], Source::Field(5));
    }

    #[test]
    fn parameters_never_take_a_name_a_body_uses() {
        // An argument named `args` next to a default: the struct parameter steps aside.
        let p = plan("foo(Tensor args, int n=1) -> Tensor", "function");
        let api = p.api.as_ref().unwrap();
        assert_eq!(
            (p.args[0].ident.as_str(), api.struct_param.as_str()),
            ("args", "args_")
        );
        // An argument named like a sibling form, or the kernel: renamed.
        let p = plan_with(
            "bar(Tensor try_bar, int options) -> Tensor",
            "function",
            MethodsKind::Inherent,
            &["bar_cpu"],
        );
        assert_eq!(p.args[0].ident, "try_bar_");
        assert_eq!(p.args[1].ident, "options");
        assert_eq!(p.api.as_ref().unwrap().options_param, "options_");
        let p = plan_with(
            "baz(Tensor bar_cpu) -> Tensor",
            "function",
            MethodsKind::Inherent,
            &["bar_cpu"],
        );
        assert_eq!(p.args[0].ident, "bar_cpu_");
    }

    #[test]
    fn trait_methods_step_aside_from_the_prelude() {
        let p = plan_with(
            "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
            "function, method",
            MethodsKind::Trait("AtenMethods".into()),
            &[],
        );
        let api = p.api.as_ref().unwrap();
        assert_eq!(names(&api.methods), ["clone_op", "try_clone"]);
        assert_eq!(names(&api.functions)[0], "clone");
        let inherent = plan(
            "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
            "method",
        );
        assert_eq!(names(&inherent.api.as_ref().unwrap().methods)[0], "clone");
    }

    #[test]
    fn schemas_without_a_rust_api_say_why() {
        let blockers_of = |s: &str| plan(s, "function").api.err().unwrap_or_default();
        assert_eq!(
            blockers_of("f(int[][] x) -> Tensor"),
            [Blocker::ArgumentType(0)]
        );
        assert_eq!(
            blockers_of("f(int?? x) -> Tensor"),
            [Blocker::ArgumentType(0)]
        );
        assert_eq!(
            blockers_of("f(Tensor x, int y=long) -> Tensor"),
            [Blocker::Default(1)]
        );
        let returns: Vec<String> = (0..11).map(|i| format!("Tensor r{i}")).collect();
        let s = format!("f(Tensor x) -> ({})", returns.join(", "));
        assert_eq!(blockers_of(&s), [Blocker::TooManyReturns(11)]);
        let args: Vec<String> = (0..25).map(|i| format!("int a{i}")).collect();
        let s = format!("f({}) -> Tensor", args.join(", "));
        assert_eq!(blockers_of(&s), [Blocker::TooManyArguments(25)]);
        let p = plan("f(Tensor x) -> Tensor", "function");
        assert!(p.api.is_ok());
        assert_eq!(
            Blocker::ArgumentType(0).describe(&p.schema),
            "argument `Tensor x` has no Rust type"
        );
    }

    #[test]
    fn manual_cpp_binding_prefixes_every_name() {
        let fields = EntryFields {
            func: "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor".into(),
            manual_cpp_binding: Some(true),
            dispatch: Some(vec![("CompositeExplicitAutograd".to_string(), "zeros".to_string())]),
            ..EntryFields::default()
        };
        let f = NativeFunction::from_fields(&fields, &Tags::pytorch()).unwrap();
        let p = OpPlan::new(&PlanInput {
            function: &f,
            namespace: "aten",
            name: None,
            args_struct: None,
            methods: MethodsKind::Inherent,
            reserved: BTreeSet::new(),
        });
        let api = p.api.as_ref().unwrap();
        assert_eq!(api.marker, "__dispatch_zeros");
        assert_eq!(
            names(&api.functions),
            [
                "__dispatch_zeros",
                "__dispatch_zeros_with",
                "__try_dispatch_zeros",
                "__try_dispatch_zeros_with"
            ]
        );
        assert_eq!(
            api.args_struct.as_ref().unwrap().name,
            "__DispatchZerosArgs"
        );
    }

    /// Every untyped shape of the loader (the ui fixture `untyped.yaml`, which
    /// `include_native_functions!` builds in `ui/pass/include_untyped.rs`) plans without a
    /// panic; each blocked entry says why in words; more arguments or returns than typed calls
    /// take always block.
    #[test]
    fn untyped_shapes_are_blocked_with_a_reason() {
        let yaml = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../ui-tests/tests/ui/yaml/untyped.yaml"
        ))
        .expect("the ui fixture");
        let nfs = crate::native::load_native_functions(&yaml, "").expect("the fixture loads");
        let mut blocked = Vec::new();
        for f in nfs.functions() {
            let p = OpPlan::new(&PlanInput {
                function: f,
                namespace: "test",
                name: None,
                args_struct: None,
                methods: MethodsKind::Inherent,
                reserved: BTreeSet::new(),
            });
            if let Err(blockers) = &p.api {
                assert!(!blockers.is_empty());
                for b in blockers {
                    assert!(!b.describe(&f.func).is_empty());
                }
                blocked.push(f.func.name.name.to_string());
            }
        }
        assert!(
            blocked.contains(&"untyped_many_returns".to_string()),
            "{blocked:?}"
        );
        assert!(
            blocked.contains(&"untyped_many_arguments".to_string()),
            "{blocked:?}"
        );
    }
}
