// Runs recorded in the history through RunController, with the real strata-engine on tiny
// experiments and shell scripts standing in for engines that die: a completed run (metrics,
// steps, throughput, wall time, the experiment as launched), a stopped one, a killed one
// (its last epoch's metrics), an engine that exits at once (failed, with its error); a
// launch that starts nothing is not a run; a history that is unavailable, or locked when the
// run ends, is reported while the run itself goes on and ends as it would have.

#include "../event_deadline.h"
#include "app_test_util.h"
#include "history_test_util.h"

#include "app/experiment/experiment_document.h"
#include "app/history/run_recorder.h"
#include "app/launch/run_controller.h"

#include <QSignalSpy>
#include <QSysInfo>
#include <QtTest>

using namespace strata::app;
using namespace apptest;
using namespace historytest;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);
constexpr int kRunTimeoutMs = testing::kEventDeadlineMs;

} // namespace

class TestRunRecorder : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_count = 0;

    QString newPath(const char* what) { return m_dir.filePath(QStringLiteral("%1-%2").arg(what).arg(++m_count)); }

    // A history on a new file; fails the test when it does not open.
    void openHistory(RunHistory& history)
    {
        QString error;
        QVERIFY2(history.open(newPath("history") + ".sqlite", &error), qPrintable(error));
    }

    std::vector<RunRecord> allRuns(const RunHistory& history)
    {
        std::vector<RunRecord> runs;
        QString error;
        RunFilter filter;
        filter.withExperiment = true;
        if (!history.query(filter, &runs, &error))
            qWarning("%s", qPrintable(error));
        return runs;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(QFileInfo(kEngine).isExecutable(), STRATA_ENGINE_PATH);
    }

    void completedRun()
    {
        RunHistory history;
        openHistory(history);
        ExperimentDocument doc;
        doc.replace(tinyExperiment(2), "tiny");
        RunController run;
        run.setHistory(&history, "app");
        QCOMPARE(run.history(), &history);
        QSignalSpy finished(&run, &RunController::finished);
        QSignalSpy historyErrors(&run, &RunController::historyError);
        const QString runDir = newPath("run");
        const qint64 before = QDateTime::currentSecsSinceEpoch();
        QString error;
        QVERIFY2(run.launch(doc, kEngine, runDir, &error), qPrintable(error));

        // Recorded as running from the start.
        QVERIFY(run.historyId() > 0);
        std::vector<RunRecord> runs = allRuns(history);
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0].id, run.historyId());
        QCOMPARE(runs[0].status, RunStatus::Running);
        QCOMPARE(runs[0].endedAt, qint64(0));

        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Completed);
        QCOMPARE(historyErrors.count(), 0);
        runs = allRuns(history);
        QCOMPARE(runs.size(), size_t(1));
        const RunRecord& r = runs[0];
        QCOMPARE(r.status, RunStatus::Completed);
        QCOMPARE(r.name, QString("tiny"));
        QCOMPARE(r.strategy, QString("OneDevice"));
        QCOMPARE(r.replicas, 1);
        QCOMPARE(r.source, QString("app"));
        QCOMPARE(r.runDir, runDir);
        const QString host = QSysInfo::machineHostName();
        QCOMPARE(r.hosts, host);
        QCOMPARE(Json::parse(r.tasks.toStdString()),
                 Json::parse(R"([{"task":"worker:0","host":")" + host.toStdString() + R"("}])"));
        QVERIFY(r.startedAt >= before);
        QVERIFY(r.endedAt >= r.startedAt && r.endedAt <= QDateTime::currentSecsSinceEpoch());
        QCOMPARE(r.error, QString(""));
        // The experiment exactly as the engine received it.
        QFile launched(runDir + "/launch.strata.json");
        QVERIFY(launched.open(QIODevice::ReadOnly));
        QCOMPARE(Json::parse(r.experiment.toStdString()), Json::parse(launched.readAll().toStdString()));

        // Final metrics, steps and throughput: the engine's own figures.
        const Json metrics = Json::parse(r.metrics.toStdString());
        double meanSamplesPerSec = 0;
        QVERIFY(withTask(run.store(), [&](const TaskData& td) {
            QCOMPARE(metrics["test"], td.done["test"]);
            QCOMPARE(metrics["train"], td.done["train"]);
            QCOMPARE(metrics["validation"], td.done["validation"]);
            QCOMPARE(r.steps, td.done["steps"].get<int64_t>());
            for (int64_t i = 0; i < td.samplesPerSec.size(); ++i)
                meanSamplesPerSec += td.samplesPerSec.y(i);
            meanSamplesPerSec /= double(td.samplesPerSec.size());
        }));
        QCOMPARE(r.steps, qint64(2 * 38));
        QVERIFY(metrics["test"].contains("accuracy"));
        QVERIFY(r.samplesPerSec > 0);
        QCOMPARE(r.samplesPerSec, meanSamplesPerSec);
        QVERIFY2(r.wallSeconds > 0 && r.wallSeconds < kRunTimeoutMs / 1000.0, qPrintable(QString::number(r.wallSeconds)));
        QVERIFY(finalMetric(r, "test", "accuracy"));

        // The next run of the same controller is a new record.
        const qint64 first = run.historyId();
        doc.set("/training/epochs", 1);
        QVERIFY2(run.launch(doc, kEngine, newPath("run"), &error), qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.historyId(), first + 1);
        QCOMPARE(history.run(first + 1, &error)->steps, qint64(38));
        QCOMPARE(history.run(first, &error)->steps, qint64(76));
    }

    void stoppedRun()
    {
        RunHistory history;
        openHistory(history);
        ExperimentDocument doc;
        doc.replace(endlessExperiment(), "endless");
        RunController run;
        run.setHistory(&history, "app");
        QSignalSpy finished(&run, &RunController::finished);
        QString error;
        QVERIFY2(run.launch(doc, kEngine, newPath("run"), &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(stepOf(run.store()) > 0, kRunTimeoutMs);
        run.stop();
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Stopped);
        const RunRecord r = *history.run(run.historyId(), &error);
        QCOMPARE(r.status, RunStatus::Stopped);
        QCOMPARE(r.error, QString(""));
        withTask(run.store(), [&](const TaskData& td) { QCOMPARE(r.steps, td.done["steps"].get<int64_t>()); });
        QVERIFY(r.steps > 0);
        QVERIFY(r.endedAt > 0);
    }

    void killedRunKeepsItsLastEpoch()
    {
        RunHistory history;
        openHistory(history);
        ExperimentDocument doc;
        doc.replace(endlessExperiment(), "endless");
        RunController run;
        run.setHistory(&history, "sweep");
        QSignalSpy finished(&run, &RunController::finished);
        QString error;
        QVERIFY2(run.launch(doc, kEngine, newPath("run"), &error), qPrintable(error));
        const auto epochs = [&] {
            size_t n = 0;
            withTask(run.store(), [&](const TaskData& td) { n = td.epochs.size(); });
            return n;
        };
        QTRY_VERIFY_WITH_TIMEOUT(epochs() > 0, kRunTimeoutMs);
        run.killTask(kTask);
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Failed);
        const RunRecord r = *history.run(run.historyId(), &error);
        QCOMPARE(r.status, RunStatus::Failed);
        QCOMPARE(r.source, QString("sweep"));
        QVERIFY2(r.error.startsWith("worker:0: worker:0 was killed by signal 9"), qPrintable(r.error));
        QVERIFY(r.steps > 0);
        // No `done`: the last epoch's metrics stand for the run's.
        const Json metrics = Json::parse(r.metrics.toStdString());
        withTask(run.store(), [&](const TaskData& td) {
            QVERIFY(td.done.is_null());
            QCOMPARE(metrics["train"], td.epochs.back().train);
        });
        QVERIFY(!metrics.contains("test"));
    }

    void engineThatDiesAtOnce()
    {
        RunHistory history;
        openHistory(history);
        QTemporaryDir scripts;
        const QString engine = writeScript(scripts, "engine",
                                           "echo 'strata-engine: cannot load libstrata.so: no such file' >&2\n"
                                           "exit 3\n");
        ExperimentDocument doc;
        doc.replace(tinyExperiment(), "tiny");
        RunController run;
        run.setHistory(&history, "app");
        QSignalSpy finished(&run, &RunController::finished);
        QString error;
        QVERIFY2(run.launch(doc, engine, newPath("run"), &error), qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        const std::vector<RunRecord> runs = allRuns(history);
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0].status, RunStatus::Failed);
        QVERIFY2(runs[0].error.startsWith("worker:0: ") && runs[0].error.contains("exited with status 3") &&
                     runs[0].error.contains("cannot load libstrata.so: no such file"),
                 qPrintable(runs[0].error));
        QCOMPARE(runs[0].steps, qint64(0));
        QCOMPARE(runs[0].samplesPerSec, 0.0);
        QCOMPARE(runs[0].metrics, QString("{}"));
    }

    void launchThatStartsNothingIsNotARun()
    {
        RunHistory history;
        openHistory(history);
        RunController run;
        run.setHistory(&history, "app");
        QSignalSpy historyErrors(&run, &RunController::historyError);
        ExperimentDocument doc;
        doc.replace(tinyExperiment(), "tiny");
        QString error;
        QVERIFY(!run.launch(doc, m_dir.filePath("no-such-engine"), newPath("run"), &error));
        doc.set("/training/epochs", 0); // invalid
        QVERIFY(!run.launch(doc, kEngine, newPath("run"), &error));
        QVERIFY(allRuns(history).empty());
        QCOMPARE(run.historyId(), qint64(0));
        QCOMPARE(historyErrors.count(), 0);
    }

    void withoutHistoryNothingIsRecorded()
    {
        ExperimentDocument doc;
        doc.replace(tinyExperiment(1), "tiny");
        RunController run;
        QCOMPARE(run.history(), nullptr);
        QSignalSpy finished(&run, &RunController::finished);
        QSignalSpy historyErrors(&run, &RunController::historyError);
        QString error;
        QVERIFY2(run.launch(doc, kEngine, newPath("run"), &error), qPrintable(error));
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Completed);
        QCOMPARE(run.historyId(), qint64(0));
        QCOMPARE(historyErrors.count(), 0);
    }

    void unavailableHistoryIsReportedAndTheRunGoesOn_data()
    {
        QTest::addColumn<bool>("damaged"); // else: in a place that cannot be created
        QTest::newRow("damaged file") << true;
        QTest::newRow("unwritable place") << false;
    }

    void unavailableHistoryIsReportedAndTheRunGoesOn()
    {
        QFETCH(bool, damaged);
        QString path;
        if (damaged) {
            path = writeFile(newPath("damaged") + ".sqlite", QByteArray(4096, '\x5a'));
        } else {
            const QString file = writeFile(newPath("a-file"), "x");
            path = file + "/history.sqlite";
        }
        RunHistory history;
        QString error;
        QVERIFY(!history.open(path, &error));
        QVERIFY2(error.contains(path), qPrintable(error));

        ExperimentDocument doc;
        doc.replace(tinyExperiment(1), "tiny");
        RunController run;
        run.setHistory(&history, "app");
        QSignalSpy finished(&run, &RunController::finished);
        QSignalSpy historyErrors(&run, &RunController::historyError);
        QVERIFY2(run.launch(doc, kEngine, newPath("run"), &error), qPrintable(error));
        QCOMPARE(historyErrors.count(), 1);
        const QString message = historyErrors.first().first().toString();
        QVERIFY2(message.contains(path) && message.contains("not open"), qPrintable(message));
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Completed);
        QCOMPARE(historyErrors.count(), 1); // said once
        QCOMPARE(run.historyId(), qint64(0));
        if (damaged)
            QCOMPARE(fileBytes(path), QByteArray(4096, '\x5a'));
    }

    void historyLockedWhenTheRunEnds()
    {
        RunHistory history;
        openHistory(history);
        ExperimentDocument doc;
        doc.replace(tinyExperiment(1), "tiny");
        RunController run;
        run.setHistory(&history, "app");
        QSignalSpy finished(&run, &RunController::finished);
        QSignalSpy historyErrors(&run, &RunController::historyError);
        QString error;
        QVERIFY2(run.launch(doc, kEngine, newPath("run"), &error), qPrintable(error));
        // Another program takes the database for itself while the run goes on.
        RawDb other(history.path());
        other.exec("BEGIN EXCLUSIVE");
        QVERIFY(finished.wait(kRunTimeoutMs));
        QCOMPARE(run.outcome(), RunOutcome::Completed);
        QCOMPARE(historyErrors.count(), 1);
        const QString message = historyErrors.first().first().toString();
        QVERIFY2(message.contains(history.path()) && message.contains("locked by another program"), qPrintable(message));
        other.exec("ROLLBACK");
        // The record is there, still `running` (the window marks such runs interrupted when
        // it starts next).
        QCOMPARE(history.run(run.historyId(), &error)->status, RunStatus::Running);
    }

    void runEndFromAStore()
    {
        // Two training tasks (a chief and a worker) and an evaluator: the chief's metrics, the
        // training tasks' throughput added up, the furthest step, every failure.
        MetricsStore store;
        const auto event = [&](const QString& task, const std::string& json) {
            store.ingest(task, Json::parse(json));
        };
        event("chief:0", R"({"v":1,"type":"step","t":1,"task":"chief:0","step":10,"epoch":0,"loss":1.0,"samples_per_sec":100})");
        event("chief:0", R"({"v":1,"type":"step","t":2,"task":"chief:0","step":20,"epoch":0,"loss":0.9,"samples_per_sec":300})");
        event("worker:1", R"({"v":1,"type":"step","t":1,"task":"worker:1","step":25,"epoch":0,"loss":1.0,"samples_per_sec":50})");
        event("evaluator:0", R"({"v":1,"type":"step","t":1,"task":"evaluator:0","step":30,"epoch":0,"loss":1.0,"samples_per_sec":1000})");
        event("chief:0", R"({"v":1,"type":"done","t":3,"task":"chief:0","status":"completed","steps":20,"train":{"loss":0.9},"test":{"loss":0.8,"accuracy":0.7}})");
        event("worker:1", R"({"v":1,"type":"error","t":3,"task":"worker:1","message":"out of memory","fatal":true})");
        const RunEnd end = runEndFromStore(RunOutcome::Failed, store, 12.5);
        QCOMPARE(end.status, RunStatus::Failed);
        QCOMPARE(end.wallSeconds, 12.5);
        QCOMPARE(end.steps, qint64(25)); // the evaluator's steps are not training steps
        QCOMPARE(end.samplesPerSec, 200.0 + 50.0);
        QCOMPARE(Json::parse(end.metrics.toStdString()),
                 Json::parse(R"({"train":{"loss":0.9},"test":{"loss":0.8,"accuracy":0.7}})"));
        QVERIFY2(end.error.contains("worker:1: out of memory"), qPrintable(end.error));
        QVERIFY2(end.error.contains("evaluator:0: ended without reporting how"), qPrintable(end.error));
        QVERIFY2(!end.error.contains("chief:0"), qPrintable(end.error));
    }
};

QTEST_GUILESS_MAIN(TestRunRecorder)
#include "tst_run_recorder.moc"
