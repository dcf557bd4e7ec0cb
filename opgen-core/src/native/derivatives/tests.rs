//! The loader on PyTorch's `derivatives.yaml` and on one mistake per rule.

use std::sync::OnceLock;

use super::*;
use crate::native::{NativeFunctions, load_native_functions};

fn data(file: &str) -> String {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).expect("test data")
}

pub(crate) fn corpus() -> &'static NativeFunctions {
    static NFS: OnceLock<NativeFunctions> = OnceLock::new();
    NFS.get_or_init(|| {
        load_native_functions(&data("native_functions.yaml"), &data("tags.yaml"))
            .expect("the corpus loads")
    })
}

pub(crate) fn corpus_derivatives() -> &'static Derivatives {
    static D: OnceLock<Derivatives> = OnceLock::new();
    D.get_or_init(|| {
        match load_derivatives("derivatives.yaml", &data("derivatives.yaml"), corpus()) {
            Ok(d) => d,
            Err(errors) => {
                let shown: Vec<String> = errors.iter().take(100).map(|e| e.render()).collect();
                panic!("{} errors:\n{}", errors.len(), shown.join("\n"));
            }
        }
    })
}

#[test]
fn every_entry_of_pytorchs_file_loads() {
    let d = corpus_derivatives();
    assert_eq!(d.entries.len(), 688);
}

fn info<'d>(d: &'d Derivatives, name: &str) -> &'d DifferentiabilityInfo {
    (d.entries.iter())
        .find(|e| e.name == name)
        .and_then(DerivativeEntry::default_info)
        .unwrap_or_else(|| panic!("no entry {name}"))
}

fn saved(i: &DifferentiabilityInfo) -> Vec<&str> {
    let mut names: Vec<&str> = (i.all_saved_inputs.iter().chain(&i.all_saved_outputs))
        .map(|s| s.name.as_str())
        .collect();
    names.sort_unstable();
    names
}

#[test]
fn node_names_as_torchgen_numbers_them() {
    let d = corpus_derivatives();
    let op = |name| info(d, name).op.clone().unwrap_or_default();
    assert_eq!(
        op("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"),
        "AddBackward0"
    );
    assert_eq!(
        op("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"),
        "AddBackward1"
    );
    assert_eq!(
        op("_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor"),
        "AdaptiveAvgPool2DBackward0"
    );
    assert_eq!(
        op("log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)"),
        "LogSigmoidBackward0"
    );
    // An entry without formulas gets no node.
    assert_eq!(info(d, "any(Tensor self) -> Tensor").op, None);
    // Per-key formulas get the key in the name.
    let chunk = d
        .entries
        .iter()
        .find(|e| e.name.starts_with("chunk("))
        .expect("chunk");
    let keys: Vec<(&str, Option<&str>)> = chunk
        .infos
        .iter()
        .map(|(k, i)| (k.as_str(), i.op.as_deref()))
        .collect();
    assert_eq!(
        keys,
        [
            ("Default", Some("ChunkBackward0")),
            (
                "AutogradNestedTensor",
                Some("ChunkBackwardAutogradNestedTensor0")
            )
        ]
    );
}

#[test]
fn saved_values_as_torchgen_derives_them() {
    let d = corpus_derivatives();
    let mul = info(d, "mul.Tensor(Tensor self, Tensor other) -> Tensor");
    assert_eq!(
        saved(mul),
        ["other", "other_scalar_type", "self", "self_scalar_type"]
    );
    let sum = info(d, "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor");
    assert_eq!(saved(sum), ["self_sym_sizes"]);
    assert_eq!(
        sum.derivatives[0].formula,
        "grad.expand_symint(self_sym_sizes)"
    );
    let exp = info(d, "exp(Tensor self) -> Tensor");
    assert_eq!(saved(exp), ["result"]);
    assert!(matches!(exp.all_saved_outputs[0].ty, SavedType::Return(_)));
    let relu = info(d, "relu(Tensor self) -> Tensor");
    assert_eq!(saved(relu), ["result"]);
    let cat = info(d, "cat(Tensor[] tensors, int dim=0) -> Tensor");
    assert_eq!(
        saved(cat),
        [
            "dim",
            "tensors_args_scalartypes",
            "tensors_args_sizes_symint"
        ]
    );
}

#[test]
fn gradients_used_and_outputs_differentiable() {
    let d = corpus_derivatives();
    let lu = info(
        d,
        "linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)",
    );
    assert_eq!(lu.available_named_gradients, ["grad_L", "grad_U"]);
    assert_eq!(lu.used_named_gradients, ["grad_L", "grad_U"]);
    assert_eq!(differentiable_outputs(lu), [1, 2]);
    // `grad` alone: only the first tensor output is differentiable.
    let max = info(
        d,
        "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    );
    assert!(max.uses_single_grad());
    assert_eq!(differentiable_outputs(max), [0]);
    assert_eq!(max.args_with_derivatives, ["self"]);
}

#[test]
fn forward_formulas_expand_auto_element_wise_and_auto_linear() {
    let d = corpus_derivatives();
    let acos = info(d, "acos(Tensor self) -> Tensor");
    assert_eq!(
        acos.forward_derivatives[0].formula,
        "(self_t.conj() * -((-self_p * self_p + 1).rsqrt()).conj()).conj()"
    );
    let strided = info(
        d,
        "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
    );
    assert_eq!(
        strided.forward_derivatives[0].formula,
        "at::as_strided_symint(self_t, size, stride, storage_offset)"
    );
    assert_eq!(
        strided.forward_derivatives[0].required_inputs_fw_grad,
        ["self"]
    );
}

const NATIVES: &str = "
- func: mul.Tensor(Tensor self, Tensor other) -> Tensor
  variants: function, method
- func: mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
  variants: method
- func: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
- func: pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
- func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
- func: sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
- func: weird(Tensor self, Tensor result) -> Tensor
- func: named(Tensor self) -> (Tensor self, Tensor b)
- func: mm(Tensor self, Tensor mat2) -> Tensor
";

fn natives() -> &'static NativeFunctions {
    static N: OnceLock<NativeFunctions> = OnceLock::new();
    N.get_or_init(|| load_native_functions(NATIVES, "").expect("natives"))
}

/// The errors of `yaml`, as (rule id, line, column, message).
fn errors(yaml: &str) -> Vec<(String, usize, usize, String)> {
    let errs = load_derivatives("d.yaml", yaml, natives()).expect_err("errors");
    errs.iter()
        .map(|e| {
            let rule = e.rule.map_or("-", |r| r.id()).to_string();
            (rule, e.error.line, e.error.column, e.error.message.clone())
        })
        .collect()
}

fn first(yaml: &str) -> (String, usize, usize, String) {
    errors(yaml).remove(0)
}

const MUL: &str = "- name: mul.Tensor(Tensor self, Tensor other) -> Tensor\n";

#[test]
fn entry_shape_and_schema() {
    assert_eq!(first("- 3\n").0, "R100");
    assert_eq!(first("- self: grad\n").3, "entry has no `name`");
    let e = first("- name: mul.Tensor(Tensor self, Tensor othr) -> Tensor\n  self: grad\n");
    assert_eq!((e.0.as_str(), e.1, e.2), ("R101", 1, 9));
    let errs = load_derivatives(
        "d.yaml",
        "- name: mul.Tensor(Tensor self, Tensor other) -> (Tensor)\n",
        natives(),
    )
    .unwrap_err();
    assert_eq!(
        errs[0].error.hint.as_deref(),
        Some(
            "write it exactly as in native_functions.yaml: `mul.Tensor(Tensor self, Tensor other) -> Tensor`"
        )
    );
    let dup = format!("{MUL}  self: grad\n{MUL}  other: grad\n");
    assert_eq!(first(&dup).0, "R118");
    let rendered = load_derivatives("d.yaml", "- name: mulx(Tensor self) -> Tensor\n", natives())
        .unwrap_err()[0]
        .render();
    assert!(rendered.starts_with("d.yaml:1:9: error[R101]: could not find ATen function for schema `mulx(Tensor self) -> Tensor`\n"), "{rendered}");
    assert!(
        rendered.contains("  - name: mulx(Tensor self) -> Tensor\n          ^^^^"),
        "{rendered}"
    );
}

#[test]
fn field_types_and_dispatch_keys() {
    assert_eq!(
        first(&format!("{MUL}  self: 3\n")).3,
        "the formula of `self` is the number `3`, not a string"
    );
    assert_eq!(
        first(&format!("{MUL}  output_differentiability: yes\n")).0,
        "R102"
    );
    let next_to = format!("{MUL}  self: grad\n  dispatch:\n    Default:\n      other: grad\n");
    assert_eq!(first(&next_to).3, "formula `self` next to `dispatch`");
    let key = format!("{MUL}  dispatch:\n    AutogradCUDAX:\n      self: grad * other\n");
    let e = first(&key);
    assert_eq!((e.0.as_str(), e.1, e.2), ("R103", 3, 5));
    assert!(
        load_derivatives(
            "d.yaml",
            &format!("{MUL}  dispatch:\n    AutogradCUDA:\n      self: grad * other\n"),
            natives()
        )
        .is_ok()
    );
}

#[test]
fn keys_outputs_and_overlaps() {
    let e = first(&format!("{MUL}  slef: grad * other\n"));
    assert_eq!((e.0.as_str(), e.1, e.2), ("R104", 2, 3));
    let errs =
        load_derivatives("d.yaml", &format!("{MUL}  slef: grad * other\n"), natives()).unwrap_err();
    assert_eq!(errs[0].error.hint.as_deref(), Some("did you mean `self`?"));
    // The unknown key is the one error: its formula (`grad` is no variable of a forward
    // formula) is not checked against a scope it was never meant for.
    assert_eq!(errs.len(), 1, "{errs:?}");
    let len = "- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n  self: grad\n  output_differentiability: [True]\n";
    assert_eq!(
        first(len).3,
        "the length of output_differentiability (1) does not match the number of outputs (2)"
    );
    let inplace = "- name: mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)\n  self: grad * other\n  output_differentiability: [False]\n";
    assert_eq!(first(inplace).0, "R105");
    assert_eq!(
        first(&format!(
            "{MUL}  self: grad * other\n  self, other: non_differentiable\n"
        ))
        .0,
        "R106"
    );
    let both = "- name: named(Tensor self) -> (Tensor self, Tensor b)\n  self: grads[0]\n";
    assert_eq!(first(both).0, "R116");
    assert_eq!(
        first("- name: weird(Tensor self, Tensor result) -> Tensor\n  self: grad\n").0,
        "R114"
    );
}

#[test]
fn gradients_must_be_named_one_way() {
    let mixed = "- name: sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)\n  self: grad + grads[1]\n";
    assert!(
        first(mixed)
            .3
            .contains("illegally mixes use of `grad` and `grads`")
    );
    let only0 = "- name: sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)\n  self: grads[0]\n";
    assert!(first(only0).3.contains("solely refers to `grads[0]`"));
    let oob = "- name: sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)\n  self: grads[0] + grads[2]\n";
    assert!(first(oob).3.starts_with("out of bounds grads access"));
    assert_eq!(first(oob).0, "R107");
}

#[test]
fn formulas_parse_and_name_what_is_in_scope() {
    let e = first(&format!("{MUL}  self: grad * (other\n"));
    assert_eq!(
        (e.0.as_str(), e.1, e.2, e.3.as_str()),
        ("R109", 2, 22, "expected `)` but the formula ends")
    );
    let e = first(&format!("{MUL}  self: grad * othr\n"));
    assert_eq!((e.0.as_str(), e.1, e.2), ("R110", 2, 16));
    assert_eq!(first(&format!("{MUL}  self: \"\"\n")).0, "R119");
    let sizes = "- name: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor\n  self: grad.expand(self.sizes())\n";
    let e = first(sizes);
    assert_eq!(
        (e.0.as_str(), e.3.as_str()),
        ("R108", "`.sizes()` is not supported in derivative formulas")
    );
    let strides =
        "- name: mm(Tensor self, Tensor mat2) -> Tensor\n  self: f(grad, mat2.sym_strides())\n";
    assert_eq!(first(strides).0, "R117");
    // `result`, `grad_input_mask` and `retain_variables` are in scope; C++ constants too.
    let ok = format!(
        "{MUL}  self, other: f(grad, self, other, result, grad_input_mask, retain_variables, M_PI, at::kLong)\n"
    );
    assert!(load_derivatives("d.yaml", &ok, natives()).is_ok());
}

#[test]
fn formulas_only_for_differentiable_inputs_and_outputs() {
    let e = first(
        "- name: pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor\n  exponent: grad\n",
    );
    assert_eq!(e.0, "R111");
    assert!(
        e.3.contains("`exponent` (of type `Scalar`) is not a differentiable input"),
        "{}",
        e.3
    );
    let ignored = "- name: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)\n  self: grad\n  output_differentiability: [False, False]\n";
    assert_eq!(first(ignored).0, "R113");
}

#[test]
fn forward_formulas_use_primals_and_tangents() {
    let base =
        format!("{MUL}  self: grad * other\n  other: grad * self\n  result: self * other_t\n");
    let e = first(&base);
    assert_eq!(e.0, "R112");
    assert!(e.3.contains("using the base name of the `self` argument"));
    let element_wise =
        format!("{MUL}  self: grad * other\n  other: grad * self\n  result: auto_element_wise\n");
    assert!(
        first(&element_wise)
            .3
            .contains("single differentiable input")
    );
}

#[test]
fn in_place_out_and_view_copy_functions_reuse_formulas() {
    let (d, natives) = (corpus_derivatives(), corpus());
    let matched = match_functions(d, natives);
    let find = |name: &str| {
        (matched.iter())
            .find(|m| natives.functions()[m.function].func.name.to_string() == name)
            .unwrap_or_else(|| panic!("{name} has no formulas"))
    };
    assert_eq!(find("mul.Tensor").kind, MatchKind::Exact);
    assert_eq!(find("mul_.Tensor").kind, MatchKind::Functional);
    assert_eq!(find("mul.out").kind, MatchKind::Functional);
    let copy = find("transpose_copy.int");
    assert_eq!(copy.kind, MatchKind::ViewCopy);
    let info = copy.entry.default_info().expect("info");
    assert_eq!(
        node_name(info, copy.kind).as_deref(),
        Some("TransposeBackward0_copy")
    );
    // Generated out variants get none.
    assert!(
        !matched
            .iter()
            .any(|m| natives.functions()[m.function].func.name.to_string() == "abs_.out")
    );
    let json = catalog_json(d, natives);
    let mul_ = (json["functions"].as_array().expect("functions").iter())
        .find(|f| f["name"] == "mul_.Tensor")
        .expect("mul_");
    assert_eq!(mul_["dispatch"]["Default"]["saves_original_self"], true);
    assert_eq!(mul_["dispatch"]["Default"]["node"], "MulBackward0");
    assert_eq!(json["entries"], 688);
}

#[test]
fn inputs_without_formula_are_checked_at_run_time() {
    let d = corpus_derivatives();
    let index = info(d, "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
    // `indices` has neither a formula nor `non_differentiable`: refused at run time if it
    // requires grad.
    assert_eq!(inputs_without_formula(index), ["indices"]);
    let where_ = info(
        d,
        "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    );
    assert_eq!(where_.non_differentiable_arg_names, ["condition"]);
    assert!(inputs_without_formula(where_).is_empty());
}

#[test]
fn translation_figures_of_pytorchs_formulas() {
    let report = crate::formula::translate::corpus_report(corpus_derivatives(), corpus());
    let (b, f) = (report.backward_formulas, report.forward_formulas);
    println!(
        "entries {} parse {} translate(backward) {} translate(all) {}; backward formulas {}/{}, forward {}/{}",
        report.entries.len(),
        report.parse(),
        report.translate_backward(),
        report.translate_all(),
        b.1,
        b.0,
        f.1,
        f.0
    );
    for blocker in report.blockers.iter().take(400) {
        println!("{:5}  {}", blocker.formulas, blocker.what);
    }
    println!("entries blocked by one blocker alone:");
    for blocker in report.sole_blockers() {
        println!("{:5}  {}", blocker.formulas, blocker.what);
    }
    assert_eq!(report.parse(), 688);
    assert_eq!(
        (report.translate_backward(), report.translate_all()),
        (680, 676)
    );
    assert_eq!((b, f), ((777 + 8, 777), (472 + 5, 472)));
    // What blocks the rest (docs/AUTOGRAD.md says why): helpers of PyTorch 2.15 not
    // written, each formula it blocks.
    let blockers: Vec<(&str, usize)> = (report.blockers.iter())
        .map(|b| (b.what.as_str(), b.formulas))
        .collect();
    assert_eq!(
        blockers,
        [
            ("missing function `grid_sampler_2d_double_backward`", 3),
            ("missing function `grid_sampler_2d_jvp`", 3),
            ("missing function `_cdist_backward_backward`", 1),
            ("missing function `_pdist_backward_backward`", 1),
            ("missing function `grid_sampler_3d_double_backward`", 1),
            ("missing function `grid_sampler_3d_jvp`", 1),
            ("missing function `linalg_polar_backward`", 1),
            ("missing function `linalg_polar_jvp`", 1),
            ("missing function `unbind_backward_nested_jagged`", 1),
        ]
    );
    let blocked: Vec<&str> = (report.entries.iter())
        .filter(|e| !e.backward_translates)
        .map(|e| e.name.split('(').next().unwrap_or(""))
        .collect();
    assert_eq!(
        blocked,
        [
            "grid_sampler_2d_backward",
            "grid_sampler_3d_backward",
            "_grid_sampler_2d_cpu_fallback_backward",
            "linalg_polar",
            "_pdist_backward",
            "_cdist_backward",
            "cudnn_grid_sampler_backward",
            "unbind.int",
        ]
    );
}

#[test]
fn translated_formulas_form_one_rust_module() {
    let options = crate::formula::translate::Options {
        tensor: "Tensor".into(),
        ..Default::default()
    };
    let module = crate::formula::translate::emit_module(corpus_derivatives(), corpus(), &options);
    // The variables as a generated backward node binds them: tensors owned.
    assert!(module.contains(
        "pub fn mul__self(grad: Tensor, other: Tensor, self_scalar_type: ::opgen_core::ScalarType) \
         -> ::core::result::Result<Tensor, ::opgen_core::Error> {\n    ::core::result::Result::Ok(\
         ::opgen_core::autograd::functions::mul_tensor_backward(&grad, &other, self_scalar_type)?)\n}"
    ), "{}", &module[..2000]);
    // `grad_input_mask` has one flag per input of the formula; names are unique.
    assert!(module.contains("grad_input_mask: [bool; 3]"));
    assert!(module.contains("pub fn clamp__self_2("));
    // One function per translated formula of the `Default` key.
    assert_eq!(module.matches("\npub fn ").count(), 763);
    if let Ok(path) = std::env::var("OPGEN_TRANSLATED_MODULE") {
        std::fs::write(path, &module).expect("writes the module");
    }
}

#[test]
fn translations_of_the_example_operators() {
    use crate::formula::translate::{ApiIndex, Options, scope_for, translate};
    let (d, natives) = (corpus_derivatives(), corpus());
    let api = ApiIndex::new(natives);
    let show = |name: &str, var: &str| {
        let info = info(d, name);
        let derivative = (info.derivatives.iter())
            .find(|x| x.var_names.iter().any(|v| v == var))
            .expect("formula");
        let expr = crate::formula::parse_formula(&derivative.formula).expect("parses");
        translate(&expr, &scope_for(info, false), &api, &Options::default())
            .map(|t| t.rust)
            .unwrap_or_else(|b| format!("blocked: {b:?}"))
    };
    for (name, var) in [
        ("mul.Tensor(Tensor self, Tensor other) -> Tensor", "self"),
        ("exp(Tensor self) -> Tensor", "self"),
        (
            "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
            "self",
        ),
        (
            "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
            "other",
        ),
        (
            "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
            "self",
        ),
        (
            "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
            "other",
        ),
        ("matmul(Tensor self, Tensor other) -> Tensor", "self"),
        ("relu(Tensor self) -> Tensor", "self"),
        ("cat(Tensor[] tensors, int dim=0) -> Tensor", "tensors"),
        ("atanh(Tensor self) -> Tensor", "self"),
    ] {
        println!("{name} [{var}]\n    {}", show(name, var));
    }
}
