#!/usr/bin/python3
"""Training throughput of Strata against PyTorch, interleaved in one run.

For each configuration (MLP at batch 32 and 256, CNN with and without BatchNormalization at
batch 64, LSTM at batch 64) and thread count, runs
`--rounds` rounds; a round is one fresh process of `--seconds` for each contender, the
order reversed every other round so that drift (thermal, other load) falls on all sides.
Contenders: strata-bench-train; torch_train.py as Debian installs it ("torch"); and, unless
--no-torch-tuned, torch_train.py tuned for this machine ("torch*", see TORCH_TUNED_ENV).
Prints samples/s medians, the per-round ratios strata/reference (min/median/max), each
side's achieved training FLOP/s as a fraction of this machine's sgemm rate at that thread
count, and peak resident memory. Writes everything to a JSON
file. Exits 0 when a target is missed: it is a report.

    /usr/bin/python3 bench/bench_train.py --engine-bench build/bench/strata-bench-train
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# (model, batch, target ratio strata/torch samples/s), from the issue.
CONFIGS = [("mlp", 32, 1.5), ("mlp", 256, 1.2), ("cnn", 64, 1.0), ("cnn-bn", 64, 1.0), ("lstm", 64, 1.0)]
MB = 1024.0 * 1024.0

# torch* is PyTorch with two settings that each make it several times faster here:
# - PyTorch allocates fresh tensors every step. With glibc's defaults, freeing them returns
#   the memory to the kernel (heap trimming, or munmap above the mmap threshold) and the next
#   step faults it back in: ~190 page faults per MLP step, expensive in a VM. These keep
#   freed memory in the process (as jemalloc or tcmalloc would) without raising peak RSS.
#   Both are needed: setting one freezes the other at its small default.
# - OpenBLAS (pthreads) keeps its own pool beside PyTorch's OpenMP pool; at 2 threads both
#   spin on 2 cores. With OPENBLAS_NUM_THREADS=1 the GEMMs run on the calling thread and
#   PyTorch's T threads are the only ones.
TORCH_TUNED_ENV = {"MALLOC_MMAP_THRESHOLD_": str(1 << 30),
                   "MALLOC_TRIM_THRESHOLD_": str(1 << 30),
                   "OPENBLAS_NUM_THREADS": "1"}


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine-bench",
                        default=os.path.join(ROOT, "build", "bench", "strata-bench-train"),
                        help="the strata-bench-train binary")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="interpreter with Debian's python3-torch")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="timed seconds per process (default 3)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds per configuration (default 5, at least 5 for a report)")
    parser.add_argument("--threads", default="1,2",
                        help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--only", default="",
                        help="comma-separated configurations to run, e.g. mlp@32,cnn@64,lstm@64")
    parser.add_argument("--torch-tuned", action=argparse.BooleanOptionalAction, default=True,
                        help="also run PyTorch tuned for this machine, torch* (default on)")
    parser.add_argument("--warmup-steps", type=int, default=20)
    parser.add_argument("--output",
                        default=os.path.join(ROOT, "build", "bench", "train_throughput.json"),
                        help="JSON results file")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: 2 rounds of 0.5 s (not a valid report)")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.rounds, args.warmup_steps = 0.5, 2, 5
    args.threads = [int(t) for t in args.threads.split(",") if t]
    args.references = ["torch"] + (["torch_tuned"] if args.torch_tuned else [])
    if args.only:
        wanted = set(args.only.split(","))
        args.configs = [c for c in CONFIGS if f"{c[0]}@{c[1]}" in wanted]
        if not args.configs:
            parser.error(f"--only matches none of {[f'{m}@{b}' for m, b, _ in CONFIGS]}")
    else:
        args.configs = CONFIGS
    return args


class RunError(Exception):
    pass


def run_process(cmd, env):
    """Runs `cmd`, returns (its JSON line, peak RSS in bytes from wait4's rusage)."""
    result, usage = run_process_usage(cmd, env)
    return result, usage.ru_maxrss * 1024


def run_process_usage(cmd, env):
    """Runs `cmd`, returns (its JSON line, its resource usage from wait4).

    The child is reaped with os.wait4 rather than Popen.wait so that the kernel's own
    accounting (ru_maxrss, CPU time) of exactly that process comes back.
    """
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env)
        out = proc.stdout.read()
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    if proc.returncode != 0:
        raise RunError(f"{' '.join(cmd)} exited with {proc.returncode}:\n{stderr}")
    lines = [line for line in out.decode().splitlines() if line.startswith("{")]
    if not lines:
        raise RunError(f"{' '.join(cmd)} printed no JSON line:\n{out.decode()}\n{stderr}")
    return json.loads(lines[-1]), usage


def thread_env(threads):
    """The environment of both benchmark processes: BLAS and OpenMP pools of `threads`."""
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[name] = str(threads)
    return env


def measure_sgemm(args, threads):
    result, _ = run_process([args.engine_bench, "--sgemm", "--threads", str(threads)],
                            thread_env(threads))
    return result


def run_one(args, framework, model, batch, threads):
    common = ["--model", model, "--batch", str(batch), "--threads", str(threads),
              "--seconds", str(args.seconds), "--warmup-steps", str(args.warmup_steps)]
    env = thread_env(threads)
    if framework == "strata":
        cmd = [args.engine_bench] + common
    else:
        cmd = [args.python, os.path.join(HERE, "torch_train.py")] + common
        if framework == "torch_tuned":
            env.update(TORCH_TUNED_ENV)
    result, rss = run_process(cmd, env)
    result["wait4_peak_rss_bytes"] = rss
    # The process's own report and the kernel's should agree (the child may grow a little
    # while exiting); a large gap means one of them measures something else.
    printed = result["peak_rss_bytes"]
    if abs(printed - rss) > 0.1 * rss:
        print(f"warning: {framework} {model}@{batch} peak RSS: printed {printed / MB:.1f} MB, "
              f"wait4 {rss / MB:.1f} MB", file=sys.stderr)
    return result


REFERENCES = {"torch": "torch", "torch_tuned": "torch*"}


def run_config(args, model, batch, threads, target, sgemm_gflops):
    contenders = ["strata"] + args.references
    rounds = []
    for r in range(args.rounds):
        order = contenders if r % 2 == 0 else contenders[::-1]
        results = {fw: run_one(args, fw, model, batch, threads) for fw in order}
        ratios = {ref: results["strata"]["samples_per_sec"] / results[ref]["samples_per_sec"]
                  for ref in args.references}
        rounds.append({"order": list(order), "ratios": ratios, **results})
        rates = ", ".join(f"{REFERENCES.get(fw, fw)} {results[fw]['samples_per_sec']:.0f}/s"
                          for fw in contenders)
        print(f"  {model}@{batch} x{threads} round {r + 1}/{args.rounds}: {rates}; ratio "
              + ", ".join(f"vs {REFERENCES[ref]} {q:.2f}" for ref, q in ratios.items()),
              file=sys.stderr, flush=True)

    flops = {fw: rounds[0][fw]["train_flops_per_sample"] for fw in contenders}
    if any(abs(f - flops["strata"]) > 1e-6 * f for f in flops.values()):
        print(f"warning: {model} FLOPs per sample differ: {flops}", file=sys.stderr)
    summary = {"model": model, "batch": batch, "threads": threads, "target_ratio": target,
               "train_flops_per_sample": flops["strata"], "sgemm_gflops": sgemm_gflops}
    for fw in contenders:
        rate = statistics.median(rd[fw]["samples_per_sec"] for rd in rounds)
        summary[fw] = {
            "samples_per_sec_median": rate,
            "samples_per_sec_min": min(rd[fw]["samples_per_sec"] for rd in rounds),
            "samples_per_sec_max": max(rd[fw]["samples_per_sec"] for rd in rounds),
            # Achieved training FLOP/s over the sgemm limit at this thread count.
            "sgemm_fraction": rate * flops[fw] / (sgemm_gflops * 1e9),
            "peak_rss_bytes": max(rd[fw]["wait4_peak_rss_bytes"] for rd in rounds),
        }
    for ref in args.references:
        ratios = [rd["ratios"][ref] for rd in rounds]
        median = statistics.median(ratios)
        summary[ref].update({
            "ratio_min": min(ratios), "ratio_median": median, "ratio_max": max(ratios),
            "speed_pass": median >= target,
            "memory_pass": summary["strata"]["peak_rss_bytes"] <= summary[ref]["peak_rss_bytes"],
        })
    summary["rounds"] = rounds
    return summary


def verdict(ok):
    return "PASS" if ok else "MISS"


def print_table(summaries, sgemm, references):
    print()
    if summaries:
        blas = summaries[0]["rounds"][0]["torch"].get("torch_blas", "unknown")
        print(f"torch's BLAS: {blas}")
        if "openblas" not in blas.lower():
            print("warning: PyTorch runs its GEMMs on " + blas + ", not OpenBLAS: with Debian's netlib "
                  "reference BLAS it is several times slower than it can be (scripts/install-deps.sh "
                  "--bench installs libopenblas0-pthread)")
    print("sgemm limit (strata::blas::gemm, 2048^3, best of 5): "
          + ", ".join(f"{t} thread{'s' if t > 1 else ''} {g:.0f} GFLOP/s"
                      for t, g in sorted(sgemm.items())))
    if "torch_tuned" in references:
        print("torch: Debian's python3-torch as installed, OMP/MKL/OPENBLAS_NUM_THREADS=T; "
              "torch*: the same with "
              + " ".join(f"{k}={v}" for k, v in TORCH_TUNED_ENV.items())
              + " (glibc keeps freed memory; no OpenBLAS pool beside PyTorch's)")
    print()
    print("Throughput (samples/s: median over rounds; ratio strata/reference per round, "
          "min/median/max; speed target on the median ratio)")
    header = f"{'config':<9} {'thr':>3} {'strata/s':>9}"
    for ref in references:
        name = REFERENCES[ref]
        header += f" | {name + '/s':>9} {'ratio vs ' + name:>18} {'target':>6} {'speed':>5}"
    print(header)
    print("-" * len(header))
    for s in summaries:
        line = (f"{s['model'] + '@' + str(s['batch']):<9} {s['threads']:>3} "
                f"{s['strata']['samples_per_sec_median']:>9.0f}")
        for ref in references:
            r = s[ref]
            ratios = f"{r['ratio_min']:.2f}/{r['ratio_median']:.2f}/{r['ratio_max']:.2f}"
            line += (f" | {r['samples_per_sec_median']:>9.0f} {ratios:>18} "
                     f"{s['target_ratio']:>5.1f}x {verdict(r['speed_pass']):>5}")
        print(line)
    print()
    print("Efficiency (training GEMM FLOP/s as bench/README.md counts them, over sgemm FLOP/s at that "
          "thread count) and peak RSS (max over rounds, wait4 ru_maxrss; target strata <= "
          "torch)")
    contenders = ["strata"] + references
    header = f"{'config':<9} {'thr':>3}"
    for fw in contenders:
        header += f" {REFERENCES.get(fw, fw) + '%':>8}"
    for fw in contenders:
        header += f" {'RSS ' + REFERENCES.get(fw, fw):>11}"
    header += f" {'memory':>6}"
    print(header)
    print("-" * len(header))
    for s in summaries:
        line = f"{s['model'] + '@' + str(s['batch']):<9} {s['threads']:>3}"
        for fw in contenders:
            line += f" {100 * s[fw]['sgemm_fraction']:>7.1f}%"
        for fw in contenders:
            line += f" {s[fw]['peak_rss_bytes'] / MB:>9.1f}MB"
        line += f" {verdict(all(s[ref]['memory_pass'] for ref in references)):>6}"
        print(line)


def main():
    args = parse_args()
    if not os.access(args.engine_bench, os.X_OK):
        print(f"bench_train: {args.engine_bench} is not an executable "
              "(build it with scripts/build.sh)", file=sys.stderr)
        return 2
    if args.rounds < 5 and not args.quick:
        print("bench_train: warning: fewer than 5 rounds", file=sys.stderr)
    started = time.time()
    try:
        sgemm_runs = {t: measure_sgemm(args, t) for t in args.threads}
        sgemm = {t: r["gflops"] for t, r in sgemm_runs.items()}
        for t, g in sgemm.items():
            print(f"sgemm, {t} thread(s): {g:.1f} GFLOP/s", file=sys.stderr, flush=True)
        summaries = [run_config(args, model, batch, threads, target, sgemm[threads])
                     for model, batch, target in args.configs for threads in args.threads]
    except RunError as e:
        print(f"bench_train: {e}", file=sys.stderr)
        return 1
    print_table(summaries, sgemm, args.references)

    report = {
        "benchmark": "training samples/s, strata vs torch, interleaved",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "duration_seconds": time.time() - started,
        "host": platform.node(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "settings": {"seconds": args.seconds, "rounds": args.rounds,
                     "warmup_steps": args.warmup_steps, "threads": args.threads,
                     "quick": args.quick, "references": args.references},
        "strata_blas": sgemm_runs[args.threads[0]]["blas"],
        "torch_version": summaries[0]["rounds"][0]["torch"]["torch"] if summaries else None,
        "torch_blas": summaries[0]["rounds"][0]["torch"].get("torch_blas") if summaries else None,
        "torch_tuned_env": TORCH_TUNED_ENV if "torch_tuned" in args.references else None,
        "sgemm_gflops": {str(t): g for t, g in sgemm.items()},
        "results": summaries,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    print(f"results: {args.output}")
    return 0


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    sys.exit(main())
