// An LD_PRELOAD library for the tests of multi-worker jobs whose every worker must step (a
// ParameterServer coordinator gives steps to whichever worker is free: a worker started first
// on a fast machine can run the whole job before the others have joined it). Each worker's
// first step record (its first fwrite to steps-worker-*.jsonl, made after the step's result
// went to the coordinator) leaves a mark in a folder and waits until every worker has left
// one: the first to step holds its next step until another has stepped too, so the job cannot
// end before every worker has. The test chooses it through the environment of the job:
//   STRATA_STEP_BARRIER_DIR    the folder of the marks (made by the test)
//   STRATA_STEP_BARRIER_COUNT  how many workers must step
// A worker waits for the others at most STRATA_STEP_BARRIER_SECONDS (default 240), then goes
// on (and the test fails, naming the worker that did not step). Without the variables every
// call goes through untouched.

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

namespace {

std::atomic<bool> g_passed{false};

std::string env(const char* name)
{
    const char* v = std::getenv(name);
    return v ? v : "";
}

// The file name of `stream` when it is a worker's step records ("steps-worker-1.jsonl").
std::string stepRecordsName(std::FILE* stream)
{
    char link[64], path[4096];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", ::fileno(stream));
    const ssize_t n = ::readlink(link, path, sizeof path - 1);
    if (n < 0)
        return {};
    path[n] = '\0';
    const std::string name = std::filesystem::path(path).filename().string();
    return name.starts_with("steps-worker-") ? name : std::string();
}

size_t marks(const std::filesystem::path& dir)
{
    std::error_code error;
    size_t n = 0;
    for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end; it.increment(error))
        ++n;
    return n;
}

void awaitEveryWorker(std::FILE* stream)
{
    const std::string dir = env("STRATA_STEP_BARRIER_DIR");
    if (dir.empty()) {
        g_passed = true;
        return;
    }
    const std::string name = stepRecordsName(stream);
    if (name.empty())
        return;
    g_passed = true;
    std::FILE* mark = std::fopen((std::filesystem::path(dir) / name).c_str(), "w");
    if (mark)
        std::fclose(mark);
    const size_t count = std::strtoul(env("STRATA_STEP_BARRIER_COUNT").c_str(), nullptr, 10);
    const std::string limit = env("STRATA_STEP_BARRIER_SECONDS");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit.empty() ? 240 : std::atoi(limit.c_str()));
    while (marks(dir) < count && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

} // namespace

extern "C" size_t fwrite(const void* data, size_t size, size_t count, std::FILE* stream)
{
    static const auto real = reinterpret_cast<size_t (*)(const void*, size_t, size_t, std::FILE*)>(::dlsym(RTLD_NEXT, "fwrite"));
    if (!g_passed.load())
        awaitEveryWorker(stream);
    return real(data, size, count, stream);
}
