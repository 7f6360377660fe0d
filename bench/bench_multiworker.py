#!/usr/bin/python3
"""MultiWorkerMirrored scaling: the CNN trained by 1 and 2 strata-engine worker processes.

Real jobs, as the app launches them: `strata-engine train EXP --task worker:N --run-dir DIR
--events stdout`, the job token on stdin, the workers joining through worker:0's rendezvous
on 127.0.0.1. Each worker has one local replica of 256 examples with a 1-thread GEMM
(`training.threads` 1), so 2 workers use the machine's 2 cores; the global batch grows with
the workers. Per round (`--rounds`), one job per contender, in an order that reverses every
other round:

- OneDevice, one process: the baseline;
- 2 OneDevice processes side by side, each its own run: no communication at all, what the
  machine gives two processes (its limit for 2 workers);
- Mirrored, 2 replicas on threads of one process: the same 2 cores without processes or TCP;
- MultiWorkerMirrored with 1 worker;
- MultiWorkerMirrored with 2 workers, for each gradient bucket size (`--bucket-sizes`, plus
  the engine's default, read from the placement event of an unmeasured job run first).

Throughput: examples/s over the steps after `--warmup-steps`, from the step events'
wall-clock times (`t`, one event per step), summed over the job's tasks (each task's events
count its own replicas' examples); the steps' own records split each step into compute,
comm and input. Prints the medians, scaling = examples/s over OneDevice's in the same round
(min/median/max), efficiency = scaling / 2, the 2-worker jobs against the other two-core
contenders, and the target (the default bucket: at least 1.7x OneDevice). Writes everything
to a JSON file. Exits 0 when the target is missed: it is a report. Needs no PyTorch.

    python3 bench/bench_multiworker.py --engine build/engine/strata-engine
"""

import argparse
import glob
import json
import os
import platform
import random
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

# Host description, thread environment and the verdict words are bench_train.py's; the other
# load beside a job is counted as bench_strategies.py counts it.
from bench_train import MB, RunError, cpu_model, thread_env, verdict
from bench_strategies import DISTURBED_CORES, host_busy_seconds, min_median_max, triple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

DEFAULT_BATCH_PER_REPLICA = 256
TARGET_SCALING = 1.7
# The CNN of bench/README.md (bench/bench_models.h's kCnn; keep the two equal), trained as there: Adam
# 1e-3, cross-entropy from logits, no metrics.
CNN = {
    "input_shape": [32, 32, 3],
    "layers": [
        {"type": "Conv2D", "filters": 32, "kernel_size": 3, "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Conv2D", "filters": 64, "kernel_size": 3, "activation": "relu"},
        {"type": "MaxPooling2D"},
        {"type": "Flatten"},
        {"type": "Dense", "units": 64, "activation": "relu"},
        {"type": "Dense", "units": 10},
    ],
}
CLASSES = 10
# Random images in the dataset, in global batches of the largest job (the stream repeats).
DATASET_BATCHES = 8
BASELINE = "onedevice"
MIRRORED = "mirrored_2r"
INDEPENDENT = "independent_2p"
JOB_TIMEOUT_S = 300


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default=os.path.join(ROOT, "build", "engine", "strata-engine"),
                        help="the strata-engine binary")
    parser.add_argument("--steps", type=int, default=20,
                        help="measured steps per job, after the warm-up (default 20)")
    parser.add_argument("--warmup-steps", type=int, default=5,
                        help="steps per job not measured (default 5)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds (default 5, at least 5 for a report)")
    # The CNN's gradient (654.5 KiB, 576 KiB of it the first Dense kernel) makes 3 buckets of
    # 64 KiB, 2 of 256 KiB, and 1 of anything from 651 KiB up (the default).
    parser.add_argument("--bucket-sizes", default="64K,256K",
                        help="gradient bucket sizes of the 2-worker jobs, bytes with an optional "
                             "K or M suffix (the engine's default is always added)")
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH_PER_REPLICA,
                        help="examples per replica per step (default 256)")
    parser.add_argument("--output",
                        default=os.path.join(ROOT, "build", "bench", "multiworker_scaling.json"),
                        help="JSON results file")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 2 rounds of 3 + 3 steps (not a valid report)")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.warmup_steps, args.rounds = 3, 3, 2
    try:
        args.buckets = sorted({parse_bytes(s) for s in args.bucket_sizes.split(",") if s})
    except ValueError as e:
        parser.error(f"--bucket-sizes: {e}")
    return args


def parse_bytes(text):
    scale = {"K": 1 << 10, "M": 1 << 20}.get(text[-1:].upper(), 1)
    return int(text[:-1] if scale > 1 else text) * scale


def human(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n / 1024:g} KiB"


def write_idx(path, dims, data):
    """An IDX file of unsigned bytes (the format the `idx` source reads)."""
    with open(path, "wb") as f:
        f.write(bytes([0, 0, 0x08, len(dims)]))
        f.write(struct.pack(f">{len(dims)}i", *dims))
        f.write(data)


def make_dataset(folder, examples):
    rng = random.Random(42)
    shape = CNN["input_shape"]
    images = os.path.join(folder, "train-images.idx")
    labels = os.path.join(folder, "train-labels.idx")
    write_idx(images, [examples, *shape], rng.randbytes(examples * shape[0] * shape[1] * shape[2]))
    write_idx(labels, [examples], bytes(rng.randrange(CLASSES) for _ in range(examples)))
    return {"type": "idx", "train_images": images, "train_labels": labels}


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def experiment(source, steps, strategy, workers, batch):
    doc = {
        "strata": 1, "name": "bench-multiworker", "seed": 42,
        "strategy": strategy,
        "model": CNN,
        "data": {"source": source, "validation": "none"},
        "training": {"epochs": 1, "steps_per_epoch": steps, "batch_size": batch,
                     "loss": {"type": "sparse_categorical_crossentropy", "from_logits": True},
                     "metrics": [], "optimizer": {"type": "adam", "learning_rate": 1e-3},
                     "threads": 1, "checkpoint": {"enabled": False}},
    }
    if workers:
        doc["cluster"] = {"nodes": [{"name": "local", "host": "127.0.0.1"}],
                          "tasks": [{"type": "worker", "node": "local", "count": workers,
                                     "port": free_port()}]}
    return doc


def contenders(args, default_bucket):
    """(key, label, workers, bucket_bytes or None): workers 0 is one process (OneDevice, or
    Mirrored with 2 replicas on threads: the same 2 cores without processes or TCP)."""
    out = [(BASELINE, "OneDevice, 1 process", 0, None),
           (INDEPENDENT, "2 OneDevice side by side", 0, None),
           (MIRRORED, "Mirrored 2x1, 1 process", 0, None),
           ("mwm_1w", "MWM 1 worker", 1, None)]
    for b in sorted(set(args.buckets) | {default_bucket}):
        mark = " (default)" if b == default_bucket else ""
        out.append((f"mwm_2w_{b}", f"MWM 2 workers, {human(b)}{mark}", 2, b))
    return out


def run_job(args, folder, source, key, workers, bucket):
    """Runs one job to its end; returns what its tasks measured, and the job's CPU use."""
    steps = args.warmup_steps + args.steps
    if workers:
        strategy = {"type": "MultiWorkerMirrored", "timeout_seconds": 60}
        if bucket is not None:
            strategy["bucket_bytes"] = bucket
    elif key == MIRRORED:
        strategy = {"type": "Mirrored", "devices": ["cpu:0", "cpu:1"]}
    else:
        strategy = {"type": "OneDevice"}
    doc = experiment(source, steps, strategy, workers, args.batch)
    fd, exp_path = tempfile.mkstemp(suffix=".strata.json", dir=folder)
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    # (task, run directory) per process: a job's tasks share one; independent processes
    # (INDEPENDENT) are separate runs.
    run_dir = tempfile.mkdtemp(prefix="run-", dir=folder)
    tasks = [(f"worker:{i}", run_dir) for i in range(workers)] or [(None, run_dir)]
    if key == INDEPENDENT:
        tasks.append((None, tempfile.mkdtemp(prefix="run-", dir=folder)))
    env = thread_env(1)
    procs = []
    busy_before, started = host_busy_seconds(), time.monotonic()
    for task, task_dir in tasks:
        cmd = [args.engine, "train", exp_path, "--run-dir", task_dir, "--events", "stdout",
               "--quiet", "--event-interval-ms", "1"]
        if task:
            cmd += ["--task", task]
        out = tempfile.TemporaryFile(dir=folder)
        err = tempfile.TemporaryFile(dir=folder)
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=out, stderr=err, env=env)
        if task:
            p.stdin.write(b"bench-multiworker-token\n")
        p.stdin.close()
        procs.append((task_dir, p, out, err, cmd))
    cpu, failures, outputs = 0.0, [], {}
    deadline = time.monotonic() + JOB_TIMEOUT_S
    for (task, task_dir), (_, p, out, err, cmd) in zip(tasks, procs):
        # wait4 for the kernel's accounting of exactly this process.
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                for _, q, *_ in procs:
                    q.kill()
                raise RunError(f"job did not end within {JOB_TIMEOUT_S} s")
            time.sleep(0.01)
        p.returncode = os.waitstatus_to_exitcode(status)
        cpu += usage.ru_utime + usage.ru_stime
        out.seek(0)
        err.seek(0)
        outputs[task_dir, task] = out.read().decode(errors="replace")
        if p.returncode != 0:
            failures.append(f"{' '.join(cmd)} exited with {p.returncode}:\n"
                            f"{err.read().decode(errors='replace')}\n"
                            f"{outputs[task_dir, task][-2000:]}")
    wall, busy_after = time.monotonic() - started, host_busy_seconds()
    if failures:
        raise RunError("\n".join(failures))

    # Each task's events and step records count its own replicas' examples: the job's
    # throughput is the sum over its tasks (they step together).
    rate, rate_steps, batch, parts, placement = 0.0, 0.0, 0, [], {}
    for task, task_dir in tasks:
        events = [json.loads(line) for line in outputs[task_dir, task].splitlines()
                  if line.startswith("{")]
        if (task, task_dir) == tasks[0]:
            placement = next((e for e in events if e["type"] == "placement"), {})
        done = next((e for e in events if e["type"] == "done"), {})
        if done.get("steps") != steps:
            raise RunError(f"{task or 'the job'} ended after {done.get('steps')} steps, "
                           f"expected {steps}")
        name = (task or "").replace(":", "-")
        files = glob.glob(os.path.join(task_dir, f"steps-{name}*.jsonl"))
        if len(files) != 1:
            raise RunError(f"expected one step record file for {task}, found {files}")
        with open(files[0], encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        measured = [r for r in records if r["step"] > args.warmup_steps]
        # Wall clock from the end of the last warm-up step to the end of the last step: every
        # step event is one step (--event-interval-ms 1 against steps of tens of milliseconds).
        by_step = {e["step"]: e for e in events if e["type"] == "step"}
        if (args.warmup_steps not in by_step or steps not in by_step
                or any(e["steps"] != 1 for e in by_step.values())):
            raise RunError("expected one step event per step")
        samples = sum(r["samples"] for r in measured)
        rate += samples / (by_step[steps]["t"] - by_step[args.warmup_steps]["t"])
        # The same from the steps' own durations (what lies between steps left out).
        rate_steps += samples / (sum(r["step_ms"] for r in measured) / 1000.0)
        batch += measured[0]["samples"]
        parts.append({field: statistics.fmean(r[field] for r in measured)
                      for field in ("step_ms", "compute_ms", "comm_ms", "input_ms")})
    result = {
        "samples_per_sec": rate,
        "samples_per_sec_steps": rate_steps,
        "global_batch": batch,
        # Mean per step over the measured steps, averaged over the tasks.
        **{field: statistics.fmean(p[field] for p in parts) for field in parts[0]},
        "tasks": parts,
        "job_cores": cpu / wall,
        "reduction": placement.get("reduction"),
        "strategy": placement.get("strategy"),
    }
    if busy_before is not None and busy_after is not None:
        result["other_cores"] = max(0.0, busy_after - busy_before - cpu) / wall
    return result


def run_rounds(args, folder, source, keys):
    rounds = []
    labels = {key: label for key, label, *_ in keys}
    for r in range(args.rounds):
        order = keys if r % 2 == 0 else keys[::-1]
        results = {key: run_job(args, folder, source, key, workers, bucket)
                   for key, _, workers, bucket in order}
        base = results[BASELINE]["samples_per_sec"]
        one = results["mwm_1w"]["samples_per_sec"]
        scaling = {key: results[key]["samples_per_sec"] / base for key, *_ in keys if key != BASELINE}
        scaling_1w = {key: results[key]["samples_per_sec"] / one
                      for key, _, workers, _ in keys if workers == 2}
        disturbed = {key: res["other_cores"] for key, res in results.items()
                     if res.get("other_cores", 0.0) > DISTURBED_CORES}
        rounds.append({"order": [k for k, *_ in order], "scaling": scaling,
                       "scaling_vs_mwm_1w": scaling_1w, "disturbed": disturbed, **results})
        rates = ", ".join(f"{labels[key]} {results[key]['samples_per_sec']:.0f}/s"
                          for key, *_ in keys)
        print(f"  round {r + 1}/{args.rounds}: {rates}", file=sys.stderr, flush=True)
        if disturbed:
            print("    other load beside " + ", ".join(
                f"{labels[key]}: {load:.2f} cores" for key, load in disturbed.items()),
                file=sys.stderr, flush=True)
    return rounds


def summarize(keys, rounds, default_bucket):
    summary = {}
    for key, label, workers, bucket in keys:
        med = lambda field: statistics.median(rd[key][field] for rd in rounds)  # noqa: E731
        entry = {"label": label, "workers": workers, "bucket_bytes": bucket,
                 "global_batch": rounds[0][key]["global_batch"],
                 "samples_per_sec_median": med("samples_per_sec"),
                 "samples_per_sec_steps_median": med("samples_per_sec_steps"),
                 "step_ms_median": med("step_ms"), "compute_ms_median": med("compute_ms"),
                 "comm_ms_median": med("comm_ms"), "input_ms_median": med("input_ms"),
                 "job_cores_median": med("job_cores"),
                 "buckets": (rounds[0][key].get("reduction") or {}).get("buckets")}
        if key != BASELINE:
            entry["scaling"] = min_median_max([rd["scaling"][key] for rd in rounds])
        if workers == 2 or key in (MIRRORED, INDEPENDENT):
            entry["efficiency"] = {k: v / 2 for k, v in entry["scaling"].items()}
        if workers == 2:
            entry["scaling_vs_mwm_1w"] = min_median_max(
                [rd["scaling_vs_mwm_1w"][key] for rd in rounds])
            entry["vs_mirrored"] = min_median_max(
                [rd[key]["samples_per_sec"] / rd[MIRRORED]["samples_per_sec"] for rd in rounds])
            entry["vs_independent"] = min_median_max(
                [rd[key]["samples_per_sec"] / rd[INDEPENDENT]["samples_per_sec"] for rd in rounds])
        summary[key] = entry
    default_key = f"mwm_2w_{default_bucket}"
    median = summary[default_key]["scaling"]["median"]
    return {"contenders": summary, "default_bucket_bytes": default_bucket,
            "target_scaling": TARGET_SCALING, "scaling_median": median,
            "target_pass": median >= TARGET_SCALING,
            "disturbed_rounds": [r + 1 for r, rd in enumerate(rounds) if rd["disturbed"]]}


def print_table(summary, keys, args):
    print()
    print(f"MultiWorkerMirrored scaling, CNN, {args.batch} examples per replica, 1 GEMM "
          f"thread per worker, {os.cpu_count()} cores (global examples/s over {args.steps} steps "
          f"after {args.warmup_steps} warm-up, median of {args.rounds} rounds; scaling = over "
          "OneDevice in the same round, min/median/max; efficiency = scaling / 2; ms: mean per "
          "step, averaged over the tasks, median; busy: the job's CPU time / wall time, start-up included)")
    header = (f"{'contender':<32} {'buckets':>7} {'examples/s':>10} {'step':>6} {'compute':>7} "
              f"{'comm':>6} {'input':>6} {'busy':>4} {'scaling':>15} {'efficiency':>15}")
    print(header)
    print("-" * len(header))
    for key, *_ in keys:
        c = summary["contenders"][key]
        scaling = triple(c["scaling"]) if "scaling" in c else "baseline"
        efficiency = triple(c["efficiency"]) if "efficiency" in c else ""
        buckets = c["buckets"] if c["buckets"] is not None else "-"
        print(f"{c['label']:<32} {buckets:>7} {c['samples_per_sec_median']:>10.0f} "
              f"{c['step_ms_median']:>6.1f} {c['compute_ms_median']:>7.1f} "
              f"{c['comm_ms_median']:>6.2f} {c['input_ms_median']:>6.2f} "
              f"{c['job_cores_median']:>4.2f} {scaling:>15} {efficiency:>15}")
    if summary["disturbed_rounds"]:
        print(f"Disturbed (other processes or steal above {DISTURBED_CORES} core beside a job; "
              f"kept in the medians): rounds {', '.join(map(str, summary['disturbed_rounds']))}")
    print()
    print("2 workers against MWM with 1 worker, Mirrored 2x1 in one process, and 2 OneDevice "
          "processes side by side (no communication: the machine's limit) (examples/s ratio per "
          "round, min/median/max)")
    print(f"{'':<32} {'vs MWM 1 worker':>15} {'vs Mirrored':>15} {'vs side by side':>15}")
    for key, _, workers, _ in keys:
        if workers == 2:
            c = summary["contenders"][key]
            print(f"{c['label']:<32} {triple(c['scaling_vs_mwm_1w']):>15} "
                  f"{triple(c['vs_mirrored']):>15} {triple(c['vs_independent']):>15}")
    print()
    default = summary["contenders"][f"mwm_2w_{summary['default_bucket_bytes']}"]
    print(f"Target: 2 workers (default bucket, {human(summary['default_bucket_bytes'])}) at least "
          f"{TARGET_SCALING:.1f}x OneDevice, on the median")
    print(f"{summary['scaling_median']:.2f}x (efficiency {default['efficiency']['median']:.2f})  "
          f"{verdict(summary['target_pass'])}")


def main():
    args = parse_args()
    if not os.access(args.engine, os.X_OK):
        print(f"bench_multiworker: {args.engine} is not an executable "
              "(build it with scripts/build.sh)", file=sys.stderr)
        return 2
    if args.rounds < 5 and not args.quick:
        print("bench_multiworker: warning: fewer than 5 rounds", file=sys.stderr)
    if (os.cpu_count() or 1) < 2:
        print("bench_multiworker: warning: fewer than 2 cores", file=sys.stderr)
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="strata-bench-mw-") as folder:
        source = make_dataset(folder, DATASET_BATCHES * 2 * args.batch)
        try:
            # An unmeasured job first: the files in the page cache, and the engine's default
            # bucket size read from its placement event.
            first = run_job(args, folder, source, "mwm_1w", 1, None)
            default_bucket = first["reduction"]["bucket_bytes"]
            keys = contenders(args, default_bucket)
            rounds = run_rounds(args, folder, source, keys)
        except RunError as e:
            print(f"bench_multiworker: {e}", file=sys.stderr)
            return 1
    summary = summarize(keys, rounds, default_bucket)
    print_table(summary, keys, args)

    report = {
        "benchmark": "MultiWorkerMirrored: examples/s of the CNN with 1 and 2 worker processes, "
                     "interleaved",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "duration_seconds": time.time() - started,
        "host": platform.node(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "settings": {"steps": args.steps, "warmup_steps": args.warmup_steps,
                     "rounds": args.rounds, "quick": args.quick,
                     "batch_per_replica": args.batch, "threads_per_worker": 1,
                     "bucket_sizes": args.buckets,
                     "dataset_examples": DATASET_BATCHES * 2 * args.batch},
        "results": summary,
        "rounds": rounds,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    print(f"results: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
