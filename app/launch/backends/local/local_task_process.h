#pragma once
// LocalTaskProcess: a task's front process on this machine (QProcess).

#include "app/launch/job/task_process.h"

#include <QProcess>

#include <memory>

namespace strata::app {

class LocalTaskProcess final : public TaskProcess {
    Q_OBJECT

public:
    explicit LocalTaskProcess(QString enginePath, QObject* parent = nullptr);
    ~LocalTaskProcess() override;

    void start(const QStringList& args, const QByteArray& stdinData) override;
    void write(const QByteArray& data) override;
    void kill() override;
    void terminate() override;
    QString program() const override { return m_enginePath; }

private:
    QString m_enginePath;
    std::unique_ptr<QProcess> m_process;
    bool m_ended = false;
};

} // namespace strata::app
