#!/usr/bin/python3
"""Scaling of Strata's distribution strategies on this machine's CPU cores, interleaved.

For each model (CNN, MLP) at 256 examples per replica, runs `--rounds` rounds; a round is one
fresh strata-bench-train process of `--seconds` for each contender, the order reversed every
other round so that drift (thermal, other load) falls on all sides. Contenders: OneDevice
with a 1-thread GEMM (the baseline); Mirrored and CentralStorage with 2 replicas of 1 GEMM
thread each; OneDevice with a 2-thread GEMM. Prints samples/s medians, each contender's
per-round speedup over the baseline (min/median/max) and scaling efficiency (speedup / cores
used), Mirrored against the 2-thread OneDevice, the target (CNN: Mirrored at least 1.8x the
baseline) and peak resident memory. Writes everything to a JSON file. Exits 0 when the
target is missed: it is a report. Needs no PyTorch.

    python3 bench/bench_strategies.py --engine-bench build/bench/strata-bench-train
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time

# The process runner, thread environment and host description are bench_train.py's, so that
# both reports measure processes the same way. The script's own folder is on sys.path.
from bench_train import MB, RunError, cpu_model, run_process_usage, thread_env, verdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

BATCH_PER_REPLICA = 256
# (model, target speedup of Mirrored(2) over OneDevice with 1 thread), from the issue; the
# MLP is reported without a target.
MODELS = [("cnn", 1.8), ("mlp", None)]
BASELINE = "onedevice_1t"
# (key, label, --strategy, --replicas, --threads): every contender but the baseline uses
# 2 cores, as replicas or as GEMM threads.
CONTENDERS = [
    (BASELINE, "OneDevice 1 thread", "onedevice", 1, 1),
    ("mirrored_2r", "Mirrored 2x1 thread", "mirrored", 2, 1),
    ("central_2r", "CentralStorage 2x1 thr", "central_storage", 2, 1),
    ("onedevice_2t", "OneDevice 2 threads", "onedevice", 1, 2),
]
LABELS = {key: label for key, label, *_ in CONTENDERS}
# Above this many cores' worth of CPU time used by something other than the measured
# process (averaged over its life), a round is reported as disturbed.
DISTURBED_CORES = 0.2
# strata-bench-train's "strategy" field for each --strategy value.
STRATEGY_NAMES = {"onedevice": "OneDevice", "mirrored": "Mirrored",
                  "central_storage": "CentralStorage"}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine-bench",
                        default=os.path.join(ROOT, "build", "bench", "strata-bench-train"),
                        help="the strata-bench-train binary")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="timed seconds per process (default 3)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds per model (default 5, at least 5 for a report)")
    parser.add_argument("--only", default="",
                        help="comma-separated models to run: cnn, mlp (default both)")
    parser.add_argument("--warmup-steps", type=int, default=20)
    parser.add_argument("--output",
                        default=os.path.join(ROOT, "build", "bench", "strategy_scaling.json"),
                        help="JSON results file")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 2 rounds of 0.5 s (not a valid report)")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.rounds, args.warmup_steps = 0.5, 2, 5
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m for m, _ in MODELS}
        if unknown:
            parser.error(f"--only: unknown model(s) {sorted(unknown)}, "
                         f"choose from {[m for m, _ in MODELS]}")
        args.models = [m for m in MODELS if m[0] in wanted]
    else:
        args.models = MODELS
    return args


def host_busy_seconds():
    """CPU seconds all cores have spent not idle since boot, steal included (/proc/stat).

    Steal is time the hypervisor ran something else while this VM wanted the core: for a
    2-core measurement it is as much a disturbance as another process here.
    """
    try:
        with open("/proc/stat", encoding="utf-8") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal [guest guest_nice, already in user]
    busy = sum(fields[:8]) - fields[3] - fields[4]
    return busy / os.sysconf("SC_CLK_TCK")


def run_one(args, model, key):
    _, label, strategy, replicas, threads = next(c for c in CONTENDERS if c[0] == key)
    cmd = [args.engine_bench, "--model", model, "--batch", str(BATCH_PER_REPLICA),
           "--threads", str(threads), "--strategy", strategy, "--replicas", str(replicas),
           "--seconds", str(args.seconds), "--warmup-steps", str(args.warmup_steps)]
    # OMP_NUM_THREADS & co. at the GEMM threads of one replica: each replica thread sets its
    # own OpenMP team to --threads; the variables keep any library from starting one thread
    # per core on its own.
    busy_before, started = host_busy_seconds(), time.monotonic()
    result, usage = run_process_usage(cmd, thread_env(threads))
    wall, busy_after = time.monotonic() - started, host_busy_seconds()
    rss = usage.ru_maxrss * 1024
    # A strategy that fell back to another, or a replica count the host did not grant,
    # would measure something else than the label says.
    if (result.get("strategy"), result.get("replicas")) != (STRATEGY_NAMES[strategy], replicas):
        raise RunError(f"{' '.join(cmd)} ran {result.get('strategy')} with "
                       f"{result.get('replicas')} replica(s), expected {label}")
    result["wait4_peak_rss_bytes"] = rss
    # Cores the process kept busy, and what else ran beside it (other processes, steal; this
    # driver only waits): a 2-core contender that got one core measures the load, not itself.
    cpu = usage.ru_utime + usage.ru_stime
    result["process_cores"] = cpu / wall
    if busy_before is not None and busy_after is not None:
        result["other_cores"] = max(0.0, busy_after - busy_before - cpu) / wall
    # The process's own report and the kernel's should agree (the child may grow a little
    # while exiting); a large gap means one of them measures something else.
    printed = result["peak_rss_bytes"]
    if abs(printed - rss) > 0.1 * rss:
        print(f"warning: {label} {model} peak RSS: printed {printed / MB:.1f} MB, "
              f"wait4 {rss / MB:.1f} MB", file=sys.stderr)
    return result


def min_median_max(values):
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def run_model(args, model, target):
    keys = [c[0] for c in CONTENDERS]
    cores = {key: replicas * threads for key, _, _, replicas, threads in CONTENDERS}
    rounds = []
    for r in range(args.rounds):
        order = keys if r % 2 == 0 else keys[::-1]
        results = {key: run_one(args, model, key) for key in order}
        base = results[BASELINE]["samples_per_sec"]
        # Ratios within a round: both sides ran seconds apart, under the same drift.
        speedups = {key: results[key]["samples_per_sec"] / base
                    for key in keys if key != BASELINE}
        mirrored_vs_2t = (results["mirrored_2r"]["samples_per_sec"]
                          / results["onedevice_2t"]["samples_per_sec"])
        disturbed = {key: results[key]["other_cores"] for key in keys
                     if results[key].get("other_cores", 0.0) > DISTURBED_CORES}
        rounds.append({"order": list(order), "speedups": speedups,
                       "mirrored_vs_onedevice_2t": mirrored_vs_2t, "disturbed": disturbed,
                       **results})
        rates = ", ".join(f"{LABELS[key]} {results[key]['samples_per_sec']:.0f}/s"
                          for key in keys)
        print(f"  {model}@{BATCH_PER_REPLICA}/replica round {r + 1}/{args.rounds}: {rates}; "
              f"Mirrored speedup {speedups['mirrored_2r']:.2f}, "
              f"vs 2 threads {mirrored_vs_2t:.2f}", file=sys.stderr, flush=True)
        if disturbed:
            print("    other load beside " + ", ".join(
                f"{LABELS[key]}: {load:.2f} cores" for key, load in disturbed.items()),
                file=sys.stderr, flush=True)

    flops = {key: rounds[0][key]["train_flops_per_sample"] for key in keys}
    if any(abs(f - flops[BASELINE]) > 1e-6 * f for f in flops.values()):
        print(f"warning: {model} FLOPs per sample differ: {flops}", file=sys.stderr)
    summary = {"model": model, "batch_per_replica": BATCH_PER_REPLICA,
               "target_speedup": target, "train_flops_per_sample": flops[BASELINE]}
    for key, label, strategy, replicas, threads in CONTENDERS:
        rates = [rd[key]["samples_per_sec"] for rd in rounds]
        entry = {
            "label": label, "strategy": STRATEGY_NAMES[strategy], "replicas": replicas,
            "threads_per_replica": threads, "cores": cores[key],
            "global_batch": BATCH_PER_REPLICA * replicas,
            "samples_per_sec_median": statistics.median(rates),
            "samples_per_sec_min": min(rates), "samples_per_sec_max": max(rates),
            "gflops_median": statistics.median(rd[key]["gflops"] for rd in rounds),
            "peak_rss_bytes": max(rd[key]["wait4_peak_rss_bytes"] for rd in rounds),
            "process_cores_median": statistics.median(rd[key]["process_cores"]
                                                      for rd in rounds),
            # The pre-loaded dataset is 100 global batches, so it grows with the replicas;
            # reported so that the RSS of the rest can be told apart.
            "dataset_bytes": rounds[0][key]["dataset_bytes"],
        }
        if key != BASELINE:
            speedup = min_median_max([rd["speedups"][key] for rd in rounds])
            entry["speedup"] = speedup
            # Efficiency against perfect scaling on the cores the contender uses.
            entry["efficiency"] = {k: v / cores[key] for k, v in speedup.items()}
        summary[key] = entry
    summary["mirrored_vs_onedevice_2t"] = min_median_max(
        [rd["mirrored_vs_onedevice_2t"] for rd in rounds])
    summary["disturbed_rounds"] = [r + 1 for r, rd in enumerate(rounds) if rd["disturbed"]]
    if target is not None:
        summary["target_pass"] = summary["mirrored_2r"]["speedup"]["median"] >= target
    summary["rounds"] = rounds
    return summary


def triple(values):
    return "/".join(f"{values[k]:.2f}" for k in ("min", "median", "max"))


def print_table(summaries, rounds):
    print()
    print(f"Strategy scaling, {BATCH_PER_REPLICA} examples per replica, {os.cpu_count()} "
          f"cores (samples/s: median of {rounds} rounds; speedup over OneDevice 1 thread "
          "per round, min/median/max; efficiency = speedup / cores used; busy: CPU time / "
          "wall time of the whole process, start-up included, median; peak RSS: max over "
          "rounds, wait4 ru_maxrss, of which the pre-loaded dataset)")
    header = (f"{'model':<5} {'contender':<22} {'cores':>5} {'samples/s':>9} {'busy':>4} "
              f"{'speedup':>15} {'efficiency':>15} {'peak RSS':>10} {'dataset':>9}")
    print(header)
    print("-" * len(header))
    for s in summaries:
        for key, *_ in CONTENDERS:
            c = s[key]
            speedup = triple(c["speedup"]) if "speedup" in c else "baseline"
            efficiency = triple(c["efficiency"]) if "efficiency" in c else ""
            print(f"{s['model']:<5} {c['label']:<22} {c['cores']:>5} "
                  f"{c['samples_per_sec_median']:>9.0f} {c['process_cores_median']:>4.2f} "
                  f"{speedup:>15} {efficiency:>15} "
                  f"{c['peak_rss_bytes'] / MB:>8.1f}MB {c['dataset_bytes'] / MB:>7.1f}MB")
    disturbed = [f"{s['model']} round {r}" for s in summaries for r in s["disturbed_rounds"]]
    if disturbed:
        # Kept in the medians (that is what the median is for), but named: their ratios
        # measure the other load as much as the strategies.
        print(f"Disturbed (other processes or steal above {DISTURBED_CORES} core beside a "
              f"contender; kept in the medians): {', '.join(disturbed)}")
    print()
    print("Mirrored 2x1 thread against OneDevice with a 2-thread GEMM (samples/s ratio per "
          "round, min/median/max)")
    for s in summaries:
        print(f"{s['model']:<5} {triple(s['mirrored_vs_onedevice_2t'])}")
    print()
    print("Target: Mirrored 2x1 thread at least the target speedup over OneDevice 1 thread, "
          "on the median")
    for s in summaries:
        median = s["mirrored_2r"]["speedup"]["median"]
        if s["target_speedup"] is None:
            print(f"{s['model']:<5} {median:.2f}x  report only (no target)")
        else:
            print(f"{s['model']:<5} {median:.2f}x  target {s['target_speedup']:.1f}x  "
                  f"{verdict(s['target_pass'])}")


def main():
    args = parse_args()
    if not os.access(args.engine_bench, os.X_OK):
        print(f"bench_strategies: {args.engine_bench} is not an executable "
              "(build it with scripts/build.sh)", file=sys.stderr)
        return 2
    if args.rounds < 5 and not args.quick:
        print("bench_strategies: warning: fewer than 5 rounds", file=sys.stderr)
    # Two replicas and two GEMM threads are meant to use two cores; with fewer, the
    # contenders share one and the report measures oversubscription.
    if (os.cpu_count() or 1) < 2:
        print("bench_strategies: warning: fewer than 2 cores", file=sys.stderr)
    started = time.time()
    try:
        summaries = [run_model(args, model, target) for model, target in args.models]
    except RunError as e:
        print(f"bench_strategies: {e}", file=sys.stderr)
        return 1
    print_table(summaries, args.rounds)

    first = summaries[0]["rounds"][0][BASELINE] if summaries else {}
    report = {
        "benchmark": "training samples/s of distribution strategies against OneDevice, "
                     "interleaved",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "duration_seconds": time.time() - started,
        "host": platform.node(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "settings": {"seconds": args.seconds, "rounds": args.rounds,
                     "warmup_steps": args.warmup_steps, "quick": args.quick,
                     "batch_per_replica": BATCH_PER_REPLICA,
                     "contenders": [{"key": key, "label": label, "strategy": strategy,
                                     "replicas": replicas, "threads": threads}
                                    for key, label, strategy, replicas, threads
                                    in CONTENDERS]},
        "strata_blas": first.get("blas"),
        "results": summaries,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    print(f"results: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
