#pragma once
// TaskProcess: the front process of one task on its node: `strata-engine start` (which
// detaches the task under a supervisor and then follows it) or `strata-engine attach` (which
// follows a task already running). Its stdout is the task's event stream (the node's
// events-<task>.jsonl, whole lines, with empty lines as heartbeats), its stderr the task's
// stderr, its stdin the launcher's: the start data, then `stop` / `kill` commands. Ending it
// never ends the task: the job goes on without the app. Implemented by a QProcess on this
// machine and by an SSH exec channel on a remote node.
//
// Threads: the launcher's (GUI) thread only.

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

namespace strata::app {

struct TaskProcessExit {
    int code = 0;            // the exit status; with `crashed`, the signal
    bool crashed = false;    // ended by a signal
    QString failedToStart;   // why it never ran (the rest then means nothing)
    bool connectionLost = false; // remote: the node could not be heard any more; the task may go on
    QString lostWhy;             // with `connectionLost`, when known (the host refused the channel)
};

class TaskProcess : public QObject {
    Q_OBJECT

public:
    using QObject::QObject;
    ~TaskProcess() override = default;

    // Runs the engine with `args` (after its path), writing `stdinData` to its stdin, which
    // stays open for write().
    virtual void start(const QStringList& args, const QByteArray& stdinData) = 0;
    virtual void write(const QByteArray& data) = 0;
    // Ends the front process now (this machine: SIGKILL; remote: the channel is closed).
    virtual void kill() = 0;
    // Asks the front process itself to stop (this machine: SIGTERM, which the follower takes as
    // `stop`; remote: the `stop` command, as write() would send it).
    virtual void terminate() = 0;
    // The program as a person would type it (messages).
    virtual QString program() const = 0;

Q_SIGNALS:
    void output(const QByteArray& data);
    void errorOutput(const QByteArray& data);
    // Once, after the last output.
    void ended(const strata::app::TaskProcessExit& exit);
};

} // namespace strata::app
