"""Overload choice against PyTorch's.

Each row is a call and the operator PyTorch's argument parser picks for it, worked out from
its rules (`sort_overloads`: Tensor before Scalar, int before Tensor only where torchgen says
so; the first signature that matches wins; one int for `int[1]`; `out=` picks the out
overload). The operator reached is read from the tracer. Where PyTorch reaches a different
operator only because it turns Python numbers into wrapped tensors (which MiniTensor does not
have), the row says so and gives both.
"""

import numpy as np
import pytest

import opgen_example as og
from conftest import tensor, traced

T = og._testing


def t():
    return tensor([[1, 2, 3], [4, 5, 6]])


def z():
    return og.tensor(np.array(2.0, dtype=np.float32))


ROWS = [
    # call, PyTorch's choice, our choice if different (and why)
    (lambda: og.add(t(), t()), "aten::add.Tensor", None),
    (lambda: og.add(t(), t(), alpha=2), "aten::add.Tensor", None),
    (lambda: og.add(t(), t(), out=t()), "aten::add.out", None),
    (lambda: og.add(t(), 2), "aten::add.Tensor", "aten::add.Scalar"),  # wrapped number in PyTorch
    (lambda: og.sub(t(), 2, 3), "aten::sub.Tensor", "aten::sub.Scalar"),
    (lambda: og.add(t(), z()), "aten::add.Tensor", None),
    (lambda: og.sum(t()), "aten::sum", None),
    (lambda: og.sum(t(), dtype=og.float64), "aten::sum", None),
    (lambda: og.sum(t(), 1), "aten::sum.dim_IntList", None),
    (lambda: og.sum(t(), (0, 1), True), "aten::sum.dim_IntList", None),
    (lambda: og.sum(t(), axis=0), "aten::sum.dim_IntList", None),
    (lambda: og.sum(t(), [0], out=tensor([0, 0, 0])), "aten::sum.IntList_out", None),
    (lambda: og.max(t(), 0), "aten::max.dim", None),
    (lambda: og.max(t(), dim=1, keepdim=True), "aten::max.dim", None),
    (lambda: og.max(t(), 0, out=(tensor([0, 0, 0]), og.tensor(np.zeros(3, dtype=np.int64)))), "aten::max.dim_max", None),
    (lambda: og.mean(t()), "aten::mean", None),
    (lambda: og.mean(t(), [0]), "aten::mean.dim", None),
    (lambda: og.clamp(t(), 0, 1), "aten::clamp", None),
    (lambda: og.clamp(t(), min=2.5), "aten::clamp", None),
    (lambda: og.eq(t(), 1), "aten::eq.Scalar", None),
    (lambda: og.eq(t(), t()), "aten::eq.Tensor", None),
    (lambda: og.eq(t(), z()), "aten::eq.Tensor", None),
    (lambda: og.gt(t(), 2), "aten::gt.Scalar", None),
    (lambda: og.where(og.gt(t(), 2), t(), t()), "aten::where.self", None),
    (lambda: og.zeros(2, 3), "aten::zeros", None),
    (lambda: og.zeros((2, 3), dtype=og.int64), "aten::zeros", None),
    (lambda: og.full((2,), 1.5), "aten::full", None),
    (lambda: og.arange(5), "aten::arange", None),
    (lambda: og.arange(1, 5), "aten::arange.start", None),
    (lambda: og.arange(1, 5, 2), "aten::arange.start_step", None),
    (lambda: og.cat([t(), t()], 1), "aten::cat", None),
    (lambda: og.topk(t(), 2), "aten::topk", None),
    (lambda: t().view(3, 2), "aten::view", None),
    (lambda: t().transpose(0, 1), "aten::transpose.int", None),
    (lambda: t().select(0, 1), "aten::select.int", None),
    (lambda: t().max(0), "aten::max.dim", None),
    (lambda: t().add(t(), alpha=3), "aten::add.Tensor", None),
    (lambda: t().add_(t()), "aten::add_.Tensor", None),
    (lambda: t().mul(2), "aten::mul.Tensor", "aten::mul.Scalar"),  # wrapped number in PyTorch
    (lambda: t().div(2), "aten::div.Tensor", "aten::div.Scalar"),  # wrapped number in PyTorch
]


@pytest.mark.parametrize("row", ROWS, ids=[str(i) for i in range(len(ROWS))])
def test_overload_choice(row):
    call, pytorch, ours = row
    ops = traced(call)
    assert ops[-1] == (ours or pytorch), f"PyTorch reaches {pytorch}; expected {ours or pytorch}, traced {ops}"


@pytest.mark.parametrize(
    "args, overload",
    [
        # pick.Tensor, pick.float, pick.Scalar, pick.int: Tensor first; `int` is smaller than
        # `Tensor` only; a float parameter takes ints and bools (THPUtils_checkDouble).
        ((1,), "float"),
        ((True,), "float"),
        ((2.5,), "float"),
        ((1 + 2j,), "Scalar"),
        (("zero_dim",), "Tensor"),
    ],
)
def test_packet_and_function_pick_as_pytorch(args, overload):
    x = tensor([1.0])
    args = tuple(og.tensor(np.array(3)) if a == "zero_dim" else a for a in args)
    assert T.pick(x, *args).split(":")[0] == overload
    assert T.ops.t.pick(x, *args).split(":")[0] == overload


def test_the_packet_lists_every_overload():
    assert sorted(T.ops.t.pick.overloads()) == ["Scalar", "Tensor", "float", "int"]
    why = "      didn't match because some of the arguments have invalid types: (Tensor, !str!)\n"
    expected = (
        "pick() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        " * (Tensor x, Tensor a)\n" + why
        + " * (Tensor x, float a)\n" + why
        + " * (Tensor x, Number a)\n" + why
        + " * (Tensor x, int a)\n" + why
    )
    with pytest.raises(TypeError) as e:
        T.pick(tensor([1.0]), "x")
    assert str(e.value) == expected
    with pytest.raises(TypeError) as e:
        T.ops.t.pick(tensor([1.0]), "x")
    assert str(e.value) == expected.replace("pick()", "t::pick()")
