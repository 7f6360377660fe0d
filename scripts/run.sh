#!/usr/bin/env bash
# The run command: installs what is missing, builds, and opens Strata on an experiment
# (default: the Fashion-MNIST MLP). Without a display it runs the experiment headless
# through the same app code (`strata run`), with a progress bar, ending with the test
# accuracy and the run directory.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
experiment=${1:-resources/experiments/fashion-mnist-mlp.strata.json}
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  exec build/ui/strata "$experiment"
fi
exec build/ui/strata run "$experiment"
