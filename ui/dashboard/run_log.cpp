#include "ui/dashboard/run_log.h"

#include "app/metrics/placement.h"
#include "ui/shell/theme.h"

#include <QDateTime>

namespace strata::ui {

RunLog::RunLog(QWidget* parent) : QPlainTextEdit(parent)
{
    setObjectName("runLog");
    setReadOnly(true);
    setMaximumBlockCount(100000);
}

void RunLog::reset()
{
    clear();
    m_shown = 0;
}

void RunLog::refresh(const app::MetricsStore& store)
{
    const QList<app::LogEntry> entries = app::logEntries(store, m_shown);
    for (const auto& e : entries) {
        const QString time = QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(e.time * 1000)).toString("HH:mm:ss");
        const QString line = QStringLiteral("%1  %2  %3  %4").arg(time, e.task, e.level, e.message);
        if (e.level == "error")
            appendHtml(QStringLiteral("<span style='color:%1'>%2</span>").arg(theme::error(palette()).name(), line.toHtmlEscaped()));
        else
            appendPlainText(line);
    }
    m_shown += static_cast<int>(entries.size());
}

} // namespace strata::ui
