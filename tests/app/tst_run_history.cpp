// RunHistory: insert, read back, finish, rename, tags, delete (with and without the run
// directory), filters on every criterion and sorting on every key, 1,000 runs; the schema:
// a fresh file, migration from a version 1 database (as version 1 of Strata wrote it), a
// newer version refused; bad files: damaged, foreign, locked by another connection (before
// and after opening), unwritable places; every refusal leaves the file byte for byte.
// Also `strata runs`: its table text and its exit statuses.

#include "history_test_util.h"

#include "app/history/runs_table.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <thread>

using namespace strata::app;
using namespace historytest;

namespace {

// Version 1 of the schema exactly as released: the fixture a migration starts from. Never
// edit it to follow the current schema.
const char* const kVersion1Schema = R"(CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    experiment TEXT NOT NULL,
    strategy TEXT NOT NULL,
    replicas INTEGER NOT NULL DEFAULT 0,
    tasks TEXT NOT NULL DEFAULT '[]',
    hosts TEXT NOT NULL DEFAULT '',
    source TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    status TEXT NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    metrics TEXT NOT NULL DEFAULT '{}',
    steps INTEGER NOT NULL DEFAULT 0,
    samples_per_sec REAL NOT NULL DEFAULT 0,
    wall_seconds REAL NOT NULL DEFAULT 0,
    run_dir TEXT NOT NULL DEFAULT ''))";

QList<qint64> idsOf(const std::vector<RunRecord>& runs)
{
    QList<qint64> ids;
    for (const auto& r : runs)
        ids << r.id;
    return ids;
}

QStringList siblingsOf(const QString& path)
{
    const QFileInfo f(path);
    return f.dir().entryList({f.fileName() + "-*"}, QDir::Files);
}

} // namespace

class TestRunHistory : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_files = 0;

    QString newPath() { return m_dir.filePath(QStringLiteral("history-%1.sqlite").arg(++m_files)); }

    std::vector<RunRecord> query(const RunHistory& history, const RunFilter& filter)
    {
        std::vector<RunRecord> runs;
        QString error;
        if (!history.query(filter, &runs, &error))
            qWarning("%s", qPrintable(error));
        return runs;
    }

    // Six runs to filter: ids 1..6 started one hour apart, in this order.
    void fillSix(RunHistory& history)
    {
        const qint64 t0 = 1763800000;
        std::vector<RunRecord> runs{
            makeRun("fashion-mnist-mlp", "OneDevice", RunStatus::Completed, t0, 0.87, {"baseline"}),
            makeRun("fashion-mnist-mlp", "Mirrored", RunStatus::Completed, t0 + 3600, 0.88, {"mirrored", "2 cpus"}),
            makeRun("fashion-mnist-cnn", "Mirrored", RunStatus::Failed, t0 + 7200, 0.10),
            makeRun("cifar10-cnn", "CentralStorage", RunStatus::Stopped, t0 + 3 * 3600, 0.55, {"long"}),
            makeRun("text_50%", "OneDevice", RunStatus::Running, t0 + 4 * 3600, 0.70),
            makeRun("regression", "OneDevice", RunStatus::Completed, t0 + 5 * 3600, 0.20),
        };
        runs[3].hosts = "gpu-box";
        runs[5].metrics = R"({"test":{"loss":0.9}})"; // no accuracy (a regression)
        QString error;
        for (auto& r : runs)
            QVERIFY2(history.insertRun(r, &error), qPrintable(error));
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void freshDatabase()
    {
        const QString path = m_dir.filePath("new/dir/history.sqlite");
        RunHistory history;
        QVERIFY(!history.isOpen());
        QString error;
        QVERIFY2(history.open(path, &error), qPrintable(error));
        QVERIFY(history.isOpen());
        QCOMPARE(history.path(), path);
        QVERIFY(QFileInfo(path).isFile());
        RawDb raw(path);
        QCOMPARE(raw.value("PRAGMA user_version").toInt(), RunHistory::kSchemaVersion);
        QCOMPARE(raw.value("PRAGMA journal_mode").toString(), QString("wal"));
        QVERIFY(query(history, {}).empty());
        // Opening it again migrates nothing and keeps it.
        RunHistory again;
        QVERIFY2(again.open(path, &error), qPrintable(error));
    }

    void defaultPathFollowsTheEnvironment()
    {
        const QByteArray saved = qgetenv("STRATA_HISTORY");
        qputenv("STRATA_HISTORY", "/somewhere/else.sqlite");
        QCOMPARE(RunHistory::defaultPath(), QString("/somewhere/else.sqlite"));
        qunsetenv("STRATA_HISTORY");
        QVERIFY2(RunHistory::defaultPath().endsWith("/history.sqlite"), qPrintable(RunHistory::defaultPath()));
        QVERIFY(QDir::isAbsolutePath(RunHistory::defaultPath()));
        if (!saved.isNull())
            qputenv("STRATA_HISTORY", saved);
    }

    void insertAndReadBack()
    {
        RunHistory history;
        QString error;
        QVERIFY2(history.open(newPath(), &error), qPrintable(error));
        RunRecord in = makeRun("fashion-mnist-mlp", "Mirrored", RunStatus::Running, 1763800000, 0.9,
                               {" zeta ", "alpha", "zeta", ""});
        in.source = "headless";
        in.error = QString(); // null strings are stored as empty text
        QVERIFY2(history.insertRun(in, &error), qPrintable(error));
        QCOMPARE(in.id, qint64(1));
        QCOMPARE(in.tags, (QStringList{"alpha", "zeta"})); // trimmed, unique, sorted, no empty one

        const std::optional<RunRecord> out = history.run(in.id, &error);
        QVERIFY2(out, qPrintable(error));
        QCOMPARE(out->id, in.id);
        QCOMPARE(out->name, in.name);
        QCOMPARE(out->label, QString());
        QCOMPARE(out->displayName(), in.name);
        QCOMPARE(out->experiment, in.experiment);
        QCOMPARE(out->strategy, QString("Mirrored"));
        QCOMPARE(out->replicas, 2);
        QCOMPARE(out->tasks, in.tasks);
        QCOMPARE(out->hosts, QString("box"));
        QCOMPARE(out->source, QString("headless"));
        QCOMPARE(out->startedAt, in.startedAt);
        QCOMPARE(out->endedAt, qint64(0));
        QCOMPARE(out->status, RunStatus::Running);
        QCOMPARE(out->error, QString(""));
        QCOMPARE(out->metrics, in.metrics);
        QCOMPARE(out->steps, in.steps);
        QCOMPARE(out->samplesPerSec, in.samplesPerSec);
        QCOMPARE(out->wallSeconds, in.wallSeconds);
        QCOMPARE(out->runDir, in.runDir);
        QCOMPARE(out->tags, (QStringList{"alpha", "zeta"}));
        QCOMPARE(finalMetric(*out, "test", "accuracy"), std::optional<double>(0.9));
        QCOMPARE(finalMetric(*out, "test", "mae"), std::optional<double>());
        QCOMPARE(finalMetric(*out, "validation", "loss"), std::optional<double>());

        // Ids are never reused, not even after a delete.
        RunRecord second = makeRun("b", "OneDevice", RunStatus::Completed, 1763800100);
        QVERIFY2(history.insertRun(second, &error), qPrintable(error));
        QCOMPARE(second.id, qint64(2));
        QVERIFY2(history.removeRun(2, false, &error), qPrintable(error));
        RunRecord third = makeRun("c", "OneDevice", RunStatus::Completed, 1763800200);
        QVERIFY2(history.insertRun(third, &error), qPrintable(error));
        QCOMPARE(third.id, qint64(3));

        QVERIFY(!history.run(42, &error));
        QVERIFY2(error.contains("no run 42") && error.contains(history.path()), qPrintable(error));
    }

    void finishRun()
    {
        RunHistory history;
        QString error;
        QVERIFY2(history.open(newPath(), &error), qPrintable(error));
        RunRecord r = makeRun("a", "OneDevice", RunStatus::Running, 1763800000);
        r.metrics.clear();
        QVERIFY2(history.insertRun(r, &error), qPrintable(error));
        QCOMPARE(history.run(r.id, &error)->metrics, QString("{}"));

        RunEnd end;
        end.status = RunStatus::Failed;
        end.error = "worker:0: /data/train-images: truncated";
        end.metrics = R"({"train":{"loss":2.3}})";
        end.steps = 17;
        end.samplesPerSec = 1234.5;
        end.wallSeconds = 3.25;
        end.endedAt = 1763800042;
        QVERIFY2(history.finishRun(r.id, end, &error), qPrintable(error));
        const RunRecord out = *history.run(r.id, &error);
        QCOMPARE(out.status, RunStatus::Failed);
        QCOMPARE(out.error, end.error);
        QCOMPARE(out.metrics, end.metrics);
        QCOMPARE(out.steps, qint64(17));
        QCOMPARE(out.samplesPerSec, 1234.5);
        QCOMPARE(out.wallSeconds, 3.25);
        QCOMPARE(out.endedAt, qint64(1763800042));

        // No end time given: now.
        const qint64 before = QDateTime::currentSecsSinceEpoch();
        end.endedAt = 0;
        end.status = RunStatus::Completed;
        QVERIFY2(history.finishRun(r.id, end, &error), qPrintable(error));
        QVERIFY(history.run(r.id, &error)->endedAt >= before);

        QVERIFY(!history.finishRun(999, end, &error));
        QVERIFY2(error.contains("no run 999"), qPrintable(error));
    }

    void renameAndTags()
    {
        RunHistory history;
        QString error;
        QVERIFY2(history.open(newPath(), &error), qPrintable(error));
        fillSix(history);

        QVERIFY2(history.rename(3, "  broken data  ", &error), qPrintable(error));
        RunRecord r = *history.run(3, &error);
        QCOMPARE(r.label, QString("broken data"));
        QCOMPARE(r.name, QString("fashion-mnist-cnn"));
        QCOMPARE(r.displayName(), QString("broken data"));
        RunFilter byText;
        byText.text = "BROKEN";
        QCOMPARE(idsOf(query(history, byText)), QList<qint64>{3});
        // The experiment's name still finds it.
        byText.text = "mnist-cnn";
        QCOMPARE(idsOf(query(history, byText)), QList<qint64>{3});
        QVERIFY2(history.rename(3, "", &error), qPrintable(error));
        QCOMPARE(history.run(3, &error)->displayName(), QString("fashion-mnist-cnn"));
        QVERIFY(!history.rename(99, "x", &error));
        QVERIFY2(error.contains("no run 99"), qPrintable(error));

        QVERIFY2(history.setTags(3, {"oom", "retry", "oom"}, &error), qPrintable(error));
        QCOMPARE(history.run(3, &error)->tags, (QStringList{"oom", "retry"}));
        QVERIFY2(history.setTags(3, {"retry"}, &error), qPrintable(error)); // replaces
        QCOMPARE(history.run(3, &error)->tags, QStringList{"retry"});
        byText.text = "retr";
        QCOMPARE(idsOf(query(history, byText)), QList<qint64>{3});
        QVERIFY2(history.setTags(3, {}, &error), qPrintable(error));
        QVERIFY(history.run(3, &error)->tags.isEmpty());
        QVERIFY(!history.setTags(99, {"x"}, &error));
        QVERIFY2(error.contains("no run 99"), qPrintable(error));
    }

    void filters_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<QString>("status");
        QTest::addColumn<qint64>("from"); // offsets from the first run's start; -1: open
        QTest::addColumn<qint64>("to");
        QTest::addColumn<int>("limit");
        QTest::addColumn<QList<qint64>>("ids"); // newest first

        QTest::newRow("all") << "" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{6, 5, 4, 3, 2, 1};
        QTest::newRow("name") << "mnist" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{3, 2, 1};
        QTest::newRow("name, any case") << "MNIST-MLP" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{2, 1};
        QTest::newRow("tag") << "baseline" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{1};
        QTest::newRow("tag with a blank") << "2 cpu" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{2};
        QTest::newRow("host") << "gpu-box" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{4};
        QTest::newRow("% and _ as typed") << "_50%" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{5};
        QTest::newRow("% is no wildcard") << "a%n" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{};
        QTest::newRow("_ is no wildcard") << "n_s" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{};
        QTest::newRow("nothing") << "resnet" << "" << "" << -1LL << -1LL << 0 << QList<qint64>{};
        QTest::newRow("strategy") << "" << "Mirrored" << "" << -1LL << -1LL << 0 << QList<qint64>{3, 2};
        QTest::newRow("strategy, any case") << "" << "onedevice" << "" << -1LL << -1LL << 0 << QList<qint64>{6, 5, 1};
        QTest::newRow("status completed") << "" << "" << "completed" << -1LL << -1LL << 0 << QList<qint64>{6, 2, 1};
        QTest::newRow("status failed") << "" << "" << "failed" << -1LL << -1LL << 0 << QList<qint64>{3};
        QTest::newRow("status running") << "" << "" << "running" << -1LL << -1LL << 0 << QList<qint64>{5};
        QTest::newRow("status stopped") << "" << "" << "stopped" << -1LL << -1LL << 0 << QList<qint64>{4};
        QTest::newRow("started from") << "" << "" << "" << 3 * 3600LL << -1LL << 0 << QList<qint64>{6, 5, 4};
        QTest::newRow("started before") << "" << "" << "" << -1LL << 7200LL << 0 << QList<qint64>{2, 1};
        QTest::newRow("started between") << "" << "" << "" << 3600LL << 3 * 3600LL + 1 << 0 << QList<qint64>{4, 3, 2};
        QTest::newRow("limit") << "" << "" << "" << -1LL << -1LL << 2 << QList<qint64>{6, 5};
        QTest::newRow("all criteria") << "fashion" << "mirrored" << "completed" << 0LL << 6 * 3600LL << 5
                                      << QList<qint64>{2};
    }

    void filters()
    {
        QFETCH(QString, text);
        QFETCH(QString, strategy);
        QFETCH(QString, status);
        QFETCH(qint64, from);
        QFETCH(qint64, to);
        QFETCH(int, limit);
        QFETCH(QList<qint64>, ids);
        RunHistory history;
        QString error;
        QVERIFY2(history.open(newPath(), &error), qPrintable(error));
        fillSix(history);
        RunFilter filter;
        filter.text = text;
        filter.strategy = strategy;
        if (!status.isEmpty())
            filter.status = statusFromName(status);
        const qint64 t0 = 1763800000;
        if (from >= 0)
            filter.startedFrom = QDateTime::fromSecsSinceEpoch(t0 + from);
        if (to >= 0)
            filter.startedTo = QDateTime::fromSecsSinceEpoch(t0 + to);
        filter.limit = limit;
        const std::vector<RunRecord> runs = query(history, filter);
        QCOMPARE(idsOf(runs), ids);
        // A listing leaves the experiment text out unless asked.
        for (const auto& r : runs)
            QVERIFY(r.experiment.isEmpty());
        filter.withExperiment = true;
        for (const auto& r : query(history, filter))
            QVERIFY(r.experiment.contains(r.name));
    }

    void sorting_data()
    {
        QTest::addColumn<int>("sort");
        QTest::addColumn<QList<qint64>>("ascending"); // ties broken by id
        QTest::newRow("started") << int(RunFilter::StartedAt) << QList<qint64>{1, 2, 3, 4, 5, 6};
        QTest::newRow("name (the label when set), any case") << int(RunFilter::Name) << QList<qint64>{2, 4, 3, 1, 5, 6};
        QTest::newRow("strategy") << int(RunFilter::Strategy) << QList<qint64>{3, 4, 2, 1, 6, 5};
        QTest::newRow("replicas") << int(RunFilter::Replicas) << QList<qint64>{1, 2, 4, 3, 6, 5};
        QTest::newRow("status") << int(RunFilter::Status) << QList<qint64>{1, 6, 2, 5, 4, 3};
        QTest::newRow("steps") << int(RunFilter::Steps) << QList<qint64>{1, 2, 3, 4, 5, 6};
        QTest::newRow("samples/s") << int(RunFilter::SamplesPerSec) << QList<qint64>{6, 5, 4, 3, 1, 2};
        // A run without the metric comes first (SQL NULL).
        QTest::newRow("test accuracy") << int(RunFilter::TestAccuracy) << QList<qint64>{5, 3, 4, 6, 1, 2};
        QTest::newRow("test loss") << int(RunFilter::TestLoss) << QList<qint64>{5, 2, 1, 6, 4, 3};
        QTest::newRow("wall time") << int(RunFilter::WallSeconds) << QList<qint64>{3, 1, 2, 4, 5, 6};
        QTest::newRow("tags") << int(RunFilter::Tags) << QList<qint64>{3, 6, 2, 5, 1, 4};
        // Runs not checked against a plan first (SQL NULL).
        QTest::newRow("prediction error") << int(RunFilter::PredictionError) << QList<qint64>{1, 3, 5, 4, 6, 2};
    }

    void sorting()
    {
        QFETCH(int, sort);
        QFETCH(QList<qint64>, ascending);
        RunHistory history;
        QString error;
        QVERIFY2(history.open(newPath(), &error), qPrintable(error));
        // Six runs with a different value of every key (but status), ids 1..6.
        struct Fixture {
            const char* name;
            const char* strategy;
            int replicas;
            RunStatus status;
            double samplesPerSec, accuracy, wallSeconds;
            QStringList tags;
        };
        const Fixture fixtures[] = {
            {"delta", "OneDevice", 1, RunStatus::Completed, 900, 0.87, 20, {"b"}},
            {"Alpha", "Mirrored", 2, RunStatus::Failed, 1000, 0.88, 30, {"a"}},
            {"charlie", "CentralStorage", 4, RunStatus::Stopped, 800, 0.10, 10, {}},
            {"bravo", "Default", 3, RunStatus::Running, 700, 0.55, 40, {"c"}},
            {"echo", "TPU", 8, RunStatus::Interrupted, 600, -1, 50, {"d", "a"}},
            {"zulu", "ParameterServer", 6, RunStatus::Completed, 500, 0.70, 60, {}},
        };
        qint64 step = 0;
        for (const Fixture& f : fixtures) {
            RunRecord r = makeRun(f.name, f.strategy, f.status, 1763800000 + step, f.accuracy, f.tags);
            r.replicas = f.replicas;
            r.steps = step += 1000;
            r.samplesPerSec = f.samplesPerSec;
            r.wallSeconds = f.wallSeconds;
            if (f.accuracy < 0)
                r.metrics = "{}";
            QVERIFY2(history.insertRun(r, &error), qPrintable(error));
        }
        QVERIFY2(history.rename(6, "foxtrot", &error), qPrintable(error));
        for (const auto& [id, runError] : {std::pair{2, 0.3}, std::pair{4, -0.1}, std::pair{6, 0.05}})
            QVERIFY2(history.recordPrediction(id, {0, 100, 100, runError}, "{}", &error), qPrintable(error));

        RunFilter filter;
        filter.sort = RunFilter::Sort(sort);
        filter.order = Qt::AscendingOrder;
        QCOMPARE(idsOf(query(history, filter)), ascending);
        filter.order = Qt::DescendingOrder;
        QList<qint64> descending(ascending.rbegin(), ascending.rend());
        QCOMPARE(idsOf(query(history, filter)), descending);
        // The limit applies after sorting.
        filter.limit = 2;
        QCOMPARE(idsOf(query(history, filter)), descending.mid(0, 2));
    }

    void removeRun()
    {
        RunHistory history;
        QString error;
        QVERIFY2(history.open(newPath(), &error), qPrintable(error));
        const auto runWithDir = [&](const QString& name, bool looksLikeARun) {
            RunRecord r = makeRun(name, "OneDevice", RunStatus::Completed, 1763800000, 0.8, {"tagged"});
            r.runDir = m_dir.filePath("runs/" + name);
            QDir().mkpath(r.runDir + "/checkpoints");
            if (looksLikeARun)
                QFile(r.runDir + "/launch.strata.json").open(QIODevice::WriteOnly);
            QFile(r.runDir + "/checkpoints/ckpt-1.strata").open(QIODevice::WriteOnly);
            if (!history.insertRun(r, &error))
                qFatal("%s", qPrintable(error));
            return r;
        };
        const RunRecord kept = runWithDir("kept-dir", true);
        const RunRecord removed = runWithDir("removed-dir", true);
        const RunRecord foreign = runWithDir("not-a-run", false);
        RunRecord gone = makeRun("dir-already-gone", "OneDevice", RunStatus::Completed, 1763800000);
        gone.runDir = m_dir.filePath("runs/never-made");
        QVERIFY2(history.insertRun(gone, &error), qPrintable(error));

        // The record only: the directory stays.
        QVERIFY2(history.removeRun(kept.id, false, &error), qPrintable(error));
        QVERIFY(!history.run(kept.id, &error));
        QVERIFY(QFileInfo::exists(kept.runDir + "/checkpoints/ckpt-1.strata"));
        // Its tags went with it.
        RawDb raw(history.path());
        QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM run_tags WHERE run_id = %1").arg(kept.id)).toInt(), 0);
        QCOMPARE(raw.value("SELECT count(*) FROM run_tags").toInt(), 2);

        // With its directory.
        QVERIFY2(history.removeRun(removed.id, true, &error), qPrintable(error));
        QVERIFY(!history.run(removed.id, &error));
        QVERIFY(!QFileInfo::exists(removed.runDir));

        // A directory Strata did not make is not removed, and the record stays.
        QVERIFY(!history.removeRun(foreign.id, true, &error));
        QVERIFY2(error.contains(foreign.runDir) && error.contains("does not look like a run directory"),
                 qPrintable(error));
        QVERIFY(history.run(foreign.id, &error));
        QVERIFY(QFileInfo::exists(foreign.runDir + "/checkpoints/ckpt-1.strata"));

        // A directory already gone: the record goes.
        QVERIFY2(history.removeRun(gone.id, true, &error), qPrintable(error));
        QVERIFY(!history.run(gone.id, &error));

        QVERIFY(!history.removeRun(kept.id, false, &error));
        QVERIFY2(error.contains(QStringLiteral("no run %1").arg(kept.id)), qPrintable(error));
        QCOMPARE(idsOf(query(history, {})), QList<qint64>{foreign.id});
    }

    void markInterrupted()
    {
        RunHistory history;
        QString error;
        QVERIFY2(history.open(newPath(), &error), qPrintable(error));
        fillSix(history); // run 5 is running
        RunRecord second = makeRun("also-running", "OneDevice", RunStatus::Running, 1763900000);
        QVERIFY2(history.insertRun(second, &error), qPrintable(error));
        // Only the runs named, and only while running: run 1 completed.
        int count = -1;
        QVERIFY2(history.markInterrupted({5, 1}, &error, &count), qPrintable(error));
        QCOMPARE(count, 1);
        QCOMPARE(history.run(5, &error)->status, RunStatus::Interrupted);
        QCOMPARE(history.run(second.id, &error)->status, RunStatus::Running);
        QCOMPARE(history.run(1, &error)->status, RunStatus::Completed);
        QVERIFY2(history.markInterrupted({5, second.id}, &error, &count), qPrintable(error));
        QCOMPARE(count, 1);
        QVERIFY2(history.markInterrupted({}, &error, &count), qPrintable(error));
        QCOMPARE(count, 0);
        RunFilter interrupted;
        interrupted.status = RunStatus::Interrupted;
        QCOMPARE(idsOf(query(history, interrupted)), (QList<qint64>{second.id, 5}));
    }

    void migrationFromVersion1()
    {
        const QString path = newPath();
        {
            RawDb v1(path);
            v1.exec(kVersion1Schema);
            v1.exec("PRAGMA user_version = 1");
            v1.exec("INSERT INTO runs (name, experiment, strategy, replicas, tasks, hosts, source, started_at, "
                    "ended_at, status, error, metrics, steps, samples_per_sec, wall_seconds, run_dir) VALUES "
                    "('old-mlp', '{\"name\":\"old-mlp\"}', 'Mirrored', 2, '[{\"task\":\"worker:0\",\"host\":\"box\"}]', "
                    "'box', 'app', 1763000000, 1763000060, 'completed', '', "
                    "'{\"test\":{\"loss\":0.4,\"accuracy\":0.86}}', 9375, 21000.5, 59.5, '/runs/old-mlp')");
            v1.exec("INSERT INTO runs (name, experiment, strategy, source, started_at, status, error) VALUES "
                    "('old-failed', '{}', 'OneDevice', 'headless', 1763000100, 'failed', 'worker:0: exited with status 3')");
        }
        RunHistory history;
        QString error;
        QVERIFY2(history.open(path, &error), qPrintable(error));
        {
            RawDb raw(path);
            QCOMPARE(raw.value("PRAGMA user_version").toInt(), RunHistory::kSchemaVersion);
            QCOMPARE(raw.value("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN "
                               "('run_tags_tag', 'runs_started_at', 'runs_status', 'runs_strategy')").toInt(), 4);
            QCOMPARE(raw.value("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                               "('plans', 'plan_predictions', 'planner_calibration')").toInt(), 3);
        }
        // Every field as the old version wrote it.
        const std::vector<RunRecord> runs = query(history, {});
        QCOMPARE(idsOf(runs), (QList<qint64>{2, 1}));
        const RunRecord& old = runs[1];
        QCOMPARE(old.name, QString("old-mlp"));
        QCOMPARE(old.label, QString(""));
        QCOMPARE(old.strategy, QString("Mirrored"));
        QCOMPARE(old.replicas, 2);
        QCOMPARE(old.hosts, QString("box"));
        QCOMPARE(old.source, QString("app"));
        QCOMPARE(old.startedAt, qint64(1763000000));
        QCOMPARE(old.endedAt, qint64(1763000060));
        QCOMPARE(old.status, RunStatus::Completed);
        QCOMPARE(old.steps, qint64(9375));
        QCOMPARE(old.samplesPerSec, 21000.5);
        QCOMPARE(old.wallSeconds, 59.5);
        QCOMPARE(old.runDir, QString("/runs/old-mlp"));
        QCOMPARE(finalMetric(old, "test", "accuracy"), std::optional<double>(0.86));
        QVERIFY(old.tags.isEmpty());
        QVERIFY(old.batchJob.isEmpty());
        QVERIFY(!old.prediction); // version 4: not checked against a plan
        QCOMPARE(history.run(1, &error)->experiment, QString(R"({"name":"old-mlp"})"));
        QCOMPARE(runs[0].error, QString("worker:0: exited with status 3"));
        QCOMPARE(runs[0].endedAt, qint64(0));
        // The new columns work on old runs.
        QVERIFY2(history.rename(1, "the first one", &error), qPrintable(error));
        QVERIFY2(history.setTags(1, {"legacy"}, &error), qPrintable(error));
        RunFilter filter;
        filter.text = "legacy";
        QCOMPARE(idsOf(query(history, filter)), QList<qint64>{1});
        QCOMPARE(history.run(1, &error)->displayName(), QString("the first one"));
        // A batch job's account, kept and searched.
        QVERIFY2(history.setBatchJob(2, "Slurm job 41: PENDING (Resources)", &error), qPrintable(error));
        QCOMPARE(history.run(2, &error)->batchJob, QString("Slurm job 41: PENDING (Resources)"));
        filter.text = "slurm job 41";
        QCOMPARE(idsOf(query(history, filter)), QList<qint64>{2});
        QVERIFY(!history.setBatchJob(99, "Slurm job 1", &error));
        QVERIFY2(error.contains("no run 99"), qPrintable(error));
        RunRecord added = makeRun("new", "OneDevice", RunStatus::Completed, 1763800000);
        QVERIFY2(history.insertRun(added, &error), qPrintable(error));
        QCOMPARE(added.id, qint64(3));
    }

    void newerSchemaIsRefused()
    {
        const QString path = newPath();
        {
            RunHistory history;
            QString error;
            QVERIFY2(history.open(path, &error), qPrintable(error));
            RunRecord r = makeRun("a", "OneDevice", RunStatus::Completed, 1763800000);
            QVERIFY(history.insertRun(r, &error));
        }
        {
            RawDb raw(path);
            raw.exec("PRAGMA journal_mode = DELETE"); // everything in the one file, to compare
            raw.exec(QStringLiteral("PRAGMA user_version = %1").arg(RunHistory::kSchemaVersion + 1));
        }
        const QByteArray before = fileBytes(path);
        RunHistory history;
        QString error;
        QVERIFY(!history.open(path, &error));
        QVERIFY(!history.isOpen());
        QVERIFY2(error.contains(path) && error.contains("newer Strata") &&
                     error.contains(QStringLiteral("schema version %1").arg(RunHistory::kSchemaVersion + 1)) &&
                     error.contains("left as it is"),
                 qPrintable(error));
        QCOMPARE(fileBytes(path), before);
        QVERIFY2(siblingsOf(path).isEmpty(), qPrintable(siblingsOf(path).join(", ")));
        // And nothing works on it.
        std::vector<RunRecord> runs;
        QVERIFY(!history.query({}, &runs, &error));
        QVERIFY2(error.contains("not open"), qPrintable(error));
    }

    void damagedFileIsRefusedAndKept_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QByteArray noise(8192, 0);
        for (int i = 0; i < noise.size(); ++i)
            noise[i] = char((i * 7919 + 13) % 251);
        QTest::newRow("garbage") << noise;
        QTest::newRow("text") << QByteArray("these are my notes, not a database\n").repeated(50);
        // A real history whose header survived and whose pages did not.
        QTest::newRow("truncated header") << QByteArray("SQLite format 3\0", 16) + QByteArray(84, '\xff');
    }

    void damagedFileIsRefusedAndKept()
    {
        QFETCH(QByteArray, bytes);
        const QString path = newPath();
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QCOMPARE(f.write(bytes), qint64(bytes.size()));
        }
        RunHistory history;
        QString error;
        QVERIFY(!history.open(path, &error));
        QVERIFY(!history.isOpen());
        QVERIFY2(error.contains(path) && error.contains("damaged or is not a SQLite database") &&
                     error.contains("left as it is"),
                 qPrintable(error));
        QCOMPARE(fileBytes(path), bytes);
        QVERIFY2(siblingsOf(path).isEmpty(), qPrintable(siblingsOf(path).join(", ")));
    }

    void foreignDatabaseIsRefusedAndKept()
    {
        const QString path = newPath();
        {
            RawDb other(path);
            other.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, file TEXT)");
            other.exec("INSERT INTO photos (file) VALUES ('cat.jpg')");
        }
        const QByteArray before = fileBytes(path);
        RunHistory history;
        QString error;
        QVERIFY(!history.open(path, &error));
        QVERIFY2(error.contains(path) && error.contains("is not a Strata run history"), qPrintable(error));
        QCOMPARE(fileBytes(path), before);
    }

    void lockedDatabaseOnOpen()
    {
        // A history in rollback-journal mode (as version 1 left it) held with BEGIN EXCLUSIVE
        // by another program: not even readable.
        const QString path = newPath();
        RawDb other(path);
        other.exec(kVersion1Schema);
        other.exec("PRAGMA user_version = 1");
        other.exec("BEGIN EXCLUSIVE");
        other.exec("INSERT INTO runs (name, experiment, strategy, source, started_at, status) VALUES "
                   "('x', '{}', 'OneDevice', 'app', 1, 'running')");
        RunHistory history;
        QString error;
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!history.open(path, &error));
        QVERIFY2(clock.elapsed() >= RunHistory::kBusyTimeoutMs - 100, "it did not wait for the lock");
        QVERIFY2(error.contains(path) && error.contains("is locked by another program (another Strata?)"),
                 qPrintable(error));
        QVERIFY(!history.isOpen());
        // Once the other program is done, it opens, with the other program's run.
        other.exec("COMMIT");
        QVERIFY2(history.open(path, &error), qPrintable(error));
        QCOMPARE(query(history, {}).size(), size_t(1));
    }

    void lockedDatabaseOnWrite()
    {
        // An open history (WAL): another program holds the write lock. Reads go on; a write
        // waits for the busy timeout, then says so, and nothing is lost.
        const QString path = newPath();
        RunHistory history;
        QString error;
        QVERIFY2(history.open(path, &error), qPrintable(error));
        fillSix(history);
        RawDb other(path);
        other.exec("BEGIN EXCLUSIVE");
        RunRecord r = makeRun("blocked", "OneDevice", RunStatus::Running, 1763900000);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(!history.insertRun(r, &error));
        QVERIFY2(clock.elapsed() >= RunHistory::kBusyTimeoutMs - 100, "it did not wait for the lock");
        QVERIFY2(error.contains(path) && error.contains("is locked by another program (another Strata?)"),
                 qPrintable(error));
        QCOMPARE(r.id, qint64(0));
        QVERIFY(!history.rename(1, "x", &error));
        QVERIFY2(error.contains("is locked"), qPrintable(error));
        QCOMPARE(query(history, {}).size(), size_t(6));
        other.exec("ROLLBACK");
        QVERIFY2(history.insertRun(r, &error), qPrintable(error));
        QCOMPARE(query(history, {}).size(), size_t(7));
        // A lock released within the timeout is simply waited for. The other program is a
        // thread with a connection of its own (a connection belongs to its thread).
        std::atomic<bool> locked{false};
        std::thread holder([&] {
            {
                RawDb mine(path);
                mine.exec("BEGIN EXCLUSIVE");
                locked = true;
                std::this_thread::sleep_for(std::chrono::milliseconds(300));
                mine.exec("COMMIT");
            }
        });
        while (!locked)
            std::this_thread::yield();
        RunRecord later = makeRun("later", "OneDevice", RunStatus::Running, 1763900100);
        clock.restart();
        const bool inserted = history.insertRun(later, &error);
        const qint64 waited = clock.elapsed();
        holder.join();
        QVERIFY2(inserted, qPrintable(error));
        QVERIFY2(waited >= 200, qPrintable(QString::number(waited)));
    }

    void unusablePlaces()
    {
        RunHistory history;
        QString error;
        // Under a regular file: no one can make that directory, root included.
        const QString file = m_dir.filePath("a-file");
        QFile(file).open(QIODevice::WriteOnly);
        QVERIFY(!history.open(file + "/history.sqlite", &error));
        QVERIFY2(error.contains(file + "/history.sqlite") && error.contains("Cannot create the directory"),
                 qPrintable(error));
        QVERIFY(!history.open(m_dir.path(), &error));
        QVERIFY2(error.contains(m_dir.path()) && error.contains("is a directory"), qPrintable(error));

        // Nothing open: every operation says so.
        RunHistory none;
        RunRecord r = makeRun("a", "OneDevice", RunStatus::Running, 1);
        QVERIFY(!none.insertRun(r, &error));
        QCOMPARE(error, QString("No run history is open."));
        QVERIFY(!none.finishRun(1, {}, &error));
        QVERIFY(!none.markInterrupted({1}, &error));
        QVERIFY(!none.run(1, &error));
    }

    void twoConnectionsShareTheFile()
    {
        // The window and a `strata run` in a terminal: each sees the other's runs.
        const QString path = newPath();
        RunHistory window, terminal;
        QString error;
        QVERIFY2(window.open(path, &error), qPrintable(error));
        QVERIFY2(terminal.open(path, &error), qPrintable(error));
        RunRecord r = makeRun("from-terminal", "OneDevice", RunStatus::Running, 1763800000);
        QVERIFY2(terminal.insertRun(r, &error), qPrintable(error));
        QCOMPARE(idsOf(query(window, {})), QList<qint64>{r.id});
        QVERIFY2(terminal.finishRun(r.id, {}, &error), qPrintable(error));
        QCOMPARE(window.run(r.id, &error)->status, RunStatus::Completed);
    }

    void thousandRuns()
    {
        RunHistory history;
        QString error;
        QVERIFY2(history.open(newPath(), &error), qPrintable(error));
        const QStringList strategies{"OneDevice", "Mirrored", "CentralStorage", "Default"};
        const QList<RunStatus> statuses{RunStatus::Completed, RunStatus::Completed, RunStatus::Failed, RunStatus::Stopped};
        int expected = 0;
        for (int i = 0; i < 1000; ++i) {
            RunRecord r = makeRun(i % 5 == 0 ? QStringLiteral("cifar10-cnn-%1").arg(i) : QStringLiteral("mnist-%1").arg(i),
                                  strategies[i % 4], statuses[(i / 4) % 4], 1763800000 + i * 60,
                                  0.5 + (i % 100) / 250.0, i % 7 == 0 ? QStringList{"sweep-a"} : QStringList{});
            QVERIFY2(history.insertRun(r, &error), qPrintable(error));
            if (r.strategy == "Mirrored" && r.status == RunStatus::Completed && r.name.startsWith("cifar10"))
                ++expected;
        }
        QCOMPARE(query(history, {}).size(), size_t(1000));
        RunFilter filter;
        filter.text = "cifar10";
        filter.strategy = "Mirrored";
        filter.status = RunStatus::Completed;
        filter.sort = RunFilter::TestAccuracy;
        const std::vector<RunRecord> runs = query(history, filter);
        QVERIFY(expected > 0);
        QCOMPARE(int(runs.size()), expected);
        for (size_t i = 0; i < runs.size(); ++i) {
            QVERIFY(runs[i].name.startsWith("cifar10"));
            QCOMPARE(runs[i].strategy, QString("Mirrored"));
            QCOMPARE(runs[i].status, RunStatus::Completed);
            if (i > 0)
                QVERIFY(*finalMetric(runs[i - 1], "test", "accuracy") >= *finalMetric(runs[i], "test", "accuracy"));
        }
        RunFilter tagged;
        tagged.text = "sweep-a";
        QCOMPARE(int(query(history, tagged).size()), (999 / 7) + 1);
        tagged.limit = 10;
        const std::vector<RunRecord> newest = query(history, tagged);
        QCOMPARE(newest.size(), size_t(10));
        QCOMPARE(newest.front().name, QString("mnist-994"));
    }

    // `strata runs`

    void runsTableText()
    {
        RunRecord done = makeRun("fashion-mnist-mlp", "Mirrored", RunStatus::Completed, 1763800000, 0.8696);
        done.id = 12;
        done.steps = 9375;
        done.samplesPerSec = 21034.4;
        done.label = "baseline, 2 cpus";
        RunRecord failed = makeRun("cnn", "OneDevice", RunStatus::Failed, 1763803600);
        failed.id = 9;
        failed.metrics = "{}";
        failed.steps = 0;
        failed.samplesPerSec = 0;
        failed.runDir = "/r/cnn";
        const QString started12 = QDateTime::fromSecsSinceEpoch(1763800000).toString("yyyy-MM-dd HH:mm");
        const QString started9 = QDateTime::fromSecsSinceEpoch(1763803600).toString("yyyy-MM-dd HH:mm");
        const QString expected =
            "ID  STARTED           NAME              STRATEGY   REPLICAS  STATUS     STEPS  SAMPLES/S  TEST ACC  TEST LOSS  RUN DIR\n"
            "12  " + started12 + "  baseline, 2 cpus  Mirrored          2  completed   9375      21034    0.8696     0.1304  /runs/fashion-mnist-mlp\n"
            " 9  " + started9 + "  cnn               OneDevice         1  failed         0          -         -          -  /r/cnn\n";
        QCOMPARE(runsTable({done, failed}), expected);
        QCOMPARE(runsTable({}), QString("ID  STARTED  NAME  STRATEGY  REPLICAS  STATUS  STEPS  SAMPLES/S  TEST ACC  TEST LOSS  RUN DIR\n"));
    }

    void runsCommandExitStatus()
    {
        const QString path = newPath();
        {
            RunHistory history;
            QString error;
            QVERIFY2(history.open(path, &error), qPrintable(error));
            fillSix(history);
        }
        QCOMPARE(runsCommand({path, {}, {}, {}, {}}), 0);
        QCOMPARE(runsCommand({path, "failed", "mirrored", "mnist", "3"}), 0);
        QCOMPARE(runsCommand({path, "broken", {}, {}, {}}), 2);
        QCOMPARE(runsCommand({path, {}, {}, {}, "ten"}), 2);
        QCOMPARE(runsCommand({path, {}, {}, {}, "0"}), 2);
        const QString damaged = newPath();
        QFile f(damaged);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(4096, 'x'));
        f.close();
        QCOMPARE(runsCommand({damaged, {}, {}, {}, {}}), 1);
        QCOMPARE(fileBytes(damaged), QByteArray(4096, 'x'));
    }
};

QTEST_GUILESS_MAIN(TestRunHistory)
#include "tst_run_history.moc"
