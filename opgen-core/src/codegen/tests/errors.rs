//! The messages of the checks, in process (the ui tests freeze them with their spans).

use quote::quote;

use super::errors;

#[test]
fn every_problem_of_a_stage_is_reported_at_once() {
    let got = errors(
        quote!(
            "f(Tensor self, Tensor(a!) out, int n) -> Tensor",
            dispatch = "CPU"
        ),
        quote!(
            fn f_cpu(self_: &MyTensor, out: &MyTensor, n: i32) -> MyTensor {
                self_.clone()
            }
        ),
    );
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(
        got[0].starts_with("parameter `out` is `&MyTensor`, but the schema writes `out`"),
        "{}",
        got[0]
    );
    assert_eq!(got[1], "parameter `n` is `i32` but `int` needs `i64`");
}

#[test]
fn attribute_and_kernel_problems_come_together() {
    let got = errors(
        quote!(
            "f(Tensor self) -> Tensor",
            dispatch = "Cpu",
            methods = "both"
        ),
        quote!(
            async fn f_cpu(self_: &MyTensor) -> MyTensor {
                self_.clone()
            }
        ),
    );
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(
        got[0].contains("unknown dispatch key `Cpu`") && got[0].contains("did you mean `CPU`?"),
        "{}",
        got[0]
    );
    assert!(
        got[1].starts_with("unknown `methods` value `both`"),
        "{}",
        got[1]
    );
    assert!(got[2].contains("cannot be `async`"), "{}", got[2]);
}

#[test]
fn yaml_hints_are_written_as_options() {
    let got = errors(
        quote!("randn_like2(Tensor self) -> Tensor", dispatch = "CPU"),
        quote!(
            fn r_cpu(self_: &MyTensor) -> MyTensor {
                self_.clone()
            }
        ),
    );
    assert!(
        got[0].contains("help: add `tags = \"nondeterministic_seeded\"`"),
        "{}",
        got[0]
    );
}

#[test]
fn written_alias_returns_may_be_unit_but_not_anything_else() {
    let got = errors(
        quote!("relu_(Tensor(a!) self) -> Tensor(a!)", dispatch = "CPU"),
        quote!(
            fn relu_cpu_(self_: &mut MyTensor) -> i64 {
                0
            }
        ),
    );
    assert_eq!(
        got,
        [
            "kernel `relu_cpu_` returns `i64` but `-> Tensor(a!)` needs `MyTensor` (or a `Result` of it, \
          or `()` (the written arguments are returned))"
        ]
    );
}

#[test]
fn an_inferred_operator_must_not_shadow_its_kernel() {
    let got = errors(
        quote!(),
        quote!(
            fn scale(self_: &MyTensor) -> MyTensor {
                self_.clone()
            }
        ),
    );
    assert!(
        got[0].starts_with("cannot name the inferred operator: it would be `scale`"),
        "{}",
        got[0]
    );
}

#[test]
fn inferred_schema_problems_show_the_inferred_schema() {
    let got = errors(
        quote!(dispatch = "CPU"),
        quote!(
            fn rand_cpu(self_: &MyTensor) -> MyTensor {
                self_.clone()
            }
        ),
    );
    assert!(
        got[0].starts_with("in the schema inferred from kernel `rand_cpu`:\n")
            && got[0].lines().nth(1).is_some_and(|l| l.ends_with("[R67]")),
        "{}",
        got[0]
    );
    assert!(
        got[0].contains("  rand(Tensor self) -> Tensor\n"),
        "{}",
        got[0]
    );
}

#[test]
fn the_tensor_type_must_be_one() {
    let got = errors(
        quote!("add(Tensor self, Tensor other) -> Tensor"),
        quote!(
            fn add_cpu(self_: &MyTensor, other: &Other) -> MyTensor {
                self_.clone()
            }
        ),
    );
    assert_eq!(
        got,
        ["parameter `other` is `&Other` but `Tensor` needs `&MyTensor`"]
    );
}

/// The attribute refuses a default that repeats into a huge fixed-size list (R86), rather
/// than building the list in the compiler.
#[test]
fn a_default_repeated_into_a_huge_list_is_an_error() {
    let got = errors(
        quote!("f(Tensor self, int[4294967295] x=0) -> Tensor"),
        quote!(
            fn f_cpu(self_: &MyTensor, x: &[i64]) -> MyTensor {
                self_.clone()
            }
        ),
    );
    assert_eq!(got.len(), 1, "{got:#?}");
    assert!(
        got[0].contains("repeats into more than 64 items [R86]"),
        "{}",
        got[0]
    );
}
