#!/usr/bin/env bash
# The test command: installs what is missing, builds, and runs every test with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
exec ctest --output-on-failure -j "${STRATA_JOBS:-$(nproc)}" "$@"
