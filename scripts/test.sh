#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every fuzz target briefly (a smoke
# run in build-fuzz/, clang; docs/fuzzing.md), and runs every test with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
scripts/fuzz.sh smoke "${STRATA_FUZZ_SMOKE_SECONDS:-5}"
cd build
exec ctest --output-on-failure -j "${STRATA_JOBS:-$(nproc)}" "$@"
