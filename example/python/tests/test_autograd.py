"""Autograd from Python, as torch's: requires_grad (tensor members and factories), leaves and
their gradients, backward(), detach(), grad, grad mode, autograd.grad / autograd.backward.

Two groups. The first needs no derivative formula: leaves, flags, errors, grad mode. The
second goes through the library's operators (`og.mul`, `og.sum`, `t.exp()`, ...), whose
Autograd kernels are generated from PyTorch's derivative formulas.
"""

import re
import warnings

import numpy as np
import pytest

import opgen_example as og
from conftest import tensor


def doubles(values):
    return og.tensor(np.array(values, dtype=np.float64))


def leaf(values):
    return doubles(values).requires_grad_()


def values(t):
    return t.tolist()


NOT_REQUIRING = "element 0 of tensors does not require grad and does not have a grad_fn"
LEAF_ONLY = "you can only change requires_grad flags of leaf variables."
DETACH_HINT = (
    " If you want to use a computed variable in a subgraph that doesn't require "
    "differentiation use var_no_grad = var.detach()."
)


# Leaves, flags and the engine's checks: no derivative formula needed.


def test_a_new_tensor_is_a_leaf_that_does_not_require_grad(a):
    assert a.requires_grad is False
    assert a.is_leaf is True
    assert a.grad is None and a.grad_fn is None
    assert a.retains_grad is False


def test_requires_grad_property_and_method():
    x = doubles([1.0, 2.0])
    x.requires_grad = True
    assert x.requires_grad and x.is_leaf
    x.requires_grad = False
    assert not x.requires_grad
    # requires_grad_ works in place and returns the same object.
    assert x.requires_grad_() is x and x.requires_grad
    assert x.requires_grad_(False) is x and not x.requires_grad
    assert x.requires_grad_(requires_grad=True).requires_grad
    # Every handle of the tensor sees it (a method returning self returns the same tensor).
    assert og.tensor([1.0]).requires_grad_().requires_grad


def test_requires_grad_refuses_integers_and_non_bools():
    i = og.tensor([1, 2])
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require gradients$"):
        i.requires_grad = True
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        i.requires_grad_()
    i.requires_grad_(False)
    assert not i.requires_grad
    with pytest.raises(RuntimeError, match="^requires_grad must be a bool$"):
        doubles([1.0]).requires_grad = 1


def test_factories_take_requires_grad():
    for t in [
        og.zeros(2, 3, requires_grad=True),
        og.ones([2], requires_grad=True),
        og.full((2,), 1.5, requires_grad=True),
        og.empty(3, requires_grad=True),
        og.arange(0.0, 3.0, requires_grad=True),
        og.zeros(2, dtype=og.float64, device="meta", requires_grad=True),
    ]:
        assert t.requires_grad and t.is_leaf and t.grad is None, t
    assert not og.zeros(2).requires_grad
    assert not og.zeros(2, requires_grad=False).requires_grad
    assert not og.zeros(2, requires_grad=None).requires_grad
    assert og.zeros(2, dtype=og.float64, requires_grad=True).dtype is og.float64
    for make in (lambda: og.zeros(2, dtype=og.int64, requires_grad=True), lambda: og.arange(5, requires_grad=True)):
        with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
            make()
    # A bool, as PyTorch's parser requires (PyTorch, which also binds zeros.names, lists its
    # two signatures instead); only factories take it.
    with pytest.raises(TypeError, match="^zeros\\(\\): argument 'requires_grad' must be bool, not int$"):
        og.zeros(2, requires_grad=1)
    with pytest.raises(TypeError, match="^neg\\(\\) got an unexpected keyword argument 'requires_grad'$"):
        og.neg(doubles([1.0]), requires_grad=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'requires_grad'"):
        og.ops.aten.zeros.default([2], requires_grad=True)


def test_tensor_takes_requires_grad():
    t = og.tensor([1.0, 2.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert not og.tensor([1.0], requires_grad=False).requires_grad
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        og.tensor([1, 2], requires_grad=True)
    with pytest.raises(TypeError, match="^tensor\\(\\): argument 'requires_grad' must be bool, not int$"):
        og.tensor([1.0], requires_grad=1)


def test_backward_on_a_scalar_leaf_accumulates_ones():
    s = leaf(3.0)
    s.backward()
    assert values(s.grad) == 1.0 and s.grad.dtype is og.float64
    first = s.grad
    s.backward()
    assert values(s.grad) == 2.0
    assert values(first) == 1.0  # accumulated out of place
    s.grad = None
    s.backward()
    assert values(s.grad) == 1.0
    del s.grad
    assert s.grad is None


def test_backward_with_a_gradient_adds_it_up():
    x = leaf([1.0, 2.0, 3.0])
    x.backward(doubles([0.5, 1.0, -1.0]))
    x.backward(gradient=doubles([1.0, 1.0, 1.0]))
    assert values(x.grad) == [1.5, 2.0, 0.0]
    og.autograd.backward(x, grad_tensors=doubles([1.0, 0.0, 0.0]))
    og.autograd.backward([x], [doubles([1.0, 0.0, 0.0])])
    assert values(x.grad) == [3.5, 2.0, 0.0]


def test_backward_refuses_what_pytorch_refuses():
    with pytest.raises(RuntimeError, match=f"^{NOT_REQUIRING}$"):
        doubles([1.0]).backward()
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        x.backward()
    with pytest.raises(RuntimeError, match=re.escape(
            "Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape of torch.Size([2]).")):
        x.backward(doubles([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="^gradients can be either Tensors or None, but got int$"):
        x.backward([3])
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        x.backward(3)
    with pytest.raises(RuntimeError, match="^`inputs` argument to `backward\\(\\)` cannot be empty.$"):
        x.backward(doubles([1.0, 1.0]), inputs=[])
    assert x.grad is None


def test_grad_assignment_checks_the_tensor():
    x = leaf([1.0, 2.0])
    x.grad = doubles([0.5, 0.5])
    assert values(x.grad) == [0.5, 0.5]
    with pytest.raises(RuntimeError, match=re.escape(
            "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. "
            "Please ensure that the gradient and the tensor are the same size")):
        x.grad = doubles([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient with dtype 'Float' to a tensor with grad_dtype 'Double'"):
        x.grad = og.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient with device type 'meta' to a tensor with device type 'cpu'"):
        x.grad = og.zeros(2, dtype=og.float64, device="meta")
    with pytest.raises(TypeError, match="^assigned grad expected to be a Tensor or None but got grad of type int$"):
        x.grad = 3
    with pytest.raises(RuntimeError, match="^can't assign Variable as its own grad$"):
        x.grad = x
    assert values(x.grad) == [0.5, 0.5]


def test_detach_shares_data_but_not_history():
    x = leaf([1.0, 2.0])
    d = x.detach()
    assert d is not x and not d.requires_grad and d.is_leaf
    # The same data and version counter: a write through d is seen by x.
    d.mul_(doubles(10.0))
    assert values(x.detach()) == [10.0, 20.0]
    assert x._version == d._version == 1
    with pytest.raises(RuntimeError, match=re.escape(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")):
        x.numpy()
    assert x.tolist() == [10.0, 20.0]


def test_no_grad_and_enable_grad_are_context_managers_and_decorators():
    assert og.is_grad_enabled()
    with og.no_grad():
        assert not og.is_grad_enabled()
        with og.enable_grad():
            assert og.is_grad_enabled()
        assert not og.is_grad_enabled()
    assert og.is_grad_enabled()

    @og.no_grad()
    def inside():
        return og.is_grad_enabled()

    @og.enable_grad()
    def enabled():
        return og.is_grad_enabled()

    assert inside() is False and og.is_grad_enabled()
    with og.no_grad():
        assert enabled() is True and not og.is_grad_enabled()
    # Restored after an exception too.
    with pytest.raises(ValueError):
        with og.no_grad():
            raise ValueError()
    assert og.is_grad_enabled()
    assert og.autograd.no_grad is og.no_grad and og.autograd.enable_grad is og.enable_grad


def test_set_grad_enabled_is_a_function_and_a_context_manager():
    og.set_grad_enabled(False)
    assert not og.is_grad_enabled()
    og.set_grad_enabled(True)
    with og.set_grad_enabled(False):
        assert not og.is_grad_enabled()
    assert og.is_grad_enabled()

    @og.set_grad_enabled(False)
    def off():
        return og.is_grad_enabled()

    assert og.is_grad_enabled() and off() is False and og.is_grad_enabled()
    with pytest.raises(TypeError, match="^enabled must be a bool \\(got int\\)$"):
        og.set_grad_enabled(1)


def test_inference_mode_is_a_context_manager_and_a_decorator():
    x = leaf([1.0, 2.0])
    assert og.is_inference_mode_enabled() is False
    with og.inference_mode():
        assert og.is_inference_mode_enabled() and not og.is_grad_enabled()
        y = og.mul(x, x)
        # No Autograd kernel runs: nothing recorded, whatever the inputs.
        assert not y.requires_grad and y.grad_fn is None
    assert not og.is_inference_mode_enabled() and og.is_grad_enabled()
    assert og.mul(x, x).grad_fn.name() == "MulBackward0"
    # Restored after an exception too.
    with pytest.raises(ValueError):
        with og.inference_mode():
            raise ValueError()
    assert not og.is_inference_mode_enabled() and og.is_grad_enabled()

    @og.inference_mode
    def bare(t):
        return og.is_inference_mode_enabled(), og.mul(t, t).requires_grad

    @og.inference_mode()
    def called(t):
        return og.is_inference_mode_enabled(), og.mul(t, t).requires_grad

    assert bare(x) == (True, False) and called(x) == (True, False)
    assert og.mul(x, x).requires_grad
    assert og.autograd.inference_mode is og.inference_mode
    assert og.autograd.is_inference_mode_enabled() is False
    with pytest.raises(TypeError):
        og.inference_mode(1)


def test_inference_mode_false_turns_grad_mode_on_as_pytorchs_does():
    x = leaf([1.0, 2.0])
    with og.inference_mode():
        with og.inference_mode(False):
            # c10::InferenceMode(false): grad mode is `not enabled`, the autograd keys back.
            assert not og.is_inference_mode_enabled() and og.is_grad_enabled()
            assert og.mul(x, x).grad_fn.name() == "MulBackward0"
        assert og.is_inference_mode_enabled() and not og.is_grad_enabled()
        assert og.mul(x, x).grad_fn is None
    with og.no_grad():
        @og.inference_mode(mode=False)
        def enabled():
            return og.is_grad_enabled(), og.is_inference_mode_enabled()

        assert enabled() == (True, False)
        assert not og.is_grad_enabled()
    # One object entered twice (nested) restores each level.
    mode = og.inference_mode()
    with mode:
        with mode:
            assert og.is_inference_mode_enabled()
        assert og.is_inference_mode_enabled()
    assert not og.is_inference_mode_enabled() and mode.clone() is not mode


def test_tensors_made_in_inference_mode_are_inference_tensors():
    x = leaf([1.0, 2.0])
    normal = og.tensor([1.0, 2.0])
    with og.inference_mode():
        made = og.mul(x, x)
        assert made.is_inference() and not normal.is_inference()
        made.neg_()  # allowed inside (no version counter to bump)
        version = normal._version
        normal.neg_()  # a normal tensor's version is bumped inside too
        assert normal._version == version + 1
        row = og.select(normal, 0, 0)
        with og.inference_mode(False):
            assert not og.tensor([1.0]).is_inference()
    # A view of a normal tensor made inside is a normal tensor and a view.
    assert not row.is_inference() and row._is_view() and row._base is not None
    with pytest.raises(RuntimeError, match="^Inference tensors do not track version counter.$"):
        made._version
    with pytest.raises(
        RuntimeError,
        match=re.escape(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details."
        ),
    ):
        made.neg_()
    with pytest.raises(
        RuntimeError,
        match="^Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.$",
    ):
        made.requires_grad_()
    with pytest.raises(
        RuntimeError, match="^Inference tensors cannot be saved for backward. To work around"
    ):
        og.mul(x, made)
    assert not og.mul(x, made.clone()).is_inference()


def test_inference_mode_is_per_thread():
    import threading

    seen = []
    with og.inference_mode():
        thread = threading.Thread(target=lambda: seen.append(og.is_inference_mode_enabled()))
        thread.start()
        thread.join()
    assert seen == [False]


def test_repr_shows_autograd_state():
    assert repr(doubles([1.0, 2.0]).requires_grad_()) == "tensor([1., 2.], dtype=opgen_example.float64, requires_grad=True)"
    assert repr(og.ones(2, requires_grad=True)) == "tensor([1., 1.], requires_grad=True)"
    assert repr(og.ones(2)) == "tensor([1., 1.])"


def test_meta_tensors_run_backward_on_shapes():
    x = og.zeros(2, 3, device="meta", requires_grad=True)
    x.backward(og.zeros(2, 3, device="meta"))
    assert x.grad.is_meta and x.grad.shape == (2, 3)
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        x.backward()


def test_tracing_still_gives_the_graph_with_tensors_that_require_grad():
    x = og.ones(2, 3, requires_grad=True)
    with og.tracing(x) as t:
        og.neg(x)
    assert t.graph == "graph(%0 : [2, 3]):\n  %1 : [2, 3] = aten::neg(%0)\n"


# Through the library's operators (generated Autograd kernels).


def test_operators_record_grad_fn_and_next_functions():
    x, w = leaf([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]), leaf([0.5, -1.0, 2.0, 1.0, 0.0, 3.0])
    y = og.mul(x, w)
    assert y.requires_grad and not y.is_leaf
    assert y.grad_fn.name() == "MulBackward0"
    assert re.fullmatch(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(y.grad_fn))
    assert y.grad_fn == y.grad_fn and hash(y.grad_fn) == hash(y.grad_fn)
    assert isinstance(y.grad_fn, og.autograd.graph.Node)
    (acc_x, nr_x), (acc_w, nr_w) = y.grad_fn.next_functions
    assert (acc_x.name(), nr_x, acc_w.name(), nr_w) == ("AccumulateGrad", 0, "AccumulateGrad", 0)
    s = og.sum(y)
    assert s.grad_fn.name() == "SumBackward0"
    assert s.grad_fn.next_functions[0][0] == y.grad_fn
    assert repr(s) == "tensor(26.5000, dtype=opgen_example.float64, grad_fn=<SumBackward0>)"
    # An input that needs no gradient has no edge.
    c = og.mul(x, doubles([1.0] * 6))
    assert c.grad_fn.next_functions[1] == (None, 0)


def test_backward_through_operators_accumulates_into_leaves():
    x = og.tensor(np.arange(6.0).reshape(2, 3), dtype=og.float64).requires_grad_()
    w = leaf([0.5, -1.0, 2.0])
    og.sum(og.mul(x, w)).backward()
    assert values(x.grad) == [[0.5, -1.0, 2.0], [0.5, -1.0, 2.0]]
    assert values(w.grad) == [3.0, 5.0, 7.0]  # summed back over the broadcast rows


def test_a_graph_is_freed_unless_retained():
    x = leaf([1.0, 2.0])
    y = og.sum(og.mul(x, doubles([3.0, -4.0])))
    y.backward(retain_graph=True)
    y.backward()
    assert values(x.grad) == [6.0, -8.0]
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.backward()


def test_no_grad_records_nothing():
    x = leaf([1.0, 2.0])
    with og.no_grad():
        y = og.mul(x, x)
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf

    @og.no_grad()
    def square(t):
        return og.mul(t, t)

    assert square(x).grad_fn is None
    with og.set_grad_enabled(False):
        assert og.mul(x, x).grad_fn is None
    assert og.mul(x, x).grad_fn is not None


def test_requires_grad_flags_of_non_leaves():
    x = leaf([1.0, 2.0])
    y = og.mul(x, x)
    with pytest.raises(RuntimeError, match=f"^{re.escape(LEAF_ONLY + DETACH_HINT)}$"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match=f"^{re.escape(LEAF_ONLY)}$"):
        y.requires_grad = True
    assert y.requires_grad_() is y
    with pytest.raises(RuntimeError, match=f"^{re.escape(LEAF_ONLY + DETACH_HINT)}$"):
        y.requires_grad_(False)
    assert not y.detach().requires_grad


def test_a_non_leaf_keeps_its_gradient_only_when_asked():
    x = leaf([1.0, 2.0])
    y = og.mul(x, x)
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"):
        assert y.grad is None
    y.retain_grad()
    assert y.retains_grad
    og.sum(y).backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert values(y.grad) == [1.0, 1.0]
    assert values(x.grad) == [2.0, 4.0]
    with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has requires_grad=False$"):
        doubles([1.0]).retain_grad()


def test_autograd_grad_returns_gradients_without_accumulating():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = og.sum(og.mul(x, w))
    gx, gw = og.autograd.grad(y, [x, w], retain_graph=True)
    assert values(gx) == [3.0, 4.0] and values(gw) == [1.0, 2.0]
    assert x.grad is None and w.grad is None
    (gx,) = og.autograd.grad([y], x, grad_outputs=doubles(2.0), retain_graph=True)
    assert values(gx) == [6.0, 8.0]
    unused = leaf([0.0])
    with pytest.raises(RuntimeError, match="^One of the differentiated Tensors appears to not have been used in the graph"):
        og.autograd.grad(y, [x, unused], retain_graph=True)
    assert og.autograd.grad(y, [x, unused], retain_graph=True, allow_unused=True)[1] is None
    zeros = og.autograd.grad(y, [unused], retain_graph=True, materialize_grads=True)[0]
    assert values(zeros) == [0.0] and zeros.requires_grad
    with pytest.raises(ValueError, match="^Expected allow_unused to be True or not passed when materialize_grads=True"):
        og.autograd.grad(y, [unused], allow_unused=False, materialize_grads=True)
    with pytest.raises(RuntimeError, match="^One of the differentiated Tensors does not require grad$"):
        og.autograd.grad(y, [doubles([1.0])])
    with pytest.raises(TypeError, match="^grad\\(\\) missing 1 required positional argument: 'inputs'$"):
        og.autograd.grad(y)


def test_autograd_grad_with_create_graph_gives_second_derivatives():
    x, w = leaf([1.0, -3.0]), leaf([2.0, 5.0])
    # d/dx sum(x * w) = w, recorded; d/dw sum(w * x) = x.
    (gx,) = og.autograd.grad(og.sum(og.mul(x, w)), x, create_graph=True)
    assert values(gx) == [2.0, 5.0] and gx.requires_grad and gx.grad_fn.name() == "MulBackward0"
    (gw,) = og.autograd.grad(og.sum(og.mul(gx, x)), w)
    assert values(gw) == [1.0, -3.0]
    # Without create_graph the gradient has no history.
    (plain,) = og.autograd.grad(og.sum(og.mul(x, w)), x)
    assert not plain.requires_grad


def test_backward_into_chosen_inputs_only():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    og.sum(og.mul(x, w)).backward(inputs=[w])
    assert x.grad is None and values(w.grad) == [1.0, 2.0]
    og.autograd.backward(og.sum(og.mul(x, w)), inputs=w)
    assert values(w.grad) == [2.0, 4.0]


def test_a_saved_tensor_modified_in_place_is_refused():
    x, w = leaf([1.0, 2.0]), doubles([3.0, 4.0])
    y = og.sum(og.mul(x, w))
    w.mul_(doubles(2.0))
    with pytest.raises(RuntimeError, match=re.escape(
            "one of the variables needed for gradient computation has been modified by an inplace "
            "operation: [torch.DoubleTensor [2]] is at version 1; expected version 0 instead.")):
        y.backward()


def test_backward_releases_the_gil():
    # Another thread runs while backward runs: only checks that backward does not hold the
    # GIL in a way that deadlocks a thread joining it.
    import threading

    x = leaf([1.0] * 64)
    y = og.sum(og.mul(x, x))
    done = []
    thread = threading.Thread(target=lambda: done.append(og.is_grad_enabled()))
    thread.start()
    y.backward()
    thread.join()
    assert done == [True] and values(x.grad) == [2.0] * 64


def test_grad_mode_is_per_thread():
    import threading

    seen = []
    with og.no_grad():
        thread = threading.Thread(target=lambda: seen.append(og.is_grad_enabled()))
        thread.start()
        thread.join()
    assert seen == [True]


def test_float32_gradients_keep_their_dtype():
    x = tensor([1.0, 2.0]).requires_grad_()
    og.sum(og.mul(x, x)).backward()
    assert x.grad.dtype is og.float32 and values(x.grad) == [2.0, 4.0]


def test_a_composite_expression_has_the_hand_computed_gradients():
    # f(x, w, b) = sum(relu(x * w + b) * exp(x)), elementwise:
    #   df/dx = [r > 0] * w * exp(x) + relu(r) * exp(x),  df/dw = [r > 0] * x * exp(x),
    #   df/db = [r > 0] * exp(x), with r = x * w + b.
    xs, ws, bs = [0.5, -1.0, 2.0], [1.5, 2.0, -0.5], [0.25, 0.5, 0.1]
    x, w, b = leaf(xs), leaf(ws), leaf(bs)
    f = og.sum(og.mul(og.relu(og.add(og.mul(x, w), b)), og.exp(x)))
    assert f.grad_fn.name() == "SumBackward0"
    f.backward()
    e = np.exp(xs)
    r = np.array(xs) * ws + bs
    on = (r > 0).astype(float)
    np.testing.assert_allclose(values(x.grad), on * ws * e + np.maximum(r, 0) * e, rtol=1e-12)
    np.testing.assert_allclose(values(w.grad), on * np.array(xs) * e, rtol=1e-12)
    np.testing.assert_allclose(values(b.grad), on * e, rtol=1e-12)


def test_methods_views_and_in_place_operators_record_their_nodes():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    t = x.transpose(0, 1)
    assert t.grad_fn.name() == "TransposeBackward0"
    y = x.mul(2.0)
    y.exp_()
    assert y.grad_fn.name() == "ExpBackward0"
    z = og.mean(og.matmul(t, y))
    assert z.grad_fn.name() == "MeanBackward0"
    (gx,) = og.autograd.grad(z, x)
    # z = mean(x^T exp(2x)), against central differences of the same expression in NumPy.
    eps = 1e-6
    base = np.array(values(x))

    def f(a):
        return float(np.mean(a.T @ np.exp(2 * a)))

    numerical = np.zeros_like(base)
    for i in range(2):
        for j in range(3):
            up, down = base.copy(), base.copy()
            up[i, j] += eps
            down[i, j] -= eps
            numerical[i, j] = (f(up) - f(down)) / (2 * eps)
    np.testing.assert_allclose(values(gx), numerical, rtol=1e-6)


def test_base_is_the_tensor_a_view_was_taken_of():
    x = doubles([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x._base is None and not x._is_view()
    t = x.transpose(0, 1)
    assert t._is_view()
    # A view of a view has the first tensor as its base, as in PyTorch.
    tt = t.transpose(0, 1)
    for view in (t, tt):
        base = view._base
        assert base is not None and base._base is None
        assert values(base) == values(x)
    # The base shares the view's data: writing through it shows in the view.
    t._base.neg_()
    assert values(tt) == [[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]]
    # Operators that make new tensors make no views.
    y = og.mul(x, 2.0)
    assert y._base is None and not y._is_view()
    # Leaves that require grad have views too; the view is no leaf.
    w = leaf([1.0, 2.0])
    v = w.transpose(0, 0)
    assert v._base is not None and values(v._base) == [1.0, 2.0] and not v.is_leaf
    assert v._base.requires_grad


def test_unbind_gives_views_that_may_not_be_modified_in_place():
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    rows = og.unbind(og.mul(x, 1.0))
    assert [r.grad_fn.name() for r in rows] == ["UnbindBackward0", "UnbindBackward0"]
    assert all(r._is_view() for r in rows)
    with pytest.raises(RuntimeError, match=re.escape(
            "Output 1 of UnbindBackward0 is a view and is being modified inplace. This view is "
            "the output of a function that returns multiple views. Such functions do not allow "
            "the output views to be modified inplace. You should replace the inplace operation "
            "by an out-of-place one.")):
        rows[1].exp_()
    (g,) = og.autograd.grad(og.sum(og.mul(rows[1], rows[1])), x)
    assert values(g) == [[0.0, 0.0], [6.0, 8.0]]


def test_out_operators_refuse_inputs_that_require_grad():
    x = leaf([1.0, 2.0])
    out = doubles([0.0, 0.0])
    with pytest.raises(RuntimeError, match=re.escape(
            "mul(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad.")):
        og.mul(x, x, out=out)


def test_a_small_perceptron_learns_by_gradient_descent():
    rng = np.random.default_rng(0)
    x = og.tensor(rng.uniform(-1, 1, size=(32, 2)), dtype=og.float64)
    y = og.tensor(np.array(values(x)).prod(axis=1, keepdims=True), dtype=og.float64)
    w1 = og.tensor(rng.uniform(-1, 1, size=(2, 8)), dtype=og.float64).requires_grad_()
    b1 = og.zeros(8, dtype=og.float64, requires_grad=True)
    w2 = og.tensor(rng.uniform(-0.5, 0.5, size=(8, 1)), dtype=og.float64).requires_grad_()
    losses = []
    for _ in range(100):
        err = og.matmul(og.relu(og.add(og.matmul(x, w1), b1)), w2) - y
        loss = og.mean(err * err)
        losses.append(loss.item())
        loss.backward()
        with og.no_grad():
            for p in (w1, b1, w2):
                p.sub_(p.grad, alpha=0.2)
                p.grad = None
    assert losses[-1] < losses[0] / 3
