#include "app/metrics/task_table_model.h"

#include <QCoreApplication>

namespace strata::app {

namespace {
QString tr(const char* text) { return QCoreApplication::translate("strata", text); }

QString exitText(const TaskSummary& t)
{
    if (!t.exited)
        return {};
    return t.crashed ? tr("killed by a signal") : tr("status %1").arg(t.exitCode);
}

// A lost worker says why it is lost (killed, or named by the survivors); the survivors that
// stopped because of it show their error, which names it.
QString resultText(const TaskSummary& t) { return t.lost ? t.lostReason : (t.error.isEmpty() ? t.result : t.error); }

// Fewer decimals as the number grows: "3.25", "84.0", "1250".
QString paceText(double value) { return QString::number(value, 'f', value < 10 ? 2 : value < 100 ? 1 : 0); }

QString display(const TaskSummary& t, int column)
{
    switch (column) {
    case TaskTableModel::TaskColumn: return t.task;
    case TaskTableModel::HostColumn: return t.place;
    case TaskTableModel::StateColumn: return stateText(t);
    case TaskTableModel::StepColumn:
        return t.totalSteps > 0 ? QStringLiteral("%1 / %2").arg(t.step).arg(t.totalSteps) : QString::number(t.step);
    case TaskTableModel::StepTimeColumn: return t.stepMs >= 0 ? tr("%1 ms").arg(paceText(t.stepMs)) : QString();
    case TaskTableModel::SamplesPerSecColumn: return t.samplesPerSec >= 0 ? paceText(t.samplesPerSec) : QString();
    case TaskTableModel::ExitColumn: return exitText(t);
    case TaskTableModel::ResultColumn: return resultText(t);
    }
    return {};
}

// An exit's place, troubles first: killed by a signal, a failure status, status 0; nothing
// while the process runs.
QVariant exitRank(const TaskSummary& t)
{
    if (!t.exited)
        return {};
    return t.crashed ? 0 : t.exitCode != 0 ? 1 : 2;
}

QVariant sortValue(const TaskSummary& t, int column)
{
    switch (column) {
    case TaskTableModel::StateColumn: return stateRank(t);
    case TaskTableModel::StepColumn: return t.step;
    case TaskTableModel::StepTimeColumn: return t.stepMs >= 0 ? QVariant(t.stepMs) : QVariant();
    case TaskTableModel::SamplesPerSecColumn: return t.samplesPerSec >= 0 ? QVariant(t.samplesPerSec) : QVariant();
    case TaskTableModel::ExitColumn: return exitRank(t);
    default: {
        const QString text = display(t, column);
        return text.isEmpty() ? QVariant() : QVariant(text);
    }
    }
}

TaskTableModel::Concern concern(const TaskSummary& t, int column)
{
    // An unreachable task may well be training: a warning on its state, not a failure.
    if (t.unreachable && column == TaskTableModel::StateColumn)
        return TaskTableModel::Concern::Warning;
    if (t.state == TaskState::Failed || t.lost)
        return TaskTableModel::Concern::Failure;
    return t.straggling && column == TaskTableModel::TaskColumn ? TaskTableModel::Concern::Warning
                                                               : TaskTableModel::Concern::None;
}

// What a cell does not say: why its node cannot be heard, the error beside a loss's reason;
// over the whole row, how much slower a straggler was since when. Nothing else: a view shows a
// cut text whole as its tip (ui::ElidedTextTips).
QString cellToolTip(const TaskSummary& t, int column)
{
    if (t.unreachable && column == TaskTableModel::StateColumn)
        return t.unreachableWhy;
    if (t.lost && !t.error.isEmpty())
        return resultText(t) + '\n' + t.error;
    return {};
}

QVariant toolTip(const TaskSummary& t, int column)
{
    const QString tip = cellToolTip(t, column);
    if (t.straggler.isEmpty())
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    return tip.isEmpty() ? t.straggler : t.straggler + '\n' + tip;
}
} // namespace

int stateRank(const TaskSummary& t)
{
    if (t.state == TaskState::Failed)
        return 0;
    if (t.lost)
        return 1;
    if (t.unreachable)
        return 2;
    if (t.state == TaskState::Running && t.coordinatorState == QLatin1String("waiting"))
        return 3;
    if (!t.scheduled.isEmpty() && !t.exited)
        return 4;
    switch (t.state) {
    case TaskState::Starting: return 5;
    case TaskState::Running: return 6;
    case TaskState::Stopped: return 7;
    case TaskState::Completed: return 8;
    case TaskState::Failed: break;
    }
    return 0;
}

TaskTableModel::TaskTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TaskTableModel::setTasks(const QList<TaskSummary>& tasks)
{
    // The store only adds tasks: the same names in the same order but for new ones at the end,
    // else it is another run.
    qsizetype same = 0;
    while (same < m_rows.size() && same < tasks.size() && m_rows[same].task == tasks[same].task)
        ++same;
    if (same < m_rows.size()) {
        beginResetModel();
        m_rows = tasks;
        endResetModel();
        return;
    }
    // One notice for the rows that changed (a proxy re-sorts once, not once a row).
    qsizetype first = -1, last = -1;
    for (qsizetype row = 0; row < same; ++row)
        if (m_rows[row] != tasks[row]) {
            m_rows[row] = tasks[row];
            first = first < 0 ? row : first;
            last = row;
        }
    if (first >= 0)
        Q_EMIT dataChanged(index(int(first), 0), index(int(last), ColumnCount - 1));
    if (tasks.size() > same) {
        beginInsertRows({}, int(same), int(tasks.size() - 1));
        m_rows.append(tasks.mid(same));
        endInsertRows();
    }
}

int TaskTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int TaskTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TaskTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const TaskSummary& t = m_rows[index.row()];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole: return display(t, column);
    case Qt::ToolTipRole: return toolTip(t, column);
    case Qt::TextAlignmentRole:
        return column == StepColumn || column == StepTimeColumn || column == SamplesPerSecColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    case SortRole: return sortValue(t, column);
    case ConcernRole: return int(concern(t, column));
    case TaskRole: return t.task;
    case StragglingRole: return t.straggling;
    default: return {};
    }
}

QVariant TaskTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char* const names[] = {"Task", "Host", "State", "Step", "Step time", "Samples/s", "Exit", "Result"};
    static const char* const tips[] = {
        "The task, as the cluster names it",
        "Where it runs: the node, and its address",
        "What it is doing (lost or unreachable, with why)",
        "Its last step, of the run's steps (a ps task: the updates it has applied)",
        "Wall time per step over its latest window",
        "Samples per second of all its replicas over its latest window",
        "How its process ended",
        "Its test metrics, or why it failed",
    };
    switch (role) {
    case Qt::DisplayRole: return tr(names[section]);
    case Qt::ToolTipRole: return tr(tips[section]);
    case Qt::InitialSortOrderRole:
        return int(section == StepTimeColumn ? Qt::DescendingOrder : Qt::AscendingOrder);
    default: return {};
    }
}

} // namespace strata::app
