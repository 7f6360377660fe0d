#include "app/launch/backends/ssh/ssh_backend.h"

#include "app/launch/backends/ssh/remote_task_process.h"
#include "app/launch/job/retire.h"
#include "app/metrics/metrics_store.h"
#include "app/rundir/task_places.h"
#include "app/ssh/connection.h"
#include "app/metrics/display_text.h"

namespace strata::app {

SshBackend::SshBackend(LaunchHost& host, QObject* parent)
    : LaunchBackend(host, parent),
      m_links(
          [this](const QString& node) {
              const LaunchPlan plan = planLaunch(this->host().experiment(), this->host().localEngine(), this->host().runDir());
              const schema::NodeSpec* spec = plan.remoteNode(node);
              return spec ? *spec : schema::NodeSpec{};
          },
          [this] { return this->host().isFollowing(); })
{
    connect(&m_links, &NodeLinks::connected, this, [this](const QString& node) {
        for (LaunchTask* t : tasks())
            if (t->plan.node == node && !t->ended && !t->front)
                this->host().follow(*t);
    });
    connect(&m_links, &NodeLinks::failed, this, [this](const QString& node, const QString& why) {
        for (LaunchTask* t : tasks())
            if (t->plan.node == node && !t->ended)
                this->host().store().setTaskReachable(t->plan.name, false,
                                                      tr("%1 on %2 is unreachable: %3. Strata keeps trying to reach it.")
                                                          .arg(t->plan.name, placeText(t->plan.node, t->plan.host), why));
    });
    connect(&m_links, &NodeLinks::lost, this, &SshBackend::markUnreachable);
    connect(&m_links, &NodeLinks::warning, this, [this](const QString& why) {
        this->host().store().appendLog(QStringLiteral("strata"), QStringLiteral("warning"), why);
    });
}

SshBackend::~SshBackend()
{
    // The links' connections before the checker's (as they were made).
    m_links.clear();
    m_checker.reset();
}

void SshBackend::setAccess(const RemoteAccess& access)
{
    m_access = access;
    m_links.setAccess(access);
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
    m_links.clear();
    m_mirrors.clear();
}

void SshBackend::begin()
{
    if (m_checker)
        m_links.adopt(m_checker->takeConnections());
}

void SshBackend::watch()
{
    if (tasks().empty())
        return;
    m_links.watch([this](const QString& name) {
        for (const LaunchTask* t : tasks())
            if (t->plan.name == name)
                return !t->ended && t->front && t->reachable;
        return false;
    });
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

void SshBackend::finish()
{
    for (auto& [task, m] : m_mirrors)
        m->closeStreams();
    m_links.close();
}

void SshBackend::repair(const QString& runDir, const TaskPlace& place) const
{
    TaskMirror::truncateTorn(runDir, place.task);
}

void SshBackend::attached(LaunchTask& task, const TaskPlace& place, const ReplayPosition&)
{
    auto& m = m_mirrors[&task];
    m = std::make_unique<TaskMirror>(host().runDir(), place.task);
    m->open();
    m->setBases(place.eventsBase, place.stderrBase, place.stepsBase);
    task.eventsOffset = m->eventsEnd();
    task.stderrOffset = m->stderrEnd();
    task.reachable = false; // until its follower speaks
}

bool SshBackend::readyToFollow(LaunchTask& task)
{
    if (m_links.isConnected(task.plan.node))
        return true;
    m_links.open(task.plan.node);
    return false;
}

FollowFrom SshBackend::followFrom(const LaunchTask& task) const
{
    // From where what arrived ends (where the copies end, for a task whose follower never
    // said where it started).
    const TaskMirror* m = mirror(task);
    return {task.eventsOffset >= 0 ? task.eventsOffset : (m ? m->eventsEnd() : 0),
            task.stderrOffset >= 0 ? task.stderrOffset : (m ? m->stderrEnd() : 0), m ? m->stepsEnd() : 0};
}

std::unique_ptr<TaskProcess> SshBackend::createFront(LaunchTask& task)
{
    auto& m = m_mirrors[&task];
    if (!m) {
        m = std::make_unique<TaskMirror>(host().runDir(), task.plan.name);
        for (const QString& failure : m->open())
            host().store().appendLog(task.plan.name, QStringLiteral("warning"), failure);
    }
    m_links.heard(task.plan.name, task.plan.node);
    return std::make_unique<RemoteTaskProcess>(m_links.connection(task.plan.node), task.plan.engine);
}

void SshBackend::received(LaunchTask& task, const StreamPiece& piece)
{
    m_links.heard(task.plan.name, task.plan.node);
    TaskMirror* m = mirror(task);
    if (!m)
        return;
    if (piece.follow) {
        m->lineUp(*piece.follow);
        host().placesChanged();
    }
    m->appendSteps(piece.stepRecords);
    m->appendEvents(piece.eventLines);
}

void SshBackend::errorReceived(LaunchTask& task, const QByteArray& data)
{
    m_links.heard(task.plan.name, task.plan.node);
    if (TaskMirror* m = mirror(task))
        m->appendStderr(data);
}

bool SshBackend::frontLost(LaunchTask& task, const TaskProcessExit& exit, bool followed)
{
    // A follower that lost its node (or was cut off by the app) leaves a task that may well
    // go on: it is followed again from the last byte that arrived, once its node answers.
    if (!exit.connectionLost && !followed)
        return false;
    markUnreachable(task.plan.node, exit.connectionLost ? tr("the connection to %1 was lost").arg(task.plan.node)
                                                        : tr("its follower ended (status %1)").arg(exit.code));
    return true;
}

void SshBackend::describe(const LaunchTask& task, TaskPlace& place) const
{
    if (const TaskMirror* m = mirror(task)) {
        place.eventsBase = m->eventsBase();
        place.stderrBase = m->stderrBase();
        place.stepsBase = m->stepsBase();
    }
}

void SshBackend::markUnreachable(const QString& node, const QString& why)
{
    bool changed = false;
    for (LaunchTask* t : tasks())
        if (t->plan.node == node && !t->ended) {
            retire(t->front);
            t->stream.reset(); // sent again from the last whole line (a frame's records from the last byte)
            if (t->reachable) {
                t->reachable = false;
                changed = true;
                host().store().setTaskReachable(t->plan.name, false,
                                                tr("%1 on %2 is unreachable: %3. It may still be running; Strata keeps "
                                                   "trying to reach it.")
                                                    .arg(t->plan.name, placeText(t->plan.node, t->plan.host), why));
            }
        }
    m_links.drop(node, changed);
}

TaskMirror* SshBackend::mirror(const LaunchTask& task) const
{
    const auto m = m_mirrors.find(&task);
    return m == m_mirrors.end() ? nullptr : m->second.get();
}

} // namespace strata::app
