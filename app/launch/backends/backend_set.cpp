#include "app/launch/backends/backend_set.h"

#include "app/launch/backends/local/local_backend.h"
#include "app/launch/backends/slurm/slurm_backend.h"
#include "app/launch/backends/ssh/ssh_backend.h"

#include <algorithm>

namespace strata::app {

BackendSet::BackendSet(LaunchHost& host)
    : m_slurm(std::make_unique<SlurmBackend>(host)), m_ssh(std::make_unique<SshBackend>(host)),
      m_local(std::make_unique<LocalBackend>(host)), m_all{m_slurm.get(), m_ssh.get(), m_local.get()}
{
}

BackendSet::~BackendSet() = default;

LaunchBackend& BackendSet::runnerOf(const PlannedTask& task) const
{
    const auto runner =
        std::find_if(m_all.begin(), m_all.end(), [&](const LaunchBackend* b) { return b->runs(task); });
    Q_ASSERT(runner != m_all.end()); // this machine's runs what no other does
    return **runner;
}

const QList<NodeReport>& BackendSet::nodeReports() const
{
    static const QList<NodeReport> none;
    for (const LaunchBackend* b : m_all)
        if (const QList<NodeReport>* reports = b->nodeReports())
            return *reports;
    return none;
}

std::optional<QList<int>> BackendSet::checkedFreePorts(const QString& host, int count) const
{
    for (const LaunchBackend* b : m_all)
        if (b->hasTasks())
            if (std::optional<QList<int>> ports = b->checkedFreePorts(host, count))
                return ports;
    return std::nullopt;
}

} // namespace strata::app
