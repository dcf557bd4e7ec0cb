//! PyTorch's messages for argument errors, word for word.

use super::V::*;
use super::{Target, V, call, t2};

fn t() -> V {
    T(t2())
}

fn err(target: Target<'_>, args: &[V], kwargs: &[(&str, V)]) -> String {
    call(target, args, kwargs).expect_err("the call should fail")
}

#[test]
fn one_signature_reports_its_own_error() {
    let f = Target::Function;
    assert_eq!(
        err(f("sub"), &[t(), List(vec![])], &[("out", N)]),
        "sub(): argument 'other' (position 2) must be Tensor, not list"
    );
    assert_eq!(
        err(f("sub"), &[], &[("input", N), ("other", t())]),
        "sub(): argument 'input' must be Tensor, not NoneType"
    );
    assert_eq!(
        err(f("add"), &[t(), I(2), I(1)], &[]),
        "add() takes 2 positional arguments but 3 were given"
    );
    assert_eq!(
        err(f("sub"), &[t(), t()], &[("x2", t())]),
        "sub() got an unexpected keyword argument 'x2'"
    );
    assert_eq!(
        err(f("add"), &[t(), t()], &[("input", t())]),
        "add() got multiple values for argument 'input'"
    );
    // PyTorch says "arguments" for one, "argument" for several.
    assert_eq!(
        err(f("add"), &[t()], &[]),
        "add() missing 1 required positional arguments: \"other\""
    );
    assert_eq!(
        err(f("add"), &[], &[]),
        "add() missing 2 required positional argument: \"input\", \"other\""
    );
    assert_eq!(
        err(f("matmul"), &[t(), t()], &[("alpha", I(1))]),
        "matmul() got an unexpected keyword argument 'alpha'"
    );
    // Two plausible signatures: the list.
    assert_eq!(
        err(f("mm"), &[t(), t()], &[("alpha", I(1))]),
        "mm() received an invalid combination of arguments - got (Tensor, Tensor, alpha=int), but expected one of:\n \
         * (Tensor input, Tensor mat2, *, Tensor out = None)\n \
         * (Tensor input, Tensor mat2, torch.dtype out_dtype, *, Tensor out = None)\n"
    );
}

#[test]
fn requires_grad_takes_a_bool() {
    // `scalar_tensor` has one Python signature (the functional and out overloads merged).
    let f = Target::Function;
    assert_eq!(
        err(f("scalar_tensor"), &[I(2)], &[("requires_grad", I(1))]),
        "scalar_tensor(): argument 'requires_grad' must be bool, not int"
    );
    assert_eq!(
        call(f("scalar_tensor"), &[I(2)], &[("requires_grad", B(true))]).as_deref(),
        Ok("scalar_tensor")
    );
    assert_eq!(
        call(f("scalar_tensor"), &[I(2)], &[("requires_grad", N)]).as_deref(),
        Ok("scalar_tensor")
    );
}

#[test]
fn no_match_lists_the_signatures() {
    let f = Target::Function;
    assert_eq!(
        err(f("sum"), &[t(), Tup(vec![F(1.5), I(0)])], &[]),
        "sum() received an invalid combination of arguments - got (Tensor, tuple), but expected one of:\n \
         * (Tensor input, *, torch.dtype dtype = None)\n \
         * (Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None)\n"
    );
    // Argument counts that fit get the reason; `*` counts as one, as in PyTorch.
    assert_eq!(
        err(f("max"), &[t(), S("a"), I(1)], &[]),
        "max() received an invalid combination of arguments - got (Tensor, str, int), but expected one of:\n \
         * (Tensor input, *, Tensor out = None)\n      \
         didn't match because some of the arguments have invalid types: (Tensor, !str!, !int!)\n \
         * (Tensor input, Tensor other, *, Tensor out = None)\n \
         * (Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None)\n"
    );
}

#[test]
fn list_items_are_checked() {
    let f = Target::Function;
    // The first item decides the match; a later bad one fails the conversion.
    assert_eq!(
        err(f("sum"), &[t(), Tup(vec![I(0), F(1.5)])], &[]),
        "sum(): argument 'dim' must be tuple of ints, but found element of type float at pos 2"
    );
    assert_eq!(
        err(f("cat"), &[List(vec![t(), I(1)])], &[]),
        "expected Tensor as element 1 in argument 0, but got int"
    );
    assert_eq!(
        err(Target::Method("view"), &[I(2), F(3.0)], &[]),
        "view(): argument 'size' must be tuple of ints, but found element of type float at pos 2"
    );
    assert_eq!(
        err(Target::Method("permute"), &[F(1.0), I(0)], &[]),
        "permute(): argument 'dims' (position 1) must be tuple of ints, but found element of type float at pos 0"
    );
}
