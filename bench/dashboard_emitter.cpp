// strata-bench-emitter: the engine of strata-bench-dashboard's ingestion (bench/README.md,
// "Dashboard"), started by the app's launcher as any engine: hello, start, STRATA_BENCH_EMIT
// steps (a record each into the task's steps file, a step window every kStepsPerWindow), done,
// as fast as the pipe takes them.
//
// It stands in for the tasks of a job, which run on other machines: it links no Qt (64 of them
// start in milliseconds) and runs at the lowest priority, so that on the bench's own cores it
// takes only the CPU the app leaves, as the app gets all of its machine when the tasks are
// elsewhere. (The rate it writes at is still above what the app takes: bench/README.md.)

#include "synthetic_events.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

using benchevents::kStepsPerWindow;
using benchevents::recordLine;
using benchevents::stepLine;

namespace {

bool writeAll(int fd, const std::string& bytes)
{
    for (size_t written = 0; written < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n <= 0)
            return false;
        written += size_t(n);
    }
    return true;
}

// The "engine": hello, start, then `steps` steps (a record each into `stepsPath`, a
// step event every kStepsPerWindow), then done. Each stretch's records are written before its
// events, as the engine flushes its steps file before each event.
int runEmitter(int64_t steps, const std::string& task, const std::string& stepsPath)
{
    const int records = ::open(stepsPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (records < 0)
        return 1;
    std::string events = R"({"v":1,"type":"hello","t":1763800000,"task":")" + task +
                         R"(","version":"bench","host":"bench"})"
                         "\n"
                         R"({"v":1,"type":"start","t":1763800000,"task":")" +
                         task + R"(","total_steps":)" + std::to_string(steps) + "}\n";
    std::string stepRecords;
    for (int64_t s = 1; s <= steps; ++s) {
        stepRecords += recordLine(s, 2);
        if (s % kStepsPerWindow == 0 || s == steps)
            events += stepLine(s, 2, task);
        if (events.size() > (1 << 16) || s == steps) {
            if (s == steps)
                events += R"({"v":1,"type":"done","t":1763800100,"task":")" + task +
                          R"(","status":"completed","steps":)" + std::to_string(steps) + "}\n";
            if (!writeAll(records, stepRecords) || !writeAll(STDOUT_FILENO, events))
                return 1;
            stepRecords.clear();
            events.clear();
        }
    }
    ::close(records);
    return 0;
}

// The value after `name` among the emitter's arguments (the launcher's `start --run-dir DIR ...`).
std::string argument(int argc, char** argv, const char* name)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return {};
}

} // namespace

int main(int argc, char** argv)
{
    const char* steps = std::getenv("STRATA_BENCH_EMIT");
    if (!steps)
        return 2;
    ::setpriority(PRIO_PROCESS, 0, 19);
    const std::string task = argument(argc, argv, "--task");
    std::string file = task;
    std::replace(file.begin(), file.end(), ':', '-');
    return runEmitter(std::atoll(steps), task, argument(argc, argv, "--run-dir") + "/steps-" + file + ".jsonl");
}
