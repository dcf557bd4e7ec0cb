"""`ops.<ns>.<op>.<overload>` (torch.ops) and the overload packets."""

import numpy as np
import pytest

import opgen_example as og
from conftest import tensor


def test_every_operator_has_its_overload_object():
    catalog = __import__("json").loads(og._catalog())
    for f in catalog["functions"]:
        ns = f["namespace"] or "aten"
        packet = getattr(getattr(og.ops, ns), f["operator_name"])
        overload = getattr(packet, f["overload"] or "default")
        assert callable(overload)


def test_an_overload_takes_the_schemas_arguments(a):
    assert og.ops.aten.add.Tensor(a, a, alpha=2).tolist()[0] == [3, 6, 9]
    with pytest.raises(TypeError) as e:
        og.ops.aten.add.Tensor(a, a, 2)
    assert str(e.value) == "aten::add() takes 2 positional arguments but 3 were given"
    assert og.ops.aten.neg.default(a).tolist()[0] == [-1, -2, -3]
    assert og.ops.aten.sum.dim_IntList(a, [0]).tolist() == [5, 7, 9]


def test_the_packet_picks_the_overload(a):
    assert og.ops.aten.add(a, a).tolist()[0] == [2, 4, 6]
    assert og.ops.aten.add(a, 1).tolist()[0] == [2, 3, 4]
    out = og.zeros(2, 3)
    assert og.ops.aten.add(a, a, out=out) is out
    assert og.ops.aten.max(a, 0)[0].tolist() == og.ops.aten.max.dim(a, 0)[0].tolist()
    assert og.ops.aten.sum.overloads() == ["default", "dim_IntList", "IntList_out"]
    assert og.ops.aten.add._qualified_op_name == "aten::add"


def test_ops_return_plain_tuples(a):
    result = og.ops.aten.max.dim(a, 0)
    assert type(result) is tuple and len(result) == 2
