#include "app/metrics/placement_map.h"

#include "app/metrics/placement_map_groups.h"
#include "app/metrics/task_roles.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace strata::app {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("strata", text); }

QString roleOf(const QString& task) { return task.section(QLatin1Char(':'), 0, 0); }

// The placement that speaks for the job: the coordinator's under ParameterServer, else the
// first (a single-process run has one; every MultiWorkerMirrored task names the job).
const TaskPlacement* jobPlacement(const QList<TaskPlacement>& placements)
{
    for (const TaskPlacement& p : placements)
        if (!p.psTasks.isEmpty())
            return &p;
    return placements.isEmpty() ? nullptr : &placements.front();
}

using Kind = MapArrow::Kind;

void ring(const QStringList& ids, QList<MapArrow>& out)
{
    if (ids.size() < 2)
        return;
    for (qsizetype i = 0; i < ids.size(); ++i)
        out.push_back({ids[i], ids[(i + 1) % ids.size()], Kind::Gradients});
}

// Onto `centre` from every other box, and what comes back.
void star(const QStringList& ids, const QString& centre, QList<MapArrow>& out)
{
    for (const QString& id : ids)
        if (id != centre)
            out.push_back({id, centre, Kind::Gradients});
    for (const QString& id : ids)
        if (id != centre)
            out.push_back({centre, id, Kind::Back});
}

MapDevice& deviceIn(MapTask& box, const QString& device, const QString& visibleGpus)
{
    const QString id = box.id + '/' + device;
    auto it = std::find_if(box.devices.begin(), box.devices.end(), [&](const MapDevice& d) { return d.id == id; });
    if (it == box.devices.end()) {
        MapDevice d;
        d.id = id;
        d.name = device;
        d.label = deviceOnNode(device, visibleGpus);
        it = box.devices.insert(box.devices.end(), d);
    }
    return *it;
}

// A task's devices: its replicas' in order, then CentralStorage's parameter device, each with
// the variables the placement puts there.
MapTask taskBox(const QString& task, const TaskPlacement* placement)
{
    MapTask box;
    box.id = task;
    box.role = roleOf(task);
    if (!placement)
        return box;
    for (const PlacementReplica& r : placement->replicas)
        deviceIn(box, r.device, placement->visibleGpus).replicas << tr("replica %1").arg(r.replica);
    if (!placement->parameterDevice.isEmpty())
        deviceIn(box, placement->parameterDevice, placement->visibleGpus);
    if (!placement->psTasks.isEmpty())
        return box; // the variables are on the ps tasks
    for (const PlacementVariable& v : placement->variables)
        for (const QString& device : v.devices) {
            MapDevice& d = deviceIn(box, device, placement->visibleGpus);
            ++d.variables;
            d.variableBytes += v.bytes;
        }
    return box;
}

// A variable's pieces on the ps tasks: its shards, or the whole of it on the ps named among
// its devices.
QList<MapShard> shardsOf(const PlacementVariable& v, const QStringList& psTasks)
{
    QList<MapShard> out;
    for (const PlacementShard& s : v.shards)
        out.push_back({v.name, s.name, int(psTasks.indexOf(s.ps)), s.bytes});
    if (out.isEmpty())
        for (const QString& device : v.devices)
            if (psTasks.contains(device))
                out.push_back({v.name, v.name, int(psTasks.indexOf(device)), v.bytes});
    return out;
}

const PlacementVariable* variableNamed(const TaskPlacement* p, const QString& name)
{
    if (!p)
        return nullptr;
    for (const PlacementVariable& v : p->variables)
        if (v.name == name)
            return &v;
    return nullptr;
}

qint64 whole(double v) { return std::isfinite(v) ? qint64(std::llround(v)) : -1; }

const TaskPlacement* placementFor(const QList<TaskPlacement>& placements, const QString& task)
{
    for (const TaskPlacement& p : placements)
        if (p.task == task)
            return &p;
    return nullptr;
}

// What makes a task stand out on the map: the task table's word for a failed, lost or
// unreachable task.
void markAlert(MapTask& box, const TaskSummary& t)
{
    const bool failure = t.state == TaskState::Failed || t.lost;
    if (failure || t.unreachable) {
        box.alert = stateText(t);
        box.failure = failure;
    }
}

struct Owner {
    QString task, device;
};

// Every task of the run, on its host, in the task table's order; each device holding
// variables gets the next colour. The owners of the places, when the places are devices.
QList<Owner> placeTasks(PlacementMap& map, const QList<TaskPlacement>& placements, const QList<TaskSummary>& tasks,
                        const QList<DeviceUsage>& usage)
{
    const bool parameterServers = !map.psTasks.isEmpty();
    QList<Owner> owners; // by place
    for (const TaskSummary& t : tasks) {
        const QString place = t.place.isEmpty() ? tr("this machine") : t.place;
        auto host = std::find_if(map.hosts.begin(), map.hosts.end(), [&](const MapHost& h) { return h.place == place; });
        if (host == map.hosts.end())
            host = map.hosts.insert(map.hosts.end(), MapHost{place, {}});
        MapTask box = taskBox(t.task, placementFor(placements, t.task));
        box.place = parameterServers ? int(map.psTasks.indexOf(t.task)) : -1;
        markAlert(box, t);
        for (MapDevice& d : box.devices) {
            if (d.variables > 0 && !parameterServers) {
                d.place = int(map.places.size());
                map.places << d.id;
                owners.push_back({t.task, d.name});
            }
            for (const DeviceUsage& u : usage)
                if (u.task == t.task && u.device == d.name)
                    d.usage = u;
        }
        host->tasks.push_back(box);
    }
    return owners;
}

// The variables: shards on the ps tasks, else a copy on every device holding one; each task
// box given the pieces in its place.
void placeVariables(PlacementMap& map, const TaskPlacement& job, const QList<TaskPlacement>& placements,
                    const QList<Owner>& owners)
{
    const bool parameterServers = !map.psTasks.isEmpty();
    for (const PlacementVariable& v : job.variables) {
        MapVariable mv;
        mv.name = v.name;
        mv.shape = v.shape;
        mv.bytes = v.bytes;
        if (parameterServers) {
            mv.pieces = shardsOf(v, map.psTasks);
        } else {
            mv.copies = true;
            for (qsizetype place = 0; place < owners.size(); ++place) {
                const PlacementVariable* there = variableNamed(placementFor(placements, owners[place].task), v.name);
                if (there && there->devices.contains(owners[place].device))
                    mv.pieces.push_back({v.name, v.name, int(place), there->bytes});
            }
        }
        map.variables.push_back(mv);
    }
    for (MapHost& h : map.hosts)
        for (MapTask& t : h.tasks)
            if (t.place >= 0)
                for (const MapVariable& v : map.variables)
                    for (const MapShard& s : v.pieces)
                        if (s.place == t.place)
                            t.shards.push_back(s);
}

// ParameterServer: each worker pushes to every ps task and pulls from it.
void parameterServerPath(PlacementMap& map, const TaskPlacement& job, const QList<TaskSummary>& tasks)
{
    QStringList workers = job.workerTasks;
    if (workers.isEmpty())
        for (const TaskSummary& t : tasks)
            if (t.task.startsWith(QLatin1String("worker:")))
                workers << t.task;
    for (const QString& w : workers)
        for (const QString& ps : map.psTasks) {
            map.arrows.push_back({w, ps, Kind::Gradients});
            map.arrows.push_back({ps, w, Kind::Back});
        }
    map.path = tr("Each worker pushes its gradients to the ps tasks (solid) and pulls the variables (dashed).");
}

// The other strategies: within each task (a ring, or a star onto one device), then across the
// tasks of a MultiWorkerMirrored job.
void replicaPath(PlacementMap& map, const TaskPlacement& job, const QList<TaskPlacement>& placements)
{
    const bool multiWorker = !job.jobTasks.isEmpty();
    bool local = false; // some task combines several devices
    for (const MapHost& h : map.hosts)
        for (const MapTask& t : h.tasks) {
            const TaskPlacement* p = placementFor(placements, t.id);
            QStringList replicas;
            for (const MapDevice& d : t.devices)
                if (!d.replicas.isEmpty())
                    replicas << d.id;
            if (!p || replicas.isEmpty())
                continue;
            local = local || replicas.size() > 1;
            if (!p->parameterDevice.isEmpty()) {
                QStringList all = replicas;
                const QString central = t.id + '/' + p->parameterDevice;
                if (!all.contains(central))
                    all << central;
                star(all, central, map.arrows); // CentralStorage
            } else if (p->crossDeviceOps == QLatin1String("reduce_to_one_device") || multiWorker) {
                star(replicas, replicas.front(), map.arrows); // onto one device (a worker's local sum)
            } else {
                ring(replicas, map.arrows); // Mirrored's all-reduce
            }
        }
    ring(job.jobTasks, map.arrows); // MultiWorkerMirrored across the workers

    // Across the tasks, the engine's algorithm by name (halving-doubling or the ring, chosen for
    // the job's size); the arrows join the tasks in rank order.
    const QString how = job.reduction.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(job.reduction);
    if (multiWorker)
        map.path = local ? tr("Each task sums its replicas' gradients onto its first device (solid), the tasks all-reduce "
                              "them%1, and the sum goes back to every replica (dashed).")
                               .arg(how)
                         : tr("The tasks all-reduce their gradients%1.").arg(how);
    else if (!job.parameterDevice.isEmpty())
        map.path = tr("The replicas' gradients go to the parameter device (solid), which applies them; every replica "
                      "reads the variables from it (dashed).");
    else if (!local)
        map.path = tr("One replica: no gradients to combine.");
    else if (job.crossDeviceOps == QLatin1String("reduce_to_one_device"))
        map.path = tr("The gradients are summed onto one device (solid) and the sum sent back to every replica (dashed).");
    else
        map.path = tr("The gradients are all-reduced around a ring of the replicas' devices.");
}

} // namespace

QList<DeviceUsage> deviceUsage(const MetricsStore& store)
{
    QList<DeviceUsage> out;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const TaskData& t : tasks)
            for (const DeviceData& d : t.devices) {
                DeviceUsage u;
                u.task = t.task;
                u.device = d.device;
                if (!d.utilization.empty())
                    u.utilization = double(d.utilization.lastY());
                if (!d.variableBytes.empty())
                    u.variableBytes = whole(double(d.variableBytes.lastY()));
                u.memoryUsedBytes = whole(d.memoryUsedBytes);
                u.memoryTotalBytes = whole(d.memoryTotalBytes);
                out.push_back(u);
            }
    });
    return out;
}

PlacementMap placementMap(const QList<TaskPlacement>& placements, const QList<TaskSummary>& tasks,
                          const QList<DeviceUsage>& usage)
{
    PlacementMap map;
    const TaskPlacement* job = jobPlacement(placements);
    if (!job)
        return map;
    map.strategy = job->strategy;
    map.reduction = job->reduction;
    map.reductionBytes = job->reductionBytes;
    map.tuning = tuningText(*job);
    map.psTasks = job->psTasks;
    for (const TaskSummary& t : tasks)
        if (isParameterServerTask(t.task) && !map.psTasks.contains(t.task))
            map.psTasks << t.task;
    const bool parameterServers = !map.psTasks.isEmpty();
    if (parameterServers)
        map.places = map.psTasks;

    const QList<Owner> owners = placeTasks(map, placements, tasks, usage);
    placeVariables(map, *job, placements, owners);
    // The gradients' path.
    if (parameterServers)
        parameterServerPath(map, *job, tasks);
    else
        replicaPath(map, *job, placements);
    groupAlike(map);
    return map;
}

} // namespace strata::app
