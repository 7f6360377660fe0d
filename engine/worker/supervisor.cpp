#include "supervisor.h"

#include "exit_event.h"

#include "strata/core/error.h"
#include "strata/report/event_sink.h"
#include "strata/core/host_info.h"
#include "strata/rundir/task_files.h"
#include "strata/rundir/task_record.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace strata::cli {

namespace {

// stdin and stdout from /dev/null, stderr appended to the task's log, nothing else open.
void detachDescriptors(const std::string& stderrLog)
{
    const int null = ::open("/dev/null", O_RDWR);
    const int log = ::open(stderrLog.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    ::dup2(null, STDIN_FILENO);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(log >= 0 ? log : null, STDERR_FILENO);
    ::close_range(3, ~0U, 0);
}

[[noreturn]] void execTrainer(const SupervisorPlan& plan, int tokenPipe)
{
    ::dup2(tokenPipe, STDIN_FILENO);
    // Ignored signals stay ignored across exec: the trainer must take SIGTERM as a stop.
    for (const int s : {SIGHUP, SIGINT, SIGTERM, SIGPIPE})
        std::signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    const std::string& dir = plan.runDir->path();
    std::vector<std::string> args{plan.engine, "train", plan.runDir->file("launch.strata.json"), "--run-dir", dir,
                                  "--task", plan.task, "--events", "none", "--quiet"};
    args.insert(args.end(), plan.trainOptions.begin(), plan.trainOptions.end());
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(plan.engine.c_str(), argv.data());
    std::fprintf(stderr, "strata-engine: cannot run %s: %s\n", plan.engine.c_str(), std::strerror(errno));
    ::_exit(127);
}

void writeRecord(const SupervisorPlan& plan, const run::TaskRecord& record)
{
    const std::filesystem::path path = run::TaskFiles::of(plan.runDir->path(), plan.task).record;
    plan.runDir->writeFile(path.filename().string(), record.toJson().dump(2) + "\n");
}

int waitFor(pid_t pid)
{
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

// The supervisor's life; any failure is reported on its stderr (the task's log).
void supervise(const SupervisorPlan& plan)
{
    const run::TaskFiles files = run::TaskFiles::of(plan.runDir->path(), plan.task);
    ::setsid();
    detachDescriptors(files.stderrLog);
    for (const int s : {SIGHUP, SIGINT, SIGTERM, SIGPIPE})
        std::signal(s, SIG_IGN);

    int token[2];
    if (::pipe2(token, O_CLOEXEC) != 0) {
        appendEvent(files.events, failedExitEvent(plan.task, std::string("cannot make a pipe: ") + std::strerror(errno)));
        return;
    }
    const pid_t trainer = ::fork();
    if (trainer < 0) {
        appendEvent(files.events, failedExitEvent(plan.task, std::string("cannot fork the trainer: ") +
                                                                    std::strerror(errno)));
        return;
    }
    if (trainer == 0)
        execTrainer(plan, token[0]);
    ::close(token[0]);
    const std::string line = plan.token + "\n";
    if (::write(token[1], line.data(), line.size()) < 0)
        std::fprintf(stderr, "strata-engine: cannot hand the trainer its token: %s\n", std::strerror(errno));
    ::close(token[1]);

    run::TaskRecord record;
    record.task = plan.task;
    record.host = plan.host.empty() ? hostName() : plan.host;
    record.launch = plan.launch;
    record.supervisor = run::ProcessIdentity::of(::getpid()).value_or(run::ProcessIdentity{::getpid(), 0});
    record.trainer = run::ProcessIdentity::of(trainer).value_or(run::ProcessIdentity{trainer, 0});
    record.started = run::EventSink::now();
    record.eventsOffset = plan.eventsOffset;
    record.stderrOffset = plan.stderrOffset;
    try {
        writeRecord(plan, record);
    } catch (const Error& e) {
        std::fprintf(stderr, "strata-engine: %s\n", e.what());
    }

    const int status = waitFor(trainer);
    record.ended = status < 0 ? failedExitEvent(plan.task, std::string("cannot wait for the trainer: ") +
                                                                  std::strerror(errno))
                              : exitEvent(plan.task, status);
    // The record first: a follower ends once it has relayed the exit line, and whoever it
    // answers may read the record at once (start's caller did, and found no "ended" yet).
    // (A follower that looks between the two writes relays the record's copy of the line, the
    // same bytes the file then gets.)
    try {
        writeRecord(plan, record);
    } catch (const Error& e) {
        std::fprintf(stderr, "strata-engine: %s\n", e.what());
    }
    try {
        appendEvent(files.events, record.ended);
    } catch (const Error& e) {
        std::fprintf(stderr, "strata-engine: %s\n", e.what());
    }
}

} // namespace

pid_t startSupervisor(const SupervisorPlan& plan)
{
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0)
        throw IoError(std::string("cannot fork the supervisor: ") + std::strerror(errno));
    if (pid > 0)
        return pid;
    // Never unwinds into the caller's code: this is another process.
    try {
        supervise(plan);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "strata-engine: supervisor of %s: %s\n", plan.task.c_str(), e.what());
        ::_exit(1);
    }
    ::_exit(0);
}

} // namespace strata::cli
