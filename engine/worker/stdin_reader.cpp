#include "stdin_reader.h"

#include "cli.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace strata::cli {

bool StdinReader::fill()
{
    if (m_eof)
        return false;
    char chunk[65536];
    ssize_t n;
    do {
        n = ::read(m_fd, chunk, sizeof chunk);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
        m_eof = true; // an error reading stdin means the app is gone just as EOF does
        return false;
    }
    m_buffer.append(chunk, static_cast<size_t>(n));
    return true;
}

std::optional<std::string> StdinReader::readLine()
{
    size_t end;
    while ((end = m_buffer.find('\n')) == std::string::npos)
        if (!fill())
            return std::nullopt;
    std::string line = m_buffer.substr(0, end);
    m_buffer.erase(0, end + 1);
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    return line;
}

std::string StdinReader::readBytes(size_t n, const std::string& what)
{
    while (m_buffer.size() < n)
        if (!fill())
            throw UsageError("standard input ended after " + std::to_string(m_buffer.size()) + " of the " +
                             std::to_string(n) + " bytes of " + what);
    std::string bytes = m_buffer.substr(0, n);
    m_buffer.erase(0, n);
    return bytes;
}

void StdinReader::readAvailable() { fill(); }

std::vector<std::string> StdinReader::takeLines()
{
    std::vector<std::string> lines;
    size_t start = 0, end;
    while ((end = m_buffer.find('\n', start)) != std::string::npos) {
        std::string line = m_buffer.substr(start, end - start);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(std::move(line));
        start = end + 1;
    }
    m_buffer.erase(0, start);
    if (m_eof && !m_buffer.empty()) {
        lines.push_back(m_buffer);
        m_buffer.clear();
    }
    return lines;
}

} // namespace strata::cli
