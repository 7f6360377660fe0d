#include "app/launch/backends/remote/remote_tasks.h"

#include "app/launch/backends/remote/remote_task_process.h"
#include "app/launch/job/retire.h"
#include "app/metrics/display_text.h"
#include "app/metrics/metrics_store.h"
#include "app/rundir/task_places.h"

namespace strata::app {

namespace {
// OpenSSH's sshd opens at most MaxSessions channels on one connection (10 by default) and each
// followed task holds one: a node's tasks are followed over a connection per 6 of them, which
// leaves room for the commands sent meanwhile (a Slurm login node's reads).
constexpr int kTasksPerConnection = 6;
// Between a node's name and its connection's number in a link's name: in no host's name.
constexpr QChar kLinkSeparator = QChar(0x1f);
} // namespace

RemoteTasks::RemoteTasks(LaunchHost& host, std::function<const std::vector<LaunchTask*>&()> tasks,
                         std::function<QString(const LaunchTask&)> nodeOf,
                         std::function<schema::NodeSpec(const QString& node)> nodeSpec, QObject* parent)
    : QObject(parent), m_host(host), m_tasks(std::move(tasks)), m_nodeOf(std::move(nodeOf)),
      m_links([nodeSpec = std::move(nodeSpec)](const QString& link) { return nodeSpec(link.section(kLinkSeparator, 0, 0)); },
              [this] { return m_host.isFollowing(); })
{
    connect(&m_links, &NodeLinks::connected, this, [this](const QString& link) {
        for (LaunchTask* t : m_tasks())
            if (linkOf(*t) == link && !t->ended && !t->front)
                m_host.follow(*t);
    });
    connect(&m_links, &NodeLinks::failed, this, [this](const QString& link, const QString& why) {
        for (LaunchTask* t : m_tasks())
            if (linkOf(*t) == link && !t->ended)
                m_host.store().setTaskReachable(t->plan.name, false,
                                                tr("%1 on %2 is unreachable: %3. Strata keeps trying to reach it.")
                                                    .arg(t->plan.name, placeOf(*t), why));
    });
    connect(&m_links, &NodeLinks::lost, this, &RemoteTasks::markUnreachable);
    connect(&m_links, &NodeLinks::warning, this, [this](const QString& why) {
        m_host.store().appendLog(QStringLiteral("strata"), QStringLiteral("warning"), why);
    });
}

RemoteTasks::~RemoteTasks() { m_links.clear(); }

void RemoteTasks::clear()
{
    m_links.clear();
    m_mirrors.clear();
    m_spoke.clear();
    m_linkOf.clear();
}

void RemoteTasks::watch()
{
    m_links.watch([this](const QString& name) {
        for (const LaunchTask* t : m_tasks())
            if (t->plan.name == name)
                return !t->ended && t->front && t->reachable && m_spoke.count(t) > 0;
        return false;
    });
}

void RemoteTasks::finish()
{
    for (auto& [task, m] : m_mirrors)
        m->closeStreams();
    m_links.close();
}

void RemoteTasks::attached(LaunchTask& task, const TaskPlace& place)
{
    auto& m = m_mirrors[&task];
    m = std::make_unique<TaskMirror>(m_host.runDir(), place.task);
    m->open();
    m->setBases(place.eventsBase, place.stderrBase, place.stepsBase);
    task.eventsOffset = m->eventsEnd();
    task.stderrOffset = m->stderrEnd();
    task.reachable = false; // until its follower speaks
}

bool RemoteTasks::readyToFollow(LaunchTask& task)
{
    const QString link = linkOf(task);
    if (m_links.isConnected(link))
        return true;
    m_links.open(link);
    return false;
}

FollowFrom RemoteTasks::followFrom(const LaunchTask& task) const
{
    // From where what arrived ends (where the copies end, for a task whose follower never
    // said where it started).
    const TaskMirror* m = mirror(task);
    return {task.eventsOffset >= 0 ? task.eventsOffset : (m ? m->eventsEnd() : 0),
            task.stderrOffset >= 0 ? task.stderrOffset : (m ? m->stderrEnd() : 0), m ? m->stepsEnd() : 0};
}

std::unique_ptr<TaskProcess> RemoteTasks::createFront(LaunchTask& task, const QString& engine)
{
    auto& m = m_mirrors[&task];
    if (!m) {
        m = std::make_unique<TaskMirror>(m_host.runDir(), task.plan.name);
        for (const QString& failure : m->open())
            m_host.store().appendLog(task.plan.name, QStringLiteral("warning"), failure);
    }
    const QString link = linkOf(task);
    m_spoke.erase(&task);
    m_links.heard(task.plan.name, link);
    // A node's further connections are first opened here: the channel starts once connected.
    m_links.open(link);
    return std::make_unique<RemoteTaskProcess>(m_links.connection(link), engine);
}

void RemoteTasks::received(LaunchTask& task, const StreamPiece& piece)
{
    m_spoke.insert(&task);
    m_links.heard(task.plan.name, linkOf(task));
    TaskMirror* m = mirror(task);
    if (!m)
        return;
    if (piece.follow) {
        m->lineUp(*piece.follow);
        m_host.placesChanged();
    }
    m->appendSteps(piece.stepRecords);
    m->appendEvents(piece.eventLines);
}

void RemoteTasks::errorReceived(LaunchTask& task, const QByteArray& data)
{
    m_spoke.insert(&task);
    m_links.heard(task.plan.name, linkOf(task));
    if (TaskMirror* m = mirror(task))
        m->appendStderr(data);
}

bool RemoteTasks::frontLost(LaunchTask& task, const TaskProcessExit& exit, bool followed)
{
    // A follower that lost its node (or was cut off by the app) leaves a task that may well
    // go on: it is followed again from the last byte that arrived, once its node answers.
    if (!exit.connectionLost && !followed)
        return false;
    const QString why = !exit.lostWhy.isEmpty() ? exit.lostWhy
                        : exit.connectionLost ? tr("the connection to %1 was lost").arg(m_nodeOf(task))
                                              : tr("its follower ended (status %1)").arg(exit.code);
    markUnreachable(linkOf(task), why);
    return true;
}

void RemoteTasks::describe(const LaunchTask& task, TaskPlace& place) const
{
    if (const TaskMirror* m = mirror(task)) {
        place.eventsBase = m->eventsBase();
        place.stderrBase = m->stderrBase();
        place.stepsBase = m->stepsBase();
    }
}

void RemoteTasks::markUnreachable(const QString& link, const QString& why)
{
    bool changed = false;
    for (LaunchTask* t : m_tasks())
        if (linkOf(*t) == link && !t->ended) {
            retire(t->front);
            t->stream.reset(); // sent again from the last whole line (a frame's records from the last byte)
            if (t->reachable) {
                t->reachable = false;
                changed = true;
                m_host.store().setTaskReachable(t->plan.name, false,
                                                tr("%1 on %2 is unreachable: %3. It may still be running; Strata keeps "
                                                   "trying to reach it.")
                                                    .arg(t->plan.name, placeOf(*t), why));
            }
        }
    m_links.drop(link, changed);
}

QString RemoteTasks::linkOf(const LaunchTask& task) const
{
    auto found = m_linkOf.find(&task);
    if (found != m_linkOf.end())
        return found->second;
    const QString node = m_nodeOf(task);
    int index = 0;
    for (const LaunchTask* t : m_tasks()) {
        if (t == &task)
            break;
        index += m_nodeOf(*t) == node ? 1 : 0;
    }
    const int group = index / kTasksPerConnection;
    return m_linkOf[&task] = group == 0 ? node : node + kLinkSeparator + QString::number(group + 1);
}

TaskMirror* RemoteTasks::mirror(const LaunchTask& task) const
{
    const auto m = m_mirrors.find(&task);
    return m == m_mirrors.end() ? nullptr : m->second.get();
}

QString RemoteTasks::placeOf(const LaunchTask& task) const { return placeText(m_nodeOf(task), task.plan.host); }

} // namespace strata::app
