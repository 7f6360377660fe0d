#include "app/metrics/placement_map_groups.h"

#include <QCoreApplication>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>

namespace strata::app {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("strata", text); }

// "4 workers", "1 chief", "2 ps tasks".
QString countOf(const QString& role, qsizetype n)
{
    const QString noun = role == QLatin1String("ps") ? tr("ps task") : role;
    return n == 1 ? QStringLiteral("1 %1").arg(noun) : QStringLiteral("%1 %2s").arg(n).arg(noun);
}

// A task's shape: what must match for two tasks to be drawn as one. A task that stands out, or
// holds shards of its own, is its own shape.
QString shapeOf(const MapTask& t)
{
    if (!t.alert.isEmpty() || t.place >= 0 || !t.shards.isEmpty())
        return QLatin1Char('#') + t.id;
    QString shape = t.role;
    for (const MapDevice& d : t.devices)
        shape += QStringLiteral("|%1 %2 %3 %4 %5")
                     .arg(d.name)
                     .arg(d.replicas.size())
                     .arg(d.variables)
                     .arg(d.variableBytes)
                     .arg(d.place >= 0);
    return shape;
}

// A host's shape: its tasks' shapes, in any order.
QString shapeOf(const MapHost& h)
{
    QStringList shapes;
    for (const MapTask& t : h.tasks)
        shapes << shapeOf(t);
    shapes.sort();
    return shapes.join(QLatin1Char('\n'));
}

// The node a place names: "node-1" of "node-1 (198.18.0.1)".
QString nodeOf(const QString& place) { return place.section(QStringLiteral(" ("), 0, 0); }

// Groups `items` by `key`, each group at its first member's place.
template <typename T, typename Key>
QList<QList<const T*>> alike(const QList<T>& items, Key key)
{
    QList<QList<const T*>> groups;
    QHash<QString, qsizetype> index;
    for (const T& item : items) {
        const QString k = key(item);
        const auto it = index.constFind(k);
        if (it == index.constEnd()) {
            index.insert(k, groups.size());
            groups.push_back({&item});
        } else {
            groups[*it].push_back(&item);
        }
    }
    return groups;
}

} // namespace

QString namesText(const QStringList& names)
{
    static const QRegularExpression numbered(QStringLiteral("^(.*\\D)?(\\d+)$"));
    struct Run {
        QString prefix, first, last;
        qint64 end = -1; // the last's number; -1: not numbered
        int count = 0;
    };
    QList<Run> runs;
    for (const QString& name : names) {
        const QRegularExpressionMatch m = numbered.match(name);
        const QString prefix = m.hasMatch() ? m.captured(1) : name;
        const qint64 number = m.hasMatch() ? m.captured(2).toLongLong() : -1;
        if (!runs.isEmpty() && number >= 0 && runs.back().end >= 0 && runs.back().prefix == prefix &&
            runs.back().end + 1 == number) {
            runs.back().last = name;
            runs.back().end = number;
            ++runs.back().count;
        } else {
            runs.push_back({prefix, name, name, number, 1});
        }
    }
    QStringList parts;
    for (const Run& r : runs) {
        if (r.count == 1)
            parts << r.first;
        else if (r.prefix.endsWith(QLatin1Char(':'))) // a task's index: "worker:0-3"
            parts << QStringLiteral("%1-%2").arg(r.first).arg(r.end);
        else if (r.count == 2)
            parts << r.first << r.last;
        else
            parts << r.first + QStringLiteral("\u00A0\u2026\u00A0") + r.last; // a line breaks after a comma only
    }
    return parts.join(QStringLiteral(", "));
}

void groupAlike(PlacementMap& map)
{
    qsizetype tasks = 0;
    for (const MapHost& h : map.hosts)
        tasks += h.tasks.size();
    const bool grouped = tasks > kMapWholeUpTo;

    for (MapHost& h : map.hosts) {
        h.groups.clear();
        for (const QList<const MapTask*>& members :
             alike(h.tasks, [&](const MapTask& t) { return grouped ? shapeOf(t) : t.id; })) {
            MapTaskGroup g;
            g.id = QStringLiteral("tasks ") + members.front()->id;
            QStringList ids;
            for (const MapTask* t : members)
                ids << t->id;
            g.tasks = ids;
            g.title = ids.size() == 1 ? ids.front()
                                      : tr("%1: %2").arg(countOf(members.front()->role, ids.size()), namesText(ids));
            h.groups.push_back(g);
        }
    }

    map.hostGroups.clear();
    for (const QList<const MapHost*>& members :
         alike(map.hosts, [&](const MapHost& h) { return grouped ? shapeOf(h) : h.place; })) {
        MapHostGroup g;
        g.id = QStringLiteral("hosts ") + members.front()->place;
        QStringList nodes;
        for (const MapHost* h : members) {
            g.hosts << h->place;
            nodes << nodeOf(h->place);
        }
        g.title = members.size() == 1 ? members.front()->place
                                      : tr("%1 hosts: %2").arg(members.size()).arg(namesText(nodes));
        if (members.size() > 1) {
            // Each of the first host's groups, over all the hosts: the tasks of that shape on each.
            for (const MapTaskGroup& first : members.front()->groups) {
                const MapTask& like = *std::find_if(members.front()->tasks.begin(), members.front()->tasks.end(),
                                                    [&](const MapTask& t) { return t.id == first.tasks.front(); });
                const QString shape = shapeOf(like);
                MapTaskGroup each;
                each.id = first.id;
                for (const MapHost* h : members)
                    for (const MapTask& t : h->tasks)
                        if (shapeOf(t) == shape)
                            each.tasks << t.id;
                each.title = tr("%1 each").arg(countOf(like.role, first.tasks.size()));
                g.tasks.push_back(each);
            }
        }
        map.hostGroups.push_back(g);
    }
}

UsageSpan usageSpan(const PlacementMap& map, const QStringList& tasks, int device)
{
    UsageSpan span;
    for (const MapHost& h : map.hosts)
        for (const MapTask& t : h.tasks) {
            if (device < 0 || device >= t.devices.size() || !tasks.contains(t.id))
                continue;
            const DeviceUsage& u = t.devices[device].usage;
            if (u.utilization >= 0) {
                span.leastBusy = span.leastBusy < 0 ? u.utilization : std::min(span.leastBusy, u.utilization);
                span.mostBusy = std::max(span.mostBusy, u.utilization);
            }
            if (u.memoryUsedBytes >= 0 && u.memoryTotalBytes > 0 && u.memoryUsedBytes > span.mostMemoryUsed) {
                span.mostMemoryUsed = u.memoryUsedBytes;
                span.memoryTotal = u.memoryTotalBytes;
            }
        }
    return span;
}

} // namespace strata::app
