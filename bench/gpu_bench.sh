#!/usr/bin/env bash
# The GPU benchmark, as scripts/gpu-check.sh runs it: bench/bench_gpu.py against PyTorch CUDA.
#   bench/gpu_bench.sh BUILD_DIR REPORT_DIR
# Prints its table (the check script puts it in the report) and writes REPORT_DIR/gpu-bench.json.
set -euo pipefail
build=${1:?usage: bench/gpu_bench.sh BUILD_DIR REPORT_DIR}
report=${2:?usage: bench/gpu_bench.sh BUILD_DIR REPORT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
python=${STRATA_TORCH_PYTHON:-python3}
if ! "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "gpu_bench: $python has no PyTorch with CUDA: the reference cannot run (set STRATA_TORCH_PYTHON)" >&2
  exit 1
fi
mkdir -p "$report"
exec "$python" "$here/bench_gpu.py" --engine-bench "$build/bench/strata-bench-train" --python "$python" \
  --out "$report/gpu-bench.json"
