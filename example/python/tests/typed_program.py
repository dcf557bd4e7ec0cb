"""A small typed program that must pass mypy against the generated stubs."""

from typing import Optional

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
# Autograd: requires_grad on factories and tensors, backward, grad, grad_fn, grad mode.
w: og.Tensor = og.ones(3, requires_grad=True)
w.requires_grad = True
needs: bool = w.requires_grad and w.is_leaf
w2: og.Tensor = w.detach().requires_grad_()
grad: Optional[og.Tensor] = w.grad
w.grad = None
node: Optional[og.autograd.graph.Node] = og.neg(w).grad_fn
name: str = node.name() if node is not None else ""
with og.no_grad():
    og.neg(w)


@og.enable_grad()
def twice(t: og.Tensor) -> og.Tensor:
    return t.add(t)


twice(w).sum().backward(retain_graph=True)
grads: tuple[Optional[og.Tensor], ...] = og.autograd.grad(twice(w).sum(), [w], allow_unused=True)
enabled: bool = og.is_grad_enabled()
# Inference mode, tensor hooks, custom functions.
with og.inference_mode():
    inference: bool = og.is_inference_mode_enabled()


@og.inference_mode(False)
def outside(t: og.Tensor) -> og.Tensor:
    return t.neg()


handle: og.autograd.graph.RemovableHandle = w.register_hook(lambda g: g.neg())
handle.remove()


class Cube(og.autograd.Function):
    @staticmethod
    def forward(ctx: og.autograd.FunctionCtx, x: og.Tensor) -> og.Tensor:
        ctx.save_for_backward(x)
        return x.mul(x).mul(x)

    @staticmethod
    def backward(ctx: og.autograd.FunctionCtx, grad: og.Tensor) -> og.Tensor:
        (x,) = ctx.saved_tensors
        assert x is not None
        return grad.mul(x).mul(x).mul(og.tensor(3.0))


cubed: og.Tensor = Cube.apply(w)
