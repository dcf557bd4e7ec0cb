"""Tensor methods and PyTorch's dunder operators."""

import numpy as np
import pytest

import opgen_example as og
from conftest import tensor


def test_methods_are_method_descriptors(a):
    assert og.Tensor.add.__name__ == "add"
    assert "other" in og.Tensor.add.__doc__
    bound = a.add
    assert bound(a).tolist() == (a + a).tolist()
    assert og.Tensor.add(a, a).tolist() == [[2, 4, 6], [8, 10, 12]]


def test_a_method_checks_its_receiver(a):
    with pytest.raises(TypeError, match="descriptor 'add' for 'Tensor' objects doesn't apply to a 'int' object"):
        og.Tensor.add(1, a)


def test_arithmetic_dunders(a, b):
    assert (a + b).tolist() == [[11, 22, 33], [14, 25, 36]]
    assert (a - a).tolist() == [[0, 0, 0], [0, 0, 0]]
    assert (a * a).tolist()[0] == [1, 4, 9]
    assert (a / a).tolist()[1] == [1, 1, 1]
    assert (a @ a.transpose(0, 1)).tolist() == [[14, 32], [32, 77]]
    assert (-a).tolist()[0] == [-1, -2, -3]
    assert abs(-a).tolist()[0] == [1, 2, 3]


def test_numbers_use_the_scalar_overloads(a):
    assert (a + 1).tolist()[0] == [2, 3, 4]
    assert (1 + a).tolist()[0] == [2, 3, 4]  # __radd__
    assert (a * 2).tolist()[0] == [2, 4, 6]
    assert (2 * a).tolist()[0] == [2, 4, 6]
    assert (a - 1).tolist()[0] == [0, 1, 2]
    assert (a / 2).tolist()[0] == [0.5, 1, 1.5]


def test_in_place_dunders_return_self(a, b):
    c = og.clone(a)
    d = c
    d += a
    assert d is c
    assert c.tolist()[0] == [2, 4, 6]
    assert c._version == 1
    d *= a
    assert d is c and c.tolist()[0] == [2, 8, 18]
    d -= a
    d /= a
    assert c.tolist()[0] == [1, 3, 5]


def test_in_place_methods_return_the_same_object(a):
    c = og.clone(a)
    assert c.add_(a) is c
    assert c.zero_() is c
    assert c.tolist() == [[0, 0, 0], [0, 0, 0]]


def test_comparisons(a):
    assert (a == a).tolist() == [[True] * 3] * 2
    assert (a > 3).tolist() == [[False, False, False], [True, True, True]]
    assert (a < 2).tolist()[0] == [True, False, False]
    # A TypeError becomes NotImplemented: Python falls back to identity.
    assert (a == "x") is False
    assert (a != "x") is True


def test_unsupported_operand_types(a):
    with pytest.raises(TypeError, match="unsupported operand type"):
        a + "x"


def test_views_share_data_and_version(a):
    v = a.select(0, 1)
    v.fill_(0)
    assert a.tolist() == [[1, 2, 3], [0, 0, 0]]
    assert a._version == v._version == 1


def test_no_arguments_for_a_no_argument_method(a):
    with pytest.raises(TypeError, match=r"^neg\(\) takes 0 positional arguments but 1 was given$"):
        a.neg(1)


def test_builtin_members(a):
    assert a.shape == (2, 3) and a.ndim == 2 and a.dim() == 2
    assert a.size() == (2, 3) and a.size(-1) == 3 and a.stride() == (3, 1)
    assert a.numel() == 6 and len(a) == 2
    assert a.dtype is og.float32 and a.device == og.device("cpu")
    assert og.sum(a).item() == 21.0
    assert float(og.sum(a)) == 21.0 and int(og.sum(a)) == 21 and bool(og.sum(a))
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(a)
    with pytest.raises(IndexError, match="Dimension out of range"):
        a.size(2)
