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
