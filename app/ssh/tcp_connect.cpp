#include "app/ssh/tcp_connect.h"

#include "app/ssh/interrupter.h"

#include <QObject>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace strata::app::ssh {

namespace {

// How often a wait looks at the interrupter.
constexpr int kSliceMs = 50;

struct AddrInfoFree { void operator()(addrinfo* a) const { ::freeaddrinfo(a); } };
using AddrInfo = std::unique_ptr<addrinfo, AddrInfoFree>;

// A name lookup on a thread of its own: getaddrinfo() cannot be given a timeout, so the
// caller stops waiting at its deadline and the thread finishes (and frees) on its own.
struct Lookup {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    int rc = 0;
    AddrInfo result;
};

bool interrupted(const Interrupter* interrupter)
{
    return interrupter && interrupter->isInterrupted();
}

AddrInfo resolve(const QString& host, int port, QDeadlineTimer deadline, const Interrupter* interrupter,
                 FailureKind* kind, QString* cause)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    const QByteArray name = host.toUtf8();
    const QByteArray service = QByteArray::number(port);
    // An address needs no lookup, and no thread.
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo* numeric = nullptr;
    if (::getaddrinfo(name.constData(), service.constData(), &hints, &numeric) == 0)
        return AddrInfo(numeric);

    auto lookup = std::make_shared<Lookup>();
    hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
    std::thread([lookup, name, service, hints] {
        addrinfo* found = nullptr;
        const int rc = ::getaddrinfo(name.constData(), service.constData(), &hints, &found);
        std::lock_guard lock(lookup->mutex);
        lookup->rc = rc;
        lookup->result.reset(found);
        lookup->finished = true;
        lookup->done.notify_all();
    }).detach();

    std::unique_lock lock(lookup->mutex);
    while (!lookup->finished) {
        if (interrupted(interrupter)) {
            *kind = FailureKind::Cancelled;
            *cause = QObject::tr("abandoned while looking up the host name");
            return nullptr;
        }
        if (deadline.hasExpired()) {
            *kind = FailureKind::TimedOut;
            *cause = QObject::tr("the host name \"%1\" could not be looked up in time (no DNS answer)").arg(host);
            return nullptr;
        }
        lookup->done.wait_for(lock, std::chrono::milliseconds(std::min<qint64>(kSliceMs, deadline.remainingTime())));
    }
    if (lookup->rc != 0) {
        *kind = FailureKind::HostNotFound;
        *cause = lookup->rc == EAI_NONAME || lookup->rc == EAI_NODATA
                   ? QObject::tr("host name \"%1\" not found").arg(host)
                   : QObject::tr("host name \"%1\" could not be looked up: %2")
                         .arg(host, QString::fromLocal8Bit(::gai_strerror(lookup->rc)));
        return nullptr;
    }
    return std::move(lookup->result);
}

FailureKind kindOf(int error)
{
    switch (error) {
    case ECONNREFUSED: return FailureKind::ConnectionRefused;
    case ENETUNREACH:
    case EHOSTUNREACH:
    case ENETDOWN:
    case EHOSTDOWN: return FailureKind::Unreachable;
    case ETIMEDOUT: return FailureKind::TimedOut;
    default: return FailureKind::Other;
    }
}

QString describe(int error, int port)
{
    if (error == ECONNREFUSED)
        return QObject::tr("connection refused (nothing listens on port %1)").arg(port);
    return QString::fromLocal8Bit(std::strerror(error)).toLower();
}

// One address: 0 connected, else the errno (ETIMEDOUT at the deadline, ECANCELED when interrupted).
int connectOne(int fd, const addrinfo* a, QDeadlineTimer deadline, const Interrupter* interrupter)
{
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0)
        return 0;
    if (errno != EINPROGRESS)
        return errno;
    for (;;) {
        if (interrupted(interrupter))
            return ECANCELED;
        if (deadline.hasExpired())
            return ETIMEDOUT;
        pollfd p{fd, POLLOUT, 0};
        const int n = ::poll(&p, 1, int(std::min<qint64>(kSliceMs, deadline.remainingTime())));
        if (n < 0 && errno != EINTR)
            return errno;
        if (n > 0) {
            int error = 0;
            socklen_t len = sizeof error;
            if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) < 0)
                return errno;
            return error;
        }
    }
}

} // namespace

int tcpConnect(const QString& host, int port, QDeadlineTimer deadline, const Interrupter* interrupter,
               FailureKind* kind, QString* cause)
{
    const AddrInfo addresses = resolve(host, port, deadline, interrupter, kind, cause);
    if (!addresses)
        return -1;
    int firstError = 0;
    for (const addrinfo* a = addresses.get(); a; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            firstError = firstError ? firstError : errno;
            continue;
        }
        const int error = connectOne(fd, a, deadline, interrupter);
        if (error == 0) {
            // libssh polls before it reads or writes and expects a blocking socket.
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            const int on = 1;
            ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
            return fd;
        }
        ::close(fd);
        if (error == ECANCELED) {
            *kind = FailureKind::Cancelled;
            *cause = QObject::tr("abandoned while connecting");
            return -1;
        }
        // The first address's error is the one to report, unless a later one says more.
        if (!firstError || (firstError == ETIMEDOUT && error != ETIMEDOUT))
            firstError = error;
        if (error == ETIMEDOUT && deadline.hasExpired())
            break;
    }
    *kind = kindOf(firstError);
    *cause = describe(firstError, port);
    return -1;
}

void setDeadPeerTimeout(int fd, int deadPeerMs)
{
    // Idle: probes after a third of the time, then two more a third apart. Busy: unacknowledged
    // data for the whole time ends the connection.
    const int step = std::max(1, deadPeerMs / 3000);
    const int on = 1, probes = 2;
    const unsigned userTimeout = unsigned(std::max(1000, deadPeerMs));
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &step, sizeof step);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &step, sizeof step);
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
    ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &userTimeout, sizeof userTimeout);
}

void ackPromptly(int fd)
{
    const int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &on, sizeof on);
}

} // namespace strata::app::ssh
