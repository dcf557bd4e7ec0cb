"""The generated stubs: committed up to date, and usable by a type checker (mypy)."""

import pathlib
import subprocess
import sys

import pytest

import opgen_example._C as C

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "opgen_example"
HERE = pathlib.Path(__file__).resolve().parent


def test_committed_stubs_are_the_generated_ones():
    for path, text in C._stubs.items():
        committed = (PACKAGE / path).read_text()
        assert committed == text, f"{path} is stale: run `bash example/python/run.sh stubs`"


def test_stubs_have_every_function_method_and_overload():
    stub = C._stubs["__init__.pyi"]
    module_functions = [n for n in dir(C) if not n.startswith("_") and callable(getattr(C, n))]
    for name in module_functions:
        assert f"def {name}(" in stub or f"class {name}" in stub, name
    for name in dir(C.Tensor):
        if name.startswith("__") and name not in ("__add__", "__radd__", "__iadd__", "__neg__", "__matmul__"):
            continue
        if name.startswith("_") and not name.startswith("__"):
            continue
        assert f"def {name}(self" in stub, name
    # Overloads, defaults and the named tuple of max.
    assert "@overload\ndef sum(input: Tensor, dim: Optional[Union[_int, _size]], keepdim: _bool = False, *, dtype: Optional[_dtype] = None, out: Optional[Tensor] = None) -> Tensor: ..." in stub
    assert "def max(input: Tensor, dim: _int, keepdim: _bool = False, *, out: Optional[Union[tuple[Tensor, ...], list[Tensor]]] = None) -> return_types.max: ..." in stub


def mypy(program):
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", "/dev/null", str(HERE / program)],
        capture_output=True,
        text=True,
    )


def test_mypy_accepts_a_typed_program():
    result = mypy("typed_program.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_reports_the_mistakes():
    result = mypy("bad_program.py")
    lines = [l for l in result.stdout.splitlines() if ": error:" in l]
    reported = {int(l.split(":")[1]) for l in lines}
    # Lines 8-13 each hold one mistake.
    assert reported == {8, 9, 10, 11, 12, 13}, result.stdout
