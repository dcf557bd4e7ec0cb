#!/usr/bin/env bash
# Builds the example's Python module (opgen_example) in a virtual environment and runs:
#   tour   (default) the tour of example/src/tour.rs, from Python
#   test   the pytest suite (argument rules, every schema type, overloads, methods, stubs)
#   bench  the call-overhead benchmark (timeit)
#   instructions  instructions per call of the same cases (valgrind's callgrind)
#   stubs  rewrites the committed .pyi stubs from the module
# Needs Python 3.9+ with venv and pip, and a Rust toolchain. The environment goes to
# $OPGEN_VENV (default: example/python/.venv); CI points it at a throwaway directory.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cmd="${1:-tour}"
venv="${OPGEN_VENV:-$here/.venv}"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
packages=("maturin>=1.9,<2" "numpy>=1.24")
if [ "$cmd" = test ]; then
    packages+=("pytest>=8" "mypy>=1.10")
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}"

# One thread for NumPy's BLAS: the operators run in Rust, and the machine may be small.
export OPENBLAS_NUM_THREADS=1
# The tests reuse the workspace's debug build (what `cargo test` left); the tour and the
# benchmark run the optimised module.
profile=(--release)
if [ "$cmd" = test ] || [ "$cmd" = stubs ]; then
    profile=()
fi
(cd "$here" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop "${profile[@]}" --quiet)

cd "$here"
case "$cmd" in
    tour) "$venv/bin/python" tour.py ;;
    test) "$venv/bin/python" -m pytest -q tests ;;
    bench) "$venv/bin/python" bench.py ;;
    instructions) "$venv/bin/python" instructions.py ;;
    stubs) "$venv/bin/python" -c "
import pathlib, opgen_example._C as c
root = pathlib.Path('opgen_example')
for path, text in c._stubs.items():
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    print('wrote', target)
" ;;
    *) echo "usage: $0 [tour|test|bench|instructions|stubs]" >&2; exit 2 ;;
esac
