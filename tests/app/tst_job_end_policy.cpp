// The job-end policy (no process, no timer): when the tasks that do not end the job are wound
// down and with how much grace (the evaluator's after a good end, none after a failure, of
// every kind), under MultiWorkerMirrored and ParameterServer; what becomes of a task whose
// grace is over (killed, or given up when it cannot be reached); which lost tasks are stopped
// (only those a peer names, still running, not yet asked).

#include "app/launch/job/job_end_policy.h"

#include <QtTest>

using namespace strata::app;

namespace {

constexpr int kGrace = 1234;

TaskStanding task(const QString& name, bool endsJob)
{
    TaskStanding t;
    t.name = name;
    t.endsJob = endsJob;
    return t;
}

TaskStanding ended(TaskStanding t, int code = 0)
{
    t.ended = true;
    t.end.task = t.name;
    t.end.exitCode = code;
    return t;
}

// A MultiWorkerMirrored job: two workers that end it, an evaluator that does not.
std::vector<TaskStanding> multiWorker()
{
    return {task("worker:0", true), task("worker:1", true), task("evaluator", false)};
}

JobEndPolicy policy()
{
    JobEndPolicy p;
    p.evaluatorGraceMs = kGrace;
    return p;
}

} // namespace

class TestJobEndPolicy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noWindDownWhileTheJobRuns()
    {
        auto tasks = multiWorker();
        QVERIFY(!policy().windDownGrace(tasks));
        tasks[0] = ended(tasks[0]);
        QVERIFY(!policy().windDownGrace(tasks));
    }

    void evaluatorGraceAfterAGoodEnd()
    {
        auto tasks = multiWorker();
        tasks[0] = ended(tasks[0]);
        tasks[1] = ended(tasks[1]);
        QCOMPARE(policy().windDownGrace(tasks), std::optional<int>(kGrace));
        QCOMPARE(policy().windDownOver(tasks), QStringList{"evaluator"});
    }

    void noGraceAfterAFailure_data()
    {
        QTest::addColumn<int>("code");
        QTest::addColumn<bool>("crashed");
        QTest::addColumn<QString>("failedToStart");
        QTest::addColumn<QString>("vanished");
        QTest::newRow("exit status 1") << 1 << false << QString() << QString();
        QTest::newRow("killed") << 9 << true << QString() << QString();
        QTest::newRow("failed to start") << 0 << false << QString("no engine") << QString();
        QTest::newRow("vanished") << 0 << false << QString() << QString("its node could not be reached");
    }
    void noGraceAfterAFailure()
    {
        QFETCH(int, code);
        QFETCH(bool, crashed);
        QFETCH(QString, failedToStart);
        QFETCH(QString, vanished);
        auto tasks = multiWorker();
        tasks[0] = ended(tasks[0]);
        tasks[1] = ended(tasks[1], code);
        tasks[1].end.crashed = crashed;
        tasks[1].end.failedToStart = failedToStart;
        tasks[1].end.vanished = vanished;
        QVERIFY(!JobEndPolicy::endedWell(tasks[1].end));
        QCOMPARE(policy().windDownGrace(tasks), std::optional<int>(0));
    }

    // Nothing left to wind down: every other task ended, or was asked to stop already.
    void nothingToWindDown()
    {
        auto tasks = multiWorker();
        tasks[0] = ended(tasks[0]);
        tasks[1] = ended(tasks[1]);
        tasks[2].terminated = true;
        QVERIFY(!policy().windDownGrace(tasks));
        tasks[2] = ended(tasks[2]);
        QVERIFY(!policy().windDownGrace(tasks));
        QVERIFY(policy().windDownOver(tasks).isEmpty());
        std::vector<TaskStanding> lone{ended(task("worker:0", true))};
        QVERIFY(!policy().windDownGrace(lone));
    }

    // ParameterServer: the chief (the coordinator) ends the job; workers and ps tasks are wound down.
    void parameterServer()
    {
        std::vector<TaskStanding> tasks{task("chief:0", true), task("worker:0", false), task("worker:1", false),
                                        task("ps:0", false)};
        QVERIFY(!policy().windDownGrace(tasks));
        tasks[2] = ended(tasks[2]);
        QVERIFY(!policy().windDownGrace(tasks));
        tasks[0] = ended(tasks[0]);
        QCOMPARE(policy().windDownGrace(tasks), std::optional<int>(kGrace));
        QCOMPARE(policy().windDownOver(tasks), (QStringList{"worker:0", "ps:0"}));
    }

    void graceOver()
    {
        TaskStanding t = task("worker:0", true);
        QCOMPARE(JobEndPolicy::overdue(t), JobEndPolicy::Overdue::None);
        t.terminated = true;
        QCOMPARE(JobEndPolicy::overdue(t), JobEndPolicy::Overdue::Kill);
        t.reachable = false;
        QCOMPARE(JobEndPolicy::overdue(t), JobEndPolicy::Overdue::GiveUp);
        QCOMPARE(JobEndPolicy::overdue(ended(t)), JobEndPolicy::Overdue::None);
    }

    void lostTasks()
    {
        std::vector<TaskStanding> tasks{task("worker:0", true), task("worker:1", true), task("worker:2", true),
                                        task("worker:3", true)};
        tasks[2] = ended(tasks[2], 1);
        tasks[3].terminated = true;
        const QList<LostTask> lost{{"worker:1", "named lost by worker:0", true},
                                   {"worker:0", "lost by the coordinator", false},
                                   {"worker:2", "named lost by worker:0", true},
                                   {"worker:3", "named lost by worker:0", true},
                                   {"worker:9", "named lost by worker:0", true}};
        QCOMPARE(policy().lostToStop(lost, tasks), QStringList{"worker:1"});
        QVERIFY(policy().lostToStop({}, tasks).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestJobEndPolicy)
#include "tst_job_end_policy.moc"
