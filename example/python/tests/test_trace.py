"""The tracer's graph, from Python."""

import opgen_example as og
from conftest import tensor


def test_trace_records_the_calls(a, b):
    with og.tracing(a, b) as t:
        og.add(a, b, alpha=2)
        og.neg(a)
    assert t.graph == (
        "graph(%0 : [2, 3], %1 : [3]):\n"
        "  %2 : [2, 3] = aten::add.Tensor(%0, %1, alpha=2)\n"
        "  %3 : [2, 3] = aten::neg(%0)\n"
    )


def test_nothing_is_recorded_outside(a):
    with og.tracing(a) as t:
        pass
    og.neg(a)
    assert t.graph == "graph(%0 : [2, 3]):\n"
