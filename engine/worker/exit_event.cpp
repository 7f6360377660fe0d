#include "exit_event.h"

#include "strata/core/error.h"
#include "strata/report/event_sink.h"
#include "strata/schema/events.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace strata::cli {

namespace {

nlohmann::ordered_json header(const std::string& task)
{
    return {{"v", schema::kEventSchemaVersion}, {"type", schema::event::kExit}, {"t", run::EventSink::now()}, {"task", task}};
}

} // namespace

nlohmann::ordered_json exitEvent(const std::string& task, int waitStatus)
{
    auto e = header(task);
    if (WIFSIGNALED(waitStatus)) {
        const int signal = WTERMSIG(waitStatus);
        const char* name = sigabbrev_np(signal);
        e["signal"] = signal;
        e["signal_name"] = name ? name : std::to_string(signal);
        if (WCOREDUMP(waitStatus))
            e["core_dumped"] = true;
    } else {
        e["code"] = WEXITSTATUS(waitStatus);
    }
    return e;
}

nlohmann::ordered_json vanishedExitEvent(const std::string& task)
{
    auto e = header(task);
    e["vanished"] = true;
    e["message"] = "the task's processes are gone without a word: killed together with their supervisor, or the "
                   "node restarted";
    return e;
}

nlohmann::ordered_json failedExitEvent(const std::string& task, const std::string& why)
{
    auto e = header(task);
    e["code"] = 127;
    e["message"] = why;
    return e;
}

std::string eventLine(const nlohmann::ordered_json& event)
{
    return event.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

bool isExitLine(const char* line, size_t size)
{
    const auto e = nlohmann::ordered_json::parse(line, line + size, nullptr, false);
    return e.is_object() && e.value("type", "") == schema::event::kExit;
}

void appendEvent(const std::string& path, const nlohmann::ordered_json& event)
{
    const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        throw IoError("cannot open " + path + ": " + std::strerror(errno));
    std::string line = eventLine(event);
    struct stat st {};
    char last = '\n';
    if (::fstat(fd, &st) == 0 && st.st_size > 0 && ::pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
        line.insert(line.begin(), '\n');
    // One write: a reader never sees the line in pieces from two writers.
    const ssize_t n = ::write(fd, line.data(), line.size());
    const int error = n != static_cast<ssize_t>(line.size()) ? (n < 0 ? errno : EIO) : (::fsync(fd) == 0 ? 0 : errno);
    ::close(fd);
    if (error)
        throw IoError("cannot append to " + path + ": " + std::strerror(error));
}

} // namespace strata::cli
