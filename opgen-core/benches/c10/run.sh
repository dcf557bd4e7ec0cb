#!/bin/bash
# Builds and runs dispatch_many.cpp against libtorch: c10's figures for the one-operator and
# 3,000-operator typed calls of `cargo bench -p opgen-core --bench dispatch`. Not run by CI.
#
#   TORCH=/path/to/site-packages/torch NV=/path/to/nvidia/cu13/lib bash run.sh [CASE N]
#
# TORCH holds include/ and lib/ (unzip them from PyPI's torch wheel:
# `pip download torch==2.15.0 --no-deps`); NV holds libcupti and libcudart, which libtorch_cpu
# links even on CPU (from the nvidia-cuda-cupti and nvidia-cuda-runtime wheels). With
# `CASE N` (e.g. `b_typed_3000_ops 100000`) it makes N calls of one case, for callgrind.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${TORCH:?set TORCH to the unpacked torch package (with include/ and lib/)}"
: "${NV:?set NV to the directory with libcupti.so.13 and libcudart.so.13}"
out=${OUT:-${TMPDIR:-/tmp}/opgen-c10-dispatch}
mkdir -p "$out"
if [[ ! -x "$out/dispatch_many" || "$here/dispatch_many.cpp" -nt "$out/dispatch_many" ]]; then
  g++ -O2 -std=c++20 -DNDEBUG \
    -I"$TORCH/include" -I"$TORCH/include/torch/csrc/api/include" \
    "$here/dispatch_many.cpp" -L"$TORCH/lib" -L"$NV" -ltorch_cpu -lc10 \
    -Wl,-rpath,"$TORCH/lib" -Wl,-rpath-link,"$NV" -o "$out/dispatch_many"
fi
LD_LIBRARY_PATH="$NV:$TORCH/lib" exec ${RUNNER:-} "$out/dispatch_many" "$@"
