#include "app/ssh/terminal_prompter.h"

#include <QByteArray>
#include <QFile>

#include <cerrno>
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

namespace strata::app::ssh {

namespace {

// The terminal, open for the length of one question.
class Terminal {
public:
    explicit Terminal(const QString& path) : m_fd(::open(QFile::encodeName(path).constData(), O_RDWR | O_NOCTTY | O_CLOEXEC)) {}
    ~Terminal()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Terminal(const Terminal&) = delete;
    Terminal& operator=(const Terminal&) = delete;

    bool isOpen() const { return m_fd >= 0; }
    int fd() const { return m_fd; }

    void write(const QString& text)
    {
        const QByteArray bytes = text.toLocal8Bit();
        for (qsizetype done = 0; done < bytes.size();) {
            const ssize_t n = ::write(m_fd, bytes.constData() + done, size_t(bytes.size() - done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return;
            done += n;
        }
    }

    // One line without its newline; nullopt at end of input or on an error. A terminal hands
    // over a line at a time, so reading byte by byte costs nothing here.
    std::optional<QByteArray> readLine()
    {
        QByteArray line;
        for (;;) {
            char c = 0;
            const ssize_t n = ::read(m_fd, &c, 1);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return std::nullopt;
            if (c == '\n')
                return line;
            line += c;
        }
    }

private:
    int m_fd;
};

// Echo off while typing a secret (the newline still echoes); restored when it goes.
class EchoOff {
public:
    explicit EchoOff(int fd) : m_fd(fd), m_active(::tcgetattr(fd, &m_saved) == 0)
    {
        if (!m_active)
            return;
        termios quiet = m_saved;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        quiet.c_lflag |= ECHONL;
        m_active = ::tcsetattr(fd, TCSAFLUSH, &quiet) == 0;
    }
    ~EchoOff()
    {
        if (m_active)
            ::tcsetattr(m_fd, TCSAFLUSH, &m_saved);
    }
    EchoOff(const EchoOff&) = delete;
    EchoOff& operator=(const EchoOff&) = delete;

private:
    int m_fd;
    termios m_saved{};
    bool m_active;
};

// yes -> true, no or end of input -> false; anything else asks again.
bool askYesNo(Terminal& tty, const QString& question)
{
    tty.write(question + QStringLiteral(" (yes/no): "));
    for (;;) {
        const std::optional<QByteArray> answer = tty.readLine();
        if (!answer)
            return false;
        const QByteArray a = answer->trimmed().toLower();
        if (a == "yes")
            return true;
        if (a == "no")
            return false;
        tty.write(QStringLiteral("Please type 'yes' or 'no': "));
    }
}

} // namespace

TerminalPrompter::TerminalPrompter(QString terminal) : m_terminal(std::move(terminal)) {}

HostKeyAnswer TerminalPrompter::unknownHostKey(const Endpoint& endpoint, const QString& keyType,
                                               const QString& sha256Fingerprint)
{
    Terminal tty(m_terminal);
    if (!tty.isOpen())
        return HostKeyAnswer::Refuse;
    tty.write(QStringLiteral("The host key of %1 is not known yet.\n"
                             "  %2 key fingerprint: %3\n"
                             "Compare it with what `ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub` prints on that host.\n")
                  .arg(endpoint.label(), keyType, sha256Fingerprint));
    return askYesNo(tty, QStringLiteral("Trust this key and remember it in known_hosts?")) ? HostKeyAnswer::Trust
                                                                                          : HostKeyAnswer::Refuse;
}

std::optional<QString> TerminalPrompter::secret(const Endpoint&, const QString& prompt, bool* remember)
{
    Terminal tty(m_terminal);
    if (!tty.isOpen())
        return std::nullopt;
    std::optional<QByteArray> typed;
    {
        EchoOff quiet(tty.fd());
        tty.write(prompt + QStringLiteral(": "));
        typed = tty.readLine();
    }
    if (!typed)
        return std::nullopt;
    QString secret = QString::fromLocal8Bit(*typed);
    typed->fill('\0'); // no copy of the secret left behind in this buffer
    if (remember)
        *remember = askYesNo(tty, QStringLiteral("Remember it in the OS keyring?"));
    return secret;
}

} // namespace strata::app::ssh
