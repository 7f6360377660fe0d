#pragma once
// SlurmTaskFront: the front process of a task of a Slurm job: `strata-engine attach` on the
// login node (here, or an exec channel over SSH), following the task's files in the shared
// run directory. Its commands cannot reach the task's processes on their compute node as
// signals: `stop` and `kill` are appended to the task's control file (through the login
// node), which the task's `slurm-task` process polls.
//
// Threads: the launcher's.

#include "app/launch/job/task_process.h"

#include <memory>

namespace strata::app {

class LoginNode;

class SlurmTaskFront final : public TaskProcess {
    Q_OBJECT

public:
    SlurmTaskFront(std::unique_ptr<TaskProcess> follower, LoginNode& login, QString controlFile, QObject* parent = nullptr);
    ~SlurmTaskFront() override;

    void start(const QStringList& args, const QByteArray& stdinData) override;
    void write(const QByteArray& data) override;
    void kill() override;
    void terminate() override;
    QString program() const override;

private:
    // Appends the command lines in `data` to the control file (reported in the log when it cannot).
    void command(const QByteArray& data);

    std::unique_ptr<TaskProcess> m_follower;
    LoginNode& m_login;
    QString m_controlFile;
};

} // namespace strata::app
