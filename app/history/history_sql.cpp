#include "app/history/history_sql.h"

#include "app/history/run_history.h"

namespace strata::app::history_sql {

namespace {

// SQLite's primary result codes (sqlite3.h), as Qt reports them in nativeErrorCode().
constexpr int kSqliteCorrupt = 11, kSqliteBusy = 5, kSqliteLocked = 6, kSqliteNotADatabase = 26;

} // namespace

QString describe(const QString& path, const QSqlError& e)
{
    switch (e.nativeErrorCode().toInt() & 0xff) { // extended codes carry the primary one in the low byte
    case kSqliteBusy:
    case kSqliteLocked:
        return tr("The run history %1 is locked by another program (another Strata?): still locked after %2 s. "
                  "Nothing was changed.").arg(path).arg(RunHistory::kBusyTimeoutMs / 1000.0);
    case kSqliteCorrupt:
    case kSqliteNotADatabase:
        return tr("The run history %1 is damaged or is not a SQLite database (%2). It was left as it is: move it "
                  "away to start a new history, or set STRATA_HISTORY to another file.")
            .arg(path, e.databaseText());
    default:
        return tr("Run history %1: %2").arg(path, e.databaseText().isEmpty() ? e.text() : e.databaseText());
    }
}

} // namespace strata::app::history_sql
