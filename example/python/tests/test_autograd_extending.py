"""Extending autograd from Python, as torch's: tensor hooks (`t.register_hook`) and custom
`autograd.Function`s, on the library's operators."""

import re
import threading

import numpy as np
import pytest

import opgen_example as og


def doubles(values):
    return og.tensor(np.array(values, dtype=np.float64))


def leaf(values):
    return doubles(values).requires_grad_()


class Boom(Exception):
    pass


# Tensor hooks.


def test_a_hook_sees_the_gradient_and_may_replace_it():
    x = leaf([1.0, 2.0])
    h = og.mul(x, doubles([3.0, 3.0]))
    seen = []

    def record(g):
        seen.append(g.tolist())

    def double(g):
        return g * doubles(2.0)

    first, second = h.register_hook(record), h.register_hook(double)
    third = h.register_hook(record)
    assert isinstance(first, og.autograd.graph.RemovableHandle)
    assert len({first.id, second.id, third.id}) == 3
    og.sum(h).backward(retain_graph=True)
    # In order of registration, each on the previous one's result; None keeps the gradient.
    assert seen == [[1.0, 1.0], [2.0, 2.0]]
    assert x.grad.tolist() == [6.0, 6.0]
    second.remove()
    second.remove()  # removing twice does nothing
    x.grad = None
    seen.clear()
    og.sum(h).backward(retain_graph=True)
    assert seen == [[1.0, 1.0], [1.0, 1.0]] and x.grad.tolist() == [3.0, 3.0]
    # As a context manager, the handle removes its hook on exit.
    with h.register_hook(double):
        x.grad = None
        og.sum(h).backward(retain_graph=True)
        assert x.grad.tolist() == [6.0, 6.0]
    x.grad = None
    og.sum(h).backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_a_leafs_hook_changes_what_accumulates_and_what_grad_returns():
    x = leaf([1.0, 2.0])
    handle = x.register_hook(lambda g: g + doubles([10.0, 10.0]))
    y = og.sum(og.mul(x, x))
    y.backward(retain_graph=True)
    assert x.grad.tolist() == [12.0, 14.0]
    (dx,) = og.autograd.grad(y, x, retain_graph=True)
    assert dx.tolist() == [12.0, 14.0]
    handle.remove()
    (dx,) = og.autograd.grad(y, x)
    assert dx.tolist() == [2.0, 4.0]


def test_a_hook_needs_a_tensor_that_requires_grad():
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't require gradient$"):
        doubles([1.0]).register_hook(lambda g: None)
    with pytest.raises(TypeError):
        leaf([1.0]).register_hook(3)


def test_an_exception_in_a_hook_comes_out_of_backward_unchanged():
    x = leaf([1.0])
    raised = Boom("from the hook")

    def explode(g):
        raise raised

    x.register_hook(explode)
    with pytest.raises(Boom) as info:
        og.sum(og.mul(x, x)).backward()
    assert info.value is raised
    assert x.grad is None


def test_what_a_hook_returns_is_checked_as_pytorch_does():
    def check(hook, error, message):
        x = leaf([1.0, 2.0])
        x.register_hook(hook)
        with pytest.raises(error, match=f"^{re.escape(message)}$"):
            og.sum(og.mul(x, x)).backward()

    def number(g):
        return 3

    def smaller(g):
        return doubles([1.0])

    def single(g):
        return og.tensor(np.array([1.0, 2.0], dtype=np.float32))

    check(number, TypeError, "expected Variable, but hook returned 'int'")
    check(smaller, RuntimeError, "hook 'smaller' has changed the size of value")
    check(single, RuntimeError, "hook 'single' has changed the type of value (was CPUDoubleType got CPUFloatType)")


def test_hooks_run_with_the_gil_taken_back_from_a_backward_on_another_thread():
    x = leaf([1.0] * 8)
    y = og.sum(og.mul(x, x))
    seen = []
    x.register_hook(lambda g: seen.append((threading.current_thread().name, len(g.tolist()))))
    thread = threading.Thread(target=y.backward, name="worker")
    thread.start()
    thread.join()
    assert seen == [("worker", 8)] and x.grad.tolist() == [2.0] * 8


# Custom functions.


class Exp(og.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad):
        (result,) = ctx.saved_tensors
        return grad * result


class MulConstant(og.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, k):
        ctx.k = k
        ctx.save_for_backward(w)
        return og.mul(x, w) * doubles(k)

    @staticmethod
    def backward(ctx, grad):
        (w,) = ctx.saved_tensors
        gx = grad * w * doubles(ctx.k) if ctx.needs_input_grad[0] else None
        return gx, None, None


def test_a_custom_function_records_a_node_named_after_its_class():
    x = leaf([0.0, 1.0])
    y = Exp.apply(x)
    assert y.tolist() == pytest.approx([1.0, np.e])
    assert y.grad_fn.name() == "ExpBackward"
    assert repr(y).endswith("grad_fn=<ExpBackward>)")
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    og.sum(og.mul(y, doubles([1.0, 2.0]))).backward()
    assert x.grad.tolist() == pytest.approx([1.0, 2.0 * np.e])


def test_arguments_that_are_not_tensors_and_needs_input_grad():
    x, w = leaf([1.0, 2.0]), doubles([3.0, 4.0])
    y = MulConstant.apply(x, w, 0.5)
    assert y.grad_fn.name() == "MulConstantBackward"
    assert y.grad_fn.next_functions[1] == (None, 0)  # w needs no gradient
    og.sum(y).backward()
    assert x.grad.tolist() == [1.5, 2.0]
    needs = []

    class Record(og.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            needs.append(ctx.needs_input_grad)
            return og.mul(a, b)

        @staticmethod
        def backward(ctx, grad):
            return grad, grad, None

    Record.apply(x, w, 2)
    assert needs == [(True, False, False)]


def test_backwards_results_are_checked_with_pytorchs_messages():
    def run(returned):
        class Bad(og.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * doubles(k)

            @staticmethod
            def backward(ctx, grad):
                return returned(grad)

        x = leaf([1.0])
        og.sum(Bad.apply(x, 2.0)).backward()
        return x.grad

    with pytest.raises(RuntimeError, match=re.escape(
            "function BadBackward returned an incorrect number of gradients (expected 2, got 1)")):
        run(lambda g: g)
    with pytest.raises(RuntimeError, match=re.escape(
            "function BadBackward returned a gradient different than None at position 2, but the "
            "corresponding forward input was not a Variable")):
        run(lambda g: (g, g))
    with pytest.raises(RuntimeError, match=re.escape("expected Variable or None (got str)")):
        run(lambda g: ("no", None))
    # Extra results are accepted when they are all None.
    assert run(lambda g: (g * doubles(3.0), None, None, None)).tolist() == [3.0]


def test_an_exception_in_backward_comes_out_unchanged():
    raised = Boom("from backward")

    class Fails(og.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * doubles(2.0)

        @staticmethod
        def backward(ctx, grad):
            raise raised

    x = leaf([1.0])
    with pytest.raises(Boom) as info:
        og.sum(Fails.apply(x)).backward()
    assert info.value is raised


def test_saved_tensors_are_freed_unless_the_graph_is_retained():
    x = leaf([1.0])
    s = og.sum(Exp.apply(x))
    s.backward(retain_graph=True)
    s.backward()
    assert x.grad.tolist() == pytest.approx([2.0 * np.e])
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        s.backward()
    with pytest.raises(TypeError, match="^save_for_backward can only save variables, but argument 1 is of type int$"):

        class Saves(og.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 1)
                return x * doubles(1.0)

        Saves.apply(x)


def test_several_outputs_non_differentiable_ones_and_materialized_gradients():
    for materialize in (True, False):
        seen = []

        class Split(og.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                a, b = x * doubles(2.0), x + doubles(1.0)
                ctx.mark_non_differentiable(b)
                ctx.set_materialize_grads(materialize)
                return a, b, "label"

            @staticmethod
            def backward(ctx, ga, gb):
                seen.append(None if gb is None else gb.tolist())
                return ga * doubles(2.0)

        x = leaf([1.0, 2.0])
        a, b, label = Split.apply(x)
        assert label == "label"
        assert a.grad_fn.name() == "SplitBackward" and not b.requires_grad and b.grad_fn is None
        og.sum(a).backward()
        assert x.grad.tolist() == [2.0, 2.0]
        assert seen == [[0.0, 0.0] if materialize else None]


def test_forward_with_setup_context_and_keyword_arguments():
    class Scale(og.autograd.Function):
        @staticmethod
        def forward(x, k=3.0):
            return x * doubles(k)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, grad):
            return grad * doubles(ctx.k), None

    x = leaf([1.0])
    og.sum(Scale.apply(x)).backward()
    og.sum(Scale.apply(x, k=10.0)).backward()
    assert x.grad.tolist() == [13.0]
    with pytest.raises(TypeError, match="^apply\\(\\) takes no keyword arguments$"):
        MulConstant.apply(x, doubles([1.0]), k=2.0)


def test_nothing_is_recorded_in_no_grad_and_an_input_returned_is_a_new_tensor():
    class Identity(og.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            assert not og.is_grad_enabled()  # forward runs with grad mode off
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = leaf([1.0, 2.0])
    with og.no_grad():
        y = Exp.apply(x)
    assert y.grad_fn is None and not y.requires_grad
    same = Identity.apply(x)
    assert same is not x and same.grad_fn.name() == "IdentityBackward" and x.is_leaf
    og.sum(same).backward()
    assert x.grad.tolist() == [1.0, 1.0]
    assert Exp.apply(doubles([0.0])).grad_fn is None


def test_the_base_class_asks_for_forward_and_backward():
    class NoForward(og.autograd.Function):
        pass

    with pytest.raises(NotImplementedError, match="^You must implement the forward function for custom autograd.Function.$"):
        NoForward.apply(leaf([1.0]))

    class NoBackward(og.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * doubles(2.0)

    with pytest.raises(NotImplementedError, match="^You must implement either the backward or vjp method"):
        og.sum(NoBackward.apply(leaf([1.0]))).backward()


def test_custom_functions_compose_with_operators_and_autograd_grad():
    x = leaf([0.5])
    y = Exp.apply(og.mul(x, x))
    (dx,) = og.autograd.grad(y, x)
    assert dx.tolist() == pytest.approx([2 * 0.5 * np.exp(0.25)])
    assert x.grad is None


def test_a_custom_functions_backward_is_recorded_with_create_graph():
    class Cube(og.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return og.mul(og.mul(x, x), x)

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return og.mul(grad, og.mul(og.mul(x, x), doubles(3.0)))

    x = leaf([2.0])
    (dx,) = og.autograd.grad(og.sum(Cube.apply(x)), x, create_graph=True)
    assert dx.tolist() == [12.0] and dx.grad_fn is not None
    (ddx,) = og.autograd.grad(dx, x)
    assert ddx.tolist() == [12.0]  # 6x
