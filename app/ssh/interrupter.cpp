#include "app/ssh/interrupter.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace strata::app::ssh {

Interrupter::~Interrupter()
{
    detach();
}

void Interrupter::interrupt()
{
    std::lock_guard lock(m_mutex);
    m_interrupted = true;
    if (m_fd >= 0)
        ::shutdown(m_fd, SHUT_RDWR);
}

void Interrupter::attach(int fd)
{
    std::lock_guard lock(m_mutex);
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (m_interrupted && m_fd >= 0)
        ::shutdown(m_fd, SHUT_RDWR);
}

void Interrupter::detach()
{
    std::lock_guard lock(m_mutex);
    if (m_fd >= 0)
        ::close(m_fd);
    m_fd = -1;
}

} // namespace strata::app::ssh
