// strata-engine: the training worker. One process per task; events on stdout (JSON Lines),
// human-readable progress on stderr.

#include "cli.h"

#include <cstdio>
#include <cstring>

namespace {

const char* kUsageText = R"(Usage: strata-engine COMMAND [ARGS]

Commands:
  train EXPERIMENT.strata.json [--run-dir DIR] [--task TYPE:INDEX] [--fresh | --weights-only]
  [--events auto|stdout|none] [--event-interval-ms N] [--device-interval-ms N] [--quiet]
      Train the experiment. Events (JSON Lines) go to stdout when it is not a terminal
      and always to DIR/events-<task>.jsonl; a progress bar goes to stderr when it is a
      terminal. Rerunning with the same --run-dir resumes from its newest checkpoint, when
      the experiment is the one that wrote it (more epochs are fine); one that differs in
      what it trains (model, optimizer, batch size, strategy, data, seed...) is refused,
      naming each field, unless --fresh (start from the beginning; the earlier checkpoints and
      weights are moved into DIR/set-aside-<date>-<time>/) or --weights-only (the checkpoint's
      weights, a fresh optimizer and position; the model's variables must fit them).
      Default run directory: runs/<name>-<date>-<time>. `step` events are windowed over
      --event-interval-ms (100), `device` events over --device-interval-ms (1000). Several
      chief and worker tasks on one node each get their own GPUs (CUDA_VISIBLE_DEVICES, set
      before CUDA starts): cluster.gpus_per_task each, else an even share (a Slurm job's: its
      resolver's); the `hello` event says which.
  start --run-dir DIR --task TYPE:INDEX [--event-interval-ms N] [--device-interval-ms N]
  [--heartbeat-ms N] [--stall-seconds N] [--launch ID] [--fresh | --weights-only] [--relay-steps]
      Start a task that outlives this process, then follow it as `attach` does (with
      --relay-steps, its step records too, from where DIR/steps-<task>.jsonl ends now). Standard
      input: line 1 the job's token (may be empty; MultiWorkerMirrored needs it), line 2 the
      experiment's size in bytes, then exactly that many bytes of experiment JSON (written to
      DIR/launch.strata.json), then commands as for `attach`. The task runs detached: a
      supervisor (own session, none of this process's descriptors) runs `train` on it and
      appends an `exit` event to DIR/events-<task>.jsonl when it ends; ending this process,
      or losing its stdin or stdout, leaves the task running. Exit status: 0 the task ended
      (its exit event was relayed), 1 the task could not be started or the run directory
      written, 2 bad command line, standard input or experiment (nothing started), 4 standard
      input ended or stdout's reader went away (the task goes on). --launch names the launch
      the task belongs to (the same for every task the app starts together): an evaluator
      then knows its chief's session from an earlier one in the same run directory.
      --fresh and --weights-only are passed on to `train`.
  slurm-task --run-dir DIR [--launch ID] [--fresh | --weights-only] [--event-interval-ms N]
      One task of a Slurm job, as the job script Strata submits runs it under srun
      (docs/slurm-guide.md): the experiment from DIR/launch.strata.json and the job's token from
      DIR/job-token (readable by its owner alone), the task from the Slurm resolver
      (cluster.slurm). Supervises the task as `start` does, in this process until it ends;
      stop and kill arrive as SIGTERM or as lines of DIR/control-<task>.txt. A requeued job
      (SLURM_RESTART_COUNT above 0) resumes: --fresh and --weights-only apply to its first run.
  attach --run-dir DIR --task TYPE:INDEX [--offset N] [--stderr-offset M] [--steps-offset S]
  [--heartbeat-ms N] [--stall-seconds N]
      Follow a task started by `start`: DIR/events-<task>.jsonl from byte N (default: where
      its latest session began) to stdout, whole lines byte for byte, ending with the task's
      `exit` line; DIR/stderr-<task>.log from byte M to stderr. An empty line on stdout after
      --heartbeat-ms (1000) without output. With --steps-offset, the step records of
      DIR/steps-<task>.jsonl from byte S too, on stdout: each stretch of whole lines after a
      line {"type":"step_records","bytes":B} and before the events it precedes (B bytes of
      records, then the events). Commands on standard input, one per line: `stop`
      (SIGTERM to the trainer: it finishes the step, checkpoints, ends `stopped`) and `kill`
      (SIGKILL). While attached, the task counts as attended (cluster.stop_unattended_seconds).
      A task whose processes vanished without an exit line gets one (`vanished`). Exit status:
      0 the exit line was relayed, 2 bad command line, 3 DIR has no such task, 4 standard
      input ended, stdout's reader went away, or it took nothing for --stall-seconds (60).
  validate EXPERIMENT.strata.json [--json]
      Check the experiment; list every problem with its field path.
  summary EXPERIMENT.strata.json
      Print the model's layers, output shapes and parameter counts.
  evaluate EXPERIMENT.strata.json --run-dir DIR
      Evaluate the run's final weights on the test split.
  predict EXPERIMENT.strata.json --run-dir DIR [--count N]
      Print the model's outputs for the first N test examples (JSON Lines).
  export-keras (RUN_DIR [EXPERIMENT] | WEIGHTS_FILE EXPERIMENT) --out DIR [--keras-version 3.N]
      Write the run's final weights (RUN_DIR/model.weights, with RUN_DIR/experiment.strata.json
      unless EXPERIMENT is given), or a weights file or checkpoint, as Keras 3 files in DIR:
      config.json (keras.models.model_from_json reads it), model.weights.h5 (model.load_weights)
      and metadata.json. --keras-version: the release whose files to write, 3.0 to 3.15
      (default 3.12, which Keras 3.4 and later load). Prints the files written (JSON).
  cluster [EXPERIMENT.strata.json] [--task TYPE:INDEX] [--slurm] [--jobs TYPE:N,TYPE:N]
  [--port-base N] [--gpus-per-task N] [--gpus-per-node N] [--tasks-per-node SPEC]
      Print the cluster and task this process would run as, one line of JSON: {"source":
      "tf_config"|"slurm"|"experiment"|"default", "cluster": {"worker": ["host:port", ...], ...},
      "task": {"type", "index"} or null, "cuda_visible_devices": "0,1" (the GPUs `train` gives
      the task) or null (left as it is), "node": this task's host or null}; --task names the
      task (the experiment's own cluster names none). As `train` resolves it: TF_CONFIG when it names a cluster, else the
      experiment's cluster.slurm (from the Slurm step's variables: start it with srun), else the
      experiment's cluster; without EXPERIMENT, a Slurm step (SLURM_PROCID, SLURM_STEP_NUM_TASKS,
      SLURM_STEP_NODELIST, SLURM_STEP_TASKS_PER_NODE set) is resolved as TensorFlow's
      SlurmClusterResolver does by default. --slurm, or any of the options after it, resolves
      the Slurm step whatever else is set, the options over cluster.slurm's: jobs (default: every
      task a worker), the first port on each node (8888), GPUs per task (0: the node's shared
      evenly), GPUs per node (default: CUDA_VISIBLE_DEVICES, else the node's) and tasks per node
      in Slurm's form ("2(x2),1"; default SLURM_STEP_TASKS_PER_NODE). Exit status 2 when it
      cannot be resolved (the message names the variable or option).
  devices [--logical-cpu-devices N] [--json]
      List the devices a strategy can use here: logical CPU devices (one per core
      unless N is given, as strategy.logical_cpu_devices does) and GPUs.
  probe [--check]
      Print a `hello` event describing this host and its devices. With --check, then a
      `check` event answering the JSON object read from standard input: {"paths": [...],
      "bind": [{"host", "port"}], "free_ports": {"host", "from", "count", "skip": [...]}}:
      which paths can be read, which host:port can be listened on, and the first free ports.
  plan-probe EXPERIMENT.strata.json [--ranks N] [--no-ps] [--quick]
      The scaling planner's probe of this host (docs/planner.md): the model's step on one
      replica (forward, backward, optimizer; 1 thread, 1 thread on every core at once, all
      cores), the input pipeline's time per batch, an all-reduce sweep between N processes
      (default 2) over 127.0.0.1 fitted to latency and bandwidth, and (unless --no-ps) a
      ParameterServer worker's pull and push against a ps task. Events on stdout:
      probe_compute, probe_collective, probe_ps, probe_summary (docs/event-schema.md). --quick:
      fewer repetitions (a smoke run). Takes about 10-30 seconds.

Exit status: 0 success, 1 failure while running, 2 bad command line or experiment, or a
resume refused (start and attach: also 3 and 4, above).

Environment:
  TF_CONFIG, the Slurm step's SLURM_* variables: the cluster and task (see cluster).
  CUDA_VISIBLE_DEVICES: the node's GPUs a task may use; its own are picked from them.
  STRATA_NODE_GPUS: the node's GPU count, instead of the driver's /proc/driver/nvidia/gpus.

Options:
  --help       Show this help.
  --version    Show the engine version.
)";

} // namespace

int main(int argc, char** argv)
{
    using namespace strata::cli;
    Args args;
    try {
        args = parseArgs(argc, argv, {"--run-dir", "--task", "--events", "--event-interval-ms", "--device-interval-ms",
                                      "--count", "--logical-cpu-devices", "--heartbeat-ms", "--stall-seconds",
                                      "--offset", "--stderr-offset", "--steps-offset", "--launch", "--out",
                                      "--keras-version", "--jobs", "--port-base", "--gpus-per-task", "--gpus-per-node",
                                      "--tasks-per-node", "--ranks"});
    } catch (const UsageError& e) {
        std::fprintf(stderr, "strata-engine: %s\n%s", e.what(), kUsageText);
        return kUsage;
    }
    if (args.has("--version")) {
        std::printf("strata-engine %s\n", STRATA_VERSION);
        return kOk;
    }
    if (args.has("--help") || args.command == "help") {
        std::fputs(kUsageText, stdout);
        return kOk;
    }
    if (args.command == "train")
        return trainCommand(args);
    if (args.command == "start")
        return startCommand(args);
    if (args.command == "attach")
        return attachCommand(args);
    if (args.command == "probe")
        return probeCommand(args);
    if (args.command == "plan-probe")
        return planProbeCommand(args);
    if (args.command == "devices")
        return devicesCommand(args);
    if (args.command == "validate")
        return validateCommand(args);
    if (args.command == "summary")
        return summaryCommand(args);
    if (args.command == "evaluate")
        return evaluateCommand(args);
    if (args.command == "predict")
        return predictCommand(args);
    if (args.command == "export-keras")
        return exportKerasCommand(args);
    if (args.command == "cluster")
        return clusterCommand(args);
    if (args.command == "slurm-task")
        return slurmTaskCommand(args);
    if (args.command.empty())
        std::fputs(kUsageText, stderr);
    else
        std::fprintf(stderr, "strata-engine: unknown command \"%s\"\n%s", args.command.c_str(), kUsageText);
    return kUsage;
}
