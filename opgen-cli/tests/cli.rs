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
        "<schema>:1:25: error[R16]: unknown type `Tensr`\n  add.Tensor(Tensor self, Tensr other) -> Tensor\n                          ^^^^^\nhelp: did you mean `Tensor`?\nfor more information about this error, run `opgen explain R16`\n\n"
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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn check_applies_the_rust_api_rules_to_files() {
    let p = temp_yaml(
        "rust-api",
        "- func: cross2(Tensor input, Tensor other) -> Tensor\n  variants: function, method\n\
         - func: masked_keep(Tensor self, bool[] mask) -> Tensor\n\
         - func: aten::amax2(Tensor self, int[] dim=0) -> Tensor\n\
         - func: shape2(Tensor self) -> int[2]\n\
         - func: _scale_all(Tensor(a!)[] self, Scalar s) -> Tensor(a!)[]\n\
         - func: linear_packed(Tensor self, __torch__.torch.classes.mylib.Packed packed) -> Tensor\n\
         - func: cat2(Tensor[] self, int dim=0) -> Tensor\n  variants: method\n",
    );
    let o = opgen(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let file = p.display().to_string();
    for expected in [
        format!("{file}:1:15: error[R84]: `cross2` has a method variant but no `self` argument"),
        format!("{file}:3:34: error[R85]: `bool[]` in argument `mask`"),
        // The column counts the `aten::` prefix written before the schema.
        format!("{file}:4:44: error[R86]: default `0` of list argument `dim`"),
        format!("{file}:5:32: error[R87]: return 0 has the fixed-size list type `int[2]`"),
        format!("{file}:6:52: error[R88]: return 0 is a written tensor list"),
        format!("{file}:7:36: error[R89]: type `__torch__.torch.classes.mylib.Packed`"),
        format!(
            "{file}:8:14: error[R84]: `cat2` has a method variant, but its `self` is `Tensor[]`"
        ),
    ] {
        assert!(out.contains(&expected), "missing `{expected}` in:\n{out}");
    }
    assert!(out.trim_end().ends_with("7 errors"), "{out}");
    // `check --schema` has no entry, so no method: the same schema passes there.
    let o = opgen(&[
        "check",
        "--schema",
        "cross2(Tensor input, Tensor other) -> Tensor",
    ]);
    assert!(o.status.success(), "{}", stdout(&o));
}

#[test]
fn check_exempts_cpp_no_default_args_from_r86_as_torchgen_does() {
    let bad = "- func: amax2(Tensor self, int[] dim=0, bool keepdim=False) -> Tensor\n";
    let p = temp_yaml("no-default-bad", bad);
    let o = opgen(&["check", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error[R86]"), "{}", stdout(&o));
    let exempt = format!("{bad}  cpp_no_default_args: ['dim']\n");
    let p = temp_yaml("no-default-ok", &exempt);
    let o = opgen(&["check", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
    // Only the listed argument is exempt.
    let other = "- func: amax2(Tensor self, int[] dim=0, int[] keep=1) -> Tensor\n  cpp_no_default_args: ['dim']\n";
    let p = temp_yaml("no-default-other", other);
    let out = stdout(&opgen(&["check", p.to_str().unwrap()]));
    assert!(out.contains("default `1` of list argument `keep`"), "{out}");
    assert!(!out.contains("argument `dim`"), "{out}");
}

/// A file written every way YAML allows a `func` value, with comments that look like
/// schemas.
const ADVERSARIAL: &str = "\
# func: foo(Tensor self) -> (Tensor) in a comment stays
- func: relu(Tensor self) -> (Tensor)   # trailing -> (Tensor)
  variants: function
- func: \"abs(Tensor self, , int x) -> (Tensor)\"  # double-quoted
- func: 'neg(Tensor self) -> (Tensor)'
- {func: \"sin(Tensor self) -> (Tensor)\", variants: function}
- func: >-
    cos(Tensor self)
    -> (Tensor)
  variants: function
- variants: function
  func: |-
      tan(Tensor self) -> (Tensor)
  # after a block scalar
- func: aten::exp(Tensor self) -> (Tensor)
- func: exp2(Tensor self) -> Tensor
- func:
    log(Tensor self)
    -> (Tensor)
  dispatch:
    CPU: func
- func: 'its(Tensor self, str s=\"it''s\") -> (Tensor)'
- func: \"sum(Tensor self, *, str s=\\\"a # b\\\") -> (Tensor)\"
- func: 'mean(Tensor self, str s=\"x: y\") -> (Tensor)'
";

const ADVERSARIAL_FIXED: &str = "\
# func: foo(Tensor self) -> (Tensor) in a comment stays
- func: relu(Tensor self) -> Tensor   # trailing -> (Tensor)
  variants: function
- func: \"abs(Tensor self, int x) -> Tensor\"  # double-quoted
- func: 'neg(Tensor self) -> Tensor'
- {func: \"sin(Tensor self) -> Tensor\", variants: function}
- func: >-
    cos(Tensor self) -> Tensor
  variants: function
- variants: function
  func: |-
      tan(Tensor self) -> Tensor
  # after a block scalar
- func: aten::exp(Tensor self) -> Tensor
- func: exp2(Tensor self) -> Tensor
- func:
    log(Tensor self) -> Tensor
  dispatch:
    CPU: func
- func: 'its(Tensor self, str s=\"it''s\") -> Tensor'
- func: \"sum(Tensor self, *, str s=\\\"a # b\\\") -> Tensor\"
- func: 'mean(Tensor self, str s=\"x: y\") -> Tensor'
";

#[test]
fn fmt_reads_yaml_and_changes_nothing_but_schemas() {
    let p = temp_yaml("fmt-yaml", ADVERSARIAL);
    let path = p.to_str().unwrap();
    let o = opgen(&["fmt", path]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains(":8:\n  - cos(Tensor self) -> (Tensor)\n  + cos(Tensor self) -> Tensor\n"),
        "{out}"
    );
    assert!(
        out.contains("  + aten::exp(Tensor self) -> Tensor\n"),
        "{out}"
    );
    assert!(out.contains("11 of 12 schemas are not canonical"), "{out}");
    // Nothing is written without `--write`.
    assert_eq!(std::fs::read_to_string(&p).unwrap(), ADVERSARIAL);
    let o = opgen(&["fmt", "--write", path]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        stdout(&o).trim(),
        "rewrote 11 of 12 schemas in canonical form"
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), ADVERSARIAL_FIXED);
    let o = opgen(&["fmt", path]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).trim(), "all 12 schemas are canonical");
}

#[test]
fn fmt_keeps_line_ends_byte_order_mark_and_quoting() {
    let text = "\u{feff}- func: \"relu(Tensor self, str s='\u{e9}') -> (Tensor)\"\r\n  variants: function\r\n- func: neg(Tensor self) -> (Tensor) # c\r\n";
    let p = temp_yaml("fmt-crlf", text);
    let o = opgen(&["fmt", "--write", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "\u{feff}- func: \"relu(Tensor self, str s='\u{e9}') -> Tensor\"\r\n  variants: function\r\n- func: neg(Tensor self) -> Tensor # c\r\n"
    );
}

#[test]
fn fmt_points_at_errors_inside_quoted_and_block_values() {
    let p = temp_yaml(
        "fmt-errors",
        "- func: \"foo(Tensr self) -> Tensor\"\n- func: bar(Tensor self, Tensr x) -> Tensor\n",
    );
    let o = opgen(&["fmt", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let file = p.display().to_string();
    assert!(
        out.contains(&format!("{file}:1:14: error[R16]: unknown type `Tensr`")),
        "{out}"
    );
    assert!(
        out.contains(&format!("{file}:2:26: error[R16]: unknown type `Tensr`")),
        "{out}"
    );
    let p = temp_yaml(
        "fmt-syntax",
        "- func: foo(Tensor self) -> Tensor\n  - oops: [\n",
    );
    let o = opgen(&["fmt", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error: invalid YAML"), "{}", stdout(&o));
}

#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_opgen"))
        .args(["json", &corpus()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the opgen binary runs");
    let mut first = [0u8; 16];
    child
        .stdout
        .take()
        .expect("piped")
        .read_exact(&mut first)
        .expect("the start of the catalog");
    // The reader went away (as `| head` does) long before the catalog's megabytes end.
    let o = child.wait_with_output().expect("opgen ends");
    assert_eq!(&first[..1], b"{");
    assert_eq!(stderr(&o), "", "no panic, no error message");
    assert_eq!(
        o.status.code(),
        Some(141),
        "128 + SIGPIPE, as a shell reports `cat | head`"
    );
}

#[test]
fn explain_prints_a_rule_with_its_example_error_and_fix() {
    let o = opgen(&["explain", "R16"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(
        out.starts_with("R16: every type is a known schema type\n"),
        "{out}"
    );
    assert!(out.contains("This breaks it:\n"), "{out}");
    assert!(
        out.contains("opgen reports:\n\n    error[R16]: unknown type `Tensr`"),
        "{out}"
    );
    assert!(out.contains("The fix: "), "{out}");
    for spelling in ["r16", "16", " R16 "] {
        assert_eq!(stdout(&opgen(&["explain", spelling])), out, "{spelling}");
    }
    let yaml_rule = stdout(&opgen(&["explain", "R84"]));
    assert!(
        yaml_rule.contains("native_functions.yaml:1:15: error[R84]"),
        "{yaml_rule}"
    );
}

#[test]
fn explain_lists_every_rule_and_rejects_unknown_ones() {
    let o = opgen(&["explain"]);
    assert!(o.status.success());
    let out = stdout(&o);
    let rules: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with('R'))
        .collect();
    let expected: Vec<String> = (1..=92).chain(100..=119).map(|i| format!("R{i}")).collect();
    assert_eq!(rules, expected);
    assert!(
        out.contains("R16  every type is a known schema type\n"),
        "{out}"
    );
    let o = opgen(&["explain", "R93"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: unknown rule `R93`; rules are R1 to R92 and R100 to R119 (`opgen explain` lists them)\n"
    );
}

#[test]
fn explain_knows_the_rules_of_derivative_formulas() {
    let out = stdout(&opgen(&["explain", "R110"]));
    assert!(
        out.starts_with("R110: every variable a formula names is in scope\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "derivatives.yaml:2:16: error[R110]: unknown variable `othr` in the formula of `self`"
        ),
        "{out}"
    );
    let missing = stdout(&opgen(&["explain", "r115"]));
    assert!(
        missing.contains("error[R115]: input `other` of `mul.Tensor` has no derivative formula"),
        "{missing}"
    );
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

/// Runs `opgen` and fails the test if it has not finished within `secs` seconds (a file that
/// never ends, or an expansion without bound, would hang or exhaust memory instead).
fn opgen_within(secs: u64, args: &[&str]) -> Output {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_opgen"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the opgen binary runs");
    // Read the output while waiting, so that a full pipe cannot stall the child.
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("`opgen {}` ran for more than {secs} s", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = Vec::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_end(&mut stderr)
        .unwrap();
    Output {
        status,
        stdout: reader.join().unwrap().unwrap(),
        stderr,
    }
}

/// `opgen check` of a hostile file: exits 1 with the error at `FILE:LINE:COL` saying `says`,
/// in bounded output.
#[track_caller]
fn check_refuses(name: &str, text: &str, line_col: &str, says: &str) -> String {
    let p = temp_yaml(name, text);
    let o = opgen_within(60, &["check", p.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let at = format!("{}:{line_col}: error", p.display());
    assert!(
        out.starts_with(&at),
        "expected `{at}`: {}",
        &out[..out.len().min(500)]
    );
    assert!(out.contains(says), "{}", &out[..out.len().min(500)]);
    assert!(out.len() < 64 * 1024, "{} bytes of output", out.len());
    out
}

#[test]
fn check_refuses_nested_aliases() {
    let mut text = String::from("- &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        text.push_str(&format!(
            "- &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    check_refuses(
        "laughs",
        &text,
        "3:28",
        "anchors and aliases expand the document",
    );
}

#[test]
fn check_refuses_deep_nesting() {
    let deep = 100_000;
    let yaml = format!("- func: {}{}\n", "[".repeat(deep), "]".repeat(deep));
    check_refuses(
        "deep-flow",
        &yaml,
        "1:264",
        "invalid YAML: recursion limit exceeded",
    );
    let yaml = format!("{}x\n", "- ".repeat(deep));
    check_refuses(
        "deep-block",
        &yaml,
        "1:129",
        "nests lists and mappings more than 64 deep",
    );
    for suffix in ["[]", "?"] {
        let yaml = format!("- func: foo(int{} x) -> Tensor\n", suffix.repeat(deep));
        check_refuses(
            "deep-type",
            &yaml,
            "1:13",
            "error[R90]: the type nests more than 32",
        );
    }
    let list = format!("{}{}", "[".repeat(deep), "]".repeat(deep));
    let yaml = format!("- func: foo(int[] x={list}) -> Tensor\n");
    check_refuses(
        "deep-default",
        &yaml,
        "1:21",
        "error[R90]: the default nests more than 32",
    );
}

#[test]
fn check_shows_a_window_and_a_count_for_a_long_line_of_errors() {
    let args: Vec<String> = (0..10_000).map(|i| format!("Tensr a{i}")).collect();
    let yaml = format!("- func: foo({}) -> Tensor\n", args.join(", "));
    let out = check_refuses(
        "long-line",
        &yaml,
        "1:13",
        "error[R16]: unknown type `Tensr`",
    );
    assert_eq!(out.matches("error[R16]").count(), 10);
    assert!(out.contains("9990 more errors not shown"), "{out}");
    assert!(out.trim_end().ends_with("10000 errors"));
    let schema = format!("foo({}) -> Tensor", args[..2000].join(", "));
    let o = opgen_within(60, &["check", "--schema", &schema]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("1990 more errors not shown"));
    assert!(o.stdout.len() < 16 * 1024, "{} bytes", o.stdout.len());
}

#[test]
fn check_refuses_what_pyyaml_refuses_and_reads_what_it_reads() {
    let good = "- func: relu(Tensor self) -> Tensor\n";
    let bad = "- func: bad(Tensr x) -> Tensor\n";
    let nul = format!("{good}\0\n{bad}");
    check_refuses("nul", &nul, "2:1", "unacceptable character #x0000");
    let second = format!("{good}---\n{bad}");
    check_refuses("second-doc", &second, "2:1", "expected a single document");
    let after_end = format!("{good}...\n{bad}");
    check_refuses("doc-end", &after_end, "3:1", "expected a single document");
    let lone_cr = format!("{good}\r{bad}").replace('\n', "\r");
    check_refuses("lone-cr", &lone_cr, "3:13", "unknown type `Tensr`");
    let p = temp_yaml("bom", &format!("\u{feff}{good}"));
    let o = opgen_within(60, &["check", p.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stdout(&o));
}

#[test]
fn check_refuses_files_it_should_not_read() {
    let dir = std::env::temp_dir().join(format!("opgen-cli-test-{}-refuse", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let refused = |path: &std::path::Path, says: &str| {
        let o = opgen_within(60, &["check", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.starts_with(&format!("error: {}", path.display())),
            "{err}"
        );
        assert!(err.contains(says), "{err}");
    };
    refused(
        "/dev/zero".as_ref(),
        "not a regular file (a character device)",
    );
    refused(&dir, "not a regular file (a directory)");
    let fifo = dir.join("fifo.yaml");
    let _ = std::fs::remove_file(&fifo);
    if Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        refused(&fifo, "not a regular file (a FIFO)");
    }
    let big = dir.join("big.yaml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(opgen_core::native::MAX_FILE_SIZE + 1)
        .unwrap();
    refused(&big, "larger than 16 MiB");
    let latin1 = dir.join("latin1.yaml");
    std::fs::write(&latin1, b"- func: caf\xe9(Tensor self) -> Tensor\n").unwrap();
    refused(&latin1, "latin1.yaml:1:12: the file is not UTF-8 text");
    // The environment is named and located, never printed.
    let o = opgen_within(60, &["check", "/proc/self/environ"]);
    if o.status.code() == Some(1) {
        let out = stdout(&o);
        assert!(out.starts_with("/proc/self/environ:1:"), "{out}");
        assert!(!out.contains("PATH="), "{out}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn json_writes_the_catalog_document_piece_by_piece() {
    let p = temp_yaml(
        "json-stream",
        "- func: abs(Tensor self) -> Tensor\n  dispatch:\n    CPU: abs\n- func: abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  dispatch:\n    CPU: abs_out\n",
    );
    let o = opgen_within(60, &["json", p.to_str().unwrap()]);
    assert!(o.status.success());
    let nf = opgen_core::native::load_native_functions_from_paths(
        &p,
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../opgen-core/tests/data/tags.yaml"),
    )
    .unwrap();
    let whole = opgen_core::catalog::native_catalog_json(&nf);
    assert_eq!(
        stdout(&o),
        serde_json::to_string_pretty(&whole).unwrap() + "\n"
    );
}
