#include "follower.h"

#include "cli.h"
#include "exit_event.h"
#include "output_channel.h"

#include "strata/core/error.h"
#include "strata/core/host_info.h"
#include "strata/schema/events.h"
#include "strata/report/event_sink.h"
#include "strata/rundir/task_files.h"
#include "strata/rundir/task_record.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace strata::cli {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr size_t kChunk = size_t(1) << 20;           // a backlog is copied in chunks of this size
constexpr milliseconds kCheckInterval{250};          // how often the task's processes are looked at
constexpr milliseconds kPollWithoutInotify{50};

// SIGTERM/SIGINT to the follower: the same as `stop` on stdin (the app stops a task on this
// machine by signalling the process it started).
volatile std::sig_atomic_t g_stopSignal = 0;
void onStopSignal(int) { g_stopSignal = 1; }

// A file read from an offset on; opened once it exists.
class FileTail {
public:
    FileTail(std::string path, int64_t offset) : m_path(std::move(path)), m_offset(offset) {}
    ~FileTail()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    FileTail(const FileTail&) = delete;
    FileTail& operator=(const FileTail&) = delete;

    // Up to `max` bytes from the offset into `out` (replacing it), not consumed yet.
    size_t peek(std::string& out, size_t max)
    {
        out.clear();
        if (m_fd < 0 && (m_fd = ::open(m_path.c_str(), O_RDONLY | O_CLOEXEC)) < 0)
            return 0;
        out.resize(max);
        ssize_t n;
        do {
            n = ::pread(m_fd, out.data(), max, m_offset);
        } while (n < 0 && errno == EINTR);
        out.resize(n > 0 ? static_cast<size_t>(n) : 0);
        return out.size();
    }
    void consume(size_t n) { m_offset += static_cast<int64_t>(n); }

private:
    std::string m_path;
    int m_fd = -1;
    int64_t m_offset;
};

// The end (one past its '\n') of the first `exit` line in `data`, which ends with '\n'.
std::optional<size_t> exitLineEnd(const char* data, size_t size)
{
    static constexpr std::string_view kMarker = R"("type":"exit")";
    size_t from = 0;
    while (from < size) {
        const auto* hit = static_cast<const char*>(::memmem(data + from, size - from, kMarker.data(), kMarker.size()));
        if (!hit)
            return std::nullopt;
        const auto* before = static_cast<const char*>(::memrchr(data, '\n', static_cast<size_t>(hit - data)));
        const char* start = before ? before + 1 : data;
        const auto* end = static_cast<const char*>(std::memchr(hit, '\n', static_cast<size_t>(data + size - hit)));
        if (isExitLine(start, static_cast<size_t>(end - start)))
            return static_cast<size_t>(end - data) + 1;
        from = static_cast<size_t>(end - data) + 1;
    }
    return std::nullopt;
}

class Follower {
public:
    Follower(const FollowOptions& options, StdinReader& input)
        : m_options(options), m_files(run::TaskFiles::of(options.runDir, options.task)), m_input(input),
          m_events(m_files.events, options.eventsOffset), m_stderr(m_files.stderrLog, options.stderrOffset)
    {
        if (options.stepsOffset >= 0)
            m_steps = std::make_unique<FileTail>(m_files.steps, options.stepsOffset);
    }
    ~Follower()
    {
        for (const int fd : {m_attachLock, m_inotify})
            if (fd >= 0)
                ::close(fd);
    }
    Follower(const Follower&) = delete;
    Follower& operator=(const Follower&) = delete;

    int run()
    {
        holdAttachLock();
        watchDirectory();
        // Where this follower starts in the node's files, before anything else: the app
        // counts from there to follow the task again from where it was left.
        nlohmann::ordered_json follow{{"v", schema::kEventSchemaVersion},
                                      {"type", schema::event::kFollow},
                                      {"t", run::EventSink::now()},
                                      {"task", m_options.task},
                                      {"offset", m_options.eventsOffset},
                                      {"stderr_offset", m_options.stderrOffset}};
        if (m_steps)
            follow["steps_offset"] = m_options.stepsOffset;
        m_out.queue(eventLine(follow));
        auto nextCheck = Clock::now();
        while (true) {
            readEvents();
            readStderr();
            if (!m_out.flush())
                return kDetached;
            if (m_relayStderr && !m_err.flush())
                m_relayStderr = false; // stderr's reader is gone; events still flow
            if (m_exitFound && m_out.empty()) {
                finishStderr();
                return kOk;
            }
            const auto now = Clock::now();
            if (m_out.blockedSince() && now - *m_out.blockedSince() >= m_options.stall)
                return kDetached;
            handleCommands();
            if (m_input.atEnd()) {
                finishLine();
                return kDetached;
            }
            if (now >= nextCheck) {
                checkProcesses();
                nextCheck = now + kCheckInterval;
                if (m_gone && m_eventsIdle && m_out.empty() && !m_exitFound)
                    conclude();
            }
            if (m_out.empty() && !m_exitFound && now - m_out.lastWrite() >= m_options.heartbeat) {
                m_out.queue("\n");
                continue;
            }
            wait(nextCheck);
        }
    }

private:
    // Whole lines from the events file, up to and including the first exit line.
    void readEvents()
    {
        if (m_exitFound || !m_out.empty())
            return;
        const size_t n = m_events.peek(m_buffer, m_chunk);
        const auto* lastNewline = static_cast<const char*>(::memrchr(m_buffer.data(), '\n', n));
        m_eventsIdle = lastNewline == nullptr;
        // Read after the events: the engine flushes its step records before it writes an
        // event, so every record before these events is in the steps file now. A backlog of
        // records longer than a chunk goes first, whole: the events (the exit line above all,
        // after which nothing more is read) wait for the records they follow.
        if (readSteps())
            return;
        if (m_eventsIdle) {
            if (n == m_chunk)
                m_chunk *= 2; // a line longer than a chunk
            return;
        }
        size_t take = static_cast<size_t>(lastNewline - m_buffer.data()) + 1;
        if (const auto end = exitLineEnd(m_buffer.data(), take)) {
            take = *end;
            m_exitFound = true;
        }
        m_out.queue(m_buffer.data(), take);
        m_events.consume(take);
    }

    // Whole lines of the steps file (when relayed), queued as one `step_records` frame; true
    // when a whole chunk was taken (more may be waiting).
    bool readSteps()
    {
        if (!m_steps)
            return false;
        const size_t n = m_steps->peek(m_stepsBuffer, m_stepsChunk);
        const bool full = n == m_stepsChunk;
        const auto* lastNewline = static_cast<const char*>(::memrchr(m_stepsBuffer.data(), '\n', n));
        m_stepsIdle = lastNewline == nullptr;
        if (m_stepsIdle) {
            if (full)
                m_stepsChunk *= 2; // a line longer than a chunk
            return full;
        }
        const size_t take = static_cast<size_t>(lastNewline - m_stepsBuffer.data()) + 1;
        m_out.queue(R"({"type":")" + std::string(schema::event::kStepRecords) + R"(","bytes":)" + std::to_string(take) +
                    "}\n");
        m_out.queue(m_stepsBuffer.data(), take);
        m_steps->consume(take);
        return full;
    }

    void readStderr()
    {
        if (!m_relayStderr || !m_err.empty())
            return;
        const size_t n = m_stderr.peek(m_stderrBuffer, kChunk);
        m_stderrIdle = n == 0;
        m_err.queue(m_stderrBuffer.data(), n);
        m_stderr.consume(n);
    }

    // The task's last words on stderr, as far as the reader takes them within a second.
    void finishStderr()
    {
        const auto deadline = Clock::now() + milliseconds(1000);
        while (m_relayStderr && Clock::now() < deadline) {
            readStderr();
            if (!m_err.flush() || (m_err.empty() && m_stderrIdle))
                return;
            pollfd p{m_err.fd(), POLLOUT, 0};
            ::poll(&p, 1, 100);
        }
    }

    // The app went away: what is queued is finished if stdout takes it within a second, so
    // that a reader still there does not get half a line.
    void finishLine()
    {
        const auto deadline = Clock::now() + milliseconds(1000);
        while (!m_out.empty() && m_out.flush() && Clock::now() < deadline) {
            pollfd p{m_out.fd(), POLLOUT, 0};
            ::poll(&p, 1, 100);
        }
    }

    void handleCommands()
    {
        if (g_stopSignal) {
            g_stopSignal = 0;
            signalTrainer(SIGTERM);
        }
        for (std::string line : m_input.takeLines()) {
            while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
                line.pop_back();
            if (line == "stop")
                signalTrainer(SIGTERM);
            else if (line == "kill")
                signalTrainer(SIGKILL);
        }
    }

    // To the trainer the task record names, if it is still that process; before there is a
    // record (the supervisor is starting it), once there is one.
    void signalTrainer(int signal)
    {
        if (!m_record) {
            m_pendingSignal = m_pendingSignal == SIGKILL ? SIGKILL : signal;
            return;
        }
        if (onThisHost() && m_record->trainer.alive())
            ::kill(static_cast<pid_t>(m_record->trainer.pid), signal);
    }

    void checkProcesses()
    {
        if (m_options.supervisor > 0 && !m_supervisorReaped) {
            int status = 0;
            m_supervisorReaped = ::waitpid(m_options.supervisor, &status, WNOHANG) == m_options.supervisor;
        }
        m_record = run::TaskRecord::read(m_files.record);
        // `start` follows its own supervisor's session only.
        if (m_record && m_options.supervisor > 0 && m_record->supervisor.pid != m_options.supervisor)
            m_record.reset();
        if (m_record && m_pendingSignal) {
            signalTrainer(m_pendingSignal);
            m_pendingSignal = 0;
        }
        m_gone = m_record ? (onThisHost() ? m_record->over() : !m_record->ended.is_null()) : m_supervisorReaped;
    }

    // A task of another host (a Slurm job's, followed from the login node through the shared
    // run directory): its processes are not this host's to signal or to find gone; its record's
    // end alone counts, and the app reaches it through its control file.
    bool onThisHost() const { return m_record && m_record->host == hostName(); }

    // The task's processes are gone and the events file holds no exit line after the offset.
    void conclude()
    {
        readEvents(); // a last look: the exit line may have landed since
        if (!m_eventsIdle || m_exitFound)
            return;
        if (m_record && !m_record->ended.is_null()) {
            // Its exit line lies before the offset: the record has its copy.
            m_out.queue(eventLine(m_record->ended));
            m_exitFound = true;
        } else if (m_record) {
            appendVanished();
        } else {
            throw Error("the supervisor of " + m_options.task + " ended without starting its trainer (see " +
                        m_files.stderrLog + ")");
        }
    }

    // Under the exit lock, rereading first: of two followers only one appends.
    void appendVanished()
    {
        const int fd = ::open(m_files.exitLock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            throw IoError("cannot open " + m_files.exitLock + ": " + std::strerror(errno));
        while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
        }
        std::string tail;
        m_events.peek(tail, m_chunk);
        try {
            if (tail.find('\n') == std::string::npos)
                appendEvent(m_files.events, vanishedExitEvent(m_options.task));
        } catch (...) {
            ::close(fd);
            throw;
        }
        ::close(fd); // releases the lock
    }

    void holdAttachLock()
    {
        m_attachLock = ::open(m_files.attachLock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (m_attachLock >= 0)
            while (::flock(m_attachLock, LOCK_SH) != 0 && errno == EINTR) {
            }
    }

    void watchDirectory()
    {
        m_inotify = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (m_inotify >= 0 &&
            ::inotify_add_watch(m_inotify, m_options.runDir.c_str(), IN_MODIFY | IN_CREATE | IN_MOVED_TO) < 0) {
            ::close(m_inotify);
            m_inotify = -1;
        }
    }

    // Until something may have changed: stdin, room on an output, a file in the run
    // directory, or a deadline (the next look at the processes, a heartbeat, a stall).
    void wait(Clock::time_point nextCheck)
    {
        const auto now = Clock::now();
        auto until = nextCheck;
        if (m_out.empty())
            until = std::min(until, m_out.lastWrite() + m_options.heartbeat);
        else if (m_out.blockedSince())
            until = std::min(until, *m_out.blockedSince() + m_options.stall);
        if (m_inotify < 0)
            until = std::min(until, now + kPollWithoutInotify);
        const bool moreToRead = (m_out.empty() && (!m_eventsIdle || (m_steps && !m_stepsIdle)) && !m_exitFound) ||
                                (m_relayStderr && m_err.empty() && !m_stderrIdle);
        const auto left = std::chrono::ceil<milliseconds>(std::max(until - now, Clock::duration::zero()));
        const int timeout = moreToRead ? 0 : static_cast<int>(left.count());

        std::vector<pollfd> fds;
        if (!m_input.atEnd())
            fds.push_back({m_input.fd(), POLLIN, 0});
        if (!m_out.empty())
            fds.push_back({m_out.fd(), POLLOUT, 0});
        if (m_relayStderr && !m_err.empty())
            fds.push_back({m_err.fd(), POLLOUT, 0});
        if (m_inotify >= 0)
            fds.push_back({m_inotify, POLLIN, 0});
        if (::poll(fds.data(), fds.size(), timeout) <= 0)
            return;
        for (const pollfd& p : fds) {
            if (p.fd == m_input.fd() && p.revents)
                m_input.readAvailable();
            if (p.fd == m_inotify && p.revents) {
                char events[4096];
                while (::read(m_inotify, events, sizeof events) > 0) {
                }
            }
        }
    }

    const FollowOptions& m_options;
    const run::TaskFiles m_files;
    StdinReader& m_input;
    FileTail m_events;
    FileTail m_stderr;
    std::unique_ptr<FileTail> m_steps; // relayed when asked
    OutputChannel m_out{STDOUT_FILENO};
    OutputChannel m_err{STDERR_FILENO}; // after m_out: restored first when both are one file
    std::string m_buffer;
    std::string m_stderrBuffer;
    std::string m_stepsBuffer;
    size_t m_chunk = kChunk;
    size_t m_stepsChunk = kChunk;
    bool m_stepsIdle = false;
    bool m_eventsIdle = false;  // the last look found no complete line
    bool m_stderrIdle = false;
    bool m_exitFound = false;   // queued up to the exit line; nothing after it is read
    bool m_relayStderr = true;
    std::optional<run::TaskRecord> m_record;
    bool m_supervisorReaped = false;
    bool m_gone = false;        // the task's processes are gone
    int m_pendingSignal = 0;
    int m_attachLock = -1;
    int m_inotify = -1;
};

} // namespace

int follow(const FollowOptions& options, StdinReader& input)
{
    std::signal(SIGPIPE, SIG_IGN); // a closed stdout is EPIPE: the app went away
    struct sigaction stop = {};
    stop.sa_handler = onStopSignal; // no SA_RESTART: poll() returns at once
    sigemptyset(&stop.sa_mask);
    ::sigaction(SIGTERM, &stop, nullptr);
    ::sigaction(SIGINT, &stop, nullptr);
    Follower follower(options, input);
    return follower.run();
}

} // namespace strata::cli
