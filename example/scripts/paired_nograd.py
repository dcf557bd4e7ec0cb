#!/usr/bin/env python3
"""Paired wall-clock measurement of the Autograd kernel when no input requires grad.

Runs `examples/callgrind CASE N time` for `fresh` (an operator without an Autograd kernel)
and `fresh_ag` (the same kernel, with a generated Autograd kernel) in alternating processes,
the order swapped every round, so that a drift of the machine's speed falls on both; each
process times only its N calls. Prints the median of the per-round differences
(`fresh_ag - fresh`, ns per call) with its interquartile range.

    cargo build --release -p opgen-example --example callgrind
    python3 example/scripts/paired_nograd.py target/release/examples/callgrind [ROUNDS] [N]
"""

import statistics
import subprocess
import sys


def per_call(binary: str, case: str, n: int) -> float:
    out = subprocess.run(
        [binary, case, str(n), "time"], check=True, capture_output=True, text=True
    )
    return float(out.stdout.strip())


def quantile(sorted_values: list, q: float) -> float:
    return sorted_values[round((len(sorted_values) - 1) * q)]


def main() -> None:
    binary = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 201
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 200_000
    diffs, plain, kernel = [], [], []
    for r in range(rounds):
        if r % 2 == 0:
            a = per_call(binary, "fresh", n)
            b = per_call(binary, "fresh_ag", n)
        else:
            b = per_call(binary, "fresh_ag", n)
            a = per_call(binary, "fresh", n)
        plain.append(a)
        kernel.append(b)
        diffs.append(b - a)
    diffs.sort()
    print(
        f"{rounds} rounds of {n} calls: fresh median {statistics.median(plain):.2f} ns, "
        f"fresh_ag median {statistics.median(kernel):.2f} ns"
    )
    print(
        f"fresh_ag - fresh: median {quantile(diffs, 0.5):+.2f} ns, "
        f"interquartile range [{quantile(diffs, 0.25):+.2f}, {quantile(diffs, 0.75):+.2f}] ns"
    )


if __name__ == "__main__":
    main()
