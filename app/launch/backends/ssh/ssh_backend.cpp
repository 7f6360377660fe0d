#include "app/launch/backends/ssh/ssh_backend.h"

#include "app/launch/backends/remote/task_mirror.h"
#include "app/launch/launch_plan.h"
#include "app/launch/job/retire.h"
#include "app/metrics/display_text.h"
#include "app/metrics/metrics_store.h"
#include "app/rundir/task_places.h"
#include "app/ssh/connection.h"

namespace strata::app {

SshBackend::SshBackend(LaunchHost& host, QObject* parent)
    : LaunchBackend(host, parent),
      m_remote(
          host, [this]() -> const std::vector<LaunchTask*>& { return tasks(); },
          [](const LaunchTask& task) { return task.plan.node; },
          [this](const QString& node) {
              const LaunchPlan plan = planLaunch(this->host().experiment(), this->host().localEngine(), this->host().runDir());
              const schema::NodeSpec* spec = plan.remoteNode(node);
              return spec ? *spec : schema::NodeSpec{};
          })
{
}

SshBackend::~SshBackend()
{
    // The links' connections before the checker's (as they were made).
    m_remote.links().clear();
    m_checker.reset();
}

void SshBackend::setAccess(const RemoteAccess& access)
{
    m_access = access;
    m_remote.links().setAccess(access);
}

QString SshBackend::hostText(const PlannedTask& task) const { return placeText(task.node, task.host); }

void SshBackend::check(const Json& experiment, const QString& localEngine)
{
    m_checker = std::make_unique<NodeChecker>(m_access);
    connect(m_checker.get(), &NodeChecker::finished, this, [this](const QList<NodeReport>& reports) {
        QStringList problems;
        for (const NodeReport& r : reports)
            problems << r.problems;
        Q_EMIT checked(problems);
    });
    m_checker->check(experiment, localEngine, true);
}

void SshBackend::cancelCheck() { retire(m_checker); }

const QList<NodeReport>* SshBackend::nodeReports() const { return m_checker ? &m_checker->reports() : nullptr; }

std::optional<QList<int>> SshBackend::checkedFreePorts(const QString& host, int count) const
{
    if (m_checker)
        for (const NodeReport& r : m_checker->reports())
            if (r.host == host && r.freePorts.size() >= count)
                return r.freePorts.mid(0, count);
    return std::nullopt;
}

void SshBackend::forget()
{
    LaunchBackend::forget();
    m_remote.clear();
}

void SshBackend::begin()
{
    if (m_checker)
        m_remote.links().adopt(m_checker->takeConnections());
}

void SshBackend::watch()
{
    if (hasTasks())
        m_remote.watch();
}

void SshBackend::launched()
{
    // After the store was cleared for this run: what the checks could not do (a password not
    // remembered).
    if (m_checker)
        for (const NodeReport& r : m_checker->reports())
            for (const QString& note : r.notes)
                host().store().appendLog(QStringLiteral("strata"), QStringLiteral("warning"), note);
}

void SshBackend::finish() { m_remote.finish(); }

void SshBackend::repair(const QString& runDir, const TaskPlace& place) const
{
    TaskMirror::truncateTorn(runDir, place.task);
}

void SshBackend::attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition&) { m_remote.attached(task, place); }

bool SshBackend::readyToFollow(LaunchTask& task) { return m_remote.readyToFollow(task); }

FollowFrom SshBackend::followFrom(const LaunchTask& task) const { return m_remote.followFrom(task); }

std::unique_ptr<TaskProcess> SshBackend::createFront(LaunchTask& task) { return m_remote.createFront(task, task.plan.engine); }

void SshBackend::received(LaunchTask& task, const StreamPiece& piece) { m_remote.received(task, piece); }

void SshBackend::errorReceived(LaunchTask& task, const QByteArray& data) { m_remote.errorReceived(task, data); }

bool SshBackend::frontLost(LaunchTask& task, const TaskProcessExit& exit, bool followed)
{
    return m_remote.frontLost(task, exit, followed);
}

void SshBackend::describe(const LaunchTask& task, TaskPlace& place) const { m_remote.describe(task, place); }

} // namespace strata::app
