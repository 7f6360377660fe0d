#!/usr/bin/env bash
# The training-throughput benchmark (bench/README.md): installs what it needs (including
# Debian's python3-torch), builds, and runs strata against PyTorch, interleaved.
# Arguments go to bench/bench_train.py (e.g. --quick, --seconds 5, --only mlp@32).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --bench
scripts/build.sh
exec /usr/bin/python3 bench/bench_train.py --engine-bench build/bench/strata-bench-train "$@"
