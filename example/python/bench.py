"""Python call overhead on a tiny tensor with a no-op kernel, all cases in one run (timeit).

`bench::noop(Tensor self) -> Tensor` returns its argument; `bench::alias_noop` returns a new
handle (a view), so its case includes wrapping a new tensor object. A plain Python function
is the baseline of the same run. The timer is the process's CPU time (`time.process_time`):
on a shared machine the time spent waiting for a core does not count (cache misses caused by
other processes still do; the ratio to the baseline is the steadier figure).

    bash example/python/run.sh bench
"""

import os
import sys
import time
import timeit

# NumPy's BLAS threads would compete for the two cores; the benchmark needs none.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import opgen_example as og  # noqa: E402

NUMBER = 200_000
REPEAT = 7


def main():
    t = og.tensor(np.zeros(1, dtype=np.float32))
    noop_default = og.ops.bench.noop.default
    cases = {
        "baseline: plain Python call f(t)": ("f(t)", {"f": lambda x: x, "t": t}),
        "ops.bench.noop.default(t)": ("ops.bench.noop.default(t)", {"ops": og.ops, "t": t}),
        "overload object cached: noop_default(t)": ("noop_default(t)", {"noop_default": noop_default, "t": t}),
        "generated function: noop(t)": ("noop(t)", {"noop": og.noop, "t": t}),
        "generated method: t.noop()": ("t.noop()", {"t": t}),
        "new tensor object: t.alias_noop()": ("t.alias_noop()", {"t": t}),
        "ops.bench.noop(t) (overload packet)": ("ops.bench.noop(t)", {"ops": og.ops, "t": t}),
        "t + t (dunder, add.Tensor kernel)": ("t + t", {"t": t}),
    }
    results = {}
    for name, (stmt, env) in cases.items():
        timer = timeit.Timer(stmt, timer=time.process_time, globals=env)
        best = min(timer.repeat(number=NUMBER, repeat=REPEAT))
        results[name] = best / NUMBER * 1e9
    base = results["baseline: plain Python call f(t)"]
    print(f"python {sys.version.split()[0]}, {NUMBER} calls x {REPEAT} repeats, best")
    print(f"{'case':<45} {'ns/call':>8} {'x baseline':>11}")
    for name, ns in results.items():
        print(f"{name:<45} {ns:8.1f} {ns / base:11.2f}")


if __name__ == "__main__":
    main()
