#pragma once
// The history table as the History page shows it (over app::HistoryModel, row for row): a
// failed run's row is written in the error colour (theme::error, on the view's palette, so a
// dark palette gets its own) and every cell's tooltip starts with why it failed, so the error
// is found by pointing at any part of the row, not only at its status.

#include <QIdentityProxyModel>

class QWidget;

namespace strata::ui {

class FailedRunRows : public QIdentityProxyModel {
    Q_OBJECT

public:
    // `view`: the widget whose palette gives the colour; it must outlive the model.
    explicit FailedRunRows(QWidget* view, QObject* parent = nullptr);

    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    QWidget* m_view;
};

} // namespace strata::ui
