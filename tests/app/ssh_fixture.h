#pragma once
// Real OpenSSH for the SSH tests (and the SSH launcher's): SshServer runs Debian's sshd on a
// temporary directory of its own (host key, config, pid file, log, authorized client keys),
// on 127.0.0.1 or inside a network namespace (netns_fixture.h); SshAgent runs ssh-agent
// holding the client key. Everything they start is killed when they go.
//
//   SshServer server;                              // key logins as the current user
//   QVERIFY2(server.isRunning(), qPrintable(server.error()));
//   writeFile(knownHosts, server.knownHostsLine()); // trusted, or test the prompt instead
//   auto s = Session::connect(server.endpoint(AuthMethod::Key), options, &prompter, &error);
//
// The password user: with `passwordUser`, sshd runs in a private mount namespace where
// copies of /etc/passwd and /etc/shadow (bind-mounted over the real ones) hold the user
// kTestUser with kTestPassword (hashed by crypt(), SHA-512), so sshd (UsePAM no) accepts it
// while the rest of the machine never sees the user. Needs root, as sshd itself does here.

#include "app/ssh/endpoint.h"
#include "app/ssh/prompter.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>

#include <crypt.h>
#include <mutex>
#include <csignal>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sshtest {

// Runs a program to its end: true when it exited with status 0; its stdout in *out, and
// what went wrong in *error.
inline bool runTool(const QString& program, const QStringList& args, QByteArray* out = nullptr,
                    QString* error = nullptr, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(program, args);
    const bool finished = p.waitForStarted(5000) && p.waitForFinished(20000);
    if (out)
        *out = p.readAllStandardOutput();
    if (finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
        return true;
    if (error)
        *error = QStringLiteral("%1 %2 failed: %3 %4")
                     .arg(program, args.join(' '), p.errorString(), QString::fromLocal8Bit(p.readAllStandardError()));
    return false;
}

inline QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline bool writeAll(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

// `pid` and every process below it, by their parents in /proc.
inline QList<pid_t> processTree(pid_t root)
{
    QList<pid_t> tree{root};
    for (qsizetype i = 0; i < tree.size(); ++i)
        for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
            bool numeric = false;
            const pid_t pid = pid_t(entry.toInt(&numeric));
            if (!numeric)
                continue;
            // /proc/PID/stat: "pid (comm) state ppid ...", comm may hold spaces.
            const QByteArray stat = readAll(QStringLiteral("/proc/%1/stat").arg(pid));
            const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
            if (fields.size() > 1 && pid_t(fields[1].toInt()) == tree[i] && !tree.contains(pid))
                tree << pid;
        }
    return tree;
}

inline void killTree(pid_t root)
{
    if (root <= 0)
        return;
    for (pid_t pid : processTree(root))
        ::kill(pid, SIGKILL);
}

// A TCP port free on `address` a moment ago.
inline int freePort(const QString& address = QStringLiteral("127.0.0.1"))
{
    QTcpServer server;
    return server.listen(QHostAddress(address), 0) ? server.serverPort() : 0;
}

// Why real-sshd tests cannot run here; empty when they can.
inline QString sshdSkipReason()
{
    if (::geteuid() != 0)
        return QStringLiteral("the sshd tests need root (sshd's privilege separation, the password user's mount namespace)");
    if (!QFileInfo(QStringLiteral("/usr/sbin/sshd")).isExecutable())
        return QStringLiteral("no /usr/sbin/sshd (Debian's openssh-server)");
    return {};
}

struct SshServerOptions {
    QString address = QStringLiteral("127.0.0.1");
    int port = 0;              // 0: a free port; use 22 in a namespace of its own
    QString netns;             // run inside this network namespace (`ip netns exec`)
    bool passwordUser = false; // PasswordAuthentication, with SshServer::kTestUser
    QStringList environment;   // "NAME=value" for every session (sshd's SetEnv)
};

class SshServer {
public:
    using Options = SshServerOptions;
    static constexpr const char* kTestUser = "strata-test";
    static constexpr const char* kTestPassword = "correct horse battery staple";
    static constexpr const char* kPassphrase = "open sesame";

    explicit SshServer(Options options = {}) : m_options(std::move(options))
    {
        m_port = m_options.port;
        if (!m_dir.isValid()) {
            m_error = QStringLiteral("no temporary directory");
            return;
        }
        // The password user's home is inside; it must reach it.
        ::chmod(QFile::encodeName(m_dir.path()).constData(), 0755);
        QDir().mkpath(QStringLiteral("/run/sshd"));
        if (!keygen({"-t", "ed25519", "-N", "", "-C", "strata-test-client", "-f", clientKey()})
            || !keygen({"-t", "ed25519", "-N", kPassphrase, "-C", "strata-test-encrypted", "-f", encryptedClientKey()})
            || !writeAll(path("authorized_keys"), readAll(clientKey() + ".pub") + readAll(encryptedClientKey() + ".pub"))
            || !makeHostKey() || (m_options.passwordUser && !makePasswordUser()))
            return;
        for (int attempt = 0; attempt < 3 && !isRunning(); ++attempt) {
            if (m_options.port == 0)
                m_port = freePort(m_options.address);
            start();
        }
    }

    ~SshServer() { stop(); }
    SshServer(const SshServer&) = delete;
    SshServer& operator=(const SshServer&) = delete;

    bool isRunning() const { return m_sshd && m_sshd->state() == QProcess::Running && m_error.isEmpty(); }
    const QString& error() const { return m_error; }
    QString address() const { return m_options.address; }
    int port() const { return m_port; }
    QString dir() const { return m_dir.path(); }
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QString clientKey() const { return path("client_ed25519"); }
    QString encryptedClientKey() const { return path("client_encrypted_ed25519"); }
    QString log() const { return QString::fromLocal8Bit(readAll(path("sshd.log"))); }

    // The name known_hosts files the host under, as OpenSSH writes it.
    QString knownHostsName() const
    {
        return m_port == 22 ? m_options.address : QStringLiteral("[%1]:%2").arg(m_options.address).arg(m_port);
    }
    // The line that trusts this server's host key ("[127.0.0.1]:PORT ssh-ed25519 AAAA...\n").
    QByteArray knownHostsLine() const
    {
        const QList<QByteArray> fields = readAll(path("host_ed25519.pub")).trimmed().split(' ');
        return knownHostsName().toUtf8() + ' ' + fields.value(0) + ' ' + fields.value(1) + '\n';
    }
    // "SHA256:...", as ssh-keygen -l prints it.
    QString hostFingerprint() const
    {
        QByteArray out;
        runTool("ssh-keygen", {"-l", "-E", "sha256", "-f", path("host_ed25519.pub")}, &out);
        return QString::fromLatin1(out.split(' ').value(1));
    }

    // A new host key, and sshd restarted with it on the same port.
    bool regenerateHostKey()
    {
        stop();
        QFile::remove(path("host_ed25519"));
        QFile::remove(path("host_ed25519.pub"));
        return makeHostKey() && start();
    }

    // An endpoint for this server: the password user with Password, else the current user.
    strata::app::ssh::Endpoint endpoint(strata::app::ssh::AuthMethod auth, const QString& node = QStringLiteral("test")) const
    {
        strata::app::ssh::Endpoint e;
        e.node = node;
        e.host = m_options.address;
        e.port = m_port;
        e.auth = auth;
        if (auth == strata::app::ssh::AuthMethod::Password)
            e.user = QString::fromLatin1(kTestUser);
        if (auth == strata::app::ssh::AuthMethod::Key)
            e.keyFile = clientKey();
        return e;
    }

    // sshd and every session process under it.
    void stop()
    {
        if (!m_sshd)
            return;
        killTree(pid_t(m_sshd->processId()));
        m_sshd->waitForFinished(3000);
        m_sshd.reset();
    }

private:
    bool fail(const QString& why)
    {
        m_error = why;
        return false;
    }

    bool keygen(const QStringList& args)
    {
        QString why;
        return runTool("ssh-keygen", QStringList{"-q"} + args, nullptr, &why) || fail(why);
    }

    bool makeHostKey() { return keygen({"-t", "ed25519", "-N", "", "-C", "strata-test-host", "-f", path("host_ed25519")}); }

    bool makePasswordUser()
    {
        // An id no one here has, and a home the user owns.
        uid_t id = 61000;
        while (::getpwuid(id))
            ++id;
        const QString home = path("home");
        QDir().mkpath(home);
        if (::chown(QFile::encodeName(home).constData(), id, id) != 0)
            return fail(QStringLiteral("cannot chown %1").arg(home));
        const char* hash = ::crypt(kTestPassword, "$6$stratatestsalt$");
        if (!hash || hash[0] == '*')
            return fail(QStringLiteral("crypt() cannot hash with SHA-512 here"));
        const QByteArray user(kTestUser);
        return (writeAll(path("passwd"), readAll("/etc/passwd")
                                             + QStringLiteral("%1:x:%2:%2:Strata test:%3:/bin/sh\n")
                                                   .arg(kTestUser).arg(id).arg(home).toUtf8())
                && writeAll(path("shadow"), readAll("/etc/shadow") + user + ':' + hash + ":19000:0:99999:7:::\n"))
            || fail(QStringLiteral("cannot write the passwd and shadow copies"));
    }

    bool writeConfig()
    {
        const QString config = QStringLiteral(
            "Port %1\nListenAddress %2\nHostKey %3\nPidFile %4\nAuthorizedKeysFile %5\n"
            "PasswordAuthentication %6\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
            "PermitRootLogin prohibit-password\nUsePAM no\nStrictModes no\nUseDNS no\n"
            "MaxStartups 100\nLogLevel VERBOSE\n")
            .arg(m_port).arg(m_options.address, path("host_ed25519"), path("sshd.pid"), path("authorized_keys"),
                 m_options.passwordUser ? "yes" : "no")
            + (m_options.environment.isEmpty() ? QString() : "SetEnv " + m_options.environment.join(' ') + '\n');
        return writeAll(path("sshd_config"), config.toUtf8()) || fail(QStringLiteral("cannot write sshd_config"));
    }

    bool start()
    {
        m_error.clear();
        if (!writeConfig())
            return false;
        QStringList command{"/usr/sbin/sshd", "-D", "-f", path("sshd_config"), "-E", path("sshd.log")};
        if (m_options.passwordUser)
            command = QStringList{"unshare", "--mount", "--propagation", "private", "sh", "-c",
                                  "mount --bind \"$1\" /etc/passwd && mount --bind \"$2\" /etc/shadow && shift 2 && "
                                  "exec \"$@\"",
                                  "sh", path("passwd"), path("shadow")}
                    + command;
        if (!m_options.netns.isEmpty())
            command = QStringList{"ip", "netns", "exec", m_options.netns} + command;
        // Ready once this sshd says it listens and a connection is accepted: a probe alone
        // could reach a previous sshd still dying on the port, whose going leaves none. A
        // port not yet given back by that one is tried again.
        QElapsedTimer waited;
        waited.start();
        while (waited.elapsed() < 10000) {
            QFile::remove(path("sshd.log"));
            m_sshd = std::make_unique<QProcess>();
            m_sshd->setProcessChannelMode(QProcess::ForwardedChannels);
            m_sshd->start(command.first(), command.mid(1));
            if (!m_sshd->waitForStarted(5000))
                return fail(QStringLiteral("sshd did not start: %1").arg(m_sshd->errorString()));
            while (waited.elapsed() < 10000 && m_sshd->state() == QProcess::Running) {
                if (log().contains(QLatin1String("Server listening on"))) {
                    QTcpSocket probe;
                    probe.connectToHost(m_options.address, quint16(m_port));
                    if (probe.waitForConnected(200))
                        return true;
                }
                m_sshd->waitForFinished(20); // and notices an exit, which state() alone does not
            }
            if (m_sshd->state() == QProcess::Running)
                break;
            if (!log().contains(QLatin1String("Address already in use")))
                return fail(QStringLiteral("sshd exited: %1").arg(log()));
            m_sshd.reset();
            QThread::msleep(100);
        }
        stop();
        return fail(QStringLiteral("sshd did not accept connections within 10 s: %1").arg(log()));
    }

    Options m_options;
    QTemporaryDir m_dir;
    int m_port = 0;
    std::unique_ptr<QProcess> m_sshd;
    QString m_error;
};

// A Prompter that answers from a script and records what it was asked (from any thread).
class ScriptedPrompter final : public strata::app::ssh::Prompter {
public:
    strata::app::ssh::HostKeyAnswer hostKeyAnswer = strata::app::ssh::HostKeyAnswer::Refuse;
    QStringList secrets;   // the answers, in order; nullopt (cancelled) once used up
    bool remember = false; // what it answers when asked whether to remember

    strata::app::ssh::HostKeyAnswer unknownHostKey(const strata::app::ssh::Endpoint&, const QString& keyType,
                                                   const QString& fingerprint) override
    {
        std::lock_guard lock(m_mutex);
        m_hostKeys << keyType + ' ' + fingerprint;
        return hostKeyAnswer;
    }
    std::optional<QString> secret(const strata::app::ssh::Endpoint&, const QString& prompt, bool* rememberIt) override
    {
        std::lock_guard lock(m_mutex);
        m_prompts << prompt;
        m_rememberOffered << (rememberIt != nullptr);
        if (rememberIt)
            *rememberIt = remember;
        if (secrets.isEmpty())
            return std::nullopt;
        return secrets.takeFirst();
    }
    QStringList hostKeysAsked() const
    {
        std::lock_guard lock(m_mutex);
        return m_hostKeys;
    }
    QStringList promptsShown() const
    {
        std::lock_guard lock(m_mutex);
        return m_prompts;
    }
    QList<bool> rememberOffered() const
    {
        std::lock_guard lock(m_mutex);
        return m_rememberOffered;
    }

private:
    mutable std::mutex m_mutex;
    QStringList m_hostKeys, m_prompts;
    QList<bool> m_rememberOffered;
};

// ssh-agent on a socket of its own, holding `key`.
class SshAgent {
public:
    explicit SshAgent(const QString& key)
    {
        m_agent.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_agent.start("ssh-agent", {"-D", "-a", socket()});
        if (!m_agent.waitForStarted(5000)) {
            m_error = QStringLiteral("ssh-agent did not start: %1").arg(m_agent.errorString());
            return;
        }
        QElapsedTimer waited;
        waited.start();
        while (!QFileInfo::exists(socket()) && waited.elapsed() < 5000)
            QThread::msleep(10);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("SSH_AUTH_SOCK", socket());
        runTool("ssh-add", {"-q", key}, nullptr, &m_error, env);
    }
    ~SshAgent()
    {
        m_agent.kill();
        m_agent.waitForFinished(3000);
    }
    bool isRunning() const { return m_error.isEmpty() && m_agent.state() == QProcess::Running; }
    const QString& error() const { return m_error; }
    QString socket() const { return m_dir.filePath("agent.sock"); }

private:
    QTemporaryDir m_dir;
    QProcess m_agent;
    QString m_error;
};

} // namespace sshtest
