#include "app/launch/backends/slurm/login_node.h"

#include "app/launch/launch_plan.h"
#include "app/ssh/connection.h"

#include <QFile>
#include <QPointer>
#include <QProcess>

#include <map>

namespace strata::app {

LoginNode::~LoginNode() = default;

namespace {

class LocalLogin final : public LoginNode {
public:
    using LoginNode::LoginNode;

    bool remote() const override { return false; }

    void run(const QString& program, const QStringList& args, const QByteArray& stdinData, Done done) override
    {
        auto* process = new QProcess(this);
        connect(process, &QProcess::finished, this, [process, done](int code, QProcess::ExitStatus status) {
            done(status == QProcess::NormalExit ? code : -1, process->readAllStandardOutput(), process->readAllStandardError());
            process->deleteLater();
        });
        connect(process, &QProcess::errorOccurred, this, [process, program, done](QProcess::ProcessError e) {
            if (e != QProcess::FailedToStart)
                return;
            done(-1, {}, tr("%1 could not be run: %2").arg(program, process->errorString()).toUtf8());
            process->deleteLater();
        });
        process->start(program, args);
        if (!stdinData.isEmpty())
            process->write(stdinData);
        process->closeWriteChannel();
    }

    bool runDetached(const QString& program, const QStringList& args) override
    {
        return QProcess::startDetached(program, args);
    }

    void read(const QString& path, qint64 from, Read done) override
    {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            done(false, {});
            return;
        }
        f.seek(from >= 0 ? std::min(from, f.size()) : std::max<qint64>(0, f.size() + from));
        done(true, f.readAll());
    }

    void write(const QString& path, const QByteArray& data, Write mode, Written done) override
    {
        QFile f(path);
        const bool opened = f.open(mode == Write::Append ? QIODevice::WriteOnly | QIODevice::Append
                                                          : QIODevice::WriteOnly | QIODevice::Truncate);
        const bool ok = opened &&
                        (mode != Write::ReplaceOwnerOnly || f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) &&
                        f.write(data) == data.size() && f.flush();
        done(ok ? QString() : tr("%1 could not be written: %2").arg(path, f.errorString()));
    }
};

class SshLogin final : public LoginNode {
public:
    SshLogin(QString node, std::function<ssh::Connection*()> connection, QObject* parent)
        : LoginNode(parent), m_node(std::move(node)), m_connection(std::move(connection))
    {
    }

    bool remote() const override { return true; }

    void run(const QString& program, const QStringList& args, const QByteArray& stdinData, Done done) override
    {
        ssh::Connection* c = m_connection();
        if (!c) {
            done(-1, {}, tr("the login node %1 is not connected").arg(m_node).toUtf8());
            return;
        }
        listen(c);
        const int id = c->exec(remoteCommand(program, args), stdinData);
        m_pending[{c, id}] = Pending{{}, {}, {}, std::move(done)};
        c->closeStdin(id);
    }

    bool runDetached(const QString& program, const QStringList& args) override
    {
        ssh::Connection* c = m_connection();
        if (!c)
            return false;
        // The channel may close with the connection; the command goes on under the login node's sshd.
        c->closeStdin(c->exec(QByteArrayLiteral("nohup ") + remoteCommand(program, args) + " >/dev/null 2>&1 &"));
        return true;
    }

    void read(const QString& path, qint64 from, Read done) override
    {
        const QString count = from >= 0 ? QStringLiteral("+%1").arg(from + 1) : QString::number(-from);
        run(QStringLiteral("tail"), {"-c", count, path}, {},
            [done](int code, const QByteArray& out, const QByteArray&) { done(code == 0, out); });
    }

    void write(const QString& path, const QByteArray& data, Write mode, Written done) override
    {
        const QString script = mode == Write::Append             ? QStringLiteral("cat >> \"$1\"")
                               : mode == Write::ReplaceOwnerOnly ? QStringLiteral("umask 077 && cat > \"$1\" && chmod 600 \"$1\"")
                                                                 : QStringLiteral("cat > \"$1\"");
        run(QStringLiteral("sh"), {"-c", script, "sh", path}, data, [this, path, done](int code, const QByteArray&, const QByteArray& err) {
            done(code == 0 ? QString()
                           : tr("%1 could not be written on %2: %3").arg(path, m_node, QString::fromUtf8(err).trimmed()));
        });
    }

private:
    struct Pending {
        QByteArray out, err;
        QString failure;
        Done done;
    };

    void listen(ssh::Connection* c)
    {
        if (m_listened.contains(c))
            return;
        m_listened.append(c);
        connect(c, &QObject::destroyed, this, [this, c] {
            m_listened.removeAll(c);
            // Its channels' answers will not come.
            for (auto p = m_pending.begin(); p != m_pending.end();)
                if (p->first.first == c) {
                    const Done done = std::move(p->second.done);
                    p = m_pending.erase(p);
                    done(-1, {}, tr("on the login node %1: the connection was closed").arg(m_node).toUtf8());
                } else
                    ++p;
        });
        connect(c, &ssh::Connection::channelStdout, this, [this, c](int id, const QByteArray& data) {
            if (const auto p = m_pending.find({c, id}); p != m_pending.end())
                p->second.out += data;
        });
        connect(c, &ssh::Connection::channelStderr, this, [this, c](int id, const QByteArray& data) {
            if (const auto p = m_pending.find({c, id}); p != m_pending.end())
                p->second.err += data;
        });
        connect(c, &ssh::Connection::channelFailed, this, [this, c](int id, const QString& why) {
            if (const auto p = m_pending.find({c, id}); p != m_pending.end())
                p->second.failure = why;
        });
        connect(c, &ssh::Connection::channelClosed, this, [this, c](int id, int status, const QString&) {
            const auto p = m_pending.find({c, id});
            if (p == m_pending.end())
                return;
            Pending done = std::move(p->second);
            m_pending.erase(p);
            if (!done.failure.isEmpty() || status < 0)
                done.done(-1, done.out,
                          tr("on the login node %1: %2")
                              .arg(m_node, done.failure.isEmpty() ? tr("the connection was lost") : done.failure)
                              .toUtf8());
            else
                done.done(status, done.out, done.err);
        });
    }

    QString m_node;
    std::function<ssh::Connection*()> m_connection;
    QList<ssh::Connection*> m_listened;
    std::map<std::pair<ssh::Connection*, int>, Pending> m_pending;
};

} // namespace

std::unique_ptr<LoginNode> localLogin(QObject* parent) { return std::make_unique<LocalLogin>(parent); }

std::unique_ptr<LoginNode> sshLogin(QString node, std::function<ssh::Connection*()> connection, QObject* parent)
{
    return std::make_unique<SshLogin>(std::move(node), std::move(connection), parent);
}

} // namespace strata::app
