#pragma once
// LocalBackend: tasks on this machine (a node reached without SSH). Each front process is a
// QProcess (local_task_process.h) in the run directory itself, so nothing is copied; nothing
// is checked before a launch but the engine binary. A front process that was the task itself
// (an engine that does not detach) takes no commands: sent `kill`, it is killed after a moment.
//
// Threads: the launcher's.

#include "app/launch/backends/launch_backend.h"

#include <QTimer>

#include <map>

namespace strata::app {

class LocalBackend final : public LaunchBackend {
    Q_OBJECT

public:
    using LaunchBackend::LaunchBackend;

    bool runs(const PlannedTask& task) const override { return !task.remote; }
    QString hostText(const PlannedTask& task) const override;
    bool canStart(const PlannedTask& task, const QString& enginePath, QString* error) const override;
    void forget() override;
    void attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition& position) override;
    std::unique_ptr<TaskProcess> createFront(LaunchTask& task) override;
    void killSent(LaunchTask& task) override;
    void frontEnded(LaunchTask& task) override { m_frontKills.erase(&task); }

    // How long a front process that was sent `kill` may take to report the task's end before
    // it is killed itself (it then was no follower at all: an engine that does not detach).
    static constexpr int kFrontKillMs = 3000;

private:
    std::map<LaunchTask*, std::unique_ptr<QTimer>> m_frontKills;
};

} // namespace strata::app
