// The comparison of runs on hand-made event streams with known numbers: steady-state
// throughput (time-weighted, warm-up left out), scaling against a baseline (1000 samples/s on
// one replica, 1800 on two: speedup 1.8, efficiency 0.9), the step-time split and the
// communication share, time to a target loss (reached between windows, never, on a smoothed
// loss), loss vs wall time, final metrics from `done` or the last epoch; the experiments'
// differences; the table as CSV, Markdown and text, exactly; and the comparison's plot lines.

#include "app/compare/compare_lines.h"
#include "app/compare/comparison.h"
#include "app/compare/experiment_diff.h"
#include "app/compare/field_labels.h"
#include "app/compare/run_colours.h"

#include <algorithm>
#include <set>

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace strata::app;

namespace {

const QString kTask = QStringLiteral("worker:0");

Json makeEvent(const char* type, double t, Json fields = Json::object(), const QString& task = kTask)
{
    Json e{{"v", 1}, {"type", type}, {"t", t}, {"task", task.toStdString()}};
    e.update(fields);
    return e;
}

struct Window {
    int64_t step;
    double t;
    double loss;
    double samplesPerSec;
    double stepMs = 10, computeMs = 9, commMs = 0, inputMs = 1;
};

Json step(const Window& w, const QString& task = kTask)
{
    return makeEvent("step", w.t,
                 {{"step", w.step}, {"loss", w.loss}, {"samples_per_sec", w.samplesPerSec},
                  {"replicas", Json::array({{{"replica", 0}, {"device", "cpu:0"}, {"loss", w.loss}, {"samples", 320}}})},
                  {"time_ms", {{"step", w.stepMs}, {"compute", w.computeMs}, {"comm", w.commMs}, {"input", w.inputMs}}}},
                 task);
}

// A run of 100 steps in windows of 10 from unix time `t0`, one window a `secondsPerWindow`;
// the loss falls from 1 by `lossPerStep`; the first window (warm-up) at half the throughput.
void feedRun(MetricsStore& store, double t0, const char* strategy, int replicas, double samplesPerSec,
             double lossPerStep, double secondsPerWindow, double commMs)
{
    store.ingest(kTask, makeEvent("hello", t0, {{"version", "0.1.0"}}));
    store.ingest(kTask, makeEvent("start", t0 + 0.5, {{"strategy", strategy}, {"replicas", replicas},
                                                  {"batch_size", 32 * replicas}, {"total_steps", 100}}));
    store.ingest(kTask, makeEvent("placement", t0 + 0.5, {{"strategy", strategy}}));
    for (int64_t s = 10; s <= 100; s += 10)
        store.ingest(kTask, step({s, t0 + double(s / 10) * secondsPerWindow, 1.0 - lossPerStep * double(s),
                                  s == 10 ? samplesPerSec / 2 : samplesPerSec, 10, 9 - commMs, commMs, 1}));
}

// OneDevice: 1000 samples/s, loss 1 - s/200, a window a second, completed at t0 + 11.
void feedOneDevice(MetricsStore& store)
{
    feedRun(store, 1000, "OneDevice", 1, 1000, 1.0 / 200, 1.0, 0);
    store.ingest(kTask, makeEvent("done", 1011, {{"status", "completed"}, {"steps", 100},
                                             {"train", {{"loss", 0.5}, {"accuracy", 0.8}}},
                                             {"validation", {{"loss", 0.55}, {"accuracy", 0.78}}},
                                             {"test", {{"loss", 0.56}, {"accuracy", 0.77}}}}));
}

// Mirrored on 2 replicas: 1800 samples/s, loss 1 - s/100, a window every half second, comm 2
// of 10 ms; `done` without validation (the last epoch has it) or test.
void feedMirrored(MetricsStore& store)
{
    feedRun(store, 2000, "Mirrored", 2, 1800, 1.0 / 100, 0.5, 2);
    store.ingest(kTask, makeEvent("epoch", 2005.5, {{"epoch", 0}, {"epochs", 1}, {"step", 100},
                                                {"train", {{"loss", 0.1}, {"accuracy", 0.9}}},
                                                {"validation", {{"loss", 0.15}, {"accuracy", 0.85}}}}));
    store.ingest(kTask, makeEvent("done", 2006, {{"status", "completed"}, {"steps", 100},
                                             {"train", {{"loss", 0.1}, {"accuracy", 0.9}}}}));
}

template<typename Fn>
void withTask(const MetricsStore& store, Fn fn)
{
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        QVERIFY(!tasks.empty());
        fn(tasks.front());
    });
}

QList<QPointF> allPoints(const PlotSource& source, int line)
{
    QList<QPointF> points;
    source.forEachPoint(line, [&](double x, double y) { points.append({x, y}); });
    return points;
}

ComparisonTable knownTable()
{
    static MetricsStore one, mirrored;
    if (one.eventCount() == 0) {
        feedOneDevice(one);
        feedMirrored(mirrored);
    }
    CompareOptions options;
    options.targetLoss = 0.62;
    return compareRuns({{&one, "one"}, {&mirrored, "mirrored, 2 replicas"}}, options);
}

} // namespace

class TestComparison : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void steadyThroughputLeavesWarmUpOut()
    {
        MetricsStore store;
        feedOneDevice(store);
        withTask(store, [](const TaskData& t) {
            // The first window (500 samples/s) is warm-up; the rest run at 1000.
            QCOMPARE(*steadySamplesPerSec(t, 0.1), 1000.0);
        });

        // 20 windows of 5 steps: those that begin in the first 10 % (at steps 0 and 5) are
        // warm-up; with no warm-up fraction only the first window is.
        MetricsStore twenty;
        for (int64_t s = 5; s <= 100; s += 5)
            twenty.ingest(kTask, step({s, double(s), 1.0, s <= 10 ? 100.0 : 1000.0}));
        withTask(twenty, [](const TaskData& t) {
            QCOMPARE(*steadySamplesPerSec(t, 0.1), 1000.0);
            QVERIFY(*steadySamplesPerSec(t, 0.0) < 1000.0);
        });

        // Time-weighted: 10 steps of 10 ms at 1000/s and 30 steps of 20 ms at 400/s are
        // 340 samples in 0.7 s, not the windows' plain mean of 700.
        MetricsStore weighted;
        weighted.ingest(kTask, step({10, 1, 1.0, 1.0}));
        weighted.ingest(kTask, step({20, 2, 1.0, 1000, 10}));
        weighted.ingest(kTask, step({50, 3, 1.0, 400, 20}));
        withTask(weighted, [](const TaskData& t) { QCOMPARE(*steadySamplesPerSec(t, 0.1), 340.0 / 0.7); });

        // A run of one window: it is all there is.
        MetricsStore single;
        single.ingest(kTask, step({10, 1, 1.0, 250}));
        withTask(single, [](const TaskData& t) { QCOMPARE(*steadySamplesPerSec(t, 0.1), 250.0); });

        MetricsStore none;
        none.ingest(kTask, makeEvent("hello", 1));
        withTask(none, [](const TaskData& t) { QVERIFY(!steadySamplesPerSec(t, 0.1)); });
    }

    void scalingAgainstTheBaseline()
    {
        const ComparisonTable table = knownTable();
        QCOMPARE(table.baseline, 0);
        QCOMPARE(*table.runs[1].samplesPerSec, 1800.0);
        QCOMPARE(table.scaling[0]->speedup, 1.0);
        QCOMPARE(table.scaling[0]->efficiency, 1.0);
        QCOMPARE(table.scaling[1]->speedup, 1.8);
        QCOMPARE(table.scaling[1]->efficiency, 0.9);

        RunSummary single, mirrored, central;
        single.strategy = "OneDevice";
        single.replicas = 1;
        single.samplesPerSec = 1000;
        mirrored.strategy = "Mirrored";
        mirrored.replicas = 4;
        mirrored.samplesPerSec = 3000;
        central.strategy = "CentralStorage";
        central.replicas = 2;
        // The OneDevice (or Default) run is the default baseline, wherever it is listed.
        QCOMPARE(defaultBaseline({mirrored, single}), 1);
        single.strategy = "Default";
        QCOMPARE(defaultBaseline({mirrored, central, single}), 2);
        QCOMPARE(defaultBaseline({mirrored, central}), 0);
        // Against a baseline of several replicas: efficiency per replica added.
        const Scaling s = *scalingAgainst(mirrored, RunSummary{.replicas = 2, .samplesPerSec = 2000});
        QCOMPARE(s.speedup, 1.5);
        QCOMPARE(s.efficiency, 0.75);
        // Unknown throughput or replicas: no figure rather than a wrong one.
        QVERIFY(!scalingAgainst(central, single));
        QVERIFY(!scalingAgainst(single, central));

        // An explicit baseline: the Mirrored run.
        CompareOptions options;
        options.baseline = 1;
        const ComparisonTable against = compareSummaries(table.runs, options);
        QCOMPARE(against.baseline, 1);
        QCOMPARE(against.scaling[1]->speedup, 1.0);
        QCOMPARE(against.scaling[0]->efficiency, (1000.0 / 1800.0) / 0.5);
    }

    void stepSplitAndCommunicationShare()
    {
        const ComparisonTable table = knownTable();
        QCOMPARE(*table.runs[0].commShare, 0.0);
        QCOMPARE(*table.runs[1].commShare, 0.2);
        QCOMPARE(table.runs[1].split->computeMs, 7.0);

        // Weighted by the steps of each window: 10 steps with 2 of 10 ms in communication,
        // 30 with 1 of 20 ms: 50 of 700 ms, not the plain mean of the shares (0.125).
        MetricsStore store;
        store.ingest(kTask, step({10, 1, 1.0, 1000, 10, 7, 2, 1}));
        store.ingest(kTask, step({40, 2, 1.0, 1000, 20, 18, 1, 1}));
        withTask(store, [](const TaskData& t) {
            const StepSplit split = *meanStepSplit(t);
            QCOMPARE(split.stepMs, 17.5);
            QCOMPARE(split.commMs, 1.25);
            QCOMPARE(split.computeMs, (70.0 + 540.0) / 40);
            QCOMPARE(split.inputMs, 1.0);
            QCOMPARE(*commShare(split), 50.0 / 700.0);
        });

        // A resumed run counts its first window's steps from the step it resumed from.
        MetricsStore resumed;
        resumed.ingest(kTask, makeEvent("start", 1, {{"resumed_from_step", 100}}));
        resumed.ingest(kTask, step({110, 2, 1.0, 1000, 10, 7, 2, 1}));
        resumed.ingest(kTask, step({140, 3, 1.0, 1000, 20, 18, 1, 1}));
        withTask(resumed, [](const TaskData& t) { QCOMPARE(meanStepSplit(t)->stepMs, 17.5); });
    }

    void timeToTargetLoss()
    {
        const ComparisonTable table = knownTable();
        // OneDevice reaches 0.62 at step 80 (0.6), 8 s after its first event; Mirrored at
        // step 40, 2 s after.
        QCOMPARE(*table.runs[0].timeToTarget, 8.0);
        QCOMPARE(*table.runs[1].timeToTarget, 2.0);

        // Crossing between two windows: the end of the window that reached it, not an
        // interpolation (the loss is only known per window).
        MetricsStore store;
        store.ingest(kTask, makeEvent("hello", 100));
        store.ingest(kTask, step({10, 101, 1.0, 1000}));
        store.ingest(kTask, step({20, 102, 0.6, 1000}));
        store.ingest(kTask, step({30, 103, 0.4, 1000}));
        store.ingest(kTask, step({40, 104, 0.4, 1000}));
        withTask(store, [](const TaskData& t) {
            QCOMPARE(*timeToLoss(t.loss, t.wallSeconds, 0.5), 3.0);
            QCOMPARE(*timeToLoss(t.loss, t.wallSeconds, 0.6), 2.0); // at the target counts
            QCOMPARE(*timeToLoss(t.loss, t.wallSeconds, 2.0), 1.0);
            QVERIFY(!timeToLoss(t.loss, t.wallSeconds, 0.1)); // never reached
            // On the loss averaged over 2 windows (1.0, 0.8, 0.5, 0.4), 0.45 comes a window later.
            QCOMPARE(*timeToLoss(t.loss, t.wallSeconds, 0.45), 3.0);
            QCOMPARE(*timeToLoss(t.loss, t.wallSeconds, 0.45, {Smoothing::Kind::MovingAverage, 0, 2}), 4.0);
        });

        CompareOptions never;
        never.targetLoss = 0.01;
        const ComparisonTable unreached = compareSummaries(
            {summarizeRun(ComparedRun{&store, "run"}, never)}, never);
        QVERIFY(!unreached.runs[0].timeToTarget);
        QCOMPARE(unreached.cells(0)[16], QString("not reached"));
        QCOMPARE(unreached.header()[16], QString("time to loss <= 0.01 (s)"));
        // Without a target there is no such column.
        QVERIFY(!compareSummaries({}, {}).header().join(',').contains("time to loss"));
    }

    void lossAgainstWallTime()
    {
        MetricsStore store;
        store.ingest(kTask, makeEvent("hello", 100));
        store.ingest(kTask, step({10, 101.5, 1.0, 1000}));
        Json untimed = step({20, 0, 0.8, 1000});
        untimed.erase("t");
        store.ingest(kTask, untimed); // a step without a time has no place on this axis
        store.ingest(kTask, step({30, 104, 0.5, 1000}));
        withTask(store, [](const TaskData& t) {
            Series out;
            int64_t next = extendLossVsWallTime(t.loss, t.wallSeconds, 0, out);
            QCOMPARE(next, int64_t(3));
            QCOMPARE(out.size(), int64_t(2));
            QCOMPARE(out.x(0), 1.5);
            QCOMPARE(out.y(0), 1.0f);
            QCOMPARE(out.x(1), 4.0);
            QCOMPARE(out.y(1), 0.5f);
            QCOMPARE(extendLossVsWallTime(t.loss, t.wallSeconds, next, out), int64_t(3)); // nothing new
            QCOMPARE(out.size(), int64_t(2));
        });
    }

    void finalMetricsFromDoneElseTheLastEpoch()
    {
        const ComparisonTable table = knownTable();
        const RunSummary& one = table.runs[0];
        QCOMPARE(*one.train.loss, 0.5);
        QCOMPARE(*one.validation.accuracy, 0.78);
        QCOMPARE(*one.test.loss, 0.56);
        QCOMPARE(one.strategy, QString("OneDevice"));
        QCOMPARE(one.replicas, 1);
        QCOMPARE(one.globalBatch, int64_t(32));
        QCOMPARE(one.steps, int64_t(100));
        QCOMPARE(*one.wallSeconds, 11.0);
        QCOMPARE(one.state, TaskState::Completed);
        // `done` without validation: the last epoch's; no test split: none.
        const RunSummary& mirrored = table.runs[1];
        QCOMPARE(*mirrored.validation.loss, 0.15);
        QVERIFY(!mirrored.test.loss);

        // Killed before `done`: the last epoch, and its state.
        MetricsStore killed;
        feedRun(killed, 10, "OneDevice", 1, 1000, 0.001, 1, 0);
        killed.ingest(kTask, makeEvent("epoch", 15, {{"epoch", 0}, {"step", 50}, {"train", {{"loss", 0.7}, {"accuracy", 0.6}}}}));
        killed.taskEnded(kTask, 9, true, QString(), 30);
        const RunSummary r = summarizeRun(ComparedRun{&killed, "killed"}, {});
        QCOMPARE(*r.train.loss, 0.7);
        QCOMPARE(*r.train.accuracy, 0.6);
        QVERIFY(!r.validation.loss);
        QCOMPARE(r.state, TaskState::Failed);
        QCOMPARE(*r.wallSeconds, 10.0); // its events span: the last one at step 100
    }

    // A `start` lacking the run's shape (a hand-made or older stream): the replicas the
    // placement named, its global batch, and the strategy `start` gives when the placement has none.
    void shapeFromThePlacementWhereStartLacksIt()
    {
        MetricsStore store;
        store.ingest(kTask, makeEvent("start", 1, {{"strategy", "Mirrored"}}));
        const Json replicas = Json::array({{{"replica", 0}, {"device", "cpu:0"}}, {{"replica", 1}, {"device", "cpu:1"}}});
        store.ingest(kTask, makeEvent("placement", 2, {{"global_batch_size", 48}, {"replicas", replicas}}));
        const RunSummary r = summarizeRun(ComparedRun{&store, "old"}, {});
        QCOMPARE(r.strategy, QString("Mirrored"));
        QCOMPARE(r.replicas, 2);
        QCOMPARE(r.globalBatch, int64_t(48));
    }

    void primaryTaskAndThroughputOfSeveralTasks()
    {
        MetricsStore store;
        store.ingest("worker:1", step({10, 1, 1.0, 100}, "worker:1"));
        store.ingest("worker:1", step({20, 2, 1.0, 200}, "worker:1"));
        store.ingest("chief:0", step({10, 1, 0.5, 300}, "chief:0"));
        store.ingest("chief:0", step({20, 2, 0.5, 400}, "chief:0"));
        store.read([](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
            QCOMPARE(primaryTask(tasks)->task, QString("chief:0"));
            const RunSummary r = summarizeRun(tasks, "two", {});
            QCOMPARE(*r.samplesPerSec, 600.0); // 200 + 400 after warm-up: the tasks summed
            QCOMPARE(r.steps, int64_t(20));
            QVERIFY(!primaryTask({}));
        });
    }

    void experimentDifferencesListEveryPath()
    {
        const Json a = Json::parse(R"({"strata": 1, "name": "a", "seed": 1,
            "strategy": {"type": "OneDevice", "device": "cpu:0"},
            "model": {"input_shape": [8], "layers": [{"type": "Dense", "units": 16}, {"type": "Dense", "units": 3}]},
            "training": {"epochs": 2, "batch_size": 32, "optimizer": {"type": "adam", "learning_rate": 0.01}}})");
        Json b = a, c = a;
        b["name"] = "b";
        b["seed"] = 2;
        b["strategy"] = {{"type", "Mirrored"}, {"logical_cpu_devices", 2}};
        b["training"]["batch_size"] = 64;
        c["name"] = "c";
        c["description"] = "the same but wider";
        c["model"]["input_shape"] = {8, 1};
        c["model"]["layers"][0]["units"] = 32;
        c["model"]["layers"].push_back({{"type", "Dropout"}, {"rate", 0.5}});
        const std::vector<ExperimentDifference> d = experimentDifferences({a, b, c});
        QStringList setup, other;
        for (const ExperimentDifference& x : d)
            (x.setup ? setup : other) << x.text();
        QCOMPARE(setup, (QStringList{"strategy.type: OneDevice | Mirrored | OneDevice",
                                     "strategy.device: cpu:0 | (absent) | cpu:0",
                                     "strategy.logical_cpu_devices: (absent) | 2 | (absent)"}));
        QCOMPARE(other, (QStringList{"seed: 1 | 2 | 1",
                                     "model.input_shape: [8] | [8] | [8,1]",
                                     "model.layers[0].units: 16 | 16 | 32",
                                     "model.layers[2].type: (absent) | (absent) | Dropout",
                                     "model.layers[2].rate: (absent) | (absent) | 0.5",
                                     "training.batch_size: 32 | 64 | 32"}));
        QCOMPARE(d[0].values, (QStringList{"1", "2", "1"}));
        // Identical experiments, or a single one: nothing to list.
        QVERIFY(experimentDifferences({a, a}).empty());
        QVERIFY(experimentDifferences({a}).empty());
        // A section only one document has: each of its values, against "(absent)".
        Json clustered = a;
        clustered["cluster"] = {{"nodes", Json::array({{{"name", "local"}, {"host", "localhost"}}})}};
        const std::vector<ExperimentDifference> cluster = experimentDifferences({a, clustered});
        QCOMPARE(int(cluster.size()), 1);
        QVERIFY(cluster[0].setup);
        QCOMPARE(cluster[0].text(), QString(R"(cluster.nodes: (absent) | [{"name":"local","host":"localhost"}])"));
    }

    void differencesReadAsFieldLabels()
    {
        // The pages' labels, list items counted from 1, a layer named by its type.
        QCOMPARE(experimentFieldLabel("training.batch_size"), QString("Training: batch size per replica"));
        QCOMPARE(experimentFieldLabel("training.optimizer.learning_rate"), QString("Training: learning rate"));
        QCOMPARE(experimentFieldLabel("seed"), QString("Training: seed"));
        QCOMPARE(experimentFieldLabel("strategy.type"), QString("Strategy: type"));
        QCOMPARE(experimentFieldLabel("data.source.type"), QString("Data: source"));
        QCOMPARE(experimentFieldLabel("model.layers[1].units", "Dense"), QString("Model: layer 2 (Dense) units"));
        QCOMPARE(experimentFieldLabel("model.layers[0]"), QString("Model: layer 1"));
        QCOMPARE(experimentFieldLabel("cluster.nodes[1].host"), QString("Cluster: node 2 host"));
        QCOMPARE(experimentFieldLabel("cluster.tasks[0].count"), QString("Cluster: task row 1 count"));
        // Fields without a label of their own: their words, under their section.
        QCOMPARE(experimentFieldLabel("training.optimizer.beta_1"), QString("Training: optimizer beta 1"));
        QCOMPARE(experimentFieldLabel("strategy.new_option"), QString("Strategy: new option"));
        QCOMPARE(experimentFieldLabel("extra.some_field"), QString("extra some field"));

        // experimentDifferences labels each difference; a layer's type when the runs agree on it.
        const Json a = Json::parse(R"({"strategy": {"type": "OneDevice"}, "training": {"batch_size": 32},
            "model": {"layers": [{"type": "Dense", "units": 16}, {"type": "Dense", "units": 3}]}})");
        Json b = a;
        b["strategy"]["type"] = "Mirrored";
        b["training"]["batch_size"] = 64;
        b["model"]["layers"][0]["units"] = 32;
        b["model"]["layers"][1]["type"] = "Dropout";
        QStringList labels;
        for (const ExperimentDifference& d : experimentDifferences({a, b}))
            labels << d.label;
        QCOMPARE(labels, (QStringList{"Strategy: type", "Training: batch size per replica",
                                      "Model: layer 1 (Dense) units", "Model: layer 2 type"}));
    }

    void runColoursFollowTheRunNotItsPlace()
    {
        // A sweep's runs (consecutive history ids) take consecutive colours, whatever their order.
        QCOMPARE(runColourSlots({12, 13, 14}), (std::vector<int>{2, 3, 4}));
        QCOMPARE(runColourSlots({14, 12, 13}), (std::vector<int>{4, 2, 3}));
        // Ids that want the same slot still get distinct ones, the same in any order.
        const std::vector<int> one = runColourSlots({3, 13, 23, 4});
        const std::vector<int> other = runColourSlots({4, 23, 3, 13});
        QCOMPARE(one, (std::vector<int>{3, 5, 6, 4}));
        QCOMPARE(other, (std::vector<int>{one[3], one[2], one[0], one[1]}));
        // A run keeps its colour when another run joins or leaves the comparison beside it.
        QCOMPARE(runColourSlots({12, 14})[1], runColourSlots({12, 13, 14})[2]);
        // Up to ten runs all differ; more share.
        std::vector<quint64> many;
        for (quint64 id = 100; id < 110; ++id)
            many.push_back(id * 7);
        const std::vector<int> tenRuns = runColourSlots(many);
        QCOMPARE(std::set<int>(tenRuns.begin(), tenRuns.end()).size(), size_t(10));
        many.push_back(5);
        const std::vector<int> shared = runColourSlots(many);
        QCOMPARE(std::set<int>(shared.begin(), shared.end()).size(), size_t(10));

        // Without a history id: the run's directory, the same in every session and spelling.
        QCOMPARE(runColourKey(12, "/runs/a"), quint64(12));
        QCOMPARE(runColourKey(0, "/runs/a"), runColourKey(0, "/runs/./a/"));
        QVERIFY(runColourKey(0, "/runs/a") != runColourKey(0, "/runs/b"));
        QCOMPARE(runColourKey(0, "/runs/a"), quint64(0x2c648a3e020a1128ull)); // FNV-1a of "/runs/a"
    }

    void tableAsCsv()
    {
        QCOMPARE(tableCsv(knownTable()),
                 QString("run,strategy,replicas,global batch,status,steps,wall (s),train loss,train accuracy,"
                         "validation loss,validation accuracy,test loss,test accuracy,samples/s,speedup,"
                         "scaling efficiency,time to loss <= 0.62 (s),comm share (%),stragglers\n"
                         "one,OneDevice,1,32,completed,100,11.00,0.5000,0.8000,0.5500,0.7800,0.5600,0.7700,"
                         "1000.0,1.00,1.00,8.00,0.0,\n"
                         "\"mirrored, 2 replicas\",Mirrored,2,64,completed,100,6.00,0.1000,0.9000,0.1500,0.8500,,,"
                         "1800.0,1.80,0.90,2.00,20.0,\n"));
    }

    void tableAsMarkdown()
    {
        QCOMPARE(tableMarkdown(knownTable()),
                 QString("| run                      |       one | mirrored, 2 replicas |\n"
                         "| ------------------------ | --------: | -------------------: |\n"
                         "| strategy                 | OneDevice |             Mirrored |\n"
                         "| replicas                 |         1 |                    2 |\n"
                         "| global batch             |        32 |                   64 |\n"
                         "| status                   | completed |            completed |\n"
                         "| steps                    |       100 |                  100 |\n"
                         "| wall (s)                 |     11.00 |                 6.00 |\n"
                         "| train loss               |    0.5000 |               0.1000 |\n"
                         "| train accuracy           |    0.8000 |               0.9000 |\n"
                         "| validation loss          |    0.5500 |               0.1500 |\n"
                         "| validation accuracy      |    0.7800 |               0.8500 |\n"
                         "| test loss                |    0.5600 |                    - |\n"
                         "| test accuracy            |    0.7700 |                    - |\n"
                         "| samples/s                |    1000.0 |               1800.0 |\n"
                         "| speedup                  |      1.00 |                 1.80 |\n"
                         "| scaling efficiency       |      1.00 |                 0.90 |\n"
                         "| time to loss <= 0.62 (s) |      8.00 |                 2.00 |\n"
                         "| comm share (%)           |       0.0 |                 20.0 |\n"
                         "| stragglers               |         - |                    - |\n"));
        // A '|' in a label does not break the table.
        RunSummary piped;
        piped.label = "a|b";
        const QString markdown = tableMarkdown(compareSummaries({piped}, {}));
        QVERIFY2(markdown.contains("a\\|b |\n") && !markdown.contains("a|b"), qPrintable(markdown));
    }

    void tableAsText()
    {
        const QString text = tableText(knownTable());
        const QStringList lines = text.split('\n');
        QCOMPARE(lines[0], QString("run                             one  mirrored, 2 replicas"));
        QCOMPARE(lines[1], QString("strategy                  OneDevice              Mirrored"));
        QCOMPARE(lines[11], QString("test loss                    0.5600                     -"));
        QCOMPARE(lines[16], QString("time to loss <= 0.62 (s)       8.00                  2.00"));
        QCOMPARE(lines[18], QString("stragglers                        -                     -"));
        QCOMPARE(lines.size(), 20); // 19 figures and the final newline
    }

    void tableWrittenAtomically()
    {
        QTemporaryDir dir;
        QString error;
        const QString path = dir.filePath("comparison.md");
        QVERIFY2(writeTextFile(path, tableMarkdown(knownTable()), &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(file.readAll()), tableMarkdown(knownTable()));
        const QString unwritable = dir.filePath("no-such-dir/comparison.csv");
        QVERIFY(!writeTextFile(unwritable, tableCsv(knownTable()), &error));
        QVERIFY2(error.contains(unwritable), qPrintable(error));
    }

    void plotLinesOnePerRun()
    {
        MetricsStore one, mirrored;
        feedOneDevice(one);
        feedMirrored(mirrored);
        const std::vector<ComparedRun> runs{{&one, "one"}, {&mirrored, "mirrored"}};

        LossByStepComparison byStep(runs);
        QCOMPARE(byStep.lineCount(), 2);
        QCOMPARE(byStep.lineName(0), QString("one"));
        QCOMPARE(byStep.lineName(1), QString("mirrored"));
        QCOMPARE(byStep.pointCount(1), int64_t(10));
        QCOMPARE(allPoints(byStep, 1).front(), QPointF(10, 0.9f));

        // Against wall seconds since each run's first event: 1 s a window, and 0.5 s.
        LossByTimeComparison byTime(runs);
        QCOMPARE(allPoints(byTime, 0).front(), QPointF(1.0, 0.95f));
        QCOMPARE(allPoints(byTime, 1).back(), QPointF(5.0, float(1.0 - 100.0 / 100)));
        QCOMPARE(byTime.bounds().right(), 10.0);

        ThroughputComparison throughput(runs);
        QCOMPARE(allPoints(throughput, 1).back(), QPointF(100, 1800));

        // Smoothing as on the dashboard, over every point.
        byStep.setSmoothing({Smoothing::Kind::Ema, 0.6, 10});
        Series expected;
        withTask(one, [&](const TaskData& t) { smoothEma(t.loss, 0.6, expected); });
        QCOMPARE(float(allPoints(byStep, 0).back().y()), expected.lastY());

        // A store cleared for a new run: its derived line starts again.
        mirrored.clear();
        mirrored.ingest(kTask, makeEvent("hello", 50));
        mirrored.ingest(kTask, step({5, 52, 2.0, 10}));
        QCOMPARE(allPoints(byTime, 1), (QList<QPointF>{{2.0, 2.0}}));
        QCOMPARE(allPoints(byStep, 1).size(), 1);

        // A run of several tasks: its tasks' total.
        MetricsStore twoTasks;
        twoTasks.ingest("worker:0", step({10, 1, 1.0, 100}));
        twoTasks.ingest("worker:1", step({10, 1, 1.0, 50}, "worker:1"));
        ThroughputComparison total({{&twoTasks, "two"}});
        QCOMPARE(allPoints(total, 0), (QList<QPointF>{{10, 150}}));
    }
};

QTEST_GUILESS_MAIN(TestComparison)
#include "tst_comparison.moc"
