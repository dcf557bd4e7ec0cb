"""dtype, device, layout and memory-format objects; tensors to and from NumPy."""

import numpy as np
import pytest

import opgen_example as og


def test_dtypes_are_singletons_with_pytorchs_names():
    assert og.float32 is og.float and og.int64 is og.long and og.float64 is og.double
    assert repr(og.float32) == "opgen_example.float32"
    assert og.float64.is_floating_point and not og.int64.is_floating_point


def test_devices():
    d = og.device("cuda", 1)
    assert (d.type, d.index) == ("cuda", 1)
    assert repr(d) == "device(type='cuda', index=1)" and str(d) == "cuda:1"
    assert og.device("cpu") == og.device("cpu")
    assert og.device("meta:0").index == 0
    with pytest.raises(RuntimeError, match="Expected one of cpu"):
        og.device("gpu")


def test_layouts_and_memory_formats():
    assert repr(og.strided) == "opgen_example.strided"
    assert repr(og.contiguous_format) == "opgen_example.contiguous_format"


def test_numpy_round_trip_keeps_dtype():
    for dtype, expected in [(np.float32, og.float32), (np.float64, og.float64), (np.int64, og.int64), (np.bool_, og.bool)]:
        arr = np.arange(6).reshape(2, 3).astype(dtype)
        t = og.tensor(arr)
        assert t.dtype is expected and t.shape == (2, 3)
        back = t.numpy()
        assert back.dtype == arr.dtype and (back == arr).all()


def test_python_values_take_pytorchs_default_dtypes():
    assert og.tensor([1.5, 2.0]).dtype is og.float32
    assert og.tensor([1, 2]).dtype is og.int64
    assert og.tensor(True).dtype is og.bool
    assert og.tensor([1, 2], dtype=og.float64).dtype is og.float64


def test_devices_are_kept_and_meta_has_no_data():
    m = og.tensor(np.ones((2, 2)), device="meta")
    assert m.device == og.device("meta") and m.is_meta and m.shape == (2, 2)
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        m.numpy()
    p = og.tensor(np.ones(2, dtype=np.float32), device="privateuseone")
    assert p.device.type == "privateuseone"
    assert "device='privateuseone'" in repr(p)


def test_the_tensor_class_is_not_constructed_directly():
    with pytest.raises(TypeError, match="use tensor"):
        og.Tensor([1, 2])


def test_tensor_handles_share_data():
    arr = np.array([1.0, 2.0], dtype=np.float32)
    t = og.tensor(arr)
    arr[0] = 5
    assert t.tolist() == [1.0, 2.0]  # a copy of the array, as torch.tensor
