// Runs that went on without Strata, as a window finds them when it opens: a `running` run whose
// directory is gone, or has no nodes.json (an older Strata's), is marked interrupted; one that
// another Strata follows (its strata.lock held, here by this process) is left alone; one whose
// lock was left by a process that is gone, or that has none, is offered for reattaching.
// Finished runs are not touched.

#include "app/launch/unfollowed_runs.h"
#include "app/rundir/task_places.h"
#include "history_test_util.h"

#include <QDir>
#include <QLockFile>
#include <QtTest>

using namespace strata::app;
using namespace historytest;

class TestUnfollowedRuns : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // A run directory as the launcher leaves it: the experiment and, unless `older`, nodes.json.
    QString runDir(const QString& name, bool older = false)
    {
        const QString dir = m_dir.filePath(name);
        QDir().mkpath(dir);
        QFile launch(dir + "/launch.strata.json");
        if (!launch.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(launch.fileName()));
        launch.write("{}\n");
        QString error;
        if (!older && !writeTaskPlaces(dir, {{"worker:0", "local", "localhost", false, "strata-engine", dir, 0, 0}}, &error))
            qFatal("%s", qPrintable(error));
        return dir;
    }

    qint64 insert(RunHistory& history, const QString& name, RunStatus status, const QString& dir)
    {
        RunRecord r = makeRun(name, "OneDevice", status, 1763900000 + m_runs++);
        r.runDir = dir;
        QString error;
        if (!history.insertRun(r, &error))
            qFatal("%s", qPrintable(error));
        return r.id;
    }
    int m_runs = 0;

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void runningRunsAreSorted()
    {
        RunHistory history;
        QString error;
        QVERIFY2(history.open(m_dir.filePath("history.sqlite"), &error), qPrintable(error));
        const qint64 gone = insert(history, "gone", RunStatus::Running, m_dir.filePath("no-such-run"));
        const qint64 older = insert(history, "older", RunStatus::Running, runDir("older", true));
        const QString followedDir = runDir("followed");
        const qint64 followed = insert(history, "followed", RunStatus::Running, followedDir);
        const qint64 free = insert(history, "free", RunStatus::Running, runDir("free"));
        const QString staleDir = runDir("stale");
        const qint64 stale = insert(history, "stale", RunStatus::Running, staleDir);
        const qint64 done = insert(history, "done", RunStatus::Completed, runDir("done"));

        QLockFile held(runLockPath(followedDir));
        QVERIFY(held.tryLock(0));
        // A lock left by a Strata that is gone: a pid no process has.
        QFile staleLock(runLockPath(staleDir));
        QVERIFY(staleLock.open(QIODevice::WriteOnly));
        staleLock.write("999999999\nstrata\n" + QSysInfo::machineHostName().toUtf8() + "\n");
        staleLock.close();

        QVERIFY(isRunFollowed(followedDir));
        QVERIFY(!isRunFollowed(staleDir));
        QVERIFY(!isRunFollowed(runDir("free")));
        QVERIFY(canFollowAgain(followedDir));
        QVERIFY(!canFollowAgain(runDir("older2", true)));
        QVERIFY(!canFollowAgain(QString()));

        QList<qint64> ids;
        QVERIFY2(unfollowedRuns(history, &ids, &error), qPrintable(error));
        QCOMPARE(ids, (QList<qint64>{stale, free})); // newest first
        QCOMPARE(history.run(gone, &error)->status, RunStatus::Interrupted);
        QCOMPARE(history.run(older, &error)->status, RunStatus::Interrupted);
        for (qint64 id : {followed, free, stale})
            QCOMPARE(history.run(id, &error)->status, RunStatus::Running);
        QCOMPARE(history.run(done, &error)->status, RunStatus::Completed);
        // Asking did not take the lock of a run nobody follows, nor leave one behind.
        QVERIFY(!QFileInfo::exists(runLockPath(runDir("free"))));
        QVERIFY(held.isLocked());

        // Once its follower lets go, the followed run is offered too.
        held.unlock();
        ids.clear();
        QVERIFY2(unfollowedRuns(history, &ids, &error), qPrintable(error));
        QCOMPARE(ids, (QList<qint64>{stale, free, followed}));
    }
};

QTEST_GUILESS_MAIN(TestUnfollowedRuns)
#include "tst_unfollowed_runs.moc"
