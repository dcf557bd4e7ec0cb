"""The example operator library of opgen, from Python.

Every operator of ``opgen-example`` is a function (``opgen_example.add``), a method of
``Tensor`` (``t.add``) and ``opgen_example.ops.aten.add.Tensor``, with PyTorch's argument
rules. Tensors convert to and from NumPy arrays (``tensor(array)``, ``t.numpy()``).
"""

from . import _C
from ._C import *  # noqa: F401,F403 - the functions, Tensor, the dtypes, ops, ...
from ._C import ops, return_types, tensor, tracing, Tensor  # noqa: F401

__all__ = [name for name in dir(_C) if not name.startswith("_")]
