#pragma once
// BackendSet: the launch backends a JobLauncher runs tasks with, in the order they are asked
// whether they run a task: Slurm (a task of the run's batch job), SSH (a remote node), then
// this machine (every other task). A new
// backend is made and listed here, and nowhere else but its own folder.
//
// Threads: the launcher's.

#include "app/launch/backends/launch_backend.h"

#include <memory>
#include <optional>
#include <vector>

namespace strata::app {

class LocalBackend;
class SlurmBackend;
class SshBackend;

class BackendSet {
public:
    explicit BackendSet(LaunchHost& host);
    ~BackendSet();
    BackendSet(const BackendSet&) = delete;
    BackendSet& operator=(const BackendSet&) = delete;

    const std::vector<LaunchBackend*>& all() const { return m_all; }
    // The backend that runs `task`.
    LaunchBackend& runnerOf(const PlannedTask& task) const;
    SshBackend& ssh() const { return *m_ssh; }
    SlurmBackend& slurm() const { return *m_slurm; }

    // The reports of the last node check of a backend that checks nodes (none without one).
    const QList<NodeReport>& nodeReports() const;
    // Free ports on `host` that a check of this run found (nullopt: none did).
    std::optional<QList<int>> checkedFreePorts(const QString& host, int count) const;

private:
    std::unique_ptr<SlurmBackend> m_slurm;
    std::unique_ptr<SshBackend> m_ssh;
    std::unique_ptr<LocalBackend> m_local;
    std::vector<LaunchBackend*> m_all;
};

} // namespace strata::app
