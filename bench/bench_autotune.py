#!/usr/bin/python3
"""Tuned buckets against fixed ones: MultiWorkerMirrored, 2 local workers, the MLP and the CNN.

Real jobs, as the app launches them (bench_multiworker.py's way: `strata-engine train EXP
--task worker:N --run-dir DIR --events stdout`, the token on stdin, 127.0.0.1), one replica
of `--batch` examples per worker with a 1-thread GEMM. Per model, the contenders are
`strategy.bucket_bytes` fixed at each of `--bucket-sizes` and the engine's default, and
"auto" (docs/tuning.md). Every job runs the same steps: as many as "auto" takes to tune (read
from its `placement` in an unmeasured job first) plus 2, then `--steps` measured ones. Per
round one job per contender, in an order that reverses every other round. The round-to-round
spread of one configuration against itself (the MLP's fixed sizes all make its one bucket)
is the noise that the ratios below must be read against.

Throughput: examples/s from the end of the last unmeasured step to the end of the last one,
by the step events' wall-clock `t` (one event per step), summed over the 2 tasks: what "auto"
gives once tuned. Also, from the end of step 1 (the first step's start-up left out) to the
end: the whole run, the tuning included. Per round: auto over the best fixed setting (the one
of the highest median, fixed settings that ran the same buckets and algorithm pooled as one
configuration) and over the default; reported: their min/median/max, and what "auto" chose.
The acceptance (issue 28): auto within 5% of the best fixed setting and not below the default;
where auto ran the compared configuration itself in every round the verdict is SAME (the ratio
is one configuration against itself). Exits 0 when missed: it is a report.

    python3 bench/bench_autotune.py --engine build/engine/strata-engine
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from bench_multiworker import free_port, human, parse_bytes, write_idx
from bench_train import RunError, cpu_model, thread_env, verdict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
JOB_TIMEOUT_S = 600
AUTO = "auto"

# bench/bench_models.h's MLP and CNN (keep them equal), trained as bench/README.md trains them:
# Adam 1e-3, cross-entropy from logits, no metrics.
MODELS = {
    "mlp": {"input_shape": [28, 28], "layers": [
        {"type": "Flatten"},
        {"type": "Dense", "units": 128, "activation": "relu"},
        {"type": "Dense", "units": 10}]},
    "cnn": {"input_shape": [32, 32, 3], "layers": [
        {"type": "Conv2D", "filters": 32, "kernel_size": 3, "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Conv2D", "filters": 64, "kernel_size": 3, "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Flatten"},
        {"type": "Dense", "units": 64, "activation": "relu"},
        {"type": "Dense", "units": 10}]},
}
CLASSES = 10
EXAMPLES = 4096
MEASURED_STEPS = {"mlp": 400, "cnn": 60}
BATCH = {"mlp": 256, "cnn": 64}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=os.path.join(ROOT, "build", "engine", "strata-engine"))
    parser.add_argument("--models", default="mlp,cnn")
    parser.add_argument("--bucket-sizes", default="64K,256K,1M",
                        help="fixed bucket sizes (the engine's default is always added)")
    parser.add_argument("--batch", type=int, default=0,
                        help="examples per replica per step (default: 256 for the MLP, 64 for the CNN)")
    parser.add_argument("--steps", type=int, default=0,
                        help="measured steps, after tuning (default: 400 for the MLP's steps of a few "
                             "milliseconds, 60 for the CNN's of about 20)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--output", default=os.path.join(ROOT, "build", "bench", "autotune.json"))
    parser.add_argument("--quick", action="store_true", help="smoke run: 2 rounds of 3 steps (not a report)")
    parser.add_argument("--report", help="print the tables of a JSON file this benchmark wrote, and run nothing")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.rounds = 3, 2
    args.buckets = sorted({parse_bytes(s) for s in args.bucket_sizes.split(",") if s})
    return args


def make_dataset(folder, model):
    rng = random.Random(42)
    shape = MODELS[model]["input_shape"]
    size = 1
    for d in shape:
        size *= d
    images = os.path.join(folder, f"{model}-images.idx")
    labels = os.path.join(folder, f"{model}-labels.idx")
    write_idx(images, [EXAMPLES, *shape], rng.randbytes(EXAMPLES * size))
    write_idx(labels, [EXAMPLES], bytes(rng.randrange(CLASSES) for _ in range(EXAMPLES)))
    return {"type": "idx", "train_images": images, "train_labels": labels}


def run_job(args, folder, model, source, bucket, steps):
    """One 2-worker job of `steps` steps; returns each task's events."""
    strategy = {"type": "MultiWorkerMirrored", "timeout_seconds": 60}
    if bucket is not None:
        strategy["bucket_bytes"] = bucket
    doc = {
        "strata": 1, "name": "bench-autotune", "seed": 42, "strategy": strategy,
        "model": MODELS[model],
        "data": {"source": source, "validation": "none"},
        "training": {"epochs": 1, "steps_per_epoch": steps, "batch_size": args.batch or BATCH[model],
                     "loss": {"type": "sparse_categorical_crossentropy", "from_logits": True},
                     "metrics": [], "optimizer": {"type": "adam", "learning_rate": 1e-3},
                     "threads": 1, "checkpoint": {"enabled": False}},
        "cluster": {"nodes": [{"name": "local", "host": "127.0.0.1"}],
                    "tasks": [{"type": "worker", "node": "local", "count": 2, "port": free_port()}]},
    }
    fd, exp_path = tempfile.mkstemp(suffix=".strata.json", dir=folder)
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    run_dir = tempfile.mkdtemp(prefix="run-", dir=folder)
    procs = []
    for i in range(2):
        cmd = [args.engine, "train", exp_path, "--run-dir", run_dir, "--events", "stdout", "--quiet",
               "--event-interval-ms", "1", "--task", f"worker:{i}"]
        out = tempfile.TemporaryFile(dir=folder)
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.PIPE, env=thread_env(1))
        p.stdin.write(b"bench-autotune-token\n")
        p.stdin.close()
        p.stdin = None  # communicate() then only waits
        procs.append((p, out, cmd))
    events = []
    for p, out, cmd in procs:
        try:
            _, err = p.communicate(timeout=JOB_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            for q, *_ in procs:
                q.kill()
            raise RunError(f"job did not end within {JOB_TIMEOUT_S} s")
        out.seek(0)
        text = out.read().decode(errors="replace")
        if p.returncode != 0:
            raise RunError(f"{' '.join(cmd)} exited with {p.returncode}:\n{err.decode(errors='replace')}")
        events.append([json.loads(line) for line in text.splitlines() if line.startswith("{")])
    return events, run_dir


def rate(events, first, last):
    """Examples/s of the job from the end of step `first` to the end of step `last`."""
    total = 0.0
    for task in events:
        steps = {e["step"]: e for e in task if e["type"] == "step"}
        if first not in steps or last not in steps or any(e["steps"] != 1 for e in steps.values()):
            raise RunError("expected one step event per step")
        samples = sum(sum(r["samples"] for r in steps[s]["replicas"]) for s in range(first + 1, last + 1))
        total += samples / (steps[last]["t"] - steps[first]["t"])
    return total


def tuning_steps(args, folder, model, source):
    events, _ = run_job(args, folder, model, source, AUTO, 1)
    placement = next(e for e in events[0] if e["type"] == "placement")
    return placement["reduction"]["tuning"]["steps"], placement["reduction"]["bytes_per_step"]


def bench_model(args, folder, model):
    source = make_dataset(folder, model)
    tuning, gradient = tuning_steps(args, folder, model, source)
    unmeasured = tuning + 2
    measured = args.steps or MEASURED_STEPS[model]
    steps = unmeasured + measured
    default = None
    # Labels (also the results' keys, which JSON keeps as text) and what bucket_bytes they set.
    setting = {AUTO: AUTO, **{human(b): b for b in args.buckets}, "default": None}
    contenders = list(setting)
    rounds = []
    for r in range(args.rounds):
        order = contenders if r % 2 == 0 else contenders[::-1]
        results = {}
        for c in order:
            events, run_dir = run_job(args, folder, model, source, setting[c], steps)
            last = next(e for e in reversed(events[0]) if e["type"] == "placement")["reduction"]
            if c == "default":
                default = last["bucket_bytes"]
            results[c] = {"rate": rate(events, unmeasured, steps), "whole": rate(events, 1, steps),
                          "bucket_bytes": last["bucket_bytes"], "buckets": last["buckets"],
                          "algorithm": last.get("algorithm"), "tuning": last.get("tuning")}
            if c == AUTO:
                with open(os.path.join(run_dir, "tuning.json"), encoding="utf-8") as f:
                    results[c]["tuning_log"] = json.load(f)
        rounds.append({"order": order, "results": results, "load": os.getloadavg()[0]})
        t = results[AUTO]["tuning"]
        print(f"  {model} round {r + 1}/{args.rounds}: " +
              ", ".join(f"{c} {results[c]['rate']:.0f}/s" for c in contenders) +
              f"; auto chose {human(results[AUTO]['bucket_bytes'])} x{results[AUTO]['buckets']}, {t['all_reduce']}"
              f" ({t['speedup']:.3f}x the default in tuning)", file=sys.stderr, flush=True)
    return {"model": model, "batch": args.batch or BATCH[model], "gradient_bytes": gradient, "tuning_steps": tuning, "unmeasured_steps": unmeasured,
            "measured_steps": measured, "default_bucket": default, "contenders": contenders, "rounds": rounds}


def triple(values):
    return f"{min(values):.3f}/{statistics.median(values):.3f}/{max(values):.3f}"


def configuration(result):
    """What a job reduced by: its buckets and algorithm (fixed sizes whose buckets come out the
    same, e.g. every size at least the MLP's one big variable, are one configuration)."""
    return (result["buckets"], result.get("algorithm"))


def compare(rep):
    """Per round, auto over the best fixed configuration and over the default, once tuned and
    over the whole run. Fixed settings that ran the same configuration are pooled (their jobs are
    draws of one thing); the best is the configuration of the highest median over the rounds
    (the best of each round alone would be the luckiest of several noisy draws)."""
    rounds = rep["rounds"]
    fixed = [c for c in rep["contenders"] if c != AUTO]
    groups = {}
    for c in fixed:
        groups.setdefault(configuration(rounds[-1]["results"][c]), []).append(c)
    best = max(groups.values(), key=lambda g: statistics.median(r["results"][c]["rate"] for r in rounds for c in g))
    rep["best_fixed"] = best
    rep["configurations"] = [{"buckets": k[0], "algorithm": k[1], "settings": g} for k, g in groups.items()]
    # Reports written before the algorithm was kept cannot tell.
    def auto_ran(contender):
        reference = configuration(rounds[-1]["results"][contender])
        return reference[1] is not None and all(configuration(r["results"][AUTO]) == reference for r in rounds)
    rep["auto_ran_best"] = auto_ran(best[0])
    rep["auto_ran_default"] = auto_ran("default")
    for r in rounds:
        res = r["results"]
        r["auto_vs_best"] = res[AUTO]["rate"] / statistics.mean(res[c]["rate"] for c in best)
        r["auto_vs_default"] = res[AUTO]["rate"] / res["default"]["rate"]
        r["auto_whole_vs_default"] = res[AUTO]["whole"] / res["default"]["whole"]


def print_report(reports):
    print(f"\nCPU: {cpu_model()}; load now: {os.getloadavg()[0]:.2f}")
    for rep in reports:
        compare(rep)
        rounds = rep["rounds"]
        print(f"\n{rep['model']}: batch {rep['batch']} per worker, gradient {rep['gradient_bytes'] / 1024:.1f} KiB, "
              f"tuning {rep['tuning_steps']} steps, load average {triple([r['load'] for r in rounds])}, "
              f"{rep['measured_steps']} measured after {rep['unmeasured_steps']}, {len(rounds)} rounds")
        print("| bucket_bytes | buckets | examples/s (median) | over the default (min/median/max) |")
        print("|---|---|---|---|")
        for c in rep["contenders"]:
            rates = [r["results"][c]["rate"] for r in rounds]
            ratios = [r["results"][c]["rate"] / r["results"]["default"]["rate"] for r in rounds]
            name = f"{human(rep['default_bucket'])} (default)" if c == "default" else c
            print(f"| {name} | {rounds[-1]['results'][c]['buckets']} | {statistics.median(rates):,.0f} | "
                  f"{triple(ratios)} |")
        best = [r["auto_vs_best"] for r in rounds]
        default = [r["auto_vs_default"] for r in rounds]
        whole = [r["auto_whole_vs_default"] for r in rounds]
        chosen = {}
        for r in rounds:
            a = r["results"][AUTO]
            key = f"{human(a['bucket_bytes'])} x{a['buckets']}, {a['tuning']['all_reduce']}"
            chosen[key] = chosen.get(key, 0) + 1
        for g in rep["configurations"]:
            if len(g["settings"]) > 1:
                how = f"{g['buckets']} bucket(s)" + (f", {g['algorithm']}" if g["algorithm"] else "")
                print(f"one configuration ({how}): {', '.join(g['settings'])}")
        print(f"auto / the best fixed ({', '.join(rep['best_fixed'])}, their mean per round): {triple(best)}; "
              f"auto / default: {triple(default)}; whole run, tuning included, auto / default: {triple(whole)}")
        print("auto chose: " + "; ".join(f"{k} ({n} of {len(rounds)})" for k, n in chosen.items()))
        # Where auto ran the very configuration it is compared with in every round, the ratio is
        # that configuration against itself: the verdict says so rather than reading the noise.
        same = "SAME (auto ran this configuration in every round; the ratios above are the noise)"
        print(f"within 5% of the best fixed (median): "
              f"{same if rep['auto_ran_best'] else verdict(statistics.median(best) >= 0.95)}; "
              f"not below the default (median): "
              f"{same if rep['auto_ran_default'] else verdict(statistics.median(default) >= 0.99)}")


def main():
    args = parse_args()
    if args.report:
        with open(args.report, encoding="utf-8") as f:
            print_report(json.load(f)["reports"])
        return
    reports = []
    with tempfile.TemporaryDirectory(prefix="strata-autotune-") as folder:
        for model in args.models.split(","):
            reports.append(bench_model(args, folder, model))
    print_report(reports)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump({"cpu": cpu_model(), "reports": reports}, f, indent=1)
    print(f"\nwrote {args.output}")


if __name__ == "__main__":
    try:
        main()
    except RunError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
