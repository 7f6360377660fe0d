#pragma once
// LoginNode: where the Slurm backend submits and follows its job from: this machine, or a
// login node reached over SSH. Slurm's client commands run there, and the files of the run
// directory (as the login node sees it, on the cluster's shared filesystem) are read and
// written there. Over SSH everything is an exec channel of the login node's connection, so
// every answer comes later; here, file reads and writes answer at once.
//
// Threads: the launcher's.

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace strata::app {

namespace ssh {
class Connection;
}

class LoginNode : public QObject {
    Q_OBJECT

public:
    using Done = std::function<void(int code, const QByteArray& out, const QByteArray& err)>;
    using Read = std::function<void(bool found, const QByteArray& bytes)>;
    using Written = std::function<void(const QString& error)>;

    using QObject::QObject;
    ~LoginNode() override;

    // Whether the answers come later (over SSH) rather than at once.
    virtual bool remote() const = 0;
    // Runs `program` with `args`, `stdinData` written to it; `done` with its exit code and
    // output (code -1: it could not run, the reason in `err`).
    virtual void run(const QString& program, const QStringList& args, const QByteArray& stdinData, Done done) = 0;
    // Runs `program` and leaves it to finish even when Strata ends the moment after; false when
    // it could not be started.
    virtual bool runDetached(const QString& program, const QStringList& args) = 0;
    // `path` from byte `from` on (negative: its last -from bytes); `found` false without it.
    virtual void read(const QString& path, qint64 from, Read done) = 0;
    // Writes `data` to `path` (replacing it, readable by its owner alone with `ownerOnly`), or
    // appends it; `done` with an empty error when it is there.
    enum class Write { Replace, ReplaceOwnerOnly, Append };
    virtual void write(const QString& path, const QByteArray& data, Write mode, Written done) = 0;
};

// This machine.
std::unique_ptr<LoginNode> localLogin(QObject* parent = nullptr);
// A login node over SSH, through the connection `connection()` gives at each call (null: none,
// and what is asked fails naming `node`).
std::unique_ptr<LoginNode> sshLogin(QString node, std::function<ssh::Connection*()> connection, QObject* parent = nullptr);

} // namespace strata::app
