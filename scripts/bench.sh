#!/usr/bin/env bash
# The benchmarks (bench/README.md): installs what they need (including Debian's
# python3-torch), builds, and runs:
#   bench/bench_train.py       strata against PyTorch, interleaved (about 11 minutes);
#   bench/bench_strategies.py  Mirrored, CentralStorage against OneDevice (about 3 minutes);
#   strata-bench-dashboard     the live dashboard: ingestion, stalls, replot, memory (about 1 minute);
#                              and the dashboard of 64 workers replotted (under a minute);
#   strata-bench-history       the run history page with 1,000 runs: open, filter, sort (seconds);
#   strata-bench-compare       the Compare page with 10 finished runs (about 15 seconds);
#   strata-bench-allreduce     MultiWorkerMirrored's gradient all-reduce between 2 processes
#                              against Gloo's own (about 1 minute);
#   bench/bench_multiworker.py the CNN trained by 1 and 2 worker processes (about 3 minutes);
#   strata-bench-launch        launching over SSH against this machine: launch latency with 1
#                              and 3 SSH hosts, event throughput (about 2 minutes; needs root,
#                              says so and measures nothing without it); and, with
#                              --only launch-scale alone, launch latency and step time against
#                              the job's size, 1 to 64 MultiWorkerMirrored workers and 4 to 32
#                              ParameterServer workers over 16 SSH hosts (a few minutes; root),
#                              then strata-bench-collectives: the rendezvous and both all-reduce
#                              algorithms at 2 to 64 tasks (about 10 minutes);
#   strata-bench-slurm         a run submitted to a real Slurm on this machine against the same run
#                              here: submit to first step, the events' delay (about 2 minutes;
#                              needs root, says so and measures nothing without it);
#   strata-bench-ps and bench/bench_parameter_server.py
#                              a ParameterServer worker's pull + push against raw ZeroMQ's round
#                              trip, and 2-worker ParameterServer against MultiWorkerMirrored on
#                              the MLP and the CNN (about 3 minutes);
#   bench/bench_plan.py        the scaling planner's predictions against real MultiWorkerMirrored
#                              and ParameterServer jobs of 2 and 4 workers, MLP and CNN (about 8
#                              minutes).
# --quick, --seconds S, --rounds N and --warmup-steps W go to the first two; --quick and
# --rounds N also to the multi-worker and launch benches, --warmup-steps W also to
# bench_multiworker. --only splits: configs with an @ (mlp@32) go to bench_train, as does
# `lstm` (the LSTM against PyTorch's nn.LSTM, lstm@64); bare models (cnn) to bench_strategies,
# `dashboard`, `history`, `compare`, `allreduce`, `multiworker`, `launch`, `launch-scale`, `slurm` and `ps` to those
# benches, and a driver left with none is skipped (--only cnn,mlp runs the strategies alone,
# --only history the history bench, --only lstm the LSTM comparison). Everything else goes to
# bench_train (e.g. --threads 1,2, --no-torch-tuned).
set -euo pipefail
cd "$(dirname "$0")/.."

train_args=()
strategy_args=()
allreduce_args=()
multiworker_args=()
launch_args=()
ps_args=()
only_given=0
only_train=()
only_strategies=()
only_dashboard=0
only_history=0
only_compare=0
only_allreduce=0
only_multiworker=0
only_launch=0
only_ps=0
only_plan=0
plan_args=()
only_slurm=0
only_launch_scale=0
slurm_args=()
split_only() {
    only_given=1
    local item items
    IFS=, read -ra items <<<"$1"
    for item in "${items[@]}"; do
        if [[ $item == *@* ]]; then
            only_train+=("$item")
        elif [[ $item == lstm ]]; then
            only_train+=("lstm@64")
        elif [[ $item == dashboard ]]; then
            only_dashboard=1
        elif [[ $item == history ]]; then
            only_history=1
        elif [[ $item == compare ]]; then
            only_compare=1
        elif [[ $item == allreduce ]]; then
            only_allreduce=1
        elif [[ $item == multiworker ]]; then
            only_multiworker=1
        elif [[ $item == launch ]]; then
            only_launch=1
        elif [[ $item == launch-scale ]]; then
            only_launch_scale=1
        elif [[ $item == ps ]]; then
            only_ps=1
        elif [[ $item == plan ]]; then
            only_plan=1
        elif [[ $item == slurm ]]; then
            only_slurm=1
        elif [[ -n $item ]]; then
            only_strategies+=("$item")
        fi
    done
}
while (($#)); do
    case $1 in
        --quick)
            train_args+=("$1")
            strategy_args+=("$1")
            allreduce_args+=("$1")
            multiworker_args+=("$1")
            launch_args+=("$1")
            ps_args+=("$1")
            plan_args+=("$1")
            ;;
        --seconds | --rounds | --warmup-steps)
            (($# >= 2)) || { echo "bench.sh: $1 needs a value" >&2; exit 2; }
            train_args+=("$1" "$2")
            strategy_args+=("$1" "$2")
            [[ $1 == --seconds ]] || multiworker_args+=("$1" "$2")
            [[ $1 == --rounds ]] && allreduce_args+=("$1" "$2") && launch_args+=("$1" "$2") && ps_args+=("$1" "$2") && slurm_args+=("$1" "$2") && plan_args+=("$1" "$2")
            shift
            ;;
        --seconds=* | --rounds=* | --warmup-steps=*)
            train_args+=("$1")
            strategy_args+=("$1")
            [[ $1 == --seconds=* ]] || multiworker_args+=("$1")
            [[ $1 == --rounds=* ]] && allreduce_args+=(--rounds "${1#--rounds=}") && launch_args+=(--rounds "${1#--rounds=}") && ps_args+=(--rounds "${1#--rounds=}") && slurm_args+=(--rounds "${1#--rounds=}")
            ;;
        --only)
            (($# >= 2)) || { echo "bench.sh: $1 needs a value" >&2; exit 2; }
            split_only "$2"
            shift
            ;;
        --only=*)
            split_only "${1#--only=}"
            ;;
        *)
            train_args+=("$1")
            ;;
    esac
    shift
done
run_train=1
run_strategies=1
run_dashboard=1
run_history=1
run_compare=1
run_allreduce=1
run_multiworker=1
run_launch=1
run_ps=1
run_plan=1
run_slurm=1
run_launch_scale=0
if ((only_given)); then
    run_launch_scale=$only_launch_scale
    run_slurm=$only_slurm
    run_dashboard=$only_dashboard
    run_history=$only_history
    run_compare=$only_compare
    run_allreduce=$only_allreduce
    run_multiworker=$only_multiworker
    run_launch=$only_launch
    run_ps=$only_ps
    run_plan=$only_plan
    if ((${#only_train[@]})); then
        train_args+=(--only "$(IFS=,; echo "${only_train[*]}")")
    else
        run_train=0
    fi
    if ((${#only_strategies[@]})); then
        strategy_args+=(--only "$(IFS=,; echo "${only_strategies[*]}")")
    else
        run_strategies=0
    fi
fi

# The reference framework (python3-torch) only for the drivers that compare against it.
if ((run_train || run_strategies)); then
    scripts/install-deps.sh --bench
else
    scripts/install-deps.sh
fi
scripts/build.sh
engine=build/bench/strata-bench-train
if ((run_train)); then
    /usr/bin/python3 bench/bench_train.py --engine-bench "$engine" "${train_args[@]}"
fi
if ((run_strategies)); then
    ((run_train)) && echo
    /usr/bin/python3 bench/bench_strategies.py --engine-bench "$engine" "${strategy_args[@]}"
fi
if ((run_dashboard)); then
    ((run_train || run_strategies)) && echo
    QT_QPA_PLATFORM=offscreen build/bench/strata-bench-dashboard --json build/bench/dashboard.json
    QT_QPA_PLATFORM=offscreen build/bench/strata-bench-dashboard --workers 64 --json build/bench/dashboard-workers.json
fi
if ((run_history)); then
    ((run_train || run_strategies || run_dashboard)) && echo
    QT_QPA_PLATFORM=offscreen build/bench/strata-bench-history --json build/bench/history.json
fi
if ((run_compare)); then
    ((run_train || run_strategies || run_dashboard || run_history)) && echo
    QT_QPA_PLATFORM=offscreen build/bench/strata-bench-compare --json build/bench/compare.json
fi
if ((run_allreduce)); then
    ((run_train || run_strategies || run_dashboard || run_history || run_compare)) && echo
    build/bench/strata-bench-allreduce --json build/bench/allreduce.json "${allreduce_args[@]}"
fi
if ((run_multiworker)); then
    ((run_train || run_strategies || run_dashboard || run_history || run_compare || run_allreduce)) && echo
    /usr/bin/python3 bench/bench_multiworker.py --engine build/engine/strata-engine "${multiworker_args[@]}"
fi
if ((run_launch)); then
    ((run_train || run_strategies || run_dashboard || run_history || run_compare || run_allreduce || run_multiworker)) && echo
    build/bench/strata-bench-launch --json build/bench/launch.json "${launch_args[@]}"
fi
if ((run_ps)); then
    ((run_train || run_strategies || run_dashboard || run_history || run_compare || run_allreduce || run_multiworker || run_launch)) && echo
    build/bench/strata-bench-ps "${ps_args[@]}"
    echo
    /usr/bin/python3 bench/bench_parameter_server.py --engine build/engine/strata-engine "${ps_args[@]}"
fi
if ((run_plan)); then
    ((run_train || run_strategies || run_dashboard || run_history || run_compare || run_allreduce || run_multiworker || run_launch || run_ps)) && echo
    /usr/bin/python3 bench/bench_plan.py --strata build/ui/strata --engine build/engine/strata-engine "${plan_args[@]}"
fi
if ((run_slurm)); then
    ((run_train || run_strategies || run_dashboard || run_history || run_compare || run_allreduce || run_multiworker || run_launch || run_ps)) && echo
    build/bench/strata-bench-slurm --json build/bench/slurm.json "${slurm_args[@]}"
fi
if ((run_launch_scale)); then
    build/bench/strata-bench-launch --only scale --json build/bench/launch-scale.json
    echo
    build/bench/strata-bench-launch --only scale-ps --sizes 4,8,16,32 --json build/bench/launch-scale-ps.json
    echo
    build/bench/strata-bench-collectives --json build/bench/collectives.json
fi
