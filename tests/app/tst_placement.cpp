// The placement as the dashboard reads it: a ParameterServer coordinator's placement (its ps
// and worker tasks, the partitioner, the staleness bound, each variable's shards) and the
// task table's account of its workers; and the placement map built from it for every
// strategy: hosts and tasks, devices and replicas, shards by ps, the gradients' path; and, for
// a job of 64 workers over 16 hosts, hosts and tasks alike grouped, what stands out kept apart.

#include "app/metrics/placement.h"
#include "app/metrics/placement_map.h"
#include "app/metrics/placement_map_groups.h"

#include "large_job_events.h"
#include "ps_job_events.h"

#include "strata/schema/events.h"

#include <QtTest>

using namespace strata::app;

namespace {

TaskPlacement placementFrom(const char* json, const QString& task = QStringLiteral("worker:0"))
{
    return placementOf(task, QStringLiteral("local (localhost)"), QStringLiteral("box"), Json::parse(json));
}

TaskSummary summary(const QString& task, const QString& place = QStringLiteral("local (localhost)"))
{
    TaskSummary s;
    s.task = task;
    s.place = place;
    return s;
}

PlacementMap largeJobMap(MetricsStore& store)
{
    return placementMap(placements(store), taskSummaries(store), deviceUsage(store));
}

QStringList arrows(const PlacementMap& map)
{
    QStringList out;
    for (const MapArrow& a : map.arrows)
        out << a.from + (a.kind == MapArrow::Kind::Back ? " => " : " -> ") + a.to; // => what comes back
    return out;
}

} // namespace

class TestPlacement : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parameterServerPlacementHasShards()
    {
        MetricsStore store;
        apptest::feedParameterServerJob(store);
        const QList<TaskPlacement> all = placements(store);
        QCOMPARE(all.size(), 1); // the coordinator's
        const TaskPlacement& p = all.front();
        QCOMPARE(p.task, QString("chief:0"));
        QCOMPARE(p.place, QString("local (localhost)"));
        QCOMPARE(p.strategy, QString("ParameterServer"));
        QCOMPARE(p.psTasks, QStringList({"ps:0", "ps:1"}));
        QCOMPARE(p.workerTasks, QStringList({"worker:0", "worker:1"}));
        QCOMPARE(p.partitioner, QString("FixedShards (num_shards 2)"));
        QCOMPARE(p.maxStaleness, qint64(2));
        QCOMPARE(p.reduction, QString("parameter servers (stale-synchronous, k=2)"));
        QCOMPARE(p.reductionBytes, qint64(407040));
        QCOMPARE(p.variables.size(), 3);
        const PlacementVariable& kernel = p.variables[0];
        QCOMPARE(kernel.shape, QString("(784, 128)"));
        QCOMPARE(kernel.devices, QStringList({"ps:0", "ps:1"}));
        QCOMPARE(kernel.shards.size(), 2);
        QCOMPARE(kernel.shards[1].name, QString("dense/kernel/part_1"));
        QCOMPARE(kernel.shards[1].ps, QString("ps:1"));
        QCOMPARE(kernel.shards[1].firstRow, qint64(392));
        QCOMPARE(kernel.shards[1].endRow, qint64(784));
        QCOMPARE(kernel.shards[1].bytes, qint64(200704));
        QVERIFY(p.variables[1].shards.isEmpty());
    }

    void placementFieldsOfTheWrongTypeAreAbsent()
    {
        const TaskPlacement p = placementFrom(R"({"strategy": "ParameterServer", "ps_tasks": ["ps:0", 3],
            "max_staleness": "two", "partitioner": {"type": "none"},
            "variables": [{"name": "v", "shape": [4], "bytes": "x", "shards": [{"name": "v/part_0", "ps": "ps:0",
                           "rows": [0], "bytes": 8}, 7]}]})");
        QCOMPARE(p.psTasks, QStringList({"ps:0"}));
        QCOMPARE(p.maxStaleness, qint64(-1));
        QCOMPARE(p.partitioner, QString("none"));
        QCOMPARE(p.variables[0].bytes, qint64(0));
        QCOMPARE(p.variables[0].shards.size(), 1);
        QCOMPARE(p.variables[0].shards[0].endRow, qint64(0));
    }

    // Fields absent (an older engine's placement, a hand-made one): a replica without its
    // threads has one; no MultiWorkerMirrored or ParameterServer part, none of theirs.
    void placementFieldsAbsentKeepTheirFallbacks()
    {
        const TaskPlacement p = placementFrom(R"({"strategy": "OneDevice", "replicas": [{"replica": 0, "device": "cpu:0"}],
            "variables": [{"name": "v", "shape": [2, 3]}]})");
        QCOMPARE(p.strategy, QString("OneDevice"));
        QCOMPARE(p.replicas.size(), 1);
        QCOMPARE(p.replicas[0].device, QString("cpu:0"));
        QCOMPARE(p.replicas[0].threads, 1);
        QCOMPARE(p.variables.size(), 1);
        QCOMPARE(p.variables[0].shape, QString("(2, 3)"));
        QVERIFY(p.variables[0].devices.isEmpty() && p.variables[0].shards.isEmpty());
        QVERIFY(p.requestedStrategy.isEmpty() && p.parameterDevice.isEmpty() && p.reduction.isEmpty());
        QVERIFY(p.jobTasks.isEmpty() && p.psTasks.isEmpty() && p.workerTasks.isEmpty() && p.partitioner.isEmpty());
        QCOMPARE(p.totalReplicas, qint64(0));
        QCOMPARE(p.maxStaleness, qint64(-1));
        QCOMPARE(p.bucketBytes, qint64(0));
        QCOMPARE(p.globalBatch, qint64(0));
        // A part's field without its siblings still reads.
        const TaskPlacement partial = placementFrom(R"({"total_replicas": 4, "worker_tasks": ["worker:0"], "max_staleness": 3})");
        QCOMPARE(partial.totalReplicas, qint64(4));
        QCOMPARE(partial.workerTasks, QStringList({"worker:0"}));
        QCOMPARE(partial.maxStaleness, qint64(3));
        QVERIFY(partial.jobTasks.isEmpty() && partial.psTasks.isEmpty());
    }

    void theTaskTableSaysWhatTheCoordinatorSees()
    {
        MetricsStore store;
        apptest::feedParameterServerJob(store);
        const QList<TaskSummary> tasks = taskSummaries(store);
        QCOMPARE(tasks.size(), 5);
        const auto find = [&](const QString& name) {
            return *std::find_if(tasks.begin(), tasks.end(), [&](const TaskSummary& t) { return t.task == name; });
        };
        // worker:0 lost for good; worker:1 lost, joined again, now held back by the bound.
        QVERIFY(find("worker:0").lost);
        QCOMPARE(find("worker:0").lostReason, QString("lost by chief:0: unheard for 3.0 s"));
        QCOMPARE(stateText(find("worker:0")), QString("lost"));
        QVERIFY(!find("worker:1").lost);
        QCOMPARE(stateText(find("worker:1")), QString("waiting (staleness bound)"));
        QCOMPARE(stateText(find("ps:0")), QString("running"));
        // A ps task trains no steps: its count is the updates it has applied.
        QCOMPARE(find("ps:0").step, qint64(6));
        QCOMPARE(find("ps:1").step, qint64(2));
        QCOMPARE(find("ps:0").totalSteps, qint64(0));
        QCOMPARE(find("worker:1").step, qint64(9));
    }

    void parameterServerMap()
    {
        MetricsStore store;
        apptest::feedParameterServerJob(store);
        const PlacementMap map = placementMap(placements(store), taskSummaries(store));
        QCOMPARE(map.strategy, QString("ParameterServer"));
        QCOMPARE(map.psTasks, QStringList({"ps:0", "ps:1"}));
        QCOMPARE(map.places, map.psTasks); // the variables live on the ps tasks
        QCOMPARE(map.hosts.size(), 1);
        QCOMPARE(map.hosts[0].tasks.size(), 5);
        const MapTask& ps1 = map.hosts[0].tasks[4];
        QCOMPARE(ps1.id, QString("ps:1"));
        QCOMPARE(ps1.place, 1);
        // ps:1 holds the kernel's second shard and the whole dense_1/kernel.
        QCOMPARE(ps1.shards.size(), 2);
        QCOMPARE(ps1.shards[0].name, QString("dense/kernel/part_1"));
        QCOMPARE(ps1.shards[1].name, QString("dense_1/kernel"));
        QCOMPARE(ps1.shards[1].bytes, qint64(5120));
        QVERIFY(!map.variables[0].copies);
        QCOMPARE(map.variables[0].pieces.size(), 2);
        QCOMPARE(map.variables[0].pieces[0].place, 0);
        QCOMPARE(map.variables[1].pieces[0].place, 0); // dense/bias, whole on ps:0
        // Every worker pushes to every ps task and pulls back from it.
        QCOMPARE(arrows(map), QStringList({"worker:0 -> ps:0", "ps:0 => worker:0", "worker:0 -> ps:1", "ps:1 => worker:0",
                                           "worker:1 -> ps:0", "ps:0 => worker:1", "worker:1 -> ps:1", "ps:1 => worker:1"}));
        QVERIFY(map.path.contains("push"));
    }

    void oneDeviceHasNoPath()
    {
        const PlacementMap map = placementMap(
            {placementFrom(R"({"strategy": "OneDevice", "replicas": [{"replica": 0, "device": "cpu:0"}],
                "variables": [{"name": "dense/kernel", "shape": [4, 2], "bytes": 32, "devices": ["cpu:0"]},
                              {"name": "dense/bias", "shape": [2], "bytes": 8, "devices": ["cpu:0"]}]})")},
            {summary("worker:0")});
        QVERIFY(map.arrows.isEmpty());
        QCOMPARE(map.places, QStringList({"worker:0/cpu:0"}));
        const MapDevice& device = map.hosts[0].tasks[0].devices[0];
        QCOMPARE(device.place, 0);
        QCOMPARE(device.variables, 2);
        QCOMPARE(device.variableBytes, qint64(40));
        QCOMPARE(map.variables[1].pieces.size(), 1);
        QVERIFY(map.variables[1].copies);
        QVERIFY(map.path.contains("no gradients"));
    }

    void mirroredAllReducesInARingOrOntoOneDevice()
    {
        const char* json = R"({"strategy": "Mirrored", "replicas": [{"replica": 0, "device": "cpu:0"},
            {"replica": 1, "device": "cpu:1"}, {"replica": 2, "device": "cpu:2"}],
            "variables": [{"name": "dense/kernel", "shape": [4, 2], "bytes": 32, "devices": ["cpu:0", "cpu:1", "cpu:2"]}],
            "reduction": {"algorithm": "all-reduce", "cross_device_ops": "all_reduce", "bytes_per_step": 40}})";
        PlacementMap map = placementMap({placementFrom(json)}, {summary("worker:0")});
        QCOMPARE(map.hosts[0].tasks[0].devices.size(), 3);
        QCOMPARE(map.hosts[0].tasks[0].devices[1].replicas, QStringList({"replica 1"}));
        QCOMPARE(arrows(map), QStringList({"worker:0/cpu:0 -> worker:0/cpu:1", "worker:0/cpu:1 -> worker:0/cpu:2",
                                           "worker:0/cpu:2 -> worker:0/cpu:0"}));
        // A copy of the variable on every device, each device its colour.
        QCOMPARE(map.places, QStringList({"worker:0/cpu:0", "worker:0/cpu:1", "worker:0/cpu:2"}));
        QVERIFY(map.variables[0].copies);
        QCOMPARE(map.variables[0].pieces.size(), 3);
        QCOMPARE(map.variables[0].pieces[2].place, 2);
        QCOMPARE(map.variables[0].pieces[2].bytes, qint64(32));
        QVERIFY(map.path.contains("ring"));
        Json oneDevice = Json::parse(json);
        oneDevice["reduction"]["cross_device_ops"] = "reduce_to_one_device";
        map = placementMap({placementOf("worker:0", "here", "box", oneDevice)}, {summary("worker:0")});
        QCOMPARE(arrows(map), QStringList({"worker:0/cpu:1 -> worker:0/cpu:0", "worker:0/cpu:2 -> worker:0/cpu:0",
                                           "worker:0/cpu:0 => worker:0/cpu:1", "worker:0/cpu:0 => worker:0/cpu:2"}));
        QVERIFY(map.path.contains("sent back"));
    }

    void centralStorageReducesOntoTheParameterDevice()
    {
        const PlacementMap map = placementMap(
            {placementFrom(R"({"strategy": "CentralStorage", "parameter_device": "cpu:2",
                "replicas": [{"replica": 0, "device": "cpu:0"}, {"replica": 1, "device": "cpu:1"}],
                "variables": [{"name": "dense/kernel", "shape": [4, 2], "bytes": 32, "devices": ["cpu:2"]}]})")},
            {summary("worker:0")});
        const MapTask& task = map.hosts[0].tasks[0];
        QCOMPARE(task.devices.size(), 3);
        QCOMPARE(task.devices[2].place, 0); // the variables live there, and only there
        QCOMPARE(task.devices[0].place, -1);
        QCOMPARE(map.places, QStringList({"worker:0/cpu:2"}));
        QCOMPARE(map.variables[0].pieces.size(), 1);
        QCOMPARE(arrows(map), QStringList({"worker:0/cpu:0 -> worker:0/cpu:2", "worker:0/cpu:1 -> worker:0/cpu:2",
                                           "worker:0/cpu:2 => worker:0/cpu:0", "worker:0/cpu:2 => worker:0/cpu:1"}));
        QVERIFY(map.path.contains("parameter device"));
    }

    void multiWorkerMirroredRingsThroughItsTasksOnTheirHosts()
    {
        const auto worker = [](const QString& task) {
            return placementFrom(R"({"strategy": "MultiWorkerMirrored", "tasks": ["chief:0", "worker:0", "worker:1"],
                "reduction": {"algorithm": "Gloo chunked ring all-reduce over TCP among 3 tasks", "bytes_per_step": 32},
                "replicas": [{"replica": 0, "device": "cpu:0"}, {"replica": 1, "device": "cpu:1"}],
                "variables": [{"name": "dense/kernel", "shape": [4, 2], "bytes": 32, "devices": ["cpu:0", "cpu:1"]}]})",
                                 task);
        };
        const PlacementMap map = placementMap({worker("chief:0"), worker("worker:0"), worker("worker:1")},
                                              {summary("chief:0", "a"), summary("worker:0", "b"), summary("worker:1", "b")});
        QCOMPARE(map.hosts.size(), 2);
        QCOMPARE(map.hosts[1].tasks.size(), 2);
        const QStringList path = arrows(map);
        // Each task sums its replicas onto its first device and back, then the ring across the tasks.
        QVERIFY(path.contains("worker:1/cpu:1 -> worker:1/cpu:0"));
        QVERIFY(path.contains("worker:1/cpu:0 => worker:1/cpu:1"));
        QCOMPARE(path.mid(path.size() - 3),
                 QStringList({"chief:0 -> worker:0", "worker:0 -> worker:1", "worker:1 -> chief:0"}));
        // A copy on every device of every task.
        QCOMPARE(map.places.size(), 6);
        QCOMPARE(map.places[5], QString("worker:1/cpu:1"));
        QCOMPARE(map.variables[0].pieces.size(), 6);
        // The algorithm the engine reports, by name.
        QVERIFY(map.path.contains("the tasks all-reduce them (Gloo chunked ring all-reduce over TCP among 3 tasks)"));
    }

    // bucket_bytes "auto": the engine's placement says "tuning", then, in a later placement,
    // the values kept; the dashboard's caption and tree read them from the latest.
    void tunedBucketsAreShownOnceChosen()
    {
        strata::schema::PlacementEvent p;
        p.strategy = "MultiWorkerMirrored";
        p.multiWorker = strata::schema::PlacementMultiWorker{"worker:0", 2, {"worker:0", "worker:1"}, 2};
        p.replicas = {{0, "cpu:0", 1}};
        p.reduction.algorithm = "Gloo chunked ring all-reduce over TCP among 2 tasks in 1 bucket";
        p.reduction.bucketBytes = 32 << 20;
        p.reduction.buckets = 1;
        p.reduction.bytesPerStep = 670208;
        p.reduction.tuning = strata::schema::PlacementTuning{"tuning", 6, 41, "chunked ring", 1};
        const auto line = [](strata::schema::PlacementEvent e) {
            auto j = strata::schema::toJson(e);
            j["v"] = 1;
            j["type"] = "placement";
            j["t"] = 1000.0;
            j["task"] = "worker:0";
            return QByteArray::fromStdString(j.dump() + "\n");
        };
        MetricsStore store;
        store.ingestLines("worker:0", line(p));
        const auto mapOf = [&] { return placementMap(placements(store), taskSummaries(store)); };
        QCOMPARE(mapOf().tuning, QString("tuning buckets… (6 candidates, first 41 steps)"));
        // A run shorter than the tuning ends still "tuning": it says it never decided.
        {
            MetricsStore ended;
            ended.ingestLines("worker:0", line(p));
            ended.ingestLines("worker:0", R"({"v": 1, "type": "done", "t": 1001.0, "task": "worker:0", "status": "completed", "steps": 20})"
                                          "\n");
            QCOMPARE(placements(ended).front().tuning, QString("untuned"));
            QCOMPARE(placementMap(placements(ended), taskSummaries(ended)).tuning,
                     QString("buckets not tuned: the run ended within its 41 tuning steps"));
        }

        p.reduction.tuning = strata::schema::PlacementTuning{"tuned", 6, 41, "halving-doubling", 1.06};
        p.reduction.bucketBytes = 256 << 10;
        p.reduction.buckets = 2;
        store.ingestLines("worker:0", line(p));
        const TaskPlacement tuned = placements(store).front();
        QCOMPARE(tuned.tuning, QString("tuned"));
        QCOMPARE(tuned.tunedSpeedup, 1.06);
        QCOMPARE(tuned.buckets, qint64(2));
        QCOMPARE(mapOf().tuning, QString("bucket 256 KiB, halving-doubling (tuned)"));

        // Fixed buckets say nothing of tuning; a tuning field of another type is absent.
        p.reduction.tuning.reset();
        store.ingestLines("worker:0", line(p));
        QCOMPARE(mapOf().tuning, QString());
        const TaskPlacement wrong = placementFrom(
            R"({"strategy": "MultiWorkerMirrored", "reduction": {"algorithm": "ring", "tuning": "tuned"}})");
        QCOMPARE(tuningText(wrong), QString());
    }

    void devicesShowTheirLatestReport()
    {
        MetricsStore store;
        store.ingestLines("worker:0", R"({"v":1,"type":"placement","t":1,"task":"worker:0","strategy":"Mirrored","replicas":[{"replica":0,"device":"cpu:0"},{"replica":1,"device":"gpu:0"}],"variables":[{"name":"v","shape":[4],"bytes":16,"devices":["cpu:0","gpu:0"]}],"reduction":{"algorithm":"all-reduce","cross_device_ops":"all_reduce","bytes_per_step":16}}
{"v":1,"type":"device","t":2,"task":"worker:0","step":10,"window_ms":1000,"devices":[{"device":"cpu:0","replica":0,"utilization":0.25,"busy_ms":250,"variable_bytes":16},{"device":"gpu:0","replica":1,"utilization":0.5,"busy_ms":500,"variable_bytes":16,"memory_used_bytes":1000,"memory_total_bytes":8000}]}
{"v":1,"type":"device","t":3,"task":"worker:0","step":20,"window_ms":1000,"devices":[{"device":"cpu:0","replica":0,"utilization":0.75,"busy_ms":750,"variable_bytes":16},{"device":"gpu:0","replica":1,"utilization":0.5,"busy_ms":500,"variable_bytes":16,"memory_used_bytes":3000,"memory_total_bytes":8000}]}
)");
        const PlacementMap map = placementMap(placements(store), taskSummaries(store), deviceUsage(store));
        const QList<MapDevice>& devices = map.hosts[0].tasks[0].devices;
        QCOMPARE(devices.size(), 2);
        QCOMPARE(devices[0].usage.utilization, 0.75);
        QCOMPARE(devices[0].usage.variableBytes, qint64(16));
        QCOMPARE(devices[0].usage.memoryUsedBytes, qint64(-1)); // a CPU's memory is not reported
        QCOMPARE(devices[1].usage.memoryUsedBytes, qint64(3000));
        QCOMPARE(devices[1].usage.memoryTotalBytes, qint64(8000));
        // Before any report: nothing to show.
        QCOMPARE(placementMap(placements(store), taskSummaries(store)).hosts[0].tasks[0].devices[0].usage.utilization, -1.0);
    }

    void noPlacementNoMap() { QVERIFY(placementMap({}, {summary("worker:0")}).empty()); }

    // Each task its own GPUs: the hello's cuda_visible_devices names each GPU device's GPU on
    // its node, in the placement, the map and the texts the tree shows.
    void devicesNameTheirGpuOnTheNode()
    {
        QCOMPARE(deviceOnNode("gpu:0", "2,3"), QString("gpu:0 (GPU 2)"));
        QCOMPARE(deviceOnNode("gpu:1", "2, 3"), QString("gpu:1 (GPU 3)"));
        QCOMPARE(deviceOnNode("gpu:2", "2,3"), QString("gpu:2")); // beyond the list: logical
        QCOMPARE(deviceOnNode("cpu:0", "2,3"), QString("cpu:0"));
        QCOMPARE(deviceOnNode("gpu:0", ""), QString("gpu:0")); // not restricted: the node's own numbering
        QCOMPARE(deviceOnNode("gpu:0", "GPU-8f2a"), QString("gpu:0 (GPU GPU-8f2a)"));
        QCOMPARE(nodeGpusText("2,3"), QString("GPUs 2,3 of the node"));
        QCOMPARE(nodeGpusText("1"), QString("GPU 1 of the node"));
        QCOMPARE(nodeGpusText(""), QString());

        MetricsStore store;
        const auto feed = [&](const char* task, const char* gpus) {
            store.ingestLines(task, QStringLiteral(R"({"v":1,"type":"hello","t":1,"task":"%1","version":"0.1.0","schema":1,"host":"box","pid":1,"devices":[],"blas":"x","cuda_visible_devices":%2}
{"v":1,"type":"placement","t":2,"task":"%1","strategy":"MultiWorkerMirrored","tasks":["worker:0","worker:1","worker:2"],"replicas":[{"replica":0,"device":"gpu:0"},{"replica":1,"device":"gpu:1"}],"variables":[{"name":"v","shape":[4],"bytes":16,"devices":["gpu:0","gpu:1"]}],"reduction":{"algorithm":"ring","bytes_per_step":16}}
)").arg(task, gpus).toUtf8());
        };
        feed("worker:0", R"("0,1")");
        feed("worker:1", R"("2,3")");
        feed("worker:2", "null"); // not set: every GPU
        const QList<TaskPlacement> all = placements(store);
        QCOMPARE(all.size(), 3);
        QCOMPARE(all[0].visibleGpus, QString("0,1"));
        QCOMPARE(all[1].visibleGpus, QString("2,3"));
        QCOMPARE(all[2].visibleGpus, QString());
        const PlacementMap map = placementMap(all, taskSummaries(store));
        const QList<MapDevice>& second = map.hosts[0].tasks[1].devices;
        QCOMPARE(second[0].name, QString("gpu:0"));
        QCOMPARE(second[0].label, QString("gpu:0 (GPU 2)"));
        QCOMPARE(second[1].label, QString("gpu:1 (GPU 3)"));
        QCOMPARE(map.hosts[0].tasks[2].devices[1].label, QString("gpu:1"));
        // The run's log says it with the engine's hello.
        QStringList hellos;
        for (const LogEntry& e : logEntries(store, 0))
            if (e.message.startsWith("engine "))
                hellos << e.task + ": " + e.message;
        QCOMPARE(hellos.size(), 3);
        QVERIFY2(hellos[1].endsWith(", CUDA_VISIBLE_DEVICES=2,3"), qPrintable(hellos[1]));
        QVERIFY2(!hellos[2].contains("CUDA_VISIBLE_DEVICES"), qPrintable(hellos[2]));
        // A hello of an older engine (no field), or one of another type: no list.
        MetricsStore old;
        old.ingestLines("worker:0", R"({"v":1,"type":"hello","t":1,"task":"worker:0","host":"box","cuda_visible_devices":3}
{"v":1,"type":"placement","t":2,"task":"worker:0","strategy":"OneDevice","replicas":[{"replica":0,"device":"gpu:0"}],"variables":[]}
)");
        QCOMPARE(placements(old).front().visibleGpus, QString());
    }

    void namesInRuns()
    {
        QCOMPARE(namesText({"worker:0", "worker:1", "worker:2", "worker:3"}), QString("worker:0-3"));
        QCOMPARE(namesText({"worker:36", "worker:38", "worker:39"}), QString("worker:36, worker:38-39"));
        QCOMPARE(namesText({"node-1", "node-2", "node-3", "node-5", "node-6", "gpu-box"}),
                 QString("node-1\u00A0\u2026\u00A0node-3, node-5, node-6, gpu-box"));
        QCOMPARE(namesText({"ps:0"}), QString("ps:0"));
        QCOMPARE(namesText({}), QString());
    }

    // 16 hosts of 4 workers alike: one group of hosts, each host one group of tasks.
    void hostsAndTasksAlikeAreGrouped()
    {
        MetricsStore store;
        apptest::feedLargeJob(store);
        const PlacementMap map = largeJobMap(store);
        QCOMPARE(map.hosts.size(), 16);
        QCOMPARE(map.hostGroups.size(), 1);
        const MapHostGroup& all = map.hostGroups[0];
        QCOMPARE(all.hosts.size(), 16);
        QCOMPARE(all.hosts[2], QString("node-3 (198.18.0.3)"));
        QCOMPARE(all.title, QString("16 hosts: node-1\u00A0\u2026\u00A0node-16"));
        QCOMPARE(all.id, QString("hosts node-1 (198.18.0.1)"));
        // What the group shows: four workers on each, 64 in all.
        QCOMPARE(all.tasks.size(), 1);
        QCOMPARE(all.tasks[0].title, QString("4 workers each"));
        QCOMPARE(all.tasks[0].tasks.size(), 64);
        // Each host: its four workers as one.
        const MapHost& third = map.hosts[2];
        QCOMPARE(third.groups.size(), 1);
        QCOMPARE(third.groups[0].tasks, QStringList({"worker:8", "worker:9", "worker:10", "worker:11"}));
        QCOMPARE(third.groups[0].title, QString("4 workers: worker:8-11"));
        QCOMPARE(third.groups[0].id, QString("tasks worker:8"));
        // How busy the devices of a group are: each worker's last report, 0.5 to 0.9.
        const UsageSpan span = usageSpan(map, all.tasks[0].tasks, 0);
        QCOMPARE(span.leastBusy, 0.5);
        QCOMPARE(float(span.mostBusy), 0.9f); // as the store keeps it
        QCOMPARE(span.mostMemoryUsed, qint64(-1)); // CPUs report no memory
        QCOMPARE(float(usageSpan(map, {"worker:1"}, 0).mostBusy), 0.6f);
    }

    // A failed worker, and an unreachable one, are never inside a group: their hosts stand
    // alone, and on each the others are still grouped.
    void whatStandsOutIsNeverGrouped()
    {
        MetricsStore store;
        apptest::feedLargeJob(store);
        store.taskEnded("worker:37", 1, false, "out of memory");
        store.setTaskReachable("worker:5", false, "no answer from node-2 for 20 s");
        const PlacementMap map = largeJobMap(store);
        QCOMPARE(map.hostGroups.size(), 3);
        QCOMPARE(map.hostGroups[0].hosts.size(), 14);
        QCOMPARE(map.hostGroups[0].title, QString("14 hosts: node-1, node-3\u00A0\u2026\u00A0node-9, node-11\u00A0\u2026\u00A0node-16"));
        QCOMPARE(map.hostGroups[1].hosts, QStringList({"node-2 (198.18.0.2)"}));
        QCOMPARE(map.hostGroups[2].hosts, QStringList({"node-10 (198.18.0.10)"}));
        const MapHost& tenth = map.hosts[9];
        QCOMPARE(tenth.groups.size(), 2);
        QCOMPARE(tenth.groups[0].tasks, QStringList({"worker:36", "worker:38", "worker:39"}));
        QCOMPARE(tenth.groups[0].title, QString("3 workers: worker:36, worker:38-39"));
        QCOMPARE(tenth.groups[1].tasks, QStringList({"worker:37"}));
        const MapTask& failed = tenth.tasks[1];
        QCOMPARE(failed.id, QString("worker:37"));
        QCOMPARE(failed.alert, QString("failed"));
        QVERIFY(failed.failure);
        const MapTask& unheard = map.hosts[1].tasks[1];
        QCOMPARE(unheard.id, QString("worker:5"));
        QCOMPARE(unheard.alert, QString("unreachable"));
        QVERIFY(!unheard.failure);
        QCOMPARE(map.hosts[1].groups.size(), 2);
    }

    // A job of a few tasks is drawn whole; ps tasks (each its shards) never group.
    void smallJobsAreNotGrouped()
    {
        MetricsStore store;
        apptest::feedLargeJob(store, 8, 2);
        PlacementMap map = largeJobMap(store);
        QCOMPARE(map.hostGroups.size(), 2);
        for (const MapHost& h : map.hosts)
            QCOMPARE(h.groups.size(), 4);
        MetricsStore ps;
        apptest::feedParameterServerJob(ps);
        map = placementMap(placements(ps), taskSummaries(ps));
        QCOMPARE(map.hostGroups.size(), 1);
        QCOMPARE(map.hosts[0].groups.size(), 5);
        // Nine workers on three hosts: grouped.
        MetricsStore nine;
        apptest::feedLargeJob(nine, 9, 3);
        map = largeJobMap(nine);
        QCOMPARE(map.hostGroups.size(), 1);
        QCOMPARE(map.hostGroups[0].title, QString("3 hosts: node-1\u00A0\u2026\u00A0node-3"));
        QCOMPARE(map.hostGroups[0].tasks[0].title, QString("3 workers each"));
    }
};

QTEST_GUILESS_MAIN(TestPlacement)
#include "tst_placement.moc"
