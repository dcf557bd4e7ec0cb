"""`out=`: the out overload, written in place and returned (the same object)."""

import numpy as np

import opgen_example as og
from conftest import tensor


def test_out_is_written_and_returned(a):
    out = og.zeros(2, 3)
    result = og.add(a, a, out=out)
    assert result is out
    assert out.tolist() == [[2, 4, 6], [8, 10, 12]]


def test_out_of_another_shape_is_resized(a):
    out = og.zeros(1)
    og.sum(a, [1], out=out)
    assert out.shape == (2,) and out.tolist() == [6, 15]


def test_several_outs_are_a_tuple_and_come_back_named(a):
    values, indices = og.zeros(3), og.zeros(3, dtype=og.int64)
    result = og.max(a, 0, out=(values, indices))
    assert result.values is values and result.indices is indices
    assert type(result).__name__ == "max_out"
    assert values.tolist() == [4, 5, 6] and indices.tolist() == [1, 1, 1]


def test_out_none_is_the_functional_overload(a):
    assert og.add(a, a, out=None).tolist()[0] == [2, 4, 6]


def test_the_out_overload_by_name(a):
    out = og.zeros(2, 3)
    assert og.ops.aten.add.out(a, a, out=out) is out
    T = og._testing
    copy = og.zeros(2, 3)
    assert T.copyof(a, out=copy) is copy
    assert copy.tolist() == a.tolist()
