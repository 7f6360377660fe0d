#!/usr/bin/env bash
# Screenshots of every page of the window (docs/screenshots/*.png, shown in the README),
# taken under Xvfb by the app itself (`strata --screenshots`), with a real run on the
# dashboard and a real comparison of three strategies.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
out=${1:-docs/screenshots}
experiment=${2:-resources/experiments/fashion-mnist-mlp-mirrored.strata.json}
# A history of its own, so that the History page shows this tour's runs only.
tour=$(mktemp -d)
trap 'rm -rf "$tour"' EXIT
export STRATA_HISTORY=$tour/history.sqlite
xvfb-run -a -s "-screen 0 1400x900x24" build/ui/strata --screenshots "$out" "$experiment"
# The dashboard of a multi-worker job (two local workers and an evaluator), when the tour is
# the default one.
if [[ $# -lt 2 ]]; then
    shots=$(mktemp -d)
    xvfb-run -a -s "-screen 0 1400x900x24" build/ui/strata --screenshots "$shots" \
        resources/experiments/fashion-mnist-mlp-multi-worker.strata.json
    cp "$shots/6-dashboard.png" "$out/9-multi-worker.png"
    rm -rf "$shots"
fi
