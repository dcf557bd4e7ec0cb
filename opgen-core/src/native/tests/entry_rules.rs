//! R36–R67: one entry's fields. Each test is a minimal bad example from SCHEMA.md §2.5.

use super::{at, errors, load, rules};

#[test]
fn r36_entry_func() {
    assert_eq!(rules("- func: a::b::foo(Tensor self) -> Tensor\n"), ["R36"]);
    assert_eq!(at("- func: a::b::foo(Tensor self) -> Tensor\n"), (1, 9, 4));
    assert_eq!(rules("- func: 12\n"), ["R36"]);
    assert_eq!(rules("- variants: function\n"), ["R36"]);
    assert_eq!(
        rules("- func: foo(Tensor self, str s=\"x::y\") -> Tensor\n"),
        ["R36"]
    );
    assert_eq!(rules("- just a string\n"), ["R36"]);
    let f = load("- func: custom::foo(Tensor self) -> Tensor\n").unwrap();
    assert_eq!(
        (
            f.entries()[0].namespace.as_str(),
            f.entries()[0].has_tag("pt2_compliant_tag")
        ),
        ("custom", false)
    );
}

#[test]
fn r37_unknown_field() {
    let yaml = "- func: foo(Tensor self) -> Tensor\n  dispach:\n    CPU: foo\n";
    assert_eq!(rules(yaml), ["R37"]);
    let e = &errors(yaml)[0];
    assert_eq!((e.line, e.column, e.width), (2, 3, 7));
    assert_eq!(e.hint.as_deref(), Some("did you mean `dispatch`?"));
}

#[test]
fn r38_field_types() {
    let f = "- func: foo(Tensor self) -> Tensor\n";
    assert_eq!(rules(&format!("{f}  variants: [function]\n")), ["R38"]);
    assert_eq!(rules(&format!("{f}  device_guard: 0\n")), ["R38"]);
    assert_eq!(
        rules(&format!("{f}  manual_cpp_binding: 'True'\n")),
        ["R38"]
    );
    assert_eq!(rules(&format!("{f}  dispatch: foo_impl\n")), ["R38"]);
    assert_eq!(rules(&format!("{f}  dispatch:\n    CPU: 1\n")), ["R38"]);
    assert_eq!(at(&format!("{f}  dispatch:\n    CPU: 1\n")), (3, 10, 1));
    // YAML 1.1, as torchgen reads it: `on` is a boolean.
    assert!(
        load(&format!(
            "{f}  manual_cpp_binding: on\n  dispatch:\n    CPU: foo\n"
        ))
        .is_ok()
    );
}

#[test]
fn r39_variants() {
    let yaml = "- func: foo(Tensor self) -> Tensor\n  variants: function,method\n";
    assert_eq!(rules(yaml), ["R39"]);
    assert_eq!(at(yaml), (2, 13, 15));
    let yaml = "- func: foo(Tensor self) -> Tensor\n  variants: function, methd\n";
    assert_eq!(at(yaml), (2, 23, 5));
}

#[test]
fn r40_device_check() {
    assert_eq!(
        rules("- func: foo(Tensor self) -> Tensor\n  device_check: nocheck\n"),
        ["R40"]
    );
}

#[test]
fn r41_const_ref_with_out() {
    let yaml = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  use_const_ref_for_mutable_tensors: True\n  dispatch:\n    CPU: foo_out\n";
    assert_eq!(rules(yaml), ["R41"]);
}

#[test]
fn r42_delegate_name() {
    let f = "- func: foo(Tensor self) -> Tensor\n";
    assert_eq!(
        rules(&format!("{f}  structured_delegate: aten::foo.out\n")),
        ["R42"]
    );
    assert_eq!(
        rules(&format!("{f}  structured_delegate: foo_out\n")),
        ["R42"]
    );
    let out = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n";
    assert_eq!(
        rules(&format!(
            "{out}  structured_inherits: at::TensorIteratorBase\n"
        )),
        ["R42"]
    );
}

#[test]
fn r43_module_method() {
    let yaml =
        "- func: foo(Tensor self) -> Tensor\n  python_module: nn\n  variants: function, method\n";
    assert_eq!(rules(yaml), ["R43"]);
    assert_eq!(at(yaml), (3, 23, 6));
}

const STRUCTURED_OUT: &str = "- func: foo.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: foo_out\n";
/// The functional sibling that a valid out entry needs (R73).
const FUNCTIONAL: &str = "- func: foo(Tensor self) -> Tensor\n  structured_delegate: foo.out\n";

#[test]
fn r44_precomputed_needs_structured() {
    let yaml = "- func: foo.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)\n  precomputed:\n  - dim -> int dim\n";
    assert_eq!(rules(yaml), ["R44"]);
}

#[test]
fn r45_precomputed_syntax() {
    assert_eq!(
        rules(&format!(
            "{STRUCTURED_OUT}  precomputed:\n  - int a\n  - dim -> int dim\n"
        )),
        ["R45"]
    );
    assert_eq!(
        rules(&format!(
            "{STRUCTURED_OUT}  precomputed:\n  - the dim -> int dim\n"
        )),
        ["R45"]
    );
    assert_eq!(
        rules(&format!("{STRUCTURED_OUT}  precomputed: dim -> int dim\n")),
        ["R45"]
    );
    let yaml = format!("{STRUCTURED_OUT}  precomputed:\n  - dim -> int d1,int d2\n");
    assert_eq!(rules(&yaml), ["R45"]);
    assert!(
        errors(&yaml)[0]
            .hint
            .as_deref()
            .unwrap()
            .contains("`dim -> int d1, int d2`")
    );
    let sibling = "- func: foo(Tensor self, int dim) -> Tensor\n  structured_delegate: foo.out\n";
    let ok = load(&format!("{STRUCTURED_OUT}  precomputed:\n  - dim -> int dim0, int dim1\n  - int extra,bool flag\n{sibling}")).unwrap();
    let p = ok.entries()[0].precomputed.as_ref().unwrap();
    assert_eq!((p.replace[0].1.len(), p.add.len()), (2, 2));
}

#[test]
fn r46_precomputed_uppercase() {
    let yaml = format!("{STRUCTURED_OUT}  precomputed:\n  - dim -> int DIM\n");
    assert_eq!(rules(&yaml), ["R46"]);
    assert_eq!(at(&yaml), (6, 16, 3));
}

#[test]
fn r47_unknown_tag() {
    let yaml = "- func: foo(Tensor self) -> Tensor\n  tags: pointwize\n";
    assert_eq!(rules(yaml), ["R47"]);
    assert!(
        errors(yaml)[0]
            .hint
            .as_deref()
            .unwrap()
            .starts_with("did you mean `pointwise`?")
    );
    assert_eq!(
        at("- func: foo(Tensor self) -> Tensor\n  tags: [core, pointwize]\n"),
        (2, 16, 9)
    );
}

#[test]
fn r48_dispatch_keys() {
    let f = "- func: foo(Tensor self) -> Tensor\n  dispatch:\n";
    let e = &errors(&format!("{f}    Cpu: foo\n"))[0];
    assert_eq!(
        (e.rule.unwrap().id(), e.hint.as_deref()),
        ("R48", Some("did you mean `CPU`?"))
    );
    assert_eq!(rules(&format!("{f}    AutogradCPU: foo\n")), ["R48"]);
    assert_eq!(at(&format!("{f}    CPU, Cuda: foo\n")), (3, 10, 4));
}

#[test]
fn r49_manual_registration_with_dispatch() {
    let yaml = "- func: foo(Tensor self) -> Tensor\n  manual_kernel_registration: True\n  dispatch:\n    CPU: foo\n";
    assert_eq!(rules(yaml), ["R49"]);
}

#[test]
fn r50_redundant_dispatch() {
    let yaml =
        "- func: foo.bar(Tensor self) -> Tensor\n  dispatch:\n    CompositeImplicitAutograd: foo\n";
    assert_eq!(rules(yaml), ["R50"]);
}

#[test]
fn r51_singleton_composite_implicit() {
    let f = "- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CompositeImplicitAutograd: ";
    assert_eq!(rules(&format!("{f}foo_impl\n")), ["R51"]);
    assert!(load(&format!("{f}foo_symint\n")).is_ok());
}

#[test]
fn r52_factory_needs_explicit() {
    assert_eq!(
        rules("- func: new_foo(Tensor self, int[] size) -> Tensor\n"),
        ["R52"]
    );
    assert_eq!(rules("- func: foo_like(Tensor self) -> Tensor\n"), ["R52"]);
    let factory = "- func: foo(int n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor\n";
    assert_eq!(rules(factory), ["R52"]);
}

#[test]
fn r53_multiple_composites() {
    let yaml = "- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CompositeExplicitAutograd: foo\n    CompositeImplicitAutograd: foo2\n";
    assert_eq!(rules(yaml), ["R53"]);
    let ok = "- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CompositeExplicitAutograd: foo\n    CompositeImplicitAutogradNestedTensor: foo_nt\n";
    assert!(load(ok).is_ok());
}

#[test]
fn r54_kernel_namespace_depth() {
    let yaml = "- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: a::b::c::d::foo\n";
    assert_eq!(rules(yaml), ["R54"]);
    let ok =
        load("- func: foo(Tensor self) -> Tensor\n  dispatch:\n    CPU: a::b::c::foo\n").unwrap();
    let k = &ok.entries()[0].dispatch.entries[0].1;
    assert_eq!(
        (k.namespace.as_str(), k.name.as_str()),
        ("a::b::c::native", "foo")
    );
}

#[test]
fn r55_autogen_names() {
    let f = "- func: foo_(Tensor(a!) self) -> Tensor(a!)\n  dispatch:\n    CPU: foo_\n";
    assert_eq!(rules(&format!("{f}  autogen: foo_out\n")), ["R55"]);
    let yaml = format!("{f}  autogen: foo.out, .out\n");
    assert_eq!(rules(&yaml), ["R55"]);
    assert_eq!(at(&yaml), (4, 21, 1));
}

#[test]
fn r56_ufunc_needs_structured_out() {
    let out = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n";
    assert_eq!(
        rules(&format!("{out}  ufunc_inner_loop: foo (Float)\n")),
        ["R56"]
    );
    let structured = format!("{out}  structured: True\n  ufunc_inner_loop: foo (Float)\n");
    assert_eq!(
        rules(&format!("{structured}  dispatch:\n    CPU: foo_out\n")),
        ["R56"]
    );
    let ok = load(&format!(
        "{structured}  dispatch:\n    Meta: foo_meta\n{FUNCTIONAL}"
    ))
    .unwrap();
    let d = &ok.entries()[0].dispatch;
    assert_eq!(
        d.get(crate::native::DispatchKey::CUDA)
            .map(|k| k.name.as_str()),
        Some("ufunc_foo_CUDA")
    );
    let functional =
        "- func: foo(Tensor self) -> Tensor\n  structured: True\n  ufunc_inner_loop: foo (Float)\n";
    assert!(rules(functional).contains(&"R56"));
}

#[test]
fn r57_ufunc_syntax() {
    let f = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  ufunc_inner_loop:";
    assert_eq!(rules(&format!("{f}\n    Vector: foo (Float)\n")), ["R57"]);
    assert_eq!(rules(&format!("{f} foo Float\n")), ["R57"]);
    assert_eq!(rules(&format!("{f} [foo (Float)]\n")), ["R57"]);
}

#[test]
fn r58_ufunc_dtypes() {
    let f = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  ufunc_inner_loop: ";
    let yaml = format!("{f}foo (Float, float16)\n");
    assert_eq!(rules(&yaml), ["R58"]);
    assert_eq!(at(&yaml), (3, 33, 7));
    assert_eq!(rules(&format!("{f}foo (Float,Double)\n")), ["R58"]);
    let ok = load(&format!("{f}foo (Floating, Float, Bool)\n{FUNCTIONAL}")).unwrap();
    assert_eq!(
        ok.entries()[0].ufunc_inner_loop[0].supported_dtypes.len(),
        3
    );
}

#[test]
fn r59_delegate_with_structured_key() {
    let yaml = "- func: foo(Tensor self) -> Tensor\n  structured_delegate: foo.out\n  dispatch:\n    CUDA: foo_cuda\n";
    assert_eq!(rules(yaml), ["R59"]);
}

#[test]
fn r60_out_variants() {
    let yaml = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  variants: function, method\n";
    assert_eq!(rules(yaml), ["R60"]);
}

#[test]
fn r61_structured_not_out() {
    assert_eq!(
        rules("- func: foo(Tensor self) -> Tensor\n  structured: True\n"),
        ["R61"]
    );
}

#[test]
fn r62_delegate_on_out() {
    let yaml = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured_delegate: bar.out\n";
    assert_eq!(rules(yaml), ["R62"]);
}

#[test]
fn r63_structured_device_guard() {
    assert_eq!(
        rules(&format!("{STRUCTURED_OUT}  device_guard: False\n")),
        ["R63"]
    );
}

#[test]
fn r64_cpp_no_default_args() {
    let yaml = "- func: foo(Tensor self, int dim) -> Tensor\n  cpp_no_default_args: ['dim']\n";
    assert_eq!(rules(yaml), ["R64"]);
    assert_eq!(at(yaml), (2, 26, 3));
}

#[test]
fn r65_inherits_needs_structured() {
    let yaml = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured_inherits: TensorIteratorBase\n";
    assert_eq!(rules(yaml), ["R65"]);
}

#[test]
fn r66_foreach_device_check() {
    let yaml = "- func: _foreach_foo(Tensor[] self) -> Tensor[]\n";
    assert_eq!(rules(yaml), ["R66"]);
    assert_eq!(at(yaml), (1, 9, 12));
}

#[test]
fn r67_missing_seeded_tag() {
    for func in [
        "rand_foo(Tensor self) -> Tensor",
        "foo(Tensor self, *, Generator? generator=None) -> Tensor",
        "foo(Tensor self, float dropout_p) -> Tensor",
        "gather.operand(Tensor self, Tensor other) -> Tensor",
    ] {
        assert_eq!(rules(&format!("- func: {func}\n")), ["R67"], "{func}");
    }
    assert!(load("- func: foo_dropout_backward(Tensor self, float dropout_p) -> Tensor\n").is_ok());
    assert!(
        load("- func: rand_foo(Tensor self) -> Tensor\n  tags: nondeterministic_seeded\n").is_ok()
    );
}

#[test]
fn all_problems_of_all_entries_are_reported() {
    let yaml = "- func: foo(Tensr self) -> Tensor\n  variants: fn\n- func: bar(Tensor self) -> Tensor\n  tags: nope\n  dispach: {}\n";
    assert_eq!(rules(yaml), ["R16", "R39", "R37", "R47"]);
}
