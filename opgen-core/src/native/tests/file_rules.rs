//! R68–R83: checks across entries (file stage), generation (R72–R74), groups and view
//! groups. Each test is a minimal bad example from SCHEMA.md §2.6–2.7.

use super::{at, errors, load, rules};

/// An entry with an explicit CPU kernel named after the schema's operator.
fn entry(func: &str) -> String {
    let name: String = func
        .chars()
        .take_while(|c| *c != '(')
        .map(|c| if c == '.' { '_' } else { c })
        .collect();
    format!("- func: {func}\n  dispatch:\n    CPU: {name}\n")
}

#[test]
fn r68_duplicate_operator() {
    let yaml = "- func: foo(Tensor self) -> Tensor\n- func: foo(Tensor self, int x) -> Tensor\n";
    assert_eq!(rules(yaml), ["R68"]);
    assert_eq!(at(yaml), (2, 9, 3));
    assert!(errors(yaml)[0].message.contains("(first at line 1)"));
}

#[test]
fn r69_missing_delegate() {
    let functional = "- func: foo(Tensor self) -> Tensor\n  structured_delegate: foo.out\n";
    assert_eq!(rules(functional), ["R69"]);
    let unstructured = format!(
        "{functional}{}",
        entry("foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
    );
    assert_eq!(rules(&unstructured), ["R69"]);
}

#[test]
fn r70_python_keyword() {
    let yaml = "- func: foo(Tensor self, int lambda) -> Tensor\n";
    assert_eq!(rules(yaml), ["R70"]);
    assert_eq!(at(yaml), (1, 30, 6));
    assert!(
        load("- func: uniform_(Tensor(a!) self, float from=0, float to=1) -> Tensor(a!)\n").is_ok()
    );
}

#[test]
fn r71_inplace_view_naming() {
    let yaml = format!(
        "{}  tags: inplace_view\n",
        entry("foo(Tensor(a) self) -> Tensor(a)")
    );
    assert_eq!(rules(&yaml), ["R71"]);
    let yaml = format!(
        "{}  tags: inplace_view\n",
        entry("foo_(Tensor(a!) self) -> Tensor(a!)")
    );
    assert_eq!(rules(&yaml), ["R71"]);
}

#[test]
fn r72_duplicate_signature() {
    let yaml = format!(
        "{}{}",
        entry("foo(Tensor self) -> Tensor"),
        entry("foo.again(Tensor self) -> Tensor")
    );
    assert_eq!(rules(&yaml), ["R72"]);
    assert_eq!(at(&yaml), (4, 9, 9));
}

#[test]
fn r73_lone_out() {
    assert_eq!(
        rules(&entry(
            "foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"
        )),
        ["R73"]
    );
    assert!(
        load(&entry(
            "_slow_conv2d_backward.grad_input(Tensor self, *, Tensor(a!) grad_input) -> Tensor(a!)"
        ))
        .is_ok()
    );
}

#[test]
fn r74_no_out_variant() {
    assert_eq!(rules(&entry("foo(Tensor self) -> int")), ["R74"]);
    assert!(load(&entry("q_scale(Tensor self) -> float")).is_ok());
}

const STRUCTURED_OUT: &str = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: foo_out\n";

#[test]
fn r75_mixed_structured() {
    let yaml = format!("{STRUCTURED_OUT}{}", entry("foo(Tensor self) -> Tensor"));
    assert_eq!(rules(&yaml), ["R75"]);
}

#[test]
fn r76_wrong_delegate() {
    let bar = "- func: bar.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: bar_out\n- func: bar(Tensor self) -> Tensor\n  structured_delegate: bar.out\n";
    let yaml = format!(
        "{STRUCTURED_OUT}{bar}- func: foo(Tensor self) -> Tensor\n  structured_delegate: bar.out\n"
    );
    assert_eq!(rules(&yaml), ["R76"]);
}

#[test]
fn r77_structured_composite() {
    let yaml = "- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: True\n  dispatch:\n    CPU: foo_out\n    CompositeImplicitAutograd: foo_out_composite\n- func: foo(Tensor self) -> Tensor\n  structured_delegate: foo.out\n";
    assert_eq!(rules(yaml), ["R77"]);
}

#[test]
fn r78_autogen_mismatch() {
    let inplace = entry("foo_(Tensor(a!) self) -> Tensor(a!)");
    let pair = format!(
        "{inplace}{}",
        entry("foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
    );
    assert_eq!(rules(&pair), ["R78"]);
    let e = &errors(&pair)[0];
    assert_eq!(
        e.hint.as_deref(),
        Some("add `autogen: foo` to the entry of `foo_`")
    );
    assert!(load(&format!("{pair}  autogen: foo\n")).is_ok());
    let wrong = format!(
        "{}  autogen: foo.out, foo_.out\n",
        entry("foo(Tensor self) -> Tensor")
    );
    assert_eq!(rules(&wrong), ["R78"]);
    assert_eq!(
        errors(&wrong)[0].hint.as_deref(),
        Some("write `autogen: foo.out`")
    );
}

#[test]
fn r79_mutable_needs_functional_suffix() {
    let yaml = format!(
        "{}  autogen: foo.out\n{}",
        entry("foo(Tensor self, Tensor(a!) buf) -> Tensor"),
        entry("foo.func(Tensor self, Tensor buf) -> (Tensor, Tensor)")
    );
    assert_eq!(rules(&yaml), ["R79"]);
}

#[test]
fn r80_missing_functional() {
    let yaml = "- func: foo_(Tensor(a!) self) -> Tensor(a!)\n- func: foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n";
    assert_eq!(rules(yaml), ["R80"]);
}

#[test]
fn r81_namespace_mismatch() {
    let yaml = format!(
        "{}{}",
        entry("ns1::foo(Tensor self) -> Tensor"),
        entry("ns2::foo.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)")
    );
    assert_eq!(rules(&yaml), ["R81"]);
    assert_eq!(at(&yaml), (4, 14, 7));
}

#[test]
fn r82_missing_inplace_view_tag() {
    let yaml = entry("foo_(Tensor(a!) self, Tensor(b -> *) other) -> Tensor(a!)");
    assert_eq!(rules(&yaml), ["R82"]);
}

#[test]
fn r83_view_copy() {
    let view = entry("foo(Tensor(a) self) -> Tensor(a)");
    assert_eq!(rules(&view), ["R83"]);
    assert!(errors(&view)[0].message.contains("`foo_copy`"));
    let copy = entry("foo_copy(Tensor self) -> Tensor");
    assert_eq!(rules(&format!("{view}{copy}")), ["R83"]);
    let nfs = load(&format!("{view}{copy}  tags: view_copy\n")).unwrap();
    let g = nfs.view_groups().next().unwrap();
    assert_eq!(
        g.view_copy.map(|f| f.func.name.full_name()),
        Some("foo_copy".into())
    );
    let composite = "- func: bar(Tensor(a) self) -> Tensor(a)\n";
    let inplace = format!(
        "{}  tags: inplace_view\n",
        entry("bar_(Tensor(a!) self) -> Tensor(a!)")
    );
    assert_eq!(rules(&format!("{composite}{inplace}")), ["R83"]);
}

#[test]
fn later_stages_wait_for_earlier_ones() {
    // An entry error hides the file-level R68 problem between the other two entries.
    let yaml = "- func: foo(Tensor self) -> Tensor\n- func: foo(Tensor self, int x) -> Tensor\n- func: bar(Tensr self) -> Tensor\n";
    assert_eq!(rules(yaml), ["R16"]);
}
