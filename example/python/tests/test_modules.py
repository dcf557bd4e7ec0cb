"""Functions placed by `python_module`, as torch.nn.functional, torch.linalg, torch.special."""

import sys

import numpy as np

from conftest import tensor
import opgen_example as og

T = og._testing


def test_submodules_take_their_functions(a):
    # linalg_twice → linalg.twice, special_same → special.same: the prefix goes, as in
    # torch.linalg; nn functions keep their names in nn.functional.
    assert T.linalg.twice(a).tolist() == (a * 2).tolist()
    assert T.special.same(a) is a
    assert T.nn.functional.gelu_like(a) is a
    # Not at the top level, and importable as modules.
    assert not hasattr(T, "linalg_twice") and not hasattr(T, "gelu_like")
    assert sys.modules["opgen_example._testing.nn.functional"] is T.nn.functional
    import opgen_example._testing.linalg as linalg  # noqa: F401

    assert linalg.twice(a).shape == (2, 3)


def test_the_stubs_have_a_file_per_submodule():
    assert {"linalg.pyi", "special.pyi", "nn/functional.pyi", "nn/__init__.pyi"} <= set(T._stubs)
    assert "def twice(A: Tensor) -> Tensor: ..." in T._stubs["linalg.pyi"]


def test_reflected_dunders_call_the_function_with_swapped_arguments(a):
    b = og.tensor(np.ones((3, 2), dtype=np.float32))
    assert og.Tensor.__rmatmul__(b, a).tolist() == (a @ b).tolist()
    assert og.Tensor.__radd__(a, 1).tolist()[0] == [2, 3, 4]
