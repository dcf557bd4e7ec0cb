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
