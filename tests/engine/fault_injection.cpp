// An LD_PRELOAD library for the crash-consistency tests: it makes one chosen call of a
// writer fail, or kills the writer just before or just after it, so a test can stop a write
// between write(), fsync() and rename() exactly. Production code has no test hooks; the test
// chooses the call through the environment of the process it starts:
//   STRATA_FAULT_CALL    write | fsync | fdatasync | rename | linkat
//   STRATA_FAULT_MATCH   a part of the file's path (for rename and linkat: of either path)
//   STRATA_FAULT_NTH     which of the matching calls (1: the first)
//   STRATA_FAULT_ACTION  fail (the call returns -1 with STRATA_FAULT_ERRNO, default EIO),
//                        kill-before or kill-after (SIGKILL to the process)
// Calls on other files, and every call when STRATA_FAULT_CALL is unset, go through untouched.

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Config {
    std::string call, match, action;
    long nth = 1;
    int error = EIO;
};

const Config& config()
{
    static const Config c = [] {
        Config c;
        const auto env = [](const char* name) {
            const char* v = std::getenv(name);
            return std::string(v ? v : "");
        };
        c.call = env("STRATA_FAULT_CALL");
        c.match = env("STRATA_FAULT_MATCH");
        c.action = env("STRATA_FAULT_ACTION");
        if (const std::string n = env("STRATA_FAULT_NTH"); !n.empty())
            c.nth = std::atol(n.c_str());
        if (const std::string e = env("STRATA_FAULT_ERRNO"); !e.empty())
            c.error = std::atoi(e.c_str());
        return c;
    }();
    return c;
}

std::atomic<long> g_matching{0};

enum class Decision { Pass, Fail, KillBefore, KillAfter };

bool matches(const char* path) { return path && std::strstr(path, config().match.c_str()) != nullptr; }

Decision decide(const char* call, const char* path, const char* other = nullptr)
{
    const Config& c = config();
    if (c.call != call || !(matches(path) || matches(other)))
        return Decision::Pass;
    if (g_matching.fetch_add(1) + 1 != c.nth)
        return Decision::Pass;
    if (c.action == "kill-before")
        return Decision::KillBefore;
    if (c.action == "kill-after")
        return Decision::KillAfter;
    return Decision::Fail;
}

// The path of an open descriptor ("/dir/file", "/dir/#123 (deleted)" for an O_TMPFILE one).
Decision decideForFd(const char* call, int fd)
{
    if (config().call != call)
        return Decision::Pass;
    char link[64], path[4096];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = ::readlink(link, path, sizeof path - 1);
    if (n < 0)
        return Decision::Pass;
    path[n] = '\0';
    return decide(call, path);
}

template <typename F>
F next(const char* name)
{
    return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

[[noreturn]] void die()
{
    ::kill(::getpid(), SIGKILL);
    for (;;)
        ::pause();
}

// Runs `real` as `decision` says.
template <typename Call>
auto apply(Decision decision, Call real) -> decltype(real())
{
    if (decision == Decision::Fail) {
        errno = config().error;
        return -1;
    }
    if (decision == Decision::KillBefore)
        die();
    const auto result = real();
    if (decision == Decision::KillAfter)
        die();
    return result;
}

} // namespace

extern "C" {

ssize_t write(int fd, const void* data, size_t size)
{
    static const auto real = next<ssize_t (*)(int, const void*, size_t)>("write");
    return apply(decideForFd("write", fd), [&] { return real(fd, data, size); });
}

int fsync(int fd)
{
    static const auto real = next<int (*)(int)>("fsync");
    return apply(decideForFd("fsync", fd), [&] { return real(fd); });
}

int fdatasync(int fd)
{
    static const auto real = next<int (*)(int)>("fdatasync");
    return apply(decideForFd("fdatasync", fd), [&] { return real(fd); });
}

int rename(const char* from, const char* to)
{
    static const auto real = next<int (*)(const char*, const char*)>("rename");
    return apply(decide("rename", from, to), [&] { return real(from, to); });
}

int linkat(int fromDir, const char* from, int toDir, const char* to, int flags)
{
    static const auto real = next<int (*)(int, const char*, int, const char*, int)>("linkat");
    return apply(decide("linkat", from, to), [&] { return real(fromDir, from, toDir, to, flags); });
}

} // extern "C"
