// `strata-engine train`: one training task, from experiment file to `done`.

#include "cli.h"
#include "stop_signals.h"
#include "tf_config.h"
#include "unattended_stop.h"

#include "strata/report/hello_event.h"
#include "strata/training/parameter_server_tasks.h"
#include "strata/report/progress_bar.h"
#include "strata/rundir/run_directory.h"
#include "strata/training/sidecar_evaluator.h"
#include "strata/rundir/task_files.h"
#include "strata/training/trainer.h"
#include "strata/schema/events.h"

#include <unistd.h>

#include <csignal>
#include <exception>
#include <optional>
#include <cstdio>

namespace strata::cli {

namespace {

std::string formatMetrics(const nlohmann::ordered_json& values, const std::string& prefix)
{
    std::string text;
    for (const auto& [name, value] : values.items()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s%s: %.4f", text.empty() ? "" : " - ", (prefix + name).c_str(),
                      value.get<double>());
        text += buf;
    }
    return text;
}

// The job's token: the first line of standard input (the launcher writes it there, so it
// never shows in argv, the environment or a file).
std::string readToken()
{
    if (isatty(STDIN_FILENO))
        std::fprintf(stderr, "strata-engine: MultiWorkerMirrored: the job's token (the same for every task): ");
    std::string token;
    for (int c = std::getchar(); c != EOF && c != '\n'; c = std::getchar())
        if (c != '\r')
            token.push_back(static_cast<char>(c));
    return token;
}

// --fresh or --weights-only (rundir/resume.h); UsageError for both.
run::ResumeChoice resumeChoice(const Args& args)
{
    if (args.has("--fresh") && args.has("--weights-only"))
        throw UsageError("--fresh and --weights-only exclude each other: start fresh, or load the checkpoint's weights");
    return args.has("--fresh")          ? run::ResumeChoice::Fresh
           : args.has("--weights-only") ? run::ResumeChoice::WeightsOnly
                                        : run::ResumeChoice::Resume;
}

struct TaskGpus {
    std::optional<std::string> list; // CUDA_VISIBLE_DEVICES as set for this task
    std::exception_ptr problem;
};

// This task's GPUs, set before the hello event lists the devices (which starts CUDA). A problem
// is kept to be reported after the experiment's own (it is usually one of them).
TaskGpus assignGpus(const Args& args)
{
    TaskGpus gpus;
    if (args.positional.size() == 1) {
        try {
            gpus.list = setTaskGpus(args.positional[0], taskName(args));
        } catch (const Error&) {
            gpus.problem = std::current_exception();
        }
    }
    return gpus;
}

} // namespace

int trainCommand(const Args& args)
{
    // SIGTERM / SIGINT: finish the current step, checkpoint, report `done` as stopped.
    StopSignals stop;
    std::FILE* stream = nullptr;
    try {
        stream = eventStream(args);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "strata-engine: %s\n", e.what());
        return kUsage;
    }
    const TaskGpus gpus = assignGpus(args);
    run::EventSink events(taskName(args), stream);
    nlohmann::ordered_json hello = run::helloFields();
    hello["cuda_visible_devices"] = gpus.list ? nlohmann::ordered_json(*gpus.list) : nlohmann::ordered_json();
    events.emit(schema::event::kHello, hello);

    // A reader that went away must not kill the run: the run directory still gets everything.
    std::signal(SIGPIPE, SIG_IGN);

    return guarded(events, [&] {
        if (args.positional.size() != 1)
            throw UsageError("train needs exactly one experiment file");
        const run::ResumeChoice resume = resumeChoice(args);
        schema::Experiment experiment = loadWithTfConfig(args.positional[0]);
        if (gpus.problem)
            std::rethrow_exception(gpus.problem);
        distribute::TaskContext task{taskName(args), ""};
        const std::string strategy = experiment.strategy.effectiveType();
        const bool parameterServer = strategy == "ParameterServer";
        if (strategy == "MultiWorkerMirrored" || parameterServer)
            task.token = readToken();
        const double intervalMs = args.number("--event-interval-ms", 100);
        const double deviceIntervalMs = args.number("--device-interval-ms", 1000);
        const run::RunDirectory runDir(args.value("--run-dir", run::RunDirectory::defaultPath(experiment.name)));
        events.openRunFiles(runDir.path());
        std::optional<UnattendedStop> unattended;
        if (const int64_t seconds = experiment.cluster.stopUnattendedSeconds; seconds > 0)
            unattended.emplace(run::TaskFiles::of(runDir.path(), task.task).attachLock, seconds, stop, events);

        if (task.task.starts_with("evaluator:")) {
            run::SidecarOptions sidecar;
            sidecar.stopRequested = stop.requested();
            sidecar.launch = args.value("--launch", "");
            run::runSidecarEvaluator(experiment, runDir, events, sidecar);
            events.flush();
            return static_cast<int>(kOk);
        }
        const bool quiet = args.has("--quiet");
        run::ProgressBar bar(stderr, isatty(STDERR_FILENO) != 0);
        const run::TrainerOptions options{stop.requested(), intervalMs / 1000.0, deviceIntervalMs / 1000.0,
                                          quiet ? nullptr : &bar, task, resume};
        nlohmann::ordered_json done;
        if (parameterServer && task.task.starts_with("ps:")) {
            done = ps::runParameterServer(experiment, events, options);
        } else if (parameterServer && task.task.starts_with("worker:")) {
            done = ps::runParameterServerWorker(experiment, events, options);
        } else if (parameterServer) {
            done = ps::runCoordinator(experiment, runDir, events, options);
        } else {
            run::Trainer trainer(experiment, runDir, events, options);
            done = trainer.run();
        }
        events.flush();
        if (!quiet) {
            if (done.value("status", "") == "stopped")
                std::fprintf(stderr, "Stopped at step %lld with a checkpoint; rerun with --run-dir %s to resume.\n",
                             done.value("steps", 0LL), runDir.path().c_str());
            else if (done.contains("test"))
                std::fprintf(stderr, "Test %s\n", formatMetrics(done["test"], "").c_str());
            std::fprintf(stderr, "Run directory: %s\n", runDir.path().c_str());
        }
        return static_cast<int>(kOk);
    });
}

} // namespace strata::cli
