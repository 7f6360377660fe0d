#include "strata/rundir/atomic_file.h"

#include "strata/core/error.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace strata::run {

namespace {
constexpr const char* kTemporaryMark = ".tmp-";
}

AtomicFile::AtomicFile(std::string path, std::string what)
    : m_path(std::move(path)), m_tmp(m_path + kTemporaryMark + std::to_string(::getpid())), m_what(std::move(what))
{
    m_fd = ::open(m_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (m_fd < 0)
        fail("creating", errno);
}

AtomicFile::~AtomicFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_committed)
        ::unlink(m_tmp.c_str());
}

void AtomicFile::fail(const std::string& step, int error)
{
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
    ::unlink(m_tmp.c_str());
    throw IoError("cannot write the " + m_what + " " + m_path + ": " + std::strerror(error) + " (while " + step + " " +
                  std::filesystem::path(m_tmp).filename().string() + ", now removed; nothing else was changed)");
}

void AtomicFile::write(const void* data, size_t size)
{
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
        const ssize_t n = ::write(m_fd, p, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fail("writing", errno);
        }
        p += n;
        size -= static_cast<size_t>(n);
    }
}

void AtomicFile::commit()
{
    if (::fsync(m_fd) != 0)
        fail("syncing", errno);
    const int fd = m_fd;
    m_fd = -1;
    if (::close(fd) != 0)
        fail("closing", errno);
    if (std::rename(m_tmp.c_str(), m_path.c_str()) != 0)
        fail("renaming", errno);
    m_committed = true;
    const std::filesystem::path dir = std::filesystem::path(m_path).parent_path();
    try {
        syncDirectory(dir.empty() ? "." : dir.string());
    } catch (const IoError& e) {
        throw IoError("cannot write the " + m_what + " " + m_path + ": " + e.what() +
                      " (it is in place, but a crash of the machine could lose it)");
    }
}

bool isAtomicFileTemporary(const std::string& name)
{
    const size_t mark = name.rfind(kTemporaryMark);
    if (mark == std::string::npos || mark + std::strlen(kTemporaryMark) == name.size())
        return false;
    for (size_t i = mark + std::strlen(kTemporaryMark); i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9')
            return false;
    return true;
}

void syncDirectory(const std::string& dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        throw IoError("cannot open the directory " + dir + " to sync it: " + std::strerror(errno));
    const int result = ::fsync(fd);
    const int error = errno;
    ::close(fd);
    if (result != 0)
        throw IoError("cannot sync the directory " + dir + ": " + std::strerror(error));
}

} // namespace strata::run
