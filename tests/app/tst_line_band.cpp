// Many workers' lines as a band (line_band.h, StoreLines): the band's median, least and greatest
// at every step, equal to those of the members' values computed here, however the members grew
// between calls; drawn only up to where every member still reporting has reached; the members
// that stand out (the slowest workers by their own time per step, the highest losses); the band
// switched off (every line) and on; its three lines sharing a colour, the greatest filled to the
// least. And the heatmap's grid (worker_heatmap.h): each cell the mean of the worker's own time
// over the column's steps, the column's median beside it. And the step split panel's choice of
// the tasks it draws when more than fit (slowestOwn).

#include "app/metrics/line_band.h"
#include "app/metrics/step_split.h"
#include "app/metrics/store_lines.h"
#include "app/metrics/worker_heatmap.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace strata::app;

namespace {

// The median, least and greatest of `values` (NaN left out).
std::array<double, 3> stats(std::vector<double> values)
{
    std::erase_if(values, [](double v) { return std::isnan(v); });
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    return {median, values.front(), values.back()};
}

// A step of `task` as the engine reports it, every step its own (`steps` 1).
Json step(int worker, int64_t step, double loss, double computeMs, double commMs, double samplesPerSec = 1000)
{
    const std::string task = "worker:" + std::to_string(worker);
    return {{"v", 1}, {"type", "step"}, {"t", 1000.0 + double(step)}, {"task", task}, {"step", step}, {"steps", 1},
            {"loss", loss}, {"replicas", {{{"replica", 0}, {"device", "cpu:0"}, {"loss", loss}, {"samples", 32}}}},
            {"time_ms", {{"step", computeMs + commMs + 0.5}, {"compute", computeMs}, {"comm", commMs}, {"input", 0.5}}},
            {"samples_per_sec", samplesPerSec}};
}

QStringList lineNames(const PlotSource& source)
{
    QStringList names;
    for (int i = 0; i < source.lineCount(); ++i)
        names << source.lineName(i);
    return names;
}

QList<QPointF> points(const PlotSource& source, int line)
{
    QList<QPointF> out;
    source.forEachPoint(line, [&](double x, double y) { out.append({x, y}); });
    return out;
}

} // namespace

class TestLineBand : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void medianLeastAndGreatestAtEveryStep();
    void waitsForTheMembersStillReporting();
    void greatestScoresFirst();
    void ownTimeIsTheStepLessTheReduction();
    void manyWorkersLinesAreABand();
    void theBandSwitchedOffShowsEveryLine();
    void heatmapCellsAreMeansOfOwnTime();
    void stepSplitsShownAreTheSlowestByOwnTime();
};

void TestLineBand::medianLeastAndGreatestAtEveryStep()
{
    // Five members (odd: the middle value; four of them at some steps: the mean of the middle
    // two), each at steps of its own, values random with some NaN; grown in uneven slices.
    std::mt19937 random(7);
    std::uniform_real_distribution<double> value(0, 100);
    std::vector<Series> series(5);
    std::vector<std::vector<std::pair<double, double>>> all(5); // every member's points
    for (size_t m = 0; m < series.size(); ++m)
        for (int s = 1; s <= 400; ++s)
            if (m == 0 || (s + int(m)) % (int(m) + 1) == 0) // member 0 at every step, the others sparser
                all[m].push_back({double(s), (s % 37 == 0 && m == 2) ? std::nan("") : value(random)});
    LineBand band;
    std::vector<LineBand::Member> members;
    for (size_t m = 0; m < series.size(); ++m)
        members.push_back({QStringLiteral("m%1").arg(m), &series[m], false}); // all ended: nothing waited for
    std::vector<size_t> given(series.size(), 0);
    for (double upTo : {3.0, 50.0, 51.0, 230.0, 400.0}) {
        for (size_t m = 0; m < series.size(); ++m)
            for (; given[m] < all[m].size() && all[m][given[m]].first <= upTo; ++given[m])
                series[m].append(all[m][given[m]].first, float(all[m][given[m]].second));
        band.extend(members);
    }
    QCOMPARE(band.median().size(), int64_t(400));
    for (int64_t i = 0; i < band.median().size(); ++i) {
        const double x = band.median().x(i);
        QCOMPARE(x, double(i + 1));
        // Each member's latest value at or before x.
        std::vector<double> latest;
        for (size_t m = 0; m < series.size(); ++m) {
            const auto after = std::upper_bound(all[m].begin(), all[m].end(), x,
                                                [](double v, const auto& p) { return v < p.first; });
            if (after != all[m].begin())
                latest.push_back(float(std::prev(after)->second));
        }
        const auto [median, low, high] = stats(latest);
        QCOMPARE(band.median().y(i), float(median));
        QCOMPARE(band.low().y(i), float(low));
        QCOMPARE(band.high().y(i), float(high));
        QCOMPARE(band.low().x(i), x);
    }
}

void TestLineBand::waitsForTheMembersStillReporting()
{
    Series a, b, c;
    LineBand band;
    const std::vector<LineBand::Member> members{{"a", &a, true}, {"b", &b, true}, {"c", &c, false}};
    for (int s = 1; s <= 10; ++s)
        a.append(s, 1);
    band.extend(members);
    QVERIFY(band.median().empty()); // b has said nothing yet
    for (int s = 1; s <= 6; ++s)
        b.append(s, 3);
    c.append(1, 100); // ended after its first step: never waited for, its value kept
    band.extend(members);
    QCOMPARE(band.median().size(), int64_t(6));
    QCOMPARE(band.median().lastY(), 3.0f);
    QCOMPARE(band.high().lastY(), 100.0f);
    QCOMPARE(band.low().lastY(), 1.0f);
    // A member joining later counts from the band's next step on.
    Series d;
    d.append(2, 50);
    d.append(8, 50);
    for (int s = 7; s <= 10; ++s)
        b.append(s, 3);
    std::vector<LineBand::Member> joined = members;
    joined.push_back({"d", &d, true});
    band.extend(joined);
    QCOMPARE(band.median().size(), int64_t(8));
    QCOMPARE(band.median().y(6), 26.5f); // step 7: 1, 3, 100, 50
    QCOMPARE(band.median().lastX(), 8.0); // d has reached step 8 only
}

void TestLineBand::greatestScoresFirst()
{
    QCOMPARE(greatest({1, 5, std::nan(""), 5, 3}, 3), std::vector<int>({1, 3, 4}));
    QCOMPARE(greatest({2, 1}, 3), std::vector<int>({0, 1}));
    QCOMPARE(greatest({}, 3), std::vector<int>());
}

void TestLineBand::ownTimeIsTheStepLessTheReduction()
{
    TaskData task;
    for (int s = 1; s <= 30; ++s) {
        task.stepMs.append(s, s <= 10 ? 100 : 16);
        task.commMs.append(s, s <= 10 ? 0 : 9);
    }
    QCOMPARE(recentOwnMs(task), 7.0); // the latest 20 steps: 16 - 9
    TaskData noStepTime;
    noStepTime.computeMs.append(1, 6);
    noStepTime.inputMs.append(1, 0.5);
    QCOMPARE(recentOwnMs(noStepTime), 6.5);
    QVERIFY(std::isnan(recentOwnMs(TaskData())));
}

void TestLineBand::manyWorkersLinesAreABand()
{
    MetricsStore store;
    ThroughputLines throughput(store);
    StepTimeLines stepTime(store);
    ReplicaLossLines loss(store);
    // Nine workers: one more than a line each. Worker w computes in 5 + w ms, worker 4 in 30;
    // all wait for it (a step of 31 ms); worker w's loss 1 + w / 10.
    const auto feed = [&](int from, int to) {
        for (int w = 0; w < 9; ++w)
            for (int s = from; s <= to; ++s) {
                const double compute = w == 4 ? 30 : 5 + w;
                store.ingest(QStringLiteral("worker:%1").arg(w), step(w, s, 1 + w / 10.0, compute, 30.5 - compute, 100 + w));
            }
    };
    feed(1, 40);
    QVERIFY(throughput.hasManyLines());
    QCOMPARE(lineNames(throughput), QStringList({"median of 9 workers", "min of 9 workers", "max of 9 workers",
                                                "slowest: worker:4", "slowest: worker:8", "slowest: worker:7"}));
    QCOMPARE(lineNames(loss), QStringList({"median of 9 replicas", "min of 9 replicas", "max of 9 replicas",
                                          "highest: worker:8 replica 0 (cpu:0)", "highest: worker:7 replica 0 (cpu:0)",
                                          "highest: worker:6 replica 0 (cpu:0)"}));
    QCOMPARE(lineNames(stepTime).mid(0, 6),
             QStringList({"compute: median of 9 workers", "compute: min of 9 workers", "compute: max of 9 workers",
                          "slowest: worker:4 compute", "slowest: worker:8 compute", "slowest: worker:7 compute"}));
    QCOMPARE(lineNames(stepTime).size(), 6 + 3 + 3);
    // Per step: the median of 100..108 samples/s, 100 and 108; worker 4's own line as it was.
    const QList<QPointF> median = points(throughput, 0);
    QCOMPARE(median.size(), 40);
    QCOMPARE(median.last(), QPointF(40, 104));
    QCOMPARE(points(throughput, 1).last().y(), 100.0);
    QCOMPARE(points(throughput, 2).last().y(), 108.0);
    QCOMPARE(points(throughput, 3).size(), 40);
    QCOMPARE(points(stepTime, 0).last().y(), 10.0); // compute: 5..13 but 30 (not 9); the middle of nine
    QCOMPARE(points(stepTime, 2).last().y(), 30.0);
    // The looks: a band's three lines share its colour, the greatest filled to the least (the
    // line before); each line after has a colour of its own.
    QCOMPARE(throughput.look(0), (LineLook{LineLook::Role::BandMedian, 0, -1}));
    QCOMPARE(throughput.look(1), (LineLook{LineLook::Role::BandLow, 0, 0}));
    QCOMPARE(throughput.look(2), (LineLook{LineLook::Role::BandHigh, 0, 0}));
    QCOMPARE(throughput.look(3), (LineLook{LineLook::Role::Line, 1, -1}));
    QCOMPARE(stepTime.look(6), (LineLook{LineLook::Role::BandMedian, 4, -1}));
    QCOMPARE(stepTime.look(8), (LineLook{LineLook::Role::BandHigh, 4, 6}));
    // Extended as the run goes on; a new run starts afresh.
    feed(41, 60);
    QCOMPARE(points(throughput, 0).size(), 60);
    store.clear();
    QCOMPARE(throughput.lineCount(), 0);
    feed(1, 5);
    QCOMPARE(points(throughput, 0).size(), 5);
}

void TestLineBand::theBandSwitchedOffShowsEveryLine()
{
    MetricsStore store;
    ThroughputLines throughput(store);
    for (int w = 0; w < 12; ++w)
        store.ingest(QStringLiteral("worker:%1").arg(w), step(w, 1, 1, 5, 1));
    const uint64_t banded = throughput.revision();
    throughput.setBands(false);
    QVERIFY(throughput.revision() != banded); // the lines given before are others now
    QCOMPARE(throughput.lineCount(), 12 + 1);  // each worker's, and the total
    QCOMPARE(throughput.lineName(0), QString("worker:0"));
    QCOMPARE(throughput.look(5), (LineLook{LineLook::Role::Line, 5, -1}));
    QVERIFY(throughput.hasManyLines());
    throughput.setBands(true);
    QCOMPARE(throughput.lineName(0), QString("median of 12 workers"));
    // Eight: a line each whatever the choice.
    MetricsStore few;
    ThroughputLines lines(few);
    for (int w = 0; w < 8; ++w)
        few.ingest(QStringLiteral("worker:%1").arg(w), step(w, 1, 1, 5, 1));
    QVERIFY(!lines.hasManyLines());
    QCOMPARE(lines.lineCount(), 8 + 1);
}

void TestLineBand::heatmapCellsAreMeansOfOwnTime()
{
    MetricsStore store;
    WorkerHeatmap heatmap(store);
    QCOMPARE(heatmap.stepRange(), std::pair(0.0, -1.0));
    QCOMPARE(heatmap.grid(0, 10, 10).rows.size(), 0);
    // Three workers, 1000 steps: own time (step less the reduction) random for worker 0,
    // 2 ms for worker 1, 8 ms for worker 2 (which reports from step 501 on).
    std::mt19937 random(3);
    std::uniform_real_distribution<double> ms(1, 9);
    std::vector<double> own0;
    const auto feed = [&](int from, int to) {
        for (int s = from; s <= to; ++s) {
            own0.push_back(ms(random));
            store.ingest("worker:0", step(0, s, 1, own0.back() - 0.5, 4));
            store.ingest("worker:1", step(1, s, 1, 1.5, 4));
            if (s > 500)
                store.ingest("worker:2", step(2, s, 1, 7.5, 4));
        }
    };
    // Columns of 33.3 steps, whose ends fall anywhere in the blocks the sums are kept by; asked
    // for while the run goes on (the columns holding no step yet, and worker:2's row, empty),
    // then again once it has 1000 steps: the same as a grid made from scratch.
    feed(1, 700);
    QCOMPARE(heatmap.grid(1, 1001, 30).rows.size(), 3);
    QVERIFY(std::isnan(heatmap.grid(1, 1001, 30).at(0, 29)));
    feed(701, 1000);
    QCOMPARE(heatmap.workerCount(), 3);
    QCOMPARE(heatmap.stepRange(), std::pair(1.0, 1000.0));
    const HeatmapGrid grid = heatmap.grid(1, 1001, 30);
    const HeatmapGrid fresh = WorkerHeatmap(store).grid(1, 1001, 30);
    const auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
        return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                          [](float x, float y) { return x == y || (std::isnan(x) && std::isnan(y)); });
    };
    QVERIFY(same(grid.ms, fresh.ms));
    QVERIFY(same(grid.medianMs, fresh.medianMs));
    QCOMPARE(grid.rows, QStringList({"worker:0", "worker:1", "worker:2"}));
    QCOMPARE(grid.columns, 30);
    for (int c = 0; c < grid.columns; ++c) {
        double sum = 0;
        int n = 0;
        for (int s = 1; s <= 1000; ++s)
            if (grid.columnOf(s) == c) {
                sum += float(own0[size_t(s - 1)] - 0.5) + 0.5; // as stored: floats
                ++n;
            }
        QVERIFY(n >= 33 && n <= 34);
        QVERIFY2(std::abs(grid.at(0, c) - sum / n) < 1e-3, qPrintable(QStringLiteral("%1: %2 %3").arg(c).arg(grid.at(0, c)).arg(sum / n)));
        QVERIFY(std::abs(grid.at(1, c) - 2) < 1e-5);
        const bool reported = c >= grid.columnOf(501);
        QVERIFY2(std::isnan(grid.at(2, c)) == !reported, qPrintable(QStringLiteral("%1: %2").arg(c).arg(grid.at(2, c))));
        // The median of three cells, or the mean of two.
        const double expected = reported ? stats({grid.at(0, c), 2, 8})[0] : (grid.at(0, c) + 2) / 2;
        QVERIFY(std::abs(grid.medianMs[size_t(c)] - expected) < 1e-4);
    }
    // No more columns than steps: a column holds one at least.
    QCOMPARE(heatmap.grid(1, 11, 500).columns, 10);
    QCOMPARE(heatmap.grid(1, 11, 500).at(1, 9), 2.0f);
}

// Workers waiting in the all-reduce for a slow one have whole steps as long as its own:
// ranked by step less reduction, the slow one comes first and the waiters do not.
void TestLineBand::stepSplitsShownAreTheSlowestByOwnTime()
{
    QList<TaskStepSplit> splits;
    for (int w = 0; w < 10; ++w) // every step 50 ms: 10 ms own, 40 waiting in the reduction
        splits << TaskStepSplit{QStringLiteral("worker:%1").arg(w), {50, 9, 40, 0.5}};
    splits[7].split = {50, 45, 4, 0.5};   // the straggler: 46 ms its own
    splits[3].split = {50, 19, 30, 0.5};  // 20 ms its own
    splits[5].split = {30, 9, 20, 0.5};   // a shorter step, same own time as the others
    const QList<TaskStepSplit> shown = slowestOwn(splits, 4);
    QCOMPARE(shown.size(), 4);
    QCOMPARE(shown[0].task, QString("worker:7"));
    QCOMPARE(shown[1].task, QString("worker:3"));
    // Ties (10 ms) in the order given.
    QCOMPARE(shown[2].task, QString("worker:0"));
    QCOMPARE(shown[3].task, QString("worker:1"));
    QCOMPARE(slowestOwn(splits, 40).size(), 10);
    QVERIFY(slowestOwn(splits, 0).isEmpty());
}

QTEST_GUILESS_MAIN(TestLineBand)
#include "tst_line_band.moc"
