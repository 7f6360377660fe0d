#pragma once
// What RunHistory's sources (run_history*.cpp) share: the message for a failed statement and
// one write transaction. Internal to them (`using namespace history_sql` there).

#include <QCoreApplication>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>

namespace strata::app::history_sql {

inline QString tr(const char* text) { return QCoreApplication::translate("RunHistory", text); }

// The message for a failed statement: the file, and what SQLite said, in words for the
// causes a user can act on.
QString describe(const QString& path, const QSqlError& e);

// One write transaction. BEGIN IMMEDIATE takes the write lock at once (waiting for the busy
// timeout), instead of failing half way when another connection wrote in between. Rolled back
// unless committed.
class Transaction {
public:
    Transaction(const QSqlDatabase& db, const QString& path) : m_db(db), m_path(path) {}
    ~Transaction()
    {
        if (m_open)
            QSqlQuery(m_db).exec("ROLLBACK");
    }
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    bool begin(QString* error) { return m_open = run("BEGIN IMMEDIATE", error); }
    bool commit(QString* error)
    {
        if (!run("COMMIT", error))
            return false;
        m_open = false;
        return true;
    }

private:
    bool run(const char* sql, QString* error)
    {
        QSqlQuery q(m_db);
        if (q.exec(sql))
            return true;
        *error = describe(m_path, q.lastError());
        return false;
    }

    QSqlDatabase m_db;
    QString m_path;
    bool m_open = false;
};

} // namespace strata::app::history_sql
