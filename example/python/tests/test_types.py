"""Every schema type, from the Python values PyTorch's parser takes for it (`_testing.echo_*`
describe the value their kernel received)."""

import numpy as np
import pytest

import opgen_example as og
from conftest import tensor

T = og._testing


@pytest.mark.parametrize(
    "fn, value, received",
    [
        ("echo_tensor", "t", "Tensor Float[2, 3]"),
        ("echo_opt_tensor", None, "None"),
        ("echo_opt_tensor", "t", "Tensor Float[2, 3]"),
        ("echo_tensor_list", ["t", "t"], "Tensor[] 2"),
        ("echo_tensor_list", ("t",), "Tensor[] 1"),
        ("echo_opt_tensor_list", ["t"], "Tensor?[] [Tensor]"),
        ("echo_scalar", 2, "int 2"),
        ("echo_scalar", 2.5, "float 2.5"),
        ("echo_scalar", True, "bool true"),
        ("echo_scalar", 1 + 2j, "complex 1+2j"),
        ("echo_scalar", "zero_dim", "int 7"),
        ("echo_scalar", np.float64(0.25), "float 0.25"),
        ("echo_scalar", np.int32(3), "int 3"),
        ("echo_opt_scalar", None, "None"),
        ("echo_scalar_list", [1, 2.5, True], "Scalar[] [Int(1), Float(2.5), Bool(true)]"),
        ("echo_int", 3, "int 3"),
        ("echo_int", np.int64(-4), "int -4"),
        ("echo_int", "zero_dim", "int 7"),
        ("echo_opt_int", None, "None"),
        ("echo_int_list", [1, 2], "int[] [1, 2]"),
        ("echo_int_list", (), "int[] []"),
        ("echo_int_list", (1, True), "int[] [1, 1]"),
        ("echo_int2", 3, "int[] [3, 3]"),
        ("echo_int2", (3, 4), "int[] [3, 4]"),
        ("echo_int1_opt", 2, "int[] [2]"),
        ("echo_int1_opt", None, "None"),
        ("echo_symint", 5, "int 5"),
        ("echo_symint_list", [5, 6], "int[] [5, 6]"),
        ("echo_float", 1.5, "float 1.5"),
        ("echo_float", 2, "float 2.0"),
        ("echo_float", True, "float 1.0"),
        ("echo_float", "zero_dim", "float 7.0"),
        ("echo_opt_float", None, "None"),
        ("echo_float_list", [1, 2.5], "float[] [1.0, 2.5]"),
        ("echo_bool", False, "bool false"),
        ("echo_opt_bool", None, "None"),
        ("echo_bool3", [True, False, True], "bool[] [true, false, true]"),
        ("echo_str", "abc", 'str "abc"'),
        ("echo_opt_str", None, "None"),
        ("echo_dtype", og.float64, "ScalarType Double"),
        ("echo_dtype", float, "ScalarType Double"),
        ("echo_dtype", int, "ScalarType Long"),
        ("echo_dtype", bool, "ScalarType Bool"),
        ("echo_opt_dtype", None, "None"),
        ("echo_layout", og.strided, "Layout Strided"),
        ("echo_device", "cpu", "Device cpu"),
        ("echo_device", "cuda:1", "Device cuda:1"),
        ("echo_device", og.device("meta"), "Device meta"),
        ("echo_opt_device", None, "None"),
        ("echo_memory_format", og.channels_last, "MemoryFormat ChannelsLast"),
        ("echo_opt_memory_format", None, "None"),
        ("echo_device_index", 1, "int 1"),
        ("echo_symbool", True, "bool true"),
        ("echo_qscheme", og.per_tensor_affine, "QScheme PerTensorAffine"),
        ("echo_opt_generator", None, "None"),
        ("echo_opt_symint", None, "None"),
        ("echo_opt_symint", 4, "int 4"),
        ("echo_symint2", 4, "int[] [4, 4]"),
        ("echo_opt_int_list", None, "None"),
        ("echo_opt_int_list", [1], "int[] [1]"),
        ("echo_opt_float_list", None, "None"),
        ("echo_opt_layout", og.strided, "Layout Strided"),
        ("echo_opt_qscheme", None, "None"),
        ("echo_dimvector", (2, 3), "int[] [2, 3]"),
    ],
)
def test_each_schema_type_takes_pytorchs_values(fn, value, received):
    t = tensor(np.ones((2, 3)))
    zero_dim = og.tensor(np.array(7, dtype=np.int64))
    subst = lambda v: t if v == "t" else zero_dim if v == "zero_dim" else v
    if isinstance(value, (list, tuple)):
        value = type(value)(subst(v) for v in value)
    elif isinstance(value, str) and value in ("t", "zero_dim"):
        value = subst(value)
    assert getattr(T, fn)(value) == received


@pytest.mark.parametrize(
    "fn, value, expected",
    [
        ("echo_tensor", 2, "Tensor"),
        ("echo_scalar", "x", "Number"),
        ("echo_int", 2.5, "int"),
        ("echo_int", True, "int"),
        ("echo_int_list", "x", "tuple of ints"),
        ("echo_float", "x", "float"),
        ("echo_bool", 1, "bool"),
        ("echo_str", 1, "str"),
        ("echo_dtype", "float32", "torch.dtype"),
        ("echo_layout", "strided", "torch.layout"),
        ("echo_device", 1.5, "torch.device"),
        ("echo_memory_format", None, "torch.memory_format"),
        ("echo_scalar_list", [1, "x"], "tuple of Scalars"),
        ("echo_float_list", ["x"], "tuple of floats"),
    ],
)
def test_values_a_type_does_not_take(fn, value, expected):
    with pytest.raises(TypeError) as e:
        getattr(T, fn)(value)
    assert f"must be {expected}" in str(e.value)


def test_a_zero_dim_float_tensor_is_not_an_int():
    with pytest.raises(TypeError, match="must be int, not Tensor"):
        T.echo_int(og.tensor(np.array(1.5)))
    # ... nor a tensor with dimensions a float.
    with pytest.raises(TypeError, match="must be float, not Tensor"):
        T.echo_float(og.tensor(np.ones(2)))


def test_device_strings_are_checked():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        T.echo_device("gpu")


def test_returns_of_every_shape(a):
    named = T.returns_named()
    assert (named.count, named.mean) == (3, 0.5)
    assert named == (3, 0.5)
    assert type(named).__module__ == "opgen_example._testing.return_types"
    assert T.returns_tuple() == (7, True) and type(T.returns_tuple()) is tuple
    assert T.returns_list() == (1, 2, 3)
    assert T.returns_dtype() is og.float64
    assert T.returns_device() == og.device("meta")
    assert T.returns_none() is None
    assert T.returns_str() == "hello"
    first, second = T.returns_tensors(a)
    assert first is a and second is a


def test_types_python_cannot_take_are_said_so():
    # `GraphModule` has no Python value: no function, and the overload object says why.
    assert not hasattr(T, "echo_graph")
    with pytest.raises(NotImplementedError, match="argument `x` has type `GraphModule`"):
        T.ops.t.echo_graph.default(1)
