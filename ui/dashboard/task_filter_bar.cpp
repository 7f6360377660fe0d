#include "ui/dashboard/task_filter_bar.h"

#include "ui/dashboard/task_table.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>

namespace strata::ui {

TaskFilterBar::TaskFilterBar(TaskTable* table, QWidget* parent)
    : QWidget(parent), m_table(table), m_field(new QLineEdit(this)), m_count(new QLabel(this))
{
    setObjectName("taskFilterBar");
    m_field->setObjectName("taskFilter");
    m_field->setPlaceholderText(tr("Filter tasks: name, host or state (node-3, failed)"));
    m_field->setClearButtonEnabled(true);
    m_field->setToolTip(tr("Shows the tasks whose name, host or state hold every word typed"));
    m_count->setObjectName("taskCount");
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_field, 1);
    layout->addWidget(m_count);
    connect(m_field, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_table->setFilterText(text);
        showCounts();
    });
    connect(m_table, &TaskTable::countsChanged, this, &TaskFilterBar::showCounts);
    showCounts();
}

void TaskFilterBar::showCounts()
{
    const int shown = m_table->shownCount(), all = m_table->taskCount();
    const QString tasks = all == 1 ? tr("1 task") : tr("%1 tasks").arg(all);
    m_count->setText(m_field->text().isEmpty() ? tasks : tr("%1 of %2").arg(shown).arg(tasks));
    setVisible(all > TaskTable::kRowsShown || !m_field->text().isEmpty());
}

} // namespace strata::ui
