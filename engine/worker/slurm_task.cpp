// `strata-engine slurm-task`: one task of a Slurm job, started by `srun` in the job script the
// app submits (docs/slurm-guide.md). The app cannot reach the compute nodes: the experiment
// and the job's token wait in the shared run directory, the task's name and the cluster come
// from the Slurm resolver, and `stop`/`kill` arrive as signals from Slurm or as lines of the
// task's control file. The task is supervised as `start` supervises one (the same record and
// files, followed by `attach` from the login node), but this process stays until the trainer
// ends: a step whose task process exits is over for Slurm, which then kills what is left.

#include "cli.h"
#include "supervisor.h"
#include "task_options.h"
#include "tf_config.h"

#include "strata/core/error.h"
#include "strata/core/host_info.h"
#include "strata/rundir/run_directory.h"
#include "strata/rundir/task_files.h"
#include "strata/rundir/task_record.h"

#include "exit_event.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace strata::cli {

namespace {

namespace fs = std::filesystem;

volatile std::sig_atomic_t g_stop = 0;
void onStop(int) { g_stop = 1; }

// The job's token: the first line of <run dir>/job-token, readable by its owner alone.
std::string readToken(const run::RunDirectory& runDir)
{
    const std::string path = runDir.file("job-token");
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0)
        throw IoError(path + " is missing: the app writes the job's token there before it submits the job");
    if ((st.st_mode & 077) != 0)
        throw IoError(path + " can be read by others (mode " + std::to_string(st.st_mode & 0777) +
                      "); it must be readable by its owner alone");
    std::ifstream in(path);
    std::string token;
    std::getline(in, token);
    if (token.empty())
        throw IoError(path + " holds no token");
    return token;
}

// This node as Slurm names it (SLURMD_NODENAME), which the cluster's addresses use too; the
// host name elsewhere.
std::string nodeName()
{
    const char* name = std::getenv("SLURMD_NODENAME");
    return name && *name ? name : hostName();
}

// The restart count Slurm gives a requeued job (0 for its first run).
int restartCount()
{
    const char* text = std::getenv("SLURM_RESTART_COUNT");
    return text ? std::atoi(text) : 0;
}

// Commands appended to the control file since `offset` (which moves past them).
std::vector<std::string> newCommands(const std::string& path, int64_t& offset)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    in.seekg(offset);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) {
        if (in.eof()) // a line still being written
            break;
        offset += static_cast<int64_t>(line.size()) + 1;
        lines.push_back(line);
    }
    return lines;
}

// Waits for the supervisor `pid`, passing stop and kill on to the trainer; the trainer's exit
// status as this process's.
int superviseInStep(const run::TaskFiles& files, pid_t supervisor)
{
    struct sigaction stop = {};
    stop.sa_handler = onStop;
    sigemptyset(&stop.sa_mask);
    for (const int s : {SIGTERM, SIGINT})
        ::sigaction(s, &stop, nullptr);
    int64_t controlOffset = fileSize(files.control);
    const auto signalTrainer = [&](int signal) {
        const auto record = run::TaskRecord::read(files.record);
        if (record && record->supervisor.pid == supervisor && record->trainer.alive())
            ::kill(static_cast<pid_t>(record->trainer.pid), signal);
    };
    for (;;) {
        int status = 0;
        if (::waitpid(supervisor, &status, WNOHANG) == supervisor)
            break;
        if (g_stop) {
            g_stop = 0;
            signalTrainer(SIGTERM);
        }
        for (const std::string& command : newCommands(files.control, controlOffset))
            if (command == "stop" || command == "kill")
                signalTrainer(command == "kill" ? SIGKILL : SIGTERM);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    const auto record = run::TaskRecord::read(files.record);
    if (!record || record->ended.is_null())
        return kFailed;
    const auto code = record->ended.find("code");
    return code != record->ended.end() && code->is_number_integer() && code->get<int>() == 0 ? kOk : kFailed;
}

} // namespace

int slurmTaskCommand(const Args& args)
{
    run::EventSink events("slurm-task", nullptr);
    return guarded(events, [&] {
        if (!args.has("--run-dir") || args.value("--run-dir").empty())
            throw UsageError("slurm-task needs --run-dir");
        const run::RunDirectory runDir(fs::absolute(args.value("--run-dir")).lexically_normal().string());
        const std::string experimentFile = runDir.file("launch.strata.json");
        const std::string task = slurmTaskName(experimentFile);
        const run::TaskFiles files = run::TaskFiles::of(runDir.path(), task);
        try {
            const std::string token = readToken(runDir);
            loadWithTfConfig(experimentFile); // the experiment and the cluster resolved, or why not
            // A requeued job resumes: what its first run was told to do with checkpoints is done.
            const std::vector<std::string> trainOptions = trainOptionsOf(args, restartCount() == 0);

            // An earlier session's record: on another node (a requeued job) its processes are
            // not this node's to judge, and Slurm ended them with that run.
            const auto record = run::TaskRecord::read(files.record);
            if (record && record->host == nodeName() && !record->over())
                throw UsageError(task + " is already running in " + runDir.path() + " (trainer pid " +
                                 std::to_string(record->trainer.pid) + ")");
            std::error_code ec;
            fs::remove(files.record, ec);
            const int64_t eventsOffset = fileSize(files.events);
            const int64_t stderrOffset = fileSize(files.stderrLog);
            const pid_t supervisor = startSupervisor({&runDir, task, thisExecutable(), token, trainOptions, eventsOffset,
                                                      stderrOffset, args.value("--launch", ""), nodeName()});
            return superviseInStep(files, supervisor);
        } catch (const Error& e) {
            // The app follows the task's events file: the cause goes there as its end.
            appendEvent(files.events, failedExitEvent(task, e.what()));
            throw;
        }
    });
}

} // namespace strata::cli
