//! The `opgen` command, run as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn opgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_opgen"))
        .args(args)
        .output()
        .expect("the opgen binary runs")
}

fn corpus() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../opgen-core/tests/data/native_functions.yaml");
    p.to_string_lossy().into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn temp_yaml(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("opgen-cli-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("native_functions.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn check_passes_on_the_whole_corpus() {
    let o = opgen(&["check", &corpus()]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(
        stdout(&o).trim(),
        "ok: 2590 entries, 520 generated functions, 1108 groups, 91 view groups"
    );
}

#[test]
fn check_schema_reports_rule_position_caret_and_hint() {
    let o = opgen(&[
        "check",
        "--schema",
        "add.Tensor(Tensor self, Tensr other) -> Tensor",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "<schema>:1:25: error[R16]: unknown type `Tensr`\n  add.Tensor(Tensor self, Tensr other) -> Tensor\n                          ^^^^^\nhelp: did you mean `Tensor`?\n\n"
    );
    let ok = opgen(&["check", "--schema", "relu(Tensor self) -> Tensor"]);
    assert!(ok.status.success());
}

#[test]
fn check_schema_runs_the_rust_mapping_rules() {
    let o = opgen(&[
        "check",
        "--schema",
        "foo(Tensor self, bool[] mask) -> Tensor",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error[R85]"), "{}", stdout(&o));
}

#[test]
fn check_reports_several_errors_with_file_line_column() {
    let p = temp_yaml(
        "check",
        "- func: relu(Tensor self) -> Tensor\n  dispach:\n    CPU: relu\n\n- func: foo(Tensor self, Tensr x) -> Tensor\n  variants: function,method\n",
    );
    let o = opgen(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let file = p.display().to_string();
    assert!(
        out.contains(&format!("{file}:2:3: error[R37]: unknown field `dispach`")),
        "{out}"
    );
    assert!(out.contains("help: did you mean `dispatch`?"), "{out}");
    assert!(
        out.contains(&format!("{file}:5:26: error[R16]: unknown type `Tensr`")),
        "{out}"
    );
    assert!(out.contains("error[R39]"), "{out}");
    assert!(out.trim_end().ends_with("3 errors"), "{out}");
}

#[test]
fn fmt_shows_and_writes_canonical_forms() {
    let p = temp_yaml(
        "fmt",
        "- func: relu(Tensor self) -> (Tensor)\n  variants: function\n\n- func: abs(Tensor self, , int x) -> Tensor\n",
    );
    let path = p.to_str().unwrap();
    let o = opgen(&["fmt", path]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("  + relu(Tensor self) -> Tensor\n"), "{out}");
    assert!(
        out.contains("  + abs(Tensor self, int x) -> Tensor\n"),
        "{out}"
    );
    assert!(out.contains("2 of 2 schemas are not canonical"), "{out}");
    let o = opgen(&["fmt", "--write", path]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "- func: relu(Tensor self) -> Tensor\n  variants: function\n\n- func: abs(Tensor self, int x) -> Tensor\n"
    );
    let o = opgen(&["fmt", path]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).trim(), "all 2 schemas are canonical");
}

#[test]
fn fmt_confirms_the_corpus_is_canonical() {
    let o = opgen(&["fmt", &corpus()]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).trim(), "all 2590 schemas are canonical");
}

#[test]
fn json_dumps_every_function_and_group() {
    let o = opgen(&["json", &corpus()]);
    assert!(o.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    let functions = doc["functions"].as_array().unwrap();
    assert_eq!(functions.len(), 3110);
    assert_eq!(
        functions.iter().filter(|f| f["generated"] == true).count(),
        520
    );
    assert_eq!(doc["groups"].as_array().unwrap().len(), 1108);
    assert_eq!(doc["view_groups"].as_array().unwrap().len(), 91);
    let add = functions
        .iter()
        .find(|f| f["func"] == "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
        .unwrap();
    assert_eq!(add["operator_name"], "add");
    assert_eq!(add["overload"], "Tensor");
    assert_eq!(add["kind"], "functional");
    assert_eq!(add["unambiguous_name"], "add_Tensor");
    assert_eq!(add["positional"], serde_json::json!(["self", "other"]));
    assert_eq!(add["kwarg_only"], serde_json::json!(["alpha"]));
    assert_eq!(add["self_arg"], "self");
    assert_eq!(add["structured_delegate"], "add.out");
    assert_eq!(add["variants"], serde_json::json!(["function", "method"]));
    assert_eq!(
        add["arguments"][2],
        serde_json::json!({"name": "alpha", "type": "Scalar", "default": "1", "annotation": null, "is_write": false, "kwarg_only": true})
    );
    assert!(
        add["tags"]
            .as_array()
            .unwrap()
            .contains(&"pt2_compliant_tag".into())
    );
    let iand = functions
        .iter()
        .find(|f| f["operator_name"] == "__iand__")
        .unwrap();
    assert_eq!(
        (
            iand["name"].as_str(),
            iand["dunder"].as_bool(),
            iand["inplace"].as_bool()
        ),
        (Some("and"), Some(true), Some(true))
    );
    let out = functions.iter().find(|f| f["func"] == "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)").unwrap();
    assert_eq!(out["out"], serde_json::json!(["out"]));
    assert_eq!(out["returns"][0]["annotation"], "a!");
    assert_eq!(out["structured"], true);
    let group = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["out"] == "add.out")
        .unwrap();
    assert_eq!(group["functional"], "add.Tensor");
    assert_eq!(group["inplace"], "add_.Tensor");
    assert_eq!(group["structured"], true);
}

fn corpus_derivatives() -> String {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../opgen-core/tests/data/derivatives.yaml");
    p.to_string_lossy().into_owned()
}

#[test]
fn check_derivatives_loads_pytorchs_file_and_locates_mistakes() {
    let o = opgen(&["check", "--derivatives", &corpus_derivatives()]);
    assert!(o.status.success(), "{}", stdout(&o));
    assert_eq!(
        stdout(&o).trim(),
        "ok: 688 entries, 621 backward nodes, 1229 native functions with formulas"
    );
    let natives = temp_yaml("deriv", "- func: neg(Tensor self) -> Tensor\n");
    let bad = natives.with_file_name("derivatives.yaml");
    std::fs::write(
        &bad,
        "- name: neg(Tensor self) -> Tensor\n  self: grad.neg() * slf\n",
    )
    .unwrap();
    let o = opgen(&["check", "--derivatives", &bad.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains(
            "derivatives.yaml:2:22: error[R110]: unknown variable `slf` in the formula of `self`"
        ),
        "{out}"
    );
    assert!(out.contains("help: did you mean `self`?"), "{out}");
}

#[test]
fn json_derivatives_dumps_the_differentiability_catalog() {
    let o = opgen(&["json", &corpus(), "--derivatives", &corpus_derivatives()]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let mul = (v["functions"].as_array().expect("functions").iter())
        .find(|f| f["name"] == "mul.Tensor")
        .expect("mul.Tensor");
    assert_eq!(mul["dispatch"]["Default"]["node"], "MulBackward0");
    assert_eq!(
        mul["dispatch"]["Default"]["differentiable_inputs"],
        serde_json::json!(["self", "other"])
    );
}
