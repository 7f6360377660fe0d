#include "ui/history/failed_run_rows.h"

#include "app/history/history_model.h"
#include "ui/shell/theme.h"

#include <QWidget>

namespace strata::ui {

FailedRunRows::FailedRunRows(QWidget* view, QObject* parent) : QIdentityProxyModel(parent), m_view(view) {}

QVariant FailedRunRows::data(const QModelIndex& index, int role) const
{
    const auto* history = qobject_cast<const app::HistoryModel*>(sourceModel());
    if (!history || !index.isValid() || (role != Qt::ForegroundRole && role != Qt::ToolTipRole))
        return QIdentityProxyModel::data(index, role);
    const app::RunRecord& run = history->record(index.row());
    if (run.status != app::RunStatus::Failed)
        return QIdentityProxyModel::data(index, role);
    if (role == Qt::ForegroundRole)
        return theme::error(m_view->palette());
    const QString error = run.error.isEmpty() ? tr("Failed (no reason was recorded)") : tr("Failed: %1").arg(run.error);
    const QString own = QIdentityProxyModel::data(index, role).toString();
    // The status cell's own tooltip is the error already.
    return own.isEmpty() || own == run.error ? error : error + "\n\n" + own;
}

} // namespace strata::ui
