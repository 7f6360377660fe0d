#include "output_channel.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace strata::cli {

OutputChannel::OutputChannel(int fd) : m_fd(fd), m_flags(::fcntl(fd, F_GETFL))
{
    if (m_flags >= 0)
        ::fcntl(fd, F_SETFL, m_flags | O_NONBLOCK);
}

OutputChannel::~OutputChannel()
{
    if (m_flags >= 0)
        ::fcntl(m_fd, F_SETFL, m_flags);
}

void OutputChannel::queue(const char* data, size_t size)
{
    if (empty()) {
        m_data.clear();
        m_pos = 0;
    }
    m_data.append(data, size);
}

bool OutputChannel::flush()
{
    while (!empty()) {
        const ssize_t n = ::write(m_fd, m_data.data() + m_pos, m_data.size() - m_pos);
        if (n > 0) {
            m_pos += static_cast<size_t>(n);
            m_lastWrite = Clock::now();
            m_blockedSince.reset();
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!m_blockedSince)
                m_blockedSince = Clock::now();
            return true;
        } else if (!(n < 0 && errno == EINTR)) {
            return false;
        }
    }
    m_blockedSince.reset();
    return true;
}

} // namespace strata::cli
