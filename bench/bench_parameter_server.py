#!/usr/bin/python3
"""ParameterServer against MultiWorkerMirrored: 2 workers training the CNN and the MLP.

Real jobs on 127.0.0.1, as the app launches them (the job token on stdin):
- MultiWorkerMirrored: worker:0 and worker:1, each a replica of `--batch` examples a step
  (one step trains 2 x batch examples, every worker's gradients all-reduced through Gloo);
- ParameterServer: chief:0 (the coordinator), worker:0, worker:1 and ps:0; each step is one
  worker's batch of `--batch` examples (pull, compute, push over ZeroMQ with CURVE), the two
  workers stepping asynchronously; twice MWM's steps, so both train the same examples.
Every task computes with 1 GEMM thread (`training.threads` 1), so the 2 workers use the
machine's 2 cores in both; the ps and the coordinator share them.

Throughput: examples/s from the job's first step after `--warmup-steps` (MWM's steps; twice
as many PS steps) to its end, from the step events' wall clock (worker:0's for MWM, the
coordinator's for PS). Per round (`--rounds`) one job each, the order reversing every other
round; medians and PS / MWM per round (min/median/max). A report, no target: exits 0.

    python3 bench/bench_parameter_server.py --engine build/engine/strata-engine
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench_multiworker import CNN, free_port, make_dataset
from bench_train import RunError, cpu_model, thread_env

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOKEN = b"bench-parameter-server-token\n"
# The seeds' MLP (784-128-10), on random 28x28 images.
MLP = {"input_shape": [28, 28],
       "layers": [{"type": "Flatten"}, {"type": "Dense", "units": 128, "activation": "relu"},
                  {"type": "Dense", "units": 10}]}
JOB_TIMEOUT_S = 600


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=os.path.join(ROOT, "build", "engine", "strata-engine"))
    parser.add_argument("--models", default="mlp,cnn")
    parser.add_argument("--steps", type=int, default=200, help="measured MWM steps (default 200)")
    parser.add_argument("--warmup-steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch", type=int, default=32, help="examples per worker per step (default 32)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 round of 20 + 5 steps")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.warmup_steps, args.rounds = 20, 5, 1
    return args


def experiment(model, source, strategy, steps, batch, tasks):
    return {
        "strata": 1, "name": "bench-ps", "seed": 42, "strategy": strategy, "model": model,
        "data": {"source": source, "validation": "none"},
        "training": {"epochs": 1, "steps_per_epoch": steps, "batch_size": batch,
                     "loss": {"type": "sparse_categorical_crossentropy", "from_logits": True},
                     "metrics": [], "optimizer": {"type": "adam", "learning_rate": 1e-3},
                     "threads": 1, "checkpoint": {"enabled": False}},
        "cluster": {"nodes": [{"name": "local", "host": "127.0.0.1"}],
                    "tasks": [{"type": t, "node": "local", "count": n, "port": free_port() if n == 1 else p}
                              for t, n, p in tasks]},
    }


def run_job(args, folder, doc, names, leader, skip_steps, examples_per_step, event_interval_ms=1):
    """Runs the job; returns examples/s measured on `leader`'s step events after `skip_steps`.
    `event_interval_ms` None: the engine's own window (100 ms), as the app launches a job."""
    fd, path = tempfile.mkstemp(suffix=".strata.json", dir=folder)
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    run_dir = tempfile.mkdtemp(prefix="run-", dir=folder)
    procs = []
    for name in names:
        cmd = [args.engine, "train", path, "--task", name, "--run-dir", run_dir, "--events", "stdout", "--quiet"]
        if event_interval_ms is not None:
            cmd += ["--event-interval-ms", str(event_interval_ms)]
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=thread_env(1))
        p.stdin.write(TOKEN)
        p.stdin.close()
        procs.append((name, p))
    deadline = time.monotonic() + JOB_TIMEOUT_S
    for name, p in procs:
        try:
            p.wait(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for _, q in procs:
                q.kill()
            raise RunError(f"{name} did not end within {JOB_TIMEOUT_S} s")
        if p.returncode != 0:
            raise RunError(f"{name} exited with {p.returncode}: {p.stderr.read().decode(errors='replace')}")
    with open(os.path.join(run_dir, f"events-{leader.replace(':', '-')}.jsonl"), encoding="utf-8") as f:
        steps = [e for e in map(json.loads, f) if e["type"] == "step"]
    # Step events carry the steps completed so far and their time: the rate over the steps
    # after the warm-up.
    first = next(e for e in steps if e["step"] >= skip_steps)
    last = steps[-1]
    return (last["step"] - first["step"]) * examples_per_step / (last["t"] - first["t"])


def main():
    args = parse_args()
    print(f"bench_parameter_server on {cpu_model()}, {os.cpu_count()} cores; batch {args.batch} per worker, "
          f"{args.steps} MWM steps ({2 * args.steps} PS steps) after the warm-up, {args.rounds} rounds")
    results = {}
    with tempfile.TemporaryDirectory(prefix="strata-bench-ps-") as folder:
        steps = args.warmup_steps + args.steps
        for name in args.models.split(","):
            model = CNN if name == "cnn" else MLP
            shape = model["input_shape"]
            source = make_dataset(folder, 4096) if name == "cnn" else {
                "type": "synthetic", "task": "classification", "samples": 4096, "test_samples": 16,
                "features": shape[0] * shape[1], "classes": 10}
            if name != "cnn":
                model = dict(MLP, input_shape=[shape[0] * shape[1]], layers=MLP["layers"][1:])
            rates = {"mwm": [], "ps": []}
            for r in range(args.rounds):
                order = ["mwm", "ps"] if r % 2 == 0 else ["ps", "mwm"]
                for kind in order:
                    if kind == "mwm":
                        port = free_port()
                        doc = experiment(model, source, {"type": "MultiWorkerMirrored", "timeout_seconds": 60},
                                         steps, args.batch, [("worker", 2, port)])
                        rate = run_job(args, folder, doc, ["worker:0", "worker:1"], "worker:0", args.warmup_steps,
                                       2 * args.batch)
                    else:
                        port = free_port()
                        doc = experiment(model, source, {"type": "ParameterServer", "timeout_seconds": 30},
                                         2 * steps, args.batch, [("chief", 1, 0), ("worker", 2, port), ("ps", 1, 0)])
                        rate = run_job(args, folder, doc, ["ps:0", "chief:0", "worker:0", "worker:1"], "chief:0",
                                       2 * args.warmup_steps, args.batch)
                    rates[kind].append(rate)
            ratios = [p / m for p, m in zip(rates["ps"], rates["mwm"])]
            results[name] = {"mwm": rates["mwm"], "ps": rates["ps"], "ratio": ratios}
            print(f"{name}: MultiWorkerMirrored {statistics.median(rates['mwm']):8.0f} examples/s, "
                  f"ParameterServer {statistics.median(rates['ps']):8.0f} examples/s, PS / MWM "
                  f"{min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f} (min/median/max)")
    out = os.path.join(ROOT, "build", "bench", "parameter_server.json")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"cpu": cpu_model(), "args": vars(args), "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
