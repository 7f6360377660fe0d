#include "ui/dashboard/task_table.h"

#include "app/metrics/placement.h"
#include "ui/shell/elided_text_tips.h"
#include "ui/shell/theme.h"

#include <QApplication>
#include <QHeaderView>
#include <QStyle>

#include <algorithm>

namespace strata::ui {

namespace {
using Model = app::TaskTableModel;

// The cells' colours: what the model's concern says, in the palette's words; and a straggler's
// mark, the style's warning sign by its name.
class TaskCellColours : public ElidedTextTips {
public:
    using ElidedTextTips::ElidedTextTips;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        ElidedTextTips::initStyleOption(option, index);
        const auto concern = Model::Concern(index.data(Model::ConcernRole).toInt());
        if (concern == Model::Concern::Failure)
            option->palette.setColor(QPalette::Text, theme::error(option->palette));
        else if (concern == Model::Concern::Warning)
            option->palette.setColor(QPalette::Text, theme::warning(option->palette));
        if (index.column() == Model::TaskColumn && index.data(Model::StragglingRole).toBool()) {
            const QStyle* style = option->widget ? option->widget->style() : QApplication::style();
            option->icon = style->standardIcon(QStyle::SP_MessageBoxWarning, nullptr, option->widget);
            option->features |= QStyleOptionViewItem::HasDecoration;
            const int side = style->pixelMetric(QStyle::PM_SmallIconSize, nullptr, option->widget);
            option->decorationSize = QSize(side, side);
        }
    }
};
} // namespace

TaskTable::TaskTable(QWidget* parent) : QTableView(parent), m_model(new app::TaskTableModel(this)), m_rows(new app::TaskTableSortFilter(this))
{
    setObjectName("taskTable");
    m_rows->setSourceModel(m_model);
    setModel(m_rows);
    setItemDelegate(new TaskCellColours(this));
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setWordWrap(false);
    verticalHeader()->hide();
    QHeaderView* header = horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setStretchLastSection(true);
    // Unsorted (the store's order: the cluster's) until a header is clicked; a third click on
    // it goes back to that.
    header->setSortIndicatorClearable(true);
    header->setSortIndicator(-1, Qt::AscendingOrder);
    setSortingEnabled(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);

    connect(selectionModel(), &QItemSelectionModel::currentChanged, this, &TaskTable::selectedTaskChanged);
    for (QAbstractItemModel* model : std::initializer_list<QAbstractItemModel*>{m_model, m_rows}) {
        connect(model, &QAbstractItemModel::rowsInserted, this, &TaskTable::countsChanged);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &TaskTable::countsChanged);
        connect(model, &QAbstractItemModel::modelReset, this, &TaskTable::countsChanged);
    }
    // As tall as its rows.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &QWidget::updateGeometry);
    connect(m_model, &QAbstractItemModel::modelReset, this, &QWidget::updateGeometry);
}

void TaskTable::refresh(const app::MetricsStore& store)
{
    m_model->setTasks(app::taskSummaries(store));
}

void TaskTable::setFilterText(const QString& text)
{
    m_rows->setFilterText(text);
}

QString TaskTable::text(int row, int column) const
{
    return m_rows->index(row, column).data().toString();
}

int TaskTable::rowOf(const QString& task) const
{
    for (int row = 0; row < m_rows->rowCount(); ++row)
        if (m_rows->index(row, 0).data(Model::TaskRole).toString() == task)
            return row;
    return -1;
}

QString TaskTable::selectedTask() const
{
    return currentIndex().data(Model::TaskRole).toString();
}

int TaskTable::heightFor(int rows) const
{
    return horizontalHeader()->height() + rows * verticalHeader()->defaultSectionSize() + 2 * frameWidth();
}

QSize TaskTable::sizeHint() const
{
    // By the tasks in all, not those the filter keeps: typing in the filter does not move the page.
    return {QTableView::sizeHint().width(), heightFor(std::clamp(taskCount(), 1, kRowsShown))};
}

QSize TaskTable::minimumSizeHint() const
{
    // Up to three tasks stay in view however small the window (a chief, a worker, an evaluator).
    return {QTableView::minimumSizeHint().width(), heightFor(std::clamp(taskCount(), 1, 3))};
}

} // namespace strata::ui
