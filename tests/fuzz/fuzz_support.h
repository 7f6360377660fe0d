#pragma once
// What the fuzz targets share: the oracle (which exceptions are answers, not bugs) and
// in-memory files for readers that take a path.

#include "strata/core/error.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace strata::fuzz {

// Runs `fn`. A strata::Error is the parser's answer to bad input (a message naming the cause)
// and is swallowed; an InternalError (a broken assumption) and anything else (a JSON library
// exception, std::out_of_range, ...) escape, and libFuzzer reports the escape as a crash.
template<typename Fn>
bool answers(Fn&& fn)
{
    try {
        fn();
        return true;
    } catch (const InternalError&) {
        throw;
    } catch (const Error&) {
        return false;
    }
}

// Stops the run with `what`: a property every accepted input must have does not hold.
[[noreturn]] inline void fail(const std::string& what)
{
    std::fprintf(stderr, "fuzz: %s\n", what.c_str());
    std::abort();
}

inline std::string_view text(const uint8_t* data, size_t size)
{
    return {reinterpret_cast<const char*>(data), size};
}

// A file in memory (memfd), rewritten for each input and read through /proc/self/fd/N by
// readers that open a path: a real file as far as they can tell, with no disk involved.
class MemoryFile {
public:
    explicit MemoryFile(const char* name)
    {
        m_fd = ::memfd_create(name, MFD_CLOEXEC);
        if (m_fd < 0)
            fail("memfd_create failed");
        m_path = "/proc/self/fd/" + std::to_string(m_fd);
    }
    ~MemoryFile() { ::close(m_fd); }
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;

    // Replaces the contents; returns the path to open.
    const std::string& write(std::string_view bytes)
    {
        if (::ftruncate(m_fd, 0) != 0)
            fail("ftruncate failed");
        size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::pwrite(m_fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
            if (n <= 0)
                fail("pwrite failed");
            done += static_cast<size_t>(n);
        }
        return m_path;
    }
    const std::string& path() const { return m_path; }

private:
    int m_fd = -1;
    std::string m_path;
};

} // namespace strata::fuzz
