"""The tour of the example library (example/src/tour.rs), from Python.

Run it with ``bash example/python/run.sh`` (builds the module in a virtual environment).
"""

import json
from collections import Counter

import numpy as np

import opgen_example as og


def heading(title, explanation):
    print(f"\n== {title}")
    print(explanation)


def inputs(device="cpu"):
    """`a`, a float32 matrix, and `b`, an int64 vector."""
    a = og.tensor(np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32), device=device)
    b = og.tensor(np.array([10, 20, 30], dtype=np.int64), device=device)
    return a, b


def program(a, b):
    """The program of sections 1 to 3: each result with how it was computed."""
    total = og.add(a, b, alpha=2)
    reduced = og.sum(a, [1], keepdim=True, dtype=og.float64)
    result = og.max(a, dim=0)
    product = a @ a.transpose(0, 1)
    return [
        ("add(a, b, alpha=2)", total),
        ("sum(a, [1], keepdim=True, dtype=float64)", reduced),
        ("max(a, dim=0).values", result.values),
        ("max(a, dim=0).indices", result.indices),
        ("a @ a.transpose(0, 1)", product),
    ]


def main():
    print("opgen tour, from Python: MiniTensor and its ATen operators through opgen-python")

    heading(
        "1. Eager on the CPU",
        "Each call parses its arguments as PyTorch does and goes through the dispatcher to a CPU kernel.",
    )
    a, b = inputs()
    print(f"a = {a}")
    print(f"b = {b}")
    for what, t in program(a, b):
        print(f"{what:<42} = {t}")
    v = a.select(0, 1)
    before = a._version
    # mul_ has no Scalar overload in the example and MiniTensor has no wrapped numbers, so
    # the factor is a zero-dim tensor (as in the Rust tour).
    v.mul_(og.tensor(10))
    print(f"{'v = a.select(0, 1); v.mul_(tensor(10))':<42} : a = {a}")
    print(f"version counters (ADInplaceOrView)         : a {before} -> {a._version}, v {v._version}")
    print(f"{'a.numpy() (a copy, for NumPy)':<42} = {a.numpy().tolist()}")

    heading(
        "2. The same program on Meta",
        "Meta tensors have shapes and dtypes but no data: the Meta kernels only check and infer.",
    )
    a, b = inputs(device="meta")
    for what, t in program(a, b):
        print(f"{what:<42} = {t}")

    heading(
        "3. A trace of the program",
        "While tracing, the Tracer kernels record each call: operator, inputs, shapes.",
    )
    a, b = inputs()
    with og.tracing(a, b) as tracing:
        program(a, b)
    print(tracing.graph, end="")

    heading(
        "4. One overload by name, and the overload packet",
        "ops.<ns>.<op>.<overload> takes the schema's own arguments; ops.<ns>.<op> picks the overload.",
    )
    sum_dim = og.ops.aten.sum.dim_IntList
    print(f"ops.aten.sum.dim_IntList                 = {sum_dim}")
    print(f"ops.aten.sum.dim_IntList(a, [0])         = {sum_dim(a, [0])}")
    print(f"ops.aten.sum.overloads()                 = {og.ops.aten.sum.overloads()}")
    print(f"ops.aten.add(a, 2) picks                 = {og.ops.aten.add(a, 2)}")
    try:
        og.add(a, "2")
    except TypeError as e:
        print(f"add(a, '2') raises TypeError             : {str(e).splitlines()[0]}")

    heading(
        "5. The dispatch table of one operator",
        "Which kernel serves each dispatch key: the CPU and Meta kernels, the cross-cutting ones.",
    )
    print(og._dispatch_table("aten::mul_.Tensor"))

    heading(
        "6. An external backend through the CPU fallback",
        "privateuseone tensors hold data; the fallback runs the CPU kernel, views have their own.",
    )
    x = og.tensor(np.array([0.0, 1.0, 2.0], dtype=np.float32), device="privateuseone")
    print(f"x = {x}")
    print(f"{'x.exp()':<42} = {x.exp()}")
    y = x
    y += x
    print(f"{'y = x; y += x (add_, copied back)':<42} : x = {x}, version {x._version}, y is x: {y is x}")
    v = x.select(0, 2)
    v.fill_(7)
    print(f"{'x.select(0, 2).fill_(7) (a view kernel)':<42} : x = {x}")

    heading(
        "7. The catalog",
        "_catalog(): every operator as data, the format of `opgen json`.",
    )
    catalog = json.loads(og._catalog())
    kinds = Counter(f["kind"] for f in catalog["functions"])
    keys = Counter(k for f in catalog["functions"] for k in f["dispatch_keys"] or [])
    by_count = lambda c: ", ".join(f"{k} {n}" for k, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))
    print(f"{len(catalog['functions'])} operators: {by_count(kinds)}")
    print(f"kernels by key: {by_count(keys)}")

    heading(
        "8. Learning by gradient descent",
        "A two-layer perceptron fits y = x0 * x1 on a grid; the gradients come from the\n"
        "Autograd kernels generated from PyTorch's derivative formulas.",
    )
    learning()


def learning():
    ticks = [-1.0, -0.5, 0.0, 0.5, 1.0]
    grid = np.array([[a, b] for a in ticks for b in ticks], dtype=np.float32)
    x, y = og.tensor(grid), og.tensor(grid.prod(axis=1, keepdims=True))
    rng = np.random.default_rng(1)
    params = [
        og.tensor(rng.uniform(-1, 1, size=(2, 8)).astype(np.float32)).requires_grad_(),
        og.tensor(rng.uniform(-0.5, 0.5, size=8).astype(np.float32)).requires_grad_(),
        og.tensor(rng.uniform(-0.5, 0.5, size=(8, 1)).astype(np.float32)).requires_grad_(),
        og.zeros(1, requires_grad=True),
    ]
    w1, b1, w2, b2 = params
    for step in range(201):
        err = (x.mm(w1) + b1).relu().mm(w2) + b2 - y
        loss = (err * err).mean()
        if step % 40 == 0:
            print(f"step {step:>3}: loss {loss.item():.5f} ({loss.grad_fn.name()})")
        loss.backward()
        with og.no_grad():
            for p in params:
                p -= 0.2 * p.grad
                p.grad = None


if __name__ == "__main__":
    main()
