// WindowSession, the window's controller, without widgets and with the real engine: what it
// says when the engine or the history cannot be used; a launch (refused while a run goes on
// or for an invalid document) that asks for the dashboard, then reports the run's end; a
// refused resume asked of its ResumeAsker after the run ended and launched again as answered
// (or the run directory left alone); resume, reattach and compare refused naming the cause;
// a sweep reported once, its runs compared, the comparison asked for; a run checked against the
// plan of a real (quick) probe when it ends: its prediction, measurement and error in the history
// and in the end-of-run message, the planner calibrated.

#include "../event_deadline.h"
#include "app/session/window_session.h"

#include "app_test_util.h"

#include "app/plan/plan_calibration.h"
#include "app/plan/plan_history.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <deque>

using namespace strata::app;
using namespace apptest;

namespace {

const QString kEngine = QStringLiteral(STRATA_ENGINE_PATH);

// Answers refused resumes from a script, and keeps what it was asked.
struct ScriptedAsker : ResumeAsker {
    std::deque<std::optional<ResumeChoice>> answers; // none left: leave the directory
    int questions = 0;
    QString runDir;
    QStringList differences;

    std::optional<ResumeChoice> askResumeChoice(const QString& dir, const ResumeRefusal& refusal) override
    {
        ++questions;
        runDir = dir;
        differences = refusal.differences;
        if (answers.empty())
            return std::nullopt;
        const auto answer = answers.front();
        answers.pop_front();
        return answer;
    }
};

// The texts of a spy on WindowSession::message, and whether each was an error.
QStringList texts(const QSignalSpy& messages)
{
    QStringList out;
    for (const QList<QVariant>& m : messages)
        out << (m[1].toBool() ? "error: " : "info: ") + m[0].toString();
    return out;
}

WindowSession::View lastView(const QSignalSpy& views) { return views.last()[0].value<WindowSession::View>(); }

} // namespace

class TestWindowSession : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void saysWhatCannotBeUsed()
    {
        WindowSession session(m_dir.filePath("no-such-engine"));
        QSignalSpy messages(&session, &WindowSession::message);
        QSignalSpy history(&session, &WindowSession::historyChanged);
        session.openHistory(m_dir.path()); // a directory: no history there
        QCOMPARE(messages.size(), 1);
        QVERIFY(messages[0][1].toBool());
        const QStringList lines = messages[0][0].toString().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines[0].startsWith("The training engine cannot be used: "), qPrintable(lines[0]));
        QVERIFY2(lines[1].startsWith("Runs will not be recorded in the run history: "), qPrintable(lines[1]));
        QCOMPARE(history.size(), 0);

        session.document().replace(tinyExperiment(1), "tiny");
        QVERIFY(session.document().validation().ok());
        QVERIFY(session.launchBlocker().startsWith("The engine cannot be started: "));
        QVERIFY(!session.canLaunch());
        QVERIFY(!session.launch());
        QVERIFY(!session.run().isRunning());
        QVERIFY(!session.runSweep({{"OneDevice", Json{{"type", "OneDevice"}, {"device", "cpu:0"}}}}));
        QVERIFY(texts(messages).last().startsWith("error: The engine cannot be started: "));
    }

    void launchShowsTheDashboardThenReportsTheEnd()
    {
        WindowSession session(kEngine);
        QSignalSpy messages(&session, &WindowSession::message);
        QSignalSpy history(&session, &WindowSession::historyChanged);
        QSignalSpy views(&session, &WindowSession::showRequested);
        QSignalSpy finished(&session, &WindowSession::runFinished);
        session.openHistory(m_dir.filePath("launch.sqlite"));
        QCOMPARE(messages.size(), 0); // nothing wrong, nothing to reattach
        QCOMPARE(history.size(), 1);

        // An invalid document is not launched.
        session.document().replace(tinyExperiment(1), "tiny");
        session.document().setValue("/training/epochs", 0);
        QVERIFY(!session.document().validation().ok());
        QVERIFY(session.launchBlocker().isEmpty());
        QVERIFY(!session.canLaunch());
        QVERIFY(!session.launch());
        QVERIFY(!session.run().isRunning());
        QCOMPARE(views.size(), 0);

        session.document().setValue("/training/epochs", 1);
        QVERIFY(session.launch());
        QCOMPARE(views.size(), 1);
        QCOMPARE(lastView(views), WindowSession::View::Dashboard);
        QCOMPARE(history.size(), 2); // the run's record, as running
        QString error;
        QCOMPARE(session.history().run(session.run().historyId(), &error)->status, RunStatus::Running);
        QCOMPARE(texts(messages), QStringList{QStringLiteral("info: Running %1 in %2")
                                                  .arg(session.document().displayName(), session.run().runDir())});
        // One run at a time.
        QCOMPARE(session.launchBlocker(), QString("A run is in progress."));
        QVERIFY(!session.launch());

        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        QCOMPARE(session.run().outcome(), RunOutcome::Completed);
        QCOMPARE(texts(messages).last(), "info: " + session.run().summary());
        QCOMPARE(history.size(), 3); // the run's record has its outcome
        QCOMPARE(session.history().run(session.run().historyId(), &error)->status, RunStatus::Completed);
        QVERIFY(session.canLaunch());
    }

    void finishedRunIsCheckedAgainstItsPlan()
    {
        WindowSession session(kEngine);
        QSignalSpy messages(&session, &WindowSession::message);
        QSignalSpy finished(&session, &WindowSession::runFinished);
        session.openHistory(m_dir.filePath("plan.sqlite"));
        session.document().replace(tinyExperiment(2), "tiny");
        plan::PlanSession& planner = session.planner();
        QSignalSpy made(&planner, &plan::PlanSession::planChanged);
        QSignalSpy failed(&planner, &plan::PlanSession::failed);
        plan::ProbeOptions quick;
        quick.quick = true;
        QVERIFY(planner.probe(quick));
        QVERIFY2(made.wait(testing::kEventDeadlineMs), qPrintable(failed.isEmpty() ? QString() : failed[0][0].toString()));
        QVERIFY(planner.storedPlanId() > 0);
        double predicted = 0;
        for (const plan::Prediction& p : planner.plan()->predictions)
            if (p.strategy == plan::Strategy::OneDevice && p.workers == 1)
                predicted = p.samplesPerSecond;
        QVERIFY(predicted > 0);

        QVERIFY(session.launch());
        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        QCOMPARE(session.run().outcome(), RunOutcome::Completed);
        QString error;
        const std::optional<RunRecord> run = session.history().run(session.run().historyId(), &error);
        QVERIFY2(run && run->prediction, qPrintable(texts(messages).join('\n')));
        QCOMPARE(run->prediction->planId, planner.storedPlanId());
        QCOMPARE(run->prediction->predictedSamplesPerSec, predicted);
        QVERIFY(run->prediction->measuredSamplesPerSec > 0);
        QCOMPARE(run->prediction->error, plan::predictionError(predicted, run->prediction->measuredSamplesPerSec));
        QCOMPARE(texts(messages).last(),
                 "info: " + session.run().summary() + "\nAgainst the plan: " + predictionText(*run->prediction));
        plan::Calibration calibration;
        QVERIFY2(plan::storedCalibration(session.history(), &calibration, &error), qPrintable(error));
        QCOMPARE(calibration.entries.size(), size_t(1));
        QCOMPARE(calibration.entries[0].strategy, plan::Strategy::OneDevice);
        QCOMPARE(calibration.entries[0].factor, run->prediction->measuredSamplesPerSec / predicted);

        // A restart: another window on the same history opens the experiment's file, and its
        // Plan view holds the newest plan again, remade from the stored probe with the
        // calibration the run taught (OneDevice: its factor; the others as they were).
        const QString file = m_dir.filePath("tiny.strata.json");
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(QByteArray::fromStdString(tinyExperiment(2).dump()));
        }
        WindowSession again(kEngine);
        again.openHistory(m_dir.filePath("plan.sqlite"));
        QVERIFY(!again.planner().plan()); // no experiment of that name open yet
        QSignalSpy restored(&again.planner(), &plan::PlanSession::planChanged);
        QVERIFY2(again.document().load(file, &error), qPrintable(error));
        QCOMPARE(restored.size(), 1);
        QVERIFY(again.planner().plan());
        QCOMPARE(again.planner().storedPlanId(), planner.storedPlanId());
        QCOMPARE(again.planner().madeAt().toSecsSinceEpoch(), planner.madeAt().toSecsSinceEpoch());
        const auto& before = planner.plan()->predictions;
        const auto& after = again.planner().plan()->predictions;
        QCOMPARE(after.size(), before.size());
        for (size_t i = 0; i < after.size(); ++i) {
            QCOMPARE(after[i].strategy, before[i].strategy);
            QCOMPARE(after[i].workers, before[i].workers);
            QCOMPARE(after[i].stepSeconds, before[i].stepSeconds);
            const double factor = after[i].strategy == plan::Strategy::OneDevice ? calibration.entries[0].factor : 1.0;
            QVERIFY(qAbs(after[i].samplesPerSecond - before[i].samplesPerSecond * factor) < 1e-9 * before[i].samplesPerSecond);
        }
        QVERIFY(again.planner().calibrationNote().startsWith("Calibrated by 1 finished run"));
    }

    void refusedResumeIsAskedAndLaunchedAsAnswered()
    {
        WindowSession session(kEngine);
        ScriptedAsker asker;
        session.setResumeAsker(&asker);
        QSignalSpy messages(&session, &WindowSession::message);
        QSignalSpy finished(&session, &WindowSession::runFinished);
        QSignalSpy views(&session, &WindowSession::showRequested);
        session.openHistory(m_dir.filePath("resume.sqlite"));
        session.document().replace(tinyExperiment(1), "tiny");
        QVERIFY(session.launch());
        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        QCOMPARE(session.run().outcome(), RunOutcome::Completed);
        const QString runDir = session.run().runDir();
        const qint64 id = session.run().historyId();
        QVERIFY(id > 0);

        // Another seed: the engine refuses; the asker is asked once the run ended; no answer
        // leaves the directory as it is and says why.
        session.document().setValue("/seed", 6);
        QVERIFY(session.resume(id));
        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        QTRY_COMPARE_WITH_TIMEOUT(asker.questions, 1, testing::kEventDeadlineMs);
        QCOMPARE(asker.runDir, runDir);
        QCOMPARE(asker.differences, QStringList{"seed: 5 (checkpoint) vs 6 (experiment)"});
        QVERIFY(texts(messages).last().startsWith("error: Not resumed: the checkpoints in " + runDir));
        QVERIFY(texts(messages).last().endsWith("seed: 5 (checkpoint) vs 6 (experiment)"));
        QCOMPARE(QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size(), 0);

        // Answered Fresh: launched again into the same directory, the old checkpoints set aside.
        asker.answers = {ResumeChoice::Fresh};
        const qsizetype viewsBefore = views.size();
        const qsizetype finishedBefore = finished.size();
        QVERIFY(session.resume(id));
        QTRY_VERIFY_WITH_TIMEOUT(finished.size() == finishedBefore + 2, testing::kEventDeadlineMs); // the refusal, the fresh run
        QCOMPARE(asker.questions, 2);
        QCOMPARE(views.size(), viewsBefore + 2); // the dashboard, for each launch
        QCOMPARE(session.run().runDir(), runDir);
        QCOMPARE(session.run().outcome(), RunOutcome::Completed);
        QCOMPARE(QDir(runDir).entryList({"set-aside-*"}, QDir::Dirs).size(), 1);
        QVERIFY(session.run().resumeRefusal() == std::nullopt);
    }

    void resumeReattachAndCompareNameWhatStopsThem()
    {
        WindowSession session(kEngine);
        QSignalSpy messages(&session, &WindowSession::message);
        QSignalSpy finished(&session, &WindowSession::runFinished);
        session.openHistory(m_dir.filePath("refusals.sqlite"));
        QVERIFY(!session.resume(4242));
        QVERIFY(texts(messages).last().startsWith("error: Cannot resume run #4242: "));
        QVERIFY(!session.reattach(4242));
        QVERIFY(texts(messages).last().startsWith("error: Cannot reattach run #4242: "));
        QVERIFY(!session.compareRuns({4242, 4243}));
        QVERIFY(texts(messages).last().startsWith("error: Cannot compare these runs: "));

        session.document().replace(endlessExperiment(), "endless");
        QVERIFY(session.launch());
        const qint64 id = session.run().historyId();
        QVERIFY(!session.resume(id));
        QCOMPARE(texts(messages).last(), QStringLiteral("error: Cannot resume run #%1: a run is in progress here (stop "
                                                        "it, or wait for its end)").arg(id));
        QVERIFY(!session.reattach(id));
        QCOMPARE(texts(messages).last(), QStringLiteral("error: Cannot reattach run #%1: a run is in progress here "
                                                        "(stop it, or wait for its end)").arg(id));
        QTRY_VERIFY_WITH_TIMEOUT(session.run().store().progress().step > 0, testing::kEventDeadlineMs); // training
        session.stop();
        QVERIFY(texts(messages).last().startsWith("info: Stopping: "));
        QVERIFY(finished.wait(testing::kEventDeadlineMs));
        QVERIFY2(session.run().outcome() == RunOutcome::Stopped, qPrintable(session.run().summary()));
    }

    void finishedSweepIsReportedOnceAndCompared()
    {
        WindowSession session(kEngine);
        QSignalSpy messages(&session, &WindowSession::message);
        QSignalSpy progress(&session, &WindowSession::sweepProgress);
        QSignalSpy ended(&session, &WindowSession::sweepEnded);
        QSignalSpy views(&session, &WindowSession::showRequested);
        session.openHistory(m_dir.filePath("sweep.sqlite"));
        session.document().replace(tinyExperiment(1), "tiny");
        const int cpus = session.engine().host.logicalCpus;
        const QList<SweepVariant> variants{sweepVariant("OneDevice", 1, cpus), sweepVariant("Mirrored", 2, cpus)};
        QVERIFY(session.runSweep(variants));
        QVERIFY(ended.wait(testing::kEventDeadlineMs));
        QCOMPARE(ended[0][0].toString(), QString("2 of 2 strategies ran"));
        QCOMPARE(progress.size(), 2);
        QCOMPARE(progress[1][0].toInt(), 1);
        QCOMPARE(progress[1][1].toInt(), 2);
        QCOMPARE(progress[1][2].toString(), variants[1].label);
        QCOMPARE(session.comparison().runCount(), 2);
        QCOMPARE(session.comparison().labels(), (QStringList{variants[0].label, variants[1].label}));
        QCOMPARE(lastView(views), WindowSession::View::Comparison);
        QCOMPARE(views.size(), 1); // the sweep's runs do not ask for the dashboard
        // The sweep's start and its end; its runs are not reported one by one.
        QCOMPARE(messages.size(), 2);
        QCOMPARE(texts(messages)[1], QString("info: Sweep done: 2 of 2 strategies ran, compared below."));
        QVERIFY(session.canLaunch());

        // The same runs compared again from the history.
        session.comparison().clear();
        const auto& runs = session.sweep().finishedRuns();
        QVERIFY(session.compareRuns({runs[0].historyId, runs[1].historyId}));
        QCOMPARE(session.comparison().runCount(), 2);
        QCOMPARE(views.size(), 2);
        QCOMPARE(lastView(views), WindowSession::View::Comparison);
    }
};

QTEST_GUILESS_MAIN(TestWindowSession)
#include "tst_window_session.moc"
