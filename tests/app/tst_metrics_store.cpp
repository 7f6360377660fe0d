// MetricsStore: a realistic event stream (docs/event-schema.md) lands field by field; two
// replicas; an evaluator's evaluations; failures (error event, crash without `done`, failure to start); bad lines
// logged and skipped; ingestion from another thread while reading; coalesced `updated`;
// progress and ETA; step records merged with the live windows (every step once, in order); where each task runs and an unreachable one, as the dashboard's task table
// and placement read them; each task's last step timelines from its records (the Timeline panel's).

#include "../event_deadline.h"
#include "app/metrics/event_parse.h"
#include "app/metrics/metrics_store.h"
#include "app/metrics/placement.h"
#include "app/metrics/recent_timeline.h"
#include "app/metrics/run_outcome.h"

#include "ps_job_events.h"

#include <QSignalSpy>
#include <QtTest>

#include <atomic>
#include <thread>

using namespace strata::app;

namespace {

const QString kTask = QStringLiteral("worker:0");

// A Mirrored run over two logical CPU devices, as strata-engine writes it.
const char* const kRun = R"(
{"v":1,"type":"hello","t":1763800000.0,"task":"worker:0","version":"0.1.0","schema":1,"host":"box","pid":4242,"devices":[{"name":"cpu:0","kind":"cpu","description":"AMD EPYC","cores":1,"logical_devices":2,"memory_bytes":25000000000},{"name":"cpu:1","kind":"cpu","description":"AMD EPYC","cores":1,"logical_devices":2,"memory_bytes":25000000000}],"blas":"oneDNN 2.6.3"}
{"v":1,"type":"start","t":1763800001.0,"task":"worker:0","experiment":"fashion-mnist-mlp","run_dir":"runs/fm-1","strategy":"Mirrored","replicas":2,"epochs":2,"steps_per_epoch":500,"total_steps":1000,"batch_size":64,"per_replica_batch_size":32,"params":101770,"train_examples":32000,"validation_examples":4000,"test_examples":10000,"resumed_from_step":null}
{"v":1,"type":"placement","t":1763800001.1,"task":"worker:0","strategy":"Mirrored","replicas":[{"replica":0,"device":"cpu:0","threads":1},{"replica":1,"device":"cpu:1","threads":1}],"per_replica_batch_size":32,"global_batch_size":64,"learning_rate":{"base":0.001,"scaled":0.001,"rule":"none"},"variables":[{"name":"dense/kernel","shape":[784,128],"bytes":401408,"devices":["cpu:0","cpu:1"]}],"reduction":{"algorithm":"all-reduce","cross_device_ops":"in-process","bytes_per_step":407080}}
{"v":1,"type":"step","t":1763800002.0,"task":"worker:0","step":100,"epoch":0,"steps":100,"loss":1.25,"replicas":[{"replica":0,"device":"cpu:0","loss":1.5,"samples":3200},{"replica":1,"device":"cpu:1","loss":1.0,"samples":3200}],"metrics":{"accuracy":0.5},"lr":0.001,"time_ms":{"step":10.0,"compute":8.0,"comm":1.5,"input":0.5},"samples_per_sec":6400}
{"v":1,"type":"device","t":1763800002.1,"task":"worker:0","step":100,"window_ms":1000,"devices":[{"device":"cpu:0","replica":0,"utilization":0.9,"busy_ms":900,"variable_bytes":407080},{"device":"cpu:1","replica":1,"utilization":0.8,"busy_ms":800,"variable_bytes":407080}],"process":{"rss_bytes":120000000,"peak_rss_bytes":130000000}}
{"v":1,"type":"step","t":1763800003.0,"task":"worker:0","step":200,"epoch":0,"steps":100,"loss":0.75,"replicas":[{"replica":0,"device":"cpu:0","loss":0.8,"samples":3200},{"replica":1,"device":"cpu:1","loss":0.7,"samples":3200}],"metrics":{"accuracy":0.7},"lr":0.001,"time_ms":{"step":9.0,"compute":7.0,"comm":1.0,"input":1.0},"samples_per_sec":7111}
{"v":1,"type":"checkpoint","t":1763800003.5,"task":"worker:0","step":200,"epoch":0,"path":"runs/fm-1/checkpoints/ckpt-200.strata","bytes":1221240,"ms":12.5}
{"v":1,"type":"log","t":1763800003.6,"task":"worker:0","level":"info","message":"checkpoint written"}
{"v":1,"type":"epoch","t":1763800004.0,"task":"worker:0","epoch":0,"epochs":2,"step":500,"train":{"loss":0.6,"accuracy":0.8},"validation":{"loss":0.55,"accuracy":0.82},"seconds":3.0}
{"v":1,"type":"done","t":1763800008.0,"task":"worker:0","status":"completed","steps":1000,"epochs":2,"run_dir":"runs/fm-1","train":{"loss":0.4,"accuracy":0.86},"validation":{"loss":0.45,"accuracy":0.84},"test":{"loss":0.46,"accuracy":0.85},"wall_seconds":7.0,"peak_rss_bytes":130000000}
)";

QByteArray stepLine(int64_t step, double t, double loss = 0.5)
{
    return QStringLiteral(R"({"v":1,"type":"step","t":%1,"task":"worker:0","step":%2,"epoch":0,"steps":10,"loss":%3,)"
                          R"("replicas":[{"replica":0,"device":"cpu:0","loss":%3,"samples":320}],"metrics":{"accuracy":0.5},)"
                          R"("lr":0.001,"time_ms":{"step":1.0,"compute":0.9,"comm":0.0,"input":0.1},"samples_per_sec":32000})")
               .arg(t, 0, 'f', 3)
               .arg(step)
               .arg(loss)
               .toUtf8()
           + '\n';
}

QByteArray startLine(int64_t totalSteps, double t)
{
    return QStringLiteral(R"({"v":1,"type":"start","t":%1,"task":"worker:0","experiment":"e","strategy":"OneDevice","replicas":1,"epochs":1,"steps_per_epoch":%2,"total_steps":%2,"batch_size":32})")
               .arg(t, 0, 'f', 3)
               .arg(totalSteps)
               .toUtf8()
           + '\n';
}

// A full-resolution step record (steps-<task>.jsonl) at `step`, ended at `t`; `metrics`: with
// the running accuracy, as the engine writes them now.
ParsedEvent record(int64_t step, double t, double loss, bool metrics = true)
{
    const QByteArray line =
        QStringLiteral(R"({"t":%1,"step":%2,"epoch":0,"loss":%3,"replica_loss":[%3],"samples":32,"lr":0.001,)"
                       R"("step_ms":1.5,"compute_ms":1.25,"comm_ms":0,"input_ms":0.25%4})")
            .arg(t, 0, 'f', 3)
            .arg(step)
            .arg(loss, 0, 'g', 17)
            .arg(metrics ? QStringLiteral(R"(,"metrics":{"accuracy":%1})").arg(double(step) / 1000, 0, 'g', 17) : QString())
            .toUtf8();
    return *EventParser::forThisThread().parseStepRecord(line.toStdString());
}

std::vector<ParsedEvent> records(int64_t from, int64_t to, bool metrics = true)
{
    std::vector<ParsedEvent> out;
    for (int64_t s = from; s <= to; ++s)
        out.push_back(record(s, 1000.0 + double(s) * 0.01, 3.0 / double(s), metrics));
    return out;
}

// A record of `step` with its timeline from `t0` (µs): a step span and a forward pass inside it.
ParsedEvent tracedRecord(int64_t step, int64_t t0)
{
    const QByteArray line = QStringLiteral(R"({"t":%1,"step":%2,"loss":1.5,"trace":{"t0":%3,"spans":)"
                                           R"([["step","step",0,900],["step","forward",100,500]]}})")
                                .arg(double(t0 + 900) / 1e6, 0, 'f', 6)
                                .arg(step)
                                .arg(t0)
                                .toUtf8();
    return *EventParser::forThisThread().parseStepRecord(line.toStdString());
}

std::vector<ParsedEvent> tracedRecords(int64_t from, int64_t to, int64_t t0 = 1'764'000'000'000'000)
{
    std::vector<ParsedEvent> out;
    for (int64_t s = from; s <= to; ++s)
        out.push_back(tracedRecord(s, t0 + (s - 1) * 1000));
    return out;
}

std::vector<ParsedEvent> events(const QByteArray& lines)
{
    std::vector<ParsedEvent> out;
    EventParser::forThisThread().parseLines(lines.constData(), size_t(lines.size()), out);
    return out;
}

// Every point's x, in order.
std::vector<double> xs(const Series& s)
{
    std::vector<double> out;
    for (int64_t i = 0; i < s.size(); ++i)
        out.push_back(s.x(i));
    return out;
}

std::vector<double> steps(int64_t from, int64_t to)
{
    std::vector<double> out;
    for (int64_t s = from; s <= to; ++s)
        out.push_back(double(s));
    return out;
}

template<typename Fn>
void withTask(const MetricsStore& store, const QString& task, Fn fn)
{
    bool found = false;
    store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
        for (const TaskData& td : tasks)
            if (td.task == task) {
                found = true;
                fn(td);
            }
    });
    QVERIFY2(found, qPrintable(task));
}

std::vector<LogEntry> logOf(const MetricsStore& store)
{
    std::vector<LogEntry> log;
    store.read([&](const std::vector<TaskData>&, const std::vector<LogEntry>& entries) { log = entries; });
    return log;
}

} // namespace

class TestMetricsStore : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void realisticRun()
    {
        MetricsStore store;
        QSignalSpy states(&store, &MetricsStore::taskStateChanged);
        store.ingestLines(kTask, QByteArray(kRun));
        QCOMPARE(store.eventCount(), int64_t(10));

        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Completed);
            QCOMPARE(td.hello.at("host").get<std::string>(), std::string("box"));
            QCOMPARE(td.start.at("strategy").get<std::string>(), std::string("Mirrored"));
            QCOMPARE(td.placement.at("reduction").at("algorithm").get<std::string>(), std::string("all-reduce"));
            QCOMPARE(td.done.at("test").at("accuracy").get<double>(), 0.85);
            QCOMPARE(td.totalSteps, int64_t(1000));
            QCOMPARE(td.step, int64_t(1000)); // `done` counts the steps
            QCOMPARE(td.firstEventTime, 1763800000.0);
            QCOMPARE(td.lastEventTime, 1763800008.0);
            QVERIFY(td.error.isEmpty());

            QCOMPARE(td.loss.size(), int64_t(2));
            QCOMPARE(td.loss.x(0), 100.0);
            QCOMPARE(td.loss.y(0), 1.25f);
            QCOMPARE(td.loss.x(1), 200.0);
            QCOMPARE(td.loss.y(1), 0.75f);
            QCOMPARE(td.samplesPerSec.y(1), 7111.0f);
            QCOMPARE(td.stepMs.y(0), 10.0f);
            QCOMPARE(td.computeMs.y(0), 8.0f);
            QCOMPARE(td.commMs.y(0), 1.5f);
            QCOMPARE(td.inputMs.y(1), 1.0f);
            QCOMPARE(td.wallSeconds.size(), int64_t(2));
            QCOMPARE(td.wallSeconds.y(0), 2.0f);
            QCOMPARE(td.wallSeconds.y(1), 3.0f);
            QCOMPARE(int(td.metrics.size()), 1);
            QCOMPARE(td.metrics.at(QStringLiteral("accuracy")).y(1), 0.7f);

            QCOMPARE(int(td.replicas.size()), 2);
            QCOMPARE(td.replicas[0].replica, 0);
            QCOMPARE(td.replicas[0].device, QStringLiteral("cpu:0"));
            QCOMPARE(td.replicas[1].device, QStringLiteral("cpu:1"));
            QCOMPARE(td.replicas[0].loss.y(0), 1.5f);
            QCOMPARE(td.replicas[1].loss.y(0), 1.0f);
            QCOMPARE(td.replicas[1].loss.y(1), 0.7f);
            QCOMPARE(td.replicas[1].samples.y(1), 3200.0f);

            QCOMPARE(int(td.devices.size()), 2);
            QCOMPARE(td.devices[0].device, QStringLiteral("cpu:0"));
            QCOMPARE(td.devices[0].utilization.y(0), 0.9f);
            QCOMPARE(td.devices[1].utilization.y(0), 0.8f);
            QCOMPARE(td.devices[1].variableBytes.y(0), 407080.0f);
            QCOMPARE(td.rssBytes.y(0), 120000000.0f);

            QCOMPARE(int(td.epochs.size()), 1);
            QCOMPARE(td.epochs[0].epoch, 0);
            QCOMPARE(td.epochs[0].step, int64_t(500));
            QCOMPARE(td.epochs[0].train.at("accuracy").get<double>(), 0.8);
            QCOMPARE(td.epochs[0].validation.at("loss").get<double>(), 0.55);
            QCOMPARE(td.epochs[0].seconds, 3.0);

            QCOMPARE(int(td.checkpoints.size()), 1);
            QCOMPARE(td.checkpoints[0].at("step").get<int>(), 200);
        });
        // The log tells the run's story in order: lifecycle events and the engine's own lines.
        const auto log = logOf(store);
        QStringList messages;
        for (const LogEntry& e : log) {
            QCOMPARE(e.level, QStringLiteral("info"));
            QCOMPARE(e.task, kTask);
            messages << e.message;
        }
        QCOMPARE(messages, (QStringList{
                               "engine 0.1.0 on box (pid 4242), devices: cpu:0, cpu:1",
                               "training fashion-mnist-mlp under Mirrored: 2 replica(s), 2 epoch(s) of 500 steps, "
                               "global batch 64",
                               "checkpoint at step 200: runs/fm-1/checkpoints/ckpt-200.strata",
                               "checkpoint written",
                               "epoch 1/2: loss 0.6000, accuracy 0.8000, val_loss 0.5500, val_accuracy 0.8200 (3.0 s)",
                               "completed 1000 steps in 7.0 s; test loss 0.4600, accuracy 0.8500",
                           }));
        QCOMPARE(log[0].time, 1763800000.0);
        // 23 points in series: loss, samples/s, 4 times, wall, accuracy (2 each = 16),
        // 2 replicas x (loss, samples) x 2 = 8, 2 devices x 2 + rss = 5.
        QCOMPARE(store.pointCount(), int64_t(16 + 8 + 5));
        QVERIFY(store.seriesBytes() > 0);

        QTRY_VERIFY_WITH_TIMEOUT(!states.isEmpty(), testing::kEventDeadlineMs);
        QCOMPARE(states.front().front().toString(), kTask);
        QCOMPARE(store.progress().fraction, 1.0);
        QCOMPARE(store.progress().etaSeconds, 0.0);
    }

    void placementCreatesReplicasBeforeSteps()
    {
        MetricsStore store;
        store.ingestLines(QStringLiteral("chief:0"), QByteArray(kRun).split('\n')[3] + '\n');
        withTask(store, QStringLiteral("chief:0"), [](const TaskData& td) {
            QCOMPARE(int(td.replicas.size()), 2);
            QCOMPARE(td.replicas[1].device, QStringLiteral("cpu:1"));
            QVERIFY(td.replicas[1].loss.empty());
            QCOMPARE(td.state, TaskState::Starting);
        });
    }

    void placeAndReachabilityInTheSummaries()
    {
        MetricsStore store;
        // A local task known by its engine's hello only; a remote one placed by the launcher.
        store.ingestLines(kTask, QByteArray(kRun).split('\n')[1] + '\n' + QByteArray(kRun).split('\n')[3] + '\n');
        const QString remote = QStringLiteral("worker:1");
        store.setTaskPlace(remote, "b", "198.18.1.2");
        store.ingestLines(remote, stepLine(10, 1000.0));
        store.setTaskReachable(remote, false, "worker:1 on b (198.18.1.2) is unreachable: no answer for 10 s.");
        QList<TaskSummary> tasks = taskSummaries(store);
        QCOMPARE(tasks.size(), qsizetype(2));
        QCOMPARE(tasks[0].place, QString("box"));
        QVERIFY(!tasks[0].unreachable);
        QCOMPARE(stateText(tasks[0]), QString("starting"));
        QCOMPARE(tasks[1].place, QString("b (198.18.1.2)"));
        QVERIFY(tasks[1].unreachable);
        QCOMPARE(stateText(tasks[1]), QString("unreachable"));
        QVERIFY(tasks[1].unreachableWhy.contains("no answer for 10 s"));
        QCOMPARE(placements(store).value(0).place, QString("box"));
        // Heard again: its own state, no why.
        store.setTaskReachable(remote, true, "worker:1 is followed again.");
        tasks = taskSummaries(store);
        QVERIFY(!tasks[1].unreachable);
        QVERIFY(tasks[1].unreachableWhy.isEmpty());
        QCOMPARE(stateText(tasks[1]), QString("running"));
        // A node named after its host shows the host once.
        store.setTaskPlace(kTask, "localhost", "localhost");
        QCOMPARE(taskSummaries(store)[0].place, QString("localhost"));
    }

    void stepsStartRunning()
    {
        MetricsStore store;
        store.ingestLines(kTask, stepLine(10, 1000.0));
        withTask(store, kTask, [](const TaskData& td) { QCOMPARE(td.state, TaskState::Running); });
    }

    void evaluatorsEvaluations()
    {
        // An evaluator task (MultiWorkerMirrored): its evaluations of the chief's checkpoints
        // become a series per metric at the checkpoints' steps, its progress, and log lines;
        // its end says how many it made (it wrote no checkpoint).
        MetricsStore store;
        const QString evaluator = QStringLiteral("evaluator:0");
        store.ingestLines(evaluator,
                          R"({"v":1,"type":"hello","t":1000,"task":"evaluator:0","version":"0.1.0","host":"box","pid":7})" "\n"
                          R"({"v":1,"type":"evaluation","t":1001,"task":"evaluator:0","step":40,"epoch":0,"checkpoint":"ckpt-40.strata","metrics":{"loss":0.5,"accuracy":0.8},"examples":150,"ms":12.4})" "\n"
                          R"({"v":1,"type":"evaluation","t":1002,"task":"evaluator:0","step":80,"epoch":1,"checkpoint":"model.weights","metrics":{"loss":0.25,"accuracy":0.9},"examples":150,"ms":11.6})" "\n"
                          R"({"v":1,"type":"done","t":1003,"task":"evaluator:0","status":"completed","evaluations":2})" "\n");
        withTask(store, evaluator, [](const TaskData& td) {
            QCOMPARE(td.evaluations, 2);
            QCOMPARE(td.evaluation.size(), size_t(2));
            const Series& loss = td.evaluation.at("loss");
            QCOMPARE(loss.size(), int64_t(2));
            QCOMPARE(loss.x(0), 40.0);
            QCOMPARE(loss.y(1), 0.25f);
            QCOMPARE(td.evaluation.at("accuracy").y(0), 0.8f);
            QCOMPARE(td.step, int64_t(80));
            QCOMPARE(td.state, TaskState::Completed);
            QVERIFY(td.checkpoints.empty());
        });
        QStringList lines;
        for (const LogEntry& e : logOf(store))
            lines << e.message;
        QVERIFY2(lines.contains("evaluated the checkpoint of step 80 (epoch 2): loss 0.2500, accuracy 0.9000 "
                                "(150 examples, 12 ms)"),
                 qPrintable(lines.join('\n')));
        QCOMPARE(lines.back(), QString("completed 2 evaluation(s)"));

        MetricsStore stopped;
        stopped.ingestLines(evaluator,
                            R"({"v":1,"type":"done","t":1003,"task":"evaluator:0","status":"stopped","evaluations":0})" "\n");
        QCOMPARE(logOf(stopped).back().message, QString("stopped after 0 evaluation(s)"));
    }

    void stoppedRun()
    {
        MetricsStore store;
        store.ingestLines(kTask, stepLine(10, 1000.0)
                                     + R"({"v":1,"type":"done","t":1001,"task":"worker:0","status":"stopped","steps":10})"
                                     + "\n");
        store.taskEnded(kTask, 0, false, QString());
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Stopped);
            QVERIFY(td.exited);
        });
    }

    void errorEventFails()
    {
        MetricsStore store;
        QSignalSpy states(&store, &MetricsStore::taskStateChanged);
        QSignalSpy logs(&store, &MetricsStore::logAppended);
        store.ingestLines(kTask, stepLine(10, 1000.0)
                                     + R"({"v":1,"type":"error","t":1001,"task":"worker:0","kind":"numeric","message":"loss became NaN at step 11","fatal":true})"
                                     + "\n");
        store.taskEnded(kTask, 1, false, QStringLiteral("strata-engine: loss became NaN\n"));
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QCOMPARE(td.error, QStringLiteral("loss became NaN at step 11")); // the engine's word kept
            QCOMPARE(td.exitCode, 1);
            QVERIFY(!td.crashed);
            QCOMPARE(td.loss.size(), int64_t(1)); // what came before is kept
        });
        const auto log = logOf(store);
        QVERIFY(log.size() >= 1);
        QCOMPARE(log[0].level, QStringLiteral("error"));
        QCOMPARE(log[0].message, QStringLiteral("loss became NaN at step 11"));
        QCOMPARE(log.back().message, QStringLiteral("worker:0 exited with status 1:\nstrata-engine: loss became NaN"));
        QVERIFY(!states.isEmpty()); // emitted at once on the store's thread
        QVERIFY(!logs.isEmpty());
    }

    // The engine's stderr repeats its error event's message: the exit's line does not again.
    void anErrorAlreadyReportedIsNotRepeatedByTheExit()
    {
        MetricsStore store;
        store.ingestLines(kTask, R"j({"v":1,"type":"error","t":1001,"task":"worker:0","kind":"config","message":"seed: 42 (checkpoint) vs 43 (experiment)","fatal":true})j"
                                 "\n");
        store.taskEnded(kTask, 2, false, QStringLiteral("strata-engine: error: seed: 42 (checkpoint) vs 43 (experiment)\n"));
        const auto log = logOf(store);
        QCOMPARE(log.size(), qsizetype(2));
        QCOMPARE(log[0].message, QStringLiteral("seed: 42 (checkpoint) vs 43 (experiment)"));
        QCOMPARE(log[1].message, QStringLiteral("worker:0 exited with status 2"));
        withTask(store, kTask, [](const TaskData& td) { QCOMPARE(td.error, QStringLiteral("seed: 42 (checkpoint) vs 43 (experiment)")); });
    }

    void configErrorListsProblems()
    {
        MetricsStore store;
        store.ingestLines(kTask, R"({"v":1,"type":"error","t":1,"task":"worker:0","kind":"config","message":"2 problems in e.strata.json","fatal":true,"problems":[{"path":"training.epochs","message":"must be at least 1"},{"path":"model.layers[0].units","message":"missing"}]})");
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QVERIFY(td.error.startsWith(QStringLiteral("2 problems in e.strata.json")));
            QVERIFY(td.error.contains(QStringLiteral("training.epochs: must be at least 1")));
            QVERIFY(td.error.contains(QStringLiteral("model.layers[0].units: missing")));
        });
    }

    void nonFatalErrorIsLogged()
    {
        MetricsStore store;
        store.ingestLines(kTask, stepLine(10, 1000.0)
                                     + R"({"v":1,"type":"error","t":1001,"task":"worker:0","kind":"io","message":"cannot write","fatal":false})");
        withTask(store, kTask, [](const TaskData& td) { QCOMPARE(td.state, TaskState::Running); });
        QCOMPARE(logOf(store).back().level, QStringLiteral("error"));
    }

    void killedWithoutDone()
    {
        MetricsStore store;
        store.ingestLines(kTask, stepLine(10, 1000.0) + stepLine(20, 1001.0));
        store.taskEnded(kTask, 9, true, QStringLiteral("Epoch 1/5\n  20/1875 [....]\n"));
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QVERIFY2(td.error.startsWith(QStringLiteral("worker:0 was killed by signal 9")), qPrintable(td.error));
            QVERIFY(td.error.contains(QStringLiteral("20/1875"))); // the stderr tail
            QVERIFY(td.crashed);
            QVERIFY(td.exited);
            QCOMPARE(td.loss.size(), int64_t(2));
        });

        MetricsStore exited;
        exited.ingestLines(kTask, stepLine(10, 1000.0));
        exited.taskEnded(kTask, 1, false, QString());
        withTask(exited, kTask, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QCOMPARE(td.error, QStringLiteral("worker:0 exited with status 1"));
        });
    }

    void endedAfterDoneKeepsState()
    {
        MetricsStore store;
        store.ingestLines(kTask, QByteArray(kRun));
        store.taskEnded(kTask, 0, false, QString());
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Completed);
            QVERIFY(td.error.isEmpty());
        });
    }

    void failedToStart()
    {
        MetricsStore store;
        store.taskFailedToStart(QStringLiteral("worker:1"), QStringLiteral("strata-engine not found at /opt/strata/bin"));
        withTask(store, QStringLiteral("worker:1"), [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Failed);
            QCOMPARE(td.error, QStringLiteral("strata-engine not found at /opt/strata/bin"));
        });
        QCOMPARE(logOf(store).back().level, QStringLiteral("error"));
    }

    void garbageLinesAreLoggedAndSkipped()
    {
        MetricsStore store;
        const QByteArray garbage = "Segmentation fault in something that is definitely not JSON and goes on for well "
                                   "over eighty characters of text";
        store.ingestLines(kTask, stepLine(10, 1000.0) + garbage + "\n[1, 2, 3]\n\r\n" + stepLine(20, 1001.0)
                                     + "{\"v\":1,\"type\":\"step\",\"ste");
        QCOMPARE(store.eventCount(), int64_t(2));
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.loss.size(), int64_t(2));
            QCOMPARE(td.loss.x(1), 20.0);
        });
        const auto log = logOf(store);
        QCOMPARE(int(log.size()), 3); // the garbage, the array, the truncated line
        for (const LogEntry& e : log) {
            QCOMPARE(e.level, QStringLiteral("warning"));
            QCOMPARE(e.task, kTask);
            QVERIFY(e.message.contains(kTask));
        }
        QVERIFY(log[0].message.contains(QString::fromUtf8(garbage.left(80))));
        QVERIFY(!log[0].message.contains(QString::fromUtf8(garbage.left(81))));
        QVERIFY(log[1].message.contains(QStringLiteral("[1, 2, 3]")));
    }

    void wrongFieldTypesKeepTheRest()
    {
        MetricsStore store;
        store.ingestLines(kTask, R"({"v":1,"type":"step","t":5,"task":"worker:0","step":3,"loss":"high","replicas":"none","metrics":{"accuracy":0.5,"note":"x"},"time_ms":7})");
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.step, int64_t(3));
            QVERIFY(td.loss.empty());
            QCOMPARE(td.metrics.at(QStringLiteral("accuracy")).size(), int64_t(1));
            QCOMPARE(int(td.metrics.size()), 1);
        });
    }

    // Events lacking fields (an older engine's, a hand-made run's) read with the store's
    // fallbacks: a start without its schedule keeps the one known, an epoch without its step
    // takes the task's, and the log says "?" and one replica for what `start` does not say.
    void eventsLackingFieldsKeepTheStoresFallbacks()
    {
        MetricsStore store;
        store.ingestLines(kTask, startLine(300, 1) + stepLine(120, 2)
                                     + R"({"v":1,"type":"start","t":3,"task":"worker:0","resumed_from_step":100})" "\n"
                                     + R"({"v":1,"type":"epoch","t":4,"task":"worker:0","epoch":0,"train":{"loss":0.5}})" "\n");
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.totalSteps, int64_t(300));
            QCOMPARE(int(td.epochs.size()), 1);
            QCOMPARE(td.epochs[0].epoch, 0);
            QCOMPARE(td.epochs[0].step, int64_t(120));
            QCOMPARE(td.epochs[0].train.at("loss").get<double>(), 0.5);
            QVERIFY(td.epochs[0].validation.is_null());
            QCOMPARE(td.epochs[0].seconds, 0.0);
        });
        QStringList messages;
        for (const LogEntry& e : logOf(store))
            messages << e.message;
        QCOMPARE(messages, (QStringList{
                               "training e under OneDevice: 1 replica(s), 1 epoch(s) of 300 steps, global batch 32",
                               "training ? under ?: 1 replica(s), 0 epoch(s) of 0 steps, global batch 0, resumed from "
                               "the checkpoint at step 100",
                               "epoch 1/0: loss 0.5000 (0.0 s)",
                           }));
    }

    void ingestFromAnotherThread()
    {
        MetricsStore store;
        QSignalSpy updated(&store, &MetricsStore::updated);
        const int batches = 200, perBatch = 50;
        std::atomic<bool> finished{false};
        std::thread producer([&] {
            int64_t step = 0;
            for (int b = 0; b < batches; ++b) {
                QByteArray lines;
                for (int i = 0; i < perBatch; ++i) {
                    ++step;
                    lines += stepLine(step, 1000.0 + double(step) * 0.01);
                }
                store.ingestLines(kTask, lines);
            }
            finished = true;
        });
        // Read while it writes: every read sees a consistent, growing store.
        int64_t lastSize = 0;
        int reads = 0;
        while (!finished) {
            store.read([&](const std::vector<TaskData>& tasks, const std::vector<LogEntry>&) {
                if (tasks.empty())
                    return; // nothing arrived yet
                const TaskData& td = tasks.front();
                QVERIFY(td.loss.size() >= lastSize);
                lastSize = td.loss.size();
                QCOMPARE(td.replicas.size(), size_t(1));
                QCOMPARE(td.replicas[0].loss.size(), td.loss.size()); // whole events only
                if (!td.loss.empty())
                    QCOMPARE(td.loss.lastX(), double(td.loss.size()));
            });
            store.progress();
            QCoreApplication::processEvents();
            ++reads;
        }
        producer.join();
        QCOMPARE(store.eventCount(), int64_t(batches * perBatch));
        withTask(store, kTask, [&](const TaskData& td) {
            QCOMPARE(td.loss.size(), int64_t(batches * perBatch));
            QCOMPARE(td.replicas[0].loss.size(), int64_t(batches * perBatch));
        });
        QVERIFY(reads > 0);
        // The notifications requested by the producer thread arrive on this thread.
        QTRY_VERIFY_WITH_TIMEOUT(!updated.isEmpty(), testing::kEventDeadlineMs);
    }

    void updatedIsCoalesced()
    {
        MetricsStore store;
        store.setNotifyInterval(40);
        QSignalSpy updated(&store, &MetricsStore::updated);
        QElapsedTimer clock;
        clock.start();
        int64_t step = 0;
        // 1000 ingests within a short time: a handful of signals, not 1000.
        for (int i = 0; i < 1000; ++i) {
            store.ingestLines(kTask, stepLine(++step, 1000.0));
            if (i % 100 == 0)
                QCoreApplication::processEvents();
        }
        QTest::qWait(150);
        const qint64 ms = clock.elapsed();
        QVERIFY(updated.count() >= 1);
        QVERIFY2(updated.count() <= ms / 40 + 2, qPrintable(QString::number(updated.count())));
        const int before = updated.count();
        QTest::qWait(100);
        QCOMPARE(updated.count(), before); // nothing new: no signal

        // From another thread too.
        std::thread producer([&] {
            for (int i = 0; i < 500; ++i)
                store.ingestLines(kTask, stepLine(++step, 1000.0));
        });
        producer.join();
        QTRY_VERIFY_WITH_TIMEOUT(updated.count() > before, testing::kEventDeadlineMs);
        QTest::qWait(100);
        QVERIFY(updated.count() <= before + 2);
    }

    void progressAndEta()
    {
        MetricsStore store;
        QCOMPARE(store.progress().etaSeconds, -1.0);
        QByteArray lines = startLine(1000, 1000.0);
        // 0.5 s per 10 steps: 0.05 s per step.
        for (int i = 1; i <= 20; ++i)
            lines += stepLine(i * 10, 1000.0 + i * 0.5);
        store.ingestLines(kTask, lines);
        Progress p = store.progress();
        QCOMPARE(p.step, int64_t(200));
        QCOMPARE(p.totalSteps, int64_t(1000));
        QCOMPARE(p.fraction, 0.2);
        QVERIFY2(std::abs(p.etaSeconds - 800 * 0.05) < 1e-3, qPrintable(QString::number(p.etaSeconds)));
        QVERIFY(p.elapsedSeconds > 0); // running: measured against now

        // The rate is the recent one: a slowdown to 0.2 s per step shows at once.
        lines.clear();
        for (int i = 21; i <= 40; ++i)
            lines += stepLine(i * 10, 1010.0 + (i - 20) * 2.0);
        store.ingestLines(kTask, lines);
        p = store.progress();
        QCOMPARE(p.step, int64_t(400));
        QVERIFY2(std::abs(p.etaSeconds - 600 * 0.2) < 1e-2, qPrintable(QString::number(p.etaSeconds)));

        // A second task further behind does not lower the step; the slowest sets the ETA.
        store.ingestLines(QStringLiteral("worker:1"), startLine(1000, 1000.0) + stepLine(100, 1001.0) + stepLine(110, 1011.0));
        p = store.progress();
        QCOMPARE(p.step, int64_t(400));
        QVERIFY2(std::abs(p.etaSeconds - 890 * 1.0) < 1e-2, qPrintable(QString::number(p.etaSeconds)));

        // Finished: elapsed from the first to the last event, nothing left.
        store.taskEnded(QStringLiteral("worker:1"), 9, true, QString());
        store.ingestLines(kTask, R"({"v":1,"type":"done","t":1060,"task":"worker:0","status":"completed","steps":1000})");
        store.taskEnded(kTask, 0, false, QString());
        p = store.progress();
        QCOMPARE(p.step, int64_t(1000));
        QCOMPARE(p.fraction, 1.0);
        QCOMPARE(p.elapsedSeconds, 60.0);
    }

    void stepRecordsGiveEveryStep()
    {
        // As the launcher hands them over: each read of the task's stdout with the records its
        // steps file gained meanwhile (ahead of the live windows, which the engine writes after
        // the records they cover). Every step is drawn once, from its record, in step order; the
        // windows give samples/s and their samples only.
        MetricsStore store;
        const QByteArray hello = R"({"v":1,"type":"hello","t":999.5,"task":"worker:0"})"
                                 "\n";
        store.ingest(kTask, events(hello + startLine(30, 999.9) + stepLine(10, 1000.1, 9)), records(1, 13));
        store.ingest(kTask, events(stepLine(20, 1000.2, 9)), records(14, 25));
        store.ingest(kTask, events(stepLine(30, 1000.3, 9)), records(26, 30));
        QCOMPARE(store.recordCount(), int64_t(30));
        QCOMPARE(store.eventCount(), int64_t(5));
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(td.step, int64_t(30));
            QCOMPARE(td.records.count, int64_t(30));
            for (const Series* s : {&td.loss, &td.stepMs, &td.computeMs, &td.commMs, &td.inputMs, &td.wallSeconds,
                                    &td.replicas.at(0).loss, &td.metrics.at("accuracy")})
                QCOMPARE(xs(*s), steps(1, 30));
            for (int64_t i = 0; i < 30; ++i) {
                QCOMPARE(td.loss.y(i), float(3.0 / double(i + 1))); // the record's, not the window's 9
                QCOMPARE(td.replicas[0].loss.y(i), td.loss.y(i));
                QCOMPARE(td.metrics.at("accuracy").y(i), float(double(i + 1) / 1000));
                QCOMPARE(td.stepMs.y(i), 1.5f);
                // Seconds since the task's first event (its hello), when the step ended.
                QVERIFY(std::abs(td.wallSeconds.y(i) - (0.5f + float(i + 1) * 0.01f)) < 1e-4f);
            }
            QCOMPARE(xs(td.samplesPerSec), (std::vector<double>{10, 20, 30}));
            QCOMPARE(xs(td.replicas[0].samples), (std::vector<double>{10, 20, 30}));
        });
        // 30 steps x 8 per-step series, plus 3 windows x 2.
        QCOMPARE(store.pointCount(), int64_t(30 * 8 + 3 * 2));
    }

    void liveStepsFillInWhereRecordsAreMissing()
    {
        // No records yet (a remote task's, or an engine before them): the windows are drawn.
        // Records that come later at or before a step already drawn are skipped, the others
        // drawn: each series stays in step order, no step twice.
        MetricsStore store;
        store.ingest(kTask, events(startLine(40, 999.0) + stepLine(10, 1000.1, 0.9) + stepLine(20, 1000.2, 0.8)), {});
        store.ingest(kTask, {}, records(1, 25));
        store.ingest(kTask, events(stepLine(30, 1000.3, 0.7)), records(26, 30));
        // Records stop (the file cannot be read): the windows go on beyond the last record.
        store.ingest(kTask, events(stepLine(40, 1000.4, 0.6)), {});
        withTask(store, kTask, [](const TaskData& td) {
            const std::vector<double> expected{10, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 40};
            QCOMPARE(xs(td.loss), expected);
            QCOMPARE(xs(td.metrics.at("accuracy")), expected);
            QCOMPARE(xs(td.replicas.at(0).loss), expected);
            QCOMPARE(td.loss.y(0), 0.9f);
            QCOMPARE(td.loss.y(2), float(3.0 / 21));
            QCOMPARE(td.loss.y(12), 0.6f);
            QCOMPARE(td.records.count, int64_t(10));
            QCOMPARE(td.step, int64_t(40));
        });
    }

    void recordsWithoutMetricsLeaveThemToTheWindows()
    {
        // Records of an engine before they carried the metrics: the loss from them, the
        // accuracy from the windows.
        MetricsStore store;
        store.ingest(kTask, events(startLine(20, 999.0) + stepLine(10, 1000.1)), records(1, 10, false));
        store.ingest(kTask, events(stepLine(20, 1000.2)), records(11, 20, false));
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(xs(td.loss), steps(1, 20));
            QCOMPARE(xs(td.metrics.at("accuracy")), (std::vector<double>{10, 20}));
        });
    }

    void aResumedSessionsRepeatedStepsAreSkipped()
    {
        // Resumed from the checkpoint at step 12 after reaching 20: steps 13..20 come again
        // (with the same values), drawn once.
        MetricsStore store;
        store.ingest(kTask, events(startLine(30, 999.0)), records(1, 20));
        store.ingest(kTask, {}, records(13, 30));
        withTask(store, kTask, [](const TaskData& td) {
            QCOMPARE(xs(td.loss), steps(1, 30));
            QCOMPARE(td.records.count, int64_t(30));
        });
    }

    // Each task's last 64 steps' timelines, from its records, whatever the series take of them
    // (a resumed session's repeated steps: the later run kept); the Timeline panel's tasks in
    // natural order; a record without a timeline adds none.
    void stepTimelinesFromRecords()
    {
        MetricsStore store;
        store.ingest("worker:10", {}, tracedRecords(1, 100));
        store.ingest("worker:2", {}, tracedRecords(1, 3));
        store.ingest("worker:3", {}, records(1, 3)); // an engine that records no timeline
        withTask(store, "worker:10", [](const TaskData& td) {
            QCOMPARE(td.traces.size(), StepTraceRing::kKept);
            QCOMPARE(td.traces.newest().step, 100);
            QCOMPARE(td.traces.newest().t0Us, 1'764'000'000'000'000 + 99 * 1000);
            QCOMPARE(td.traces.newest().spans.size(), size_t(2));
            QCOMPARE(td.traces.newest().spans[1].name, "forward");
        });
        withTask(store, "worker:3", [](const TaskData& td) { QVERIFY(td.traces.empty()); });
        // Resumed from step 60's checkpoint, later: its steps 61.. replace the first run's.
        store.ingest("worker:10", {}, tracedRecords(61, 70, 1'764'000'100'000'000));
        withTask(store, "worker:10", [](const TaskData& td) {
            QCOMPARE(td.traces.newest().step, 70);
            QCOMPARE(td.traces.newest().t0Us, 1'764'000'100'000'000 + 69 * 1000);
            QCOMPARE(td.traces.at(td.traces.size() - 11).step, 60);
            QCOMPARE(td.records.count, int64_t(100)); // the series skip the repeated steps
        });
        const Timeline t = recentTimeline(store, {.steps = 2});
        QCOMPARE(t.tasks.size(), size_t(2));
        QCOMPARE(t.tasks[0].task, "worker:2");
        QCOMPARE(t.tasks[1].task, "worker:10");
        QCOMPARE(t.followStep, 69); // worker:10's last two; worker:2 stopped long before
        QCOMPARE(t.referenceTask, 1);
        store.clear();
        QVERIFY(recentTimeline(store, {}).empty());
    }

    void clearForgets()
    {
        MetricsStore store;
        store.ingestLines(kTask, QByteArray(kRun));
        store.clear();
        QCOMPARE(store.eventCount(), int64_t(0));
        QCOMPARE(store.pointCount(), int64_t(0));
        store.read([](const std::vector<TaskData>& tasks, const std::vector<LogEntry>& log) {
            QVERIFY(tasks.empty());
            QVERIFY(log.empty());
        });
    }
    // A ParameterServer job (ps_job_events.h): each worker's points at the global step, its
    // own steps as its progress, its staleness; the coordinator's view of the workers and the
    // members it lost and saw join, logged; each ps task's traffic over its seconds.
    void parameterServerJob()
    {
        MetricsStore store;
        QSignalSpy states(&store, &MetricsStore::taskStateChanged);
        apptest::feedParameterServerJob(store);
        withTask(store, "worker:1", [](const TaskData& td) {
            QCOMPARE(td.step, int64_t(9));
            QCOMPARE(td.samplesPerSec.size(), int64_t(2));
            QCOMPARE(td.samplesPerSec.x(0), 9.0);
            QCOMPARE(td.samplesPerSec.x(1), 20.0);
            QCOMPARE(td.samplesPerSec.y(1), 300.0f);
            QCOMPARE(td.stepMs.y(0), 123.0f);
            QCOMPARE(td.computeMs.y(1), 80.0f);
            QCOMPARE(td.commMs.y(1), 27.0f);
            QCOMPARE(td.stalenessMean.y(1), 1.2f);
            QCOMPARE(td.stalenessMax.x(1), 20.0);
            QCOMPARE(td.stalenessMax.y(1), 2.0f);
            QCOMPARE(td.replicas.size(), size_t(1));
            QCOMPARE(td.replicas[0].device, QString("worker:1/cpu:0"));
            QCOMPARE(td.state, TaskState::Running);
        });
        withTask(store, "chief:0", [](const TaskData& td) {
            QCOMPARE(td.step, int64_t(20));
            QCOMPARE(td.totalSteps, int64_t(100));
            QCOMPARE(td.samplesPerSec.y(1), 700.0f);
            QCOMPARE(td.workers.size(), size_t(2));
            QCOMPARE(td.workers[1].task, QString("worker:1"));
            QCOMPARE(td.workers[1].steps, int64_t(9));
            QCOMPARE(td.workers[1].samplesPerSec, 300.0);
            QCOMPARE(td.workers[1].stalenessMean, 1.2);
            QCOMPARE(td.workers[1].state, QString("waiting"));
            QCOMPARE(td.membership.size(), size_t(3));
            QCOMPARE(td.membership[0].member, QString("worker:1"));
            QVERIFY(td.membership[0].lost);
            QCOMPARE(td.membership[0].reason, QString("unheard for 3.0 s"));
            QCOMPARE(td.membership[0].time, 1001.5);
            QVERIFY(!td.membership[1].lost);
            QVERIFY(td.membership[2].lost);
        });
        withTask(store, "ps:0", [](const TaskData& td) {
            QCOMPARE(td.state, TaskState::Running);
            QCOMPARE(td.bytesInPerSec.size(), int64_t(2));
            QCOMPARE(td.bytesInPerSec.x(0), 1.0); // seconds since its hello
            QCOMPARE(td.bytesInPerSec.y(1), 804864.0f);
            QCOMPARE(td.bytesOutPerSec.y(1), 1006080.0f);
            QCOMPARE(td.updatesPerSec.y(1), 4.0f);
            QCOMPARE(td.ps.at("refused").get<int>(), 1);
        });
        store.read([](const std::vector<TaskData>&, const std::vector<LogEntry>& log) {
            QStringList membership;
            for (const LogEntry& e : log)
                if (e.task == "chief:0" && (e.message.startsWith("lost ") || e.message.endsWith(" joined")))
                    membership << e.level + ": " + e.message;
            QCOMPARE(membership, QStringList({"warning: lost worker:1: unheard for 3.0 s", "info: worker:1 joined",
                                              "warning: lost worker:0: unheard for 3.0 s"}));
        });
        // The members' rows are told.
        QVERIFY(std::any_of(states.begin(), states.end(), [](const QList<QVariant>& a) { return a[0].toString() == "worker:0"; }));
        QVERIFY(store.pointCount() > 0);
    }

    // A ps task trains no steps: its summary says what it applied.
    void parameterServerTaskSummary()
    {
        MetricsStore store;
        store.ingestLines("ps:0", R"({"v":1,"type":"hello","t":1000.0,"task":"ps:0","version":"0.1.0","host":"h"}
{"v":1,"type":"done","t":1010.0,"task":"ps:0","status":"completed","updates":1875,"pulls":1875,"refused":0}
)");
        QCOMPARE(outcomeSummary(store), QString("ps:0 completed (1875 updates applied)"));
    }

    // 64 workers that ended alike are said once (the window's banner has room for that), those
    // that did not each; three alike are still named each.
    void manyTasksEndedAlikeAreSaidOnce()
    {
        MetricsStore store;
        const auto done = [&](const QString& task, double loss) {
            store.ingestLines(task, QStringLiteral(R"({"v":1,"type":"done","t":1010.0,"task":"%1","status":"completed","steps":60,)"
                                                   R"("test":{"loss":%2,"accuracy":1.0}})")
                                        .arg(task)
                                        .arg(loss)
                                        .toUtf8() + '\n');
        };
        for (int w = 0; w < 64; ++w)
            done(QStringLiteral("worker:%1").arg(w), w == 5 ? 0.25 : 0.5);
        QCOMPARE(outcomeSummary(store), QString::fromUtf8("63 tasks (worker:0 … worker:63) completed: test loss 0.5000, "
                                                          "accuracy 1.0000; worker:5 completed: test loss 0.2500, accuracy 1.0000"));
        MetricsStore three;
        for (int w = 0; w < 3; ++w)
            three.ingestLines(QStringLiteral("worker:%1").arg(w),
                              QStringLiteral(R"({"v":1,"type":"done","t":1010.0,"task":"worker:%1","status":"completed","steps":60,"test":{"loss":0.5}})")
                                      .arg(w)
                                      .toUtf8() + '\n');
        QCOMPARE(outcomeSummary(three), QString("worker:0 completed: test loss 0.5000; worker:1 completed: test loss 0.5000; "
                                                "worker:2 completed: test loss 0.5000"));
    }
};

QTEST_GUILESS_MAIN(TestMetricsStore)
#include "tst_metrics_store.moc"
