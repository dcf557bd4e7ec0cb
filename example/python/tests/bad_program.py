"""A program with mistakes the stubs must make mypy report (one per line)."""

import numpy as np

import opgen_example as og

a = og.tensor(np.ones((2, 3), dtype=np.float32))
og.add(a, "x")
og.max(a, 0).valuez
a.no_such_method()
og.sum(a, dim="0")
x: str = og.neg(a)
og.ones(2, requires_grad="yes")
