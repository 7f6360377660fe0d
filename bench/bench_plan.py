#!/usr/bin/python3
"""The scaling planner against real runs: predicted and measured throughput on this machine.

For each model (the MLP and the CNN of resources/experiments, on Fashion-MNIST, 1 compute
thread a worker), `strata plan EXP --json` probes this machine and predicts; then real jobs run
here, as the app launches them (`strata-engine train EXP --task T`, the job token on stdin, on
127.0.0.1, live events every 100 ms, the engine's default: an event a step cost the MLP's
sub-millisecond steps about 5%):

- MultiWorkerMirrored with 2 workers, and with 4 workers (4 processes on this machine's cores);
- ParameterServer with a coordinator, 2 workers and 1 ps, and with 4 workers.

Throughput: examples/s from the leader's step events (worker:0 for MWM, every step one global
batch; the coordinator for PS, every step one worker's batch) from the first step after the
warm-up to the last; each job long enough for about `--seconds` of steps (sized from the
prediction). `--rounds` rounds, the jobs in an order that reverses every other round; a fresh
probe before each round (the plan's median over the rounds is compared). Prints, per model and
job, predicted and measured (median, min-max), the error, whether the planner said the cores
were shared and whether it found its inputs too noisy; the machine's load beside them. Writes
build/bench/plan_accuracy.json. A report: exits 0 whatever the errors.

    /usr/bin/python3 bench/bench_plan.py --strata build/ui/strata --engine build/engine/strata-engine
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench_parameter_server import run_job
from bench_multiworker import free_port
from bench_train import cpu_model, thread_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = {"mlp": "fashion-mnist-mlp.strata.json", "cnn": "fashion-mnist-cnn.strata.json"}
# (key, strategy, workers): the jobs compared with their predictions.
JOBS = [("mwm2", "MultiWorkerMirrored", 2), ("ps2", "ParameterServer", 2),
        ("mwm4", "MultiWorkerMirrored", 4), ("ps4", "ParameterServer", 4)]
TARGETS = {2: 0.15, 4: 0.25}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strata", default=os.path.join(ROOT, "build", "ui", "strata"))
    parser.add_argument("--engine", default=os.path.join(ROOT, "build", "engine", "strata-engine"))
    parser.add_argument("--models", default="mlp,cnn")
    parser.add_argument("--jobs", default=",".join(k for k, *_ in JOBS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="measured seconds per job (default 4)")
    parser.add_argument("--warmup-steps", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 round, 1 s jobs, a quick probe")
    parser.add_argument("--output", default=os.path.join(ROOT, "build", "bench", "plan_accuracy.json"))
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.seconds = 1, 1.0
    return args


def base_experiment(model):
    with open(os.path.join(ROOT, "resources", "experiments", MODELS[model]), encoding="utf-8") as f:
        doc = json.load(f)
    doc["data"]["validation"] = "none"
    doc["data"]["evaluate_test"] = False
    doc["training"]["threads"] = 1
    doc["training"]["checkpoint"] = {"enabled": False}
    return doc


def job_experiment(base, strategy, workers, steps):
    doc = json.loads(json.dumps(base))
    doc["name"] = f"bench-plan-{strategy}-{workers}"
    port = free_port()
    if strategy == "MultiWorkerMirrored":
        doc["strategy"] = {"type": strategy, "timeout_seconds": 60}
        tasks = [{"type": "worker", "node": "local", "count": workers, "port": port}]
        names = [f"worker:{i}" for i in range(workers)]
        leader, per_step = "worker:0", workers * base["training"]["batch_size"]
    else:
        doc["strategy"] = {"type": strategy, "timeout_seconds": 30}
        tasks = [{"type": "chief", "node": "local", "port": free_port()},
                 {"type": "worker", "node": "local", "count": workers, "port": port},
                 {"type": "ps", "node": "local", "port": free_port()}]
        names = ["ps:0", "chief:0"] + [f"worker:{i}" for i in range(workers)]
        leader, per_step = "chief:0", base["training"]["batch_size"]
    doc["cluster"] = {"nodes": [{"name": "local", "host": "127.0.0.1"}], "tasks": tasks}
    doc["training"]["epochs"] = 1
    doc["training"]["steps_per_epoch"] = steps
    return doc, names, leader, per_step


def plan(args, folder, base):
    """`strata plan --json` on the 2-worker MultiWorkerMirrored form of the experiment."""
    doc, *_ = job_experiment(base, "MultiWorkerMirrored", 2, 10)
    path = os.path.join(folder, "plan.strata.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    cmd = [args.strata, "plan", path, "--json", "--workers", "1,2,4", "--engine", args.engine]
    if args.quick:
        cmd.append("--quick")
    # A run history of its own: the model's predictions, not the user's runs' calibration.
    env = dict(thread_env(1), STRATA_HISTORY=os.path.join(folder, "history.sqlite"))
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout)


def predicted(plan_json, strategy, workers):
    for p in plan_json["predictions"]:
        if p["strategy"] == strategy and p["workers"] == workers:
            return p
    raise KeyError(f"no prediction for {strategy} at {workers}")


def load():
    return os.getloadavg()[0]


def main():
    args = parse_args()
    jobs = [j for j in JOBS if j[0] in args.jobs.split(",")]
    print(f"bench_plan on {cpu_model()}, {os.cpu_count()} cores; {args.rounds} rounds, ~{args.seconds:g} s a job "
          f"after {args.warmup_steps} warm-up steps", flush=True)
    results = {}
    with tempfile.TemporaryDirectory(prefix="strata-bench-plan-") as folder:
        for model in args.models.split(","):
            base = base_experiment(model)
            plans, measured, loads = [], {k: [] for k, *_ in jobs}, []
            for r in range(args.rounds):
                loads.append(load())
                plans.append(plan(args, folder, base))
                order = jobs if r % 2 == 0 else jobs[::-1]
                for key, strategy, workers in order:
                    p = predicted(plans[-1], strategy, workers)
                    per_worker_step = p["step_s"]
                    steps = int(min(5000, max(40, args.seconds / per_worker_step)))
                    if strategy == "ParameterServer":
                        steps *= workers  # the coordinator counts every worker's steps
                    doc, names, leader, per_step = job_experiment(base, strategy, workers,
                                                                  args.warmup_steps * (workers if strategy == "ParameterServer" else 1) + steps)
                    skip = args.warmup_steps * (workers if strategy == "ParameterServer" else 1)
                    rate = run_job(args, folder, doc, names, leader, skip, per_step, event_interval_ms=None)
                    measured[key].append(rate)
                    print(f"  {model} round {r + 1}: {key} predicted {p['samples_per_s']:.0f}/s, measured {rate:.0f}/s "
                          f"(load {load():.1f})", file=sys.stderr, flush=True)
                loads.append(load())
            rows = {}
            for key, strategy, workers in jobs:
                pred = statistics.median(predicted(pl, strategy, workers)["samples_per_s"] for pl in plans)
                meas = statistics.median(measured[key])
                p0 = predicted(plans[0], strategy, workers)
                rows[key] = {"strategy": strategy, "workers": workers, "predicted": pred, "measured": meas,
                             "measured_min": min(measured[key]), "measured_max": max(measured[key]),
                             "predictions": [predicted(pl, strategy, workers)["samples_per_s"] for pl in plans],
                             "measurements": measured[key], "error": (pred - meas) / meas,
                             "target": TARGETS.get(workers), "cores_shared": p0["cores_shared"],
                             "limit": p0["terms"]["limit"]}
            results[model] = {"rows": rows, "noisy": [pl["noise"]["too_noisy"] for pl in plans],
                              "noise": [pl["noise"]["text"] for pl in plans],
                              "warnings": [w["text"] for w in plans[0]["warnings"]],
                              "load": loads, "probe": plans[0]["probe"]}
    print()
    print(f"{'model':<5} {'job':<26} {'predicted':>10} {'measured (min-max)':>24} {'error':>7} {'target':>6}  notes")
    for model, res in results.items():
        for key, row in res["rows"].items():
            label = f"{row['strategy']} {row['workers']}w" + (" + 1 ps" if row["strategy"] == "ParameterServer" else "")
            notes = [row["limit"]] + (["shared cores said"] if row["cores_shared"] else [])
            within = abs(row["error"]) <= row["target"] if row["target"] else None
            print(f"{model:<5} {label:<26} {row['predicted']:>10.0f} {row['measured']:>9.0f} "
                  f"({row['measured_min']:.0f}-{row['measured_max']:.0f}){'':>2} {row['error'] * 100:>+6.1f}% "
                  f"{row['target'] * 100 if row['target'] else 0:>5.0f}%  {', '.join(notes)}"
                  f"{'' if within is None else ('  ok' if within else '  MISSED')}")
        print(f"      load average {min(res['load']):.1f}-{max(res['load']):.1f}; too noisy: {res['noisy']}")
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump({"cpu": cpu_model(), "cores": os.cpu_count(), "args": vars(args), "results": results}, f, indent=1)
    print(f"results: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
