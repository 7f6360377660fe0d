#!/usr/bin/env bash
# The libFuzzer targets (docs/fuzzing.md), built with clang, ASan and UBSan in build-fuzz/.
#   scripts/fuzz.sh build                 configure and build every target
#   scripts/fuzz.sh list                  the targets
#   scripts/fuzz.sh TARGET SECONDS [ARGS] fuzz one target (e.g. experiment) for SECONDS;
#                                         extra ARGS go to libFuzzer (-jobs=2, -runs=N, ...)
#   scripts/fuzz.sh all SECONDS           every target, one after the other
#   scripts/fuzz.sh smoke [SECONDS]       every target briefly (default 5 s each), as CI runs it
# New inputs go to build-fuzz/corpus/TARGET (the seeds in tests/fuzz/corpus/TARGET are only
# read), crashes to build-fuzz/artifacts/TARGET/, a log of each run to build-fuzz/logs/.
# A finding stops the run with status 1; copy its input into tests/fuzz/corpus/TARGET as
# regression-<what>, fix the parser, and `scripts/fuzz.sh TARGET 0 ARTIFACT` replays it.
# STRATA_FUZZ_BUILT=1 skips the build (runs of several targets at once share one build).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$root/build-fuzz
jobs=${STRATA_JOBS:-$(nproc)}
cxx=${STRATA_FUZZ_CXX:-clang++-14}
cc=${STRATA_FUZZ_CC:-clang-14}

targets() {
  sed -n 's/^ *strata_add_fuzz_target(\([a-z0-9_]*\) .*/\1/p' tests/fuzz/CMakeLists.txt
}

build() {
  [[ ${STRATA_FUZZ_BUILT:-0} == 1 ]] && return 0
  # -O1 and line tables: fast enough to fuzz, readable stack traces; assertions stay on.
  cmake -S . -B "$build" -G Ninja -DSTRATA_FUZZ=ON -DSTRATA_CUDA=OFF \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >/dev/null
  cmake --build "$build" -j "$jobs" --target strata_fuzz_targets
}

# run TARGET SECONDS [libFuzzer args...]
run() {
  local target=$1 seconds=$2
  shift 2
  local exe=$build/tests/fuzz/fuzz_$target
  [[ -x $exe ]] || { echo "fuzz.sh: no target $target (scripts/fuzz.sh list)" >&2; exit 2; }
  mkdir -p "$build/corpus/$target" "$build/artifacts/$target" "$build/logs"
  local args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512
              -print_final_stats=1 -artifact_prefix="$build/artifacts/$target/")
  [[ -f tests/fuzz/dict/$target.dict ]] && args+=(-dict="tests/fuzz/dict/$target.dict")
  local inputs=("$build/corpus/$target" "tests/fuzz/corpus/$target")
  # Files given after the options: replay those only (e.g. an artifact).
  local extra=() files=()
  for a in "$@"; do
    if [[ $a == -* ]]; then extra+=("$a"); else files+=("$a"); fi
  done
  ((${#files[@]})) && inputs=("${files[@]}")
  local log=$build/logs/$target-$(date +%Y%m%d-%H%M%S).log
  local symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
  echo "fuzz.sh: $target for $seconds s (log: $log)" >&2
  ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$symbolizer} \
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$exe" "${args[@]}" "${extra[@]}" "${inputs[@]}" >"$log" 2>&1 || {
      tail -n 60 "$log" >&2
      echo "fuzz.sh: $target FAILED (log: $log, inputs: $build/artifacts/$target/)" >&2
      return 1
    }
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | tr '\n' ' ' >&2 || true
  echo >&2
}

case "${1:-}" in
  build) build ;;
  list) targets ;;
  all|smoke)
    seconds=${2:-5}
    [[ $1 == all && -z ${2:-} ]] && { echo "usage: scripts/fuzz.sh all SECONDS" >&2; exit 2; }
    build
    failed=0
    for t in $(targets); do
      [[ -x $build/tests/fuzz/fuzz_$t ]] || continue
      run "$t" "$seconds" || failed=1
    done
    exit $failed ;;
  ""|-h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  *)
    [[ -n ${2:-} ]] || { echo "usage: scripts/fuzz.sh TARGET SECONDS [libFuzzer args]" >&2; exit 2; }
    build
    run "$@" ;;
esac
