#include "app/metrics/lost_tasks.h"

#include "app/metrics/task_roles.h"

#include "strata/schema/events.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <algorithm>

namespace strata::app {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("strata::app::LostTasks", text); }

// "worker:1 (" at `from`: the task's name, else empty.
QString taskNameAt(const QString& message, qsizetype from)
{
    static const QRegularExpression name(QStringLiteral(R"(((?:chief|worker|ps|evaluator):\d+) \()"));
    const auto m = name.match(message, from, QRegularExpression::NormalMatch,
                              QRegularExpression::AnchorAtOffsetMatchOption);
    return m.hasMatch() ? m.captured(1) : QString();
}

// The index just after the ')' closing the '(' at `open` (reasons quote other messages, which
// may hold parentheses of their own); -1 when it is not closed.
qsizetype afterClosing(const QString& message, qsizetype open)
{
    int depth = 0;
    for (qsizetype i = open; i < message.size(); ++i) {
        if (message[i] == u'(')
            ++depth;
        else if (message[i] == u')' && --depth == 0)
            return i + 1;
    }
    return -1;
}

void addNamed(QList<LostTask>& out, const QString& task, const QString& reason)
{
    // The host it joined from comes first when the rendezvous knew it ("on 198.18.2.2: ...").
    static const QRegularExpression host(QStringLiteral(R"(^on \S+: )"));
    if (QString(reason).remove(host).startsWith(QLatin1String("failed")))
        return;
    const bool known = std::any_of(out.begin(), out.end(), [&](const LostTask& l) { return l.task == task; });
    if (!known)
        out.push_back({task, reason, true});
}

// Whether the run is a job of several training tasks (a lone task that dies is failed, not lost).
bool severalWorkers(const std::vector<TaskData>& tasks)
{
    const auto training = std::count_if(tasks.begin(), tasks.end(), [](const TaskData& t) { return isTrainingTask(t.task); });
    if (training > 1)
        return true;
    return std::any_of(tasks.begin(), tasks.end(),
                       [](const TaskData& t) { return schema::readStartEvent(t.start).workers > 1; });
}

} // namespace

QList<LostTask> lostTasksNamedIn(const QString& message)
{
    QList<LostTask> out;
    // "lost worker:1 (why); worker:2 (why) during ...": every "lost " that a list of tasks follows.
    static const QLatin1String lost("lost ");
    for (qsizetype at = message.indexOf(lost); at >= 0; at = message.indexOf(lost, at + 1)) {
        qsizetype i = at + lost.size();
        for (QString task = taskNameAt(message, i); !task.isEmpty(); task = taskNameAt(message, i)) {
            const qsizetype open = i + task.size() + 1;
            const qsizetype end = afterClosing(message, open);
            if (end < 0)
                break;
            addNamed(out, task, message.mid(open + 1, end - open - 2));
            if (!QStringView(message).mid(end).startsWith(QLatin1String("; ")))
                break;
            i = end + 2;
        }
    }
    // ParameterServer's coordinator: "ps:0 stopped answering: unheard for 3.0 s".
    static const QRegularExpression silent(
        QStringLiteral(R"(((?:chief|worker|ps|evaluator):\d+) stopped answering: ([^\n]*))"));
    for (auto it = silent.globalMatch(message); it.hasNext();) {
        const auto m = it.next();
        addNamed(out, m.captured(1), m.captured(2));
    }
    // The rendezvous' host gone: the tasks that joined it name it.
    static const QRegularExpression rendezvous(
        QStringLiteral(R"(lost the rendezvous of ((?:chief|worker):\d+) at \S+: \1 is gone)"));
    for (auto it = rendezvous.globalMatch(message); it.hasNext();)
        addNamed(out, it.next().captured(1), tr("the rendezvous it hosts is gone"));
    return out;
}

QList<LostTask> lostTasks(const std::vector<TaskData>& tasks)
{
    QList<LostTask> out;
    const auto find = [&](const QString& task) {
        return std::find_if(out.begin(), out.end(), [&](const LostTask& l) { return l.task == task; });
    };
    // Ended by a signal before saying it was done: killed, or crashed.
    if (severalWorkers(tasks))
        for (const TaskData& t : tasks)
            if (t.exited && t.crashed && t.done.is_null())
                out.push_back({t.task, tr("killed by signal %1").arg(t.exitCode), false});
    // Named by a survivor.
    for (const TaskData& survivor : tasks)
        for (const LostTask& named : lostTasksNamedIn(survivor.error)) {
            if (named.task == survivor.task)
                continue;
            const QString reason = tr("named lost by %1: %2").arg(survivor.task, named.reason);
            auto it = find(named.task);
            if (it == out.end()) {
                out.push_back({named.task, reason, true});
            } else if (!it->namedByPeer) {
                it->reason += QStringLiteral("; ") + reason;
                it->namedByPeer = true;
            }
        }
    // Lost to ParameterServer's coordinator and not back (a worker may join again).
    for (const TaskData& coordinator : tasks) {
        std::vector<const MembershipChange*> last;
        for (const MembershipChange& change : coordinator.membership) {
            const auto seen = std::find_if(last.begin(), last.end(),
                                           [&](const MembershipChange* c) { return c->member == change.member; });
            if (seen == last.end())
                last.push_back(&change);
            else
                *seen = &change;
        }
        for (const MembershipChange* change : last)
            if (change->lost && find(change->member) == out.end())
                out.push_back({change->member, tr("lost by %1: %2").arg(coordinator.task, change->reason), false});
    }
    // In the order of the tasks (the table's).
    std::stable_sort(out.begin(), out.end(), [&](const LostTask& a, const LostTask& b) {
        const auto index = [&](const QString& task) {
            return std::find_if(tasks.begin(), tasks.end(), [&](const TaskData& t) { return t.task == task; }) - tasks.begin();
        };
        return index(a.task) < index(b.task);
    });
    return out;
}

QList<LostTask> lostTasks(const MetricsStore& store)
{
    QList<LostTask> out;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) { out = lostTasks(tasks); });
    return out;
}

} // namespace strata::app
