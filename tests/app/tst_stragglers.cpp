// Stragglers (app/metrics/stragglers.h) found in stores fed as the launcher feeds them, with
// jobs simulated step by step (simulated_jobs.h: under MultiWorkerMirrored the others wait for
// the slowest in the all-reduce; under ParameterServer nobody waits). A worker slowed for a
// stretch is named (task, place, how much slower, since which step and when), once, with its
// recovery; the workers that only wait for it, one slow window and slow moments that do not
// last are not; the answer does not depend on how the events were batched; `strata compare`'s
// cell and report name it.

#include "simulated_jobs.h"

#include "app/compare/comparison.h"
#include "app/metrics/placement.h"
#include "app/metrics/stragglers.h"

#include <QDateTime>
#include <QtTest>

#include <algorithm>

using namespace strata::app;

namespace {

using namespace apptest;

QString clock(double t) { return QDateTime::fromMSecsSinceEpoch(qint64(std::llround(t * 1000))).toString("HH:mm:ss"); }

// When `task` ended its step `step` (the rows' own clock).
double timeOf(const std::vector<Row>& rows, const QString& task, int64_t step)
{
    for (const Row& r : rows)
        if (r.task == task && (r.globalStep > 0 ? r.globalStep : r.step) == step)
            return r.t;
    return std::numeric_limits<double>::quiet_NaN();
}

std::vector<LogEntry> logOf(const MetricsStore& store)
{
    std::vector<LogEntry> log;
    store.read([&](const std::vector<TaskData>&, const std::vector<LogEntry>& entries) { log = entries; });
    return log;
}

// The log's lines about stragglers.
QStringList stragglerLines(const MetricsStore& store)
{
    QStringList out;
    for (const LogEntry& e : logOf(store))
        if (e.message.contains(QLatin1String("straggler")))
            out << e.task + ": " + e.message;
    return out;
}

// Every stretch, a line each (for a failure's message).
QString listed(const std::vector<Straggler>& found)
{
    QStringList lines;
    for (const Straggler& s : found)
        lines << stretchText(s);
    return lines.join('\n');
}

bool sameStretch(const Straggler& a, const Straggler& b)
{
    return a.task == b.task && a.sinceStep == b.sinceStep && a.untilStep == b.untilStep && a.recovered == b.recovered &&
           qFuzzyCompare(a.onset.ms, b.onset.ms) && qFuzzyCompare(a.overall.ms, b.overall.ms) &&
           qFuzzyCompare(a.overall.medianMs, b.overall.medianMs);
}

} // namespace

class TestStragglers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void mirroredSlowComputeNamedWithItsRecovery()
    {
        // Four workers of 10 ms; worker:2 takes 30 ms from step 200 to step 599. Every worker's
        // step then takes 31 ms (the others wait in the all-reduce): by their step time alone
        // all four would look alike; by their own time only worker:2 is slower.
        const Work work = [](int w, int64_t s) { return w == 2 && s >= 200 && s < 600 ? 30.0 : 10.0; };
        const std::vector<Row> rows = mirroredJob(4, 1000, work);
        MetricsStore store;
        feed(store, false, 4, rows, 10);

        const std::vector<Straggler> found = store.stragglers();
        QVERIFY2(found.size() == 1, qPrintable(listed(found)));
        const Straggler& s = found[0];
        QCOMPARE(s.task, QString("worker:2"));
        QCOMPARE(s.place, QString("n3 (198.18.0.3)"));
        // From the first step of the first slow bucket (buckets of 20 steps: [200, 220)).
        QCOMPARE(s.sinceStep, int64_t(200));
        QCOMPARE(s.sinceTime, timeOf(rows, "worker:2", 200));
        // Its own time (the step minus its comm) against the others': 30 - 0.1 input... as
        // recorded, 30 ms against 10 ms.
        QVERIFY2(qAbs(s.onset.ms - 30.0) < 0.01, qPrintable(QString::number(s.onset.ms)));
        QVERIFY2(qAbs(s.onset.medianMs - 10.0) < 0.01, qPrintable(QString::number(s.onset.medianMs)));
        QVERIFY2(qAbs(s.overall.ratio() - 3.0) < 0.01, qPrintable(QString::number(s.overall.ratio())));
        QVERIFY(s.recovered);
        QCOMPARE(s.untilStep, int64_t(600));
        QCOMPARE(s.untilTime, timeOf(rows, "worker:2", 600));
        QVERIFY2(qAbs(s.recovery.ratio() - 1.0) < 0.01, qPrintable(QString::number(s.recovery.ratio())));

        // The log names it, then its recovery, each once, as the task's own lines.
        const QStringList lines = stragglerLines(store);
        QCOMPARE(lines,
                 (QStringList{"worker:2: worker:2 on n3 (198.18.0.3) is a straggler: 3.0x the median time per step "
                              "(30 ms against 10 ms) since step 200 (" + clock(s.sinceTime) + ")",
                              "worker:2: worker:2 on n3 (198.18.0.3) is no longer a straggler: 1.0x the median time "
                              "per step (10 ms against 10 ms) since step 600 (" + clock(s.untilTime) + ")"}));
        // Logged when the bucket that decided ended: the third slow one, [240, 260).
        const std::vector<LogEntry> log = logOf(store);
        const auto named = std::find_if(log.begin(), log.end(), [](const LogEntry& e) { return e.message.contains("is a straggler"); });
        QCOMPARE(named->level, QString("warning"));
        QCOMPARE(named->time, timeOf(rows, "worker:2", 259));

        // The task table: its row says so (no longer flagged: it recovered); the others' do not.
        for (const TaskSummary& t : taskSummaries(store)) {
            QVERIFY(!t.straggling);
            QCOMPARE(t.straggler.isEmpty(), t.task != "worker:2");
        }
        QVERIFY(taskSummaries(store)[2].straggler.contains("from step 200"));
    }

    void parameterServerSlowWorkerStillSlowAtTheEnd()
    {
        // Asynchronous: nobody waits for worker:1 (three times slower throughout); it just runs
        // fewer of the global steps, each taking 3x.
        const Work work = [](int w, int64_t) { return w == 1 ? 24.0 : 8.0; };
        const std::vector<Row> rows = parameterServerJob(3, 3000, work);
        MetricsStore store;
        feed(store, true, 3, rows, 10);

        const std::vector<Straggler> found = store.stragglers();
        QVERIFY2(found.size() == 1, qPrintable(listed(found)));
        const Straggler& s = found[0];
        QCOMPARE(s.task, QString("worker:1"));
        QCOMPARE(s.place, QString("n2 (198.18.0.2)"));
        QVERIFY(!s.recovered);
        // Its first step (a bucket spans 20 global steps per worker: 60).
        const auto first = std::find_if(rows.begin(), rows.end(), [](const Row& r) { return r.task == "worker:1"; });
        QCOMPARE(s.sinceStep, first->globalStep);
        QVERIFY2(qAbs(s.overall.ratio() - 24.5 / 8.5) < 0.01, qPrintable(QString::number(s.overall.ratio())));
        // Still slow at its last step.
        const auto last = std::find_if(rows.rbegin(), rows.rend(), [](const Row& r) { return r.task == "worker:1"; });
        QCOMPARE(s.untilStep, last->globalStep);
        QVERIFY2(stretchText(s).endsWith(QStringLiteral("still slow at step %1").arg(last->globalStep)),
                 qPrintable(stretchText(s)));
        QCOMPARE(stragglerLines(store).size(), 1);

        const QList<TaskSummary> tasks = taskSummaries(store);
        for (const TaskSummary& t : tasks)
            QCOMPARE(t.straggling, t.task == "worker:1");
    }

    void momentsThatDoNotLastAreNotNamed_data()
    {
        QTest::addColumn<bool>("parameterServer");
        QTest::addColumn<int64_t>("from");
        QTest::addColumn<int64_t>("to");
        QTest::addColumn<double>("slowMs");
        // One window ten times slower (a checkpoint, a page-cache miss).
        QTest::newRow("MultiWorkerMirrored: one slow window") << false << int64_t(300) << int64_t(310) << 100.0;
        // Two buckets' worth, three times slower: one bucket short of a trend.
        QTest::newRow("MultiWorkerMirrored: two slow buckets") << false << int64_t(300) << int64_t(340) << 30.0;
        QTest::newRow("ParameterServer: one slow window") << true << int64_t(100) << int64_t(103) << 100.0;
        // A little slower for long: under the threshold.
        QTest::newRow("MultiWorkerMirrored: 1.3x throughout") << false << int64_t(1) << int64_t(1000) << 13.0;
    }

    void momentsThatDoNotLastAreNotNamed()
    {
        QFETCH(bool, parameterServer);
        QFETCH(int64_t, from);
        QFETCH(int64_t, to);
        QFETCH(double, slowMs);
        const Work work = [&](int w, int64_t s) { return w == 3 && s >= from && s < to ? slowMs : 10.0; };
        const std::vector<Row> rows = parameterServer ? parameterServerJob(4, 2000, work) : mirroredJob(4, 1000, work);
        MetricsStore store;
        feed(store, parameterServer, 4, rows, 10);
        QVERIFY2(store.stragglers().empty(), qPrintable(listed(store.stragglers())));
        QVERIFY2(stragglerLines(store).isEmpty(), qPrintable(stragglerLines(store).join('\n')));
    }

    void aSliverOfTheStepIsNotNamed()
    {
        // Under MultiWorkerMirrored with the all-reduce taking most of the step: worker:1's own
        // 0.6 ms against the others' 0.2 ms is 3x, but a small part of a 20 ms step.
        const Work work = [](int w, int64_t) { return w == 1 ? 0.6 : 0.2; };
        std::vector<Row> rows = mirroredJob(3, 600, work);
        for (Row& r : rows) { // a slow network: 20 ms of all-reduce a step
            r.stepMs += 19.0;
            r.commMs += 19.0;
        }
        MetricsStore store;
        feed(store, false, 3, rows, 10);
        QVERIFY(store.stragglers().empty());
    }

    void theSameWhateverTheBatches()
    {
        // Fed in windows of 10 steps, of 37, or each task's whole run at once (tasks in turn): the
        // same stretches, since each bucket is judged only once every task has gone past it.
        const Work work = [](int w, int64_t s) { return w == 0 && s >= 400 && s < 800 ? 25.0 : 10.0; };
        const std::vector<Row> rows = mirroredJob(3, 1200, work);
        MetricsStore reference;
        feed(reference, false, 3, rows, 10);
        const std::vector<Straggler> expected = reference.stragglers();
        QCOMPARE(int(expected.size()), 1);
        for (int batch : {37, 5000}) {
            MetricsStore store;
            feed(store, false, 3, rows, batch);
            const std::vector<Straggler> found = store.stragglers();
            QCOMPARE(int(found.size()), 1);
            QVERIFY2(sameStretch(found[0], expected[0]), qPrintable(stretchText(found[0]) + " | " + stretchText(expected[0])));
            QCOMPARE(stragglerLines(store), stragglerLines(reference));
        }
    }

    void slowAgainIsANewStretch()
    {
        const Work work = [](int w, int64_t s) {
            return w == 1 && ((s >= 100 && s < 300) || (s >= 600 && s < 900)) ? 40.0 : 10.0;
        };
        MetricsStore store;
        feed(store, false, 3, mirroredJob(3, 1000, work), 10);
        const std::vector<Straggler> found = store.stragglers();
        QCOMPARE(int(found.size()), 2);
        QCOMPARE(found[0].sinceStep, int64_t(100));
        QCOMPARE(found[0].untilStep, int64_t(300));
        QCOMPARE(found[1].sinceStep, int64_t(600));
        QCOMPARE(found[1].untilStep, int64_t(900));
        QCOMPARE(stragglerLines(store).size(), 4);
        // Cleared with the store (a new run).
        store.clear();
        QVERIFY(store.stragglers().empty());
    }

    void compareNamesThem()
    {
        const Work work = [](int w, int64_t s) { return w == 2 && s >= 200 ? 30.0 : 10.0; };
        MetricsStore store;
        feed(store, false, 4, mirroredJob(4, 800, work), 10);
        const RunSummary summary = summarizeRun(ComparedRun{&store, "slow"}, CompareOptions{});
        QCOMPARE(summary.workers, 4);
        QCOMPARE(stragglersCell(summary), QString("worker:2 3.0x"));
        const ComparisonTable table = compareSummaries({summary}, CompareOptions{});
        QCOMPARE(table.header().last(), QString("stragglers"));
        QCOMPARE(table.cells(0).last(), QString("worker:2 3.0x"));
        // The Compare page's tip on that cell: the stretch in full.
        QCOMPARE(table.tips(0).size(), table.header().size());
        QCOMPARE(table.tips(0).last(), stretchText(summary.stragglers.front()));
        QCOMPARE(table.tips(0).first(), QString());

        // A job of several workers without any: "none"; a single worker: nothing to say.
        MetricsStore even;
        feed(even, false, 2, mirroredJob(2, 300, [](int, int64_t) { return 10.0; }), 10);
        QCOMPARE(stragglersCell(summarizeRun(ComparedRun{&even, "even"}, CompareOptions{})), QString("none"));
        RunSummary alone;
        alone.workers = 1;
        QCOMPARE(stragglersCell(alone), QString());
    }
};

QTEST_GUILESS_MAIN(TestStragglers)
#include "tst_stragglers.moc"
