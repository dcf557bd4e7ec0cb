"""Instructions per call (valgrind's callgrind), the steady figure behind bench.py's times.

Each case runs in a loop of N and of 2N calls under callgrind; the difference divided by N
is the cost of one call with its loop iteration, whatever else the machine is doing.

    bash example/python/run.sh instructions
"""

import os
import re
import subprocess
import sys
import tempfile

N = 10_000

CASES = {
    "baseline: plain Python call f(t)": "f(t)",
    "ops.bench.noop.default(t)": "ops.bench.noop.default(t)",
    "generated function: noop(t)": "noop(t)",
    "generated method: t.noop()": "t.noop()",
    "new tensor object: t.alias_noop()": "t.alias_noop()",
}

LOOP = """
import numpy as np
import opgen_example as og
from opgen_example import ops, noop
t = og.tensor(np.zeros(1, dtype=np.float32))
f = lambda x: x
def run():
    for _ in range({n}):
        {stmt}
run()
"""


def instructions(stmt, n):
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "loop.py")
        with open(script, "w") as f:
            f.write(LOOP.format(n=n, stmt=stmt))
        out = os.path.join(tmp, "callgrind.out")
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, script],
            capture_output=True,
            text=True,
            env=env,
        )
        match = re.search(r"Collected : (\d+)", result.stderr)
        if not match:
            raise RuntimeError(result.stderr)
        return int(match.group(1))


def main():
    print(f"instructions per call (callgrind, {N} and {2 * N} calls)")
    for name, stmt in CASES.items():
        per_call = (instructions(stmt, 2 * N) - instructions(stmt, N)) / N
        print(f"{name:<45} {per_call:8.0f}")


if __name__ == "__main__":
    main()
