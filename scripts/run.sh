#!/usr/bin/env bash
# The run command: installs what is missing, builds, and runs an experiment (default: the
# Fashion-MNIST MLP) headless with a progress bar, ending with the test accuracy and the
# run directory. Arguments after the experiment go to `strata-engine train`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
experiment=${1:-resources/experiments/fashion-mnist-mlp.strata.json}
shift || true
exec build/engine/strata-engine train "$experiment" "$@"
