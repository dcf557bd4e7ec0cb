//! The translator on formulas of PyTorch's shape, against the corpus' generated API.

use super::*;
use crate::formula::parse_formula;

fn api() -> &'static ApiIndex {
    static API: std::sync::OnceLock<ApiIndex> = std::sync::OnceLock::new();
    API.get_or_init(|| ApiIndex::new(crate::native::derivatives::tests::corpus()))
}

/// Translates `formula` with `vars` (C++ name, type) in scope, Rust names as torchgen's.
fn tr(formula: &str, vars: &[(&str, Ty)]) -> Result<String, Vec<String>> {
    let mut scope = Scope::default();
    for (name, ty) in vars {
        scope.add(name, &crate::plan::rust_ident(name), ty.clone());
    }
    let expr = parse_formula(formula).expect("parses");
    translate(&expr, &scope, api(), &Options::default())
        .map(|t| t.rust)
        .map_err(|b| b.iter().map(ToString::to_string).collect())
}

const F: &str = "::opgen_core::autograd::functions::";

fn ok(formula: &str, vars: &[(&str, Ty)]) -> String {
    tr(formula, vars).unwrap_or_else(|b| panic!("{formula}: {b:?}"))
}

#[test]
fn an_int_is_an_int_array_ref_of_one_element() {
    let vars = [("grad", Ty::Tensor), ("dim", Ty::Int)];
    assert_eq!(
        ok("grad.sum(dim, true)", &vars),
        "try_sum_dim_int_list_with(&grad, ::core::option::Option::Some(&[dim][..]), \
         SumDimIntListArgs { keepdim: true, ..::core::default::Default::default() })?"
    );
    assert_eq!(
        ok("grad.sum(0)", &vars),
        "try_sum_dim_int_list(&grad, ::core::option::Option::Some(&[0i64][..]))?"
    );
}

#[test]
fn tensor_options_may_be_passed_as_their_four_parts() {
    let vars = [
        ("self_t", Ty::Tensor),
        ("dtype", Ty::OptScalarType),
        ("layout", Ty::OptLayout),
        ("device", Ty::OptDevice),
        ("pin_memory", Ty::OptBool),
        ("non_blocking", Ty::Bool),
        ("memory_format", Ty::OptMemoryFormat),
    ];
    let f = "_to_copy(self_t, dtype, layout, device, pin_memory, non_blocking, memory_format)";
    assert_eq!(
        ok(f, &vars),
        "_try_to_copy_with(&self_t, ToCopyArgs { options: ::opgen_core::TensorOptions::from_parts(\
         dtype, layout, device, pin_memory), non_blocking: non_blocking, memory_format: memory_format })?"
    );
}

#[test]
fn helper_overloads_by_arity_and_argument_types() {
    let t = Ty::Tensor;
    let vars = [
        ("grad", t.clone()),
        ("self", t.clone()),
        ("result", t.clone()),
        ("p", Ty::Scalar),
        ("other", Ty::Scalar),
        ("other_t", t.clone()),
        ("st", Ty::ScalarType),
        ("rounding_mode", Ty::OptStr),
        ("min", Ty::OptTensor),
        ("max", Ty::OptTensor),
        ("smin", Ty::OptScalar),
    ];
    // Omitted trailing parameters take C++'s defaults.
    assert_eq!(
        ok("norm_backward(grad, self, p, result)", &vars),
        format!(
            "{F}norm_backward(&grad, &self_, ::core::option::Option::Some(p), &result, &[], true)?"
        )
    );
    assert_eq!(
        ok("div_tensor_self_backward(grad, other_t, st)", &vars),
        format!("{F}div_tensor_self_backward(&grad, &other_t, st, ::core::option::Option::None)?")
    );
    // A `Scalar` other and a rounding mode.
    assert_eq!(
        ok(
            "div_tensor_self_backward(grad, other, st, rounding_mode)",
            &vars
        ),
        format!("{F}div_tensor_self_backward_scalar(&grad, other, st, rounding_mode)?")
    );
    // Tensor bounds and scalar bounds.
    assert_eq!(
        ok("clamp_backward(grad, self, min, max)", &vars),
        format!("{F}clamp_backward_tensor(&grad, &self_, (min).as_ref(), (max).as_ref())?")
    );
    assert_eq!(
        ok("clamp_backward(grad, self, smin, std::nullopt)", &vars),
        format!("{F}clamp_backward(&grad, &self_, smin, ::core::option::Option::None)?")
    );
    // `{}` for an `IntArrayRef`.
    assert_eq!(
        ok("norm_jvp(self, grad, p, result, {}, false)", &vars),
        format!(
            "{F}norm_jvp(&self_, &grad, ::core::option::Option::Some(p), &result, &[], false)?"
        )
    );
    assert_eq!(
        tr("sgn_backward(self)", &vars).unwrap_err(),
        ["no overload of `sgn_backward` for these 1 argument"]
    );
}

#[test]
fn constructs_of_cpp_with_a_rust_rendering() {
    let t = Ty::Tensor;
    let vars = [
        ("grad", t.clone()),
        ("self", t.clone()),
        ("shifts", Ty::IntList),
        ("dims", Ty::IntList),
        ("list", Ty::TensorList),
        ("bias", Ty::OptTensor),
        ("weight", Ty::Scalar),
        ("rounding_mode", Ty::OptStr),
        ("grad_U", Ty::OptTensor),
        ("k", Ty::Int),
        ("sizes", Ty::IntList),
    ];
    assert_eq!(
        ok(
            "grad.roll_symint(fmap(reverse_list_symint(shifts), [](c10::SymInt i){return -i;}), dims)",
            &vars
        ),
        format!(
            "try_roll_with(&grad, &::core::iter::Iterator::collect::<::core::result::Result<\
             ::std::vec::Vec<_>, ::opgen_core::Error>>(::core::iter::Iterator::map(\
             ::core::iter::Iterator::cloned(({F}reverse_list(&shifts)?).iter()), |__i| -> \
             ::core::result::Result<_, ::opgen_core::Error> {{ ::core::result::Result::Ok((-__i)) }}))?, \
             RollArgs {{ dims: &dims }})?"
        )
    );
    assert_eq!(
        ok(
            "grad.defined() ? at::unbind(grad) : std::vector<Tensor>(list.size())",
            &vars
        ),
        "if true { ::core::iter::Iterator::collect::<::std::vec::Vec<_>>(::core::iter::Iterator::map(\
         ::core::iter::IntoIterator::into_iter(try_unbind_int(&grad)?), ::core::option::Option::Some)) \
         } else { ::std::vec![::core::option::Option::None; (((list).len() as i64)) as usize] }"
    );
    assert_eq!(
        ok("bias.requires_grad()", &vars),
        "(bias).as_ref().is_some_and(|t| ::opgen_core::autograd::requires_grad(t))"
    );
    assert_eq!(
        ok("self.sym_size(dims.back())", &vars),
        format!("{F}size(&self_, {F}back(&dims)?)?")
    );
    assert_eq!(
        ok("rounding_mode.has_value() ? grad : -grad", &vars),
        "if (rounding_mode).is_some() { ::core::clone::Clone::clone(&(grad)) } else { try_neg(&grad)? }"
    );
    // A method of a tensor that may be undefined (C++ would throw if it were).
    assert_eq!(
        ok(
            "grad_U.defined() ? grad_U.narrow_symint(-1, 0, k) : grad_U",
            &vars
        ),
        format!(
            "if (grad_U).is_some() {{ ::core::option::Option::Some(try_narrow({F}defined((grad_U)\
             .as_ref())?, (-1i64), 0i64, k)?) }} else {{ ::core::clone::Clone::clone(&(grad_U)) }}"
        )
    );
    // Complex scalars stay complex.
    assert_eq!(
        ok("grad * (1 - weight.conj().toComplexDouble())", &vars),
        format!(
            "try_mul_scalar(&grad, {F}scalar_sub(::opgen_core::Scalar::Int(1i64), \
             {F}to_complex_double({F}scalar_conj(weight))))?"
        )
    );
    assert_eq!(
        ok(
            "grad.to_padded_tensor_symint(0.0, at::OptionalArrayRef<c10::SymInt>(sizes))",
            &vars
        ),
        "(grad).try_to_padded_tensor_with(0.0f64, ToPaddedTensorArgs { output_size: \
         (::core::option::Option::Some(sizes)).as_deref() })?"
    );
    assert_eq!(
        ok("self.suggest_memory_format()", &vars),
        format!("{F}suggest_memory_format(&self_)?")
    );
}

#[test]
fn what_stays_cpp_is_reported() {
    let vars = [("self", Ty::Tensor)];
    let nested = "at::native::get_nested_tensor_impl(self)->get_buffer()";
    assert_eq!(
        tr(nested, &vars).unwrap_err(),
        [
            "unsupported C++: `at::native::get_nested_tensor_impl`",
            "no overload of `get_buffer` for these 1 argument"
        ]
    );
    // A forward formula's helper that reads tangents, outside a forward formula.
    assert_eq!(
        tr("cat_jvp(self, 0)", &[("self", Ty::TensorList)]).unwrap_err(),
        [
            "unsupported C++: `cat_jvp` reads the tangents of its list argument: only in a \
          forward formula, of an input list"
        ]
    );
    assert_eq!(
        tr("[](int64_t i){return i;}", &vars).unwrap_err(),
        ["unsupported C++: a lambda outside `fmap`"]
    );
}

/// Where `code` relies on the prelude: a name of the prelude not spelt with its path
/// (`Some(`, `Vec<`, `vec![`), or a method of a prelude trait (`.clone()`, `.map(`).
fn prelude_uses(code: &str) -> Vec<String> {
    let names = [
        "Some(",
        "None",
        "Ok(",
        "Err(",
        "Vec<",
        "Vec::",
        "vec!",
        "String",
        "Box<",
        "Option<",
        "Option::",
        "Result<",
        "Result::",
        "Default::",
        "format!",
        "From<",
        "Into<",
    ];
    let methods = [
        ".clone()",
        ".into_iter()",
        ".map(",
        ".collect",
        ".cloned()",
        ".max(",
        ".min(",
        ".to_string()",
        ".to_owned()",
        ".into()",
        ".from(",
        ".iter().map",
    ];
    let mut found = Vec::new();
    for name in names {
        for (at, _) in code.match_indices(name) {
            let before = &code[..at];
            let ident_before = before.ends_with(|c: char| c.is_alphanumeric() || c == '_');
            if !before.ends_with("::") && !ident_before {
                found.push(name.to_string());
            }
        }
    }
    found.extend(
        (methods.iter())
            .filter(|m| code.contains(*m))
            .map(|m| m.to_string()),
    );
    // A trait's associated function through a type: `T::default()`, `T::from(x)`.
    for f in ["::default()", "::from(", "::try_from(", "::into("] {
        for (at, _) in code.match_indices(f) {
            if !code[..at].ends_with("Default>")
                && !code[..at].ends_with("::core::default::Default")
            {
                found.push(f.to_string());
            }
        }
    }
    found
}

#[test]
fn prelude_uses_are_found() {
    assert_eq!(prelude_uses("(x).clone()"), [".clone()"]);
    assert_eq!(prelude_uses("vec![Some(1)]"), ["Some(", "vec!"]);
    assert!(prelude_uses("::std::vec![::core::option::Option::Some(1)]").is_empty());
    assert!(prelude_uses("::core::clone::Clone::clone(&(x))").is_empty());
    assert_eq!(
        prelude_uses("::opgen_core::TensorOptions::default()"),
        ["::default()"]
    );
    assert!(
        prelude_uses("<::opgen_core::TensorOptions as ::core::default::Default>::default()")
            .is_empty()
    );
}

/// Translated code compiles where the prelude is not in scope (`#![no_implicit_prelude]`,
/// a macro's output in a user's module): every formula of PyTorch's file that translates,
/// written as one module, names everything by its path. (The corpus crate compiles that
/// module in a `#[no_implicit_prelude]` module: `examples/formulas.rs`.)
#[test]
fn translated_code_does_not_rely_on_the_prelude() {
    let options = Options {
        tensor: "Tensor".into(),
        ..Default::default()
    };
    let d = crate::native::derivatives::tests::corpus_derivatives();
    let module = emit_module(d, crate::native::derivatives::tests::corpus(), &options);
    let mut bad: Vec<(String, &str)> = Vec::new();
    for f in module.split("\n/// `").skip(1) {
        let body = f.split_once("\npub fn ").map_or("", |(_, b)| b);
        for what in prelude_uses(body) {
            bad.push((what, f.lines().next().unwrap_or("")));
        }
    }
    assert!(
        bad.is_empty(),
        "{} uses of the prelude, first: {:?}",
        bad.len(),
        &bad[..bad.len().min(10)]
    );
    // The constructs that would: cloned variables, lists of optionals, `fmap`, `std::max`,
    // numbers into `Scalar`s.
    for construct in [
        "::core::clone::Clone::clone(&(",
        "::core::iter::Iterator::collect::<",
        "::core::iter::Iterator::cloned(",
        "::std::vec![",
        "::opgen_core::Scalar::Int(",
    ] {
        assert!(module.contains(construct), "{construct}");
    }
}

#[test]
fn numbers_convert_as_cpps_usual_arithmetic_conversions() {
    let vars = [
        ("p", Ty::Float),
        ("train", Ty::OptBool),
        ("n", Ty::Int),
        ("b", Ty::Bool),
    ];
    // A ternary of an `int` and a `double` is a `double`; a `double` compares with an
    // `int` as a `double`.
    assert_eq!(
        ok(
            "!train.value() ? 1 : (p == 1 ? 0.0 : 1.0 / (1.0 - p))",
            &vars
        ),
        "if !::opgen_core::autograd::functions::value(::core::clone::Clone::clone(&(train)))? \
         { ((1i64) as f64) } else { if (p == ((1i64) as f64)) { 0.0f64 } else { (1.0f64 / (1.0f64 - p)) } }"
    );
}

#[test]
fn optional_of_a_value() {
    let vars = [("self", Ty::Tensor), ("n", Ty::Int)];
    assert_eq!(
        ok("std::optional<c10::SymInt>(n)", &vars),
        "::core::option::Option::Some(n)"
    );
    assert_eq!(
        ok(
            "std::optional<c10::SymInt>(std::optional<c10::SymInt>(n))",
            &vars
        ),
        "::core::option::Option::Some(n)"
    );
    assert_eq!(
        ok("std::max(n, 1.0)", &vars),
        "f64::max(((n) as f64), 1.0f64)"
    );
    assert_eq!(ok("std::max(n, n)", &vars), "::core::cmp::Ord::max(n, n)");
}

#[test]
fn nested_tensor_metadata_and_tangents_of_lists() {
    let vars = [
        ("self", Ty::Tensor),
        ("grads", Ty::OptTensorList),
        ("dim", Ty::Int),
        ("tensors", Ty::TensorList),
        ("tensors_t", Ty::TensorList),
    ];
    assert_eq!(
        ok(
            "unbind_backward_nested(grads, at::native::get_nested_tensor_impl(self)->get_nested_sizes(), dim, self.options())",
            &vars
        ),
        format!(
            "{F}unbind_backward_nested(&grads, &(self_)._try_nested_tensor_size()?, dim, \
             {F}options(&self_)?)?"
        )
    );
    // `cat_jvp` reads the inputs' tangents in C++: they are passed.
    assert_eq!(
        ok("cat_jvp(tensors, dim)", &vars),
        format!(
            "{F}cat_jvp(&tensors, &::core::iter::Iterator::collect::<::std::vec::Vec<_>>(\
             ::core::iter::Iterator::map(::core::iter::IntoIterator::into_iter(tensors_t), \
             ::core::option::Option::Some)), dim)?"
        )
    );
}

#[cfg(feature = "codegen")]
#[test]
fn operators_by_the_names_include_native_functions_gives_them() {
    let natives = crate::native::derivatives::tests::corpus();
    let api = ApiIndex::with_names(natives, &crate::codegen::included_names(natives, "T"));
    let t = Ty::Tensor;
    let mut scope = Scope::default();
    for name in [
        "grad",
        "log_probs",
        "targets",
        "input_lengths",
        "target_lengths",
        "result0",
        "result1",
    ] {
        scope.add(name, name, t.clone());
    }
    scope.add("blank", "blank", Ty::Int);
    scope.add("zero_infinity", "zero_infinity", Ty::Bool);
    let f = "_ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, result0, result1, blank, zero_infinity)";
    let e = parse_formula(f).expect("parses");
    let rust = translate(&e, &scope, &api, &Options::default())
        .expect("translates")
        .rust;
    // Lengths as tensors: the `.Tensor` overload, which the macro names apart.
    assert!(
        rust.starts_with("_try_ctc_loss_backward_tensor_with("),
        "{rust}"
    );
    // By the usual names, both overloads are `_ctc_loss_backward`.
    let usual = translate(&e, &scope, api_usual(), &Options::default())
        .expect("translates")
        .rust;
    assert!(usual.starts_with("_try_ctc_loss_backward_with("), "{usual}");
}

#[cfg(feature = "codegen")]
fn api_usual() -> &'static ApiIndex {
    api()
}
