// strata-engine: the training worker. One process per task; events on stdout (JSON Lines),
// human-readable progress on stderr.

#include "cli.h"

#include <cstdio>
#include <cstring>

namespace {

const char* kUsageText = R"(Usage: strata-engine COMMAND [ARGS]

Commands:
  train EXPERIMENT.strata.json [--run-dir DIR] [--task TYPE:INDEX]
        [--events auto|stdout|none] [--event-interval-ms N] [--device-interval-ms N] [--quiet]
      Train the experiment. Events (JSON Lines) go to stdout when it is not a terminal
      and always to DIR/events-<task>.jsonl; a progress bar goes to stderr when it is a
      terminal. Rerunning with the same --run-dir resumes from its newest checkpoint.
      Default run directory: runs/<name>-<date>-<time>. `step` events are windowed over
      --event-interval-ms (100), `device` events over --device-interval-ms (1000).
  validate EXPERIMENT.strata.json [--json]
      Check the experiment; list every problem with its field path.
  summary EXPERIMENT.strata.json
      Print the model's layers, output shapes and parameter counts.
  evaluate EXPERIMENT.strata.json --run-dir DIR
      Evaluate the run's final weights on the test split.
  predict EXPERIMENT.strata.json --run-dir DIR [--count N]
      Print the model's outputs for the first N test examples (JSON Lines).
  devices [--logical-cpu-devices N] [--json]
      List the devices a strategy can use here: logical CPU devices (one per core
      unless N is given, as strategy.logical_cpu_devices does) and GPUs.
  probe
      Print a `hello` event describing this host and its devices.

Options:
  --help       Show this help.
  --version    Show the engine version.

Exit status: 0 success, 1 failure while running, 2 bad command line or experiment.
)";

} // namespace

int main(int argc, char** argv)
{
    using namespace strata::cli;
    Args args;
    try {
        args = parseArgs(argc, argv, {"--run-dir", "--task", "--events", "--event-interval-ms", "--device-interval-ms",
                                      "--count", "--logical-cpu-devices"});
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
    if (args.command == "probe")
        return probeCommand(args);
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
    if (args.command.empty())
        std::fputs(kUsageText, stderr);
    else
        std::fprintf(stderr, "strata-engine: unknown command \"%s\"\n%s", args.command.c_str(), kUsageText);
    return kUsage;
}
