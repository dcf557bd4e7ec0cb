"""PythonArgParser's rules and messages (torch/csrc/utils/python_arg_parser.cpp)."""

import numpy as np
import pytest

import opgen_example as og
from conftest import tensor

T = og._testing


def test_positional_keyword_and_defaults(a):
    assert T.kw(a, k=3) == "Tensor Float[2, 3], int 3"
    assert T.defaults() == "int 1, float 0.5, bool true, str \"x\", int[] [3, 3], None, int 2"
    assert T.defaults(5, g=1.5, e=(1, 2)) == (
        "int 5, float 0.5, bool true, str \"x\", int[] [1, 2], None, float 1.5"
    )


def test_keyword_only_arguments_only_by_keyword(a):
    # PyTorch counts required keyword-only arguments in the minimum: "from 2 to 1".
    with pytest.raises(TypeError) as e:
        T.kw(a, 3)
    assert str(e.value) == "kw() takes from 2 to 1 positional arguments but 2 were given"


def test_missing_arguments_use_pytorchs_words(a):
    # PyTorch's message says "arguments" for one missing argument.
    with pytest.raises(TypeError, match=r'^kw\(\) missing 1 required positional arguments: "k"$'):
        T.kw(a)
    with pytest.raises(TypeError) as e:
        og.matmul()
    assert str(e.value) == 'matmul() missing 2 required positional argument: "input", "other"'


def test_too_many_positional(a):
    with pytest.raises(TypeError) as e:
        og.matmul(a, a, a)
    assert str(e.value) == "matmul() takes 2 positional arguments but 3 were given"
    # Several signatures, one plausible by count: its own error.
    with pytest.raises(TypeError) as e:
        og.sum(a, 1, True, og.float64)
    assert str(e.value) == "sum() takes from 2 to 3 positional arguments but 4 were given"


def test_unexpected_and_duplicate_keywords(a):
    with pytest.raises(TypeError) as e:
        og.matmul(a, a, alpha=2)
    assert str(e.value) == "matmul() got an unexpected keyword argument 'alpha'"
    with pytest.raises(TypeError) as e:
        og.matmul(a, a, input=a)
    assert str(e.value) == "matmul() got multiple values for argument 'input'"


def test_wrong_types_name_the_argument(a):
    with pytest.raises(TypeError) as e:
        og.matmul(a, "x")
    assert str(e.value) == "matmul(): argument 'other' (position 2) must be Tensor, not str"
    with pytest.raises(TypeError) as e:
        og.matmul(a, other=None)
    assert str(e.value) == "matmul(): argument 'other' must be Tensor, not NoneType"
    with pytest.raises(TypeError) as e:
        og.transpose(a, 0, "1")
    assert str(e.value) == "transpose(): argument 'dim1' (position 3) must be int, not str"
    # One int for a lone int-list parameter is the varargs form, as `view(3)`.
    assert T.echo_int_list(np.int64(3)) == "int[] [3]"


def test_no_match_lists_the_signatures(a):
    with pytest.raises(TypeError) as e:
        og.add(a, "2")
    assert str(e.value) == (
        "add() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        " * (Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)\n"
        " * (Tensor input, Number other, Number alpha = 1)\n"
    )


def test_list_items(a):
    with pytest.raises(TypeError) as e:
        og.sum(a, (0, 1.5))
    assert str(e.value) == "sum(): argument 'dim' must be tuple of ints, but found element of type float at pos 2"
    with pytest.raises(TypeError) as e:
        og.cat([a, 1])
    assert str(e.value) == "expected Tensor as element 1 in argument 0, but got int"
    with pytest.raises(TypeError) as e:
        a.view(2, 3.0)
    assert str(e.value) == "view(): argument 'size' must be tuple of ints, but found element of type float at pos 2"


def test_numpy_style_keywords(a):
    assert og.sum(a, axis=1).tolist() == [6.0, 15.0]
    assert og.sum(a, dim=1, keepdims=True).tolist() == [[6.0], [15.0]]


def test_varargs_int_lists(a):
    assert a.view(3, 2).shape == (3, 2)
    assert a.view((3, 2)).shape == (3, 2)
    assert a.view(-1).shape == (6,)
    assert og.zeros(2, 3).shape == (2, 3)


def test_big_ints_overflow(a):
    with pytest.raises(RuntimeError, match="^Overflow when unpacking long$"):
        T.echo_int(2**70)


def test_dispatcher_errors_are_pytorchs_exceptions(a):
    with pytest.raises(NotImplementedError, match=r"Could not run 't::cpu_only' with arguments from the 'Meta' backend\."):
        T.cpu_only(og.zeros(2, device="meta"))
    with pytest.raises(RuntimeError, match="fails\\(\\) always fails"):
        T.fails(a)
    with pytest.raises(RuntimeError, match="must match the size"):
        og.add(a, tensor([1, 2]))
