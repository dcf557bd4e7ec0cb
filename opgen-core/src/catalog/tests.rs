//! The catalog: exact objects, and the same object from a yaml entry and from the registry.

use serde_json::{Value, json};

use super::*;
use crate::dispatch::{DispatchKeySet, Error, Library, Registration, Stack, Tensor, boxed};
use crate::native::{Tags, load_native_functions};

#[derive(Clone)]
struct T0;

impl Tensor for T0 {
    fn key_set(&self) -> DispatchKeySet {
        DispatchKeySet::EMPTY
    }
}

/// A kernel that fits any schema (never called here).
fn any_kernel(lib: &Library, name: &str, key: DispatchKey) -> Registration {
    let kernel =
        boxed(|_: &OperatorHandle, _: DispatchKeySet, _: &mut Stack<T0>| Ok::<(), Error>(()));
    lib.impl_(name, key, kernel).expect("impl")
}

const YAML: &str = "\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  dispatch:
    CPU: add_cpu
- func: add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
  variants: method
  device_check: NoCheck
  device_guard: False
  dispatch:
    CPU, Meta: add_
- func: zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor
  dispatch:
    CompositeExplicitAutograd: zeros
- func: relu(Tensor self) -> Tensor
  variants: function, method
- func: vision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor
  dispatch:
    CPU: nms_cpu
";

/// The yaml's operators registered at run time, with the same variants and keys.
fn registered() -> (Dispatcher, Vec<Library>, Vec<Registration>) {
    let d = Dispatcher::new();
    let (aten, vision) = (
        d.library("aten").expect("aten"),
        d.library("vision").expect("vision"),
    );
    let both = Variants {
        function: true,
        method: true,
    };
    let method = Variants {
        function: false,
        method: true,
    };
    let function = Variants {
        function: true,
        method: false,
    };
    // The device check and guard as the yaml says: recorded for `add_`, defaults elsewhere.
    let def = |lib: &Library, text: &str, variants: Variants| {
        lib.def_native_at(
            text,
            Some(variants),
            Some(DeviceChecks::DEFAULT),
            std::panic::Location::caller(),
        )
        .expect("def")
    };
    let loose = DeviceChecks {
        check: false,
        guard: false,
    };
    let regs = vec![
        def(
            &aten,
            "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            both,
        ),
        any_kernel(&aten, "add.Tensor", DispatchKey::CPU),
        aten.def_native_at(
            "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
            Some(method),
            Some(loose),
            std::panic::Location::caller(),
        )
        .expect("def"),
        any_kernel(&aten, "add_.Tensor", DispatchKey::CPU),
        any_kernel(&aten, "add_.Tensor", DispatchKey::Meta),
        def(
            &aten,
            "zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
            function,
        ),
        any_kernel(&aten, "zeros", DispatchKey::CompositeExplicitAutograd),
        def(&aten, "relu(Tensor self) -> Tensor", both),
        any_kernel(&aten, "relu", DispatchKey::CompositeImplicitAutograd),
        def(
            &vision,
            "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
            function,
        ),
        any_kernel(&vision, "nms", DispatchKey::CPU),
        // Fallthroughs are not kernels: not in `dispatch_keys`.
        aten.impl_fallthrough("relu", DispatchKey::AutogradCPU)
            .expect("fallthrough"),
    ];
    (d, vec![aten, vision], regs)
}

fn pytorch_tags() -> String {
    (Tags::pytorch().iter())
        .map(|t| format!("- tag: {t}\n  desc: built in\n"))
        .collect()
}

#[test]
fn runtime_and_yaml_give_identical_objects() {
    let nf = load_native_functions(YAML, &pytorch_tags()).expect("valid yaml");
    let (d, _libs, _regs) = registered();
    let from_yaml: Vec<Value> = nf.functions().iter().map(native_function_json).collect();
    let from_registry = d.catalog_json()["functions"]
        .as_array()
        .cloned()
        .expect("functions");
    assert_eq!(from_yaml.len(), 5);
    // The registry is ordered by name: `aten::add.Tensor`, `aten::add_.Tensor`, `aten::relu`,
    // `aten::zeros`, `vision::nms`.
    let by_func = |v: &Vec<Value>, func: &str| v.iter().find(|f| f["func"] == func).cloned();
    for f in &from_yaml {
        let func = f["func"].as_str().expect("func");
        assert_eq!(by_func(&from_registry, func).as_ref(), Some(f), "{func}");
    }
}

#[test]
fn catalog_objects_are_exact() {
    let (d, _libs, _regs) = registered();
    let catalog = d.catalog_json();
    let add_ = by_name(&catalog, "add_");
    assert_eq!(
        add_,
        json!({
            "func": "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
            "canonical": "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
            "namespace": null,
            "operator_name": "add_",
            "name": "add",
            "overload": "Tensor",
            "inplace": true,
            "dunder": false,
            "kind": "inplace",
            "unambiguous_name": "add__Tensor",
            "positional": ["self", "other"],
            "kwarg_only": ["alpha"],
            "out": [],
            "self_arg": "self",
            "arguments": [
                {"name": "self", "type": "Tensor", "default": null, "annotation": "a!", "is_write": true, "kwarg_only": false},
                {"name": "other", "type": "Tensor", "default": null, "annotation": null, "is_write": false, "kwarg_only": false},
                {"name": "alpha", "type": "Scalar", "default": "1", "annotation": null, "is_write": false, "kwarg_only": true},
            ],
            "returns": [{"name": null, "type": "Tensor", "annotation": "a!"}],
            "variants": ["method"],
            "is_factory": false,
            "structured": false,
            "structured_delegate": null,
            "dispatch_keys": ["CPU", "Meta"],
            "has_math_kernel": false,
            "has_composite_kernel": false,
            "device_check": "NoCheck",
            "device_guard": false,
            "tags": ["inplace", "pt2_compliant_tag"],
            "generated": false,
        })
    );
    let zeros = by_name(&catalog, "zeros");
    assert_eq!(
        (
            &zeros["is_factory"],
            &zeros["has_composite_kernel"],
            &zeros["has_math_kernel"]
        ),
        (&json!(true), &json!(true), &json!(false))
    );
    assert_eq!(
        zeros["arguments"][3],
        json!({"name": "device", "type": "Device?", "default": "None", "annotation": null, "is_write": false, "kwarg_only": true})
    );
    let relu = by_name(&catalog, "relu");
    assert_eq!(
        (&relu["dispatch_keys"], &relu["has_math_kernel"]),
        (&json!(["CompositeImplicitAutograd"]), &json!(true))
    );
    let nms = by_name(&catalog, "nms");
    assert_eq!(
        (
            &nms["func"],
            &nms["namespace"],
            &nms["tags"],
            &nms["returns"]
        ),
        (
            &json!("vision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor"),
            &json!("vision"),
            &json!([]),
            &json!([{"name": null, "type": "Tensor", "annotation": null}])
        )
    );
    // Every dispatcher's own default fallthroughs (BackendSelect, ADInplaceOrView, Tracer,
    // the autograd and autocast keys).
    let defaults: Vec<_> = (Dispatcher::new().fallbacks().into_iter())
        .map(|(key, _, fallthrough)| json!({"key": key.name(), "fallthrough": fallthrough}))
        .collect();
    assert_eq!(defaults.len(), 31);
    assert_eq!(catalog["fallbacks"], json!(defaults));
}

#[test]
fn variants_are_null_when_not_recorded() {
    let d = Dispatcher::new();
    let lib = d.library("demo").expect("demo");
    let _def = lib.def("ones(int[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor").expect("def");
    let catalog = d.catalog_json();
    let ones = by_name(&catalog, "ones");
    assert_eq!(
        (
            &ones["variants"],
            &ones["is_factory"],
            &ones["dispatch_keys"]
        ),
        (&Value::Null, &json!(true), &json!([]))
    );
    // A dropped `def` leaves the catalog.
    drop(_def);
    assert_eq!(d.catalog_json()["functions"], json!([]));
}

fn by_name(catalog: &Value, name: &str) -> Value {
    (catalog["functions"].as_array().into_iter().flatten())
        .find(|f| f["operator_name"] == name)
        .cloned()
        .unwrap_or(Value::Null)
}

#[test]
fn func_and_namespace_are_as_written() {
    let yaml = "\
- func: aten::abs_(Tensor(a!) self) -> Tensor(a!)
  dispatch:
    CPU: abs_
  autogen: abs, abs.out
- func: neg(Tensor self) -> Tensor
- func: ::sgn(Tensor self) -> Tensor
- func: vision::nms(Tensor dets, float iou) -> Tensor
";
    let nf = load_native_functions(yaml, &pytorch_tags()).expect("valid yaml");
    let shown: Vec<(Value, Value)> = (nf.functions().iter())
        .map(native_function_json)
        .map(|f| (f["func"].clone(), f["namespace"].clone()))
        .collect();
    assert_eq!(
        shown,
        [
            (
                json!("aten::abs_(Tensor(a!) self) -> Tensor(a!)"),
                json!("aten")
            ),
            (json!("neg(Tensor self) -> Tensor"), Value::Null),
            (json!("::sgn(Tensor self) -> Tensor"), Value::Null),
            (
                json!("vision::nms(Tensor dets, float iou) -> Tensor"),
                json!("vision")
            ),
            // Generated from `aten::abs_` (out first, as torchgen generates them): written
            // as their entry is.
            (
                json!("aten::abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"),
                json!("aten")
            ),
            (json!("aten::abs(Tensor self) -> Tensor"), json!("aten")),
        ]
    );
    // `canonical` is the schema alone.
    let abs_ = native_function_json(&nf.functions()[0]);
    assert_eq!(abs_["canonical"], "abs_(Tensor(a!) self) -> Tensor(a!)");
}

#[test]
fn has_composite_kernel_follows_torchgen() {
    let yaml = "\
- func: only_nested(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutogradNestedTensor: only_nested_nt
- func: both_implicit(Tensor self) -> Tensor
  dispatch:
    CompositeImplicitAutograd: both_implicit_symint
    CompositeImplicitAutogradNestedTensor: both_implicit_nt
- func: explicit_nested(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutograd: explicit_nested
    CompositeImplicitAutogradNestedTensor: explicit_nested_nt
  autogen: explicit_nested.out
- func: non_functional(Tensor self) -> Tensor
  dispatch:
    CompositeExplicitAutogradNonFunctional: non_functional
  autogen: non_functional.out
- func: implicit(Tensor self) -> Tensor
- func: backend(Tensor self) -> Tensor
  dispatch:
    CPU: backend
  autogen: backend.out
";
    let nf = load_native_functions(yaml, &pytorch_tags()).expect("valid yaml");
    let facts: Vec<(String, bool, bool)> = (nf.entries().iter())
        .map(native_function_json)
        .map(|f| {
            (
                f["operator_name"].as_str().unwrap_or_default().to_string(),
                f["has_composite_kernel"] == true,
                f["has_math_kernel"] == true,
            )
        })
        .collect();
    let expect = |name: &str, composite: bool, math: bool| (name.to_string(), composite, math);
    assert_eq!(
        facts,
        [
            // torchgen: a nested-tensor kernel alone is not a composite kernel.
            expect("only_nested", false, false),
            expect("both_implicit", true, true),
            expect("explicit_nested", true, false),
            expect("non_functional", true, false),
            expect("implicit", true, true),
            expect("backend", false, false),
        ]
    );
    // The runtime catalog computes it from the registered keys, the same way.
    let d = Dispatcher::new();
    let lib = d.library("demo").expect("demo");
    let _regs = [
        lib.def("only_nested(Tensor self) -> Tensor").expect("def"),
        any_kernel(
            &lib,
            "only_nested",
            DispatchKey::CompositeImplicitAutogradNestedTensor,
        ),
    ];
    let only_nested = by_name(&d.catalog_json(), "only_nested");
    assert_eq!(only_nested["has_composite_kernel"], false);
}

/// The README's statement, field by field: an operator defined with the entry's schema,
/// variants and device settings, with kernels at the entry's keys, gives the entry's object
/// when the entry writes no tags, no `aten::` prefix and is neither structured nor
/// generated; each of those differences shows in the named fields only.
#[test]
fn runtime_and_yaml_objects_differ_only_where_the_readme_says() {
    let entry = |extra: &str| {
        format!(
            "- func: erfinv(Tensor self) -> Tensor\n  variants: function, method\n  dispatch:\n    CPU: erfinv\n  autogen: erfinv.out\n{extra}"
        )
    };
    let yaml_object = |yaml: &str| {
        let nf = load_native_functions(yaml, &pytorch_tags()).expect("valid yaml");
        native_function_json(&nf.entries()[0])
    };
    let runtime_object = |device: Option<DeviceChecks>| {
        let d = Dispatcher::new();
        let lib = d.library("aten").expect("aten");
        let variants = Variants {
            function: true,
            method: true,
        };
        let here = std::panic::Location::caller();
        let _def = lib
            .def_native_at(
                "erfinv(Tensor self) -> Tensor",
                Some(variants),
                device,
                here,
            )
            .expect("def");
        let _cpu = any_kernel(&lib, "erfinv", DispatchKey::CPU);
        by_name(&d.catalog_json(), "erfinv")
    };
    let differing = |a: &Value, b: &Value| -> Vec<String> {
        let (a, b) = (
            a.as_object().expect("object"),
            b.as_object().expect("object"),
        );
        assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
        (a.iter())
            .filter(|(k, v)| b.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .collect()
    };
    let same = runtime_object(Some(DeviceChecks::DEFAULT));
    assert_eq!(
        differing(&yaml_object(&entry("")), &same),
        Vec::<String>::new()
    );
    // Written tags are the yaml's only.
    let tagged = yaml_object(&entry("  tags: pointwise\n"));
    assert_eq!(differing(&tagged, &same), ["tags"]);
    // An `aten::` prefix is kept in `func` and `namespace`.
    let prefixed = yaml_object(&entry("").replace("func: erfinv", "func: aten::erfinv"));
    assert_eq!(differing(&prefixed, &same), ["func", "namespace"]);
    // Device settings unknown at run time (`def`, `def_with_variants`) are `null`.
    let unknown = runtime_object(None);
    assert_eq!(
        differing(&yaml_object(&entry("")), &unknown),
        ["device_check", "device_guard"]
    );
    assert_eq!(
        (&unknown["device_check"], &unknown["device_guard"]),
        (&Value::Null, &Value::Null)
    );
    // Other device settings show in those two fields.
    let loose = runtime_object(Some(DeviceChecks {
        check: false,
        guard: true,
    }));
    assert_eq!(
        differing(&yaml_object(&entry("")), &loose),
        ["device_check"]
    );
}
