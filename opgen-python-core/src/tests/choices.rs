//! Overload choice against PyTorch's: for each call, the operator `torch.<fn>(...)` or
//! `Tensor.<method>(...)` reaches in PyTorch, worked out from PythonArgParser's rules
//! (`sort_overloads`, the first signature that matches wins, `Scalar` after `Tensor`,
//! numbers as tensors for `add`/`sub`/`mul`/`div` whose `Scalar` overloads are not bound,
//! one int for `int[1]`, varargs int lists, `out=` selecting the out overload).

use opgen_core::dispatch::ScalarType;

use super::V::*;
use super::{Target, V, call, t0, t2};

fn f(name: &str) -> Target<'_> {
    Target::Function(name)
}

fn m(name: &str) -> Target<'_> {
    Target::Method(name)
}

fn t() -> V {
    T(t2())
}

fn z() -> V {
    T(t0(3))
}

/// A call (target, positional arguments, keyword arguments) and PyTorch's choice for it.
type Row = (
    Target<'static>,
    Vec<V>,
    Vec<(&'static str, V)>,
    &'static str,
);

#[rustfmt::skip]
fn table() -> Vec<Row> {
    vec![
        // add.Scalar has no Python binding: the number becomes a wrapped tensor.
        (f("add"), vec![t(), t()], vec![], "add.Tensor"),
        (f("add"), vec![t(), I(2)], vec![], "add.Tensor"),
        (f("add"), vec![t(), F(2.5)], vec![("alpha", I(2))], "add.Tensor"),
        (f("add"), vec![t(), t()], vec![("out", t())], "add.out"),
        (f("add"), vec![], vec![("x", t()), ("other", t())], "add.Tensor"),
        (f("sub"), vec![t(), I(1)], vec![], "sub.Tensor"),
        (f("mul"), vec![t(), B(true)], vec![], "mul.Tensor"),
        // div: Tensor_mode sorts first but needs its keyword-only rounding_mode.
        (f("div"), vec![t(), t()], vec![], "div.Tensor"),
        (f("div"), vec![t(), I(2)], vec![("rounding_mode", S("floor"))], "div.Tensor_mode"),
        (f("div"), vec![t(), t()], vec![("rounding_mode", N), ("out", t())], "div.out_mode"),
        // sum(input, *, dtype) sorts before sum(input, int[1]? dim, ...).
        (f("sum"), vec![t()], vec![], "sum"),
        (f("sum"), vec![t()], vec![("dtype", Dtype(ScalarType::Double))], "sum"),
        (f("sum"), vec![t(), I(1)], vec![], "sum.dim_IntList"),
        (f("sum"), vec![t(), Tup(vec![I(0), I(1)]), B(true)], vec![], "sum.dim_IntList"),
        (f("sum"), vec![t()], vec![("axis", I(0))], "sum.dim_IntList"),
        (f("sum"), vec![t(), List(vec![I(0)])], vec![("out", t())], "sum.IntList_out"),
        // max: (input), (input, Tensor other), (input, int dim, ...) in that order.
        (f("max"), vec![t()], vec![], "max"),
        (f("max"), vec![t(), I(0)], vec![], "max.dim"),
        (f("max"), vec![t(), t()], vec![], "max.other"),
        (f("max"), vec![t()], vec![("dim", I(1)), ("keepdim", B(true))], "max.dim"),
        (f("max"), vec![t(), I(0)], vec![("out", Tup(vec![t(), t()]))], "max.dim_max"),
        (f("max"), vec![t(), t()], vec![("out", t())], "max.out"),
        (f("max"), vec![t()], vec![("out", t())], "max.unary_out"),
        (f("max"), vec![t(), z()], vec![], "max.other"),
        (f("mean"), vec![t()], vec![], "mean"),
        (f("mean"), vec![t(), List(vec![I(0)])], vec![], "mean.dim"),
        (f("mean"), vec![t()], vec![("dtype", Dtype(ScalarType::Double)), ("out", t())], "mean.dtype_out"),
        // std: std.dim, std.correction, std (by string; no order between them).
        (f("std"), vec![t()], vec![], "std.correction"),
        (f("std"), vec![t(), I(0)], vec![], "std.dim"),
        (f("std"), vec![t(), B(true)], vec![], "std"),
        (f("std"), vec![t()], vec![("unbiased", B(false))], "std"),
        (f("std"), vec![t(), I(0)], vec![("correction", I(0))], "std.correction"),
        // all.dims (int[]? dim) sorts before all.dim (int dim), but one int is not an int[].
        (f("all"), vec![t()], vec![], "all"),
        (f("all"), vec![t(), I(0)], vec![], "all.dim"),
        (f("all"), vec![t(), Tup(vec![I(0), I(1)])], vec![], "all.dims"),
        (f("all"), vec![t(), N], vec![], "all.dims"),
        // clamp(Scalar?) is smaller than clamp.Tensor(Tensor?).
        (f("clamp"), vec![t(), I(0), I(1)], vec![], "clamp"),
        (f("clamp"), vec![t(), t(), t()], vec![], "clamp.Tensor"),
        (f("clamp"), vec![t()], vec![("min", F(0.5))], "clamp"),
        (f("clamp"), vec![t()], vec![], "clamp.Tensor"),
        (f("clamp"), vec![t(), I(0)], vec![("out", t())], "clamp.out"),
        // where: (condition), self, ScalarSelf, ScalarOther, Scalar.
        (f("where"), vec![t(), t(), t()], vec![], "where.self"),
        (f("where"), vec![t(), t(), F(1.0)], vec![], "where.ScalarOther"),
        (f("where"), vec![t(), F(1.0), t()], vec![], "where.ScalarSelf"),
        (f("where"), vec![t(), F(1.0), I(2)], vec![], "where.Scalar"),
        (f("where"), vec![t()], vec![], "where"),
        (f("where"), vec![t(), z(), I(2)], vec![], "where.ScalarOther"),
        // pow: Tensor_Tensor, then Scalar, then Tensor_Scalar; a zero-dim tensor is a Scalar.
        (f("pow"), vec![t(), I(2)], vec![], "pow.Tensor_Scalar"),
        (f("pow"), vec![t(), t()], vec![], "pow.Tensor_Tensor"),
        (f("pow"), vec![I(2), t()], vec![], "pow.Scalar"),
        (f("pow"), vec![z(), t()], vec![], "pow.Tensor_Tensor"),
        (f("pow"), vec![z(), I(2)], vec![], "pow.Tensor_Scalar"),
        (f("eq"), vec![t(), I(1)], vec![], "eq.Scalar"),
        (f("eq"), vec![t(), t()], vec![], "eq.Tensor"),
        (f("eq"), vec![t(), z()], vec![], "eq.Tensor"),
        // Factories: varargs sizes, out= picks the out overload.
        (f("zeros"), vec![I(2), I(3)], vec![], "zeros"),
        (f("zeros"), vec![Tup(vec![I(2), I(3)])], vec![], "zeros"),
        (f("zeros"), vec![List(vec![I(2)])], vec![("dtype", Dtype(ScalarType::Double))], "zeros"),
        (f("zeros"), vec![Tup(vec![I(2)])], vec![("out", t())], "zeros.out"),
        (f("full"), vec![Tup(vec![I(2)]), F(1.5)], vec![], "full"),
        (f("full"), vec![Tup(vec![I(2)]), F(1.5)], vec![("out", t())], "full.out"),
        (f("arange"), vec![I(5)], vec![], "arange"),
        (f("arange"), vec![I(1), I(5)], vec![], "arange.start"),
        (f("arange"), vec![I(1), I(5), I(2)], vec![], "arange.start_step"),
        (f("arange"), vec![I(5)], vec![("out", t())], "arange.out"),
        (f("arange"), vec![I(1), I(5)], vec![("out", t())], "arange.start_out"),
        (f("cat"), vec![List(vec![t(), t()])], vec![], "cat"),
        (f("cat"), vec![Tup(vec![t(), t()]), I(1)], vec![], "cat"),
        (f("topk"), vec![t(), I(2)], vec![("largest", B(false))], "topk"),
        (f("transpose"), vec![t(), I(0), I(1)], vec![], "transpose.int"),
        (f("select"), vec![t(), I(0), I(1)], vec![], "select.int"),
        (f("einsum"), vec![S("ij->ji"), List(vec![t()])], vec![], "einsum"),
        // Methods: self is the receiver.
        (m("view"), vec![I(2), I(3)], vec![], "view"),
        (m("view"), vec![Tup(vec![I(6)])], vec![], "view"),
        (m("view"), vec![I(-1)], vec![], "view"),
        (m("view"), vec![Dtype(ScalarType::Int)], vec![], "view.dtype"),
        (m("add"), vec![I(2)], vec![], "add.Tensor"),
        (m("add_"), vec![t()], vec![("alpha", I(3))], "add_.Tensor"),
        (m("max"), vec![], vec![], "max"),
        (m("max"), vec![I(0)], vec![], "max.dim"),
        (m("sum"), vec![], vec![("dim", Tup(vec![I(0), I(1)]))], "sum.dim_IntList"),
        (m("permute"), vec![I(1), I(0)], vec![], "permute"),
        (m("expand"), vec![I(2), I(3)], vec![], "expand"),
        (m("reshape"), vec![I(3), I(2)], vec![], "reshape"),
        (m("masked_fill"), vec![t(), I(0)], vec![], "masked_fill.Scalar"),
        (m("masked_fill"), vec![t(), z()], vec![], "masked_fill.Tensor"),
        (m("where"), vec![t(), t()], vec![], "where.self"),
    ]
}

#[test]
fn overloads_are_chosen_as_pytorch_chooses_them() {
    let mut wrong = Vec::new();
    for (target, args, kwargs, want) in table() {
        match call(target, &args, &kwargs) {
            Ok(got) if got == want => {}
            other => wrong.push(format!(
                "{target:?} with {} args, {:?}: want {want}, got {other:?}",
                args.len(),
                kwargs.iter().map(|k| k.0).collect::<Vec<_>>()
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn signatures_are_tried_in_pytorchs_order() {
    let c = super::corpus();
    let names = |b: &crate::Binding| -> Vec<String> {
        b.overloads
            .iter()
            .map(|o| o.signature.to_string())
            .collect()
    };
    assert_eq!(
        names(&c.bindings.functions[""]["where"]),
        [
            "(Tensor condition)",
            "(Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
            "(Tensor condition, Number self, Tensor other)",
            "(Tensor condition, Tensor input, Number other)",
            "(Tensor condition, Number self, Number other)",
        ]
    );
    assert_eq!(
        names(&c.bindings.functions[""]["max"]),
        [
            "(Tensor input, *, Tensor out = None)",
            "(Tensor input, Tensor other, *, Tensor out = None)",
            "(Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)",
        ]
    );
    // add.Scalar is not bound: one signature.
    assert_eq!(
        names(&c.bindings.functions[""]["add"]),
        ["(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"]
    );
    assert_eq!(
        names(&c.bindings.methods["add"]),
        ["(Tensor other, *, Number alpha = 1)"]
    );
}

#[test]
fn without_wrapped_numbers_the_scalar_overloads_stay() {
    let c = super::corpus();
    let b = crate::Bindings::new(&c.ops, crate::SignatureOptions::default());
    let add: Vec<String> = b.functions[""]["add"]
        .overloads
        .iter()
        .map(|o| o.signature.to_string())
        .collect();
    assert_eq!(
        add,
        [
            "(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)",
            "(Tensor input, Number other, Number alpha = 1)",
        ]
    );
}

#[test]
fn python_modules_place_functions() {
    let c = super::corpus();
    assert!(c.bindings.functions["linalg"].contains_key("det"));
    assert!(c.bindings.functions["fft"].contains_key("fft"));
    assert!(c.bindings.functions["special"].contains_key("expit"));
    assert!(c.bindings.functions["nn.functional"].contains_key("gelu"));
    // A python_module function is not a torch.* function nor a method.
    assert!(!c.bindings.functions[""].contains_key("linalg_det"));
    assert!(!c.bindings.methods.contains_key("gelu"));
    // The skip lists: backward functions, `to`, generated variants.
    assert!(!c.bindings.functions[""].contains_key("max_pool2d_with_indices_backward"));
    assert!(!c.bindings.methods.contains_key("to"));
    assert!(c.bindings.methods.contains_key("contiguous"));
}
