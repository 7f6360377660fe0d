#!/usr/bin/env bash
# The suite under load, again and again: a test whose outcome depends on how fast the machine
# is shows up here rather than on a newcomer's machine. Runs CTest in build/ ROUNDS times
# (default 10) with four tests at once (STRESS_JOBS to change) and a busy loop on every core
# beside them, stops at the first round that fails and prints what its failing tests wrote,
# then how many rounds passed. Arguments after ROUNDS go to CTest (e.g. -R 'tst_a|tst_b' to
# stress a few tests). Exits nonzero when a round failed.
#   scripts/stress-tests.sh [ROUNDS] [CTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=10
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
    rounds=$1
    shift
fi
jobs=${STRESS_JOBS:-4}
[[ -f build/CTestTestfile.cmake ]] || { echo "stress-tests: no build/ (run scripts/build.sh first)" >&2; exit 2; }

# One busy loop per core, ended with this script however it ends.
hogs=()
stop_hogs() {
    for pid in "${hogs[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for ((core = 0; core < $(nproc); ++core)); do
    yes >/dev/null &
    hogs+=($!)
done

logs=build/stress-logs
mkdir -p "$logs"
passed=0
for ((round = 1; round <= rounds; ++round)); do
    log=$logs/round-$round.log
    started=$SECONDS
    if ctest --test-dir build -j "$jobs" --output-on-failure --stop-on-failure --no-tests=error "$@" >"$log" 2>&1; then
        passed=$((passed + 1))
        echo "round $round/$rounds passed ($((SECONDS - started)) s): $(grep -m1 'tests passed' "$log" || true)"
        continue
    fi
    echo "round $round/$rounds FAILED ($((SECONDS - started)) s); what the failing tests wrote ($log has everything):"
    # Everything but the lines of tests that passed: the failures with their output, the summary.
    grep -vE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* +Passed ' "$log" | grep -vE '^ +Start +[0-9]+: ' || true
    echo "stress-tests: $passed of $rounds rounds passed; stopped at round $round"
    exit 1
done
echo "stress-tests: $passed of $rounds rounds passed (ctest -j $jobs beside $(nproc) busy loops)"
