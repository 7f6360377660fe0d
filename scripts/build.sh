#!/usr/bin/env bash
# Configures and builds Strata into build/ (Release, Ninja, ccache when present).
# Extra arguments go to the CMake configure step (e.g. -DSTRATA_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${STRATA_JOBS:-$(nproc)}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j "$jobs"
