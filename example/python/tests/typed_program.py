"""A small typed program that must pass mypy against the generated stubs."""

import numpy as np

import opgen_example as og

a: og.Tensor = og.tensor(np.ones((2, 3), dtype=np.float32))
b: og.Tensor = og.add(a, a, alpha=2)
c: og.Tensor = a.add(b).neg()
d: og.Tensor = a + b - c
m = og.max(a, 0)
values: og.Tensor = m.values
indices: og.Tensor = m.indices
s: og.Tensor = og.sum(a, [1], keepdim=True, dtype=og.float64)
z: og.Tensor = og.zeros([2, 3], dtype=og.int64, device="cpu")
v: og.Tensor = a.view(3, 2)
shape: tuple[int, ...] = a.shape
n: int = a.dim()
out: og.Tensor = og.add(a, a, out=z)
with og.tracing(a) as tracing:
    og.neg(a)
graph: str = tracing.graph
