#pragma once
// Helpers for the run history tests: records to insert, a second raw SQLite connection (as
// another program would hold one), and a file's bytes.

#include "app/history/run_history.h"

#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTest>

#include <atomic>

namespace historytest {

using strata::app::RunRecord;
using strata::app::RunStatus;

// A finished run with everything filled in; `startedAt` also sets its end (a minute later).
inline RunRecord makeRun(const QString& name, const QString& strategy, RunStatus status, qint64 startedAt,
                         double testAccuracy = 0.85, const QStringList& tags = {})
{
    RunRecord r;
    r.name = name;
    r.experiment = QStringLiteral(R"({"strata":1,"name":"%1","strategy":{"type":"%2"}})").arg(name, strategy);
    r.strategy = strategy;
    r.replicas = strategy == "Mirrored" ? 2 : 1;
    r.tasks = R"([{"task":"worker:0","host":"box"}])";
    r.hosts = "box";
    r.source = "app";
    r.startedAt = startedAt;
    r.endedAt = status == RunStatus::Running ? 0 : startedAt + 60;
    r.status = status;
    r.error = status == RunStatus::Failed ? QStringLiteral("worker:0: exited with status 3") : QString();
    r.metrics = QStringLiteral(R"({"train":{"loss":0.4,"accuracy":0.86},"test":{"loss":%1,"accuracy":%2}})")
                    .arg(1.0 - testAccuracy, 0, 'f', 4)
                    .arg(testAccuracy, 0, 'f', 4);
    r.steps = 1000;
    r.samplesPerSec = 20000;
    r.wallSeconds = 59.5;
    r.runDir = "/runs/" + name;
    r.tags = tags;
    return r;
}

// A connection of its own to `path`, like another program's.
class RawDb {
public:
    explicit RawDb(const QString& path)
    {
        static std::atomic<int> count{0};
        m_name = QStringLiteral("raw-%1").arg(count.fetch_add(1));
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", m_name);
        db.setDatabaseName(path);
        if (!db.open())
            qFatal("cannot open %s: %s", qPrintable(path), qPrintable(db.lastError().text()));
    }
    ~RawDb()
    {
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    RawDb(const RawDb&) = delete;
    RawDb& operator=(const RawDb&) = delete;

    // Runs `sql`; fails the process on an error (the fixtures must be right).
    void exec(const QString& sql)
    {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        if (!q.exec(sql))
            qFatal("%s: %s", qPrintable(sql), qPrintable(q.lastError().text()));
    }
    // The first column of the first row of `sql`.
    QVariant value(const QString& sql)
    {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        if (!q.exec(sql) || !q.next())
            qFatal("%s: %s", qPrintable(sql), qPrintable(q.lastError().text()));
        return q.value(0);
    }

private:
    QString m_name;
};

inline QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

} // namespace historytest
