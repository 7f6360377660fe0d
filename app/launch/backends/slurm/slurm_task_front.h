#pragma once
// SlurmTaskFront: the front process of a task of a Slurm job: `strata-engine attach` on the
// login node, following the task's files in the shared run directory. Its commands cannot
// reach the task's processes on their compute node as signals: `stop` and `kill` are
// appended to the task's control file, which the task's `slurm-task` process polls.
//
// Threads: the launcher's.

#include "app/launch/job/task_process.h"

#include <memory>

namespace strata::app {

class LocalTaskProcess;

class SlurmTaskFront final : public TaskProcess {
    Q_OBJECT

public:
    SlurmTaskFront(const QString& enginePath, QString controlFile, QObject* parent = nullptr);
    ~SlurmTaskFront() override;

    void start(const QStringList& args, const QByteArray& stdinData) override;
    void write(const QByteArray& data) override;
    void kill() override;
    void terminate() override;
    QString program() const override;

private:
    // Appends the command lines in `data` to the control file (reported in the log when it cannot).
    void command(const QByteArray& data);

    std::unique_ptr<LocalTaskProcess> m_follower;
    QString m_controlFile;
};

} // namespace strata::app
