#include "strata/rundir/task_files.h"

#include <filesystem>

namespace strata::run {

std::string taskFileName(const std::string& task)
{
    std::string name = task;
    for (char& c : name)
        if (c == ':' || c == '/')
            c = '-';
    return name;
}

TaskFiles TaskFiles::of(const std::string& runDir, const std::string& task)
{
    const std::string name = taskFileName(task);
    const auto in = [&](const std::string& file) { return (std::filesystem::path(runDir) / file).string(); };
    return {in("events-" + name + ".jsonl"), in("steps-" + name + ".jsonl"), in("stderr-" + name + ".log"), in("task-" + name + ".json"),
            in("attach-" + name + ".lock"), in("exit-" + name + ".lock"), in("control-" + name + ".txt")};
}

} // namespace strata::run
