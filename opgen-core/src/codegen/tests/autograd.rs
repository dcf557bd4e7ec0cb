//! Operators with derivative formulas: their expansion (one snapshot), and every mistake in
//! the formulas as one error at the formula with its rule.

use proc_macro2::TokenStream;
use quote::quote;

use super::{errors, expand};

fn mul(derivatives: TokenStream) -> (TokenStream, TokenStream) {
    (
        quote!("mul.Tensor(Tensor self, Tensor other) -> Tensor", dispatch = "CPU", #derivatives),
        quote!(
            fn mul_cpu(a: &MyTensor, b: &MyTensor) -> MyTensor {
                a.clone()
            }
        ),
    )
}

fn errors_of(derivatives: TokenStream) -> Vec<String> {
    let (args, item) = mul(derivatives);
    errors(args, item)
}

#[test]
fn mul_saves_each_operand_for_the_other_gradient() {
    let (args, item) = mul(quote!(derivatives(
        self = "mul_tensor_backward(grad, other, self.scalar_type())",
        other = "mul_tensor_backward(grad, self, other.scalar_type())",
        result = "other_t * self_p + self_t * other_p",
    )));
    let out = expand(args, item);
    super::snapshots::check("mul_autograd", &out);
    // `self` is saved when `other`'s gradient is needed, and the other way round.
    assert!(out.contains("self_: ::opgen::__private::autograd::save(__opgen_mask[1], self_)"));
    assert!(out.contains("other: ::opgen::__private::autograd::save(__opgen_mask[0], other)"));
    assert!(out.contains("\"MulBackward0\""));
    assert!(out.contains("::opgen::autograd::functional("));
}

#[test]
fn an_unknown_variable_is_reported_at_it() {
    let got = errors_of(quote!(derivatives(
        self = "grad * othr",
        other = "grad * self"
    )));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("unknown variable `othr` in the formula of `self` [R110]\n  grad * othr\n         ^^^^\nhelp: did you mean `other`?"),
        "{}",
        got[0]
    );
}

#[test]
fn an_input_without_formula_must_be_marked() {
    let got = errors_of(quote!(derivatives(self = "grad * other")));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("input `other` of `mul.Tensor` has no derivative formula and is not marked non-differentiable [R115]"),
        "{}",
        got[0]
    );
    // Marked, it is checked at run time (it must not require grad).
    let out = expand(
        quote!(
            "f(Tensor self, Tensor other) -> Tensor",
            dispatch = "CPU",
            derivatives(self = "grad", other = "non_differentiable")
        ),
        quote!(
            fn f_cpu(a: &MyTensor, b: &MyTensor) -> MyTensor {
                a.clone()
            }
        ),
    );
    assert!(!out.contains("check_no_requires_grad"), "{out}");
    let out = expand(
        quote!(
            "f(Tensor self, Tensor other) -> Tensor",
            dispatch = "CPU",
            derivatives(self = "grad", other = "not_implemented(\"f\")")
        ),
        quote!(
            fn f_cpu(a: &MyTensor, b: &MyTensor) -> MyTensor {
                a.clone()
            }
        ),
    );
    assert!(out.contains("not_implemented"), "{out}");
}

#[test]
fn grad_and_grads_do_not_mix() {
    let got = errors(
        quote!(
            "f(Tensor self) -> (Tensor a, Tensor b)",
            dispatch = "CPU",
            derivatives(self = "grad + grads[1]")
        ),
        quote!(
            fn f_cpu(a: &MyTensor) -> (MyTensor, MyTensor) {
                (a.clone(), a.clone())
            }
        ),
    );
    assert!(
        got.iter().any(|e| e.starts_with(
            "derivative definition of `f` illegally mixes use of `grad` and `grads` [R107]"
        )),
        "{got:#?}"
    );
}

#[test]
fn output_differentiability_has_one_flag_per_return() {
    let got = errors_of(quote!(derivatives(
        self = "grad * other",
        other = "grad * self",
        output_differentiability = [true, false],
    )));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].contains("[R105]"), "{}", got[0]);
}

#[test]
fn a_key_that_is_no_argument_is_reported_at_the_key() {
    let got = errors_of(quote!(derivatives(
        self = "grad * other",
        other = "grad * self",
        selff = "grad"
    )));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("`selff` is neither an argument nor an output of `mul.Tensor`")
            && got[0].contains("[R104]\nhelp: did you mean `self`?"),
        "{}",
        got[0]
    );
}

#[test]
fn a_function_that_is_neither_operator_nor_helper_is_reported() {
    let got = errors_of(quote!(derivatives(
        self = "my_backward(grad, other)",
        other = "grad * self"
    )));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("the formula of `self` calls `my_backward` (2 arguments), which is neither an ATen operator nor a helper of `opgen::autograd::functions`"),
        "{}",
        got[0]
    );
}

#[test]
fn rust_formulas_use_rust_names_and_save_what_they_name() {
    let (args, item) = mul(quote!(derivatives(
        self = "rust: try_mul(&grad, &other)?",
        other = "rust: try_mul(&grad, &self_)?",
    )));
    let out = expand(args, item);
    assert!(
        out.contains("let __opgen_value = try_mul(&grad, &other)?;"),
        "{out}"
    );
    assert!(out.contains("self_: ::opgen::__private::autograd::save(__opgen_mask[1], self_)"));
    let got = errors_of(quote!(derivatives(
        self = "rust: try_mul(&grad,",
        other = "grad"
    )));
    assert!(
        got[0].starts_with("the Rust formula of `self` is not an expression"),
        "{got:#?}"
    );
}

#[test]
fn formulas_belong_to_the_operator_not_to_a_kernel_of_it() {
    let got = errors(
        quote!(
            op = "aten::mul.Tensor",
            dispatch = "CPU",
            derivatives(self = "grad", other = "grad")
        ),
        quote!(
            fn mul_cpu(a: &MyTensor, b: &MyTensor) -> MyTensor {
                a.clone()
            }
        ),
    );
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("`derivatives` describes the operator"),
        "{}",
        got[0]
    );
}

/// Whether `out` holds `code`, whitespace aside (the expansion is pretty-printed).
fn holds(out: &str, code: &str) -> bool {
    // Without whitespace and the trailing commas the printer adds.
    let squash = |s: &str| {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        s.replace(",)", ")").replace(",>", ">")
    };
    squash(out).contains(&squash(code))
}

#[test]
fn a_functional_operator_lends_its_formulas_to_in_place_and_out_variants() {
    let (args, item) = mul(quote!(derivatives(
        self = "grad * other",
        other = "grad * self"
    )));
    let out = expand(args, item);
    // For the tuple of its arguments; the in-place kernel saves `self` as a clone.
    for code in [
        "impl<'a> ::opgen::__private::formulas::InplaceFormulas<(&'a MyTensor, &'a MyTensor)> for mul",
        "impl<'a> ::opgen::__private::formulas::OutFormulas<(&'a MyTensor, &'a MyTensor)> for mul",
        "name: \"mul_\"",
        "self_: ::opgen::__private::autograd::save_original(__opgen_mask[1], self_)?",
        "(lib, key, __opgen_autograd, \"VariableType::mul_Tensor\", site)",
    ] {
        assert!(holds(&out, code), "{code}\n{out}");
    }
}

#[test]
fn an_in_place_operator_borrows_the_functional_formulas() {
    let out = expand(
        quote!(
            "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
            dispatch = "CPU",
            derivatives(functional)
        ),
        quote!(
            fn mul_inplace_cpu(a: &mut MyTensor, b: &MyTensor) {}
        ),
    );
    for code in [
        "<mul as ::opgen::__private::formulas::InplaceFormulas<(&MyTensor, &MyTensor)>>::inplace(__opgen_ks, (&__opgen_h0, other),",
        "(lib, key, __opgen_autograd, \"VariableType::mul__Tensor\", site)",
    ] {
        assert!(holds(&out, code), "{code}\n{out}");
    }
    // No node of its own.
    assert!(!out.contains("Backward<MyTensor> for"), "{out}");
    let out = expand(
        quote!(
            "sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)",
            dispatch = "CPU",
            derivatives(functional = ops::sum_dim_int_list)
        ),
        quote!(
            fn sum_out_cpu(
                a: &MyTensor,
                dim: Option<&[i64]>,
                keepdim: bool,
                dtype: Option<ScalarType>,
                out: &mut MyTensor,
            ) {
            }
        ),
    );
    let code = "<ops::sum_dim_int_list as ::opgen::__private::formulas::OutFormulas<(&MyTensor, ::core::option::Option<&[i64]>, bool, ::core::option::Option<::opgen::ScalarType>)>>::out(__opgen_ks, (self_, dim, keepdim, dtype), &[::opgen::autograd::Input::from(&__opgen_h4)],";
    assert!(holds(&out, code), "{code}\n{out}");
}

#[test]
fn functional_is_for_in_place_and_out_operators_alone() {
    let got = errors_of(quote!(derivatives(functional)));
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].starts_with("`derivatives(functional)` lends a functional operator's formulas to its in-place and out variants, but `mul.Tensor` is not one of those"),
        "{}",
        got[0]
    );
    let got = errors(
        quote!(
            "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
            dispatch = "CPU",
            derivatives(functional, self = "grad")
        ),
        quote!(
            fn mul_inplace_cpu(a: &mut MyTensor, b: &MyTensor) {}
        ),
    );
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(got[0].starts_with("`derivatives(functional)` takes every formula of the functional operator; `self` cannot be added to them"), "{}", got[0]);
}
