"""Shared helpers of the opgen_example tests."""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import opgen_example as og  # noqa: E402


def tensor(values, dtype=np.float32, device="cpu"):
    return og.tensor(np.array(values, dtype=dtype), device=device)


def traced(fn, *inputs):
    """The operators `fn(*inputs)` calls, as `ns::op.overload` (from the tracer)."""
    with og.tracing(*inputs) as t:
        fn(*inputs)
    ops = []
    for line in t.graph.splitlines()[1:]:
        call = line.split(" = ", 1)[1]
        ops.append(call.split("(", 1)[0])
    return ops


@pytest.fixture
def a():
    return tensor([[1, 2, 3], [4, 5, 6]])


@pytest.fixture
def b():
    return tensor([10, 20, 30], dtype=np.int64)
