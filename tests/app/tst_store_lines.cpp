// StoreLines: the dashboard's lines read from a MetricsStore fed with engine events: names
// and order, every replica's points, the total throughput of several workers (only where
// every worker has reported; an evaluator's evaluations apart), smoothing equal to the Series smoothers and kept incrementally,
// a new run (store cleared) starting afresh; and the CSV export of a plot's lines.

#include "app/metrics/plot_csv.h"
#include "app/metrics/store_lines.h"

#include "ps_job_events.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace strata::app;

namespace {

Json step(const char* task, int64_t step, std::vector<double> replicaLosses, double samplesPerSec)
{
    Json replicas = Json::array();
    for (size_t r = 0; r < replicaLosses.size(); ++r)
        replicas.push_back({{"replica", r}, {"device", "cpu:" + std::to_string(r)}, {"loss", replicaLosses[r]},
                            {"samples", 320}});
    return {{"v", 1}, {"type", "step"}, {"t", 1000.0 + double(step)}, {"task", task}, {"step", step},
            {"loss", replicaLosses.front()}, {"replicas", replicas},
            {"time_ms", {{"step", 10.0}, {"compute", 8.0}, {"comm", 1.5}, {"input", 0.5}}},
            {"samples_per_sec", samplesPerSec}};
}

Json device(const char* task, int64_t step, int devices)
{
    Json list = Json::array();
    for (int d = 0; d < devices; ++d)
        list.push_back({{"device", "cpu:" + std::to_string(d)}, {"replica", d}, {"utilization", 0.5 + 0.1 * d},
                        {"variable_bytes", 4096}});
    return {{"v", 1}, {"type", "device"}, {"t", 1000.0}, {"task", task}, {"step", step}, {"devices", list},
            {"process", {{"rss_bytes", 1 << 20}}}};
}

QStringList lineNames(const PlotSource& source)
{
    QStringList names;
    for (int i = 0; i < source.lineCount(); ++i)
        names << source.lineName(i);
    return names;
}

QList<QPointF> allPoints(const PlotSource& source, int line)
{
    QList<QPointF> points;
    source.forEachPoint(line, [&](double x, double y) { points.append({x, y}); });
    return points;
}

} // namespace

class TestStoreLines : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void replicaLossHasALinePerReplica();
    void stepTimeAndDevicesLines();
    void totalThroughputWhereEveryWorkerReported();
    void anEvaluatorDrawsItsEvaluationsOnly();
    void smoothingMatchesTheSmoothersIncrementally();
    void aNewRunStartsAfresh();
    void csvHasEveryPointMergedByX();
    void csvReportsAnUnwritablePath();
    void parameterServerJobLines();
};

void TestStoreLines::replicaLossHasALinePerReplica()
{
    MetricsStore store;
    ReplicaLossLines lines(store);
    QCOMPARE(lines.lineCount(), 0);
    QVERIFY(lines.bounds().isNull());
    for (int s = 1; s <= 50; ++s)
        store.ingest("worker:0", step("worker:0", s * 10, {1.0 / s, 2.0 / s}, 1000));
    QCOMPARE(lines.lineCount(), 2);
    QCOMPARE(lines.lineName(0), QString("replica 0 (cpu:0)"));
    QCOMPARE(lines.lineName(1), QString("replica 1 (cpu:1)"));
    QCOMPARE(lines.pointCount(0), 50);
    QCOMPARE(lines.pointCount(1), 50);
    const QList<QPointF> second = allPoints(lines, 1);
    QCOMPARE(second.front(), QPointF(10, 2.0));
    QCOMPARE(second.back().x(), 500.0);
    QCOMPARE(float(second.back().y()), float(2.0 / 50));
    const QRectF b = lines.bounds();
    QCOMPARE(b.left(), 10.0);
    QCOMPARE(b.right(), 500.0);
    QCOMPARE(float(b.top()), float(1.0 / 50));
    QCOMPARE(float(b.bottom()), 2.0f);
    // Decimated for 5 columns: at most first/min/max/last per column, with the ends kept.
    Series::Reduction drawn;
    QVERIFY(lines.decimated(0, 10, 500, 5, drawn));
    QVERIFY(drawn.points.size() <= 20);
    QCOMPARE(drawn.points.front().x(), 10.0);
    QCOMPARE(drawn.points.back().x(), 500.0);
    QVERIFY(!lines.decimated(0, 10, 500, 5, drawn)); // nothing new
    QVERIFY(lines.decimated(7, 0, 1, 5, drawn)); // no such line
    QVERIFY(drawn.points.isEmpty());
}

void TestStoreLines::stepTimeAndDevicesLines()
{
    MetricsStore store;
    StepTimeLines times(store);
    DeviceUtilizationLines utilization(store);
    DeviceMemoryLines memory(store);
    store.ingest("worker:0", step("worker:0", 10, {1.0, 1.0}, 1000));
    store.ingest("worker:0", device("worker:0", 10, 2));
    QCOMPARE(times.lineCount(), 3);
    QCOMPARE(times.lineName(0), QString("compute"));
    QCOMPARE(times.lineName(1), QString("gradient reduction"));
    QCOMPARE(times.lineName(2), QString("input wait"));
    QCOMPARE(allPoints(times, 1).front(), QPointF(10, 1.5));
    QCOMPARE(utilization.lineCount(), 2);
    QCOMPARE(utilization.lineName(1), QString("cpu:1"));
    QCOMPARE(float(allPoints(utilization, 1).front().y()), 0.6f);
    QCOMPARE(memory.lineCount(), 3);
    QCOMPARE(memory.lineName(0), QString("cpu:0 variables"));
    QCOMPARE(memory.lineName(2), QString("process (resident)"));
    QCOMPARE(allPoints(memory, 2).front(), QPointF(10, 1 << 20));

    // With a second task, names say whose line it is.
    store.ingest("worker:1", step("worker:1", 10, {1.0}, 1000));
    QCOMPARE(times.lineCount(), 6);
    QCOMPARE(times.lineName(3), QString("worker:1 compute"));
    ReplicaLossLines loss(store);
    QCOMPARE(loss.lineName(0), QString("worker:0 replica 0 (cpu:0)"));
    QCOMPARE(loss.lineName(2), QString("worker:1 replica 0 (cpu:0)"));
}

void TestStoreLines::totalThroughputWhereEveryWorkerReported()
{
    MetricsStore store;
    ThroughputLines lines(store);
    store.ingest("worker:0", step("worker:0", 10, {1.0}, 100));
    QCOMPARE(lines.lineCount(), 1); // one worker: it is the total
    store.ingest("worker:1", step("worker:1", 10, {1.0}, 50));
    store.ingest("worker:0", step("worker:0", 20, {1.0}, 110));
    store.ingest("worker:0", step("worker:0", 30, {1.0}, 120));
    QCOMPARE(lines.lineCount(), 3);
    QCOMPARE(lines.lineName(2), QString("total"));
    // worker:1 has reported up to step 10 only: the total stops there.
    QCOMPARE(allPoints(lines, 2), (QList<QPointF>{{10, 150}}));
    store.ingest("worker:1", step("worker:1", 20, {1.0}, 60));
    store.ingest("worker:1", step("worker:1", 30, {1.0}, 70));
    QCOMPARE(allPoints(lines, 2), (QList<QPointF>{{10, 150}, {20, 170}, {30, 190}}));
    // A worker whose windows fall between the first's: its latest window counts.
    store.ingest("worker:1", step("worker:1", 45, {1.0}, 80));
    store.ingest("worker:0", step("worker:0", 50, {1.0}, 130));
    QCOMPARE(allPoints(lines, 2).size(), 3); // worker:1 has not reached 50
    store.ingest("worker:1", step("worker:1", 55, {1.0}, 90));
    QCOMPARE(allPoints(lines, 2).back(), QPointF(50, 210));
}

void TestStoreLines::anEvaluatorDrawsItsEvaluationsOnly()
{
    // A MultiWorkerMirrored job with an evaluator: it trains nothing, so it is neither a
    // throughput line nor in the total (which would otherwise wait for it forever), nor a
    // step time; its evaluations are lines of their own, at the checkpoints' steps.
    MetricsStore store;
    ThroughputLines throughput(store);
    StepTimeLines times(store);
    ReplicaLossLines loss(store);
    EvaluationLines evaluation(store);
    store.ingest("evaluator:0", Json{{"v", 1}, {"type", "hello"}, {"t", 999.0}, {"task", "evaluator:0"}});
    store.ingest("worker:0", step("worker:0", 10, {1.0}, 100));
    store.ingest("worker:1", step("worker:1", 10, {1.0}, 50));
    QStringList names;
    for (int i = 0; i < throughput.lineCount(); ++i)
        names << throughput.lineName(i);
    QCOMPARE(names, (QStringList{"worker:0", "worker:1", "total"}));
    QCOMPARE(allPoints(throughput, 2), (QList<QPointF>{{10, 150}}));
    QCOMPARE(times.lineCount(), 6);
    QCOMPARE(loss.lineCount(), 2);
    QCOMPARE(evaluation.lineCount(), 0);

    for (int s : {10, 20})
        store.ingest("evaluator:0", Json{{"v", 1}, {"type", "evaluation"}, {"t", 1000.0 + s}, {"task", "evaluator:0"},
                                         {"step", s}, {"epoch", 0}, {"checkpoint", "ckpt"},
                                         {"metrics", {{"loss", 1.0 / s}, {"accuracy", s / 100.0}}}, {"examples", 50}});
    QCOMPARE(evaluation.lineCount(), 2);
    QCOMPARE(evaluation.lineName(0), QString("evaluator:0 accuracy"));
    QCOMPARE(evaluation.lineName(1), QString("evaluator:0 loss"));
    QCOMPARE(allPoints(evaluation, 1), (QList<QPointF>{{10, double(0.1f)}, {20, double(0.05f)}}));
    // With one training task, its lines are not named by task, evaluator or not.
    MetricsStore one;
    ReplicaLossLines oneLoss(one);
    one.ingest("evaluator:0", Json{{"v", 1}, {"type", "hello"}, {"t", 999.0}, {"task", "evaluator:0"}});
    one.ingest("worker:0", step("worker:0", 10, {1.0}, 100));
    QCOMPARE(oneLoss.lineName(0), QString("replica 0 (cpu:0)"));
}

void TestStoreLines::smoothingMatchesTheSmoothersIncrementally()
{
    MetricsStore store;
    ReplicaLossLines lines(store);
    Series raw;
    auto feed = [&](int from, int to) {
        for (int s = from; s < to; ++s) {
            const double loss = 1.0 + 0.5 * std::sin(s * 0.7) + 1.0 / s;
            raw.append(s, float(loss));
            store.ingest("worker:0", step("worker:0", s, {loss}, 1000));
        }
    };
    feed(1, 200);
    lines.setSmoothing({Smoothing::Kind::Ema, 0.9, 10});
    QCOMPARE(allPoints(lines, 0).size(), 199); // computed over every point
    feed(200, 400);                            // continued incrementally...
    Series expected;
    smoothEma(raw, 0.9, expected); // ...equal to smoothing everything at once
    QList<QPointF> smoothed = allPoints(lines, 0);
    QCOMPARE(smoothed.size(), qsizetype(expected.size()));
    for (int64_t i = 0; i < expected.size(); ++i)
        QCOMPARE(float(smoothed[i].y()), expected.y(i));
    QVERIFY(std::abs(smoothed.back().y() - raw.lastY()) > 1e-4); // it did smooth

    lines.setSmoothing({Smoothing::Kind::MovingAverage, 0.9, 25});
    Series average;
    smoothMovingAverage(raw, 25, average);
    smoothed = allPoints(lines, 0);
    QCOMPARE(float(smoothed[300].y()), average.y(300));
    QCOMPARE(lines.pointCount(0), 399);

    lines.setSmoothing({});
    QCOMPARE(float(allPoints(lines, 0)[300].y()), raw.y(300));
}

void TestStoreLines::aNewRunStartsAfresh()
{
    MetricsStore store;
    ReplicaLossLines loss(store);
    ThroughputLines throughput(store);
    loss.setSmoothing({Smoothing::Kind::Ema, 0.5, 10});
    for (int s = 1; s <= 20; ++s) {
        store.ingest("worker:0", step("worker:0", s, {10.0}, 100));
        store.ingest("worker:1", step("worker:1", s, {10.0}, 100));
    }
    QCOMPARE(allPoints(loss, 0).size(), 20);
    QCOMPARE(allPoints(throughput, 2).size(), 20);
    store.clear();
    for (int s = 1; s <= 5; ++s) {
        store.ingest("worker:0", step("worker:0", s, {1.0}, 10));
        store.ingest("worker:1", step("worker:1", s, {1.0}, 10));
    }
    // Nothing of the old run's smoothing or total remains.
    const QList<QPointF> points = allPoints(loss, 0);
    QCOMPARE(points.size(), 5);
    QCOMPARE(points.back().y(), 1.0);
    QCOMPARE(allPoints(throughput, 2), (QList<QPointF>{{1, 20}, {2, 20}, {3, 20}, {4, 20}, {5, 20}}));
}

void TestStoreLines::csvHasEveryPointMergedByX()
{
    MetricsStore store;
    ThroughputLines lines(store);
    store.ingest("worker:0", step("worker:0", 10, {1.0}, 100));
    store.ingest("worker:1", step("worker:1", 10, {1.0}, 50.5));
    store.ingest("worker:0", step("worker:0", 20, {1.0}, 110));
    store.ingest("worker:1", step("worker:1", 25, {1.0}, 60));
    QTemporaryDir dir;
    const QString path = dir.filePath("throughput.csv");
    QString error;
    QVERIFY2(writePlotCsv(lines, "step, global", path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), QString("\"step, global\",worker:0,worker:1,total\n"
                                                         "10,100,50.5,150.5\n"
                                                         "20,110,,160.5\n"
                                                         "25,,60,\n"));
}

void TestStoreLines::csvReportsAnUnwritablePath()
{
    MetricsStore store;
    ReplicaLossLines lines(store);
    QString error;
    QVERIFY(!writePlotCsv(lines, "step", "/nonexistent-dir/x.csv", &error));
    QVERIFY2(error.contains("/nonexistent-dir/x.csv"), qPrintable(error));
}

// A ParameterServer job: each worker's throughput at the global step and the coordinator's as
// the total (not a sum with it), step times of the workers only, each worker's staleness, each
// ps task's traffic and updates.
void TestStoreLines::parameterServerJobLines()
{
    MetricsStore store;
    apptest::feedParameterServerJob(store);
    const ThroughputLines throughput(store);
    QCOMPARE(lineNames(throughput), QStringList({"worker:0", "worker:1", "total"}));
    QCOMPARE(allPoints(throughput, 1), QList<QPointF>({{9, 260}, {20, 300}}));
    QCOMPARE(allPoints(throughput, 2), QList<QPointF>({{10, 640}, {20, 700}}));
    const StepTimeLines stepTime(store);
    QCOMPARE(stepTime.lineCount(), 6);
    QCOMPARE(stepTime.lineName(0), QString("worker:0 compute"));
    QCOMPARE(allPoints(stepTime, 1), QList<QPointF>({{10, 24}, {19, 22}}));
    const StalenessLines staleness(store);
    QCOMPARE(lineNames(staleness), QStringList({"worker:0 mean", "worker:0 max", "worker:1 mean", "worker:1 max"}));
    QCOMPARE(allPoints(staleness, 3), QList<QPointF>({{9, 2}, {20, 2}}));
    const ParameterServerTrafficLines traffic(store);
    QCOMPARE(lineNames(traffic),
             QStringList({"ps:0 in (pushes)", "ps:0 out (pulls)", "ps:1 in (pushes)", "ps:1 out (pulls)"}));
    QCOMPARE(allPoints(traffic, 1), QList<QPointF>({{1, 603648}, {2, 1006080}}));
    const ParameterServerUpdatesLines updates(store);
    QCOMPARE(lineNames(updates), QStringList({"ps:0", "ps:1"}));
    QCOMPARE(allPoints(updates, 0), QList<QPointF>({{1, 2}, {2, 4}}));
    // A job of one process has none of them.
    MetricsStore single;
    single.ingest("worker:0", step("worker:0", 10, {0.5}, 100));
    QCOMPARE(StalenessLines(single).lineCount(), 0);
    QCOMPARE(ParameterServerTrafficLines(single).lineCount(), 0);
    QCOMPARE(lineNames(ThroughputLines(single)), QStringList({"worker:0"}));
}

QTEST_GUILESS_MAIN(TestStoreLines)
#include "tst_store_lines.moc"
